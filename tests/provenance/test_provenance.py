"""Support, lineage, dependents, withdrawal, echoes and erasure (memkg.provenance).

Most tests run on examples/postgres-migration.trig, whose header explains the
story; the property tests compare the fixpoint with a naive oracle on random
support graphs.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, Message, NotFoundError, ValidationError
from memkg import provenance as P
from memkg.provenance.withdrawal import is_declared
from memkg.validation import validate_files, validate_store
from memkg.core.vocab import mem, prov

from tests.support.examples import EXAMPLES, data_quads

ACME = EXAMPLES / "postgres-migration.trig"
T = "https://example.org/tenants/acme"
EX = "https://example.org/acme/"


def n(name: str) -> NamedNode:
    return NamedNode(EX + name)


def names(nodes) -> set[str]:
    return {x.value.removeprefix(EX) for x in nodes}


@pytest.fixture
def acme() -> MemoryStore:
    store = MemoryStore()
    store.load(ACME)
    return store


def view_claims(store: MemoryStore, name: str, **params: str) -> set[str]:
    return {row["claim"].value.removeprefix(EX) for row in store.view(name, {"tenant": T, **params})}


# -- the example -----------------------------------------------------------------------


def test_example_is_valid() -> None:
    report = validate_files([ACME])
    assert report.conforms, report.to_text()


def test_withdrawing_the_benchmark_breaks_the_throughput_claim_not_the_migration(acme: MemoryStore) -> None:
    fallen = names(P.dependents(acme, EX + "benchmark", tenant=T))
    # The throughput claim rests on the benchmark alone; the claims resting on it fall with it.
    assert fallen == {"cThroughput", "cSumThroughput", "cAnswerThroughput"}
    assert "cMigration" not in fallen  # its rerun group still stands
    assert view_claims(acme, "dependents", source=EX + "benchmark") == {"cThroughput"}  # direct case only


def test_withdrawing_the_rationale_takes_the_migration_and_the_selection(acme: MemoryStore) -> None:
    fallen = names(P.dependents(acme, EX + "adr", tenant=T))
    # Both migration groups need ADR-017; the selection rests on the migration claim;
    # the cutover's two legs are echoes of ADR-017.
    assert fallen == {"cMigration", "cSelection", "cCutover"}
    # The SPARQL template answers the direct case: the selection falls only recursively.
    assert view_claims(acme, "dependents", source=EX + "adr") == {"cMigration", "cCutover"}


def test_withdrawing_only_the_rerun_changes_nothing(acme: MemoryStore) -> None:
    assert P.dependents(acme, EX + "rerun", tenant=T) == []
    assert view_claims(acme, "dependents", source=EX + "rerun") == set()
    effect = P.impact(acme, EX + "rerun", tenant=T)
    assert effect.fallen == ()
    assert names(effect.weakened) == {"cMigration"}  # one of its two groups goes, it stands


def test_the_losing_side_note_supports_nothing_and_refutes_unresolved(acme: MemoryStore) -> None:
    assert P.dependents(acme, EX + "samNote", tenant=T) == []
    s = P.support(acme, EX + "cMigration", tenant=T)
    assert s.refuted_by == (n("samNote"),)
    assert s.status == "supported" and s.stands  # evidence against is recorded, not resolved


def test_support_groups_and_their_standing(acme: MemoryStore) -> None:
    s = P.support(acme, EX + "cMigration", tenant=T)
    assert [(g.node, set(g.members), g.stands) for g in s.groups] == [
        (n("gBench"), {n("benchmark"), n("incident"), n("adr")}, True),
        (n("gRerun"), {n("rerun"), n("incident"), n("adr")}, True),
    ]
    P.withdraw(acme, EX + "benchmark", reason="run on a misconfigured host", graph=T)
    s = P.support(acme, EX + "cMigration", tenant=T)
    assert [(g.node, g.stands, g.failing) for g in s.groups] == [
        (n("gBench"), False, (n("benchmark"),)),
        (n("gRerun"), True, ()),
    ]
    assert s.stands
    assert P.support(acme, EX + "cThroughput", tenant=T).status == "unsupported"


def test_support_view_marks_groups_directly(acme: MemoryStore) -> None:
    P.withdraw(acme, EX + "rerun", reason="wrong dataset", graph=T)
    rows = list(acme.view("support", {"claim": EX + "cMigration", "tenant": T}))
    by_group: dict[str, set[bool]] = {}
    for row in rows:
        by_group.setdefault(row["group"].value.removeprefix(EX), set()).add(row["groupStands"].value == "true")
        if row["member"] == n("rerun"):
            assert row["memberStands"].value == "false"
    assert by_group == {"gBench": {True}, "gRerun": {False}}


def test_support_is_recursive_through_claims(acme: MemoryStore) -> None:
    P.withdraw(acme, EX + "incident", reason="duplicate ticket", graph=T)
    selection = P.support(acme, EX + "cSelection", tenant=T)
    assert selection.status == "unsupported" and not selection.stands
    assert selection.groups[0].failing == (n("cMigration"),)


def test_echoes_rest_on_what_they_echo(acme: MemoryStore) -> None:
    # The wiki page echoes the runbook: withdrawing the runbook takes both legs.
    assert names(P.dependents(acme, EX + "runbook", tenant=T)) == {"cCutover"}
    # Withdrawing the wiki page alone leaves the runbook leg.
    assert P.dependents(acme, EX + "wikiPage", tenant=T) == []
    assert P.minimal_support(acme, EX + "cCutover", tenant=T) == [frozenset({n("adr")})]


def test_minimal_support(acme: MemoryStore) -> None:
    expected = [
        frozenset({n("benchmark"), n("incident"), n("adr")}),
        frozenset({n("incident"), n("adr"), n("rerun")}),
    ]
    assert sorted(P.minimal_support(acme, EX + "cMigration", tenant=T), key=sorted) == sorted(expected, key=sorted)
    assert sorted(P.minimal_support(acme, EX + "cSelection", tenant=T), key=sorted) == sorted(expected, key=sorted)
    full = P.minimal_support(acme, EX + "cSelection", tenant=T, grounds_only=False)
    assert all(n("cMigration") in s for s in full)  # the intermediate claim is needed too
    P.withdraw(acme, EX + "adr", reason="superseded by ADR-019", graph=T)
    assert P.minimal_support(acme, EX + "cSelection", tenant=T) == []


# -- lineage is not support --------------------------------------------------------------


def test_lineage_reaches_sources_with_the_kind_of_each_link(acme: MemoryStore) -> None:
    lin = P.lineage(acme, EX + "cAnswerLoss", tenant=T)
    links = {(x.node.value.removeprefix(EX), x.kind, x.source.value.removeprefix(EX)) for x in lin.links}
    assert ("cAnswerLoss", "support", "cWriteLoss") in links
    assert ("cWriteLoss", "assertion", "summary") in links
    assert ("cWriteLoss", "generation", "xSummary") in links
    assert ("xSummary", "usage", "summary") in links
    assert ("summary", "derivation", "cThroughput") in links
    assert ("cThroughput", "support", "benchmark") in links
    assert names(lin.grounds) == {"benchmark", "incident"}
    assert lin.open_ends == ()
    assert not any(x.is_support for x in lin.links if x.kind in ("derivation", "assertion", "generation", "echo"))


def test_lineage_reports_echoes_groups_and_open_ends() -> None:
    store = MemoryStore()
    store.load_data(
        """PREFIX mem: <https://w3id.org/memkg#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX ex: <https://example.org/acme/>
        GRAPH <https://example.org/tenants/acme> {
          ex:p a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> . ex:x a mem:Entity .
          ex:orig a mem:Message . ex:copy a mem:Message ; mem:echoOf ex:orig .
          ex:x1 a mem:Extraction .
          ex:g a mem:SupportGroup ; mem:member ex:copy , ex:ghost .
          ex:c a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p ex:x )>> ;
              mem:supportGroup ex:g ; prov:wasGeneratedBy ex:x1 .
        }""",
        format="trig",
    )
    lin = P.lineage(store, EX + "c", tenant=T)
    kinds = {(x.node.value.removeprefix(EX), x.kind, x.source.value.removeprefix(EX), x.group) for x in lin.links}
    assert ("c", "group", "copy", n("g")) in kinds
    assert ("copy", "echo", "orig", None) in kinds
    assert names(lin.grounds) == {"orig"}
    assert names(lin.open_ends) == {"ghost", "x1"}  # an undescribed IRI; an extraction that used nothing


def test_derivation_never_counts_as_support() -> None:
    store = MemoryStore()
    m = store.add(Message(content="the benchmark says 1.4x", event_id="m"), graph=T)
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX ex: <https://example.org/acme/>
        GRAPH <{T}> {{
          ex:p a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> . ex:x a mem:Entity .
          ex:derived a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "d" )>> ;
              prov:wasDerivedFrom {m} .
          ex:supported a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "s" )>> ;
              mem:supportedBy {m} .
        }}""",
        format="trig",
    )
    assert names(P.dependents(store, m, tenant=T)) == {"supported"}
    derived = P.support(store, EX + "derived", tenant=T)
    assert derived.status == "unrecorded" and derived.groups == ()
    effect = P.impact(store, m, tenant=T)
    assert names(effect.fallen) == {"supported"}
    assert names(effect.downstream) == {"derived"}  # drawn from it: flagged for review, not fallen


