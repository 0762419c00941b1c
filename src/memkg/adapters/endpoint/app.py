"""What the endpoint does, apart from HTTP: it decides each request and answers it.

:meth:`Endpoint.answer` takes one request, as :mod:`.handler` reads it, and returns its
:class:`~.handler.Response`; a transport (:mod:`.transport`) moves both on the wire.

Reads (queries, views, recall, pictures) go to the worker pool, each on the current
snapshot; writes happen here,
in the server process (the only one with the store open read-write), through
the store's validated write path, under its write lock, and publish a new
snapshot before the lock is released, so the next query sees the write.

No untrusted SPARQL is parsed or evaluated here: an update is planned by a
worker (sandboxed when the server has tokens, killed past ``--timeout``, the
write lock released with it) on the current snapshot, and only its planned,
validated change is applied here. A restricted token's write is judged against
the graphs it can read (tenant-blind: see docs/endpoint-security.md). Every
decision about rights is :mod:`.rights`'.
"""

from __future__ import annotations

import contextlib
import email.policy
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.parser import BytesParser
from functools import partial
from importlib import resources
from typing import Any

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, parse

from ...core.errors import ParseError, UnknownFormatError
from ...core.terms import Graph, GraphName
from ...guard.access import Grant, TokenCheck
from ...guard.limits import DEFAULT as DEFAULT_LIMITS
from ...guard.limits import Limits, count_openings, guarded, nesting_depth
from ...recall import RECALL_INDEX
from ...store import MemoryStore, rdf_format, scope, views
from ...validation.writes import time_limit as validation_time_limit
from . import negotiation as neg
from . import rights
from .failures import BadRequest, QueryTimeout, UnsupportedMediaType, WorkerFailure, WritesRefused
from .handler import (
    Head,
    Health,
    ListViews,
    Page,
    Picture,
    Query,
    ReadGraph,
    Recall,
    Request,
    Response,
    RunView,
    Update,
    ViewText,
    WriteGraph,
)
from .jobs import GraphJob, Job, PictureJob, Plan, QueryJob, RecallJob, Reply, UpdateJob
from .pool import WorkerPool, WorkerShares
from .snapshots import Snapshots

#: Times an update is planned without the write lock before it is planned under it.
OPTIMISTIC_ATTEMPTS = 2

#: 1 GiB: a Graph Store PUT of a large TriG file fits, a runaway client does not fill memory.
DEFAULT_MAX_BODY = DEFAULT_LIMITS.max_body


@dataclass(frozen=True)
class Settings:
    read_only: bool = False
    timeout: float | None = 60.0  #: seconds a query or update may run; None: no limit
    workers: int = 2
    limits: Limits = DEFAULT_LIMITS  #: sizes and nesting of requests (memkg.guard.limits)

    @property
    def max_body(self) -> int | None:
        """Bytes a request body may have (413 beyond); None: no limit."""
        return self.limits.max_body


@dataclass(frozen=True)
class Written:
    """What a write did: whether it created the graph, and the quads it changed."""

    removed: int
    added: int
    created: bool = False

    def response(self) -> Response:
        """201 for a graph the write created, else 204; the counts in ``Memkg-*`` headers."""
        headers = {"Memkg-Removed": str(self.removed), "Memkg-Added": str(self.added)}
        return Response(201 if self.created else 204, None, b"", headers)


