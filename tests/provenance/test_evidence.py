"""Corroboration without double counting, backward verification, evidence packets (memkg.provenance.evidence)."""

from __future__ import annotations

import json

import pytest
from pyoxigraph import NamedNode, RdfFormat, Triple, parse

from memkg import MemoryStore
from memkg.provenance import evidence as E
from memkg import provenance as P

from tests.support.examples import EXAMPLES

ACME = EXAMPLES / "postgres-migration.trig"
T = "https://example.org/tenants/acme"
EX = "https://example.org/acme/"
HEAD = f"""PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX ex: <{EX}>
"""


def n(name: str) -> NamedNode:
    return NamedNode(EX + name)


def names(nodes) -> set[str]:
    return {x.value.removeprefix(EX) for x in nodes}


@pytest.fixture
def acme() -> MemoryStore:
    store = MemoryStore()
    store.load(ACME)
    return store


def load(body: str) -> MemoryStore:
    store = MemoryStore()
    store.load_data(
        HEAD + f"GRAPH <{T}> {{ ex:p a rdf:Property . ex:x a mem:Entity . {body} }}", format="trig"
    )
    return store


# -- corroboration -----------------------------------------------------------------------


def test_two_summaries_of_one_message_are_one_piece_of_evidence() -> None:
    store = load("""
      ex:m a mem:Message ; mem:sourceReliability 0.8 .
      ex:s1 a mem:Message ; prov:wasDerivedFrom ex:m ; mem:sourceReliability 0.8 .
      ex:s2 a mem:Message ; prov:wasDerivedFrom ex:m ; mem:sourceReliability 0.8 .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:s1 , ex:s2 .
    """)
    a = E.assess(store, EX + "c", tenant=T)
    assert a.independent == 1
    assert a.evidence == pytest.approx(0.8)  # not 1 - 0.2 * 0.2
    assert n("m") in a.clusters[0].shared


def test_independent_sources_corroborate() -> None:
    store = load("""
      ex:m1 a mem:Message ; mem:sourceReliability 0.8 .
      ex:m2 a mem:Message ; mem:sourceReliability 0.8 .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:m1 , ex:m2 .
    """)
    a = E.assess(store, EX + "c", tenant=T)
    assert a.independent == 2
    assert a.evidence == pytest.approx(1 - 0.2 * 0.2)


def test_shared_ancestry_through_supporting_claims_is_detected() -> None:
    store = load("""
      ex:m a mem:Message ; mem:sourceReliability 0.7 .
      ex:a a mem:Claim ; rdf:reifies <<( ex:x ex:p "a" )>> ; mem:supportedBy ex:m .
      ex:b a mem:Claim ; rdf:reifies <<( ex:x ex:p "b" )>> ; mem:supportedBy ex:m .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:a , ex:b .
    """)
    a = E.assess(store, EX + "c", tenant=T)
    assert a.independent == 1 and a.evidence == pytest.approx(0.7)


def test_quantities_are_kept_apart(acme: MemoryStore) -> None:
    a = E.assess(acme, EX + "cThroughput", tenant=T)
    assert (a.confidence, a.extraction_confidence, a.evidence) == (0.8, 0.9, 0.8)
    assert a.reliabilities == {n("benchmark"): 0.8}
    assert a.utility is None
    # The agent's confidence never feeds the evidence: a claim with the same support and another
    # confidence gets the same evidence.
    store = load("""
      ex:m a mem:Message ; mem:sourceReliability 0.6 .
      ex:low a mem:Claim ; rdf:reifies <<( ex:x ex:p "l" )>> ; mem:confidence 0.1 ; mem:supportedBy ex:m .
      ex:high a mem:Claim ; rdf:reifies <<( ex:x ex:p "h" )>> ; mem:confidence 0.99 ; mem:supportedBy ex:m .
    """)
    low, high = E.assess(store, EX + "low", tenant=T), E.assess(store, EX + "high", tenant=T)
    assert low.evidence == high.evidence == pytest.approx(0.6)
    assert (low.confidence, high.confidence) == (0.1, 0.99)


