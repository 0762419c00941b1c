"""A query worker: a child process that runs queries on read-only snapshots.

pyoxigraph cannot cancel a query, so queries run here, in a process the server
can kill when one runs past its deadline. A worker never opens the live store
(Oxigraph calls a read-only open beside a writer undefined behaviour): it opens
the snapshot a job comes with (an immutable RocksDB checkpoint, see
:mod:`memkg.adapters.endpoint.snapshots`) and keeps it open until a job comes with a newer one.

The worker serializes answers itself, so only bytes cross the pipe; a failure goes back
as the HTTP answer it is (:func:`.failures.to_http`), decided here.

A worker serving tokens is *sandboxed* (:mod:`memkg.guard.sandbox`): before its first
job it forbids itself every socket but Unix ones, so no SPARQL it runs (SERVICE,
LOAD, however spelled) reaches the network. It also plans updates
(:class:`~.jobs.UpdateJob`): the server applies the plan, never the text. Jobs are read
and run on a thread with a large stack: Oxigraph's parsers recurse, so a request's thread
gets the stack its count of opening brackets could need whatever the reading of
its text (:func:`memkg.guard.limits.sparql_stack`), not what a scan of it says.

Recall and pictures run here too (:class:`~.jobs.RecallJob`, :class:`~.jobs.PictureJob`):
memkg's own code over the snapshot, killed past ``--timeout`` like a query.
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import threading
import time
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from pathlib import Path

from pyoxigraph import DefaultGraph, Quad, QueryTriples, RdfFormat, Store, Triple, serialize

from ...core.errors import ParseError
from ...core.vocab import ONTOLOGY_GRAPH, PREFIXES
from ...guard import sandbox
from ...guard.access import Forbidden
from ...guard.limits import (
    MAX_SPARQL_BRACKETS,
    SPARQL_STACK_BASE,
    SPARQL_STACK_CAP,
    SPARQL_STACK_PER_BRACKET,
    LimitExceeded,
    sparql_stack,
)
from ...history.updates import plan_update
from ...recall import INDEX_FILE, RecallIndex, answer, default_embedder
from ...store import MemoryStore, claim_index
from . import jobs, pictures_route, rights
from . import negotiation as neg
from .failures import to_http
from .handler import Response
from .jobs import GraphJob, Job, PictureJob, Plan, QueryJob, RecallJob, Reply, UpdateJob

#: The first message a worker sends: it has imported everything and is ready.
READY = "ready"
#: The stack of the thread that runs a job without SPARQL text (virtual memory: pages are
#: used as it grows); a SPARQL job's is memkg.guard.limits.sparql_stack of its text.
JOB_STACK = SPARQL_STACK_BASE
#: The stack of the thread a worker keeps for its jobs: a SPARQL text with up to 4,096 opening
#: brackets runs on it; one with more gets a thread of its own, sized for it.
KEPT_STACK = SPARQL_STACK_BASE + 4096 * SPARQL_STACK_PER_BRACKET
#: Seconds after which a job runs at the lowest CPU priority (nice 19).
LONG_JOB = 0.5


class _Snapshots:
    """The one snapshot this worker has open, as a read-only :class:`~memkg.MemoryStore`."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.store: MemoryStore | None = None
        self._recall: RecallIndex | None = None

    def recall_index(self) -> RecallIndex:
        """The server's recall index, read-only, kept for the worker's life and brought up to
        date before each recall (:meth:`~memkg.recall.RecallIndex.follow`): loading its vectors
        whole after every write would cost ~1 s a worker at 100,000 documents."""
        if self._recall is None:
            assert self.path is not None
            live = (Path(self.path) / INDEX_FILE).resolve()  # the snapshot links to it
            if not live.exists():
                raise PermissionError("the store has no recall index yet")
            # Ranking reads quads from the store it is given, never the index's own: an empty one.
            self._recall = RecallIndex(Store(), live, default_embedder(), read_only=True)
        else:
            self._recall.follow()
        return self._recall

    def open(self, path: str) -> MemoryStore:
        if path != self.path:
            if self.store is not None:
                self.store.close()  # release the older snapshot's files first
                self.store = None
            self.store = MemoryStore(path, read_only=True, validation=None)
            self.path = path
        assert self.store is not None
        return self.store


def main(conn: Connection, sandboxed: bool = False) -> None:
    """The worker: sandbox itself if asked (before any other thread starts), then serve jobs."""
    if sandboxed:
        try:
            sandbox.install()
        except sandbox.SandboxUnavailable as err:
            jobs.send(conn, f"sandbox unavailable: {err}")
            return
    # Ctrl-C and SIGTERM are for the server, which shuts its workers down in order.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_exit_with_server, args=(conn.fileno(),), name="memkg-orphan-check", daemon=True).start()
    _serve(conn)


