"""A real ``memkg serve`` in a subprocess, for the endpoint tests, and a small HTTP client."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from memkg import MemoryStore

from .examples import EXAMPLES, LIA

POSTGRES = EXAMPLES / "postgres-migration.trig"
ROOT = Path(__file__).resolve().parents[2]


def make_store(path: Path) -> Path:
    """A store on disk holding both examples, closed again (the server opens it)."""
    with MemoryStore(path) as store:
        store.load(LIA, POSTGRES)
    return path


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self) -> object:
        return json.loads(self.body)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


class Server:
    """``python -m memkg --store STORE serve --port 0 ARGS…``, read for its port, stopped on close."""

    def __init__(self, store: Path, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        self.store = store
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memkg", "--store", str(store), "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.log: list[str] = []
        first = self.process.stderr.readline()  # type: ignore[union-attr]
        self.log.append(first)
        found = re.search(r"listening on http://([^/]+):(\d+)/", first)
        if not found:
            rest = self.process.communicate(timeout=30)[1]
            raise RuntimeError(f"memkg serve did not start: {first}{rest}")
        self.host, self.port = found.group(1), int(found.group(2))
        # Keep reading stderr so the server never blocks on a full pipe.
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        for line in self.process.stderr:  # type: ignore[union-attr]
            self.log.append(line)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def request(
        self, method: str, path: str, body: bytes | str | None = None, headers: dict[str, str] | None = None,
        *, timeout: float = 30,
    ) -> Response:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            data = body.encode() if isinstance(body, str) else body
            conn.request(method, path, body=data, headers=headers or {})
            r = conn.getresponse()
            return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        finally:
            conn.close()

    def query(self, text: str, accept: str | None = None, **params: str) -> Response:
        headers = {"Accept": accept} if accept else {}
        return self.request("GET", "/sparql?" + urlencode({"query": text, **params}), headers=headers)

    def health(self) -> dict:
        return self.request("GET", "/health").json()  # type: ignore[return-value]

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, then the exit code."""
        if self.process.poll() is None:
            self.process.terminate()
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until(condition, timeout: float = 20.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def documented_health() -> list[dict]:
    """The ``/health`` answers docs/endpoint.md shows, in its order: without a token, with a
    tenant's token, on a server without tokens."""
    row = next(line for line in (ROOT / "docs" / "endpoint.md").read_text().splitlines()
               if line.startswith("| `GET /health` |"))
    return [json.loads(shown) for shown in re.findall(r"`(\{.*?\})`", row)]