def test_circular_support_grounds_nothing() -> None:
    store = MemoryStore()
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX ex: <https://example.org/acme/>
        GRAPH <{T}> {{
          ex:p a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> . ex:x a mem:Entity .
          ex:s a mem:Message .
          ex:a a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "a" )>> ;
              mem:supportedBy ex:b , ex:s .
          ex:b a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "b" )>> ;
              mem:supportedBy ex:a .
        }}""",
        format="trig",
    )
    # a and b support each other, and only s grounds them: without s, neither stands.
    assert names(P.dependents(store, EX + "s", tenant=T)) == {"a", "b"}


# -- withdrawal ------------------------------------------------------------------------


def test_withdraw_records_a_validated_retraction_and_nothing_else(acme: MemoryStore) -> None:
    before = data_quads(acme)
    result = P.withdraw(acme, EX + "benchmark", reason="run on a misconfigured host", graph=T)
    added = data_quads(acme) - before
    assert before <= data_quads(acme)  # nothing rewritten or removed
    assert {q.subject for q in added} == {result.retraction}
    flags = {(P.NEEDS_REVIEW, c) for c in result.review} if is_declared(acme, P.NEEDS_REVIEW) else set()
    assert {(q.predicate, q.object) for q in added if q.predicate != mem.recordedAt} == {
        (NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), mem.Retraction),
        (mem.retracts, n("benchmark")),
        (mem.reason, Literal("run on a misconfigured host")),
    } | flags  # the review flags only once the ontology declares mem:needsReview
    assert names(result.fallen) == {"cThroughput", "cSumThroughput", "cAnswerThroughput"}
    assert names(result.weakened) == {"cMigration"}
    assert "summary" not in names(result.review)  # a message, not a claim
    assert set(result.review) >= set(result.fallen) | set(result.weakened)
    # Now it is withdrawn: nothing rests on it any more.
    assert P.dependents(acme, EX + "benchmark", tenant=T) == []
    assert not P.support(acme, EX + "cThroughput", tenant=T).stands
    assert validate_store(acme).conforms


def test_withdraw_flags_claims_when_the_ontology_has_the_term(acme: MemoryStore, monkeypatch) -> None:
    if not is_declared(acme, P.NEEDS_REVIEW):
        monkeypatch.setattr("memkg.provenance.withdrawal.is_declared", lambda store, term: term == P.NEEDS_REVIEW)
        acme.validator = None  # the shapes do not know the proposed term either
    result = P.withdraw(acme, EX + "benchmark", reason="bad host", graph=T)
    flagged = {q.object for q in acme.quads(result.retraction, P.NEEDS_REVIEW, None)}
    assert flagged == set(result.review)


def test_withdraw_unknown_source_is_refused(acme: MemoryStore) -> None:
    before = len(acme)
    with pytest.raises(NotFoundError):
        P.withdraw(acme, EX + "nothing-here", reason="?", graph=T)
    assert len(acme) == before


# -- echoes ----------------------------------------------------------------------------


def test_echo_proposals_are_scored_and_never_written() -> None:
    store = MemoryStore()
    a = store.add(Message(content="Cutover of the ledger to PostgreSQL on 14 March at 02:00 UTC.", event_id="a",
                          event_time=_t(1)), graph=T)
    b = store.add(Message(content="Reminder: ledger cutover to PostgreSQL on 14 March, 02:00 UTC.", event_id="b",
                          event_time=_t(2)), graph=T)
    store.add(Message(content="Lunch is at noon today.", event_id="c", event_time=_t(3)), graph=T)
    before = len(store)
    proposals = P.propose_echoes(store, tenant=T)
    assert len(store) == before
    assert [(p.echo, p.original) for p in proposals] == [(b, a)]  # the later restates the earlier
    assert 0.55 <= proposals[0].score <= 1
    assert P.propose_echoes(store, tenant=T, threshold=0.99) == []
    P.accept_echoes(store, proposals, graph=T)
    assert any(store.quads(b, mem.echoOf, a))
    assert P.propose_echoes(store, tenant=T) == []  # already linked


def test_echo_score() -> None:
    assert P.echo_score("Postgres is faster than MySQL", "MySQL is slower than Postgres") == pytest.approx(3 / 5)
    assert P.echo_score("", "anything") == 0.0


def test_example_echoes_are_already_recorded(acme: MemoryStore) -> None:
    assert P.propose_echoes(acme, tenant=T) == []


# -- erasure ---------------------------------------------------------------------------


def test_erasure_removes_the_source_and_what_rested_only_on_it(acme: MemoryStore) -> None:
    content = next(acme.quads(n("benchmark"), mem.content, None)).object
    result = P.erase(acme, EX + "benchmark", reason="consent revoked by the vendor", graph=T)
    removed = names(x for x in result.removed if isinstance(x, NamedNode))
    assert {"benchmark", "cThroughput", "xBench", "gBench", "cSumThroughput", "cAnswerThroughput"} <= removed
    assert {"cMigration", "summary", "incident", "rerun"}.isdisjoint(removed)  # another lawful source remains
    assert names(result.kept) >= {"cMigration"}
    # Content gone, identifiers only.
    assert not any(acme.quads(n("benchmark"), None, None))
    assert not any(acme.quads(None, None, content))
    assert not any(acme.quads(n("cThroughput"), None, None, with_index=True))
    # The kept claim lost its link into erased content and still stands on the rerun group.
    assert not any(acme.quads(n("cMigration"), mem.supportGroup, n("gBench")))
    assert P.support(acme, EX + "cMigration", tenant=T).stands
    assert not any(acme.quads(n("summary"), prov.wasDerivedFrom, n("cThroughput")))
    # The erasure is recorded by identifier and reason.
    record = result.record
    assert {q.object for q in acme.quads(record, mem.retracts, None)} == {
        x for x in result.removed if isinstance(x, NamedNode)
    }
    assert next(acme.quads(record, mem.reason, None)).object == Literal("consent revoked by the vendor")
    assert acme.check_index().consistent
    assert validate_store(acme).conforms


def test_erasure_keeps_claims_another_source_supports() -> None:
    store = MemoryStore()
    m1 = store.add(Message(content="Lia prefers green tea.", event_id="1"), graph=T)
    m2 = store.add(Message(content="Lia ordered green tea again.", event_id="2"), graph=T)
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX ex: <https://example.org/acme/>
        GRAPH <{T}> {{
          ex:p a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> . ex:x a mem:Entity .
          ex:both a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "both" )>> ;
              mem:assertedBy {m1} ; mem:supportedBy {m1} , {m2} .
          ex:only a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "only" )>> ;
              mem:assertedBy {m1} ; mem:supportedBy {m1} .
        }}""",
        format="trig",
    )
    result = P.erase(store, m1, reason="consent revoked", graph=T)
    assert names(x for x in result.removed if x != m1) == {"only"}
    assert names(result.kept) == {"both"}
    assert {q.object for q in store.quads(n("both"), mem.supportedBy, None)} == {m2}
    assert not any(store.quads(n("both"), mem.assertedBy, None))
    assert validate_store(store).conforms


