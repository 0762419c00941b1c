"""What the server sends its query workers, and what they send back.

Plain picklable records: they cross a pipe between the server and a worker
process. pyoxigraph's terms pickle, so a dataset's graphs travel as terms.
"""

from __future__ import annotations

import pickle
import select
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any

from pyoxigraph import DefaultGraph, NamedNode, Quad

from ...guard.access import Grant


@dataclass(frozen=True)
class QueryJob:
    """Run a SPARQL query on one snapshot and serialize its answer."""

    snapshot: str  #: the snapshot directory (a RocksDB checkpoint) to read
    query: str
    #: keyword arguments for ``Store.query``: default_graph, named_graphs, use_default_graph_as_union
    dataset: dict[str, Any] = field(default_factory=dict)
    accept: str | None = None
    format: str | None = None  #: a ``format=`` override of ``accept``
    base_iri: str | None = None  #: what relative IRIs in the query resolve against
    #: set for a request's own query (its size and nesting checked by the server): the
    #: worker reads its dataset clauses for ``grant`` (memkg.guard.access) and then fills
    #: ``dataset`` itself, so that no parsing of untrusted text happens in the server process
    confine: Confinement | None = None


@dataclass(frozen=True)
class Confinement:
    """Who sent a query, and the protocol's dataset parameters: the worker works out its dataset."""

    grant: Grant
    default_graph_uris: tuple[str, ...] = ()
    named_graph_uris: tuple[str, ...] = ()


@dataclass(frozen=True)
class UpdateJob:
    """Plan a SPARQL update on one snapshot (:func:`memkg.history.updates.plan_update`): the server applies the plan.

    Planning parses and evaluates the untrusted text (its WHERE groups, its syntax
    check), so it runs in a worker: sandboxed, and killed past the deadline.
    """

    snapshot: str
    update: str
    grant: Grant
    using_graphs: tuple[str, ...] = ()
    using_named_graphs: tuple[str, ...] = ()
    base_iri: str | None = None


@dataclass(frozen=True)
class Plan:
    """The net change an update makes: the reply to an :class:`UpdateJob`."""

    remove: list[Quad]
    add: list[Quad]


@dataclass(frozen=True)
class GraphJob:
    """Serialize one graph of a snapshot (Graph Store Protocol GET), or all of them."""

    snapshot: str
    graph: NamedNode | DefaultGraph | None  #: None: the whole dataset
    accept: str | None = None
    format: str | None = None
    head: bool = False  #: HEAD: the headers only, but the same status as GET


@dataclass(frozen=True)
class RecallJob:
    """``GET /recall`` (:func:`memkg.recall.answer`) on one snapshot, answered as JSON.

    The snapshot holds a link to the live recall index (:mod:`.snapshots`); the
    parameters were checked by the server, the tenants against the token."""

    snapshot: str
    query: str
    tenants: tuple[str, ...] | None  #: None: every graph (a token without tenants)
    k: int = 10
    valid_at: datetime | None = None
    known_at: datetime | None = None
    packet: bool = False


@dataclass(frozen=True)
class PictureJob:
    """``GET /pictures/KIND`` (:func:`memkg.adapters.endpoint.pictures_route.answer`) on one snapshot."""

    snapshot: str
    grant: Grant
    kind: str
    params: dict[str, list[str]]


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


@dataclass(frozen=True)
class Failure:
    """An error raised in the worker, as data (exceptions with keyword fields pickle badly)."""

    #: "parse", "not-acceptable", "not-found", "forbidden", "unsupported", "update", "limit" or "error"
    kind: str
    message: str
    line: int | None = None
    column: int | None = None
    source: str | None = None  #: for "parse": what did not parse (``<query>``, ``<update>``, …)
    limit: str | None = None  #: for "limit": the field of memkg.guard.limits.Limits
    value: int | None = None


Job = QueryJob | GraphJob | UpdateJob | RecallJob | PictureJob
Reply = Answer | Failure | Plan


# The pipe's own send()/recv()/poll() go through ForkingPickler and a fresh selector per
# call; plain pickle and one poll(2) cost less, and every query pays them twice.


def send(conn: Connection, message: object) -> None:
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def receive(conn: Connection) -> Any:
    return pickle.loads(conn.recv_bytes())


def ready(conn: Connection, timeout: float | None) -> bool:
    """Whether a message waits on ``conn`` within ``timeout`` seconds (None: wait for ever)."""
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN | select.POLLHUP)
    return bool(poller.poll(None if timeout is None else max(0, int(timeout * 1000))))
