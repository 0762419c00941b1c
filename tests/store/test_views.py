"""The bitemporal views (queries/current, historical, audit, history, contradictions).

Three kinds of evidence:

1. the worked example, Lia's tea story, at chosen times, with the expected
   answers written down here as data;
2. random histories (hypothesis) loaded into an in-memory store, every view at
   random valid and transaction times, past and present, compared with the
   plain-Python model of docs/contract.md section 3 in ``time_oracle.py``, for one tenant,
   another tenant and all graphs;
3. parameters are bound as RDF terms: hostile values are refused and cannot
   change the query; a tenant sees only its graph and the shared ones.

The number of random histories: the hypothesis profile ``MEMKG_VIEWS_PROFILE``
(``memkg-views``: 300, the default; ``memkg-views-deep``: 5000), or exactly
``MEMKG_VIEWS_EXAMPLES``.
"""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pyoxigraph import DefaultGraph, Literal, NamedNode

from memkg import MemoryStore, NotFoundError, UnknownIRIError
from memkg.store import views as views_module
from memkg.core.vocab import ONTOLOGY_GRAPH

from tests.support.examples import LIA, LIA_GRAPH
from .time_oracle import MEM, XSD, Memory, Record, Retraction, Term

EX = "https://example.org/lia/"
UTC = timezone.utc


def new_store() -> MemoryStore:
    """An in-memory store that writes unchecked: these tests are about the views, and
    the random histories include shapes of data (missing times, odd chains) on purpose."""
    if "validation" in inspect.signature(MemoryStore).parameters:
        return MemoryStore(validation=None)
    return MemoryStore()


def claims(rows) -> list[str]:
    return [row["claim"].value for row in rows]


def names(rows) -> set[str]:
    """The claims of a view's rows, as local names under ex:, checking one row per claim."""
    found = [c.removeprefix(EX) for c in claims(rows)]
    assert len(found) == len(set(found)), f"duplicate rows: {found}"
    return set(found)


# ---------------------------------------------------------------------------------------
# 1. The worked example
# ---------------------------------------------------------------------------------------

# More of Lia's memory, loaded on top of examples/lia-tea.trig for the cases the story
# does not cover: an interval with an end, explicit and functional contradictions,
# qualified claims on a functional predicate, and another tenant's retraction.
LIA_EXTRA = f"""
PREFIX mem:  <https://w3id.org/memkg#>
PREFIX xsd:  <http://www.w3.org/2001/XMLSchema#>
PREFIX rdf:  <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX owl:  <http://www.w3.org/2002/07/owl#>
PREFIX ex:   <{EX}>
GRAPH <{LIA_GRAPH}> {{
  ex:livesIn a rdf:Property , owl:FunctionalProperty .
  ex:drinksMostly a rdf:Property , owl:FunctionalProperty .
  ex:Lisbon a mem:Entity . ex:Porto a mem:Entity . ex:Berlin a mem:Entity . ex:herbalTea a mem:Entity .

  # a trip: valid for two weeks, [2026-03-01, 2026-03-15)
  ex:cTrip a mem:Claim ; rdf:reifies <<( ex:Lia ex:livesIn ex:Berlin )>> ;
      mem:validFrom "2026-03-01T00:00:00Z"^^xsd:dateTime ;
      mem:validUntil "2026-03-15T00:00:00Z"^^xsd:dateTime ;
      mem:recordedAt "2026-03-01T12:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m0 .

  # where she lives: two current values of a functional predicate (a contradiction)
  ex:cLisbon a mem:Claim ; rdf:reifies <<( ex:Lia ex:livesIn ex:Lisbon )>> ;
      mem:validFrom "2026-03-15T00:00:00Z"^^xsd:dateTime ;
      mem:recordedAt "2026-03-16T09:00:00+01:00"^^xsd:dateTime ; mem:assertedBy ex:m0 .
  ex:cPorto a mem:Claim ; rdf:reifies <<( ex:Lia ex:livesIn ex:Porto )>> ;
      mem:validFrom "2026-04-01T00:00:00Z"^^xsd:dateTime ;
      mem:recordedAt "2026-04-01T10:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m0 .

  # tea with sugar, stated to contradict c0 (explicit; different objects, not functional)
  ex:cSugar a mem:Claim ; rdf:reifies <<( ex:Lia ex:prefers ex:tea )>> ;
      mem:recordedAt "2026-05-01T10:00:00Z"^^xsd:dateTime ;
      mem:contradicts ex:c0 ; mem:assertedBy ex:m0 .

  # qualified values of a functional predicate: not contradictions
  ex:cMorning a mem:Claim ; rdf:reifies <<( ex:Lia ex:drinksMostly ex:coffee )>> ;
      mem:context ex:morning ; mem:recordedAt "2026-05-02T10:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m0 .
  ex:cNight a mem:Claim ; rdf:reifies <<( ex:Lia ex:drinksMostly ex:herbalTea )>> ;
      mem:context ex:night ; mem:recordedAt "2026-05-02T10:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m0 .
  ex:cAnyTime a mem:Claim ; rdf:reifies <<( ex:Lia ex:drinksMostly ex:tea )>> ;
      mem:recordedAt "2026-05-02T10:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m0 .
}}
# Another tenant retracts c0: that must not reach Lia's tenant.
GRAPH <https://example.org/tenants/mallory> {{
  ex:rMallory a mem:Retraction ; mem:retracts ex:c0 ;
      mem:recordedAt "2026-01-05T00:00:00Z"^^xsd:dateTime .
}}
"""

