"""The RDF 1.1 projection of RDF 1.2 data (memkg.validation.projection)."""

from __future__ import annotations

import doctest
import hashlib

import pyoxigraph as ox
import pyshacl
import pytest
from rdflib import RDF, BNode, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

import memkg.validation.projection
from memkg.validation.projection import (
    REIFIES,
    TRIPLE_TERM_IRI_PREFIX,
    from_rdflib_term,
    proj,
    project,
    to_rdflib_term,
)

XSD = "http://www.w3.org/2001/XMLSchema#"
EX = "http://example.org/"
STRUCTURE = {proj.subject, proj.predicate, proj.object}

DATA = """VERSION "1.2"
PREFIX ex:  <http://example.org/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>

ex:c0 rdf:reifies <<( ex:Lia ex:prefers ex:tea )>> ; ex:note "plain", "thé"@fr, "x"@en--rtl .
ex:c1 rdf:reifies <<( ex:Lia ex:says <<( ex:Aurora ex:recommends ex:tea )>> )>> .
ex:c2 rdf:reifies <<( _:a ex:knows _:b )>> , <<( _:b ex:knows _:a )>> .
_:a ex:name "A" .
ex:c3 rdf:reifies <<( ex:tea ex:costs "01"^^xsd:integer )>> , <<( ex:tea ex:costs "1"^^xsd:integer )>> .
ex:c4 rdf:reifies <<( ex:tea ex:label "tea"@en-GB )>> , <<( ex:tea ex:label "tea"@en--ltr )>> .
ex:c5 rdf:reifies <<( ex:tea ex:weight "1.50"^^xsd:decimal )>> , <<( ex:tea ex:size "big"^^ex:unknown )>> .

GRAPH ex:g1 {
  ex:c0 rdf:reifies <<( ex:Lia ex:prefers ex:tea )>> .
  ex:c6 rdf:reifies <<( ex:Lia ex:drinks "tea"^^xsd:string )>> ; ex:count "abc"^^xsd:integer .
}
_:g2 { ex:c7 rdf:reifies <<( _:a ex:knows ex:Lia )>> . }
"""


@pytest.fixture(scope="module")
def quads() -> list[ox.Quad]:
    return list(ox.parse(DATA, format=ox.RdfFormat.TRIG))


@pytest.fixture(scope="module")
def projection(quads: list[ox.Quad]) -> memkg.validation.projection.Projection:
    return project(quads)


def is_structural(triple: tuple) -> bool:
    s, p, o = triple
    return p in STRUCTURE or (p == RDF.type and o == proj.TripleTerm)


def test_docstring_examples_run() -> None:
    failures, tried = doctest.testmod(memkg.validation.projection)
    assert tried > 0 and failures == 0


def test_round_trip_gives_back_the_original_quads(quads, projection) -> None:
    back = set()
    for s, p, o, g in projection.dataset.quads():
        if not is_structural((s, p, o)):
            back.add(ox.Quad(*(projection.to_original(t) for t in (s, p, o, g))))
    assert back == set(quads)


def test_every_projected_node_maps_back(projection) -> None:
    for quad in projection.dataset.quads():
        for term in quad:
            original = projection.to_original(term)
            if isinstance(original, ox.Triple):
                assert projection.node(original) == term
            elif not isinstance(original, ox.DefaultGraph):
                assert to_rdflib_term(original) == term


def test_named_graphs_are_kept(projection) -> None:
    names = {projection.to_original(g.identifier) for g in projection.dataset.graphs()}
    assert ox.DefaultGraph() in names
    assert ox.NamedNode(EX + "g1") in names
    assert any(isinstance(n, ox.BlankNode) for n in names)


def test_triple_term_structure(quads, projection) -> None:
    for quad in quads:
        if not isinstance(quad.object, ox.Triple):
            continue
        graph = projection.dataset.graph(to_rdflib_term(quad.graph_name))
        stack = [quad.object]
        while stack:  # nested terms are described too, in the same graph
            triple = stack.pop()
            node = projection.node(triple)
            assert (node, RDF.type, proj.TripleTerm) in graph
            for edge, part in ((proj.subject, triple.subject), (proj.predicate, triple.predicate), (proj.object, triple.object)):
                values = list(graph.objects(node, edge))
                assert len(values) == 1
                assert projection.to_original(values[0]) == part
                if isinstance(part, ox.Triple):
                    stack.append(part)


