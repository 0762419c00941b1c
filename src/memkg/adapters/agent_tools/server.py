"""The agent tools served over the Model Context Protocol (the official SDK's low-level ``Server``).

Each tool is a typed signature (its input schema, with the limits of
:mod:`memkg.adapters.agent_tools.limits` as ``maxLength``/``maxItems``/``maximum``) over one
:class:`~memkg.adapters.agent_tools.tools.MemoryTools` method; :class:`ToolSpec` builds its
schema and validator once. A call runs on a worker thread, a bounded number at
once, and past the time limit it is stopped (:mod:`memkg.guard.cancellation`: before its
commit, nothing written). A refusal is a tool error (``isError``) whose text names
the broken rule and the node; anything unexpected is a generic tool error (the
traceback goes to the log). Requests nested too deep are answered before the SDK
parses them (:mod:`memkg.adapters.agent_tools.wire`).

Who is calling: :class:`Callers` turns a call into a :class:`~memkg.guard.access.Grant`:
over stdio, the one tenant of ``--tenant`` (or the whole store); over HTTP, the
bearer token of each request, checked against the same tokens file and rules as
``memkg serve`` (:class:`memkg.guard.access.Tokens`). Over HTTP a request without a
known token is answered 401 before it reaches the protocol (:class:`BearerGate`).
"""

# No `from __future__ import annotations`: ToolSpec reads the tools' signatures (inspect.signature),
# so their annotations must be the types themselves, not text.

import asyncio
import functools
import inspect
import json
import logging
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, Union, cast, get_args, get_origin

import anyio
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    ListToolsResult,
    Tool,
    ToolAnnotations,
)
from pydantic import AwareDatetime, BaseModel, Field, ValidationError, create_model
from pydantic_core import to_json
from pyoxigraph import NamedNode

from ... import __version__
from ...guard import cancellation
from ...guard.access import OPEN, Grant, Tokens, Unauthorized, bearer_grant
from . import wire
from .limits import DEFAULT_LIMITS, ToolLimits
from .tools import MemoryTools, ToolRefusal, refusal

__all__ = ["BearerGate", "Callers", "ToolSpec", "build_server", "serve_http", "serve_stdio"]

logger = logging.getLogger(__name__)

#: Seconds a stopped call may take to unwind before the caller is answered anyway.
GRACE = 5.0

INSTRUCTIONS = """\
memkg is your long-term memory, kept as a knowledge graph with provenance and time.
- Keep what you are told with remember_message (give each message its event_id: a retry then stores nothing twice).
- Record what you conclude with remember_claim, citing the message it came from (asserted_by).
  Subjects, objects and predicates must be declared once first with remember_entity.
- Ask with recall (words in, ranked hits plus the evidence around them); cite the IRIs it returns.
- Before relying on a claim, explain_claim says whether it still stands and where it came from.
- When something changes, correct_claim records a new version; forget withdraws, or erases with a reason.
- current_claims, claims_valid_at and claims_known_at list what is held now, at a time, or as known then.
Every write is checked against the memory's rules; a refused call says which rule, on which node, and nothing is written."""


# -- who is calling ------------------------------------------------------------------------


@dataclass(frozen=True)
class Callers:
    """How a call's grant is found: one fixed grant (stdio, or HTTP without tokens), or
    the bearer token of each HTTP request."""

    fixed: Grant = OPEN
    tokens: Tokens | None = None

    @classmethod
    def for_tenant(cls, tenant: str | None) -> "Callers":
        """The one caller of a stdio server: confined to ``tenant``, or (None) the whole store."""
        if tenant is None:
            return cls()

        return cls(Grant(frozenset({NamedNode(tenant)}), write=True, token_name="--tenant"))

    def grant(self, headers: Any) -> Grant:
        if self.tokens is None:
            return self.fixed
        authorization = headers.get("authorization") if headers is not None else None
        return bearer_grant(self.tokens, authorization)  # Unauthorized without a known token


