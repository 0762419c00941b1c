"""The pool of query worker processes, and the deadline that kills a runaway query.

A request thread takes an idle worker, sends it one job and waits for the reply
until the deadline. Past it, the worker is killed (SIGKILL: pyoxigraph has no way
to stop a query) and a fresh one is started in the background; the request is
answered with :class:`QueryTimeout`. Workers are never forked from the server,
which holds RocksDB handles and threads a forked child must not inherit: they are
forked from multiprocessing's *fork server*, a fresh single-threaded process that
has imported the worker module once. A worker then starts in ~40 ms instead of the
~1.5 s of CPU a spawned one spends importing, which matters when a hostile client gets
workers killed at the time limit over and over (benchmarks/bench_hostile.py).
Without a fork server (not POSIX), workers are spawned.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ...guard.access import Grant
from ...guard.sandbox import SandboxUnavailable
from . import jobs, rights, worker
from .failures import QueryTimeout, ServerBusy, WorkerCrashed
from .jobs import Job, Reply


def _context() -> Any:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([worker.__name__])
    return context


_SPAWN = _context()
#: How long a new worker may take to import memkg and say it is ready.
START_TIMEOUT = 60.0


@dataclass(eq=False)  # identity: the pool keeps them in a set
class Worker:
    process: BaseProcess
    conn: Connection

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


def start_worker(sandboxed: bool = False) -> Worker:
    """A new worker, ready for jobs; ``sandboxed``: it has no network (memkg.guard.sandbox), or it fails to start."""
    ours, theirs = _SPAWN.Pipe(duplex=True)
    process = _SPAWN.Process(target=worker.main, args=(theirs, sandboxed), name="memkg-query-worker", daemon=True)
    process.start()
    theirs.close()
    said = jobs.receive(ours) if jobs.ready(ours, START_TIMEOUT) else None
    if said != worker.READY:
        process.kill()
        if isinstance(said, str) and said.startswith("sandbox unavailable"):
            raise SandboxUnavailable(said)
        raise RuntimeError("a query worker did not start")
    return Worker(process, ours)


def _death(w: Worker) -> str:
    """How a worker whose pipe broke ended: its signal or exit code, as a reader can take it."""
    w.process.join(1)
    code = w.process.exitcode
    if code is None:
        return "its pipe broke"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = {"SIGSEGV": "a crash", "SIGKILL": "killed, by the system's memory limit perhaps", "SIGABRT": "an abort"}
        return f"{name}: {why.get(name, 'a signal')}"
    return f"exit code {code}"


class WorkerPool:
    """``size`` worker processes; :meth:`run` sends a job to an idle one, with a deadline."""

    def __init__(self, size: int, *, sandboxed: bool = False) -> None:
        if size < 1:
            raise ValueError("the pool needs at least one worker")
        self.size = size
        self.sandboxed = sandboxed
        # Last in, first out: the worker used last most likely has the newest snapshot open
        # (a switch costs ~10-25 ms) and its caches warm; the others stay spare for bursts.
        self._idle: queue.LifoQueue[Worker] = queue.LifoQueue()
        self._lock = threading.Lock()
        self._workers: set[Worker] = set()
        self._closing = False
        self._starting: list[threading.Thread] = []
        # Start them side by side: each spends most of its start importing.
        started: list[Worker] = []
        failures: list[BaseException] = []

        def start() -> None:
            try:
                started.append(start_worker(sandboxed))
            except BaseException as err:  # noqa: BLE001 - reported below, from this thread
                failures.append(err)

        threads = [threading.Thread(target=start) for _ in range(size)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if len(started) != size:
            for w in started:
                w.kill()
            unavailable = [f for f in failures if isinstance(f, SandboxUnavailable)]
            if unavailable:
                raise unavailable[0]
            raise RuntimeError("the query workers did not start")
        for w in started:
            self._workers.add(w)
            self._idle.put(w)

    def pids(self) -> list[int]:
        with self._lock:
            return sorted(w.pid for w in self._workers if w.pid is not None)

    def run(self, snapshot: str, job: Job, *, timeout: float | None, wait: float) -> Reply:
        """Run ``job`` on the ``snapshot`` (a directory) on an idle worker; waits ``wait`` s at
        most for one to come free. :class:`~.failures.ServerBusy` past it (or while shutting down),
        :class:`~.failures.QueryTimeout` past ``timeout``, :class:`~.failures.WorkerCrashed`."""
        if self._closing:
            raise ServerBusy("the server is shutting down")
        try:
            w = self._idle.get(timeout=wait)
        except queue.Empty:
            raise ServerBusy(f"every query worker stayed busy for {wait:g} s; try again later") from None
        if self._closing:  # woke up to the shutdown's sentinel handling
            self._idle.put(w)
            raise ServerBusy("the server is shutting down")
        what = job.what
        try:
            jobs.send(w.conn, (snapshot, job))
            finished = jobs.ready(w.conn, timeout)
            reply: Reply | None = jobs.receive(w.conn) if finished else None
        except (EOFError, OSError):
            how = _death(w)
            self._replace(w)
            if self._closing:
                raise ServerBusy("the server shut down while the query ran") from None
            raise WorkerCrashed(f"the worker running this {what} died ({how}) and was replaced; "
                                f"the {what} was not answered and nothing was written") from None
        if reply is None:
            assert timeout is not None  # poll(None) waits for ever
            self._replace(w)
            raise QueryTimeout(timeout, what)
        self._idle.put(w)
        return reply

    def _replace(self, dead: Worker) -> None:
        """Kill ``dead`` now; start its successor in the background (spawning takes a while)."""
        dead.kill()
        with self._lock:
            self._workers.discard(dead)
            if self._closing:
                return
            t = threading.Thread(target=self._start_one, name="memkg-worker-start", daemon=True)
            # Forget the starters that are done: a long-lived server replaces workers often.
            self._starting = [s for s in self._starting if s.is_alive()] + [t]
        t.start()

    def _start_one(self) -> None:
        try:
            w = start_worker(self.sandboxed)
        except Exception as err:  # noqa: BLE001 - the pool runs on with one worker fewer
            print(f"memkg serve: could not start a query worker: {err}", file=sys.stderr, flush=True)
            return
        with self._lock:
            if self._closing:
                w.kill()
                return
            self._workers.add(w)
        self._idle.put(w)

    def close(self, grace: float = 5.0) -> None:
        """Stop every worker: idle ones are asked to quit, busy ones get ``grace`` s, then SIGKILL."""
        with self._lock:
            self._closing = True
            starting = list(self._starting)
        for t in starting:
            t.join(START_TIMEOUT)
        deadline = time.monotonic() + grace
        with self._lock:
            workers = list(self._workers)
        for w in workers:
            try:
                jobs.send(w.conn, None)
            except OSError:
                pass
        for w in workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.kill()
        with self._lock:
            self._workers.clear()


class WorkerShares:
    """At most half the workers (at least one) busy with one token's requests at a time.

    A token's runaway queries and updates (each stopped at ``--timeout``) then leave
    the other half to everyone else; its further requests wait for one of its own to
    end (503 past the wait, like a busy pool). Requests without a token name (a server
    without tokens) are not counted.
    """

    def __init__(self, workers: int) -> None:
        self.per_token = max(1, workers // 2)
        self._busy: dict[str, int] = {}
        self._freed = threading.Condition()

    @contextlib.contextmanager
    def slot(self, grant: Grant, wait: float = 60.0) -> Iterator[None]:
        name = rights.share(grant)
        if name is None:
            yield
            return
        with self._freed:
            if not self._freed.wait_for(lambda: self._busy.get(name, 0) < self.per_token, wait):
                raise ServerBusy(f"this token already runs {self.per_token} requests at once; try again later")
            self._busy[name] = self._busy.get(name, 0) + 1
        try:
            yield
        finally:
            with self._freed:
                self._busy[name] -= 1
                self._freed.notify_all()