STORY_NOW = {"c0", "cName1", "idc1", "c1", "c2"}
NO_VALID_FROM = {"idc1", "cSugar", "cMorning", "cNight", "cAnyTime"}  # valid since ever
EXTRA_NOW = {"cLisbon", "cPorto", "cSugar", "cMorning", "cNight", "cAnyTime"}
TENANT = {"tenant": LIA_GRAPH}

# (view, parameters, expected claims): Lia's tenant only.
LIA_CASES = [
    # the story as examples/README.md tells it
    ("current", {}, STORY_NOW | EXTRA_NOW),
    ("audit", {"known_at": "2026-02-01T00:00:00Z"}, {"c0", "cName0"}),
    ("audit", {"known_at": "2026-02-12T00:00:00Z"}, {"c0", "cName1"}),
    ("historical", {"valid_at": "2026-01-02T00:00:00Z"}, {"c0"} | NO_VALID_FROM),
    # transaction time, exactly at the supersession: cName1 is recorded at
    # 10:15:05 and cName0 stops being known at that instant
    ("audit", {"known_at": "2026-02-10T10:15:04.999Z"}, {"c0", "cName0"}),
    ("audit", {"known_at": "2026-02-10T10:15:05Z"}, {"c0", "cName1"}),
    ("audit", {"known_at": "2026-02-10T11:15:05+01:00"}, {"c0", "cName1"}),  # the same instant
    # what we knew on 2026-02-12 about 2026-01-02: cName0 was already superseded
    ("audit", {"known_at": "2026-02-12T00:00:00Z", "valid_at": "2026-01-02T00:00:00Z"}, {"c0"}),
    ("audit", {"known_at": "2026-02-01T00:00:00Z", "valid_at": "2025-12-31T00:00:00Z"}, set()),
    # what we know now about 2026-01-02 excludes cName0: no longer known
    ("historical", {"valid_at": "2026-01-05T00:00:00Z"}, {"c0"} | NO_VALID_FROM),
    # valid time, at the bounds of c1/c2 (validFrom 17:58:00) and the trip [03-01, 03-15)
    ("historical", {"valid_at": "2026-02-22T17:57:59Z"}, {"c0", "cName1"} | NO_VALID_FROM),
    ("historical", {"valid_at": "2026-02-22T17:58:00Z"}, {"c0", "cName1", "c1", "c2"} | NO_VALID_FROM),
    ("historical", {"valid_at": "2026-03-14T23:59:59Z"}, STORY_NOW | NO_VALID_FROM | {"cTrip"}),
    ("historical", {"valid_at": "2026-03-15T00:00:00Z"}, STORY_NOW | EXTRA_NOW - {"cPorto"}),
    ("audit", {"known_at": "2026-03-10T00:00:00Z"}, {"c0", "cName1", "idc1", "c1", "c2", "cTrip"}),
    ("audit", {"known_at": "2026-03-15T00:00:00Z"}, {"c0", "cName1", "idc1", "c1", "c2"}),  # trip over
    # a subject's claims: occurrences about Aurora (ex:e6, ex:e7) are not claims
    ("current", {"subject": EX + "Lia"}, STORY_NOW | EXTRA_NOW),
    ("current", {"subject": EX + "Aurora"}, set()),
    ("historical", {"subject": EX + "Lia", "valid_at": "2026-01-02T00:00:00Z"}, {"c0"} | NO_VALID_FROM),
    ("audit", {"subject": EX + "Lia", "known_at": "2026-02-01T00:00:00Z"}, {"c0", "cName0"}),
    ("audit", {"subject": EX + "customer-1842", "known_at": "2026-03-01T00:00:00Z"}, set()),
]


@pytest.fixture(scope="module")
def lia() -> MemoryStore:
    store = new_store()
    store.load(LIA)
    store.load_data(LIA_EXTRA, format="trig")
    return store


def test_the_clock_is_past_the_story() -> None:
    assert datetime.now(UTC) > datetime(2026, 5, 2, 10, tzinfo=UTC), "these expectations assume now > 2026-05-02"


@pytest.mark.parametrize(("view", "params", "expected"), LIA_CASES, ids=[f"{v}-{p}" for v, p, _ in LIA_CASES])
def test_lia_views_at_chosen_times(lia: MemoryStore, view: str, params: dict, expected: set) -> None:
    assert names(lia.view(view, {**TENANT, **params})) == expected


def test_current_is_what_the_readme_says(lia: MemoryStore) -> None:
    rows = {row["claim"].value.removeprefix(EX): row for row in lia.view("current", TENANT)}
    assert set(rows) >= STORY_NOW and "cName0" not in rows
    name = rows["cName1"]
    assert (name["subject"], name["predicate"], name["object"]) == (
        NamedNode(EX + "Lia"), NamedNode(MEM + "displayName"), Literal("Amelia"))
    assert rows["idc1"]["predicate"] == NamedNode("http://www.w3.org/2002/07/owl#sameAs")


def test_history_runs_both_ways_oldest_first(lia: MemoryStore) -> None:
    expected = [("cName0", "2026-01-01T09:00:00Z"), ("cName1", "2026-02-10T10:15:05Z")]
    for start in ("cName0", "cName1"):
        rows = list(lia.view("history", {**TENANT, "claim": EX + start}))
        assert [(r["claim"].value.removeprefix(EX), r["recordedAt"].value) for r in rows] == expected
        assert rows[1]["object"] == Literal("Amelia")
    assert claims(lia.view("history", {**TENANT, "claim": EX + "c0"})) == [EX + "c0"]
    assert list(lia.view("history", {**TENANT, "claim": EX + "e6"})) == []  # an occurrence
    with pytest.raises(UnknownIRIError, match=f"{EX}nothing is in no graph of the scope"):
        lia.view("history", {**TENANT, "claim": EX + "nothing"})


