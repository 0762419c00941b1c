"""A claim's versions: one chain, each version with its own source, and nothing written for no change.

Through the Python API (:meth:`MemoryStore.supersede`, :func:`memkg.revision`), a file and a
SPARQL update; the command line and the agent tools have their own tests beside them.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pyoxigraph import Literal, NamedNode

from memkg import Claim, MemoryStore, ValidationError, revision
from memkg.core.vocab import mem, prov, rdf
from memkg.guard.access import OPEN
from memkg.history import timeline
from memkg.history.updates import apply_update
from memkg.provenance import lineage
from tests.support.examples import EX, LIA, LIA_GRAPH, data_quads

C0, NAME0, NAME1 = NamedNode(EX + "c0"), NamedNode(EX + "cName0"), NamedNode(EX + "cName1")
MARCH = datetime(2026, 3, 1, tzinfo=timezone.utc)


@pytest.fixture
def store() -> MemoryStore:
    s = MemoryStore(validation="native")
    s.load(LIA)
    return s


def _supersede(store: MemoryStore, claim: NamedNode, **changes: object):  # type: ignore[no-untyped-def]
    old, graph = store.get_claim(claim)
    return store.supersede(claim, revision(old, **changes), graph=graph)


# -- one chain ------------------------------------------------------------------------------------


def test_superseding_a_version_already_superseded_is_refused_naming_the_current_one(store: MemoryStore) -> None:
    newest = _supersede(store, NAME1, object="Amy").claim  # cName0 -> cName1 -> newest
    before = data_quads(store)
    with pytest.raises(ValidationError) as info:
        _supersede(store, NAME0, object="Lili")
    (violation,) = info.value.violations
    assert violation.shape == mem.VersionChainShape and violation.focus == NAME0
    assert violation.value == NAME1  # the successor it already has
    assert f"current version is {newest}" in str(info.value)
    assert f"memkg supersede {newest.value}" in str(info.value)  # how to supersede it
    assert data_quads(store) == before
    assert [r["object"] for r in store.view("current", {"tenant": LIA_GRAPH}) if r["predicate"] == mem.displayName] \
        == [Literal("Amy")]


def test_a_file_or_an_update_giving_a_claim_a_second_successor_is_refused(store: MemoryStore) -> None:
    before = data_quads(store)
    fork = (f"<{EX}cName2> a <{mem.Claim.value}> ; <{rdf.reifies.value}> <<( <{EX}Lia> <{mem.displayName.value}> "
            f"\"Lili\" )>> ; <{mem.assertedBy.value}> <{EX}m0> ; <{mem.supersedes.value}> <{NAME0.value}> .")
    with pytest.raises(ValidationError, match="VersionChainShape"):
        store.load_data("VERSION \"1.2\"\n" + fork, format="turtle", graph=LIA_GRAPH)
    with pytest.raises(ValidationError, match="VersionChainShape"):
        apply_update(store, f"VERSION \"1.2\"\nINSERT DATA {{ GRAPH <{LIA_GRAPH}> {{ {fork} }} }}", grant=OPEN)
    assert data_quads(store) == before


def test_two_claims_that_disagree_are_recorded_as_a_contradiction_not_two_successors(store: MemoryStore) -> None:
    other = store.add(Claim(subject=EX + "Lia", predicate=mem.displayName, object="Lili", asserted_by=EX + "m0",
                            extra=[(mem.contradicts, NAME1)]), graph=LIA_GRAPH)
    pairs = {frozenset((r["claim"], r["other"])) for r in store.view("contradictions", {"tenant": LIA_GRAPH})}
    assert frozenset((other, NAME1)) in pairs
    assert [v.claim for v in timeline.history(store, NAME1)] == [NAME0, NAME1]  # the chain is untouched


# -- a new version's own source -----------------------------------------------------------------


def test_a_new_version_never_inherits_the_source_of_the_one_it_replaces(store: MemoryStore) -> None:
    recorded = _supersede(store, C0, object=NamedNode(EX + "coffee"))
    new = recorded.claim
    assert not list(store.quads(new, mem.assertedBy)) and not list(store.quads(new, mem.supportedBy))
    assert not list(store.quads(new, mem.supportGroup))
    (generated,) = [q.object for q in store.quads(new, prov.wasGeneratedBy)]
    assert generated == recorded.activity and generated != NamedNode(EX + "x0")
    assert {q.object for q in store.quads(generated, rdf.type)} == {mem.Correction}
    assert [q.object for q in store.quads(generated, mem.interface)] == [Literal("api")]
    (agent,) = [q.object for q in store.quads(generated, prov.wasAssociatedWith)]
    assert any(store.quads(agent, rdf.type, mem.Agent))  # a typed vertex, in the claim's graph
    assert [q.object for q in store.quads(generated, mem.recordedAt)] == [q.object for q in
                                                                         store.quads(new, mem.recordedAt)]
    *_, latest = timeline.history(store, new)
    assert (latest.asserted_by, latest.generated_by, latest.agents) == ([], [generated], [agent])
    reached = {link.source for link in lineage(store, new).links}
    assert NamedNode(EX + "m0") not in reached and generated in reached


def test_a_new_version_given_a_source_records_that_source_and_no_correction(store: MemoryStore) -> None:
    recorded = _supersede(store, C0, object=NamedNode(EX + "coffee"), asserted_by=EX + "m40",
                          valid_from=MARCH)
    assert recorded.activity is None
    assert [q.object for q in store.quads(recorded.claim, mem.assertedBy)] == [NamedNode(EX + "m40")]
    assert not list(store.quads(recorded.claim, prov.wasGeneratedBy))


def test_a_correction_names_who_made_it_when_given(store: MemoryStore) -> None:
    old, graph = store.get_claim(C0)
    recorded = store.supersede(C0, revision(old, confidence=0.5), graph=graph, by=EX + "Lia", interface="cli")
    assert [q.object for q in store.quads(recorded.activity, prov.wasAssociatedWith)] == [NamedNode(EX + "Lia")]
    assert [q.object for q in store.quads(recorded.activity, mem.interface)] == [Literal("cli")]


def test_the_world_changing_and_a_mistake_corrected_are_told_apart(store: MemoryStore) -> None:
    changed = _supersede(store, C0, object=NamedNode(EX + "coffee"), valid_from=MARCH)
    assert changed.kind == "change" and "a change in the world" in str(changed)
    corrected = _supersede(store, changed.claim, confidence=0.5)  # same valid time, recorded later
    assert corrected.kind == "correction" and "a correction" in str(corrected)
    assert corrected.to_dict()["kind"] == "correction"


# -- nothing changed, nothing written -----------------------------------------------------------


@pytest.mark.parametrize("changes", [{}, {"object": NamedNode(EX + "teaWithoutSugar"), "confidence": 0.95},
                                     {"asserted_by": EX + "m0", "generated_by": EX + "x0"}],
                         ids=["nothing given", "the same values", "its own source again"])
def test_a_supersede_that_changes_nothing_writes_nothing(store: MemoryStore, changes: dict[str, object]) -> None:
    before = data_quads(store)
    recorded = _supersede(store, C0, **changes)
    assert (recorded.kind, recorded.written, recorded.claim) == ("unchanged", False, C0)
    assert "nothing was written" in str(recorded)
    assert data_quads(store) == before
