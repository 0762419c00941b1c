"""``memkg serve``: open the store, start the workers, serve until SIGTERM, shut down cleanly.

Shutdown (SIGTERM or Ctrl-C): stop accepting connections, answer new requests on
open connections with 503, give requests in flight up to ``grace`` seconds (the
query time limit by default) to finish, kill the workers still busy after that (their requests get 503), wait
for a write in progress, delete the snapshots, close the store, return 0.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ...guard import sandbox
from ...guard.limits import DEFAULT as DEFAULT_LIMITS
from ...guard.limits import Limits
from ...store import MemoryStore
from . import rights
from .app import DEFAULT_MAX_BODY, Endpoint, Settings
from .transport import Server


@dataclass(frozen=True)
class ServeOptions:
    store: Path
    host: str = "127.0.0.1"
    port: int = 7878
    tokens: Path | None = None
    read_only: bool = False
    timeout: float | None = 60.0
    workers: int = 0  #: 0: two per CPU (see default_workers)
    #: seconds requests in flight get at shutdown; None: the query time limit (a query
    #: cannot run longer anyway), at most 10 s
    grace: float | None = None
    log_requests: bool = False
    max_body: int | None = DEFAULT_MAX_BODY  #: bytes a request body may have; None: no limit
    limits: Limits = DEFAULT_LIMITS  #: the other limits on requests (its max_body gives way to max_body)


def default_workers() -> int:
    """Two per CPU: while one worker's answer crosses the pipe, another can run a query
    (8 clients on 2 CPUs: ~2x the requests/s of one per CPU, benchmarks/bench_endpoint.py)."""
    return min(16, 2 * (os.cpu_count() or 1))


def serve(options: ServeOptions, *, out: TextIO = sys.stderr) -> int:
    """Run the endpoint in this process until SIGTERM or SIGINT; returns the exit code (0, or
    130 when Ctrl-C stopped it)."""
    tokens = rights.load_tokens(options.tokens)  # a bad tokens file fails before anything opens
    if tokens is not None and not sandbox.supported():
        # The workers could not be kept off the network: a token holder's SERVICE or LOAD
        # would reach it. No server rather than one whose isolation rests on reading text.
        raise sandbox.SandboxUnavailable(
            "memkg serve --tokens needs the network sandbox (seccomp, Linux on x86_64 or aarch64), "
            "which this system does not have; refusing to start"
        )
    if options.read_only and not options.store.exists():
        raise FileNotFoundError(f"{options.store}: no store to serve read-only")
    # Read-write even with --read-only: the server must be the store's only writer, and
    # Oxigraph's read-only open beside a writer is undefined behaviour.
    store = MemoryStore(options.store)
    try:
        settings = Settings(
            read_only=options.read_only, timeout=options.timeout, workers=options.workers or default_workers(),
            limits=dataclasses.replace(options.limits, max_body=options.max_body),
        )
        endpoint = Endpoint(store, settings, tokens=tokens)
    except BaseException:
        store.close()
        raise
    try:
        server = Server((options.host, options.port), endpoint, log_requests=options.log_requests)
    except BaseException:
        endpoint.close(0)
        raise
    host, port = server.server_address[:2]
    stopped_by = _on_signals(server)
    mode = "read-only, " if options.read_only else ""
    limit = f"{options.timeout:g} s" if options.timeout else "none"
    print(
        f"memkg serve: listening on http://{_url_host(str(host))}:{port}/ "
        f"(store {options.store}, {mode}{settings.workers} query workers, time limit {limit})",
        file=out,
        flush=True,
    )
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        grace = options.grace if options.grace is not None else min(options.timeout or 10.0, 10.0)
        server.drain(grace)
        endpoint.close(grace=0)  # queries still running are killed: their requests answer 503
        server.drain(5)  # ... and those answers go out before the process ends
        print("memkg serve: stopped, store closed", file=out, flush=True)
    # Ctrl-C ends it as it ends every command (128 + SIGINT); SIGTERM is the orderly stop.
    return 128 + signal.SIGINT if stopped_by == [signal.SIGINT] else 0


def _on_signals(server: Server) -> list[int]:
    """SIGTERM and SIGINT stop the server (from another thread: shutdown() waits for serve_forever);
    the list returned gets the signal that stopped it."""
    stopping = threading.Event()
    stopped_by: list[int] = []

    def stop(signum: int, frame: object) -> None:
        if not stopping.is_set():
            stopping.set()
            stopped_by.append(signum)
            server.closing.set()
            threading.Thread(target=server.shutdown, name="memkg-shutdown", daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return stopped_by


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
