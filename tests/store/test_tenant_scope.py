"""Tenant scope on every read path, generated from the code.

Two tenants share IRIs (the same claim, message and people in both) and tenant B links to
tenant A's names (a refuter of A's claim, a claim supported by A's message). Every public
callable of memkg's packages that takes ``tenant`` is called for tenant A, its arguments
chosen by parameter name; nothing it answers may name tenant B's graph, a B-only node or a
B-only literal. A new read API with a ``tenant`` parameter is called without anyone adding
it here; one whose parameters this table cannot fill fails, naming them.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memkg import MemoryStore

EX = "https://example.org/scope/"
A, B = "https://example.org/tenants/a", "https://example.org/tenants/b"
SECRET = "bsecret"  # in every literal and node name only tenant B holds
PACKAGES = ["memkg", "memkg.provenance", "memkg.history", "memkg.tags", "memkg.recall", "memkg.adapters.pictures"]
PRELUDE = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
"""
SHARED = """
    ex:lia a mem:Person ; mem:displayName "Lia" . ex:tea a mem:Entity ; mem:displayName "tea" .
    ex:drinks a rdf:Property ; <http://www.w3.org/2000/01/rdf-schema#label> "drinks" .
    ex:m a mem:Message ; mem:content "Lia drinks tea %s" ; mem:eventId "1" .
    ex:c a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:tea )>> ; mem:assertedBy ex:m ; mem:supportedBy ex:m .
"""
B_ONLY = f"""
    ex:{SECRET}Note a mem:Message ; mem:content "tea is overrated, {SECRET}" ; mem:eventId "2" .
    ex:{SECRET}Note mem:refutes ex:c .
    ex:{SECRET}Claim a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:{SECRET}Coffee )>> ;
        mem:assertedBy ex:m ; mem:supportedBy ex:m , ex:{SECRET}Note ; prov:wasDerivedFrom ex:c .
    ex:{SECRET}Coffee a mem:Entity ; mem:displayName "coffee {SECRET}" .
"""


@pytest.fixture(scope="module")
def store() -> MemoryStore:
    s = MemoryStore(validation=None)
    s.load_data(PRELUDE + SHARED % "(a)", format="turtle", graph=A)
    s.load_data(PRELUDE + SHARED % SECRET + B_ONLY, format="turtle", graph=B)
    return s


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


def _text(value: Any) -> str:
    """Everything an answer says, as text: its JSON form where it has one, its fields, its repr."""
    parts = [repr(value)]
    for method in ("to_dict", "to_json", "json"):
        if callable(getattr(value, method, None)):
            try:
                parts.append(json.dumps(getattr(value, method)(), default=str))
            except TypeError:
                pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts += [repr(getattr(value, f.name)) for f in dataclasses.fields(value)]
    if isinstance(value, (list, tuple)):
        parts += [_text(v) for v in value]
    for render in ("mermaid", "dot", "svg", "text", "render"):
        attr = getattr(value, render, None)
        if callable(attr):
            try:
                parts.append(str(attr()))
            except TypeError:
                pass
        elif isinstance(attr, str):
            parts.append(attr)
    return "\n".join(parts)


APIS = list(read_apis())


def test_the_read_apis_are_found() -> None:
    names = {n.rsplit(".", 1)[1] for n, _ in APIS}
    assert {"support", "lineage", "dependents", "impact", "packet", "recall", "assess", "verify"} <= names, names


@pytest.mark.parametrize("name, fn", APIS, ids=[n for n, _ in APIS])
def test_nothing_of_tenant_b_reaches_a_read_for_tenant_a(store: MemoryStore, name: str, fn: Callable[..., Any]) -> None:
    args, kwargs, missing = [], {"tenant": A}, []
    for p in inspect.signature(fn).parameters.values():
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
    text = _text(fn(*args, **kwargs))
    assert SECRET not in text, f"{name} for tenant A shows tenant B's data: {text[:2000]}"
    assert B not in text, f"{name} for tenant A names tenant B's graph"


def test_tenant_b_sees_its_own_data(store: MemoryStore) -> None:
    """The fixture really gives B something to leak: B's reads find it."""
    from memkg import support

    assert SECRET in _text(support(store, EX + "c", tenant=B))


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


@pytest.mark.parametrize("tool", _mcp_read_tools())
def test_nothing_of_tenant_b_reaches_an_mcp_read_tool_for_tenant_a(store: MemoryStore, tool: str) -> None:
    """The tool list the MCP server serves, called through the served functions (no transport)."""
    from datetime import datetime, timezone

    from pyoxigraph import NamedNode

    from memkg.adapters.agent_tools import server
    from memkg.adapters.agent_tools.tools import MemoryTools
    from memkg.guard.access import Grant

    served = server._ServedTools(MemoryTools(store))
    fn = getattr(served, tool)
    kwargs: dict[str, Any] = {"tenant": A}
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.name in ("tenant",) or p.default is not inspect.Parameter.empty:
            continue
        assert p.name in TOOL_ARGUMENTS, f"MCP tool {tool}: add a value for {p.name!r} to TOOL_ARGUMENTS"
        value = TOOL_ARGUMENTS[p.name]
        kwargs[p.name] = datetime.now(timezone.utc) if value == "now" else value
    grant = Grant(tenants=frozenset({NamedNode(A)}), write=False)
    text = json.dumps(fn(grant, **kwargs), default=str)
    assert SECRET not in text and B not in text, f"MCP tool {tool} for tenant A shows tenant B's data: {text[:2000]}"
