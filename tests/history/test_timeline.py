"""History with blame, diff between transaction times, and bisect, on the tea story."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore, NotFoundError, ParseError
from memkg.history import timeline

from tests.support.examples import EX, EXAMPLES, LIA_GRAPH

UTC = timezone.utc


def test_history_lists_versions_oldest_first_with_blame(lia_store: MemoryStore) -> None:
    for start in ("cName0", "cName1"):  # any version gives the whole chain
        versions = timeline.history(lia_store, EX + start)
        assert [v.claim.value for v in versions] == [EX + "cName0", EX + "cName1"]
    old, new = timeline.history(lia_store, EX + "cName1")
    assert (old.object.value, new.object.value) == ("Lia", "Amelia")
    assert new.asserted_by == [NamedNode(EX + "m40")]
    assert new.attributed_to == [NamedNode(EX + "Lia")]
    assert new.generated_by == [NamedNode(EX + "x40")]
    assert new.agents == [NamedNode(EX + "extractor")]


def test_blame_names_only_the_agents_of_the_versions_own_activity(lia_store: MemoryStore) -> None:
    # another extraction in the same tenant, by another agent, that did not produce cName1
    lia_store.load_data("""
PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX ex: <https://example.org/lia/>
GRAPH <https://example.org/tenants/lia> {
  ex:importer a mem:Extractor ; mem:displayName "CRM importer" .
  ex:x99 a mem:Extraction ; prov:used ex:m40 ; prov:wasAssociatedWith ex:importer .
}""", format="trig")
    old, new = timeline.history(lia_store, EX + "cName1", tenant="https://example.org/tenants/lia")
    assert new.generated_by == [NamedNode(EX + "x40")]
    assert new.agents == [NamedNode(EX + "extractor")]
    assert new.to_dict()["agents"] == [EX + "extractor"]
    assert new.to_dict()["claim"] == EX + "cName1"


def test_history_of_an_unknown_claim_is_not_found(lia_store: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        timeline.history(lia_store, EX + "nope")


def test_diff_between_two_transaction_times(lia_store: MemoryStore) -> None:
    change = timeline.diff(lia_store, datetime(2026, 1, 2, tzinfo=UTC), datetime(2026, 2, 23, tzinfo=UTC))
    assert [r[0].value for r in change.added] == [EX + c for c in ("c1", "c2", "cName1", "idc1")]
    assert [r[0].value for r in change.removed] == [EX + "cName0"]
    assert timeline.diff(lia_store, datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC)) == \
        timeline.Diff([], [])


def test_bisect_finds_when_the_answer_flipped(lia_store: MemoryStore) -> None:
    found = timeline.bisect(lia_store, f'ASK {{ <{EX}Lia> mem:displayName "Amelia" }}')
    assert found.first == datetime(2026, 2, 10, 10, 15, 5, tzinfo=UTC)
    assert (found.before, found.after) == (False, True)
    assert found.flips == (timeline.Flip(found.first, True),) and found.complete
    # "Lia" was unknown at the first transaction time (the message came before the claim), known
    # for a while, then superseded: false at both ends, yet it flipped twice; both flips are found.
    twice = timeline.bisect(lia_store, f'ASK {{ <{EX}Lia> mem:displayName "Lia" }}')
    assert (twice.before, twice.after) == (False, False)
    assert twice.flips == (timeline.Flip(datetime(2026, 1, 1, 9, tzinfo=UTC), True),
                           timeline.Flip(datetime(2026, 2, 10, 10, 15, 5, tzinfo=UTC), False))
    assert twice.complete and twice.steps == twice.times
    never = timeline.bisect(lia_store, f"ASK {{ <{EX}Lia> <{EX}hates> ?x }}")
    assert never.first is None and never.before is False and never.complete


def test_bisect_never_says_never_when_it_did_not_ask_everywhere(lia_store: MemoryStore) -> None:
    """With fewer questions than times, a flip and a flip back between two sampled times
    can go unseen: the answer says it is not complete instead of "never flips"."""
    ask = f'ASK {{ <{EX}Lia> mem:displayName "Lia" }}'
    sampled = timeline.bisect(lia_store, ask, max_questions=2)
    assert not sampled.complete and sampled.flips == () and sampled.steps == 2
    assert timeline.bisect(lia_store, ask, max_questions=sampled.times).complete


def test_bisect_sees_validity_ending_without_a_new_record(lia_store: MemoryStore) -> None:
    """Current knowledge also changes when a claim's validity starts or ends: those times count."""
    times = timeline.change_times(lia_store)
    assert set(timeline.transaction_times(lia_store)) <= set(times)
    assert datetime(2026, 1, 1, tzinfo=UTC) in times  # cName0's validFrom, recorded at 09:00


