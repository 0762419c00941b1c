"""SHACL-AF as pySHACL and TopQuadrant write it: node expressions in the SHACL-AF syntax
(``sh:this``, ``[ sh:path P ]``, ``sh:filterShape``, ``sh:union``, ``sh:count``…), node
expressions that call the shapes graph's SPARQL functions, parameterised
``sh:SPARQLTargetType`` targets, DASH's functions (typed ``sh:JSFunction`` beside their
SPARQL) and ``sh:SPARQLConstraintObject`` constraints; and pySHACL's verdict on the same."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode, RdfFormat, Store, parse

from memkg.shacl import ShapeError, Shapes

from .helpers import PREFIXES, check, ex, shapes, store

FUNCTIONS = """
ex:join a sh:SPARQLFunction ;
  sh:parameter [ sh:path ex:left ; sh:order 0 ] ; sh:parameter [ sh:path ex:right ; sh:order 1 ] ;
  sh:returnType xsd:string ;
  sh:select "SELECT ?joined WHERE { BIND(CONCAT(STR($left), STR($right)) AS ?joined) }" .
ex:length a sh:SPARQLFunction ; sh:parameter [ sh:path ex:text ] ;
  sh:select "SELECT ?n WHERE { BIND(STRLEN($text) AS ?n) }" .
ex:below a sh:SPARQLFunction ;
  sh:parameter [ sh:path ex:a ; sh:order 0 ] ; sh:parameter [ sh:path ex:b ; sh:order 1 ] ;
  sh:select "SELECT ?r WHERE { BIND($a < $b AS ?r) }" .
"""
PEOPLE = """
ex:kate a ex:Person ; ex:first "Kate" ; ex:last "Jones" .
ex:bob a ex:Person ; ex:first "Robert" ; ex:last "Bartholomew-Williamson" .
ex:jen a ex:Admin ; ex:first "Jennifer" ; ex:last "Wolfeschlegelsteinhausen" .
"""
#: The full name (first and last joined) is shorter than 20 characters: as a node expression
#: calling the functions, and as a SPARQL constraint (typed as DASH types it) calling one.
NAME_SHAPES = FUNCTIONS + """
ex:G sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
ex:ByExpression a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:expression [ sh:message "the full name is too long" ;
    ex:below ( [ ex:length ( [ ex:join ( [ sh:path ex:first ] [ sh:path ex:last ] ) ] ) ] 20 ) ] .
ex:BySparql a sh:NodeShape ; sh:targetClass ex:Person ; sh:sparql ex:NameLength .
ex:NameLength a sh:SPARQLConstraintObject ; sh:prefixes ex:G ; sh:message "the full name is too long (SPARQL)" ;
  sh:select "SELECT $this WHERE { $this ex:first ?f ; ex:last ?l FILTER(STRLEN(ex:join(?f, ?l)) >= 20) }" .