def _serve(conn: Connection) -> None:
    """The worker's loop, on a thread with a large stack: a job in, a reply out, until the pipe
    closes or a None arrives. The main thread only watches for jobs that run long."""
    snapshots = _Snapshots()
    watch = _Watch()
    jobs.send(conn, READY)
    _Loop(conn, snapshots, watch).start()
    watch.run()


class _Watch:
    """The worker's main thread: puts the loop's thread at the lowest CPU priority (nice 19)
    once its job has run :data:`LONG_JOB` seconds, and starts the loop's successor at the
    normal priority when that job ends (an unprivileged process cannot undo a nice, and a
    thread inherits its creator's). Polled: telling a watcher about every job would cost a
    thread switch per query, which is what a loop that runs its own jobs saves."""

    POLL = 0.1  #: seconds between looks

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: int | None = None  #: the native id of the thread running a job
        self._since = 0.0
        self._niced = False
        self._successor: Callable[[], None] | None = None
        self._stopped = False
        self._wake = threading.Event()

    def started(self) -> None:
        with self._lock:
            self._thread, self._since = threading.get_native_id(), time.monotonic()

    def finished(self) -> bool:
        """The job ended; whether its thread was niced meanwhile."""
        with self._lock:
            self._thread = None
            niced, self._niced = self._niced, False
            return niced

    def hand_over(self, start: Callable[[], None]) -> None:
        """Have ``start`` called from this (normal priority) thread: the niced loop ends."""
        with self._lock:
            self._successor = start
        self._wake.set()

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()

    def run(self) -> None:
        while True:
            self._wake.wait(self.POLL)
            self._wake.clear()
            if self._stopped:
                return
            with self._lock:
                successor, self._successor = self._successor, None
                running = self._thread
                if running is not None and not self._niced and time.monotonic() - self._since >= LONG_JOB:
                    self._niced = True
                    try:
                        os.setpriority(os.PRIO_PROCESS, running, 19)
                    except (OSError, AttributeError):
                        pass  # a politeness, not a guarantee
            if successor is not None:
                successor()


class _Loop:
    """The thread that reads jobs from the pipe and runs them itself, with a stack a SPARQL
    text of up to 4,096 opening brackets fits (:data:`KEPT_STACK`); a job that needs more
    runs on a thread of its own, sized for it, whose stack's touched pages go with it."""

    def __init__(self, conn: Connection, snapshots: _Snapshots, watch: _Watch) -> None:
        self.conn, self.snapshots, self.watch = conn, snapshots, watch

    def start(self) -> None:
        _start_thread(self.run, KEPT_STACK)

    def run(self) -> None:
        while True:
            try:
                message = jobs.receive(self.conn)
            except (EOFError, OSError):
                break
            if message is None:
                break
            reply, niced = self._run(*message)
            try:
                jobs.send(self.conn, reply)
            except OSError:
                break
            if niced:  # the loop goes on on a new thread at the normal priority
                self.watch.hand_over(self.start)
                return
        self.watch.stop()

    def _run(self, snapshot: str, job: Job) -> tuple[Reply, bool]:
        """The job's reply, and whether this thread was niced while it ran."""
        text = job.query if isinstance(job, QueryJob) else job.update if isinstance(job, UpdateJob) else ""
        stack = sparql_stack(text) if text else JOB_STACK
        if stack > SPARQL_STACK_CAP:  # the server refuses such requests first (Limits.check_query)
            return to_http(LimitExceeded(
                "the request has more opening brackets than a worker's stack is sized for "
                "(memkg.guard.limits.MAX_SPARQL_BRACKETS)", limit="max_query", value=MAX_SPARQL_BRACKETS)), False
        if stack <= KEPT_STACK:
            return self._watched(snapshot, job)
        replies: queue.SimpleQueue[Reply] = queue.SimpleQueue()
        _start_thread(lambda: replies.put(self._watched(snapshot, job)[0]), stack)  # it ends with the job
        return replies.get(), False

    def _watched(self, snapshot: str, job: Job) -> tuple[Reply, bool]:
        self.watch.started()
        reply = run(snapshot, job, self.snapshots)  # run() answers every failure with its reply
        return reply, self.watch.finished()


def _start_thread(target: Callable[[], None], stack: int) -> None:
    threading.stack_size(stack)  # one thread starts threads at a time: the loop's, or the main one first
    try:
        threading.Thread(target=target, name="memkg-job", daemon=True).start()
    finally:
        threading.stack_size(0)