def test_erasure_removes_a_summary_derived_only_from_the_erased_source() -> None:
    """SPEC §3: erasure removes the content and what was derived only from it (``prov:wasDerivedFrom``)."""
    store = MemoryStore()
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX ex: <{EX}>
        GRAPH <{T}> {{
          ex:diary a mem:Message ; mem:content "Lia's diary." .
          ex:other a mem:Message ; mem:content "A note by Sam." .
          ex:summary a mem:Message ; mem:content "Lia had a bad week." ; prov:wasDerivedFrom ex:diary .
          ex:digest a mem:Message ; mem:content "Both, in short." ; prov:wasDerivedFrom ex:diary , ex:other .
        }}""",
        format="trig",
    )
    result = P.erase(store, EX + "diary", reason="consent revoked", graph=T)
    assert names(result.removed) == {"diary", "summary"}
    assert not any(store.quads(n("summary"), None, None))
    assert not any(store.quads(None, mem.content, Literal("Lia had a bad week.")))
    # Derived from the erased source and from another: kept, without its link into erased content.
    assert {q.object for q in store.quads(n("digest"), prov.wasDerivedFrom, None)} == {n("other")}
    assert validate_store(store).conforms


def test_the_erasure_record_is_an_erasure_and_a_retraction(acme: MemoryStore) -> None:
    # docs/contract.md section 3: erasure is recorded; the ontology's mem:Erasure is a mem:Retraction.
    result = P.erase(acme, EX + "rerun", reason="consent revoked", graph=T)
    types = {q.object for q in acme.quads(result.record, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"))}
    assert types == {mem.Retraction, P.ERASURE}


def test_erasure_needs_a_reason_and_an_existing_source(acme: MemoryStore) -> None:
    with pytest.raises(ValueError):
        P.erase(acme, EX + "benchmark", reason="", graph=T)
    with pytest.raises(NotFoundError):
        P.erase(acme, EX + "nothing-here", reason="consent revoked", graph=T)


def _t(day: int):
    from datetime import datetime, timezone

    return datetime(2026, 1, day, tzinfo=timezone.utc)


# -- properties: the fixpoint against a naive oracle -----------------------------------------

SOURCES = [f"s{i}" for i in range(4)]
CLAIMS = [f"c{i}" for i in range(6)]


@st.composite
def support_graphs(draw, claims_only_on_sources: bool = False):
    """Random support structure: claims with 0-2 alternatives of 1-2 members, echoes
    between sources (acyclic), some nodes retracted."""
    echo = {s: [] for s in SOURCES}
    for i, s in enumerate(SOURCES[1:], 1):
        if draw(st.booleans()):
            echo[s] = [SOURCES[draw(st.integers(0, i - 1))]]
    alts: dict[str, list[list[str]]] = {}
    for c in CLAIMS:
        pool = SOURCES if claims_only_on_sources else SOURCES + [x for x in CLAIMS if x != c]
        alternatives = []
        for _ in range(draw(st.integers(0, 2))):
            members = sorted(set(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))))
            if len(members) == 2 and _echoes(echo, members[0], members[1]):
                members = members[:1]  # invariant 11: no member echoes another
            alternatives.append(members)
        alts[c] = alternatives
    retracted = draw(st.sets(st.sampled_from(SOURCES + CLAIMS), max_size=2))
    return alts, echo, retracted


def _echoes(echo, a: str, b: str) -> bool:
    def reaches(x, y):
        return any(e == y or reaches(e, y) for e in echo.get(x, []))

    return reaches(a, b) or reaches(b, a)


def _load(alts, echo, retracted) -> MemoryStore:
    lines = [
        "PREFIX mem: <https://w3id.org/memkg#>", "PREFIX prov: <http://www.w3.org/ns/prov#>",
        f"PREFIX ex: <{EX}>", f"GRAPH <{T}> {{",
        "ex:p a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> . ex:x a mem:Entity .",
        "ex:origin a mem:Message .",  # lineage of the claims without support; never a member
    ]
    for s in SOURCES:
        lines.append(f"ex:{s} a mem:Message ." + "".join(f" ex:{s} mem:echoOf ex:{e} ." for e in echo[s]))
    for c, alternatives in alts.items():
        parts = [f"ex:{c} a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p \"{c}\" )>>"]
        if not alternatives:
            parts.append("prov:wasDerivedFrom ex:origin")
        for k, members in enumerate(alternatives):
            if len(members) == 1 and k % 2 == 0:
                parts.append(f"mem:supportedBy ex:{members[0]}")
            else:
                parts.append(f"mem:supportGroup ex:{c}g{k}")
                lines.append(f"ex:{c}g{k} a mem:SupportGroup ; mem:member " + " , ".join(f"ex:{m}" for m in members) + " .")
        lines.append(" ; ".join(parts) + " .")
    for i, r in enumerate(sorted(retracted)):
        lines.append(f"ex:r{i} a mem:Retraction ; mem:retracts ex:{r} .")
    lines.append("}")
    store = MemoryStore()
    store.load_data("\n".join(lines), format="trig")
    return store


def _oracle(alts, echo, blocked) -> set[str]:
    stand: set[str] = set()
    changed = True
    while changed:
        changed = False
        for x in SOURCES + CLAIMS:
            if x in stand or x in blocked:
                continue
            if all(e in stand for e in echo.get(x, [])) and (
                not alts.get(x) or any(all(m in stand for m in g) for g in alts[x])
            ):
                stand.add(x)
                changed = True
    return stand


FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@FAST
@given(support_graphs(), st.sampled_from(SOURCES + CLAIMS))
def test_dependents_match_the_naive_fixpoint(graph, source) -> None:
    alts, echo, retracted = graph
    store = _load(alts, echo, retracted)
    before = _oracle(alts, echo, retracted)
    after = _oracle(alts, echo, retracted | {source})
    expected = {c for c in CLAIMS if alts[c] and c in before and c not in after and c != source}
    assert names(P.dependents(store, EX + source, tenant=T)) == expected
    # Minimal support agrees: a standing claim depends on the source iff every full minimal set holds it.
    for c in CLAIMS:
        if c == source or not alts[c]:
            continue
        sets = P.minimal_support(store, EX + c, tenant=T, grounds_only=False)
        assert (c in before) == bool(sets)
        if c in before:
            assert (c in expected) == all(NamedNode(EX + source) in s for s in sets)


@pytest.mark.slow
@FAST
@given(support_graphs(claims_only_on_sources=True), st.sampled_from(SOURCES))
def test_the_dependents_view_is_exact_when_no_claim_supports_a_claim(graph, source) -> None:
    alts, echo, retracted = graph
    store = _load(alts, echo, retracted)
    assert view_claims(store, "dependents", source=EX + source) == names(P.dependents(store, EX + source, tenant=T))


def test_results_serialise_for_every_adapter(acme: MemoryStore) -> None:
    """CLI, endpoint and agent tools share one JSON form per result (to_dict), with citable IRIs."""
    import json

    lin = P.lineage(acme, EX + "answer", tenant=T).to_dict()
    assert lin["claim"] == EX + "answer" and lin["links"] and all(k["kind"] for k in lin["links"])
    sup = P.support(acme, EX + "cMigration", tenant=T)
    as_dict = sup.to_dict(minimal=P.minimal_support(acme, EX + "cMigration", tenant=T))
    assert as_dict["stands"] is sup.stands and len(as_dict["groups"]) == len(sup.groups) and as_dict["minimal"]
    hit = P.impact(acme, EX + "benchmark", tenant=T).to_dict()
    assert set(hit["fallen"]) == {EX + n for n in ("cThroughput", "cSumThroughput", "cAnswerThroughput")}
    done = P.withdraw(acme, EX + "benchmark", reason="bad host", graph=T).to_dict()
    assert done["retraction"].startswith("urn:memkg:") and done["fallen"] == hit["fallen"]
    gone = P.erase(acme, EX + "rerun", reason="consent revoked", graph=T).to_dict()
    assert gone["removed"][0] == EX + "rerun" and gone["quadsRemoved"] > 0
    for result in (lin, as_dict, hit, done, gone):
        assert json.loads(json.dumps(result)) == result
        # One term style everywhere (memkg.core.json_terms.term_json): an IRI is its bare text, never <…>.
        assert "<" not in json.dumps(result), result


@pytest.mark.parametrize("kind", ["Message", "Occurrence", "Outcome", "Action", "Episode", "Entity"])
def test_the_lineage_view_marks_raw_sources_by_class(kind: str) -> None:
    """queries/lineage.rq: an open end is raw when it is a first-hand record (message, occurrence,
    outcome, action, episode); anything else (an entity) is an open end, not a raw source."""
    store = MemoryStore()
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX ex: <{EX}>
        GRAPH <{T}> {{
          ex:p a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> . ex:x a mem:Entity .
          ex:origin a mem:{kind} .
          ex:c a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:x ex:p "c" )>> ;
              prov:wasDerivedFrom ex:origin .
        }}""",
        format="trig",
    )
    (row,) = [r for r in store.view("lineage", {"claim": EX + "c", "tenant": T}) if r["source"] == n("origin")]
    assert (row["end"].value, row["raw"].value) == ("true", "true" if kind != "Entity" else "false")


