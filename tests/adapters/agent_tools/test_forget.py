"""forget: the agent tools withdraw or erase a source; an erasure's dry run shows what it would remove."""

from __future__ import annotations

import pytest

from memkg import provenance
from memkg.adapters.agent_tools import MemoryTools
from memkg.adapters.agent_tools.tools import refusal
from tests.adapters.agent_tools.conftest import LIA_WRITER
from tests.support.examples import EX, LIA_GRAPH, data_quads


def test_an_erasure_s_dry_run_is_the_erasure_plan_and_writes_nothing(lia_tools: MemoryTools) -> None:
    before = data_quads(lia_tools.store)
    previewed = lia_tools.forget(LIA_WRITER, target=EX + "m52", erase=True, dry_run=True)
    assert data_quads(lia_tools.store) == before
    plan = provenance.erasure_plan(lia_tools.store, EX + "m52", graph=LIA_GRAPH)
    assert previewed == {"erased": False, "dryRun": True, **plan.to_dict()}
    assert previewed["claims"], "the story's m52 takes claims with it"


def test_the_erasure_then_removes_what_its_dry_run_listed(lia_tools: MemoryTools) -> None:
    previewed = lia_tools.forget(LIA_WRITER, target=EX + "m52", erase=True, dry_run=True)
    done = lia_tools.forget(LIA_WRITER, target=EX + "m52", erase=True, reason="consent revoked")
    for key in ("source", "graph", "removed", "claims", "kept", "quadsRemoved"):
        assert done[key] == previewed[key], key


def test_a_dry_run_without_erase_is_refused_and_writes_nothing(lia_tools: MemoryTools) -> None:
    before = data_quads(lia_tools.store)
    with pytest.raises(Exception) as info:
        lia_tools.forget(LIA_WRITER, target=EX + "m52", dry_run=True, reason="a preview")
    assert "dry_run previews an erasure" in str(refusal(info.value))
    assert data_quads(lia_tools.store) == before


def test_a_dry_run_of_an_unknown_source_names_it_and_the_scope(lia_tools: MemoryTools) -> None:
    with pytest.raises(Exception) as info:
        lia_tools.forget(LIA_WRITER, target=EX + "m99", erase=True, dry_run=True)
    said = str(refusal(info.value))
    assert f"{EX}m99 is in no graph of the scope" in said and LIA_GRAPH in said