"""


def evaluate(expression: str, data: str, focus: str) -> list[str]:
    quads = list(parse((PREFIXES + data + f"\nex:test ex:expr {expression} .").encode(), format=RdfFormat.TURTLE))
    node = next(q.object for q in quads if q.predicate == ex("expr"))
    graph = Store()
    graph.extend(quads)
    return sorted(str(t) for t in Shapes.from_quads(quads).evaluate(node, graph, focus=ex(focus)))


def test_shacl_af_node_expressions_mean_their_shacl_12_counterparts() -> None:
    data = """ex:a ex:knows ex:b, ex:c ; ex:likes ex:c, ex:d . ex:b a ex:Person . ex:c a ex:Robot .
              ex:Human sh:class ex:Person ."""
    assert evaluate("sh:this", data, "a") == ["<http://example.org/a>"]
    assert evaluate("[ sh:path ex:knows ]", data, "a") == ["<http://example.org/b>", "<http://example.org/c>"]
    assert evaluate("[ sh:path ex:knows ; sh:nodes ( ex:a ex:b ) ]", data, "b") == [
        "<http://example.org/b>", "<http://example.org/c>"]
    assert evaluate("[ sh:filterShape ex:Human ; sh:nodes [ sh:path ex:knows ] ]", data, "a") == [
        "<http://example.org/b>"]
    assert evaluate("[ sh:union ( [ sh:path ex:knows ] [ sh:path ex:likes ] ) ]", data, "a") == [
        "<http://example.org/b>", "<http://example.org/c>", "<http://example.org/d>"]
    assert evaluate("[ sh:intersection ( [ sh:path ex:knows ] [ sh:path ex:likes ] ) ]", data, "a") == [
        "<http://example.org/c>"]
    assert evaluate("[ sh:count [ sh:path ex:knows ] ]", data, "a") == [
        '"2"^^<http://www.w3.org/2001/XMLSchema#integer>']


def test_a_node_expression_calls_the_shapes_graphs_functions() -> None:
    assert evaluate("[ ex:join ( [ sh:path ex:first ] \"-\" ) ]", FUNCTIONS + PEOPLE, "kate") == ['"Kate-"']
    assert evaluate("[ ex:length ( [ ex:join ( [ sh:path ex:first ] [ sh:path ex:last ] ) ] ) ]",
                    FUNCTIONS + PEOPLE, "kate") == ['"9"^^<http://www.w3.org/2001/XMLSchema#integer>']


def test_expression_and_sparql_constraints_calling_functions_agree() -> None:
    report = shapes(NAME_SHAPES).validate(store(PEOPLE))
    found = sorted((str(r.focus), str(r.shape), r.message) for r in report.results)
    assert found == [
        ("<http://example.org/bob>", "<http://example.org/ByExpression>", "the full name is too long"),
        ("<http://example.org/bob>", "<http://example.org/BySparql>", "the full name is too long (SPARQL)"),
    ]


def test_a_function_call_of_the_focus_node_compiles_into_the_query_and_agrees_with_evaluation() -> None:
    # the IRI's length: "http://example.org/bob" has 22 characters, ".../kate" 23
    compiled = """ex:S sh:targetClass ex:Person ;
                    sh:expression [ ex:below ( [ ex:length ( [ ex:join ( sh:this "" ) ] ) ] 23 ) ] ."""
    evaluated = "ex:S sh:targetClass ex:Person ; sh:expression [ ex:below ( [ ex:length ( [ sh:path ex:last ] ) ] 20 ) ] ."
    assert check(FUNCTIONS + compiled, PEOPLE) == {("ex:kate", "ex:kate", "Expression"): 1}
    assert check(FUNCTIONS + evaluated, PEOPLE) == {("ex:bob", "ex:bob", "Expression"): 1}


TARGET_TYPE = """
ex:Prefixes sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
ex:BornIn a sh:SPARQLTargetType ; rdfs:subClassOf sh:Target ; sh:prefixes ex:Prefixes ;
  sh:labelTemplate "the people born in {$country}" ;
  sh:parameter [ sh:path ex:country ; sh:class ex:Country ; sh:nodeKind sh:IRI ] ;
  sh:select "SELECT ?this WHERE { ?this a ex:Person ; ex:bornIn $country . }" .
ex:GermanShape a sh:NodeShape ; sh:target [ a ex:BornIn ; ex:country ex:Germany ] ;
  sh:property [ sh:path ex:germanID ; sh:minCount 1 ] .
ex:FrenchShape a sh:NodeShape ; sh:target [ a ex:BornIn ; ex:country ex:France ] ;
  sh:property [ sh:path ex:inseeID ; sh:minCount 1 ] .
