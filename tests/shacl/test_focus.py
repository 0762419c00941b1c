"""Incremental validation: ``focus=`` gives exactly the full results of those focus nodes;
``default_graph=`` validates the union of graphs; blank nodes and literals as focus nodes."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import pytest
from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store

from memkg.shacl import ValidationReport

from .helpers import EX, ex, shapes

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
SUBCLASS = NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
XSD_INT = NamedNode("http://www.w3.org/2001/XMLSchema#integer")

SHAPES = shapes("""
ex:S1 a sh:NodeShape ; sh:targetClass ex:A ;
  sh:property [ sh:path ex:p ; sh:minCount 1 ; sh:maxCount 2 ; sh:nodeKind sh:BlankNodeOrIRI ; sh:class ex:B ] ;
  sh:property [ sh:path ex:q ; sh:datatype xsd:integer ; sh:maxInclusive 3 ; sh:uniqueLang true ] ;
  sh:property [ sh:path [ sh:inversePath ex:p ] ; sh:maxCount 1 ; sh:disjoint ex:q ] ;
  sh:property [ sh:path ex:p ; sh:qualifiedValueShape [ sh:class ex:A ] ; sh:qualifiedMaxCount 1 ] .
ex:S2 a sh:NodeShape ; sh:targetSubjectsOf ex:q ;
  sh:or ( [ sh:class ex:A ] [ sh:nodeKind sh:BlankNode ] ) ;
  sh:not [ sh:path ex:p ; sh:hasValue ex:n0 ] ;
  sh:closed true ; sh:ignoredProperties ( rdf:type ex:q ex:p ) .
ex:S3 a sh:PropertyShape ; sh:targetObjectsOf ex:p ; sh:path ex:q ; sh:in ( 1 2 "x" ) ; sh:lessThan ex:p .
ex:S4 a sh:NodeShape ; sh:targetNode ex:n1, ex:n2, "lit" ;
  sh:xone ( [ sh:class ex:A ] [ sh:class ex:B ] ) ; sh:node ex:Rec .
ex:Rec a sh:NodeShape ; sh:or ( [ sh:path ex:p ; sh:maxCount 0 ] [ sh:path ex:p ; sh:minCount 1 ; sh:node ex:Rec ] ) .
ex:S5 a sh:NodeShape ; sh:targetClass ex:B ; sh:sparql [
  sh:select "SELECT $this ?value WHERE { $this <http://example.org/p> ?value . FILTER(isLiteral(?value)) }" ] .
ex:S6 a sh:NodeShape ; sh:targetSubjectsOf ex:p ;
  sh:property [ sh:path ex:r ; sh:hasValue ex:n0 ; sh:equals ex:q ; sh:pattern "^x" ; sh:minLength 1 ;
                sh:languageIn ( "en" ) ; sh:lessThanOrEquals ex:q ; sh:qualifiedValueShape [ sh:class ex:A ] ;
                sh:qualifiedMinCount 1 ] .
