"""correct_claim: the agent tools keep a claim's versions one chain, each with its own source."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from memkg import ValidationError
from memkg.adapters.agent_tools import MemoryTools
from memkg.adapters.agent_tools.tools import refusal
from memkg.core.vocab import mem, prov
from tests.adapters.agent_tools.conftest import LIA_WRITER
from tests.support.examples import EX, data_quads


def test_correcting_a_superseded_version_is_refused_naming_the_current_one(lia_tools: MemoryTools) -> None:
    before = data_quads(lia_tools.store)
    with pytest.raises(ValidationError) as info:
        lia_tools.correct(LIA_WRITER, claim=EX + "cName0", object_value="Lili")
    said = str(refusal(info.value))  # what the agent reads
    assert "VersionChainShape" in said and f"current version is <{EX}cName1>" in said and "contradiction" in said
    assert data_quads(lia_tools.store) == before


def test_a_correction_records_its_own_source_and_says_which_kind_it_is(lia_tools: MemoryTools) -> None:
    answer = lia_tools.correct(LIA_WRITER, claim=EX + "c0", confidence=0.5)
    assert (answer["kind"], answer["written"], answer["supersedes"]) == ("correction", True, EX + "c0")
    new = NamedNode(answer["claim"])
    assert not list(lia_tools.store.quads(new, mem.assertedBy))
    assert [q.object.value for q in lia_tools.store.quads(new, prov.wasGeneratedBy)] == [answer["activity"]]
    assert [q.object.value for q in lia_tools.store.quads(NamedNode(answer["activity"]), mem.interface)] == ["mcp"]


def test_a_correction_that_changes_nothing_writes_nothing(lia_tools: MemoryTools) -> None:
    before = data_quads(lia_tools.store)
    answer = lia_tools.correct(LIA_WRITER, claim=EX + "c0", object_iri=EX + "teaWithoutSugar")
    assert (answer["kind"], answer["written"], answer["claim"]) == ("unchanged", False, EX + "c0")
    assert data_quads(lia_tools.store) == before