def test_an_iri_parameter_may_be_a_prefixed_name_the_store_declared(lia: MemoryStore) -> None:
    # The loaded file declared ex:, so "ex:cName1" names the same claim as its full IRI.
    assert lia.prefixes["ex"] == EX
    full = [r["claim"] for r in lia.view("history", {**TENANT, "claim": EX + "cName1"})]
    assert [r["claim"] for r in lia.view("history", {**TENANT, "claim": "ex:cName1"})] == full
    assert len(full) == 2


def lia_tenant_store(body: str) -> MemoryStore:
    """A store holding ``body`` (Turtle, prefixes mem, xsd, rdf, owl and ex: declared) in Lia's tenant."""
    store = new_store()
    store.load_data(f"""PREFIX mem: <https://w3id.org/memkg#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX ex: <{EX}>
GRAPH <{LIA_GRAPH}> {{ {body} }}""", format="trig")
    return store


def test_history_shows_each_versions_validity_interval(lia: MemoryStore) -> None:
    # docs/contract.md section 3 / history.rq: each row carries the version's validFrom and validUntil (unbound where missing)
    (row,) = lia.view("history", {**TENANT, "claim": EX + "cTrip"})
    assert (row["validFrom"].value, row["validUntil"].value) == ("2026-03-01T00:00:00Z", "2026-03-15T00:00:00Z")
    (row,) = lia.view("history", {**TENANT, "claim": EX + "cLisbon"})
    assert row["validFrom"].value == "2026-03-15T00:00:00Z" and row["validUntil"] is None


def test_versions_recorded_at_one_instant_are_listed_in_chain_order_not_by_name() -> None:
    # history.rq: "versions recorded at the same instant in chain order (a version after
    # the ones it supersedes), then by IRI" -- here the chain runs against the IRIs' order
    store = lia_tenant_store("""
  ex:z a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:tea )>> ;
      mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime .
  ex:y a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:coffee )>> ; mem:supersedes ex:z ;
      mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime .
  ex:x a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:water )>> ; mem:supersedes ex:y ;
      mem:recordedAt "2026-01-01T00:00:00Z"^^xsd:dateTime .
""")
    for start in ("x", "y", "z"):
        assert claims(store.view("history", {**TENANT, "claim": EX + start})) == [EX + "z", EX + "y", EX + "x"]


def test_contradictions_in_the_story(lia: MemoryStore) -> None:
    rows = list(lia.view("contradictions", TENANT))
    found = {(r["claim"].value.removeprefix(EX), r["other"].value.removeprefix(EX), r["kind"].value) for r in rows}
    # c1/c2 (night/morning) and cMorning/cNight/cAnyTime (qualified differently) are not there
    assert found == {("c0", "cSugar", "explicit"), ("cLisbon", "cPorto", "functional")}
    pair = next(r for r in rows if r["kind"].value == "functional")
    assert (pair["object"], pair["otherObject"]) == (NamedNode(EX + "Lisbon"), NamedNode(EX + "Porto"))
    # both stay in place
    assert {"c0", "cSugar", "cLisbon", "cPorto"} <= names(lia.view("current", TENANT))
    # before Porto was valid there was no conflict yet; in the story alone there is none
    early = lia.view("contradictions", {**TENANT, "valid_at": "2026-03-20T00:00:00Z"})
    assert {(r["claim"].value.removeprefix(EX), r["other"].value.removeprefix(EX)) for r in early} == {("c0", "cSugar")}
    story = new_store()
    story.load(LIA)
    assert list(story.view("contradictions")) == []


def test_a_claim_whose_validity_ends_at_the_asked_time_contradicts_nothing_then() -> None:
    # docs/contract.md section 3: validity is half-open, [validFrom, validUntil); on either side of a pair
    store = lia_tenant_store("""
  ex:livesIn a rdf:Property , owl:FunctionalProperty .
  ex:a1 a mem:Claim ; rdf:reifies <<( ex:Lia ex:livesIn ex:Lisbon )>> ;
      mem:validUntil "2026-03-01T00:00:00Z"^^xsd:dateTime .
  ex:b1 a mem:Claim ; rdf:reifies <<( ex:Lia ex:livesIn ex:Porto )>> .
  ex:a2 a mem:Claim ; rdf:reifies <<( ex:Noa ex:livesIn ex:Lisbon )>> .
  ex:b2 a mem:Claim ; rdf:reifies <<( ex:Noa ex:livesIn ex:Porto )>> ;
      mem:validUntil "2026-03-01T00:00:00Z"^^xsd:dateTime .
""")

    def pairs(valid_at: str) -> set[tuple[str, str]]:
        rows = store.view("contradictions", {**TENANT, "valid_at": valid_at})
        return {(r["claim"].value.removeprefix(EX), r["other"].value.removeprefix(EX)) for r in rows}

    assert pairs("2026-02-28T23:59:59Z") == {("a1", "b1"), ("a2", "b2")}
    assert pairs("2026-03-01T00:00:00Z") == set()


