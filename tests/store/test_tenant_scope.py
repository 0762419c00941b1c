"""Tenant scope on every read path, generated from the code.

Two tenants share IRIs (the same claim, message, episode and people in both) and hold
different facts about them: in tenant B the message has another sender and more turns in
its episode, the claim another recording time, a newer version and another activity behind
it; and B links to A's names (a refuter of A's claim, a claim supported by A's message).
Every public callable of memkg's packages that takes ``tenant`` is called for tenant A, its
arguments chosen by parameter name; nothing it answers may name tenant B's graph, a B-only
node or a B-only literal, and it must answer as it does over a store holding tenant A alone
(so a leak that names nothing, a count or a time of B's, shows too). A new read API with a
``tenant`` parameter is called without anyone adding it here; one whose parameters this
table cannot fill fails, naming them.

Features that run their own queries beneath the public call (pictures, blame, tags'
versions, recall's standing, turn numbering on a write) read what the public call reads:
the data makes each of their leaks visible.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

import pytest
from pyoxigraph import QuerySolutions

from memkg import MemoryStore
from memkg.adapters import pictures
from memkg.store.clock import Clock

from tests.support.public import answer_text

EX = "https://example.org/scope/"
A, B = "https://example.org/tenants/a", "https://example.org/tenants/b"
SECRET = "bsecret"  # in every literal and node name only tenant B holds
PACKAGES = ["memkg", "memkg.provenance", "memkg.history", "memkg.tags", "memkg.recall", "memkg.adapters.pictures"]
PRELUDE = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""
SHARED = """
    ex:lia a mem:Person ; mem:displayName "Lia" . ex:tea a mem:Entity ; mem:displayName "tea" .
    ex:drinks a rdf:Property ; <http://www.w3.org/2000/01/rdf-schema#label> "drinks" .
    ex:s1 a mem:Episode .
    ex:m a mem:Message ; mem:content "Lia drinks tea %s" ; mem:eventId "1" ; prov:wasGeneratedBy ex:s1 ; mem:turn 1 .
    ex:c a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:tea )>> ; mem:assertedBy ex:m ; mem:supportedBy ex:m .
"""
#: What tenant A alone says of the shared IRIs (B says other things of them).
A_ONLY = """
    ex:m prov:wasAttributedTo ex:lia . ex:s1 mem:participant ex:lia .
    ex:c mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime ; prov:wasGeneratedBy ex:run .
    ex:run a mem:Extraction ; prov:wasAssociatedWith ex:extractor . ex:extractor a mem:Extractor .
    ex:ana a mem:Person ; mem:displayName "Ana" .
    ex:m2 a mem:Message ; mem:content "Ana drinks tea, said twice" ; mem:eventId "5" .
    ex:c1 a mem:Claim ; rdf:reifies <<( ex:ana ex:drinks ex:tea )>> ; mem:assertedBy ex:m2 ;
        mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime .
    ex:c2 a mem:Claim ; rdf:reifies <<( ex:ana ex:drinks ex:tea )>> ; mem:assertedBy ex:m2 ;
        mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime .
    ex:v a mem:Claim ; rdf:reifies <<( ex:ana ex:drinks ex:tea )>> ; mem:supersedes ex:c1 ; mem:assertedBy ex:m2 ;
        mem:recordedAt "2026-05-01T00:00:00Z"^^xsd:dateTime .
    ex:w a mem:Claim ; rdf:reifies <<( ex:ana ex:drinks ex:tea )>> ; mem:supersedes ex:c2 ; mem:assertedBy ex:m2 ;
        mem:recordedAt "2026-01-15T00:00:00Z"^^xsd:dateTime .
"""
#: B's records of A's later versions, at other times: ex:v known in B before 2026-03-01 (A: after),
#: ex:w after it (A: before); a reader of transaction time that looks in B gets one of them wrong.
B_TIMES = """
    ex:v mem:recordedAt "2026-01-15T00:00:00Z"^^xsd:dateTime .
    ex:w mem:recordedAt "2026-05-01T00:00:00Z"^^xsd:dateTime .