""")

BLANKS = [BlankNode(f"b{i}") for i in range(3)]
NODES = [ex(f"n{i}") for i in range(5)] + BLANKS
OBJECTS = NODES + [Literal("1", datatype=XSD_INT), Literal("5", datatype=XSD_INT), Literal("x"), Literal("y", language="en"), Literal("lit")]
PREDICATES = [ex("p"), ex("q"), ex("r")]


@st.composite
def graphs(draw) -> list[Quad]:
    quads = [Quad(ex("A"), SUBCLASS, ex("B"), DefaultGraph())]
    for n in NODES:
        for cls in draw(st.lists(st.sampled_from([ex("A"), ex("B"), ex("C")]), max_size=2, unique=True)):
            quads.append(Quad(n, RDF_TYPE, cls, DefaultGraph()))
    for _ in range(draw(st.integers(0, 18))):
        quads.append(Quad(draw(st.sampled_from(NODES)), draw(st.sampled_from(PREDICATES)), draw(st.sampled_from(OBJECTS)), DefaultGraph()))
    return quads


def key(report: ValidationReport) -> Counter:
    return Counter((str(r.focus), str(r.path), str(r.value), str(r.source_shape), str(r.component)) for r in report.results)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.sets(st.sampled_from(OBJECTS), max_size=4))
def test_focus_validation_equals_full_validation_restricted(quads: list[Quad], focus: set) -> None:
    store = Store()
    store.extend(quads)
    full = SHAPES.validate(store)
    part = SHAPES.validate(store, focus=focus)
    expected = Counter({k: n for k, n in key(full).items() if any(k[0] == str(f) for f in focus)})
    assert key(part) == expected


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.integers(0, 3))
def test_default_graph_union(quads: list[Quad], cut: int) -> None:
    merged = Store()
    merged.extend(quads)
    split = Store()
    g1, g2 = ex("g1"), ex("g2")
    for i, q in enumerate(quads):
        split.add(Quad(q.subject, q.predicate, q.object, g1 if i % 4 == cut else g2))
    split.add(Quad(ex("n4"), RDF_TYPE, ex("A"), DefaultGraph()))  # not in the data graph below
    assert key(SHAPES.validate(split, default_graph=[g1, g2])) == key(SHAPES.validate(merged))
    one = SHAPES.validate(split, default_graph=g1)
    assert key(one) == key(SHAPES.validate(_only(split, g1)))


def _only(store: Store, graph: NamedNode) -> Store:
    out = Store()
    out.extend(Quad(q.subject, q.predicate, q.object, DefaultGraph()) for q in store.quads_for_pattern(None, None, None, graph))
    return out


def test_literal_and_untargeted_focus_nodes() -> None:
    store = Store()
    report = SHAPES.validate(store, focus=[Literal("lit"), ex("nothing"), Literal("1.50", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal"))])
    assert {str(r.focus) for r in report.results} == {'"lit"'}  # xone: "lit" is neither an A nor a B


def test_constraints_on_values_are_skipped_for_a_focus_node_without_values() -> None:
    from memkg.shacl.engine import Engine

    store = Store()
    store.add(Quad(ex("x"), RDF_TYPE, ex("A"), DefaultGraph()))
    # ex:x has no ex:q: of ex:S1's second property shape, nothing is asked...
    with_q, without_q = Engine(SHAPES, store, None), Engine(SHAPES, store, None)
    without_q.validate([ex("x")])
    store.add(Quad(ex("x"), ex("q"), Literal("7", datatype=XSD_INT), DefaultGraph()))
    report = with_q.validate([ex("x")])
    assert {(str(r.path), str(r.component).rsplit("#")[-1]) for r in report if str(r.path) == str(ex("q"))} == {
        (str(ex("q")), "MaxInclusiveConstraintComponent>")}
    assert without_q.branches < with_q.branches
    # ...but sh:minCount, sh:hasValue, sh:equals and sh:qualifiedMinCount report a node with no values.
    store.add(Quad(ex("x"), ex("p"), ex("n1"), DefaultGraph()))
    missing = {str(r.component).rsplit("#")[-1].rstrip(">") for r in SHAPES.validate(store, focus=[ex("x")]).results
               if str(r.path) == str(ex("r"))}
    assert missing == {"HasValueConstraintComponent", "EqualsConstraintComponent", "QualifiedMinCountConstraintComponent"}


def test_incremental_validation_runs_few_queries() -> None:
    from memkg.shacl.engine import Engine

    store = Store()
    store.extend(Quad(ex(f"x{i}"), RDF_TYPE, ex("A"), DefaultGraph()) for i in range(50))
    engine = Engine(SHAPES, store, None)
    engine.validate([ex("x1")])
    assert engine.queries <= 2
    assert EX


def test_a_pattern_cleared_in_python_never_hides_a_mismatch() -> None:
    # Values that match sh:pattern in Python spare the query; anything else is still judged by REGEX.
    zoned = shapes("""
    ex:Z a sh:NodeShape ; sh:targetSubjectsOf ex:t ; sh:property [ sh:path ex:t ; sh:pattern "(Z|[+-][0-9][0-9]:[0-9][0-9])$" ] .
    """)
    store = Store()
    values = {"ok": Literal("2026-01-01T00:00:00Z"), "no-zone": Literal("2026-01-01T00:00:00"),
              "newline": Literal("2026-01-01T00:00:00Z\n"), "iri": ex("at+01:00"), "blank": BlankNode("b")}
    for name, value in values.items():
        store.add(Quad(ex(name), ex("t"), value, DefaultGraph()))
    focus = [ex(name) for name in values]
    assert {str(r.focus) for r in zoned.validate(store, focus=focus).results} == {
        str(ex("no-zone")), str(ex("newline")), str(ex("blank"))}
    assert key(zoned.validate(store, focus=focus)) == key(zoned.validate(store))


def test_values_cleared_in_python_never_hide_a_violation() -> None:
    # Cardinality, node kind, datatype, ranges, sh:or of datatypes and property pairs are
    # decided in Python for the values Python can vouch for; every other value is still
    # judged in SPARQL, with exactly the results of validating the whole store.
    numbers = shapes("""
    ex:N a sh:NodeShape ; sh:targetSubjectsOf ex:v ; sh:nodeKind sh:IRI ;
      sh:property [ sh:path ex:v ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:Literal ;
                    sh:or ( [ sh:datatype xsd:decimal ] [ sh:datatype xsd:integer ] ) ;
                    sh:minInclusive 0 ; sh:maxInclusive 1 ] ;
      sh:property [ sh:path ex:from ; sh:datatype xsd:dateTime ; sh:lessThan ex:until ] ;
      sh:property [ sh:path ex:w ; sh:minCount 1 ] .
    """)
    xsd = "http://www.w3.org/2001/XMLSchema#"
    dec, integer, dt = NamedNode(xsd + "decimal"), NamedNode(xsd + "integer"), NamedNode(xsd + "dateTime")
    cases = {
        "ok": [Literal("0.5", datatype=dec)],
        "one": [Literal("1", datatype=integer)],
        "above": [Literal("1.5", datatype=dec)],
        "below": [Literal("-0.25", datatype=dec)],
        "long": [Literal("0.1000000000000000000001", datatype=dec)],
        "double": [Literal("0.5", datatype=NamedNode(xsd + "double"))],
        "ill-typed": [Literal("abc", datatype=dec)],
        "string": [Literal("0.5")],
        "iri": [ex("half")],
        "two": [Literal("0.5", datatype=dec), Literal("0.25", datatype=dec)],
    }
    store = Store()
    for name, values in cases.items():
        store.extend(Quad(ex(name), ex("v"), v, DefaultGraph()) for v in values)
        store.add(Quad(ex(name), ex("w"), ex("x"), DefaultGraph()))
    dates = {"d-ok": "2026-01-03T00:00:00Z", "d-feb30": "2026-02-30T00:00:00Z", "d-24h": "2026-01-03T24:00:00Z",
             "d-text": "soon", "d-zone": "2026-01-03T00:00:00+15:00"}
    for name, lexical in dates.items():
        store.add(Quad(ex(name), ex("v"), Literal("0.5", datatype=dec), DefaultGraph()))
        store.add(Quad(ex(name), ex("from"), Literal(lexical, datatype=dt), DefaultGraph()))
    store.add(Quad(ex("d-ok"), ex("until"), Literal("2026-01-01T00:00:00Z", datatype=dt), DefaultGraph()))
    store.add(Quad(BlankNode("blank"), ex("v"), Literal("0.5", datatype=dec), DefaultGraph()))
    focus = [ex(name) for name in [*cases, *dates]] + [BlankNode("blank")]
    report = numbers.validate(store, focus=focus)
    assert key(report) == key(numbers.validate(store))
    found = {(str(r.focus).rsplit("/", 1)[-1].strip("<>"), str(r.component).rsplit("#", 1)[-1][:-len("ConstraintComponent>")])
             for r in report.results}
    range_ = {"MinInclusive", "MaxInclusive"}
    assert found == {
        ("above", "MaxInclusive"), ("below", "MinInclusive"), ("double", "Or"), ("two", "MaxCount"),
        *(("ill-typed", c) for c in {"Or", *range_}), *(("string", c) for c in {"Or", *range_}),
        *(("long", c) for c in {"Or", *range_}), *(("iri", c) for c in {"Or", "NodeKind", *range_}),
        ("d-ok", "LessThan"), ("d-feb30", "Datatype"), ("d-text", "Datatype"), ("d-zone", "Datatype"),
        *((d, "MinCount") for d in dates), ("_:blank", "MinCount"), ("_:blank", "NodeKind"),
    }
    # A node whose values all clear in Python costs no query at all.
    from memkg.shacl.engine import Engine

    engine = Engine(numbers, store, None)
    assert engine.validate([ex("ok")]) == [] and engine.queries == 0


def test_a_recursive_sh_or_is_left_to_sparql() -> None:
    looping = shapes("""
    ex:L a sh:NodeShape ; sh:targetSubjectsOf ex:v ; sh:property [ sh:path ex:v ; sh:node ex:R ] ;
      sh:property [ sh:path ex:v ; sh:or ( ex:R [ sh:datatype xsd:string ] ) ] .
    ex:R a sh:NodeShape ; sh:or ( ex:R [ sh:nodeKind sh:IRI ] ) .
    """)
    store = Store()
    store.add(Quad(ex("a"), ex("v"), Literal("x"), DefaultGraph()))
    store.add(Quad(ex("b"), ex("v"), ex("c"), DefaultGraph()))
    focus = [ex("a"), ex("b")]
    assert key(looping.validate(store, focus=focus)) == key(looping.validate(store))


def test_an_sh_or_of_property_shapes_is_cleared_only_by_a_member_that_holds() -> None:
    provenance = shapes("""
    ex:P a sh:NodeShape ; sh:targetClass ex:A ;
      sh:or ( [ sh:path ex:p ; sh:minCount 1 ] [ sh:path ex:q ; sh:minCount 2 ; sh:maxCount 2 ]
              [ sh:path [ sh:inversePath ex:r ] ; sh:minCount 1 ] ) .
    """)
    store = Store()
    facts = {"by-p": [(ex("p"), ex("n1"))], "one-q": [(ex("q"), ex("n1"))], "two-q": [(ex("q"), ex("n1")), (ex("q"), ex("n2"))],
             "three-q": [(ex("q"), ex("n1")), (ex("q"), ex("n2")), (ex("q"), ex("n3"))], "none": []}
    for name, pairs in facts.items():
        store.add(Quad(ex(name), RDF_TYPE, ex("A"), DefaultGraph()))
        store.extend(Quad(ex(name), p, o, DefaultGraph()) for p, o in pairs)
    store.add(Quad(ex("n9"), ex("r"), ex("none"), DefaultGraph()))  # only the inverse path clears ex:none
    store.add(Quad(ex("inv"), RDF_TYPE, ex("A"), DefaultGraph()))
    focus = [ex(name) for name in [*facts, "inv"]]
    report = provenance.validate(store, focus=focus)
    assert key(report) == key(provenance.validate(store))
    assert {str(r.focus) for r in report.results} == {str(ex("one-q")), str(ex("three-q")), str(ex("inv"))}