def test_claims_qualified_differently_contradict_only_when_their_contexts_are_the_same() -> None:
    # docs/contract.md section 4: functional values contradict when "they carry the same set of mem:context qualifiers";
    # the qualified claim is the one whose IRI sorts first, then the other one
    store = lia_tenant_store("""
  ex:drinks a rdf:Property , owl:FunctionalProperty .
  ex:a1 a mem:Claim ; rdf:reifies <<( ex:Lia ex:drinks ex:coffee )>> ; mem:context ex:morning .
  ex:b1 a mem:Claim ; rdf:reifies <<( ex:Lia ex:drinks ex:tea )>> .
  ex:a2 a mem:Claim ; rdf:reifies <<( ex:Noa ex:drinks ex:coffee )>> .
  ex:b2 a mem:Claim ; rdf:reifies <<( ex:Noa ex:drinks ex:tea )>> ; mem:context ex:morning .
  ex:a3 a mem:Claim ; rdf:reifies <<( ex:Ada ex:drinks ex:coffee )>> ; mem:context ex:morning .
  ex:b3 a mem:Claim ; rdf:reifies <<( ex:Ada ex:drinks ex:tea )>> ; mem:context ex:morning .
""")
    rows = store.view("contradictions", TENANT)
    assert {(r["claim"].value.removeprefix(EX), r["other"].value.removeprefix(EX)) for r in rows} == {("a3", "b3")}


def test_functional_values_are_compared_as_values() -> None:
    store = new_store()
    store.load_data(f"""
        PREFIX mem: <https://w3id.org/memkg#>
        PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
        PREFIX owl: <http://www.w3.org/2002/07/owl#>
        PREFIX ex: <{EX}>
        ex:age a owl:FunctionalProperty .
        ex:a1 a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:Lia ex:age 30 )>> .
        ex:a2 a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:Lia ex:age 30.0 )>> .
        ex:a3 a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:Lia ex:age "thirty" )>> .
    """, format="trig")
    found = {(r["claim"].value.removeprefix(EX), r["other"].value.removeprefix(EX)) for r in store.view("contradictions")}
    assert found == {("a1", "a3"), ("a2", "a3")}  # 30 and 30.0 are one value


def test_a_tenant_sees_only_its_graph_and_the_shared_ones(lia: MemoryStore) -> None:
    # Mallory's tenant retracts c0: Lia's tenant still knows it, the union of all graphs does not
    assert "c0" in names(lia.view("current", TENANT))
    assert "c0" not in names(lia.view("current"))
    assert names(lia.view("current", {"tenant": "https://example.org/tenants/mallory"})) == set()
    with pytest.raises(NotFoundError, match="no graph named <https://example.org/tenants/nobody>"):
        lia.view("current", {"tenant": "https://example.org/tenants/nobody"})  # never a silent empty answer


# ---------------------------------------------------------------------------------------
# 3. Parameters are bound as terms
# ---------------------------------------------------------------------------------------

HOSTILE = [
    ("historical", "valid_at", "2026-01-01T00:00:00Z) } ; DROP ALL ; #"),
    ("historical", "valid_at", '"2026-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>'),
    ("audit", "known_at", "2026-01-01T00:00:00"),  # no time zone
    ("audit", "known_at", "yesterday"),
    ("current", "subject", "https://example.org/lia/Lia> } ; DROP ALL ; #"),
    ("current", "subject", "<https://example.org/lia/Lia> <https://example.org/lia/Lia>"),
    ("current", "subject", "https://example.org/a b"),
    ("current", "tenant", "https://example.org/tenants/lia> ?x ?y ?z } #"),
    ("history", "claim", "https://example.org/lia/c0> } UNION { ?claim ?p ?o"),
    ("contradictions", "valid_at", "NOW()"),
]


@pytest.mark.parametrize(("view", "name", "value"), HOSTILE)
def test_hostile_parameters_are_refused(lia: MemoryStore, view: str, name: str, value: str) -> None:
    size = len(lia)
    params = {"valid_at": "2026-01-01T00:00:00Z"} if view == "historical" else {}
    params |= {"known_at": "2026-01-01T00:00:00Z"} if view == "audit" else {}
    params |= {"claim": EX + "c0"} if view == "history" else {}
    params[name] = value
    with pytest.raises(ValueError, match=name):
        lia.view(view, params)
    assert len(lia) == size


@pytest.mark.parametrize("subject", [EX + "Lia", None], ids=["subject", "whole tenant"])
def test_a_bound_parameter_is_one_term_in_a_values_block(subject: str | None) -> None:
    view = views_module.get_view("audit")
    params = {"known_at": "2026-02-01T01:00:00+01:00"} | ({"subject": subject} if subject else {})
    bound = views_module.bind(view, params)
    before, after = view.text_for(params).splitlines(), bound.text.splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    # every marker gets the same values: the lookup shape has one, the scan shape two sub-SELECTs that need them
    assert len(before) == len(after) and len(changed) == (1 if subject else 2)
    for marker, values in changed:
        assert marker.strip() == "#+ bindings"
        assert values.strip() == (
            'VALUES (?known_at ?valid_at ?subject ?standing) { ("2026-02-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> '
            f"UNDEF {f'<{subject}>' if subject else 'UNDEF'} UNDEF) }}")
    assert bound.tenant is None


def test_a_subject_picks_the_lookup_shape_and_its_absence_the_scan_shape(lia: MemoryStore) -> None:
    view = views_module.get_view("current")
    lookup, scan = view.text_for({"subject"}), view.text_for(set())
    assert "GROUP BY ?claim ?subject" in lookup and "SELECT DISTINCT" not in lookup
    assert "SELECT DISTINCT ?claim ?subject ?predicate ?object" in scan and "GROUP BY ?claim ?subject" not in scan
    assert not any(line.strip().startswith(("#+ if", "#+ else", "#+ end")) for line in (lookup + scan).splitlines())
    # the file as it stands is one query, both shapes joined, with the same rows
    raw = lia.query(view.text, default_graph=[NamedNode(LIA_GRAPH), DefaultGraph(), ONTOLOGY_GRAPH])
    assert names(raw) == STORY_NOW | EXTRA_NOW