def test_echoes_count_once_and_are_worth_what_they_echo(acme: MemoryStore) -> None:
    a = E.assess(acme, EX + "cCutover", tenant=T)
    assert a.independent == 1  # runbook and wiki page both restate ADR-017
    assert a.evidence == pytest.approx(0.9)  # ADR-017's reliability
    assert a.assumed == ()


def test_withdrawn_support_does_not_count(acme: MemoryStore) -> None:
    assert len(E.assess(acme, EX + "cMigration", tenant=T).clusters[0].alternatives) == 2
    P.withdraw(acme, EX + "benchmark", reason="misconfigured host", graph=T)
    a = E.assess(acme, EX + "cMigration", tenant=T)
    assert [g.node for c in a.clusters for g in c.alternatives] == [n("gRerun")]
    assert a.evidence == pytest.approx(0.9 * 0.9 * 0.85)
    assert E.assess(acme, EX + "cThroughput", tenant=T).evidence is None


def test_unknown_reliability_is_assumed_and_said() -> None:
    store = load("""
      ex:m a mem:Message .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:m .
    """)
    a = E.assess(store, EX + "c", tenant=T, default_reliability=0.3)
    assert a.evidence == pytest.approx(0.3) and a.assumed == (n("m"),)


# -- backward verification ---------------------------------------------------------------


def test_the_invented_figure_is_localised_to_the_summary_stage(acme: MemoryStore) -> None:
    v = E.verify(acme, EX + "answer", tenant=T)
    verdicts = {s.node.value.removeprefix(EX): s.verdict for s in v.stages}
    # source -> extraction -> relation: supported
    assert verdicts["benchmark"] == verdicts["xBench"] == verdicts["cThroughput"] == "supported"
    # the summary's honest part is supported, its invented figure is not
    assert verdicts["cSumThroughput"] == "supported"
    assert verdicts["cWriteLoss"] == "not supported"
    assert verdicts["summary"] == "not supported"
    assert verdicts["answer"] == verdicts["cAnswerLoss"] == "not supported"
    assert verdicts["cAnswerThroughput"] == "supported"
    assert v.verdict == "not supported"
    assert v.entered_at == (n("cWriteLoss"),)
    assert v.stage(EX + "cWriteLoss").kind == "claim"
    assert (n("cWriteLoss"), ) == tuple(
        s.node for s in v.stages if s.node in v.stage(EX + "summary").depends_on
    )
    assert v.stage(EX + "summary").kind == "document" and v.stage(EX + "xBench").kind == "extraction"


def test_a_supported_chain_verifies(acme: MemoryStore) -> None:
    v = E.verify(acme, EX + "cAnswerThroughput", tenant=T)
    assert v.verdict == "supported" and v.entered_at == ()
    for stage in ("cSumThroughput", "cThroughput", "benchmark"):
        assert v.stage(EX + stage).verdict == "supported"
    # The answer it was asserted in carries the invented figure: shown as context, but the
    # throughput claim does not rest on it.
    assert v.stage(EX + "answer").verdict == "not supported"


def test_a_withdrawn_source_is_where_unsupported_content_entered(acme: MemoryStore) -> None:
    P.withdraw(acme, EX + "benchmark", reason="misconfigured host", graph=T)
    v = E.verify(acme, EX + "cAnswerThroughput", tenant=T)
    assert v.verdict == "not supported"
    assert v.first == n("benchmark")
    assert v.stage(EX + "benchmark").reason.startswith("withdrawn by")


