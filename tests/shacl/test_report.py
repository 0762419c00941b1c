"""Validation reports: the result fields, paths, and the sh:ValidationReport graph."""

from __future__ import annotations

from pyoxigraph import DefaultGraph, Literal, NamedNode, RdfFormat, Store, parse

from memkg.shacl import ValidationReport
from memkg.shacl.graph import ShapesGraph
from memkg.shacl.paths import parse_path

from .helpers import ex, shapes, store

SH = "http://www.w3.org/ns/shacl#"

SHAPES = shapes("""
ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:severity sh:Info ;
  sh:property [ sh:path ( ex:p [ sh:inversePath ex:q ] [ sh:zeroOrMorePath ex:r ] ) ; sh:minCount 1 ;
                sh:message "custom {$minCount}"@en, "eigene {$minCount}"@de ] ;
  sh:property [ sh:path [ sh:alternativePath ( ex:a ex:b ) ] ; sh:datatype xsd:integer ; sh:severity sh:Warning ;
                sh:message "bad {?value} at {$this} ({$nothing})" ] .
ex:C a sh:NodeShape ; sh:targetClass ex:T ; sh:closed true ; sh:ignoredProperties ( rdf:type ex:a ex:b ex:p ) .
""")
DATA = "ex:x a ex:T ; ex:a 'one' ; ex:extra 5 ."


def test_result_fields() -> None:
    report = SHAPES.validate(store(DATA))
    assert not report.conforms and len(report) == 3
    by_component = {r.component.value.removeprefix(SH): r for r in report.results}
    closed = by_component["ClosedConstraintComponent"]
    assert (closed.focus, str(closed.path), closed.value) == (ex("x"), "<http://example.org/extra>", Literal(5))
    assert closed.severity == NamedNode(SH + "Violation")
    datatype = by_component["DatatypeConstraintComponent"]
    assert str(datatype.path) == "(<http://example.org/a>|<http://example.org/b>)"
    assert datatype.severity == NamedNode(SH + "Warning"), "each shape has its own severity"
    assert (datatype.message, datatype.language) == ("bad one at http://example.org/x ({$nothing})", None), "unknown variables are kept"
    count = by_component["MinCountConstraintComponent"]
    assert (count.message, count.language) == ("custom 1", "en"), "English preferred, parameters filled in"
    assert count.value is None and count.severity == NamedNode(SH + "Violation")


def test_report_graph_round_trips() -> None:
    report = SHAPES.validate(store(DATA))
    for fmt in ("turtle", "nt", RdfFormat.TRIG, "nquads", "jsonld", "xml"):
        assert report.serialize(fmt)
    graph = Store()
    graph.load(report.serialize("turtle").encode(), format=RdfFormat.TURTLE)
    [rep] = [q.subject for q in graph.quads_for_pattern(None, NamedNode(SH + "conforms"), None, DefaultGraph())]
    results = [q.object for q in graph.quads_for_pattern(rep, NamedNode(SH + "result"), None, DefaultGraph())]
    assert len(results) == 3
    sg = ShapesGraph(q.triple for q in graph)
    paths = {parse_path(sg, q.object).sparql() for q in graph.quads_for_pattern(None, NamedNode(SH + "resultPath"), None, DefaultGraph())}
    assert paths == {str(r.path) for r in report.results}, "complex paths are written as SHACL path structures"


def test_conforming_report() -> None:
    report = SHAPES.validate(Store())
    assert report.conforms and str(report) == "Conforms" and report.results == ()
    quads = report.to_quads(graph_name=ex("g"))
    assert {q.graph_name for q in quads} == {ex("g")}
    assert ValidationReport(True, ()).serialize().count("sh:conforms true") == 1


def test_messages_fall_back_to_a_description() -> None:
    report = shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:class ex:C .").validate(Store())
    assert report.results[0].message == "Value is not an instance of <http://example.org/C>"
    assert list(parse(report.serialize().encode(), format=RdfFormat.TURTLE))