@pytest.mark.parametrize(("body", "error"), [
    ("#+ if subject\n#+ bindings\n", "has no '#\\+ end'"),
    ("#+ else\n#+ bindings\n", "'#\\+ else' without '#\\+ if'"),
    ("#+ if subject\n#+ if subject\n#+ end\n#+ end\n#+ bindings\n", "inside the '#\\+ if subject' block"),
    ("#+ if when\n#+ else\n#+ end\n#+ bindings\n", "names no optional parameter"),
    ("#+ if subject\n#+ bindings\n#+ end\n", r"needs a '#\+ bindings' line \(given: none of subject\); found none"),
])
def test_malformed_shape_blocks_are_refused_with_the_file(tmp_path, body: str, error: str) -> None:
    path = tmp_path / "broken.rq"
    path.write_text("# broken: a view\n#+ param when datetime required  a time\n#+ param subject iri optional  a subject\n"
                    "SELECT * WHERE {\n" + body + "}\n")
    with pytest.raises(ValueError, match=error) as info:
        views_module.list_views(tmp_path)
    assert str(path) in str(info.value)


def test_a_parameter_of_an_unknown_type_is_refused_naming_the_file_parameter_and_type(tmp_path) -> None:
    path = tmp_path / "odd.rq"
    path.write_text("# odd: a view\n#+ param when timestamp required  a time\nSELECT * WHERE {\n#+ bindings\n}\n")
    with pytest.raises(ValueError, match=f"{path}: parameter when has unknown type 'timestamp'"):
        views_module.list_views(tmp_path)


def test_a_views_summary_is_its_first_comment_after_the_name_colons_included(tmp_path) -> None:
    (tmp_path / "plain.rq").write_text("# plain: the claims: all of them\nSELECT * WHERE { ?s ?p ?o }\n")
    (view,) = views_module.list_views(tmp_path)
    assert view.description == "the claims: all of them"


def test_unknown_and_missing_parameters_are_refused(lia: MemoryStore) -> None:
    with pytest.raises(ValueError, match="no parameter 'valid_at'"):
        lia.view("current", {"valid_at": "2026-01-01T00:00:00Z"})
    with pytest.raises(ValueError, match="needs parameter 'valid_at'"):
        lia.view("historical", {})
    with pytest.raises(ValueError, match="needs parameter 'known_at'"):
        lia.view("audit", {"valid_at": "2026-01-01T00:00:00Z"})
    with pytest.raises(ValueError, match="needs parameter 'claim'"):
        lia.view("history", {})


def test_every_view_documents_itself() -> None:
    for name in ("current", "historical", "audit", "history", "contradictions"):
        view = views_module.get_view(name)
        assert view.description, name
        assert view.param("tenant").type == "iri"
        assert all(p.description for p in view.params), name


def test_current_historical_and_audit_share_one_body() -> None:
    def body(name: str) -> str:
        """Both shapes of the query, less the lines that bind ?knownTime and ?validTime."""
        text = views_module.get_view(name).text
        text = text[text.index("SELECT ?claim ?subject ?predicate ?object ?standing WHERE {"):]
        text = re.sub(r"(#\+ bindings\n)\s*BIND\(.* AS \?knownTime\)\n\s*BIND\(.* AS \?validTime\)\n", r"\1", text)
        return re.sub(r"(#\+ bindings\n)\s*BIND\(.* AS \?knownTime\)\n", r"\1", text)

    assert body("current").count("#+ bindings\n") == 3
    assert "AS ?knownTime)" not in body("current") and "AS ?validTime)" not in body("current")
    assert body("current") == body("historical") == body("audit")


# ---------------------------------------------------------------------------------------
# 2. Random histories against the model
# ---------------------------------------------------------------------------------------

T = "https://example.org/t/"
G1, G2 = "https://example.org/tenants/one", "https://example.org/tenants/two"
SUBJECTS = [T + "s0", T + "s1"]
PF, PG, PH, PN = T + "pf", T + "pg", T + "ph", T + "pn"  # functional in G1 / shared / G2; not functional
OBJECTS = [Term(T + "o0"), Term(T + "o1"), Term("x", XSD + "string"), Term("1", XSD + "integer"),
           Term("1.0", XSD + "decimal"), Term("2", XSD + "integer")]
CONTEXTS = [T + "night", T + "morning"]
CLAIM, IDC, OCC = MEM + "Claim", MEM + "IdentityCandidate", MEM + "Occurrence"
MY, SUB, OTHER = T + "MyClaim", T + "SubClaim", T + "OtherClaim"  # shared, G1 (under MyClaim), G2 subclasses
CLASSES = [frozenset({CLAIM})] * 6 + [frozenset({IDC}), frozenset({CLAIM, IDC}), frozenset({MY}),
                                      frozenset({SUB}), frozenset({OTHER}), frozenset({OCC})]
BASE_CLASSES = frozenset({CLAIM, IDC, MY})

# Times: a grid of instants one day apart around now, none of them within six hours of
# now, so that NOW() in a query and `now` in the model agree whatever the run's speed.
NOW0 = datetime.now(UTC).replace(microsecond=0)
ANCHOR = NOW0 + timedelta(hours=12)
GRID = [ANCHOR + timedelta(days=k) for k in range(-6, 3)]  # 6 in the past, 3 in the future
QUERY_TIMES = GRID + [g + timedelta(hours=6) for g in GRID] + [ANCHOR - timedelta(days=400),
                                                                 ANCHOR + timedelta(days=400)]

