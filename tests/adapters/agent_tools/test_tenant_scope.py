"""Tenant scope on every read path, generated from the code.

Two tenants share IRIs (the same person, drink, predicate and message IRIs) and tenant B's
claim links to the names A uses. Every read of the agent tools (each public method of
:class:`MemoryTools` with a ``tenant`` that does not write) is called for tenant A, and
nothing of tenant B may appear: not its tenant IRI, its claim, or its marker text.
"""

from __future__ import annotations

import importlib
import inspect
import json
import typing
from datetime import UTC, datetime
from typing import Any

import pytest

from memkg import MemoryStore
from memkg.core.errors import NotFoundError
from memkg.adapters.agent_tools.tools import MemoryTools, ToolRefusal
from memkg.guard.access import OPEN

A, B = "https://example.org/tenants/a", "https://example.org/tenants/b"
PERSON, TEA, PREFERS, MESSAGE = "urn:x:lia", "urn:x:tea", "urn:x:prefers", "urn:x:m1"
MARKER = "zanzibar"  # a word only tenant B's memory holds


def _seed(tools: MemoryTools, tenant: str, words: str) -> str:
    tools.remember_entity(OPEN, id=PERSON, kind="Person", name="Lia", tenant=tenant)
    tools.remember_entity(OPEN, id=TEA, kind="Entity", name=f"tea {words}", tenant=tenant)
    tools.remember_entity(OPEN, id=PREFERS, kind="Predicate", name="prefers", tenant=tenant)
    message = tools.remember_message(OPEN, content=f"Lia: I prefer tea {words}", event_id="e1", sender=PERSON,
                                     tenant=tenant)["message"]
    return tools.remember_claim(OPEN, subject=PERSON, predicate=PREFERS, object_iri=TEA, asserted_by=message,
                                confidence=0.9, tenant=tenant)["claim"]


@pytest.fixture(scope="module")
def two_tenants() -> tuple[MemoryTools, str, str]:
    # Without write validation, so B may name A's claim (tenant isolation would refuse it):
    # a read must keep to its tenant whatever the data holds.
    tools = MemoryTools(MemoryStore(validation=None))
    claim_a = _seed(tools, A, "green")
    claim_b = _seed(tools, B, MARKER)
    # B names A's claim: evidence against it, recorded in B only.
    tools.store.load_data(f"""PREFIX mem: <https://w3id.org/memkg#>
        GRAPH <{B}> {{ <urn:x:{MARKER}-probe> a mem:Message ; mem:content "tea {MARKER}" ; mem:refutes <{claim_a}> . }}""",
                          format="trig")
    return tools, claim_a, claim_b


def _is_read(method: Any) -> bool:
    return "tenant" in inspect.signature(method).parameters and "self._writing(" not in inspect.getsource(method)


READS = sorted(name for name, m in inspect.getmembers(MemoryTools, inspect.isfunction)
               if not name.startswith("_") and _is_read(m))


def test_the_reads_are_found() -> None:
    assert {"recall", "explain", "claims"} <= set(READS)


def _calls(name: str, claim_a: str, claim_b: str) -> list[dict[str, Any]]:
    """Every way to call read ``name`` worth trying: each value of a literal choice, each claim."""
    now = datetime.now(UTC)
    choices: list[dict[str, Any]] = [{}]
    hints = typing.get_type_hints(getattr(MemoryTools, name), include_extras=True)
    for p in list(inspect.signature(getattr(MemoryTools, name)).parameters.values())[2:]:
        if p.name == "tenant":
            continue
        options: list[Any]
        if p.name == "query":
            options = ["Lia prefers tea"]
        elif p.name == "claim":
            options = [claim_a, claim_b]
        elif p.name == "subject":
            options = [PERSON, None]
        elif p.name in ("valid_at", "known_at"):
            options = [now, None]
        elif typing.get_origin(hints[p.name]) is typing.Literal or "Literal" in repr(hints[p.name]):
            options = list(typing.get_args(typing.get_args(hints[p.name])[0]) or typing.get_args(hints[p.name]))
        elif p.default is not inspect.Parameter.empty:
            continue
        else:
            raise AssertionError(f"read {name}: no value known for its parameter {p.name!r}; add one here")
        choices = [{**c, p.name: o} for c in choices for o in options]
    return choices


@pytest.mark.parametrize("name", READS)
def test_no_read_for_tenant_a_shows_anything_of_tenant_b(two_tenants, name: str) -> None:
    tools, claim_a, claim_b = two_tenants
    answered = 0
    for kwargs in _calls(name, claim_a, claim_b):
        try:
            out = getattr(tools, name)(OPEN, **kwargs, tenant=A)
            answered += 1
        except (ToolRefusal, NotFoundError) as err:  # B's claim is not in A: the refusal must not describe it
            out = str(err)
        except ValueError as err:  # a combination the read refuses (a view without that parameter)
            assert "parameter" in str(err), (name, kwargs, err)
            continue
        text = json.dumps(out, default=str)
        for leak in (B, claim_b, MARKER):
            if leak == claim_b and kwargs.get("claim") == claim_b:
                text = text.replace(claim_b, "")  # naming the IRI asked about is no leak
            assert leak not in text, (name, kwargs, leak)
    assert answered, f"{name}: no call answered"


# -- the library: every public function of the read packages taking a store and a tenant

_PACKAGES = ("memkg.provenance", "memkg.recall", "memkg.history", "memkg.tags")


def _library_reads() -> list[tuple[str, str]]:
    found = []
    for package in _PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            f = getattr(module, name)
            params = list(inspect.signature(f).parameters) if inspect.isfunction(f) else []
            if params[:1] == ["store"] and "tenant" in params and name not in _WRITES:
                found.append((package, name))
    return found


_WRITES = {"erase", "withdraw", "retract", "tag", "propose_echoes"}  # propose_echoes: its proposals, see below
LIBRARY_READS = _library_reads()


def test_the_library_reads_are_found() -> None:
    assert {("memkg.provenance", "support"), ("memkg.provenance", "lineage"), ("memkg.recall", "recall")} <= set(LIBRARY_READS)


@pytest.mark.parametrize(("package", "name"), LIBRARY_READS)
def test_no_library_read_for_tenant_a_shows_anything_of_tenant_b(two_tenants, package: str, name: str) -> None:
    tools, claim_a, claim_b = two_tenants
    f = getattr(importlib.import_module(package), name)
    params = inspect.signature(f).parameters
    values = {"claim": [claim_a], "source": [MESSAGE, PERSON], "sources": [[MESSAGE]], "query": ["Lia prefers tea"]}
    choices: list[dict[str, Any]] = [{}]
    for p in list(params.values())[1:]:
        if p.name == "tenant" or (p.default is not inspect.Parameter.empty and p.name not in values):
            continue
        if p.name not in values:
            raise AssertionError(f"{package}.{name}: no value known for its parameter {p.name!r}; add one here")
        choices = [{**c, p.name: o} for c in choices for o in values[p.name]]
    for kwargs in choices:
        spread = [p.name for p in params.values() if p.kind is inspect.Parameter.VAR_POSITIONAL]
        args = [v for n in spread for v in kwargs.pop(n)]  # impact(store, *sources)
        try:
            out = f(tools.store, *args, **kwargs, tenant=A)
            text = json.dumps(out.to_dict() if hasattr(out, "to_dict") else out, default=repr)
        except NotFoundError as err:  # an IRI tenant A does not hold: the error names A's nearest only
            text = str(err)
        for leak in (B, claim_b, MARKER):
            assert leak not in text, (name, kwargs, leak)