def test_refuted_support_is_inconclusive_and_open_ends_too() -> None:
    store = load("""
      ex:m a mem:Message . ex:n a mem:Message ; mem:refutes ex:c .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:m .
      ex:d a mem:Claim ; rdf:reifies <<( ex:x ex:p "d" )>> ; mem:supportedBy ex:ghost .
    """)
    c = E.verify(store, EX + "c", tenant=T)
    assert c.verdict == "inconclusive" and "refuted" in c.stage(EX + "c").reason
    d = E.verify(store, EX + "d", tenant=T)
    assert d.verdict == "inconclusive" and d.stage(EX + "ghost").kind == "unknown"


# -- evidence packets ------------------------------------------------------------------


def test_packet_holds_mandatory_provenance_and_says_why(acme: MemoryStore) -> None:
    p = E.packet(acme, [EX + "cSelection"], tenant=T, max_vertices=20, max_hops=3)
    assert p.complete and p.omitted == ()
    roles = {i.node.value.removeprefix(EX): (i.role, i.hop) for i in p.items}
    assert roles["cSelection"] == ("seed", 0)
    assert roles["cMigration"] == ("support", 1)
    assert {k for k, (role, hop) in roles.items() if role == "support" and hop == 2} == {
        "benchmark", "incident", "adr", "rerun",
    }
    assert roles["samNote"] == ("refutation", 2)  # evidence against the claim it rests on
    migration = p.item(EX + "cMigration")
    assert migration.status == "supported" and migration.refuted_by == (n("samNote"),)
    assert migration.via == ((n("cSelection"), "mem:supportedBy"),)
    assert {g for g, _ in migration.groups} == {n("gBench"), n("gRerun")}


def test_packet_says_when_the_budget_cannot_hold_the_mandatory_evidence(acme: MemoryStore) -> None:
    p = E.packet(acme, [EX + "cSelection"], tenant=T, max_vertices=3, max_hops=3)
    assert not p.complete
    assert len(p.items) == 3
    omitted = {x.value.removeprefix(EX) for x, _role, _why in p.omitted}
    assert omitted and omitted.isdisjoint(names(p.nodes()))
    assert all("budget" in why for _x, _role, why in p.omitted)
    hops = E.packet(acme, [EX + "cSelection"], tenant=T, max_vertices=50, max_hops=1)
    assert not hops.complete and {why for _x, _r, why in hops.omitted} == {"needs 2 hops, budget 1"}
    with pytest.raises(E.BudgetError) as err:
        E.packet(acme, [EX + "cSelection"], tenant=T, max_vertices=3, strict=True)
    assert "cannot hold the mandatory evidence" in str(err.value)
    text = p.to_turtle()
    assert "complete: NO" in text and "# omitted mandatory" in text
    assert json.loads(p.to_json())["complete"] is False


def test_packet_adds_competing_and_qualifying_claims_with_their_status() -> None:
    store = load("""
      ex:db a rdf:Property , owl:FunctionalProperty . ex:pg a mem:Entity . ex:my a mem:Entity .
      ex:night a mem:Context .
      ex:m a mem:Message . ex:r a mem:Retraction ; mem:retracts ex:old .
      ex:seed a mem:Claim ; rdf:reifies <<( ex:x ex:db ex:pg )>> ; mem:supportedBy ex:m ; mem:supersedes ex:v1 .
      ex:v1 a mem:Claim ; rdf:reifies <<( ex:x ex:db ex:pg )>> ; mem:supportedBy ex:m .
      ex:rival a mem:Claim ; rdf:reifies <<( ex:x ex:db ex:my )>> ; mem:supportedBy ex:m .
      ex:old a mem:Claim ; rdf:reifies <<( ex:x ex:db ex:my )>> ; mem:supportedBy ex:m .
      ex:vs a mem:Claim ; rdf:reifies <<( ex:x ex:p ex:pg )>> ; mem:supportedBy ex:m ; mem:contradicts ex:seed .
      ex:atNight a mem:Claim ; rdf:reifies <<( ex:x ex:db ex:pg )>> ; mem:context ex:night ; mem:supportedBy ex:m .
    """)
    p = E.packet(store, [EX + "seed"], tenant=T, max_vertices=20, max_hops=2)
    got = {i.node.value.removeprefix(EX): (i.role, i.status, i.mandatory) for i in p.items}
    assert got["vs"] == ("competing", "supported", True)
    assert got["rival"] == ("conflicting", "supported", False)
    assert got["old"] == ("conflicting", "retracted", False)
    assert got["v1"] == ("qualifying", "superseded", False)
    assert got["atNight"] == ("qualifying", "supported", False)


