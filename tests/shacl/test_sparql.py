"""SHACL-SPARQL: sh:sparql constraints and SPARQL-based constraint components."""

from __future__ import annotations

import pytest
from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from memkg.shacl import ShapeError

from .helpers import check, ex, shapes, short, store

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
DECL = "ex: sh:declare [ sh:prefix 'ex' ; sh:namespace 'http://example.org/'^^xsd:anyURI ] ."


def sparql_shape(select: str, extra: str = "") -> str:
    return f"""{DECL}
      ex:S a sh:NodeShape ; sh:targetClass ex:T ; {extra}
        sh:sparql [ sh:prefixes ex: ; sh:message "bad {{?value}} at {{$this}}" ; sh:select \"\"\"{select}\"\"\" ] ."""


def test_select_constraint_results_and_messages() -> None:
    s = shapes(sparql_shape("SELECT $this ?value WHERE { $this ex:p ?value FILTER(?value > 2) }"))
    report = s.validate(store("ex:a a ex:T ; ex:p 1, 3, 4 . ex:b a ex:T ; ex:p 1 ."))
    assert sorted((r.value.value, r.message) for r in report.results) == [
        ("3", "bad 3 at http://example.org/a"),
        ("4", "bad 4 at http://example.org/a"),
    ]
    assert all(r.source_constraint is not None and r.component.value.endswith("SPARQLConstraintComponent") for r in report.results)


def test_path_in_property_shapes() -> None:
    s = f"""{DECL} ex:S a sh:PropertyShape ; sh:targetClass ex:T ; sh:path ( ex:p ex:q ) ;
        sh:sparql [ sh:prefixes ex: ; sh:select "SELECT $this ?value WHERE {{ $this $PATH ?value FILTER(isLiteral(?value)) }}" ] ."""
    found = check(s, "ex:a a ex:T ; ex:p ex:m . ex:m ex:q 'x', ex:z .")
    assert found == {("ex:a", '"x"', "SPARQL"): 1}


@pytest.mark.parametrize(
    "body",
    [
        "FILTER ($this = ex:bad)",
        "{ FILTER (false) } UNION { FILTER ($this = ex:bad) }",
        "{ { FILTER ($this = ex:bad) } FILTER bound($this) } FILTER (true)",
        "BIND ($this AS ?that) FILTER (?that = ex:bad)",
        "{ SELECT $this WHERE { FILTER ($this = ex:bad) } }",
    ],
)
def test_pre_binding_forms(body: str) -> None:
    s = sparql_shape(f"SELECT $this WHERE {{ {body} }}")
    assert check(s, "ex:bad a ex:T . ex:good a ex:T .") == {("ex:bad", "ex:bad", "SPARQL"): 1}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("$this ?p ?o MINUS { $this ?p 1 }", "MINUS"),
        ("VALUES ?o { 1 }", "VALUES"),
        ("SERVICE <http://example.org/sparql> { ?a ?b ?c }", "SERVICE"),
        ("BIND (1 AS $this)", "pre-bound"),
        ("{ SELECT ?o WHERE { ?s ?p ?o } }", "must project"),
    ],
)
def test_unsupported_sparql_is_refused(body: str, reason: str) -> None:
    with pytest.raises(ShapeError, match=reason):
        shapes(sparql_shape(f"SELECT $this WHERE {{ {body} }}"))


def test_syntax_errors_and_unknown_prefixes_are_shape_errors() -> None:
    with pytest.raises(ShapeError, match="not valid SPARQL"):
        shapes(sparql_shape("SELECT $this WHERE { $this ex:p }"))
    with pytest.raises(ShapeError, match="undeclared prefix 'foo'"):
        shapes(sparql_shape("SELECT $this WHERE { $this foo:p ?o }"))


def test_blank_node_focus_nodes() -> None:
    s = shapes(sparql_shape("SELECT $this ?value WHERE { $this ex:p ?value FILTER(?value > 2) }"))
    b = BlankNode()
    data = Store()
    data.extend([Quad(b, RDF_TYPE, ex("T"), DefaultGraph()), Quad(b, ex("p"), Literal(3), DefaultGraph())])
    data.add(Quad(b, ex("p"), Literal("5", datatype=ex("notANumber")), DefaultGraph()))  # not comparable: no result
    report = s.validate(data)
    assert [(r.focus, r.value) for r in report.results] == [(b, Literal(3))]
    assert s.validate(data, focus=[b]).results == report.results