"""
BORN = """ex:hans a ex:Person ; ex:bornIn ex:Germany ; ex:germanID "1" . ex:uwe a ex:Person ; ex:bornIn ex:Germany .
          ex:jean a ex:Person ; ex:bornIn ex:France . ex:ann a ex:Person ; ex:bornIn ex:Peru ."""


def test_a_parameterised_sparql_target_type_selects_by_its_parameters() -> None:
    assert check(TARGET_TYPE, BORN) == {("ex:uwe", "-", "MinCount"): 1, ("ex:jean", "-", "MinCount"): 1}


@pytest.mark.parametrize("target, named", [
    ("[ a ex:BornIn ]", "takes one value of <http://example.org/country>, found 0"),
    ("[ a ex:BornIn ; ex:country ex:France, ex:Peru ]", "takes one value of <http://example.org/country>, found 2"),
])
def test_a_target_type_instance_without_its_parameter_is_refused_naming_it(target: str, named: str) -> None:
    ttl = TARGET_TYPE.split("ex:GermanShape")[0] + f"ex:S sh:target {target} ; sh:class ex:C ."
    with pytest.raises(ShapeError, match=named) as caught:
        shapes(ttl)
    assert "http://example.org/S" in str(caught.value)


#: DASH's functions carry JavaScript beside their SPARQL body.
DASH_FUNCTIONS = """
@prefix dash: <http://datashapes.org/dash#> .
dash:toString a sh:JSFunction, sh:SPARQLFunction ;
  sh:jsFunctionName "dash_toString" ; sh:jsLibrary dash:DASHJSLibrary ;
  sh:labelTemplate "Convert {$arg} to xsd:string" ;
  sh:parameter [ a sh:Parameter ; sh:name "arg" ; sh:nodeKind sh:IRIOrLiteral ; sh:path dash:arg ] ;
  sh:returnType xsd:string ;
  sh:select "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT (xsd:string($arg) AS ?result) WHERE { }" .
ex:slug a sh:SPARQLFunction ; sh:parameter [ sh:path ex:arg ] ;
  sh:select "SELECT (ENCODE_FOR_URI(LCASE(STR($arg))) AS ?result) WHERE { }" .
ex:G a sh:ShapesGraph ; sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/" ] ,
  [ sh:prefix "dash" ; sh:namespace "http://datashapes.org/dash#" ] .
ex:S sh:targetSubjectsOf ex:title ; sh:sparql [ sh:select \"\"\"SELECT $this ?value WHERE {
  $this ex:title ?value FILTER(dash:toString(?value) != ?value || ex:slug(?value) != "a%20title") }\"\"\" ] .
"""


def test_dash_functions_run_their_sparql_and_leave_their_javascript_aside() -> None:
    data = 'ex:a ex:title "a title" . ex:b ex:title "A Title" . ex:c ex:title "other" . ex:d ex:title 7 .'
    assert sorted(check(DASH_FUNCTIONS, data)) == [
        ("ex:c", '"other"', "SPARQL"), ("ex:d", "7", "SPARQL")]


def test_a_function_only_in_javascript_is_still_refused() -> None:
    with pytest.raises(ShapeError, match="sh:JSFunction"):
        shapes('ex:f a sh:JSFunction ; sh:jsFunctionName "f" .')


pyshacl = pytest.importorskip("pyshacl")
rdflib = pytest.importorskip("rdflib")


@pytest.mark.slow
@pytest.mark.parametrize("shapes_ttl, data_ttl", [(NAME_SHAPES, PEOPLE), (TARGET_TYPE, BORN)],
                         ids=["functions", "target-type"])
def test_agrees_with_pyshacl_advanced(shapes_ttl: str, data_ttl: str) -> None:
    """pySHACL with ``advanced=True`` finds the same (focus, shape, component) results."""
    ours = {(r.focus.value, r.shape.value if isinstance(r.shape, NamedNode) else "_:", r.component.value)
            for r in shapes(shapes_ttl).validate(store(data_ttl)).results}
    _, graph, _ = pyshacl.validate(rdflib.Graph().parse(data=PREFIXES + data_ttl, format="turtle"),
                                   shacl_graph=rdflib.Graph().parse(data=PREFIXES + shapes_ttl, format="turtle"),
                                   advanced=True)
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    theirs = set()
    for result in graph.subjects(rdflib.RDF.type, sh.ValidationResult):
        shape = graph.value(result, sh.sourceShape)
        theirs.add((str(graph.value(result, sh.focusNode)), str(shape) if isinstance(shape, rdflib.URIRef) else "_:",
                    str(graph.value(result, sh.sourceConstraintComponent))))
    assert ours == theirs