def test_triple_terms_are_never_asserted(quads, projection) -> None:
    for quad in quads:
        if isinstance(quad.object, ox.Triple):
            t = quad.object
            if not isinstance(t.object, ox.Triple):
                asserted = (to_rdflib_term(t.subject), to_rdflib_term(t.predicate), to_rdflib_term(t.object))
                assert not list(projection.dataset.quads(asserted))


def test_ground_triple_term_is_a_deterministic_iri(projection) -> None:
    triple = ox.Triple(ox.NamedNode(EX + "Lia"), ox.NamedNode(EX + "prefers"), ox.NamedNode(EX + "tea"))
    node = projection.node(triple)
    digest = hashlib.sha256(f"<<( {triple} )>>".encode()).hexdigest()
    assert node == URIRef(TRIPLE_TERM_IRI_PREFIX + digest)
    assert project([ox.Quad(ox.NamedNode(EX + "c"), ox.NamedNode(REIFIES), triple)]).node(triple) == node
    # One node per distinct term, described in every graph that uses it.
    assert (URIRef(EX + "c0"), REIFIES, node) in projection.dataset.default_graph
    assert (URIRef(EX + "c0"), REIFIES, node) in projection.dataset.graph(URIRef(EX + "g1"))
    assert (node, proj.subject, URIRef(EX + "Lia")) in projection.dataset.graph(URIRef(EX + "g1"))


def test_nested_triple_term(projection) -> None:
    inner = ox.Triple(ox.NamedNode(EX + "Aurora"), ox.NamedNode(EX + "recommends"), ox.NamedNode(EX + "tea"))
    outer = ox.Triple(ox.NamedNode(EX + "Lia"), ox.NamedNode(EX + "says"), inner)
    graph = projection.dataset.default_graph
    assert graph.value(URIRef(EX + "c1"), REIFIES) == projection.node(outer)
    assert graph.value(projection.node(outer), proj.object) == projection.node(inner)
    assert projection.to_original(projection.node(outer)) == outer


def test_blank_nodes_in_triple_terms_keep_their_identity(quads, projection) -> None:
    graph = projection.dataset.default_graph
    terms = list(graph.objects(URIRef(EX + "c2"), REIFIES))
    assert len(terms) == 2 and all(isinstance(t, BNode) for t in terms)
    a_knows_b, b_knows_a = sorted(terms, key=lambda t: str(projection.to_original(t)))
    a, b = graph.value(a_knows_b, proj.subject), graph.value(a_knows_b, proj.object)
    assert a != b
    # The same blank nodes, swapped, in the other term ...
    assert {graph.value(b_knows_a, proj.subject), graph.value(b_knows_a, proj.object)} == {a, b}
    # ... and the one outside any triple term is the same node as inside.
    named = graph.value(predicate=URIRef(EX + "name"), object=Literal("A"))
    assert named in {a, b}
    assert graph.value(named, URIRef(EX + "name")) == Literal("A")


def test_blank_node_triple_terms_are_local_to_one_parse() -> None:
    data = 'VERSION "1.2" PREFIX ex: <http://example.org/> ex:c <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( [] ex:p ex:o )>> .'
    first = project(ox.parse(data, format=ox.RdfFormat.TURTLE)).dataset.default_graph
    second = project(ox.parse(data, format=ox.RdfFormat.TURTLE)).dataset.default_graph
    node1, node2 = (g.value(URIRef(EX + "c"), REIFIES) for g in (first, second))
    assert isinstance(node1, BNode) and isinstance(node2, BNode)
    assert node1 != node2  # two anonymous blank nodes, two different propositions


LITERALS = [
    ox.Literal("plain"),
    ox.Literal("thé", language="fr"),
    ox.Literal("tea", language="en-gb"),
    ox.Literal("x", language="en", direction=ox.BaseDirection.LTR),
    ox.Literal("x", language="ar", direction=ox.BaseDirection.RTL),
    ox.Literal("x", language="en-x-foo", direction=ox.BaseDirection.RTL),
    ox.Literal("en-x-memkgdir-ltr looks like a tag", language="en-x-memkgdir"),
    ox.Literal("01", datatype=ox.NamedNode(XSD + "integer")),
    ox.Literal("1.50", datatype=ox.NamedNode(XSD + "decimal")),
    ox.Literal("abc", datatype=ox.NamedNode(XSD + "integer")),  # ill-typed, kept as is
    ox.Literal("2026-01-01T00:00:00Z", datatype=ox.NamedNode(XSD + "dateTime")),
    ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean")),
    ox.Literal("big", datatype=ox.NamedNode(EX + "unknown")),
    ox.Literal('quote " newline \n tab \t'),
    ox.Literal(""),
]