"""
B_ONLY = f"""
    ex:{SECRET}Note a mem:Message ; mem:content "tea is overrated, {SECRET}" ; mem:eventId "2" .
    ex:{SECRET}Note mem:refutes ex:c .
    ex:{SECRET}Claim a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:{SECRET}Coffee )>> ;
        mem:assertedBy ex:m ; mem:supportedBy ex:m , ex:{SECRET}Note ; prov:wasDerivedFrom ex:c .
    ex:{SECRET}Coffee a mem:Entity ; mem:displayName "coffee {SECRET}" .
    ex:m prov:wasAttributedTo ex:{SECRET}Sender . ex:{SECRET}Sender a mem:Person ; mem:displayName "{SECRET} sender" .
    ex:s1 mem:participant ex:{SECRET}Sender .
    ex:{SECRET}Turn2 a mem:Message ; mem:content "{SECRET} second turn" ; mem:eventId "3" ; prov:wasGeneratedBy ex:s1 ;
        mem:turn 2 ; prov:wasAttributedTo ex:{SECRET}Sender .
    ex:{SECRET}Turn3 a mem:Message ; mem:content "{SECRET} third turn" ; mem:eventId "4" ; prov:wasGeneratedBy ex:s1 ;
        mem:turn 3 ; prov:wasAttributedTo ex:{SECRET}Sender .
    ex:c mem:recordedAt "2026-02-02T00:00:00Z"^^xsd:dateTime ; prov:wasGeneratedBy ex:{SECRET}Run .
    ex:{SECRET}Run a mem:Extraction ; prov:wasAssociatedWith ex:{SECRET}Agent . ex:{SECRET}Agent a mem:Agent .
    ex:{SECRET}Version a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:{SECRET}Coffee )>> ; mem:supersedes ex:c ;
        mem:assertedBy ex:{SECRET}Turn2 ; mem:recordedAt "2026-03-03T00:00:00Z"^^xsd:dateTime .
"""


def make_store(*, with_b: bool = True) -> MemoryStore:
    """Tenant A's memory, and with ``with_b`` tenant B's beside it; the clock stands still (each
    write a tick later), so A's writes get the same times with or without B's after them."""
    s = MemoryStore(validation=None, clock=Clock(lambda: datetime(2026, 6, 1, tzinfo=timezone.utc)))
    s.load_data(PRELUDE + SHARED % "(a)" + A_ONLY, format="turtle", graph=A)
    if with_b:
        s.load_data(PRELUDE + SHARED % SECRET + B_ONLY + B_TIMES, format="turtle", graph=B)
    return s


@pytest.fixture(scope="module")
def store() -> MemoryStore:
    return make_store()


@pytest.fixture(scope="module")
def alone() -> MemoryStore:
    return make_store(with_b=False)


#: The value of each parameter a read API takes, by name; ``tenant`` is always A.
ARGUMENTS: dict[str, Callable[[MemoryStore], Any]] = {
    "store": lambda s: s,
    "claim": lambda s: EX + "c",
    "source": lambda s: EX + "m",
    "sources": lambda s: EX + "m",
    "end": lambda s: EX + "c",
    "seeds": lambda s: [EX + "c"],
    "query": lambda s: "Lia drinks tea coffee overrated",
    "kind": lambda s: "lineage",
}


def read_apis() -> Iterator[tuple[str, Callable[..., Any]]]:
    seen: set[int] = set()
    for name in PACKAGES:
        module = importlib.import_module(name)
        for public in getattr(module, "__all__", ()):
            fn = getattr(module, public)
            if inspect.isclass(fn) or not callable(fn) or id(fn) in seen:
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if "tenant" in params:
                seen.add(id(fn))
                yield f"{name}.{public}", fn


APIS = list(read_apis())


def test_the_read_apis_are_found() -> None:
    names = {n.rsplit(".", 1)[1] for n, _ in APIS}
    assert {"support", "lineage", "dependents", "impact", "packet", "recall", "assess", "verify"} <= names, names


#: Parameters a read is called with each value of (a picture of every kind).
#: Parameters a read is called with each value of: a picture of every kind, and a reader of
#: transaction time now and at a time between A's versions and B's records of the same IRIs.
CHOICES: dict[str, Callable[[], list[Any]]] = {
    "kind": lambda: list(pictures.KINDS),
    "known_at": lambda: [None, datetime(2026, 3, 1, tzinfo=timezone.utc)],
}
#: What differs between two answers that mean the same: identifiers memkg mints, objects' addresses.
_VOLATILE = re.compile(r"urn:uuid:[0-9a-f-]+|urn:memkg:version:[0-9a-f]+|0x[0-9a-f]+|ep_[0-9a-f]{32}")


def _same(text: str) -> str:
    return _VOLATILE.sub("…", text)


def _calls(fn: Callable[..., Any], store: MemoryStore, name: str) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """Every call of read ``fn`` for tenant A: one per value of each parameter in :data:`CHOICES`."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {"tenant": A}
    missing: list[str] = []
    spread: dict[str, tuple[int | None, list[Any]]] = {}
    for p in inspect.signature(fn).parameters.values():
        if p.name in CHOICES:
            positional = p.kind is not p.KEYWORD_ONLY and p.default is inspect.Parameter.empty
            spread[p.name] = (len(args) if positional else None, CHOICES[p.name]())
            if positional:
                args.append(None)
            continue
        if p.name == "tenant" or p.default is not inspect.Parameter.empty or p.kind == p.VAR_KEYWORD:
            continue
        if p.name not in ARGUMENTS:
            missing.append(p.name)
            continue
        value = ARGUMENTS[p.name](store)
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL):
            args.append(value)
        else:
            kwargs[p.name] = value
    assert not missing, f"{name}: add a value for {missing} to ARGUMENTS so this read path is checked"
    calls = [(args, kwargs)]
    for param, (position, values) in spread.items():
        calls = [([*a[:position], v, *a[position + 1:]], k) if position is not None else (a, {**k, param: v})
                 for a, k in calls for v in values]
    yield from calls


