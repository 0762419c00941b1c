"""A query worker: a child process that runs queries on read-only snapshots.

pyoxigraph cannot cancel a query, so queries run here, in a process the server
can kill when one runs past its deadline. A worker never opens the live store
(Oxigraph calls a read-only open beside a writer undefined behaviour): it opens
the snapshot a job names (an immutable RocksDB checkpoint, see
:mod:`memkg.endpoint.snapshots`) and keeps it open until a job names a newer one.

The worker serializes answers itself, so only bytes cross the pipe.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from multiprocessing.connection import Connection

from pyoxigraph import DefaultGraph, QueryTriples, RdfFormat, Store, serialize

from .. import index as claim_index
from ..errors import ParseError
from ..ontology import ONTOLOGY_GRAPH
from ..vocab import PREFIXES
from . import negotiation as neg
from . import jobs
from .jobs import Answer, Failure, GraphJob, Job, QueryJob, Reply

#: The first message a worker sends: it has imported everything and is ready.
READY = "ready"


class _Snapshots:
    """The one snapshot this worker has open."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.store: Store | None = None

    def open(self, path: str) -> Store:
        if path != self.path:
            self.store = None  # release the older snapshot's files first
            self.store = Store.read_only(path)
            self.path = path
        assert self.store is not None
        return self.store


def main(conn: Connection) -> None:
    """The worker's loop: a job in, a reply out, until the pipe closes or a None arrives."""
    # Ctrl-C and SIGTERM are for the server, which shuts its workers down in order.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="memkg-orphan-check", daemon=True).start()
    snapshots = _Snapshots()
    jobs.send(conn, READY)
    while True:
        try:
            job = jobs.receive(conn)
        except (EOFError, OSError):
            return
        if job is None:
            return
        jobs.send(conn, run(job, snapshots))


def _exit_with_parent(parent: int) -> None:
    """A server killed outright (SIGKILL, OOM) cannot stop its workers: each notices alone.

    An idle worker sees its pipe close, but one in a long query would run on; pyoxigraph
    releases the GIL while it evaluates, so this thread gets to look every second.
    """
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


def run(job: Job, snapshots: _Snapshots) -> Reply:
    try:
        store = snapshots.open(job.snapshot)
        if isinstance(job, QueryJob):
            return _query(store, job)
        return _graph(store, job)
    except ParseError as err:
        return Failure("parse", err.reason, err.line, err.column)
    except neg.NotAcceptable as err:
        return Failure("not-acceptable", str(err))
    except LookupError as err:
        return Failure("not-found", str(err.args[0]) if err.args else "not found")
    except Exception as err:  # noqa: BLE001 - the server turns it into a 500 with the message
        return Failure("error", f"{type(err).__name__}: {err}")


def _query(store: Store, job: QueryJob) -> Answer:
    try:
        results = store.query(job.query, prefixes=PREFIXES, base_iri=job.base_iri, **job.dataset)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<query>", sparql=job.query) from None
    if isinstance(results, QueryTriples):
        fmt = neg.choose(job.accept, neg.GRAPH_FORMATS, override=job.format)
        return Answer(200, neg.content_type(fmt), _serialize_graph(results, fmt))
    fmt = neg.choose(job.accept, neg.TABLE_FORMATS, override=job.format)
    body = results.serialize(format=neg.TABLE_SERIALIZERS[fmt.name]) or b""
    return Answer(200, neg.content_type(fmt), body)


def _graph(store: Store, job: GraphJob) -> Answer:
    if job.graph is None:
        fmt = neg.choose(job.accept, neg.DATASET_FORMATS, override=job.format)
        quads = (q for q in store.quads_for_pattern(None, None, None, None) if q.graph_name != ONTOLOGY_GRAPH)
    else:
        if not isinstance(job.graph, DefaultGraph) and not store.contains_named_graph(job.graph):
            raise LookupError(f"no graph {job.graph} in the store")
        fmt = neg.choose(job.accept, neg.GRAPH_FORMATS, override=job.format)
        quads = store.quads_for_pattern(None, None, None, job.graph)
    # memkg's index triples are derived data, rebuilt on every write: never part of a graph's content.
    data = (q for q in quads if not claim_index.is_index_quad(q))
    if job.head:
        return Answer(200, neg.content_type(fmt), b"")
    rdf_format = neg.GRAPH_SERIALIZERS[fmt.name]
    items = data if rdf_format.supports_datasets else (q.triple for q in data)
    return Answer(200, neg.content_type(fmt), _serialize_graph(items, fmt))


def _serialize_graph(items: object, fmt: neg.Format) -> bytes:
    rdf_format = neg.GRAPH_SERIALIZERS[fmt.name]
    prefixes = PREFIXES if rdf_format in (RdfFormat.TURTLE, RdfFormat.TRIG) else None
    return serialize(items, format=rdf_format, prefixes=prefixes) or b""
