"""Every parameter of every MCP tool reaches the library: a differential test, generated from the schemas.

The parameters are read from the input schemas the server lists (through the SDK's own client,
in process, on a server open to the whole store so that ``tenant`` is the caller's to choose).
For each one, the tool is called without it and with a value that changes the answer, and the
answer with it must equal the library's answer to the same request: for a read, the JSON the
library's result gives; for a write, the quads the store then holds. A parameter the server or
``MemoryTools`` drops or mangles gives the answer without it, which is another answer. A new
parameter fails here until it has a value below, or a reason in ``NO_EFFECT``.

The data (:mod:`tests.support.parameters`): two tenants with the same IRIs and different facts,
claims valid and known at different times, a dozen messages for ``k``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from mcp import Client
from pyoxigraph import NamedNode

from memkg import Claim, MemoryStore, Message, Predicate, Vertex, provenance, revision
from memkg.adapters.agent_tools import MemoryTools
from memkg.adapters.agent_tools.server import Callers, build_server
from memkg.adapters.agent_tools.tools import ENTITY_KINDS, claim_for_event
from memkg.core.json_terms import rows_json
from memkg.core.terms import parse_datetime
from memkg.history import timeline
from memkg.recall import answer as recall_answer
from tests.support.parameters import A, B, EX, FEBRUARY, JANUARY, MAY, blank_minted, two_tenants, written

pytestmark = pytest.mark.slow

#: The arguments each tool is called with (the answer "without" the parameter under test).
BASE: dict[str, dict[str, Any]] = {
    "remember_message": {"content": "hello there", "tenant": A},
    "remember_entity": {"id": EX + "newcomer", "kind": "Entity", "tenant": A},
    "remember_claim": {"subject": EX + "lia", "predicate": EX + "prefers", "object_iri": EX + "first",
                       "asserted_by": EX + "m0", "tenant": A},
    "correct_claim": {"claim": EX + "c2", "confidence": 0.5, "tenant": A},
    "forget": {"target": EX + "m1", "reason": "a mistake", "tenant": A},
    "recall": {"query": "Lia likes green tea", "k": 3, "packet": False, "tenant": A},
    "explain_claim": {"claim": EX + "c2", "tenant": A},
    "current_claims": {"tenant": A},
    "claims_valid_at": {"valid_at": MAY, "tenant": A},
    "claims_known_at": {"known_at": MAY, "tenant": A},
}

#: For each parameter: (what else the call needs for it to matter, the value that changes the answer).
VARIED: dict[str, dict[str, tuple[dict[str, Any], Any]]] = {
    "remember_message": {
        "content": ({}, "goodbye"), "event_id": ({}, "chat-9"), "sender": ({}, EX + "lia"),
        "recipients": ({}, [EX + "aurora"]), "episode": ({}, EX + "talk"), "event_time": ({}, "2024-06-01T08:00:00Z"),
        "tenant": ({}, B),
    },
    "remember_entity": {
        "id": ({}, EX + "stranger"), "kind": ({}, "Person"), "name": ({}, "Newcomer"),
        "functional": ({"kind": "Predicate"}, True), "tenant": ({}, B),
    },
    "remember_claim": {
        "subject": ({}, EX + "aurora"), "predicate": ({}, EX + "avoids"),
        "object_iri": ({}, EX + "second"), "object_value": ({"object_iri": None}, "mint tea"),
        "asserted_by": ({}, EX + "m1"), "supported_by": ({}, [EX + "m1"]), "confidence": ({}, 0.25),
        "valid_from": ({}, "2024-01-01T00:00:00Z"), "valid_until": ({}, "2030-01-01T00:00:00Z"),
        "context": ({}, [EX + "night"]), "event_id": ({}, "chat-1/claim-1"), "tenant": ({}, B),
    },
    "correct_claim": {
        "claim": ({}, EX + "c5"), "object_iri": ({}, EX + "first"), "object_value": ({}, "mint tea"),
        "confidence": ({}, 0.75), "valid_from": ({}, "2024-01-01T00:00:00Z"),
        "valid_until": ({}, "2030-01-01T00:00:00Z"), "asserted_by": ({}, EX + "m0"), "tenant": ({}, B),
    },
    "forget": {"target": ({}, EX + "m0"), "erase": ({}, True), "reason": ({}, "consent revoked"), "tenant": ({}, B),
               "dry_run": ({"erase": True}, True)},
    "recall": {
        "query": ({}, "espresso coffee"), "k": ({}, 8), "valid_at": ({}, JANUARY), "known_at": ({}, FEBRUARY),
        "packet": ({}, True), "tenant": ({}, B),
    },
    "explain_claim": {"claim": ({}, EX + "c3"), "tenant": ({}, B)},
    "current_claims": {"subject": ({}, EX + "lia"), "limit": ({}, 1), "tenant": ({}, B), "standing": ({}, "supported")},
    "claims_valid_at": {"valid_at": ({}, JANUARY), "subject": ({}, EX + "lia"), "limit": ({}, 1), "tenant": ({}, B),
                        "standing": ({}, "supported")},
    "claims_known_at": {
        "known_at": ({}, FEBRUARY), "valid_at": ({}, JANUARY), "subject": ({}, EX + "lia"), "limit": ({}, 1),
        "tenant": ({}, B), "standing": ({}, "supported"),
    },
}

#: Parameters with no value that changes the answer, and why.
NO_EFFECT: dict[tuple[str, str], str] = {}

LIMITS = MemoryTools(MemoryStore()).limits


# -- the library's answers ------------------------------------------------------------------


def _time(args: dict[str, Any], name: str) -> datetime | None:
    return parse_datetime(args[name]) if args.get(name) is not None else None


def _node(value: str | None) -> NamedNode | None:
    return NamedNode(value) if value is not None else None


def _claim_fields(args: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if args.get("object_iri") is not None:
        fields["object"] = NamedNode(args["object_iri"])
    elif args.get("object_value") is not None:
        fields["object"] = args["object_value"]
    if args.get("confidence") is not None:
        fields["confidence"] = Decimal(repr(float(args["confidence"])))
    for name in ("valid_from", "valid_until"):
        if args.get(name) is not None:
            fields[name] = _time(args, name)
    if args.get("asserted_by") is not None:
        fields["asserted_by"] = NamedNode(args["asserted_by"])
    return fields


def _library_write(store: MemoryStore, tool: str, args: dict[str, Any]) -> None:
    graph = args.get("tenant")
    if tool == "remember_message":
        store.add(Message(content=args["content"], event_id=args.get("event_id"), sender=_node(args.get("sender")),
                          recipients=[NamedNode(r) for r in args.get("recipients") or ()],
                          episode=_node(args.get("episode")), event_time=_time(args, "event_time")), graph=graph)
    elif tool == "remember_entity":
        node = NamedNode(args["id"])
        store.add(Predicate(id=node, label=args.get("name"), functional=args.get("functional", False))
                  if args["kind"] == "Predicate" else
                  Vertex(id=node, cls=ENTITY_KINDS[args["kind"]], display_name=args.get("name")), graph=graph)
    elif tool == "remember_claim":
        claim = Claim(subject=NamedNode(args["subject"]), predicate=NamedNode(args["predicate"]),
                      supported_by=[NamedNode(s) for s in args.get("supported_by") or ()],
                      context=[NamedNode(c) for c in args.get("context") or ()], **_claim_fields(args))
        if args.get("event_id"):
            claim.id = claim_for_event(_node(graph), args["event_id"])
        store.add(claim, graph=graph)
    elif tool == "correct_claim":
        old, where = store.get_claim(NamedNode(args["claim"]), graph=graph)
        store.supersede(NamedNode(args["claim"]), revision(old, **_claim_fields(args)), graph=where, interface="mcp")
    elif tool == "forget":
        if args.get("dry_run"):
            provenance.erasure_plan(store, args["target"], graph=graph)  # writes nothing
        elif args.get("erase"):
            provenance.erase(store, args["target"], reason=args["reason"], graph=graph)
        else:
            provenance.withdraw(store, args["target"], reason=args.get("reason"), graph=graph)
    else:
        raise AssertionError(f"no library write for {tool}")


def _view_rows(store: MemoryStore, view: str, args: dict[str, Any]) -> list[Any]:
    params = {k: args[k] for k in ("subject", "valid_at", "known_at", "tenant", "standing") if args.get(k) is not None}
    rows, _ = rows_json(store.view(view, params), limit=min(args.get("limit", 100), LIMITS.max_rows))
    for row in rows:  # the tools answer the contract's word (supported, fallen, unrecorded)
        row["standing"] = row["standing"]["value"]
    return rows


def _library_read(store: MemoryStore, tool: str, args: dict[str, Any]) -> Any:
    tenant = args.get("tenant")
    if tool == "recall":
        found = recall_answer(store, args["query"], tenant=tenant, k=args.get("k", 10), valid_at=_time(args, "valid_at"),
                              known_at=_time(args, "known_at"), packet=args.get("packet", True),
                              max_vertices=LIMITS.max_packet_vertices)
        return found.to_dict()
    if tool == "explain_claim":
        claim = args["claim"]
        return {"history": [v.to_dict() for v in timeline.history(store, claim, tenant=tenant)],
                "support": provenance.support(store, claim, tenant=tenant).to_dict(),
                "lineage": provenance.lineage(store, claim, tenant=tenant).to_dict()}
    view = {"current_claims": "current", "claims_valid_at": "historical", "claims_known_at": "audit"}[tool]
    return _view_rows(store, view, args)


def _comparable(tool: str, result: dict[str, Any]) -> Any:
    """The part of a tool's result the library computes (not the adapter's own echo of its arguments)."""
    if tool == "recall":
        return {k: v for k, v in result.items() if k != "tenant"}
    if tool == "explain_claim":
        return {k: result[k] for k in ("history", "support", "lineage")}
    return result["claims"]


# -- calling the tools --------------------------------------------------------------------------


async def _call(store: MemoryStore, tool: str, args: dict[str, Any]) -> Any:
    async with Client(build_server(MemoryTools(store), Callers())) as client:
        call = await client.call_tool(tool, args)
    return ("refused", call.content[0].text) if call.is_error else call.structured_content


def _refused(result: Any) -> bool:
    return isinstance(result, tuple)


def _listed() -> dict[str, dict[str, Any]]:
    async def listing() -> dict[str, dict[str, Any]]:
        async with Client(build_server(MemoryTools(MemoryStore()), Callers())) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}
    return asyncio.run(listing())


LISTED = _listed()
PARAMETERS = sorted((tool, name) for tool, schema in LISTED.items() for name in schema.get("properties", {}))
READS = {"recall", "explain_claim", "current_claims", "claims_valid_at", "claims_known_at"}


def _args(base: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    merged = {**base, **delta}
    return {k: v for k, v in merged.items() if v is not None}


def test_every_parameter_has_an_answer_changing_value_or_a_reason() -> None:
    known = {(tool, name) for tool, names in VARIED.items() for name in names} | set(NO_EFFECT)
    assert set(BASE) == set(LISTED), f"tools without BASE arguments: {sorted(set(LISTED) - set(BASE))}"
    assert set(PARAMETERS) <= known, f"parameters without a value here: {sorted(set(PARAMETERS) - known)}"
    assert known <= set(PARAMETERS), f"values for parameters the tools no longer take: {sorted(known - set(PARAMETERS))}"


@pytest.fixture(scope="module")
def reading() -> MemoryStore:
    store: MemoryStore = two_tenants()
    return store


@pytest.mark.parametrize(("tool", "name"), [p for p in PARAMETERS if p not in NO_EFFECT], ids=[f"{t}-{n}" for t, n in PARAMETERS if (t, n) not in NO_EFFECT])
def test_each_parameter_gives_the_librarys_answer(reading: MemoryStore, tool: str, name: str) -> None:
    context, value = VARIED[tool][name]
    without = _args(BASE[tool], context)
    given = _args(without, {name: value})
    if tool in READS:
        before, after = (asyncio.run(_call(reading, tool, args)) for args in (without, given))
        assert not _refused(after), f"{tool}({given}) refused: {after}"
        expected = _library_read(reading, tool, given)
        ours = (before if _refused(before) else _comparable(tool, before), _comparable(tool, after))
    else:
        answers = []
        for args in (without, given):
            store = two_tenants()
            result = asyncio.run(_call(store, tool, args))
            answers.append((blank_minted(result) if _refused(result) else "written", written(store)))
        library = two_tenants()
        _library_write(library, tool, given)
        expected = ("written", written(library))
        ours = tuple(answers)
        assert ours[1][0] == "written", f"{tool}({given}) refused: {ours[1]}"
    assert ours[0] != ours[1], f"{tool}: {name}={value!r} does not change the answer; choose a value that does"
    assert ours[1] == expected, f"{tool}({given}) does not answer as the library given {name}={value!r}"
