"""Cases pySHACL's users reported and pySHACL settled: memkg agrees with pySHACL's verdict,
or differs where the standard says otherwise (each such difference is named in
docs/validation.md's table against pySHACL, with the rule behind it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg.shacl import ShapeError
from memkg.validation import Report, ValidationOptions, validate_files

PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
"""


def validate(tmp_path: Path, shapes: str, data: str, **options: object) -> Report:
    (tmp_path / "shapes.ttl").write_text(PREFIXES + shapes)
    (tmp_path / "data.ttl").write_text(PREFIXES + data)
    return validate_files([tmp_path / "data.ttl"], extra_shapes=[tmp_path / "shapes.ttl"],
                          options=ValidationOptions(shapes_only=True, **options))  # type: ignore[arg-type]


def test_ignored_properties_without_closed_is_refused_naming_the_shape(tmp_path: Path) -> None:
    shapes = "ex:TermShape a sh:NodeShape ; sh:targetClass ex:Term ; sh:ignoredProperties ( rdf:type ) ."
    with pytest.raises(ShapeError, match="ignoredProperties without sh:closed") as caught:
        validate(tmp_path, shapes, "ex:t a ex:Term ; ex:child ex:u .")
    assert "http://example.org/TermShape" in str(caught.value)
    closed = shapes.replace("sh:ignoredProperties", "sh:closed false ; sh:ignoredProperties")
    assert validate(tmp_path, closed, "ex:t a ex:Term ; ex:child ex:u .").conforms


def test_a_sparql_constraint_on_a_sequence_path_with_prefixes_from_an_ontology_node(tmp_path: Path) -> None:
    shapes = """<http://example.org/shapes> a owl:Ontology ;
      sh:declare [ a sh:PrefixDeclaration ; sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
    ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
      sh:property [ a sh:PropertyShape ; sh:path ( ex:via ex:name ) ;
        sh:sparql [ sh:prefixes <http://example.org/shapes> ; sh:message "{$this}: {?name} is not the nome" ;
          sh:select "SELECT $this ?name WHERE { $this $PATH ?name FILTER NOT EXISTS { $this ex:via/ex:nome ?name } }" ] ] ."""
    data = """ex:i1 ex:name "One" ; ex:nome "One" . ex:i2 ex:name "Two" ; ex:nome "Deux" .
    ex:good a ex:Person ; ex:via ex:i1 . ex:bad a ex:Person ; ex:via ex:i2 ."""
    report = validate(tmp_path, shapes, data)
    assert [(r.focus.value, r.message) for r in report.results] == [
        ("http://example.org/bad", "http://example.org/bad: Two is not the nome")]


def test_each_solution_of_a_sparql_constraint_is_a_result_even_when_only_the_message_differs(tmp_path: Path) -> None:
    shapes = """ex:FamilyShape a sh:NodeShape ; sh:targetClass ex:Family ; sh:property ex:FamilyName .
    ex:FamilyName a sh:PropertyShape ; sh:path ex:familyName ; sh:nodeKind sh:Literal ; sh:sparql ex:OneMember .
    ex:OneMember a sh:SPARQLConstraint ; sh:message "{?this} has {?member}" ;
      sh:select "PREFIX ex: <http://example.org/> SELECT ?this ?member WHERE { ?member ex:family ?this }" ."""
    data = """ex:f a ex:Family ; ex:familyName "Junior" .
    ex:bob ex:family ex:f . ex:molly ex:family ex:f . ex:john ex:family ex:f ."""
    report = validate(tmp_path, shapes, data)
    assert sorted(r.message.rsplit("/", 1)[1] for r in report.results) == ["bob", "john", "molly"]


def test_rdfs_literal_is_not_a_datatype_any_literal_has(tmp_path: Path) -> None:
    """A deliberate difference: pySHACL lets ``sh:datatype rdfs:Literal`` (and ``rdfs:Datatype``)
    match any literal; SHACL's sh:datatype matches a literal whose datatype IRI is the value, and no
    literal's is either (``sh:nodeKind sh:Literal`` says "any literal")."""
    shapes = """ex:PlaceShape a sh:NodeShape ; sh:targetClass ex:Place ;
      sh:property [ sh:path ex:asWKT ; sh:datatype rdfs:Literal ] ;
      sh:property [ sh:path ex:asWKT ; sh:nodeKind sh:Literal ; sh:datatype ex:wktLiteral ] ."""
    data = """ex:asWKT rdfs:range ex:wktLiteral . ex:wktLiteral a rdfs:Datatype .
    ex:p a ex:Place ; ex:asWKT "POINT(45.75 4.85)"^^ex:wktLiteral ."""
    for inference in ("none", "rdfs"):
        report = validate(tmp_path, shapes, data, inference=inference)
        assert [r.message for r in report.results] == ["Value is not a well-formed literal of datatype rdfs:Literal"]


def test_a_simple_literal_is_an_xsd_string_in_sh_in(tmp_path: Path) -> None:
    """A deliberate difference: pySHACL (rdflib) tells ``"EPL-2.0"`` from ``"EPL-2.0"^^xsd:string``;
    in RDF 1.1 and 1.2 they are one term (RDF Concepts §3.3: a simple literal is an xsd:string)."""
    shapes = """ex:LicenseShape a sh:NodeShape ; sh:targetClass ex:License ;
      sh:property [ sh:path ex:license ; sh:datatype xsd:string ; sh:in ( "0BSD" "EPL-2.0" ) ] ."""
    for written in ('"EPL-2.0"^^xsd:string', '"EPL-2.0"'):
        assert validate(tmp_path, shapes, f"ex:l a ex:License ; ex:license {written} .").conforms
    assert not validate(tmp_path, shapes, 'ex:l a ex:License ; ex:license "MIT" .').conforms
