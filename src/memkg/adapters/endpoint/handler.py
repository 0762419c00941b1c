"""HTTP requests as the endpoint's operations: each request read into one value.

A transport (:mod:`.transport`) reads a request's line and headers into a :class:`Head`,
has :meth:`.app.Endpoint.admit` decide who sent it (from the head alone, before the body
is read), reads the body, and :func:`read` turns the three into one :data:`Request` value,
which :meth:`.app.Endpoint.answer` answers with a :class:`Response`. Nothing here knows
sockets or threads: another transport reads requests with the same :func:`read`.

| path | methods | does |
|---|---|---|
| ``/`` | GET, HEAD | the query page (no network needed: inline HTML and JS) |
| ``/sparql`` (alias ``/query``) | GET, POST | SPARQL query (POST form or ``application/sparql-query``); a POSTed update too |
| ``/update`` | POST | SPARQL Update (form or ``application/sparql-update``) |
| ``/store`` | GET, HEAD, PUT, POST, DELETE | Graph Store Protocol, ``?default`` or ``?graph=IRI`` |
| ``/views`` | GET | the view templates and their parameters, as JSON |
| ``/views/NAME`` | GET | run a view; its parameters as query parameters |
| ``/views/NAME/query`` | GET | the SPARQL text that view runs with those parameters (``application/sparql-query``) |
| ``/recall`` | GET | recall (docs/contract.md section 7): ``?q=…&tenant=…&k=…&valid_at=…&known_at=…&packet=true``, JSON |
| ``/health`` | GET, HEAD | liveness, as JSON |
| ``/pictures``, ``/pictures/KIND`` | GET | pictures of a claim (:mod:`.pictures_route`) |

With ``--tokens`` every route needs a token, decided from the head before the body
is read (401, or 403 for a write by a read-only token, and the connection is closed);
``/health`` without a token answers ``{"status": "ok"}`` and nothing more, and the page,
which holds no data, is served without one (it asks for the token).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from urllib.parse import parse_qs

from pyoxigraph import DefaultGraph, NamedNode

from ...core.terms import Graph, zoned_datetime
from ...guard.access import Grant
from .failures import BadRequest, MethodNotAllowed, UnsupportedMediaType

FORM = "application/x-www-form-urlencoded"
SPARQL_QUERY = "application/sparql-query"
SPARQL_UPDATE = "application/sparql-update"
ALLOWED = {
    "/": ("GET", "HEAD"),
    "/health": ("GET", "HEAD"),
    "/sparql": ("GET", "POST"),
    "/query": ("GET", "POST"),
    "/update": ("POST",),
    "/store": ("GET", "HEAD", "PUT", "POST", "DELETE"),
    "/views": ("GET",),
    "/recall": ("GET",),
}


@dataclass(frozen=True)
class Head:
    """A request's line and the headers the endpoint reads: all it needs before the body."""

    method: str
    path: str  #: without the query string
    query: str = ""  #: the query string, undecoded
    authorization: str | None = None
    content_type: str | None = None
    accept: str | None = None
    host: str = "localhost"  #: the Host header, else the server's own address

    @property
    def media_type(self) -> str:
        """The Content-Type without its parameters, lower case ("" without one)."""
        return (self.content_type or "").split(";")[0].strip().lower()

    @property
    def url(self) -> str:
        """The request's URL without its query string: the base IRI of a query or update sent
        to it, as the SPARQL Protocol leaves it to the service (relative IRIs must resolve)."""
        return f"http://{self.host}{self.path}"

    def opens_the_page(self) -> bool:
        """Whether the request asks for the query page: ``/``, or a browser opening ``/sparql``
        without a query. The page holds no data (it asks for a token and sends it with each
        request it makes), so it is served without one."""
        if self.method not in ("GET", "HEAD"):
            return False
        if self.path == "/":
            return True
        return (self.path in ("/sparql", "/query") and "text/html" in (self.accept or "")
                and "query" not in parse_qs(self.query, keep_blank_values=True))

    def writes(self) -> bool:
        """Whether the request is a write, as far as its method, path and Content-Type tell."""
        if self.path == "/update":
            return True
        if self.path == "/store":
            return self.method in ("PUT", "POST", "DELETE")
        return self.path in ("/sparql", "/query") and self.method == "POST" and self.media_type == SPARQL_UPDATE


# -- the values a request is read into ----------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """A SPARQL query (SPARQL 1.1 Protocol §2.1)."""

    grant: Grant
    text: str
    default_graph_uris: tuple[str, ...] = ()
    named_graph_uris: tuple[str, ...] = ()
    base_iri: str | None = None
    accept: str | None = None
    format: str | None = None  #: a ``format=`` override of ``accept``