class Endpoint:
    """The endpoint over one open store: owns its snapshots and its worker pool."""

    def __init__(self, store: MemoryStore, settings: Settings, *, tokens: TokenCheck | None = None) -> None:
        self.store = store
        self.settings = settings
        self.tokens = tokens
        self.snapshots = Snapshots(store)
        try:
            with store.lock():
                self.snapshots.publish()
            # With tokens, the workers have no network (memkg.guard.sandbox), or the server does not start.
            self.pool = WorkerPool(settings.workers, sandboxed=tokens is not None)
            self.shares = WorkerShares(settings.workers)
        except BaseException:
            self.snapshots.close()
            raise
        self._closed = threading.Event()

    # -- the two steps of every request ------------------------------------------------------

    def admit(self, head: Head) -> Grant | None:
        """Who sent the request, from its head alone: 401 or 403 before its body is read.
        None: no token on ``/health``, which tells its status and nothing more, or on the page."""
        return rights.admit(self.tokens, head.authorization, writes=head.writes(),
                            public=head.path == "/health" or head.opens_the_page())

    def answer(self, request: Request) -> Response:
        """The response to ``request``; raises what a transport answers with :func:`~.failures.to_http`."""
        match request:
            case Query():
                return self.query(request.grant, request.text, default_graph_uris=request.default_graph_uris,
                                  named_graph_uris=request.named_graph_uris, accept=request.accept,
                                  format=request.format, base_iri=request.base_iri)
            case Update():
                return self.update(request.grant, request.text, using_graphs=request.using_graphs,
                                   using_named_graphs=request.using_named_graphs,
                                   base_iri=request.base_iri).response()
            case ReadGraph():
                return self.get_graph(request.grant, request.graph, accept=request.accept, format=request.format,
                                      head=request.head)
            case WriteGraph():
                return self._write_graph(request).response()
            case RunView():
                return self.view(request.grant, request.name, request.params, accept=request.accept,
                                 format=request.format)
            case ViewText():
                text = self.view_query(request.grant, request.name, request.params)
                return Response(200, "application/sparql-query; charset=utf-8", text.encode("utf-8"))
            case Recall():
                return self.recall(request.grant, request.question, tenant=request.tenant, k=request.k,
                                   valid_at=request.valid_at, known_at=request.known_at, packet=request.packet)
            case Picture():
                return self._read(PictureJob(request.grant, request.kind, request.params), request.grant)
            case Health():
                return Response(200, "application/json", json.dumps(self.health(request.grant)).encode())
            case ListViews():
                listed = [_describe(v) for v in views.list_views()]
                return Response(200, "application/json", json.dumps(listed).encode())
            case Page():
                return Response(200, "text/html; charset=utf-8", _page())

    # -- reading (in the workers) ----------------------------------------------------------

    def query(
        self,
        grant: Grant,
        text: str,
        *,
        default_graph_uris: Sequence[str] = (),
        named_graph_uris: Sequence[str] = (),
        accept: str | None = None,
        format: str | None = None,
        base_iri: str | None = None,
    ) -> Response:
        if not neg.accepts_any(accept, format):
            raise neg.NotAcceptable(f"nothing in Accept: {accept} is a format this server writes")
        # Its size, brackets and nesting are measured here, before a worker is taken: a regular
        # expression at C speed over at most --max-query bytes (memkg.guard.limits). The worker works
        # out its dataset: the text is parsed there only.
        self.settings.limits.check_query(text)
        job = QueryJob(text, accept, format, base_iri, grant=grant, default_graph_uris=tuple(default_graph_uris),
                       named_graph_uris=tuple(named_graph_uris))
        return self._read(job, grant)

    def view(
        self, grant: Grant, name: str, params: dict[str, str], *, accept: str | None = None, format: str | None = None
    ) -> Response:
        bound = views.bind(views.get_view(name), params, prefixes=self.store.prefixes,
                            exists=partial(self.store.mentions, graphs=grant.readable_graphs()))
        dataset = rights.view_dataset(grant, bound.tenant)
        if bound.tenant is not None and not self.store.raw.contains_named_graph(bound.tenant):
            views.require_graph(bound.tenant, rights.seen(grant, self.store.named_graphs()))
        scope.require_all(self.store.raw, bound.iris, tenant=bound.tenant, readable=grant.tenants)
        return self._read(QueryJob(bound.text, accept, format, dataset=dataset), grant)

    def view_query(self, grant: Grant, name: str, params: dict[str, str]) -> str:
        """``GET /views/NAME/query``: the SPARQL text ``GET /views/NAME`` runs with these parameters
        (its long header comment replaced by one line saying which view it is), for the query page's
        textarea. Bound here, as :meth:`view` binds it; Forbidden for a tenant beyond the grant."""
        view = views.get_view(name)
        bound = views.bind(view, params, prefixes=self.store.prefixes,
                            exists=partial(self.store.mentions, graphs=grant.readable_graphs()))
        rights.view_dataset(grant, bound.tenant)
        given = ", ".join(f"{k}={v}" for k, v in params.items())
        body = bound.text.splitlines(keepends=True)
        while body and body[0].startswith("#"):
            body.pop(0)
        return f"# view {view.name}{f' ({given})' if given else ''}: {view.description}\n" + "".join(body).lstrip("\n")

    def get_graph(
        self, grant: Grant, graph: Graph | None, *, accept: str | None = None, format: str | None = None, head: bool = False
    ) -> Response:
        if graph is None:
            rights.require_whole_store(grant)
        else:
            rights.view_dataset(grant, graph if isinstance(graph, NamedNode) else None)  # Forbidden beyond the grant
        return self._read(GraphJob(graph, accept, format, head), grant)

    def recall(self, grant: Grant, question: str, *, tenant: str | NamedNode | None = None, k: int = 10,
               valid_at: datetime | None = None, known_at: datetime | None = None, packet: bool = False) -> Response:
        """``GET /recall``: :func:`memkg.recall.answer` over the grant's tenants (and the shared
        default graph), in a worker like a query (killed past ``--timeout``), on the current
        snapshot and the recall index it links to. ``tenant`` may be written in any form an IRI
        argument takes (:meth:`memkg.store.MemoryStore.read_iri`)."""
        graph = None if tenant is None else self.store.read_iri(tenant, what="tenant", graphs=grant.readable_graphs())
        tenants = rights.recall_tenants(grant, graph)
        self.settings.limits.check_size("max_query", len(question.encode("utf-8", "surrogatepass")), "the question")
        # Built here once, from the store, if it is not there yet: derived data, memkg's own work.
        self.store.follower(RECALL_INDEX, create=True)
        return self._read(RecallJob(question, tenants, k, valid_at, known_at, packet), grant)

    def _read(self, job: Job, grant: Grant) -> Response:
        reply = self._run(job, grant)
        assert isinstance(reply, Response)  # a read job answers with a response or fails
        return reply

    def _run(self, job: Job, grant: Grant) -> Response | Plan:
        """``job``'s reply from a worker, on the current snapshot; a worker's failure raised."""
        timeout = self.settings.timeout
        with self.shares.slot(grant), self.snapshots.reading() as generation:
            reply: Reply = self.pool.run(str(generation.path), job, timeout=timeout, wait=timeout or 60.0)
        if isinstance(reply, (Response, Plan)):
            return reply
        raise WorkerFailure(reply)

    # -- writing (here, serialized by the store's write lock) ----------------------------------

    def update(
        self,
        grant: Grant,
        text: str,
        *,
        using_graphs: Sequence[str] = (),
        using_named_graphs: Sequence[str] = (),
        base_iri: str | None = None,
    ) -> Written:
        self._check_writes(grant)
        self.settings.limits.check_update(text)  # size, brackets and nesting, as for a query
        job = UpdateJob(text, grant, tuple(using_graphs), tuple(using_named_graphs), base_iri)
        # Planned without the write lock, on the snapshot current when planning starts: a
        # runaway update never holds the lock (it is stopped at --timeout before taking it).
        # A plan is applied only if no write committed meanwhile; else it is planned again,
        # the last time holding the lock from planning to applying (bounded by --timeout too),
        # so that no write can land between the two.
        for attempt in range(OPTIMISTIC_ATTEMPTS + 1):
            locked = attempt == OPTIMISTIC_ATTEMPTS
            with self.store.lock() if locked else contextlib.nullcontext():
                planned_on = self.snapshots.current.number
                plan = self._run(job, grant)
                assert isinstance(plan, Plan)  # an update job answers with a plan or fails
                with self._writing(), self.store.lock():
                    if self.snapshots.current.number != planned_on:
                        continue  # another write committed while this one was planned
                    removed = self.store.change(
                        remove=plan.remove, add=plan.add, source="<update>", visible=rights.visible_graphs(grant)
                    )
                    self.snapshots.publish()
                    return Written(removed=removed, added=len(plan.add))
        raise AssertionError("unreachable: the last attempt holds the write lock from planning to applying")

    def _writing(self) -> contextlib.AbstractContextManager[None]:
        """A write holds the lock (waiting for it included) and validates within ``--timeout``:
        past it the write stops with nothing written (503), so no write holds others' past it."""
        return validation_time_limit(self.settings.timeout)

    def _write_graph(self, request: WriteGraph) -> Written:
        if request.method == "POST":
            return self.post_graph(request.grant, request.graph, request.payload, request.content_type,
                                   base_iri=request.base_iri)
        assert request.graph is not None  # the handler reads none only for a POST
        if request.method == "PUT":
            return self.put_graph(request.grant, request.graph, request.payload, request.content_type,
                                  base_iri=request.base_iri)
        return self.delete_graph(request.grant, request.graph)

    def put_graph(self, grant: Grant, graph: Graph, payload: bytes, content_type: str | None, *, base_iri: str) -> Written:
        """Replace ``graph`` with the payload, in one atomic, validated write."""
        self._check_graph(grant, graph)
        quads = parse_payload(payload, content_type, base_iri=base_iri, into=graph, limits=self.settings.limits,
                              timeout=self.settings.timeout)
        with self._writing(), self.store.lock():
            existed = self._exists(graph)
            old = list(self.store.quads(graph=graph))
            removed = self.store.change(
                remove=old, add=quads, source=f"PUT {_label(graph)}", visible=rights.visible_graphs(grant)
            )
            self.snapshots.publish()
        return Written(removed=removed, added=len(quads), created=not existed)

    def post_graph(
        self, grant: Grant, graph: Graph | None, payload: bytes, content_type: str | None, *, base_iri: str
    ) -> Written:
        """Add the payload to ``graph`` (or, for None, a TriG/N-Quads payload to its own graphs)."""
        self._check_writes(grant)
        quads = parse_payload(payload, content_type, base_iri=base_iri, into=graph, limits=self.settings.limits,
                              timeout=self.settings.timeout)
        for target in {q.graph_name for q in quads} | ({graph} if graph is not None else set()):
            self._check_graph(grant, target)
        with self._writing(), self.store.lock():
            existed = graph is None or self._exists(graph)
            added = self.store.write(quads, source=f"POST {_label(graph)}", visible=rights.visible_graphs(grant))
            self.snapshots.publish()
        return Written(removed=0, added=added, created=not existed)

    def delete_graph(self, grant: Grant, graph: Graph) -> Written:
        self._check_graph(grant, graph)
        with self._writing(), self.store.lock():
            if not self._exists(graph):
                raise LookupError(f"no graph {graph} in the store")
            removed = self.store.change(
                remove=list(self.store.quads(graph=graph)), source=f"DELETE {_label(graph)}",
                visible=rights.visible_graphs(grant),
            )
            if isinstance(graph, NamedNode):
                self.store.backend.remove_graph(graph)  # the (now empty) graph's name goes too
            self.snapshots.publish()
        return Written(removed=removed, added=0)

    def _exists(self, graph: Graph) -> bool:
        return isinstance(graph, DefaultGraph) or self.store.raw.contains_named_graph(graph)

    def _check_writes(self, grant: Grant) -> None:
        if self.settings.read_only:
            raise WritesRefused("this server runs with --read-only: writes are refused")
        rights.require_write(grant)

    def _check_graph(self, grant: Grant, graph: GraphName) -> None:
        self._check_writes(grant)
        rights.require_write_graph(grant, graph, _label(graph))

    # -- lifecycle -----------------------------------------------------------------------

    def health(self, grant: Grant | None) -> dict[str, object]:
        """Liveness. Without a grant (no token on a server with tokens): the status alone. With
        a tenant's token: the server's settings, nothing about other tenants' activity (the
        snapshot number counts everyone's writes). The rest only on a server without tokens."""
        status: dict[str, object] = {"status": "closing" if self._closed.is_set() else "ok"}
        if rights.sees_settings(grant):
            status |= {"read_only": self.settings.read_only, "timeout": self.settings.timeout}
        if rights.sees_activity(grant):
            status |= {
                "snapshot": self.snapshots.current.number if not self._closed.is_set() else None,
                "workers": self.pool.pids(),
            }
        return status

    def close(self, grace: float) -> None:
        """Stop the workers (busy ones get ``grace`` s), wait for a write in progress, close the store."""
        self._closed.set()
        self.pool.close(grace)
        with self.store.lock():
            self.snapshots.close()
            self.store.close()


