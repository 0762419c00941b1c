"""correct_claim: the agent tools keep a claim's versions one chain, each with its own source."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore, ValidationError
from memkg.adapters.agent_tools import MemoryTools
from memkg.adapters.agent_tools.tools import refusal
from memkg.core.vocab import mem, prov
from memkg.guard.access import Grant
from tests.support.examples import EX, LIA, LIA_GRAPH, data_quads

GRANT = Grant(frozenset({NamedNode(LIA_GRAPH)}), write=True)


@pytest.fixture
def tools() -> MemoryTools:
    store = MemoryStore()
    store.load(LIA)
    return MemoryTools(store)


def test_correcting_a_superseded_version_is_refused_naming_the_current_one(tools: MemoryTools) -> None:
    before = data_quads(tools.store)
    with pytest.raises(ValidationError) as info:
        tools.correct(GRANT, claim=EX + "cName0", object_value="Lili")
    said = str(refusal(info.value))  # what the agent reads
    assert "VersionChainShape" in said and f"current version is <{EX}cName1>" in said and "contradiction" in said
    assert data_quads(tools.store) == before


def test_a_correction_records_its_own_source_and_says_which_kind_it_is(tools: MemoryTools) -> None:
    answer = tools.correct(GRANT, claim=EX + "c0", confidence=0.5)
    assert (answer["kind"], answer["written"], answer["supersedes"]) == ("correction", True, EX + "c0")
    new = NamedNode(answer["claim"])
    assert not list(tools.store.quads(new, mem.assertedBy))
    assert [q.object.value for q in tools.store.quads(new, prov.wasGeneratedBy)] == [answer["activity"]]
    assert [q.object.value for q in tools.store.quads(NamedNode(answer["activity"]), mem.interface)] == ["mcp"]


def test_a_correction_that_changes_nothing_writes_nothing(tools: MemoryTools) -> None:
    before = data_quads(tools.store)
    answer = tools.correct(GRANT, claim=EX + "c0", object_iri=EX + "teaWithoutSugar")
    assert (answer["kind"], answer["written"], answer["claim"]) == ("unchanged", False, EX + "c0")
    assert data_quads(tools.store) == before