times = st.sampled_from(GRID)
past = st.sampled_from(GRID[:6])
maybe_time = st.one_of(st.none(), times)


@st.composite
def records(draw, prefix: str, n: int, earlier: list[str]):
    out: list[Record] = []
    for i in range(n):
        rid = f"{T}{prefix}{i}"
        older = earlier + [r.id for r in out]
        frm = draw(maybe_time)
        until = draw(st.one_of(st.none(), st.none(), times))
        if frm is not None and until is not None and until <= frm:
            frm, until = (until, frm) if until < frm else (frm, None)
        out.append(Record(
            id=rid,
            subject=draw(st.sampled_from(SUBJECTS)),
            predicate=draw(st.sampled_from([PF, PF, PG, PH, PN])),
            object=draw(st.sampled_from(OBJECTS)),
            classes=draw(st.sampled_from(CLASSES)),
            valid_from=frm,
            valid_until=until,
            recorded_at=draw(st.one_of(st.none(), times, past, past)),
            supersedes=tuple(draw(st.lists(st.sampled_from(older), max_size=2, unique=True))) if older else (),
            contradicts=tuple(draw(st.lists(st.sampled_from(older), max_size=1))) if older and draw(st.booleans()) else (),
            context=frozenset(draw(st.lists(st.sampled_from(CONTEXTS), max_size=2, unique=True))),
        ))
    return out


@st.composite
def retractions(draw, prefix: str, targets: list[str]):
    if not targets:
        return []
    return [Retraction(f"{T}{prefix}{i}", tuple(draw(st.lists(st.sampled_from(targets), min_size=1, max_size=2,
                                                               unique=True))), draw(maybe_time))
            for i in range(draw(st.integers(0, 3)))]


@st.composite
def scenarios(draw):
    """Tenant one's memory, and tenant two's, which may supersede, retract or contradict tenant one's claims."""
    one = draw(records("c", draw(st.integers(1, 10)), []))
    one_ids = [r.id for r in one]
    two = draw(records("d", draw(st.integers(0, 5)), one_ids))
    m1 = Memory(one, draw(retractions("r", one_ids)), BASE_CLASSES | {SUB}, frozenset({PF, PG}))
    m2 = Memory(two, draw(retractions("q", one_ids + [r.id for r in two])), BASE_CLASSES | {OTHER},
                frozenset({PG, PH}))
    return m1, m2, [draw(st.booleans()) for _ in range(64)]


def lit_time(t: datetime, shifted: bool) -> str:
    if shifted:  # the same instant written in another zone: compared as values
        t = t.astimezone(timezone(timedelta(hours=2)))
    return f'"{t.isoformat().replace("+00:00", "Z")}"^^xsd:dateTime'


def term_text(o: Term) -> str:
    return f"<{o.value}>" if o.is_iri else f'"{o.value}"^^<{o.datatype}>'


def graph_text(m: Memory, shifts: list[bool]) -> str:
    lines: list[str] = []
    for i, r in enumerate(m.records):
        props = [f"a {', '.join(f'<{c}>' for c in sorted(r.classes))}",
                 f"rdf:reifies <<( <{r.subject}> <{r.predicate}> {term_text(r.object)} )>>"]
        for name, t in (("validFrom", r.valid_from), ("validUntil", r.valid_until), ("recordedAt", r.recorded_at)):
            if t is not None:
                props.append(f"mem:{name} {lit_time(t, shifts[(3 * i + len(name)) % len(shifts)])}")
        props += [f"mem:{name} {lit_time(t, shifts[(3 * i + k) % len(shifts)])}"
                  for k, (name, t) in enumerate(r.more_times)]
        props += [f"mem:supersedes <{o}>" for o in r.supersedes]
        props += [f"mem:contradicts <{o}>" for o in r.contradicts]
        props += [f"mem:context <{c}>" for c in sorted(r.context)]
        lines.append(f"<{r.id}> " + " ;\n    ".join(props) + " .")
    for x in m.retractions:
        props = ["a mem:Retraction"] + [f"mem:retracts <{t}>" for t in x.targets]
        if x.recorded_at is not None:
            props.append(f"mem:recordedAt {lit_time(x.recorded_at, False)}")
        lines.append(f"<{x.id}> " + " ; ".join(props) + " .")
    return "\n".join(lines)


def trig(m1: Memory, m2: Memory, shifts: list[bool], shared: Memory | None = None) -> str:
    """The two tenants' graphs, and ``shared`` records (if any) in the default graph."""
    return f"""PREFIX mem: <{MEM}>
PREFIX xsd: <{XSD}>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
<{MY}> rdfs:subClassOf mem:Claim .
<{PG}> a owl:FunctionalProperty .
{graph_text(shared, shifts[1:] + shifts[:1]) if shared else ""}
GRAPH <{G1}> {{
<{SUB}> rdfs:subClassOf <{MY}> .
<{PF}> a owl:FunctionalProperty .
{graph_text(m1, shifts)}
}}
GRAPH <{G2}> {{
<{OTHER}> rdfs:subClassOf mem:Claim .
<{PH}> a owl:FunctionalProperty .
{graph_text(m2, shifts[::-1])}
}}
"""


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def object_key(term) -> tuple:
    if isinstance(term, NamedNode):
        return ("iri", term.value)
    dt = term.datatype.value
    if dt in (XSD + "integer", XSD + "decimal"):
        return ("number", Decimal(term.value))
    return ("literal", term.value, dt)