@pytest.mark.parametrize("name, fn", APIS, ids=[n for n, _ in APIS])
def test_nothing_of_tenant_b_reaches_a_read_for_tenant_a(store: MemoryStore, alone: MemoryStore, name: str,
                                                         fn: Callable[..., Any]) -> None:
    for (args, kwargs), (alone_args, _) in zip(_calls(fn, store, name), _calls(fn, alone, name)):
        text = answer_text(fn(*args, **kwargs))
        assert SECRET not in text, f"{name}{args[1:]} for tenant A shows tenant B's data: {text[:2000]}"
        assert B not in text, f"{name}{args[1:]} for tenant A names tenant B's graph"
        assert _same(text) == _same(answer_text(fn(*alone_args, **kwargs))), (
            f"{name}{args[1:]} for tenant A answers differently when tenant B is in the store")


def _tag_reads() -> list[str]:
    """Every public method of :class:`memkg.tags.Tags` that reads (returns no Change or Link)."""
    from memkg.tags import Tags

    return sorted(n for n, m in vars(Tags).items() if not n.startswith("_") and inspect.isfunction(m)
                  and not any(w in str(inspect.signature(m).return_annotation) for w in ("Change", "Link")))


TAG_ARGUMENTS: dict[str, Any] = {"record": EX + "c", "records": [EX + "c"], "properties": ["mood:calm"],
                                 "label": "mood"}
#: A tag read now, and at times before and after A's tag (its version is recorded 2026-06-01).
TAG_TIMES = [None, datetime(2026, 3, 1, tzinfo=timezone.utc), datetime(2026, 7, 1, tzinfo=timezone.utc)]


def _tagged(store: MemoryStore, *, with_b: bool) -> MemoryStore:
    """Tags on the same records in both tenants, with other values and links in B."""
    from memkg.tags import Tags

    Tags(store, graph=A).add(EX + "c", ["mood:calm"])
    if with_b:
        # B's data names A's version, recorded long before and long after: foreign data a read
        # for A must not consult
        version = Tags(store, graph=A).version(EX + "c")
        assert version is not None
        store.load_data(PRELUDE + f"""<{version.iri.value}> mem:recordedAt "2000-01-01T00:00:00Z"^^xsd:dateTime ,
                                                               "2100-01-01T00:00:00Z"^^xsd:dateTime .""",
                        format="turtle", graph=B)
        b = Tags(store, graph=B)
        b.add(EX + "c", ["mood:calm", f"mood:{SECRET}"])
        b.add(EX + f"{SECRET}Claim", ["mood:calm"])
        b.connect(EX + "c", EX + f"{SECRET}Claim")
        b.adjusts(EX + f"{SECRET}Claim", EX + "c")
    return store


@pytest.mark.parametrize("method", _tag_reads())
def test_nothing_of_tenant_b_reaches_a_tag_read_for_tenant_a(method: str) -> None:
    from memkg.tags import Tags

    both, alone = (_tagged(make_store(with_b=with_b), with_b=with_b) for with_b in (True, False))
    params = list(inspect.signature(getattr(Tags, method)).parameters.values())[1:]
    missing = [p.name for p in params if p.default is inspect.Parameter.empty and p.name not in TAG_ARGUMENTS]
    assert not missing, f"Tags.{method}: add a value for {missing} to TAG_ARGUMENTS"
    kwargs = {p.name: TAG_ARGUMENTS[p.name] for p in params if p.name in TAG_ARGUMENTS}
    for known_at in TAG_TIMES if any(p.name == "known_at" for p in params) else [None]:
        asked = {**kwargs, **({"known_at": known_at} if known_at else {})}
        text = answer_text(getattr(Tags(both, graph=A), method)(**asked))
        assert SECRET not in text and B not in text, f"Tags.{method}({asked}) for tenant A shows B's: {text[:2000]}"
        assert _same(text) == _same(answer_text(getattr(Tags(alone, graph=A), method)(**asked))), (
            f"Tags.{method}({asked}) for tenant A answers differently beside B")