def test_packet_serializes_with_identifiers(acme: MemoryStore) -> None:
    p = E.packet(acme, [EX + "cMigration"], tenant=T)
    data = json.loads(p.to_json())
    assert data["seeds"] == [EX + "cMigration"]
    ids = {item["id"] for item in data["items"]}
    assert {EX + "cMigration", EX + "adr", EX + "samNote"} <= ids
    seed = next(i for i in data["items"] if i["id"] == EX + "cMigration")
    assert seed["statement"]["predicate"] == EX + "migratesTo"
    assert {m for g in seed["supportGroups"] for m in g["members"]} >= {EX + "rerun", EX + "benchmark"}
    triples = list(parse(p.to_turtle().encode(), RdfFormat.TURTLE))
    subjects = {t.subject for t in triples}
    assert {n("cMigration"), n("gBench"), n("adr")} <= subjects
    assert any(isinstance(t.object, Triple) for t in triples)  # the claim's triple term survives
    assert not any("memkg/index#" in t.predicate.value for t in triples)


def test_a_summary_of_an_echo_is_not_independent_of_the_message_it_echoes() -> None:
    """SPEC §1, invariant 11: ``mem:echoOf`` adds no independent evidence, however it is reached.

    ``d`` is derived from ``e``, and ``e`` restates ``m1``: a claim supported by ``m1`` and by
    ``d`` has one independent piece of evidence (worth 0.8), not two (1 - 0.2 * 0.2 = 0.96).
    """
    store = load("""
      ex:m1 a mem:Message ; mem:sourceReliability 0.8 .
      ex:e a mem:Message ; mem:echoOf ex:m1 .
      ex:d a mem:Message ; prov:wasDerivedFrom ex:e ; mem:sourceReliability 0.8 .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:m1 , ex:d .
    """)
    a = E.assess(store, EX + "c", tenant=T)
    assert a.independent == 1
    assert a.evidence == pytest.approx(0.8)
    assert n("m1") in a.clusters[0].shared
    # Without the echo the two legs are independent: the test above is about the echo link.
    store = load("""
      ex:m1 a mem:Message ; mem:sourceReliability 0.8 .
      ex:e a mem:Message .
      ex:d a mem:Message ; prov:wasDerivedFrom ex:e ; mem:sourceReliability 0.8 .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:m1 , ex:d .
    """)
    assert E.assess(store, EX + "c", tenant=T).evidence == pytest.approx(1 - 0.2 * 0.2)


def test_a_tie_recorded_in_another_tenant_does_not_merge_this_tenants_evidence() -> None:
    """docs/contract.md section 5: a tenant's assessment reads its graph and the shared ones; another tenant's
    record that ``d`` echoes ``m1`` does not make this tenant's two legs one."""
    store = load("""
      ex:m1 a mem:Message ; mem:sourceReliability 0.8 .
      ex:d a mem:Message ; mem:sourceReliability 0.8 .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportedBy ex:m1 , ex:d .
    """)
    other = "GRAPH <https://example.org/tenants/other> { ex:m1 a mem:Message . ex:d a mem:Message ; mem:echoOf ex:m1 . }"
    store.load_data(HEAD + other, format="trig")
    assert E.assess(store, EX + "c", tenant=T).evidence == pytest.approx(1 - 0.2 * 0.2)