# -- found by mutation testing (tools/mutation.py; benchmarks/mutation-survivors.md) ---------

OTHER = "https://example.org/tenants/other"
PRELUDE = """PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <https://example.org/acme/>
"""


def _store(trig: str) -> MemoryStore:
    store = MemoryStore()
    store.load_data(PRELUDE + trig, format="trig")
    return store


def test_lineage_and_dependents_of_a_tenant_stay_in_that_tenant() -> None:
    # docs/contract.md section 5: a tenant's question reads its graph and the shared ones, never another tenant's
    store = _store(f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "here" )>> ; mem:supportedBy ex:m .
    }}
    GRAPH <{OTHER}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message . ex:elsewhere a mem:Message .
      ex:c prov:wasDerivedFrom ex:elsewhere .
      ex:d a mem:Claim ; rdf:reifies <<( ex:x ex:p "there" )>> ; mem:supportedBy ex:m .
    }}""")
    lin = P.lineage(store, EX + "c", tenant=T)
    assert names(link.source for link in lin.links) == {"m"}
    assert names(lin.grounds) == {"m"}
    assert names(P.dependents(store, EX + "m", tenant=T)) == {"c"}
    assert names(P.dependents(store, EX + "m", tenant=OTHER)) == {"d"}


def test_the_json_form_of_a_lineage_names_each_link_and_every_end() -> None:
    store = _store(f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity .
      ex:orig a mem:Message . ex:copy a mem:Message ; mem:echoOf ex:orig .
      ex:g a mem:SupportGroup ; mem:member ex:copy , ex:ghost .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p ex:x )>> ; mem:supportGroup ex:g .
    }}""")
    assert P.lineage(store, EX + "c", tenant=T).to_dict() == {
        "claim": EX + "c",
        "links": [
            {"from": EX + "c", "kind": "group", "source": EX + "copy", "group": EX + "g", "support": True},
            {"from": EX + "c", "kind": "group", "source": EX + "ghost", "group": EX + "g", "support": True},
            {"from": EX + "copy", "kind": "echo", "source": EX + "orig", "group": None, "support": False},
        ],
        "grounds": [EX + "orig"],
        "openEnds": [EX + "ghost"],
    }


