"""Tests named after realistic bugs (issue 31): boundaries, defaults that grant rights, reach.

Each test here was checked against its bug planted by hand: it fails with the bug, passes without.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyoxigraph import NamedNode, RdfFormat, Store, parse

from memkg import Claim, MemoryStore, Message, Predicate, ValidationError, Vertex, mem
from memkg import provenance as P
from memkg.adapters.cli import main

from memkg.guard.access import Tokens
from memkg.guard.limits import OPTIONS, LimitExceeded, Limits
from memkg.shacl import Shapes

# -- limits: exactly at the limit passes, one past is refused --------------------------

SIZE_LIMITS = sorted(name for name in OPTIONS if name != "max_depth")


@pytest.mark.parametrize("name", SIZE_LIMITS)
def test_a_size_equal_to_its_limit_is_accepted_and_one_more_is_refused(name: str) -> None:
    limits = Limits(**{name: 10})
    limits.check_size(name, 10, "the input")
    with pytest.raises(LimitExceeded) as err:
        limits.check_size(name, 11, "the input")
    assert err.value.limit == name and OPTIONS[name] in str(err.value)


def test_a_query_of_exactly_max_query_bytes_is_accepted_and_one_more_byte_is_refused() -> None:
    query = "ASK {}"
    Limits(max_query=len(query)).check_query(query)
    with pytest.raises(LimitExceeded, match="--max-query"):
        Limits(max_query=len(query) - 1).check_query(query)


# -- tokens: read-only unless the entry says "write": true -----------------------------


@pytest.mark.parametrize(("entry", "write"), [
    ({"tenants": ["urn:memkg:a"]}, False),
    ({"tenants": ["urn:memkg:a"], "write": False}, False),
    ({"tenants": ["urn:memkg:a"], "write": True}, True),
])
def test_a_token_writes_only_when_its_entry_says_write_true(tmp_path: Path, entry: dict, write: bool) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"a-long-enough-token": entry}), encoding="utf-8")
    assert Tokens.load(path).holder("a-long-enough-token").write is write


# -- SHACL ranges at the bound: the SPARQL path and the as-written path agree ----------

_PREFIXES = b"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""


@pytest.mark.parametrize(("component", "value", "conforms"), [
    ("sh:minExclusive", "5", False), ("sh:minExclusive", "6", True), ("sh:minExclusive", "4", False),
    ("sh:minInclusive", "5", True), ("sh:minInclusive", "4", False), ("sh:minInclusive", "6", True),
    ("sh:maxExclusive", "5", False), ("sh:maxExclusive", "4", True), ("sh:maxExclusive", "6", False),
    ("sh:maxInclusive", "5", True), ("sh:maxInclusive", "6", False), ("sh:maxInclusive", "4", True),
])
@pytest.mark.parametrize("written", ["{}", "0{}", "+{}"])
def test_range_bounds_judge_alike_in_sparql_and_as_written(component: str, value: str, conforms: bool, written: str) -> None:
    shapes = Shapes.from_quads(parse(_PREFIXES + f"""
        <http://e/S> sh:targetSubjectsOf <http://e/p> ; sh:property [ sh:path <http://e/p> ; {component} 5 ] .
    """.encode(), format=RdfFormat.TURTLE))
    data = f'<http://e/a> <http://e/p> "{written.format(value)}"^^<http://www.w3.org/2001/XMLSchema#integer> .'
    quads = list(parse(data.encode(), format=RdfFormat.TURTLE))
    as_written = shapes.validate_quads(quads)
    store = Store()
    store.extend(quads)
    in_store = shapes.validate(store)
    # With focus nodes (as a write is judged), Python may clear a value before any SPARQL runs.
    focused = shapes.validate(store, focus=[quads[0].subject])
    assert as_written.conforms is conforms, (component, value, written)
    assert in_store.conforms is conforms, (component, value, written)
    assert focused.conforms is conforms, (component, value, written)


@pytest.mark.parametrize(("component", "value", "conforms"), [
    (">", "5", False), (">", "6", True), (">=", "5", True), (">=", "4", False),
    ("<", "5", False), ("<", "4", True), ("<=", "5", True), ("<=", "6", False),
])
def test_range_bounds_at_the_bound_inside_sh_or_where_python_decides_first(component: str, value: str, conforms: bool) -> None:
    # sh:or asks each member whether a value surely conforms, in Python, before SPARQL.
    name = {">": "sh:minExclusive", ">=": "sh:minInclusive", "<": "sh:maxExclusive", "<=": "sh:maxInclusive"}[component]
    shapes = Shapes.from_quads(parse(_PREFIXES + f"""
        <http://e/S> sh:targetSubjectsOf <http://e/p> ;
            sh:property [ sh:path <http://e/p> ; sh:or ( [ {name} 5 ] ) ] .
    """.encode(), format=RdfFormat.TURTLE))
    data = f'<http://e/a> <http://e/p> {value} .'
    assert shapes.validate_quads(parse(data.encode(), format=RdfFormat.TURTLE)).conforms is conforms


# -- a write whose only offending node is a blank node is refused ----------------------


def test_a_write_whose_only_offending_subject_is_a_blank_node_is_refused() -> None:
    # The store holds data, so the write is judged by its focus nodes, not by validating all of it.
    store = MemoryStore(validation="native")
    store.add(Vertex(id="https://e/Lia", cls=mem.Person), graph="https://e/a")
    before = set(store.quads())
    data = b'PREFIX mem: <https://w3id.org/memkg#> GRAPH <https://e/a> { _:c a mem:Claim ; mem:about <https://e/Lia> . }'
    with pytest.raises(ValidationError) as info:
        store.write(list(parse(data, format=RdfFormat.TRIG)))
    assert any(str(v.focus).startswith("_:") and str(v.shape).endswith("ClaimProvenanceShape>") for v in info.value.violations), info.value
    assert set(store.quads()) == before


# -- provenance: support reads the claim's tenant only; erasure follows activities -----

_TENANT_A, _TENANT_B = "https://e/tenants/a", "https://e/tenants/b"
_TURTLE = """PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <https://e/>
"""


def _claim_in(tenant: str, extra: str = "") -> str:
    return f"""GRAPH <{tenant}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message . ex:probe a mem:Message .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "v" )>> ; mem:supportedBy ex:m . {extra}
    }}"""


def test_support_reads_refuters_from_the_claims_tenant_only() -> None:
    store = MemoryStore()
    store.load_data(_TURTLE + _claim_in(_TENANT_A) + _claim_in(_TENANT_B, "ex:probe mem:refutes ex:c ."), format="trig")
    assert P.support(store, "https://e/c", tenant=_TENANT_A).refuted_by == ()
    assert [n.value for n in P.support(store, "https://e/c", tenant=_TENANT_B).refuted_by] == ["https://e/probe"]


def test_erasure_removes_what_an_activity_that_used_the_source_generated() -> None:
    store = MemoryStore()
    store.load_data(_TURTLE + f"""GRAPH <{_TENANT_A}> {{
      ex:p a rdf:Property . ex:x a mem:Entity .
      ex:diary a mem:Message ; mem:content "Lia's diary." .
      ex:other a mem:Message ; mem:content "A note by Sam." .
      ex:run a mem:Extraction ; prov:used ex:diary .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "from the diary" )>> ; prov:wasGeneratedBy ex:run .
      ex:kept a mem:Claim ; rdf:reifies <<( ex:x ex:p "from Sam" )>> ; mem:supportedBy ex:other .
    }}""", format="trig")
    result = P.erase(store, "https://e/diary", reason="consent revoked", graph=_TENANT_A)
    gone = {n.value for n in result.removed}
    assert {"https://e/diary", "https://e/c"} <= gone and "https://e/kept" not in gone
    assert not any(store.quads(NamedNode("https://e/c"), None, None))
    assert any(store.quads(NamedNode("https://e/kept"), None, None))


# -- recall: a claim's validity is half-open, [validFrom, validUntil) ------------------


def _lia_likes_tea(start: datetime, end: datetime) -> tuple[MemoryStore, NamedNode]:
    """A store whose one claim, Lia likes tea, is valid from ``start`` until ``end``."""
    store = MemoryStore()
    store.add_all([Vertex(id="https://e/Lia", cls=mem.Person), Vertex(id="https://e/tea", cls=mem.Entity),
                   Predicate(id="https://e/likes"), Message(id="https://e/m", content="Lia likes tea", event_id="e1")],
                  graph=_TENANT_A)
    claim = store.add(Claim(id="https://e/c", subject="https://e/Lia", predicate="https://e/likes", object="https://e/tea",
                            asserted_by="https://e/m", valid_from=start, valid_until=end), graph=_TENANT_A)
    return store, claim


def test_recall_status_of_a_claim_at_its_valid_from_and_valid_until() -> None:
    start, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    store, claim = _lia_likes_tea(start, end)

    def status(at: datetime) -> str:
        (hit,) = [h for h in store.recall("Lia likes tea", k=20, valid_at=at) if h.node == claim.value]
        return hit.status

    second = timedelta(seconds=1)
    assert status(start - second) == "not-valid"
    assert status(start) == "current"
    assert status(end - second) == "current"
    assert status(end) == "not-valid"


# -- validate --format json: every field of every result is present -------------------

_RESULT_FIELDS = {"severity", "shape", "focusNode", "resultPath", "value", "sourceConstraintComponent",
                  "sourceShape", "graph", "message", "file", "line", "column"}


def test_every_result_of_the_json_report_has_every_field(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    bad = Path(__file__).parent / "fixtures" / "invalid" / "inv5-no-provenance.trig"
    code = main(["--store", str(tmp_path / "store"), "validate", str(bad), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and {"conforms", "engine", "stage", "results"} <= set(report)
    assert report["results"]
    for result in report["results"]:
        assert set(result) == _RESULT_FIELDS
        assert result["graph"] is not None  # the fixture's data is in a named graph


# -- the historical and audit views: half-open valid time and transaction time ---------


def test_the_historical_view_holds_a_claim_from_its_valid_from_until_just_before_its_valid_until() -> None:
    start, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    store, claim = _lia_likes_tea(start, end)

    def holds(at: datetime) -> bool:
        return claim in [r["claim"] for r in store.view("historical", {"tenant": _TENANT_A, "valid_at": at.isoformat()})]

    second = timedelta(seconds=1)
    assert [holds(start - second), holds(start), holds(end - second), holds(end)] == [False, True, True, False]