@pytest.mark.parametrize("literal", LITERALS, ids=str)
def test_literal_round_trip(literal: ox.Literal) -> None:
    converted = to_rdflib_term(literal)
    assert isinstance(converted, Literal)
    assert str(converted) == literal.value  # the lexical form, never normalised
    assert from_rdflib_term(converted) == literal


def test_literal_conversion_is_exact() -> None:
    assert to_rdflib_term(ox.Literal("01", datatype=ox.NamedNode(XSD + "integer"))) == Literal(
        "01", datatype=URIRef(XSD + "integer"), normalize=False
    )
    assert to_rdflib_term(ox.Literal("thé", language="fr")) == Literal("thé", lang="fr")
    # xsd:string is rdflib's plain literal, as rdflib's own parsers give it.
    parsed = Graph().parse(data='<http://a> <http://b> "x" .', format="nt")
    assert to_rdflib_term(ox.Literal("x")) == next(iter(parsed.objects()))
    assert from_rdflib_term(Literal("x", datatype=URIRef(XSD + "string"))) == ox.Literal("x")


def test_directional_language_tag_is_carried_in_a_private_use_subtag() -> None:
    converted = to_rdflib_term(ox.Literal("x", language="en", direction=ox.BaseDirection.LTR))
    assert converted.language == "en-x-memkgdir-ltr"


def test_other_terms_round_trip() -> None:
    for term in (ox.NamedNode(EX + "Lia"), ox.BlankNode("b0"), ox.DefaultGraph()):
        assert from_rdflib_term(to_rdflib_term(term)) == term
    assert to_rdflib_term(ox.DefaultGraph()) == DATASET_DEFAULT_GRAPH_ID
    assert from_rdflib_term(URIRef(EX + "Lia")) == ox.NamedNode(EX + "Lia")
    assert from_rdflib_term(BNode("n1")) == ox.BlankNode("n1")


def test_triple_term_needs_a_projection() -> None:
    triple = ox.Triple(ox.NamedNode(EX + "a"), ox.NamedNode(EX + "b"), ox.NamedNode(EX + "c"))
    with pytest.raises(TypeError):
        to_rdflib_term(triple)
    with pytest.raises(TypeError):
        from_rdflib_term("not a term")


def test_unknown_triple_term_raises_key_error(projection) -> None:
    triple = ox.Triple(ox.NamedNode(EX + "never"), ox.NamedNode(EX + "seen"), ox.NamedNode(EX + "here"))
    with pytest.raises(KeyError):
        projection.node(triple)


def test_pyshacl_validates_the_projection_and_reports_map_back() -> None:
    """What the projection is for: shapes that look inside triple terms."""
    shapes = Graph().parse(
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
        @prefix proj: <https://w3id.org/memkg/projection#> .
        @prefix ex: <http://example.org/> .
        ex:ReifiesOneTerm a sh:NodeShape ;
            sh:targetSubjectsOf rdf:reifies ;
            sh:property [ sh:path rdf:reifies ; sh:minCount 1 ; sh:maxCount 1 ; sh:class proj:TripleTerm ] ;
            sh:property [ sh:path ( rdf:reifies proj:subject ) ; sh:nodeKind sh:IRI ] .
        """,
        format="turtle",
    )
    data = """VERSION "1.2"
    PREFIX ex: <http://example.org/>
    PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
    ex:good rdf:reifies <<( ex:Lia ex:prefers ex:tea )>> .
    ex:bad rdf:reifies <<( _:x ex:prefers ex:tea )>> .
    """
    projection = project(ox.parse(data, format=ox.RdfFormat.TURTLE))
    conforms, report, _ = pyshacl.validate(projection.dataset.default_graph, shacl_graph=shapes)
    assert not conforms
    sh = "http://www.w3.org/ns/shacl#"
    focus = {projection.to_original(n) for n in report.objects(None, URIRef(sh + "focusNode"))}
    assert focus == {ox.NamedNode(EX + "bad")}