def test_the_json_form_of_support_names_groups_withdrawals_and_refutations() -> None:
    store = _store(f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message . ex:probe a mem:Message .
      ex:g a mem:SupportGroup ; mem:member ex:m .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "v" )>> ; mem:supportGroup ex:g .
      ex:probe mem:refutes ex:c .
      ex:r a mem:Retraction ; mem:retracts ex:c .
    }}""")
    got = P.support(store, EX + "c", tenant=T).to_dict()
    assert got["groups"] == [{"group": EX + "g", "members": [EX + "m"], "stands": True, "failing": []}]
    assert got["withdrawnBy"] == [EX + "r"] and got["refutedBy"] == [EX + "probe"]
    assert (got["claim"], got["status"], got["stands"]) == (EX + "c", "withdrawn", False)


def test_every_node_a_way_of_support_needs_is_listed_but_not_the_claim_itself() -> None:
    store = _store(f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message .
      ex:mid a mem:Claim ; rdf:reifies <<( ex:x ex:p "mid" )>> ; mem:supportedBy ex:m .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "top" )>> ; mem:supportedBy ex:mid .
    }}""")
    assert P.minimal_support(store, EX + "c", tenant=T, grounds_only=False) == [frozenset({n("mid"), n("m")})]
    assert P.minimal_support(store, EX + "c", tenant=T) == [frozenset({n("m")})]


