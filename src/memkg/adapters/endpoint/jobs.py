"""What the server sends its query workers, and what they send back.

Plain picklable records: they cross a pipe between the server and a worker
process, each job with the snapshot it runs on. pyoxigraph's terms pickle, so a
dataset's graphs travel as terms. A worker answers with a :class:`~.handler.Response`
(its body serialized there: only bytes come back), a :class:`Plan`, or the
:class:`~.failures.HttpError` its failure is.
"""

from __future__ import annotations

import pickle
import select
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any, ClassVar

from pyoxigraph import Quad

from ...core.terms import Graph
from ...guard.access import Grant
from .failures import HttpError
from .handler import Response


@dataclass(frozen=True)
class QueryJob:
    """Run a SPARQL query and serialize its answer.

    A request's own query (``grant`` set) has its dataset worked out in the worker, from
    its text as the engine reads it (:func:`.rights.query_dataset`), so that no untrusted
    text is parsed in the server process; a view's comes decided (``dataset``).
    """

    what: ClassVar[str] = "query"
    query: str
    accept: str | None = None
    format: str | None = None  #: a ``format=`` override of ``accept``
    base_iri: str | None = None  #: what relative IRIs in the query resolve against
    #: keyword arguments for ``Store.query``: default_graph, named_graphs, use_default_graph_as_union
    dataset: dict[str, Any] = field(default_factory=dict)
    grant: Grant | None = None  #: who sent it, for a request's own query
    default_graph_uris: tuple[str, ...] = ()  #: the protocol's dataset parameters, with ``grant``
    named_graph_uris: tuple[str, ...] = ()


@dataclass(frozen=True)
class UpdateJob:
    """Plan a SPARQL update (:func:`memkg.history.updates.plan_update`): the server applies the plan.

    Planning parses and evaluates the untrusted text (its WHERE groups, its syntax
    check), so it runs in a worker: sandboxed, and killed past the deadline.
    """

    what: ClassVar[str] = "update"
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
    """Serialize one graph (Graph Store Protocol GET), or all of them."""

    what: ClassVar[str] = "query"
    graph: Graph | None  #: None: the whole dataset
    accept: str | None = None
    format: str | None = None
    head: bool = False  #: HEAD: the headers only, but the same status as GET


@dataclass(frozen=True)
class RecallJob:
    """``GET /recall`` (:func:`memkg.recall.answer`), answered as JSON.

    The snapshot holds a link to the live recall index (:mod:`.snapshots`); the
    parameters were checked by the server, the tenants against the token."""

    what: ClassVar[str] = "recall"
    query: str
    tenants: tuple[str, ...] | None  #: None: every graph (a token without tenants)
    k: int = 10
    valid_at: datetime | None = None
    known_at: datetime | None = None
    packet: bool = False


@dataclass(frozen=True)
class PictureJob:
    """``GET /pictures/KIND`` (:func:`memkg.adapters.endpoint.pictures_route.answer`)."""

    what: ClassVar[str] = "picture"
    grant: Grant
    kind: str
    params: dict[str, list[str]]


Job = QueryJob | GraphJob | UpdateJob | RecallJob | PictureJob
Reply = Response | Plan | HttpError


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