COMPONENT = f"""{DECL}
  ex:LangComponent a sh:ConstraintComponent ;
    sh:parameter [ sh:path ex:lang ] ; sh:parameter [ sh:path ex:strict ; sh:optional true ] ;
    sh:message "needs language {{$lang}}" ;
    sh:validator [ a sh:SPARQLAskValidator ; sh:prefixes ex: ;
      sh:ask "ASK {{ FILTER (isLiteral($value) && langMatches(lang($value), $lang)) }}" ] ;
    sh:nodeValidator [ a sh:SPARQLSelectValidator ; sh:prefixes ex: ;
      sh:select "SELECT $this ?value WHERE {{ $this ex:label ?value FILTER(!langMatches(lang(?value), $lang)) }}" ] .
"""


def test_ask_validator_on_property_shapes() -> None:
    s = COMPONENT + "ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:name ; ex:lang 'en' ] ."
    report = shapes(s).validate(store("ex:a a ex:T ; ex:name 'hi'@en, 'hallo'@de, 'plain' ."))
    assert sorted(str(r.value) for r in report.results) == ['"hallo"@de', '"plain"']
    assert {r.message for r in report.results} == {"needs language en"}
    assert {r.component for r in report.results} == {ex("LangComponent")}


def test_select_validator_on_node_shapes() -> None:
    s = COMPONENT + "ex:S a sh:NodeShape ; sh:targetClass ex:T ; ex:lang 'en' ."
    found = check(s, "ex:a a ex:T ; ex:label 'x'@en, 'y'@fr . ex:b a ex:T ; ex:label 'z'@en .")
    assert found == {("ex:a", '"y"@fr', "ex:LangComponent"): 1}


def test_shapes_graph_and_current_shape() -> None:
    s = f"""{DECL} ex:S a sh:NodeShape ; sh:targetClass ex:T ; ex:limit 2 ;
      sh:sparql [ sh:prefixes ex: ; sh:select \"\"\"
        SELECT $this ?value WHERE {{ $this ex:p ?value . GRAPH $shapesGraph {{ $currentShape ex:limit ?max }} FILTER(?value > ?max) }}\"\"\" ] ."""
    assert check(s, "ex:a a ex:T ; ex:p 1, 3 .") == {("ex:a", "3", "SPARQL"): 1}


def test_component_definitions_in_the_sh_namespace_are_ignored() -> None:
    s = shapes("sh:MinCountConstraintComponent a sh:ConstraintComponent ; sh:parameter [ sh:path sh:minCount ] .")
    assert len(s) >= 1


def test_sparql_constraints_over_triple_terms() -> None:
    """SPARQL 1.2 in constraints: a claim's triple term must have a typed subject."""
    s = f"""{DECL} ex:S a sh:NodeShape ; sh:targetClass ex:Claim ; sh:sparql [ sh:prefixes ex: ;
        sh:message "untyped subject {{?s}}" ;
        sh:select \"\"\"SELECT $this ?value ?s WHERE {{
            $this rdf:reifies ?value . BIND(SUBJECT(?value) AS ?s)
            FILTER NOT EXISTS {{ ?s a ?type }} }}\"\"\" ] .
      ex: sh:declare [ sh:prefix "rdf" ; sh:namespace "http://www.w3.org/1999/02/22-rdf-syntax-ns#"^^xsd:anyURI ] ."""
    data = """
      ex:c1 a ex:Claim ; rdf:reifies <<( ex:lia ex:likes ex:tea )>> . ex:lia a ex:Person .
      ex:c2 a ex:Claim ; rdf:reifies <<( ex:bob ex:likes ex:tea )>> .
    """
    report = shapes(s).validate(store(data))
    assert [(str(r.focus), r.message) for r in report.results] == [
        ("<http://example.org/c2>", "untyped subject http://example.org/bob")
    ]
    assert isinstance(report.results[0].value, Triple)
    assert "value <<( <http://example.org/bob>" in str(report)


# -- shx:selectAll: the set-at-a-time form of a constraint (memkg's extension) ---------------------

SELECT_ALL_SHAPE = f"""{DECL}
  @prefix shx: <https://w3id.org/memkg/shacl#> .
  ex:S a sh:NodeShape ; sh:targetClass ex:T ;
    sh:sparql [ sh:prefixes ex: ; sh:message "bad {{?value}} at {{$this}}" ;
      sh:select "SELECT $this ?value WHERE {{ $this ex:p ?value FILTER(?value > 2) }}" ;
      shx:selectAll "SELECT $this ?value WHERE {{ $this ex:p ?value FILTER(?value > 1) }}" ] ."""
SELECT_ALL_DATA = "ex:a a ex:T ; ex:p 1, 2, 3 . ex:b ex:p 5 ."