def _turn_writers() -> dict[str, Callable[[MemoryStore], None]]:
    """The writers that number an episode's turns: a message added, a line ingested."""
    from memkg import Message
    from memkg.loading.ingest import ingest_lines

    def add(store: MemoryStore) -> None:
        store.add(Message(content="a new word for a", episode=EX + "s1"), graph=A)

    def ingested(store: MemoryStore) -> None:
        line = json.dumps({"content_kind": "message", "event_id": "e9", "content": "a new word for a",
                           "episode": EX + "s1"})
        ingest_lines(store, [line], graph=A)
    return {"add": add, "ingest": ingested}


@pytest.mark.parametrize("writer", sorted(_turn_writers()))
def test_a_new_turn_counts_only_its_own_tenants_messages(writer: str) -> None:
    store = make_store()
    _turn_writers()[writer](store)
    rows = store.query(f"""SELECT ?turn WHERE {{ GRAPH <{A}> {{ ?m prov:wasGeneratedBy <{EX}s1> ; mem:turn ?turn ;
                                                               mem:content "a new word for a" }} }}""")
    assert isinstance(rows, QuerySolutions)
    assert [int(r["turn"].value) for r in rows] == [2], "tenant A's episode held one turn: the next is its second"


def test_tenant_b_sees_its_own_data(store: MemoryStore) -> None:
    """The fixture really gives B something to leak: B's reads find it."""
    from memkg import support

    assert SECRET in answer_text(support(store, EX + "c", tenant=B))


def _mcp_read_tools() -> list[str]:
    from memkg.adapters.agent_tools import server

    return [name for name, notes in server._TOOLS.items() if notes.read_only_hint]


#: Arguments of the MCP read tools, by parameter name (``grant`` and ``tenant`` are given).
TOOL_ARGUMENTS: dict[str, Any] = {
    "query": "Lia drinks tea coffee overrated",
    "claim": EX + "c",
    "valid_at": "now",
    "known_at": "now",
}


#: Every kind of caller: read-only or writing; its token for tenant A alone, for A and B (it names
#: tenant A with the ``tenant`` argument), or no token at all (a server without tokens).
GRANTS: dict[str, tuple[frozenset[str] | None, bool]] = {
    "read-only for A": (frozenset({A}), False),
    "writing for A": (frozenset({A}), True),
    "read-only for A and B": (frozenset({A, B}), False),
    "writing for A and B": (frozenset({A, B}), True),
    "no token": (None, True),
}


def _grant(kind: str) -> Any:
    from pyoxigraph import NamedNode

    from memkg.guard.access import Grant

    tenants, write = GRANTS[kind]
    return Grant(tenants=None if tenants is None else frozenset(NamedNode(t) for t in tenants), write=write)


def _tool_kwargs(fn: Callable[..., Any], tool: str) -> dict[str, Any]:
    from datetime import datetime, timezone

    kwargs: dict[str, Any] = {}
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.name in ("tenant",) or p.default is not inspect.Parameter.empty:
            continue
        assert p.name in TOOL_ARGUMENTS, f"MCP tool {tool}: add a value for {p.name!r} to TOOL_ARGUMENTS"
        value = TOOL_ARGUMENTS[p.name]
        kwargs[p.name] = datetime.now(timezone.utc) if value == "now" else value
    return kwargs


@pytest.mark.parametrize("kind", sorted(GRANTS))
@pytest.mark.parametrize("tool", _mcp_read_tools())
def test_nothing_of_tenant_b_reaches_an_mcp_read_tool_for_tenant_a(store: MemoryStore, tool: str, kind: str) -> None:
    """The tool list the MCP server serves, called through the served functions (no transport),
    by every kind of caller; one for A alone that names tenant B is refused, whatever else it
    may do."""
    from pyoxigraph import NamedNode

    from memkg.adapters.agent_tools import server
    from memkg.adapters.agent_tools.tools import MemoryTools, ToolRefusal

    fn = getattr(server._ServedTools(MemoryTools(store)), tool)
    kwargs = _tool_kwargs(fn, tool)
    grant = _grant(kind)
    text = json.dumps(fn(grant, **kwargs, tenant=A), default=str)
    assert SECRET not in text and B not in text, f"MCP tool {tool} for tenant A shows tenant B's data: {text[:2000]}"
    if grant.restricted and not grant.can_see(NamedNode(B)):
        with pytest.raises(ToolRefusal, match="not yours"):
            fn(grant, **kwargs, tenant=B)
