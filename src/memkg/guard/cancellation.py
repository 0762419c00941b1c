"""Stopping a call that ran out of time, for real, with nothing half-written.

A Python thread cannot be killed, but it can be stopped: :func:`run` runs a
function on a worker thread, and past the deadline raises :class:`Cancelled`
inside that thread (``PyThreadState_SetAsyncExc``), which unwinds it at its next
Python step (a long call into Oxigraph finishes first). The store's commits are
:func:`shielded`: a cancellation that arrives before a commit starts stops the
call with nothing written; once a commit has started it runs to its end and the
call keeps its result (the write happened whole). So a stopped call has written
nothing, and a call that wrote is never reported as stopped.

Outside :func:`run` (the library used directly) :func:`shielded` holds back Ctrl-C instead:
an interrupt during a commit is delivered when the commit is over.

>>> import time
>>> def slow() -> None:
...     while True:
...         time.sleep(0.01)
>>> run(slow, timeout=0.05)
Traceback (most recent call last):
...
memkg.guard.cancellation.Cancelled: stopped after 0.05 s: the time limit ran out before anything was written
>>> def commit() -> str:
...     with shielded():
...         time.sleep(0.1)  # past the deadline, but a commit is never cut short
...     return "written"
>>> run(commit, timeout=0.05)
'written'
"""

from __future__ import annotations

import ctypes
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, cast

from ..core.errors import MemkgError

__all__ = ["Call", "Cancelled", "run", "shielded"]

T = TypeVar("T")

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
_local = threading.local()


class Cancelled(MemkgError, TimeoutError):
    """A call stopped at its time limit, before it wrote anything."""

    def __init__(self, message: str = "stopped: the time limit ran out before anything was written") -> None:
        super().__init__(message)


class Call(Generic[T]):
    """One function run on a worker thread, which :meth:`cancel` stops (see the module doc).

    ``on_done`` is called from that thread when the function has returned, raised or
    stopped (an event loop passes ``loop.call_soon_threadsafe``-wrapped setter).
    """

    def __init__(self, fn: Callable[[], T], *, on_done: Callable[[], None] | None = None) -> None:
        self.fn, self.on_done = fn, on_done
        self.lock = threading.Lock()
        self.thread_id = 0
        self.running = False  #: fn is running on thread_id
        self.shields = 0  #: commits running now
        self.committed = False  #: a commit started: the call runs to its end
        self.cancelled = False
        self.finished = threading.Event()
        self._outcome: tuple[bool, Any] = (False, Cancelled())

    def start(self) -> "Call[T]":
        _WORKERS.submit(self)
        return self

    def _body(self) -> None:
        with self.lock:
            self.thread_id = threading.get_ident()
            self.running = not self.cancelled  # cancelled while it waited: it never starts
        if self.running:
            _local.call = self
            try:
                self._outcome = (True, self.fn())
            except BaseException as err:  # noqa: BLE001 - handed to whoever reads the outcome
                self._outcome = (False, err)
        self._finish()

    def _finish(self) -> None:
        while True:  # from here on, a cancellation still pending must not escape
            try:
                with self.lock:
                    self.running = False
                    already = self.finished.is_set()
                    self.finished.set()
                self._clear_pending()
                break
            except Cancelled:
                continue
        _local.call = None
        if self.on_done is not None and not already:
            self.on_done()

    def cancel(self) -> None:
        """Stop the call at its next Python step, unless it has finished or started a commit."""
        with self.lock:
            if self.finished.is_set() or self.committed or self.cancelled:
                return
            self.cancelled = True
            if self.running and self.shields == 0:
                _set_async_exc(self.thread_id, Cancelled)

    def _clear_pending(self) -> None:
        _set_async_exc(self.thread_id, ctypes.py_object())  # NULL: drop an exception not yet raised

    def outcome(self, timeout: float | None) -> T:
        """The function's result (or its exception, raised); :class:`Cancelled` if it was stopped
        or (not finished yet) is still stopping."""
        if not self.finished.is_set():
            raise Cancelled(f"stopped after {timeout:g} s (still unwinding): it has written nothing and will write nothing")
        ok, value = self._outcome
        if ok:
            return cast(T, value)
        if isinstance(value, Cancelled):
            raise Cancelled(f"stopped after {timeout:g} s: the time limit ran out before anything was written") from None
        raise value


class _Workers:
    """Threads that run calls one after another, more started when none is idle.

    Not a thread per call: measured at 100k messages, a fresh thread per call cost ~2 ms of
    CPU more per call (Oxigraph/RocksDB keep per-thread state), where reusing one costs nothing.
    A cancellation that lands between the body's own handlers ends that worker's loop turn
    here, the call finishing as stopped; the worker goes on.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle = 0
        self.jobs: queue.SimpleQueue[Call[Any]] = queue.SimpleQueue()

    def submit(self, call: Call[Any]) -> None:
        with self.lock:
            spawn = self.idle == 0
            if not spawn:
                self.idle -= 1
        self.jobs.put(call)
        if spawn:
            threading.Thread(target=self._work, name="memkg-call", daemon=True).start()

    def _work(self) -> None:
        while True:
            call = self.jobs.get()
            try:
                call._body()
            except BaseException:  # noqa: BLE001 - a Cancelled that escaped the body's handlers
                call._finish()
            with self.lock:
                self.idle += 1


_WORKERS = _Workers()


@contextmanager
def shielded() -> Iterator[None]:
    """A commit: entered only if the call was not cancelled, then never cut short.

    On the main thread outside :func:`run`, never cut short by Ctrl-C either: an interrupt
    that arrives during the commit is held, and delivered once the commit is over."""
    call: Call[Any] | None = getattr(_local, "call", None)
    if call is None:
        with _interrupts_held():
            yield
        return
    with call.lock:
        if call.cancelled:
            call._clear_pending()
            raise Cancelled()
        call.shields += 1
        call.committed = True
    try:
        yield
    finally:
        with call.lock:
            call.shields -= 1


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT held back for the block's duration, then delivered to the handler that was there.

    Python's handler raises KeyboardInterrupt between any two steps, which could stop a commit
    after the data was written and before the indexes followed. Only the main thread receives
    signals (and may set handlers); a process that ignores SIGINT, or left it to the system, is
    left as it is."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    held: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            signal.raise_signal(signal.SIGINT)


def run(fn: Callable[[], T], *, timeout: float | None, grace: float = 5.0) -> T:
    """``fn()`` on a thread of its own; past ``timeout`` seconds it is stopped and
    :class:`Cancelled` raised here once it has stopped (within ``grace`` seconds
    more; a commit under way finishes first, and then its result is returned)."""
    call = Call(fn).start()
    if not call.finished.wait(timeout):
        call.cancel()
        call.finished.wait(grace)
    return call.outcome(timeout)