@dataclass(frozen=True)
class Update:
    """A SPARQL update (SPARQL 1.1 Protocol §2.2)."""

    grant: Grant
    text: str
    using_graphs: tuple[str, ...] = ()
    using_named_graphs: tuple[str, ...] = ()
    base_iri: str | None = None


@dataclass(frozen=True)
class ReadGraph:
    """A Graph Store GET or HEAD: one graph, or (``graph`` None) every graph."""

    grant: Grant
    graph: Graph | None
    accept: str | None = None
    format: str | None = None
    head: bool = False


@dataclass(frozen=True)
class WriteGraph:
    """A Graph Store PUT, POST or DELETE; ``graph`` None only for a POST of a dataset."""

    grant: Grant
    method: Literal["PUT", "POST", "DELETE"]
    graph: Graph | None
    payload: bytes = b""
    content_type: str | None = None
    base_iri: str = ""  #: what relative IRIs in the payload resolve against


@dataclass(frozen=True)
class RunView:
    """``GET /views/NAME``: a view's rows."""

    grant: Grant
    name: str
    params: dict[str, str]
    accept: str | None = None
    format: str | None = None


@dataclass(frozen=True)
class ViewText:
    """``GET /views/NAME/query``: the SPARQL text a view runs with these parameters."""

    grant: Grant
    name: str
    params: dict[str, str]


@dataclass(frozen=True)
class Recall:
    """``GET /recall``: a question in words (:func:`memkg.recall.answer`)."""

    grant: Grant
    question: str
    tenant: str | None = None  #: as given: the app reads it with the store's prefixes
    k: int = 10
    valid_at: datetime | None = None
    known_at: datetime | None = None
    packet: bool = False


@dataclass(frozen=True)
class Picture:
    """``GET /pictures[/KIND]`` (:mod:`.pictures_route`); ``kind`` "" for the list of kinds."""

    grant: Grant
    kind: str
    params: dict[str, list[str]]


@dataclass(frozen=True)
class Health:
    """``GET /health``; ``grant`` None: no token, on a server with tokens."""

    grant: Grant | None


@dataclass(frozen=True)
class Page:
    """The query page."""


@dataclass(frozen=True)
class ListViews:
    """``GET /views``: the view templates and their parameters."""


Request = Query | Update | ReadGraph | WriteGraph | RunView | ViewText | Recall | Picture | Health | Page | ListViews


@dataclass(frozen=True)
class Response:
    """What answers a request; the transport adds the CORS headers and the connection's."""

    status: int
    content_type: str | None
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


# -- reading -------------------------------------------------------------------------------------


def read(head: Head, body: bytes, grant: Grant | None) -> Request:
    """The operation ``head`` and ``body`` ask for, by ``grant`` (None only on ``/health``).

    :class:`~.failures.BadRequest`, :class:`~.failures.MethodNotAllowed`,
    :class:`~.failures.UnsupportedMediaType`, or LookupError for a path that serves nothing.
    """
    params = parse_qs(head.query, keep_blank_values=True)
    path = head.path
    if path.startswith("/views/"):
        _allow(head, ("GET",))
        name = path[len("/views/"):]
        bound = {k: _one(params, k) for k in params if k != "format"}
        if name.endswith("/query"):  # the text the view runs, not its rows
            return ViewText(_granted(grant), name[:-len("/query")], bound)
        return RunView(_granted(grant), name, bound, head.accept, _format(params))
    if path == "/pictures" or path.startswith("/pictures/"):
        _allow(head, ("GET",))
        return Picture(_granted(grant), path[len("/pictures/"):], params)
    if path not in ALLOWED:
        raise LookupError(f"nothing at {path}; try /sparql, /update, /store, /views, /recall, /pictures or /health")
    _allow(head, ALLOWED[path])
    if path == "/":
        return Page()
    if path == "/health":
        return Health(grant)
    if path == "/views":
        return ListViews()
    if path == "/recall":
        return _recall(params, _granted(grant))
    if path == "/update":
        return _update(head, params, body, _granted(grant))
    if path == "/store":
        return _graph_store(head, params, body, _granted(grant))
    return _sparql(head, params, body, grant)