class BearerGate:
    """ASGI middleware: an HTTP request without a known bearer token gets 401, before the protocol."""

    def __init__(self, app: Any, tokens: Tokens) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
            try:
                bearer_grant(self.tokens, headers.get("authorization"))
            except Unauthorized as err:
                body = json.dumps({"error": str(err)}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="memkg"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


# -- the tools' argument types ------------------------------------------------------------


class Bounded:
    """Where an argument type takes one of the server's :class:`ToolLimits`, by name.

    ``Bounded("max_iri", min_length=1)`` stands for ``Field(min_length=1, max_length=limits.max_iri)``
    (``bound="le"``: a maximum); :meth:`ToolSpec.of` fills it in for the limits the server is built with.
    """

    def __init__(self, limit: str, bound: str = "max_length", **field: Any) -> None:
        if limit not in ToolLimits.__dataclass_fields__:
            raise ValueError(f"{limit!r} is not a field of ToolLimits")
        self.limit, self.bound, self.field = limit, bound, field

    def field_for(self, limits: ToolLimits) -> Any:
        return Field(**self.field, **{self.bound: getattr(limits, self.limit)})


def with_limits(tp: Any, limits: ToolLimits) -> Any:
    """The type ``tp`` with each :class:`Bounded` inside it made the ``Field`` it stands for under ``limits``
    (a type without one is returned as it is)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        new = (with_limits(args[0], limits), *(m.field_for(limits) if isinstance(m, Bounded) else m for m in args[1:]))
    else:
        new = tuple(with_limits(a, limits) for a in args)
    if all(a is b for a, b in zip(new, args)):
        return tp
    if origin is Annotated:
        return Annotated[new]
    if origin is Union:
        return Union[new]
    return origin[new]


# The input schemas a model reads: each argument's type, with its limit.
IriArg = Annotated[str, Bounded("max_iri", min_length=1)]
Text = Annotated[str, Bounded("max_text")]
Tenant = Annotated[IriArg | None, Field(description=(
    "the tenant graph to act on; leave it out when your connection has one tenant"))]
IRIs = Annotated[list[IriArg], Bounded("max_items")]
Value = Annotated[Text | float | bool, Field(description="a text, number or boolean")]
Confidence = Annotated[float, Field(ge=0, le=1)]
# The arguments remember_claim and correct_claim share.
ObjectIri = Annotated[IriArg | None, Field(description="the object when it is a node; else use object_value")]
ObjectValue = Annotated[Value | None, Field(description="the object when it is a text, number or boolean")]
Source = Annotated[IriArg | None, Field(description="the message the claim was drawn from (its IRI)")]
Sure = Annotated[Confidence | None, Field(description="how sure you are, 0 to 1")]
From = Annotated[AwareDatetime | None, Field(description="from when it holds (time zone required)")]
Until = Annotated[AwareDatetime | None, Field(description="until when it holds, exclusive")]
# The arguments of the listings.
SubjectArg = Annotated[IriArg | None, Field(description="only claims about this node (its IRI)")]
Limit = Annotated[int, Bounded("max_rows", "le", ge=1, description="at most this many rows")]
StandingArg = Annotated[Literal["supported", "fallen", "unrecorded"] | None, Field(
    description="only claims of this standing: supported (a support group stands), fallen (every support "
                "group lost a member to a withdrawal), unrecorded (no support recorded)")]

WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
IDEMPOTENT_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                   open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                              open_world_hint=False)
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)


# -- the server ----------------------------------------------------------------------------

#: Every tool returns a JSON object (the library results' ``to_dict()``, see docs/agent-tools.md).
OUTPUT_SCHEMA = {"type": "object", "additionalProperties": True}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: what a model reads (name, description, input schema, annotations) and what runs.

    The input schema and the argument validator are built once, from ``fn``'s signature
    (after its first parameter, the caller's grant) with the server's ``limits``, not per call."""

    fn: Callable[..., dict[str, Any]]
    annotations: ToolAnnotations
    arguments: type[BaseModel]
    listed: Tool

    @classmethod
    def of(cls, fn: Callable[..., dict[str, Any]], annotations: ToolAnnotations,
           limits: ToolLimits = DEFAULT_LIMITS) -> "ToolSpec":
        params = list(inspect.signature(fn).parameters.values())[1:]
        fields: dict[str, Any] = {
            p.name: (with_limits(p.annotation, limits), ... if p.default is inspect.Parameter.empty else p.default)
            for p in params}
        model = create_model(f"{fn.__name__}Arguments", **fields)
        listed = Tool(name=fn.__name__, description=inspect.cleandoc(fn.__doc__ or ""),
                      input_schema=model.model_json_schema(), output_schema=OUTPUT_SCHEMA, annotations=annotations)
        return cls(fn, annotations, model, listed)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The validated keyword arguments; :class:`ToolRefusal` naming each bad argument."""
        try:
            return dict(self.arguments.model_validate(arguments))
        except ValidationError as err:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in err.errors())
            raise ToolRefusal(f"invalid arguments for {self.listed.name}, nothing was done: {problems}") from None


# Results go out in their wire form (a dict): the SDK validates a tool result once, against the
# protocol's schema, as it serialises it; a CallToolResult model would be built, then dumped, first.
# ("resultType" is the 2026-era field the model fills in; older protocol versions drop it.)


def _answer(out: dict[str, Any]) -> dict[str, Any]:
    # The text block is the same JSON, once, compact (for hosts without structured output);
    # pydantic-core's encoder is ~5x the standard library's on a recall packet.
    return {"resultType": "complete", "content": [{"type": "text", "text": to_json(out).decode()}],
            "structuredContent": out}


def _refused(text: str) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": True}


#: The tools in the order they are listed, each with its annotations (filled in by ``_tool``).
_TOOLS: dict[str, ToolAnnotations] = {}

_Method = TypeVar("_Method", bound=Callable[..., dict[str, Any]])


def _tool(annotations: ToolAnnotations) -> Callable[[_Method], _Method]:
    def register(fn: _Method) -> _Method:
        _TOOLS[fn.__name__] = annotations
        return fn
    return register


class _ServedTools:
    """The tools as a model sees them, one method each: its signature after the caller's grant is
    the tool's input schema, its docstring the description; each calls one :class:`MemoryTools` method."""

    def __init__(self, tools: MemoryTools) -> None:
        self.tools = tools

    @_tool(IDEMPOTENT_WRITE)
    def remember_message(
        self,
        grant: Grant,
        content: Annotated[str, Bounded("max_content", description="the message, verbatim")],
        event_id: Annotated[Text | None, Field(description=(
            "the message's id in its source (chat message id, email Message-ID); retrying with the same "
            "event_id stores nothing twice"))] = None,
        sender: Annotated[IriArg | None, Field(description="who sent it (an IRI)")] = None,
        recipients: Annotated[IRIs | None, Field(description="who it was addressed to (IRIs)")] = None,
        episode: Annotated[IriArg | None, Field(description="the conversation or session it belongs to (an IRI)")] = None,
        event_time: Annotated[AwareDatetime | None, Field(description="when it was sent, with a time zone")] = None,
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Keep a message you received, word for word, as evidence you can cite later.

        Use it for anything a user or tool told you that you may need to remember. Returns the
        message's IRI (cite it as asserted_by when you record a claim drawn from it). A retry with
        the same event_id returns the message already stored, with duplicate: true."""
        return self.tools.remember_message(grant, content=content, sender=sender, recipients=recipients,
                                           event_id=event_id, episode=episode, event_time=event_time, tenant=tenant)

    @_tool(IDEMPOTENT_WRITE)
    def remember_entity(
        self,
        grant: Grant,
        id: Annotated[IriArg, Field(description="the node's IRI, e.g. urn:memkg:person:lia")],
        kind: Annotated[Literal["Person", "Agent", "Entity", "Context", "Predicate"], Field(description=(
            "Person (a human), Agent (an AI or software agent), Entity (a thing talked about), Context "
            "(a qualifier such as 'at night'), or Predicate (a relation claims may use)"))],
        name: Annotated[Text | None, Field(description="a display name (a label, for a predicate)")] = None,
        functional: Annotated[bool, Field(description=(
            "predicates only: true if a subject has one value at a time (a new value contradicts the old)"))] = False,
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Declare who or what a node is, or declare a predicate, before claims or messages use it.

        Claims may only link typed nodes with declared predicates; declaring the same node twice is harmless."""
        return self.tools.remember_entity(grant, id=id, kind=kind, name=name, functional=functional, tenant=tenant)

    @_tool(WRITE)
    def remember_claim(
        self,
        grant: Grant,
        subject: Annotated[IriArg, Field(description="what the claim is about (a declared node's IRI)")],
        predicate: Annotated[IriArg, Field(description="the relation (a declared predicate's IRI)")],
        object_iri: ObjectIri = None,
        object_value: ObjectValue = None,
        asserted_by: Source = None,
        supported_by: Annotated[IRIs | None, Field(description="other evidence licensing the claim (IRIs)")] = None,
        confidence: Sure = None,
        valid_from: From = None,
        valid_until: Until = None,
        context: Annotated[IRIs | None, Field(description="qualifiers (Context IRIs), e.g. 'at night'")] = None,
        event_id: Annotated[Text | None, Field(description=(
            "a key you choose for this claim (e.g. the source message's id plus a number); retrying with "
            "the same event_id stores nothing twice"))] = None,
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Record something you concluded (subject, predicate, object), with the message it came from.

        A claim needs a source: asserted_by (a message IRI from remember_message) or supported_by.
        Returns the claim's IRI. A retry with the same event_id returns the claim already stored,
        with duplicate: true. To change a claim later use correct_claim, not a second claim."""
        return self.tools.remember_claim(grant, subject=subject, predicate=predicate, object_iri=object_iri,
                                         object_value=object_value, confidence=confidence, valid_from=valid_from,
                                         valid_until=valid_until, asserted_by=asserted_by, supported_by=supported_by,
                                         context=context, event_id=event_id, tenant=tenant)

    @_tool(READ)
    def recall(
        self,
        grant: Grant,
        query: Annotated[Text, Field(min_length=1, description="what you want to remember, in words")],
        k: Annotated[int, Bounded("max_k", "le", ge=1, description="how many hits")] = 10,
        valid_at: Annotated[AwareDatetime | None, Field(description="ask about this time instead of now")] = None,
        known_at: Annotated[AwareDatetime | None, Field(description="what the memory knew at this time (audit)")] = None,
        packet: Annotated[bool, Field(description="also return the evidence around the hits")] = True,
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Search your memory in words: messages, claims and episodes, best first, with why each matched.

        With packet (the default) also returns the evidence packet: each hit's support, sources,
        and competing or superseding claims, with their status. Cite the IRIs you use."""
        return self.tools.recall(grant, query=query, k=k, valid_at=valid_at, known_at=known_at,
                                 packet=packet, tenant=tenant)

    @_tool(READ)
    def explain_claim(
        self,
        grant: Grant,
        claim: Annotated[IriArg, Field(description="the claim's IRI")],
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Why you believe a claim, and whether you still should: every version of it (history),
        where it came from (lineage), what supports it and whether that still stands, and whether
        it holds now (current) or was replaced (currentVersions)."""
        return self.tools.explain(grant, claim=claim, tenant=tenant)

    @_tool(WRITE)
    def correct_claim(
        self,
        grant: Grant,
        claim: Annotated[IriArg, Field(description="the claim to correct (its IRI)")],
        object_iri: ObjectIri = None,
        object_value: ObjectValue = None,
        confidence: Sure = None,
        valid_from: From = None,
        valid_until: Until = None,
        asserted_by: Source = None,
        tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Record a new version of a claim that replaces it (the old one is kept as history).

        Give only what changed; what the claim states is carried over, its source is not: give
        asserted_by (the message that says so), or the change is recorded as your correction.
        Only the current version can be corrected (an older one is refused, naming the current
        one). Returns the new claim's IRI and its kind: "change" (a new valid_from: the world
        changed), "correction" (the same valid time: it was wrong) or "unchanged" (nothing
        differs, nothing written)."""
        return self.tools.correct(grant, claim=claim, object_iri=object_iri, object_value=object_value,
                                  confidence=confidence, valid_from=valid_from, valid_until=valid_until,
                                  asserted_by=asserted_by, tenant=tenant)

    @_tool(DESTRUCTIVE)
    def forget(
        self,
        grant: Grant,
        target: Annotated[IriArg, Field(description="the claim or source (message, document) to forget")],
        erase: Annotated[bool, Field(description=(
            "false: withdraw it (kept for the record, no longer believed); true: delete its content and "
            "what was derived only from it (consent revoked; needs a reason; cannot be undone)"))] = False,
        reason: Annotated[Text | None, Field(description="why (required to erase)")] = None,
        tenant: Tenant = None,
        dry_run: Annotated[bool, Field(description=(
            "with erase: true, only list what the erasure would remove and keep; nothing is written "
            "and no reason is needed"))] = False,
    ) -> dict[str, Any]:
        """Stop believing a claim or source (withdraw), or erase it for good.

        Returns the retraction recorded and the claims that fell or weakened with it (review those).
        Before erasing, erase with dry_run: true lists what would go (the source, what rested only on
        it, the claims among them) and what another source keeps."""
        return self.tools.forget(grant, target=target, erase=erase, reason=reason, tenant=tenant, dry_run=dry_run)

    @_tool(READ)
    def current_claims(self, grant: Grant, subject: SubjectArg = None, standing: StandingArg = None,
                       limit: Limit = 100, tenant: Tenant = None) -> dict[str, Any]:
        """What you hold true now: the claims known now and valid now, about subject if given, each with
        its standing (a fallen claim lost all its support: do not rely on it)."""
        return self.tools.claims(grant, "current", subject=subject, standing=standing, limit=limit, tenant=tenant)

    @_tool(READ)
    def claims_valid_at(
        self, grant: Grant, valid_at: Annotated[AwareDatetime, Field(description="the time asked about")],
        subject: SubjectArg = None, standing: StandingArg = None, limit: Limit = 100, tenant: Tenant = None,
    ) -> dict[str, Any]:
        """What held at a past (or future) time, by today's knowledge, about subject if given."""
        return self.tools.claims(grant, "historical", subject=subject, valid_at=valid_at, standing=standing,
                                 limit=limit, tenant=tenant)

    @_tool(READ)
    def claims_known_at(
        self, grant: Grant, known_at: Annotated[AwareDatetime, Field(description="what the memory knew at this time")],
        valid_at: Annotated[AwareDatetime | None, Field(description="valid at this time (default: known_at)")] = None,
        subject: SubjectArg = None, standing: StandingArg = None, limit: Limit = 100, tenant: Tenant = None,
    ) -> dict[str, Any]:
        """Audit: what you believed at an earlier moment (before later corrections), about subject if given."""
        return self.tools.claims(grant, "audit", subject=subject, known_at=known_at, valid_at=valid_at,
                                 standing=standing, limit=limit, tenant=tenant)


class _Runner:
    """Runs a call on a worker thread, ``limits.max_concurrent`` at once; past the time limit it is
    stopped (memkg.guard.cancellation).

    Plain asyncio (the SDK serves on asyncio): a future the thread resolves, a semaphore
    for the calls at once; anyio's events and limiters cost more per call."""

    def __init__(self, limits: ToolLimits) -> None:
        self.timeout = limits.timeout
        self.slots = asyncio.Semaphore(limits.max_concurrent)

    async def __call__(self, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        async with self.slots:
            loop = asyncio.get_running_loop()
            finished = loop.create_future()

            def resolve() -> None:
                if not finished.done():
                    finished.set_result(None)

            def done() -> None:
                loop.call_soon_threadsafe(resolve)

            call = cancellation.Call(fn, on_done=done).start()
            try:
                await asyncio.wait((finished,), timeout=self.timeout)
                if not finished.done():
                    call.cancel()
                    await asyncio.wait((finished,), timeout=GRACE)
            except BaseException:  # the request was cancelled, or the connection closed
                call.cancel()
                raise
            return call.outcome(self.timeout)


def _call_handler(
    specs: dict[str, ToolSpec], callers: Callers, run: _Runner
) -> Callable[[ServerRequestContext, CallToolRequestParams], Awaitable[dict[str, Any]]]:
    """The answer to a tool call: the tool's result, or a refusal naming what was wrong."""

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> dict[str, Any]:
        spec = specs.get(params.name)
        if spec is None:
            return _refused(f"no tool named {params.name!r}: the tools are {', '.join(specs)}")
        try:
            grant = callers.grant(getattr(ctx.request, "headers", None))
            kwargs = spec.validate(params.arguments or {})
            return _answer(await run(functools.partial(spec.fn, grant, **kwargs)))
        except Unauthorized as err:
            return _refused(f"not allowed: {err}")
        except cancellation.Cancelled as err:
            return _refused(f"{err}; the memory is unchanged by this call")
        except Exception as err:  # noqa: BLE001 - library errors become refusals; the rest is logged
            try:
                return _refused(str(refusal(err)))
            except Exception:  # noqa: BLE001
                logger.exception("tool %s failed", params.name)
                return _refused(f"{params.name} failed unexpectedly (the server's log says why)")

    return call_tool


def build_server(tools: MemoryTools, callers: Callers | None = None) -> Server:
    """The SDK's low-level ``Server`` offering the memory's tools; ``callers`` says who each call is."""
    callers = callers or Callers()
    served = _ServedTools(tools)
    specs = {name: ToolSpec.of(getattr(served, name), annotations, tools.limits) for name, annotations in _TOOLS.items()}
    # A caller is shown only the tools it may call: a read-only token sees no write tool.
    listings = {write: ListToolsResult(tools=[spec.listed for spec in specs.values()
                                              if write or spec.annotations.read_only_hint])
                for write in (True, False)}

    async def list_tools(ctx: ServerRequestContext, params: Any) -> ListToolsResult:
        return listings[callers.grant(getattr(ctx.request, "headers", None)).write]

    return Server(
        "memkg", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
        # the handler answers in wire form (a dict), which the SDK takes
        on_call_tool=cast(Any, _call_handler(specs, callers, _Runner(tools.limits))),
        get_tool_input_schema=lambda name: specs[name].listed.input_schema if name in specs else None,
    )


# -- running -------------------------------------------------------------------------------


def serve_stdio(server: Server, limits: ToolLimits = DEFAULT_LIMITS) -> None:
    """Serve over standard input and output until the client closes them."""

    async def serve() -> None:
        async with wire.stdio_streams(limits.max_json_depth, limits.max_body) as (lines, out):
            async with stdio_server(cast(Any, lines), cast(Any, out)) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


def serve_http(
    server: Server, host: str, port: int, *, tokens: Tokens | None, limits: ToolLimits = DEFAULT_LIMITS,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted; ``ready`` gets the URL
    once the socket listens (port 0 picks a free one)."""
    app: Any = server.streamable_http_app(json_response=True, max_request_body_size=limits.max_body, host=host)
    app = wire.DepthGate(app, limits.max_json_depth, limits.max_body)
    if tokens is not None:
        app = BearerGate(app, tokens)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it every response waited ~40 ms for a delayed ACK
    # (Nagle), measured by benchmarks/bench_mcp.py (HTTP p50 +50 ms over stdio; +7 ms with it).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts: "ready" is true at once
    bound = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    web = uvicorn.Server(config)
    if ready is not None:
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        ready(f"http://{shown}:{bound}/mcp")
    try:
        web.run(sockets=[sock])
    finally:
        sock.close()