def check_claim_rows(rows, memory: Memory, expected: set[str], label: str) -> None:
    rows = list(rows)
    got = [r["claim"].value for r in rows]
    assert len(got) == len(set(got)), f"{label}: duplicate rows {got}"
    assert set(got) == expected, f"{label}: view {sorted(set(got))} != model {sorted(expected)}"
    by_id = memory.by_id()
    for row in rows:
        rec = by_id[row["claim"].value]
        assert (row["subject"].value, row["predicate"].value) == (rec.subject, rec.predicate), label
        assert object_key(row["object"]) == rec.object.key(), label


# Profiles for this test only (loading one would change every hypothesis test):
# "memkg-views" (default, a few hundred histories, ~15 s) and "memkg-views-deep".
settings.register_profile("memkg-views", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("memkg-views-deep", settings.get_profile("memkg-views"), max_examples=5000)
VIEWS_SETTINGS = settings(settings.get_profile(os.environ.get("MEMKG_VIEWS_PROFILE", "memkg-views")))
if "MEMKG_VIEWS_EXAMPLES" in os.environ:
    VIEWS_SETTINGS = settings(VIEWS_SETTINGS, max_examples=int(os.environ["MEMKG_VIEWS_EXAMPLES"]))


def viewed(store: MemoryStore, name: str, params: dict[str, str]) -> list:
    """A view's rows; for a subject or claim that no graph of its scope holds, the view raises
    UnknownIRIError, and the model's rows must then be none: compared as no rows."""
    try:
        return list(store.view(name, params))
    except UnknownIRIError:
        return []


@pytest.mark.slow
@VIEWS_SETTINGS
@given(scenario=scenarios(), data=st.data())
def test_views_match_the_model_on_random_histories(scenario, data) -> None:
    m1, m2, shifts = scenario
    store = new_store()
    store.load_data(trig(m1, m2, shifts), format="trig")
    now = datetime.now(UTC)
    assert abs(now - NOW0) < timedelta(hours=5), "the run outlived the time grid"
    when = st.sampled_from(QUERY_TIMES)
    subject = st.sampled_from(SUBJECTS + [T + "nobody"])

    for label, memory, base in (("one", m1, {"tenant": G1}), ("two", m2, {"tenant": G2}),
                                ("all", m1.merged(m2), {})):
        # present transaction time, present valid time
        event(f"{label}: {min(len(memory.current(now)), 3)}+ current claims")
        check_claim_rows(store.view("current", base), memory, memory.current(now), f"{label} current")
        s = data.draw(subject)
        check_claim_rows(viewed(store, "current", {**base, "subject": s}), memory, memory.current(now, s),
                         f"{label} current subject={s}")
        # present transaction time, past (or future) valid time
        v = data.draw(when)
        check_claim_rows(store.view("historical", {**base, "valid_at": iso(v)}), memory,
                         memory.historical(v, now), f"{label} historical {v}")
        s, v = data.draw(subject), data.draw(when)
        check_claim_rows(viewed(store, "historical", {**base, "valid_at": iso(v), "subject": s}), memory,
                         memory.historical(v, now, s), f"{label} historical {v} subject={s}")
        # past transaction time, valid at that time, at another past time, and now
        k = data.draw(when)
        check_claim_rows(store.view("audit", {**base, "known_at": iso(k)}), memory, memory.audit(k),
                         f"{label} audit {k}")
        k, v = data.draw(when), data.draw(when)
        check_claim_rows(store.view("audit", {**base, "known_at": iso(k), "valid_at": iso(v)}), memory,
                         memory.audit(k, v), f"{label} audit {k} {v}")
        k, s = data.draw(when), data.draw(subject)
        check_claim_rows(viewed(store, "audit", {**base, "known_at": iso(k), "valid_at": iso(now), "subject": s}),
                         memory, memory.audit(k, now, s), f"{label} audit {k} now subject={s}")
        # contradictions, now and at another valid time
        for v in (None, data.draw(when)):
            params = base if v is None else {**base, "valid_at": iso(v)}
            rows = list(store.view("contradictions", params))
            got = [(r["claim"].value, r["other"].value, r["kind"].value) for r in rows]
            expected = memory.contradictions(now if v is None else v, now)
            event(f"contradictions: {sorted({k for *_, k in expected}) or 'none'}")
            assert len(got) == len(set(got)) and set(got) == expected, f"{label} contradictions {v}: {got} != {expected}"
            assert got == sorted(got), f"{label} contradictions not in order"
            by_id = memory.by_id()
            for r in rows:
                assert r["object"] is not None and object_key(r["object"]) == by_id[r["claim"].value].object.key()
                assert object_key(r["otherObject"]) == by_id[r["other"].value].object.key()
        # history of a few claims (and of an IRI that is not a claim here)
        starts = [r.id for r in memory.records][:4] + [T + "c0", T + "nothing"]
        for c in dict.fromkeys(starts):
            rows = list(viewed(store, "history", {**base, "claim": c}))
            expected = memory.history(c)
            event(f"history length {min(len(expected), 3)}+")
            assert [r["claim"].value for r in rows] == [e.id for e in expected], f"{label} history {c}"
            for r, e in zip(rows, expected):
                got_t = None if r["recordedAt"] is None else datetime.fromisoformat(r["recordedAt"].value)
                assert got_t == e.recorded_at, f"{label} history {c} recordedAt"


@st.composite
def scenarios_with_copies(draw):
    """A scenario where some of tenant one's records state a time property more than once
    (each value must hold), and some are also written, the same, in the shared default
    graph: tenant one's dataset then holds them twice, tenant two's (and every graph's)
    once more. Tenant two judges a copy with its own classes (SubClaim is a claim class
    in tenant one's graph only)."""
    m1, m2, shifts = draw(scenarios())
    names = st.sampled_from(["validFrom", "validUntil", "recordedAt"])
    records = [replace(r, more_times=tuple(draw(st.lists(st.tuples(names, times), max_size=2)))) for r in m1.records]
    m1 = replace(m1, records=records)
    copies = [r for r in records if draw(st.sampled_from([False, False, True]))]
    return m1, m2, Memory(copies), shifts


@pytest.mark.slow
@VIEWS_SETTINGS
@given(scenario=scenarios_with_copies(), data=st.data())
def test_both_shapes_match_the_model_with_repeated_times_and_shared_copies(scenario, data) -> None:
    """current, historical and audit without a subject (the whole-dataset shape of the
    templates) and, claim by claim, for each subject (the lookup shape) against the model."""
    m1, m2, shared, shifts = scenario
    store = new_store()
    store.load_data(trig(m1, m2, shifts, shared), format="trig")
    now = datetime.now(UTC)
    assert abs(now - NOW0) < timedelta(hours=5), "the run outlived the time grid"
    when = st.sampled_from(QUERY_TIMES)
    two = replace(m2, records=m2.records + shared.records)
    event(f"{len(shared.records)} shared copies, {sum(len(r.more_times) for r in m1.records)} repeated times")

    for label, memory, base in (("one", m1, {"tenant": G1}), ("two", two, {"tenant": G2}),
                                ("all", m1.merged(m2), {})):
        v, k, k2, v2 = (data.draw(when) for _ in range(4))
        for view, params, expected in (
            ("current", {}, lambda s: memory.current(now, s)),
            ("historical", {"valid_at": iso(v)}, lambda s: memory.historical(v, now, s)),
            ("audit", {"known_at": iso(k)}, lambda s: memory.audit(k, subject=s)),
            ("audit", {"known_at": iso(k2), "valid_at": iso(v2)}, lambda s: memory.audit(k2, v2, s)),
        ):
            label_view = f"{label} {view} {params}"
            check_claim_rows(store.view(view, {**base, **params}), memory, expected(None), label_view)
            by_subject = [row for s in SUBJECTS for row in viewed(store, view, {**base, **params, "subject": s})]
            check_claim_rows(by_subject, memory, expected(None), f"{label_view}, subject by subject")


@pytest.mark.parametrize("subject", [None, SUBJECTS[0]], ids=["every subject", "one subject"])
def test_the_present_is_read_from_the_query_clock_with_half_open_bounds(subject: str | None) -> None:
    """SPEC §3-4 at the present, by behaviour (not by comparing template texts): ``current`` and
    ``contradictions`` read NOW() when they run. A claim whose ``validUntil`` has just passed is
    no longer current, one whose ``validFrom`` has just passed is; one recorded, superseded or
    retracted a moment ago counts as such now, one dated in the future not yet. The model of
    tests/store/time_oracle.py gives the expected rows."""
    just = datetime.now(UTC) - timedelta(milliseconds=1)  # passed before any query below runs
    later = just + timedelta(hours=1)
    o = Term(T + "o0")

    def claim(name: str, **kwargs) -> Record:  # type: ignore[no-untyped-def]
        return Record(id=T + name, subject=SUBJECTS[int(name[-1]) % 2], predicate=PF, object=Term(T + name), **kwargs)

    records = [
        claim("expired0", valid_until=just), claim("ending1", valid_until=later),
        claim("started0", valid_from=just), claim("starting1", valid_from=later),
        claim("recorded0", recorded_at=just), claim("unrecorded1", recorded_at=later),
        claim("replaced0"), claim("successor0", recorded_at=just, supersedes=(T + "replaced0",)),
        claim("replacing1"), claim("future0", recorded_at=later, supersedes=(T + "replacing1",)),
        claim("retracted1"), claim("kept0"),
        Record(id=T + "bounded1", subject=SUBJECTS[1], predicate=PN, object=o, valid_from=just - timedelta(days=1),
               valid_until=later),
    ]
    memory = Memory(records, [Retraction(T + "r0", (T + "retracted1",), just),
                              Retraction(T + "r1", (T + "kept0",), later)], BASE_CLASSES | {SUB}, frozenset({PF}))
    store = new_store()
    store.load_data(trig(memory, Memory(), [False] * 64), format="trig")
    params = {"tenant": G1} | ({"subject": subject} if subject else {})
    rows = list(store.view("current", params))
    now = datetime.now(UTC)
    expected = {"ending1", "started0", "recorded0", "successor0", "replacing1", "kept0", "bounded1"}
    assert {r["claim"].value.removeprefix(T) for r in rows} == {
        c for c in expected if subject is None or c.endswith("0")}  # names ending in 0 are about SUBJECTS[0]
    check_claim_rows(rows, memory, memory.current(now, subject), "current at the present")
    pairs = {(r["claim"].value, r["other"].value, r["kind"].value) for r in store.view("contradictions", {"tenant": G1})}
    assert pairs == memory.contradictions(datetime.now(UTC), datetime.now(UTC))
    assert pairs  # functional values valid now do contradict: the comparison means something
    # historical at a valid time a moment ago: known now, valid then.
    check_claim_rows(store.view("historical", {**params, "valid_at": iso(just)}), memory,
                     memory.historical(just, datetime.now(UTC), subject), "historical a moment ago")
