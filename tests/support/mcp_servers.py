"""A real ``memkg mcp`` for the agent-tool tests and benchmark: over stdio (the SDK launches it)
or over streamable HTTP in a subprocess, and the SDK's own client for either."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
logging.getLogger("httpx2").setLevel(logging.WARNING)  # one INFO line per request otherwise
ENV = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def stdio_client(store: Path, *args: str, command: list[str] | None = None, src: Path | None = None) -> Client:
    """The SDK's client over stdio, launching ``python -m memkg --store STORE mcp ARGS…``
    (or ``python COMMAND…``; ``src``: memkg from that source tree)."""
    argv = command or ["-m", "memkg", "--store", str(store), "mcp", *args]
    return Client(StdioServerParameters(command=sys.executable, args=argv, env=env(src)), read_timeout_seconds=60)


def env(src: Path | None) -> dict[str, str]:
    """The servers' environment: memkg from this checkout's ``src``, or from ``src``."""
    return ENV if src is None else {**ENV, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def http_client(url: str, token: str | None = None) -> Client:
    """The SDK's client over streamable HTTP, with a bearer token if given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=60))
    return Client(transport, read_timeout_seconds=60)


class HttpServer:
    """``python -m memkg --store STORE mcp --http 127.0.0.1:0 ARGS…`` (or ``python COMMAND…``, which
    prints "serving URL" likewise), read for its URL, stopped on close."""

    def __init__(self, store: Path, *args: str, timeout: float = 60, command: list[str] | None = None,
                 src: Path | None = None) -> None:
        argv = command or ["-m", "memkg", "--store", str(store), "mcp", "--http", "127.0.0.1:0", *args]
        self.process = subprocess.Popen(
            [sys.executable, *argv],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(src),
        )
        found: list[str] = []
        done = threading.Event()
        self.log: list[str] = []

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.log.append(line)
                m = re.search(r"serving (http://\S+)", line)
                if m and not found:
                    found.append(m.group(1))
                    done.set()
            done.set()

        threading.Thread(target=read, daemon=True).start()
        if not done.wait(timeout) or not found:
            self.close()
            raise RuntimeError(f"memkg mcp --http did not start: {''.join(self.log)}")
        self.url = found[0]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "HttpServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def result(call: Any) -> dict[str, Any]:
    """A successful call's structured result (the test fails, with the tool's text, otherwise)."""
    assert not call.is_error, call.content[0].text
    return call.structured_content


def error(call: Any) -> str:
    """A refused call's text (the test fails if the call succeeded)."""
    assert call.is_error, json.dumps(call.structured_content)
    return call.content[0].text
