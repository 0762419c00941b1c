"""SHACL-AF rules (``--advanced``): triple and SPARQL rules, ``sh:order``, conditions, a
fixpoint with a bound, and conclusions kept on a copy (never in the files or the store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import NamedNode, RdfFormat, Store, parse

from memkg import MemoryStore
from memkg.adapters.cli import main
from memkg.shacl import RuleError, Shapes
from memkg.validation import ValidationOptions, validate_files, validate_store

PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""
RULES = PREFIXES + """
ex:RectangleShape a sh:NodeShape ; sh:targetClass ex:Rectangle ;
  sh:rule [ a sh:SPARQLRule ; sh:order 2 ; sh:prefixes ex:prefixes ;
    sh:construct "CONSTRUCT { $this ex:area ?area } WHERE { $this ex:width ?w ; ex:height ?h . BIND(?w * ?h AS ?area) }" ] ;
  sh:rule [ a sh:TripleRule ; sh:order 1 ; sh:condition ex:SquareCondition ;
    sh:subject sh:this ; sh:predicate ex:height ; sh:object [ sh:path ex:width ] ] .
ex:SquareCondition sh:property [ sh:path ex:kind ; sh:hasValue "square" ] .
ex:AreaShape a sh:NodeShape ; sh:targetClass ex:Rectangle ;
  sh:property [ sh:path ex:area ; sh:minCount 1 ; sh:maxInclusive 10 ] .
