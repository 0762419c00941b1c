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
(:class:`~.jobs.UpdateJob`): the server applies the plan, never the text. Jobs run
on a thread with a large stack: Oxigraph's parsers recurse, so a request's thread
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
from collections.abc import Iterable
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
    """The worker's loop: a job in, a reply out, until the pipe closes or a None arrives."""
    snapshots = _Snapshots()
    runners = _Runners()
    jobs.send(conn, READY)
    while True:
        try:
            message = jobs.receive(conn)
        except (EOFError, OSError):
            return
        if message is None:
            return
        snapshot, job = message
        jobs.send(conn, runners.run(snapshot, job, snapshots))


class _Runner:
    """One thread with a large stack that runs jobs handed to it, one at a time.

    Starting a thread with a stack of hundreds of MiB (a mapping, a guard page, the
    thread's start handshake) for every job cost more than a small query does; a runner
    is started once and kept while its jobs stay short and fit its stack."""

    def __init__(self, stack: int) -> None:
        self.stack = stack
        self._jobs: queue.SimpleQueue[tuple[str, Job, _Snapshots] | None] = queue.SimpleQueue()
        self._replies: queue.SimpleQueue[Reply] = queue.SimpleQueue()
        threading.stack_size(stack)  # this thread alone starts threads: set for the next one only
        try:
            self.thread = threading.Thread(target=self._loop, name="memkg-job", daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(0)

    def _loop(self) -> None:
        while (item := self._jobs.get()) is not None:
            self._replies.put(run(*item))

    def run(self, snapshot: str, job: Job, snapshots: _Snapshots) -> tuple[Reply, bool]:
        """The job's reply, and whether the job ran long (its thread was put at nice 19)."""
        self._jobs.put((snapshot, job, snapshots))
        try:
            return self._replies.get(timeout=LONG_JOB), False
        except queue.Empty:
            pass
        native = self.thread.native_id
        if native is not None and hasattr(os, "setpriority"):
            try:
                os.setpriority(os.PRIO_PROCESS, native, 19)
            except OSError:
                pass  # a politeness, not a guarantee
        return self._replies.get(), True

    def stop(self) -> None:
        self._jobs.put(None)


class _Runners:
    """The worker's kept runner (:data:`KEPT_STACK`), and one-off runners for the rest.

    A job whose text needs more stack than the kept runner has gets a runner of its
    own, which ends with the job (its stack's touched pages go with it). A job that ran
    long leaves its runner at nice 19, which an unprivileged process cannot undo: that
    runner ends too, and the next job gets a new one at the normal priority."""

    def __init__(self) -> None:
        self._kept: _Runner | None = None

    def run(self, snapshot: str, job: Job, snapshots: _Snapshots) -> Reply:
        text = job.query if isinstance(job, QueryJob) else job.update if isinstance(job, UpdateJob) else ""
        stack = sparql_stack(text) if text else JOB_STACK
        if stack > SPARQL_STACK_CAP:  # the server refuses such requests first (Limits.check_query)
            return to_http(LimitExceeded(
                "the request has more opening brackets than a worker's stack is sized for "
                "(memkg.guard.limits.MAX_SPARQL_BRACKETS)", limit="max_query", value=MAX_SPARQL_BRACKETS))
        if stack > KEPT_STACK:
            runner = _Runner(stack)
            try:
                return runner.run(snapshot, job, snapshots)[0]
            finally:
                runner.stop()
        if self._kept is None:
            self._kept = _Runner(KEPT_STACK)
        reply, long = self._kept.run(snapshot, job, snapshots)
        if long:
            self._kept.stop()
            self._kept = None
        return reply


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