def test_the_impact_json_names_the_echoes_that_fall_with_a_source() -> None:
    store = _store(f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message . ex:copy a mem:Message ; mem:echoOf ex:m .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "v" )>> ; mem:supportedBy ex:copy .
    }}""")
    assert P.impact(store, EX + "m", tenant=T).to_dict() == {
        "sources": [EX + "m"], "fallen": [EX + "c"], "weakened": [], "downstream": [], "fallenSources": [EX + "copy"],
    }


def test_withdrawing_what_the_graph_does_not_hold_names_the_iri_and_the_graph(acme: MemoryStore) -> None:
    with pytest.raises(NotFoundError, match=f"{EX}nothing.*{T}"):
        P.withdraw(acme, EX + "nothing", graph=T)
    with pytest.raises(ValueError, match="source must be a full IRI"):
        P.withdraw(acme, "benchmark", graph=T)


def test_an_impact_question_about_a_name_that_is_no_iri_says_the_source_must_be_one(acme: MemoryStore) -> None:
    with pytest.raises(ValueError, match="source must be a full IRI, got 'benchmark'"):
        P.impact(acme, "benchmark", tenant=T)


def test_erasing_a_name_that_is_no_iri_says_the_source_must_be_one(acme: MemoryStore) -> None:
    with pytest.raises(ValueError, match="source must be a full IRI, got 'rerun'"):
        P.erase(acme, "rerun", reason="consent revoked", graph=T)
    assert any(acme.quads(n("rerun")))  # nothing was erased


def test_a_lineage_question_about_a_name_that_is_no_iri_says_the_claim_must_be_one(acme: MemoryStore) -> None:
    with pytest.raises(ValueError, match="claim must be a full IRI, got 'answer'"):
        P.lineage(acme, "answer", tenant=T)


def test_erasing_a_source_removes_the_statement_its_only_occurrence_asserted() -> None:
    # docs/contract.md section 3: erasure removes the content; an occurrence's content is the triple it asserts,
    # unless another occurrence still asserts it. Neither touches another tenant's copy.
    store = _store(f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:y a mem:Entity . ex:m a mem:Message . ex:n a mem:Message .
      ex:x ex:p ex:y ~ ex:o {{| a mem:Occurrence ; prov:wasDerivedFrom ex:m |}} .
      ex:y ex:p ex:x ~ ex:o1 {{| a mem:Occurrence ; prov:wasDerivedFrom ex:m |}}
                     ~ ex:o2 {{| a mem:Occurrence ; prov:wasDerivedFrom ex:n |}} .
    }}
    GRAPH <{OTHER}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:y a mem:Entity . ex:k a mem:Message .
      ex:x ex:p ex:y ~ ex:q {{| a mem:Occurrence ; prov:wasDerivedFrom ex:k |}} .
    }}""")
    done = P.erase(store, EX + "m", reason="consent revoked", graph=T)
    assert names(done.removed) == {"m", "o", "o1"}
    assert not any(store.quads(n("x"), n("p"), n("y"), NamedNode(T)))
    assert any(store.quads(n("y"), n("p"), n("x"), NamedNode(T)))  # ex:o2 still asserts it
    assert any(store.quads(n("x"), n("p"), n("y"), NamedNode(OTHER)))