def _sparql(head: Head, params: dict[str, list[str]], body: bytes, grant: Grant | None) -> Request:
    if head.method == "POST":
        kind = head.media_type
        if kind == FORM:
            params = {**params, **_form(body)}
        elif kind == SPARQL_QUERY:
            params = {**params, "query": [_text(body)]}
        elif kind == SPARQL_UPDATE:
            return _update(head, parse_qs(head.query, keep_blank_values=True), body, _granted(grant))
        else:
            raise UnsupportedMediaType(
                f"a POSTed query is {FORM} or {SPARQL_QUERY}, not {kind or 'a body without Content-Type'}"
            )
        if "update" in params:
            return _update(head, params, body, _granted(grant))
    elif "query" not in params and "text/html" in (head.accept or ""):
        return Page()  # a browser opening the endpoint's URL
    return Query(
        _granted(grant), _one(params, "query"),
        default_graph_uris=tuple(params.get("default-graph-uri", [])),
        named_graph_uris=tuple(params.get("named-graph-uri", [])),
        base_iri=head.url, accept=head.accept, format=_format(params),
    )


def _update(head: Head, params: dict[str, list[str]], body: bytes, grant: Grant) -> Update:
    kind = head.media_type
    if kind == FORM:
        params = {**params, **_form(body)}
    elif kind == SPARQL_UPDATE:
        params = {**params, "update": [_text(body)]}
    else:
        raise UnsupportedMediaType(f"an update is {FORM} or {SPARQL_UPDATE}, not {kind or 'a body without Content-Type'}")
    return Update(
        grant, _one(params, "update"),
        using_graphs=tuple(params.get("using-graph-uri", [])),
        using_named_graphs=tuple(params.get("using-named-graph-uri", [])),
        base_iri=head.url,
    )


def _graph_store(head: Head, params: dict[str, list[str]], body: bytes, grant: Grant) -> ReadGraph | WriteGraph:
    graph = _target_graph(params)
    method = head.method
    if method in ("GET", "HEAD"):
        return ReadGraph(grant, graph, head.accept, _format(params), head=method == "HEAD")
    if graph is None and method != "POST":
        raise BadRequest(f"{method} /store needs ?default or ?graph=IRI")
    # Relative IRIs in the body resolve against the graph's IRI, or the store's URL.
    base = graph.value if isinstance(graph, NamedNode) else f"http://{head.host}/store"
    if method == "PUT":
        return WriteGraph(grant, "PUT", graph, body, head.content_type, base)
    if method == "POST":
        return WriteGraph(grant, "POST", graph, body, head.content_type, base)
    return WriteGraph(grant, "DELETE", graph)


def _target_graph(params: dict[str, list[str]]) -> Graph | None:
    has_default = "default" in params
    graphs = params.get("graph", [])
    if has_default and graphs:
        raise BadRequest("name one graph: ?default or ?graph=IRI, not both")
    if has_default:
        return DefaultGraph()
    if not graphs:
        return None
    iri = _one(params, "graph")
    try:
        return NamedNode(iri)
    except ValueError as err:
        raise BadRequest(f"graph={iri!r} is not an IRI: {err}") from None


def _recall(params: dict[str, list[str]], grant: Grant) -> Recall:
    given = {name: _one(params, name) for name in ("tenant", "k", "valid_at", "known_at", "packet") if name in params}
    question = _one(params, "q")
    tenant = given.get("tenant")
    packet = given.get("packet", "false")
    if packet not in ("true", "false"):
        raise BadRequest(f"packet is true or false, not {packet!r}")
    k = given.get("k", "10")
    try:
        count = int(k)
    except ValueError:
        raise BadRequest(f"k is a whole number, not {k!r}") from None
    if not 1 <= count <= 1000:
        raise BadRequest(f"k must be between 1 and 1000, got {count}")
    return Recall(
        grant, question, tenant=tenant, k=count, valid_at=_time(given.get("valid_at"), "valid_at"), known_at=_time(given.get("known_at"), "known_at"),
        packet=packet == "true",
    )


# -- parameters ------------------------------------------------------------------------------------


def _granted(grant: Grant | None) -> Grant:
    assert grant is not None  # only /health and the page go without one (rights.admit)
    return grant


def _allow(head: Head, allowed: tuple[str, ...]) -> None:
    if head.method not in allowed:
        raise MethodNotAllowed(head.method, head.path, allowed)


def _one(params: dict[str, list[str]], name: str) -> str:
    values = params.get(name, [])
    if len(values) != 1:
        raise BadRequest(f"the request needs exactly one {name!r} parameter, it has {len(values)}")
    return values[0]


def _format(params: dict[str, list[str]]) -> str | None:
    formats = params.get("format", [])
    return formats[0] if formats else None


def _text(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadRequest(f"the request body is not UTF-8: {err}") from None


def _form(body: bytes) -> dict[str, list[str]]:
    return parse_qs(_text(body), keep_blank_values=True)


def _time(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return zoned_datetime(value)
    except ValueError as e:
        raise BadRequest(f"{name}: {e}") from None