def test_bisect_after_a_supersession_back_finds_both_flips(tmp_path) -> None:
    """The README's story: "Amelia" from 10 February, then superseded by "Amy"."""
    from memkg.adapters.cli import main

    store = str(tmp_path / "s")
    assert main(["--store", store, "load", str(EXAMPLES / "lia-tea.trig")]) == 0
    assert main(["--store", store, "supersede", EX + "cName1", "--object", '"Amy"']) == 0
    with MemoryStore(store) as opened:
        found = timeline.bisect(opened, f'ASK {{ <{EX}Lia> mem:displayName "Amelia" }}')
    assert [f.answer for f in found.flips] == [True, False] and found.complete


def test_bisect_with_few_questions_still_narrows_a_flip_down_to_its_time(lia_store: MemoryStore) -> None:
    # Two questions, at the first and the last time, disagree: the flip between them is bisected.
    ask = f'ASK {{ <{EX}Lia> mem:displayName "Amelia" }}'
    sampled = timeline.bisect(lia_store, ask, max_questions=2)
    assert not sampled.complete and sampled.steps > 2
    assert sampled.flips == (timeline.Flip(datetime(2026, 2, 10, 10, 15, 5, tzinfo=UTC), True),)


def test_bisect_over_a_store_without_times_says_there_is_nothing_to_bisect() -> None:
    with pytest.raises(NotFoundError) as info:
        timeline.bisect(MemoryStore(), "ASK { ?s ?p ?o }")
    assert str(info.value) == ("the store records no times (mem:recordedAt, mem:validFrom, mem:validUntil): "
                               "nothing to bisect")


def test_what_was_known_at_a_time_can_be_asked_of_one_tenant(lia_store: MemoryStore) -> None:
    other = "https://example.org/tenants/other"
    lia_store.load_data(f"""PREFIX mem: <https://w3id.org/memkg#> PREFIX ex: <{EX}>
        PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
        ex:Bob a mem:Person . ex:tea a mem:Entity . ex:likes a rdf:Property . ex:mb a mem:Message ; mem:content "tea" .
        ex:cBob a mem:Claim ; rdf:reifies <<( ex:Bob ex:likes ex:tea )>> ; mem:assertedBy ex:mb ;
            mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime .""", format="turtle", graph=other)
    t = datetime(2026, 3, 1, tzinfo=UTC)
    everywhere = timeline.known_at(lia_store, t)
    lia = timeline.known_at(lia_store, t, tenant=LIA_GRAPH)
    assert NamedNode(EX + "cName1") in {row[0] for row in lia} and NamedNode(EX + "cBob") not in {row[0] for row in lia}
    assert everywhere - lia == {row for row in everywhere if row[0] == NamedNode(EX + "cBob")} != set()
    assert timeline.known_at(lia_store, t, tenant=NamedNode(LIA_GRAPH)) == lia
    with pytest.raises(NotFoundError, match="no graph named"):
        timeline.known_at(lia_store, t, tenant="https://example.org/tenants/nobody")


def test_bisect_needs_an_ask_query(lia_store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="ASK"):
        timeline.bisect(lia_store, "SELECT * WHERE { ?s ?p ?o }")
    with pytest.raises(ParseError):
        timeline.bisect(lia_store, "ASK { oops")


def test_a_tenant_is_named_the_same_way_everywhere() -> None:
    """``tenant`` takes a full IRI as text or as a node, as in provenance and views; a bare
    token is refused rather than read as another graph (memkg.core.terms.tenant_iri)."""
    from memkg.adapters import pictures

    store = MemoryStore()
    store.load(EXAMPLES / "postgres-migration.trig")
    tenant, claim = "https://example.org/tenants/acme", "https://example.org/acme/cMigration"
    as_text = timeline.history(store, claim, tenant=tenant)
    assert as_text and timeline.history(store, claim, tenant=NamedNode(tenant)) == as_text
    assert timeline.change_times(store, tenant=NamedNode(tenant)) == timeline.change_times(store, tenant=tenant)
    assert pictures.picture(store, "support", claim, tenant=NamedNode(tenant)).to_dict() == \
        pictures.picture(store, "support", claim, tenant=tenant).to_dict()
    with pytest.raises(ValueError, match="tenant must be a full IRI, got 'acme'"):
        timeline.history(store, claim, tenant="acme")
    with pytest.raises(NotFoundError, match="no graph named <https://example.org/tenants/other>"):
        pictures.picture(store, "support", claim, tenant=NamedNode("https://example.org/tenants/other"))