def _exit_with_server(fd: int) -> None:
    """A server killed outright (SIGKILL, OOM) cannot stop its workers: each notices alone.

    An idle worker sees its pipe close, but one in a long query would run on; pyoxigraph
    releases the GIL while it evaluates, so this thread, waiting for the server's end of
    the pipe to hang up (the worker's parent is the fork server, not the server), gets to
    end the process at once.
    """
    poller = select.poll()
    poller.register(fd, getattr(select, "POLLRDHUP", 0x2000))
    while True:
        if poller.poll():
            os._exit(1)


def run(snapshot: str, job: Job, snapshots: _Snapshots) -> Reply:
    """``job`` on ``snapshot``: its response or plan, or the :class:`~.failures.HttpError` it failed with."""
    try:
        memory = snapshots.open(snapshot)
        store = memory.backend.local_store()
        if isinstance(job, QueryJob):
            return _query(store, job)
        if isinstance(job, UpdateJob):
            return _plan(store, job)
        if isinstance(job, RecallJob):
            return _recall(memory, snapshots.recall_index(), job)
        if isinstance(job, PictureJob):
            return _picture(memory, job)
        return _graph(store, job)
    except Exception as err:  # noqa: BLE001 - every failure goes back as its HTTP answer
        if sandbox.installed() and "os error 13" in str(err):  # EACCES from the sandbox's socket()
            err = Forbidden("the request tried to reach the network (SERVICE or LOAD), which this server's sandbox forbids")
        return to_http(err)


def _negotiated(content_type: str, body: bytes) -> Response:
    """A 200 whose format followed the request's Accept header."""
    return Response(200, content_type, body, {"Vary": "Accept"})


def _query(store: Store, job: QueryJob) -> Response:
    dataset = job.dataset
    if job.grant is not None:  # a request's own query: its size and nesting were checked by the server
        dataset = rights.query_dataset(
            job.grant, job.query, default_graph_uris=job.default_graph_uris, named_graph_uris=job.named_graph_uris,
            base_iri=job.base_iri,
        )
    try:
        results = store.query(job.query, prefixes=PREFIXES, base_iri=job.base_iri, **dataset)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<query>", sparql=job.query) from None
    if isinstance(results, QueryTriples):
        fmt = neg.choose(job.accept, neg.GRAPH_FORMATS, override=job.format)
        return _negotiated(neg.content_type(fmt), _serialize_graph(results, fmt))
    fmt = neg.choose(job.accept, neg.TABLE_FORMATS, override=job.format)
    body = results.serialize(format=neg.TABLE_SERIALIZERS[fmt.name]) or b""
    return _negotiated(neg.content_type(fmt), body)


def _plan(store: Store, job: UpdateJob) -> Plan:
    change = plan_update(
        store, job.update, grant=job.grant, using_graphs=job.using_graphs,
        using_named_graphs=job.using_named_graphs, base_iri=job.base_iri, limits=None,
    )
    return Plan(change.remove, change.add)


def _recall(memory: MemoryStore, index: RecallIndex, job: RecallJob) -> Response:
    found = answer(memory, job.query, tenants=job.tenants, k=job.k, valid_at=job.valid_at, known_at=job.known_at,
                   packet=job.packet, index=index)
    return _negotiated("application/json", json.dumps(found.to_dict()).encode())


def _picture(memory: MemoryStore, job: PictureJob) -> Response:
    return _negotiated(*pictures_route.answer(memory, job.grant, job.kind, job.params))


def _graph(store: Store, job: GraphJob) -> Response:
    quads: Iterable[Quad]
    if job.graph is None:
        fmt = neg.choose(job.accept, neg.DATASET_FORMATS, override=job.format)
        quads = (q for q in store.quads_for_pattern(None, None, None, None) if q.graph_name != ONTOLOGY_GRAPH)
    else:
        if not isinstance(job.graph, DefaultGraph) and not store.contains_named_graph(job.graph):
            raise LookupError(f"no graph {job.graph} in the store")
        fmt = neg.choose(job.accept, neg.GRAPH_FORMATS, override=job.format)
        quads = store.quads_for_pattern(None, None, None, job.graph)
    if job.head:
        return _negotiated(neg.content_type(fmt), b"")
    # memkg's index triples are derived data, rebuilt on every write: never part of a graph's content.
    data = (q for q in quads if not claim_index.is_index_quad(q))
    rdf_format = neg.GRAPH_SERIALIZERS[fmt.name]
    return _negotiated(neg.content_type(fmt), _serialize_graph(data if rdf_format.supports_datasets else
                                                               (q.triple for q in data), fmt))


def _serialize_graph(items: Iterable[Triple] | Iterable[Quad], fmt: neg.Format) -> bytes:
    rdf_format = neg.GRAPH_SERIALIZERS[fmt.name]
    prefixes = PREFIXES if rdf_format in (RdfFormat.TURTLE, RdfFormat.TRIG) else None
    return serialize(items, format=rdf_format, prefixes=prefixes) or b""