CLAIM_HERE_OCCURRENCE_THERE = f"""
    GRAPH <{T}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:y a mem:Entity . ex:m a mem:Message .
      ex:x ex:p ex:y .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p ex:y )>> ; prov:wasDerivedFrom ex:m .
    }}
    GRAPH <{OTHER}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:y a mem:Entity . ex:k a mem:Message .
      ex:x ex:p ex:y ~ ex:c {{| a mem:Occurrence ; prov:wasDerivedFrom ex:k |}} .
    }}"""


def test_erasing_a_claim_keeps_the_statement_when_only_another_tenant_records_an_occurrence_of_it() -> None:
    # In this tenant ex:c is a claim: it reifies the proposition without asserting it, so the
    # statement asserted on its own here is not the claim's content. That another tenant's
    # graph types the same IRI as an occurrence changes nothing here (docs/contract.md section 2.7: tenants are apart).
    store = _store(CLAIM_HERE_OCCURRENCE_THERE)
    done = P.erase(store, EX + "m", reason="consent revoked", graph=T)
    assert names(done.removed) == {"m", "c"}
    assert any(store.quads(n("x"), n("p"), n("y"), NamedNode(T)))
    assert any(store.quads(n("x"), n("p"), n("y"), NamedNode(OTHER)))


def test_a_source_can_be_erased_when_another_tenant_uses_the_same_iri() -> None:
    # docs/contract.md section 3: the erasure names what it removed by identifier. ex:c was this tenant's claim; that
    # another tenant types the same IRI does not make the record a link into that tenant (invariant 7).
    store = _store(CLAIM_HERE_OCCURRENCE_THERE)
    done = P.erase(store, EX + "m", reason="consent revoked", graph=T)
    assert names(done.removed) == {"m", "c"}
    assert {q.object for q in store.quads(done.record, mem.retracts, None, NamedNode(T))} == {n("c"), n("m")}
    assert any(store.quads(n("c"), None, None, NamedNode(OTHER)))  # the other tenant's node is untouched
    assert validate_store(store).conforms


def test_an_erasure_exempts_only_the_identifiers_it_erased_from_tenant_isolation() -> None:
    # Invariant 7 still refuses a link to a vertex typed only in another tenant's graph, next to an erasure.
    store = _store(CLAIM_HERE_OCCURRENCE_THERE)
    P.erase(store, EX + "m", reason="consent revoked", graph=T)
    with pytest.raises(ValidationError, match="TenantIsolation|another tenant"):
        store.load_data(f"""PREFIX mem: <https://w3id.org/memkg#>
            GRAPH <{T}> {{ <{EX}note> a mem:Message ; <https://schema.org/about> <{EX}k> . }}""", format="trig")