ex:prefixes sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
"""
DATA = """@prefix ex: <http://example.org/> .
ex:sq a ex:Rectangle ; ex:kind "square" ; ex:width 3 .
ex:wide a ex:Rectangle ; ex:width 2 ; ex:height 4 .
ex:odd a ex:Rectangle ; ex:width 5 .
"""


def shapes(text: str) -> Shapes:
    return Shapes.from_quads(parse(text.encode(), format=RdfFormat.TURTLE))


def test_rules_run_in_order_to_a_fixpoint_into_their_own_graph() -> None:
    store = Store()
    store.load(DATA.encode(), format=RdfFormat.TURTLE)
    before = set(store)
    inferred = NamedNode("urn:inferred")
    added = shapes(RULES).apply_rules(store, into=inferred)
    areas = {(str(q.subject), q.object.value) for q in store.quads_for_pattern(None, NamedNode("http://example.org/area"),
                                                                               None, inferred)}
    # sh:order 1 makes ex:sq's height, so the sh:order 2 rule finds its area in the same round
    assert areas == {("<http://example.org/sq>", "9"), ("<http://example.org/wide>", "8")}
    assert added == 3 and set(q for q in store if q.graph_name != inferred) == before


def test_a_rule_that_never_settles_stops_at_its_bound_naming_it() -> None:
    endless = PREFIXES + """
    ex:S sh:targetClass ex:Node ;
      sh:rule ex:grow .
    ex:grow a sh:SPARQLRule ;
      sh:construct "CONSTRUCT { ?next a <http://example.org/Node> } WHERE { BIND(BNODE() AS ?next) }" .
    """
    store = Store()
    store.load(b"<http://example.org/a> a <http://example.org/Node> .", format=RdfFormat.TURTLE)
    with pytest.raises(RuleError, match="http://example.org/grow") as refused:
        shapes(endless).apply_rules(store, into=NamedNode("urn:inferred"), max_rounds=5)
    assert "after 5 rounds" in str(refused.value)


def test_a_malformed_rule_is_a_shape_error_naming_shape_and_term() -> None:
    bad = PREFIXES + "ex:S sh:targetNode ex:a ; sh:rule [ a sh:TripleRule ; sh:subject sh:this ; sh:object 1 ] ."
    store = Store()
    with pytest.raises(Exception, match=r"sh:predicate") as refused:
        shapes(bad).apply_rules(store, into=NamedNode("urn:inferred"))
    assert "http://example.org/S" in str(refused.value)


def test_advanced_validation_sees_the_conclusions(tmp_path: Path) -> None:
    data, rules = tmp_path / "data.ttl", tmp_path / "rules.ttl"
    data.write_text(DATA)
    rules.write_text(RULES)
    plain = validate_files([data], extra_shapes=[rules], options=ValidationOptions(shapes_only=True))
    assert {str(r.focus) for r in plain.results} == {"<http://example.org/sq>", "<http://example.org/wide>",
                                                     "<http://example.org/odd>"}, "without rules no area exists"
    advanced = validate_files([data], extra_shapes=[rules], options=ValidationOptions(shapes_only=True, advanced=True))
    assert {(str(r.focus), r.line) for r in advanced.results} == {("<http://example.org/odd>", 4)}
    assert data.read_text() == DATA


def test_without_advanced_each_rule_is_reported_ignored(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("data.ttl").write_text(DATA)
    Path("rules.ttl").write_text(RULES)
    plain = validate_files(["data.ttl"], extra_shapes=["rules.ttl"], options=ValidationOptions(shapes_only=True))
    rules = len(shapes(RULES).rules())
    assert rules >= 2 and len(plain.warnings) == rules
    assert all(" ignored: SHACL-AF rules run with --advanced" in w and w.startswith("rule ") for w in plain.warnings)
    advanced = validate_files(["data.ttl"], extra_shapes=["rules.ttl"],
                              options=ValidationOptions(shapes_only=True, advanced=True))
    assert advanced.warnings == []
    assert main(["validate", "data.ttl", "--shapes", "rules.ttl", "--shapes-only"]) == 1
    assert capsys.readouterr().err.count("ignored: SHACL-AF rules run with --advanced") == rules


def test_rules_never_write_into_the_store_they_judge(tmp_path: Path) -> None:
    rules = tmp_path / "rules.ttl"
    rules.write_text(RULES)
    with MemoryStore(tmp_path / "store", validation=None) as store:
        store.load_data(DATA, format="turtle")
        before = len(store.raw)
        report = validate_store(store, extra_shapes=[rules], options=ValidationOptions(shapes_only=True, advanced=True))
        assert {str(r.focus) for r in report.results} == {"<http://example.org/odd>"}
        assert len(store.raw) == before


def test_cli_advanced_and_the_rule_bound(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("data.ttl").write_text(DATA)
    Path("rules.ttl").write_text(RULES)
    assert main(["validate", "data.ttl", "--shapes", "rules.ttl", "--shapes-only", "--advanced"]) == 1
    assert "data.ttl:4:1:" in capsys.readouterr().out
    Path("endless.ttl").write_text(PREFIXES + 'ex:S sh:targetClass ex:Rectangle ; sh:rule [ sh:construct '
                                   '"CONSTRUCT { ?n a <http://example.org/Rectangle> } WHERE { BIND(BNODE() AS ?n) }" ] .')
    code = main(["validate", "data.ttl", "--shapes", "endless.ttl", "--shapes-only", "--advanced",
                 "--max-rule-rounds", "3"])
    assert code == 2 and "after 3 rounds" in capsys.readouterr().err


def test_a_sparql_rule_calls_a_sparql_function() -> None:
    """SHACL-AF §5: the shapes graph's sh:SPARQLFunction is callable from an sh:construct too."""
    s = shapes(PREFIXES + """ex:area a sh:SPARQLFunction ; sh:prefixes ex:prefixes ; sh:parameter [ sh:path ex:r ] ;
      sh:select "SELECT ?a WHERE { $r ex:width ?w ; ex:height ?h BIND(?w * ?h AS ?a) }" .
    ex:prefixes sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
    ex:S a sh:NodeShape ; sh:targetClass ex:Rectangle ; sh:rule [ a sh:SPARQLRule ; sh:prefixes ex:prefixes ;
      sh:construct "CONSTRUCT { $this ex:area ?a } WHERE { $this a ex:Rectangle BIND(ex:area($this) AS ?a) }" ] .""")
    store = Store()
    store.load(DATA.encode(), format=RdfFormat.TURTLE)
    into = NamedNode("http://example.org/inferred")
    assert s.apply_rules(store, into=into) == 1
    assert [q.object.value for q in store.quads_for_pattern(None, NamedNode("http://example.org/area"), None, into)] == ["8"]