def _describe(view: views.View) -> dict[str, Any]:
    return {
        "name": view.name,
        "description": view.description,
        "params": [
            {"name": p.name, "type": p.type, "required": p.required, "description": p.description}
            for p in view.params
        ],
    }


_PAGE: bytes | None = None


def _page() -> bytes:
    global _PAGE
    if _PAGE is None:
        _PAGE = resources.files(__package__).joinpath("page.html").read_bytes()
    return _PAGE


def _label(graph: GraphName | None) -> str:
    if graph is None:
        return "the store"
    return "the default graph" if isinstance(graph, DefaultGraph) else f"graph {graph}"


def payload_format(content_type: str | None) -> RdfFormat:
    """The RDF format of a request body, from its Content-Type (415 if it is not one we read)."""
    if not content_type:
        raise UnsupportedMediaType("the request body needs a Content-Type (text/turtle, application/n-triples, …)")
    fmt = neg.by_name(content_type, neg.GRAPH_FORMATS)
    if fmt is None:
        kinds = ", ".join(f.media_type for f in neg.GRAPH_FORMATS)
        raise UnsupportedMediaType(f"cannot read a body of type {content_type}; send one of {kinds}")
    return neg.GRAPH_SERIALIZERS[fmt.name]


def parse_payload(
    payload: bytes, content_type: str | None, *, base_iri: str, into: Graph | None, limits: Limits = DEFAULT_LIMITS,
    timeout: float | None = None,
) -> list[Quad]:
    """The quads of a Graph Store body: its triples go ``into`` the target graph.

    A dataset body (TriG, N-Quads) sent to one graph may only name that graph:
    a Graph Store request writes the graph it names and no other.

    Bounded: a body with more ``<<`` and ``{|`` than ``--max-depth`` has the nesting of
    its first 64 KiB measured before the parser sees it (a regular expression at C speed:
    a deep body is refused in milliseconds); past them, each quad's depth is checked as
    it comes out of a parser whose stack holds the body's every ``<<`` (memkg.guard.limits.guarded),
    and past ``timeout`` seconds the parse stops with :class:`~.failures.QueryTimeout`
    (it runs in the server, before the write lock is taken: it holds no other write).
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    if content_type and content_type.split(";")[0].strip().lower() == "multipart/form-data":
        quads = []
        for part_type, part, name in _form_parts(payload, content_type):
            try:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                quads += parse_payload(part, part_type, base_iri=base_iri, into=into, limits=limits, timeout=left)
            except ParseError as err:  # say which part of the form is wrong
                raise ParseError(err.reason, file=f"<form part {name}>", line=err.line, column=err.column) from None
        return quads
    fmt = payload_format(content_type)
    quads = []
    openings = count_openings(payload)
    if openings > limits.max_depth:  # fewer cannot nest past it: most bodies are never scanned
        limits.check_rdf(payload, source="the request body", whole=False)  # the rest: quad by quad, in guarded
    parser = guarded(
        lambda: parse(payload, fmt, base_iri=base_iri, rename_blank_nodes=True),
        openings=openings, limits=limits, source="the request body", scan=lambda: nesting_depth(payload),
    )
    try:
        for q in parser:
            if deadline is not None and len(quads) % 4096 == 0 and time.monotonic() > deadline:
                assert timeout is not None
                raise QueryTimeout(timeout, "parse of the request body")
            if into is not None and q.graph_name != into:
                if not isinstance(q.graph_name, DefaultGraph):
                    raise BadRequest(
                        f"the body puts triples in graph {q.graph_name}, but this request writes {_label(into)}"
                    )
                q = Quad(q.subject, q.predicate, q.object, into)
            quads.append(q)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<request body>") from None
    return quads


def _form_parts(payload: bytes, content_type: str) -> list[tuple[str | None, bytes, str]]:
    """The parts of a ``multipart/form-data`` body (Graph Store Protocol §5.5: each part is an RDF
    document to merge): (its Content-Type, or one told from its file name; its bytes; its name)."""
    message = BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + payload
    )
    if not message.is_multipart():
        raise BadRequest("the multipart/form-data body has no parts (is its boundary right?)")
    parts = []
    for part in message.iter_parts():
        name = part.get_filename() or part.get_param("name", header="content-disposition") or "?"
        declared = part.get("Content-Type")
        if declared is None:
            try:
                declared = rdf_format(str(name)).media_type
            except UnknownFormatError:
                pass  # payload_format() says what is missing
        body = part.get_payload(decode=True)
        parts.append((None if declared is None else str(declared), body if isinstance(body, bytes) else b"", str(name)))
    return parts