def test_select_all_answers_a_whole_validation_for_the_targets_only() -> None:
    # The set form deliberately differs (> 1, not > 2) so that the test sees which form ran;
    # ex:b has a solution but is not a target, so it is dropped.
    report = shapes(SELECT_ALL_SHAPE).validate(store(SELECT_ALL_DATA))
    assert sorted((short(r.focus), r.value.value, r.message) for r in report.results) == [
        ("ex:a", "2", "bad 2 at http://example.org/a"),
        ("ex:a", "3", "bad 3 at http://example.org/a"),
    ]


def test_select_all_is_not_used_for_given_focus_nodes() -> None:
    report = shapes(SELECT_ALL_SHAPE).validate(store(SELECT_ALL_DATA), focus=[ex("a"), ex("b")])
    assert [(short(r.focus), r.value.value) for r in report.results] == [("ex:a", "3")]


@pytest.mark.parametrize(
    ("select_all", "missing"),
    [
        ("SELECT ?value WHERE { ?x ex:p ?value }", "?this"),
        ("SELECT $this WHERE { $this ex:p ?value }", "?value"),
        ("ASK { ?x ex:p ?value }", "?this"),
    ],
)
def test_select_all_must_project_what_select_projects(select_all: str, missing: str) -> None:
    text = SELECT_ALL_SHAPE.replace(
        'shx:selectAll "SELECT $this ?value WHERE { $this ex:p ?value FILTER(?value > 1) }"', f'shx:selectAll "{select_all}"'
    )
    assert select_all in text
    with pytest.raises(ShapeError, match=rf"shx:selectAll .* must be a SELECT projecting \{missing}"):
        shapes(text)


def test_prefixes_declared_on_a_shapes_graph_node_apply_to_every_query() -> None:
    """SHACL 1.2: an sh:ShapesGraph node's sh:declare serves queries without sh:prefixes;
    a declaration on any other node does not, and a clash is refused naming the prefix."""
    graph = "ex:G a sh:ShapesGraph ; sh:declare [ sh:prefix 'ex' ; sh:namespace 'http://example.org/'^^xsd:anyURI ] ."
    select = "SELECT $this ?value WHERE { $this ex:p ?value FILTER(?value > 2) }"
    shape = f'ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:sparql [ sh:select """{select}""" ] .'
    s = shapes(f"{graph} {shape}")
    assert [r.value.value for r in s.validate(store("ex:a a ex:T ; ex:p 1, 3 .")).results] == ["3"]
    with pytest.raises(ShapeError, match="undeclared prefix 'ex'"):
        shapes(f"ex:Other sh:declare [ sh:prefix 'ex' ; sh:namespace 'http://example.org/'^^xsd:anyURI ] . {shape}")
    clash = "ex:H a sh:ShapesGraph ; sh:declare [ sh:prefix 'ex' ; sh:namespace 'http://example.com/'^^xsd:anyURI ] ."
    with pytest.raises(ShapeError, match="prefix 'ex' is declared with two namespaces"):
        shapes(f"{graph} {clash} {shape}")


def test_sparql_functions_are_callable_from_sparql_constraints() -> None:
    """SHACL-AF §5: an sh:SPARQLFunction's sh:select (first variable) or sh:ask (a boolean) runs over
    the data graph with its parameters pre-bound in sh:order; an unbound result leaves ?value unbound."""
    functions = """ex:bigger a sh:SPARQLFunction ; sh:prefixes ex: ;
        sh:parameter [ sh:path ex:limit ; sh:order 1 ] , [ sh:path ex:node ; sh:order 0 ] ;
        sh:select "SELECT ?n WHERE { $node ex:p ?n FILTER(?n > $limit) } ORDER BY ?n LIMIT 1" .
      ex:typed a sh:SPARQLFunction ; sh:prefixes ex: ; sh:parameter [ sh:path ex:node ] ;
        sh:ask "ASK { $node a ex:T }" ."""
    select = "SELECT $this ?value WHERE { $this ex:q ?x FILTER(ex:typed($this)) BIND(ex:bigger($this, ?x) AS ?value) }"
    s = shapes(sparql_shape(select) + functions)
    report = s.validate(store("ex:a a ex:T ; ex:q 2 ; ex:p 1, 3, 5 . ex:b a ex:T ; ex:q 9 ; ex:p 1 . ex:c ex:q 0 ; ex:p 1 ."))
    assert sorted((short(r.focus), short(r.value)) for r in report.results) == [("ex:a", "3"), ("ex:b", "ex:b")]
