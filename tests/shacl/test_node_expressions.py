"""SHACL 1.2 node expressions: evaluation, sh:expression, sh:nodeByExpression, node-expression targets,
and the refusal, by name, of what the engine does not implement."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode, RdfFormat, Store, parse

from memkg.shacl import ShapeError, Shapes

from .helpers import PREFIXES, check, ex, shapes, store

SHNEX = "@prefix shnex: <http://www.w3.org/ns/shacl-node-expr#> . @prefix sparql: <http://www.w3.org/ns/sparql#> .\n"
XSD = "http://www.w3.org/2001/XMLSchema#"


def evaluate(expression: str, data: str = "", focus: NamedNode | None = None, **scope) -> list[str]:
    """The output nodes of ``ex:test ex:expr EXPRESSION``, with ``data`` as both shapes and data graph."""
    quads = list(parse((PREFIXES + SHNEX + data + f"\nex:test ex:expr {expression} .").encode(),
                       format=RdfFormat.TURTLE))
    node = next(q.object for q in quads if q.predicate == ex("expr"))
    graph = Store()
    graph.extend(quads)
    return [str(t) for t in Shapes.from_quads(quads).evaluate(node, graph, focus=focus, scope=scope)]


def integers(*values: int) -> list[str]:
    return [f'"{v}"^^<{XSD}integer>' for v in values]


def test_constants_lists_and_the_empty_expression() -> None:
    assert evaluate("ex:a") == ["<http://example.org/a>"]
    assert evaluate("( 1 2 ( 3 ) )") == integers(1, 2, 3)
    assert evaluate("()") == ["<http://www.w3.org/1999/02/22-rdf-syntax-ns#nil>"]
    assert evaluate("[]") == []


def test_paths_from_the_focus_node_or_a_focus_expression() -> None:
    data = "ex:a ex:knows ex:b . ex:b ex:knows ex:c, ex:d . ex:d ex:age 4 ."
    assert sorted(evaluate("[ shnex:pathValues ex:knows ]", data, focus=ex("b"))) == ["<http://example.org/c>", "<http://example.org/d>"]
    assert evaluate("[ shnex:pathValues [ sh:inversePath ex:knows ] ]", data, focus=ex("b")) == ["<http://example.org/a>"]
    nested = "[ shnex:pathValues ex:age ; shnex:focusNode [ shnex:pathValues ( ex:knows ex:knows ) ] ]"
    assert evaluate(nested, data, focus=ex("a")) == integers(4)
    assert evaluate("[ shnex:pathValues ex:knows ]", data) == [], "no focus node: no values"


def test_functions_on_lists() -> None:
    assert evaluate("[ shnex:count ( 4 3 3 ) ]") == integers(3)
    assert evaluate("[ shnex:distinct ( 4 2 4 ) ]") == integers(4, 2)
    assert evaluate("[ shnex:sum ( 4 5.1 3 ) ]") == [f'"12.1"^^<{XSD}decimal>']
    assert evaluate("[ shnex:max ( 4 5 3 ) ]") == integers(5)
    assert evaluate("[ shnex:min [] ]") == []
    assert evaluate("[ shnex:nodes ( 8 2 3 ) ; shnex:orderBy [ shnex:var \"focusNode\" ] ; shnex:desc true ]") == integers(8, 3, 2)
    assert evaluate("[ shnex:nodes [ shnex:nodes ( 5 6 7 8 ) ; shnex:limit 2 ] ; shnex:offset 1 ]") == integers(6)
    assert evaluate("[ shnex:intersection ( ( 4 3 2 2 1 ) ( 3 2 2 ) ( 2 2 1 ) ) ]") == integers(2)
    assert evaluate('[ shnex:nodes ( 1 2 3 4 ) ; shnex:remove ( 3 2 "01"^^xsd:integer ) ]') == integers(1, 4)
    assert evaluate("[ shnex:if [ shnex:exists [] ] ; shnex:then 1 ; shnex:else 2 ]") == integers(2)
    assert evaluate('[ shnex:var "n" ]', n=Literal("7")) == ['"7"']


def test_a_sparql_function_over_too_many_combinations_is_refused(monkeypatch) -> None:
    import memkg.shacl.expressions as expressions

    monkeypatch.setattr(expressions, "MAX_CALLS", 8)
    assert len(evaluate("[ sparql:plus ( ( 1 2 ) ( 1 2 3 4 ) ) ]")) == 8
    with pytest.raises(ShapeError, match="9 combinations .* more than the limit of 8"):
        evaluate("[ sparql:plus ( ( 1 2 3 ) ( 1 2 3 ) ) ]")


def test_functions_with_shapes() -> None:
    data = "ex:Big a sh:NodeShape ; sh:minInclusive 3 . ex:Org a rdfs:Class . ex:Co rdfs:subClassOf ex:Org . ex:x a ex:Co ."
    assert evaluate("[ shnex:nodes ( 2 4 1 5 ) ; shnex:filterShape ex:Big ]", data) == integers(4, 5)
    assert evaluate("[ shnex:nodes ( 2 4 1 5 ) ; shnex:findFirst ex:Big ]", data) == integers(4)
    assert evaluate("[ shnex:nodes ( 4 5 ) ; shnex:matchAll ex:Big ]", data) == [f'"true"^^<{XSD}boolean>']
    assert evaluate("[ shnex:instancesOf ex:Org ]", data) == ["<http://example.org/x>"]
    assert evaluate("[ shnex:nodesMatching [ sh:class ex:Org ] ]", data) == ["<http://example.org/x>"]
    assert evaluate("[ shnex:conformsTo ( 2 ex:Big ) ]", data) == [f'"false"^^<{XSD}boolean>']


def test_sparql_functions_and_sparql_expressions() -> None:
    assert evaluate('[ sparql:if ( [ sparql:greater-than ( 10 5 ) ] "big" "small" ) ]') == ['"big"']
    assert evaluate('[ sparql:coalesce ( [ shnex:var "unbound" ] "default" ) ]') == ['"default"']
    assert evaluate("[ sparql:isBlank ( [ sparql:bnode () ] ) ]") == [f'"true"^^<{XSD}boolean>']
    assert evaluate('[ sh:sparqlExpr "STRLEN(STR($this))" ]', focus=ex("abc")) == integers(22)
    select = '[ sh:select "SELECT ?n WHERE { $this <http://example.org/knows> ?n }" ]'
    assert evaluate(select, "ex:a ex:knows ex:b .", focus=ex("a")) == ["<http://example.org/b>"]
    # a blank focus node cannot be written into the query: it is substituted
    quads = list(parse((PREFIXES + SHNEX + f"ex:test ex:expr {select} . _:x ex:knows ex:b . ex:y ex:knows ex:c .").encode(),
                       format=RdfFormat.TURTLE))
    node = next(q.object for q in quads if q.predicate == ex("expr"))
    blank = next(q.subject for q in quads if q.predicate == ex("knows") and q.object == ex("b"))
    graph = Store()
    graph.extend(quads)
    assert Shapes.from_quads(quads).evaluate(node, graph, focus=blank) == [ex("b")]


def test_expression_constraint_compiled_and_evaluated_agree() -> None:
    data = "ex:a ex:age 20 . ex:b ex:age 12 . ex:c ex:age 30 ."
    # one SPARQL expression of the value node: compiled into the validation query
    compiled = "ex:S sh:targetSubjectsOf ex:age ; sh:property [ sh:path ex:age ; sh:expression [ sparql:greater-than-or-equal ( [ shnex:var \"focusNode\" ] 18 ) ] ] ."
    # the same test through shnex:filterShape: evaluated per value node
    evaluated = """ex:S sh:targetSubjectsOf ex:age ; sh:property [ sh:path ex:age ;
        sh:expression [ shnex:exists [ shnex:nodes [ shnex:var "focusNode" ] ; shnex:filterShape ex:Adult ] ] ] .
      ex:Adult a sh:NodeShape ; sh:minInclusive 18 ."""
    expected = {("ex:b", "12", "Expression"): 1}
    assert check(SHNEX + compiled, data) == expected
    assert check(SHNEX + evaluated, data) == expected
    assert check(SHNEX + "ex:S sh:targetNode ex:a ; sh:expression false .", "") == {("ex:a", "ex:a", "Expression"): 1}


def test_node_by_expression_constant_and_computed() -> None:
    data = "ex:a a ex:T ; ex:kind ex:NeedsName . ex:b a ex:T ; ex:kind ex:NeedsName ; ex:name \"B\" . ex:c a ex:T ."
    named = "ex:NeedsName a sh:NodeShape ; sh:property [ sh:path ex:name ; sh:minCount 1 ] ."
    constant = "ex:S sh:targetClass ex:T ; sh:nodeByExpression ex:NeedsName ."
    computed = "ex:S sh:targetClass ex:T ; sh:nodeByExpression [ shnex:pathValues ex:kind ] ."
    assert check(SHNEX + named + constant, data) == {("ex:a", "ex:a", "NodeByExpression"): 1, ("ex:c", "ex:c", "NodeByExpression"): 1}
    assert check(SHNEX + named + computed, data) == {("ex:a", "ex:a", "NodeByExpression"): 1}, "ex:c has no kind: no shape"


def test_node_by_expression_that_gives_a_non_shape_is_an_error() -> None:
    s = shapes(SHNEX + "ex:S sh:targetNode ex:a ; sh:nodeByExpression [ shnex:pathValues ex:kind ] .")
    with pytest.raises(ShapeError, match="is not a shape"):
        s.validate(store("ex:a ex:kind 42 ."))


def test_node_expression_targets() -> None:
    s = """ex:S sh:targetNode [ sh:select "SELECT ?p WHERE { ?p a <http://example.org/Person> }" ] , [ shnex:instancesOf ex:Robot ] ;
             sh:property [ sh:path ex:name ; sh:minCount 1 ] ."""
    data = "ex:p1 a ex:Person . ex:p2 a ex:Person ; ex:name \"P\" . ex:r a ex:Robot . ex:x ex:name \"X\" ."
    assert {f for f, _, _ in check(SHNEX + s, data)} == {"ex:p1", "ex:r"}
    focused = shapes(SHNEX + s).validate(store(data), focus=[ex("p1"), ex("x")])
    assert [str(r.focus) for r in focused.results] == ["<http://example.org/p1>"]


def test_computed_values_replace_the_values_along_the_path() -> None:
    """sh:values: the value nodes are the expression's output at the focus node; results name the sh:path."""
    data = "ex:a ex:first \"A\" ; ex:last \"Z\" ; ex:full \"ignored\" . ex:b ex:first \"B\" . ex:c ex:friend ex:a ."
    by_select = """ex:S sh:targetSubjectsOf ex:first ; sh:property [ sh:path ex:full ; sh:minCount 1 ; sh:hasValue "A Z" ;
        sh:values [ sh:select "SELECT ?n WHERE { $this <http://example.org/first> ?f ; <http://example.org/last> ?l . BIND(CONCAT(?f, ' ', ?l) AS ?n) }" ] ] ."""
    assert check(SHNEX + by_select, data) == {("ex:b", "-", "MinCount"): 1, ("ex:b", "-", "HasValue"): 1}
    by_expr = "ex:S sh:targetNode ex:a, ex:b ; sh:property [ sh:path ex:len ; sh:values [ sh:sparqlExpr \"STRLEN(STR($this))\" ] ; sh:maxInclusive 19 ] ."
    assert check(SHNEX + by_expr, data) == {("ex:a", "20", "MaxInclusive"): 1, ("ex:b", "20", "MaxInclusive"): 1}
    # nested: the computed values are the focus nodes of the inner property shape (a route)
    nested = """ex:S sh:targetNode ex:c ; sh:property [ sh:path ex:pal ; sh:values [ shnex:pathValues ex:friend ] ;
        sh:property [ sh:path ex:last ; sh:minCount 2 ] ] ."""
    report = shapes(SHNEX + nested).validate(store(data))
    assert [(str(r.focus), str(r.path)) for r in report.results] == [("<http://example.org/a>", "<http://example.org/last>")]


@pytest.mark.parametrize("ttl, named", [
    ("ex:S sh:targetNode ex:a ; sh:expression [ shnex:frobnicate 1 ] .", "shnex:frobnicate"),
    ("ex:S sh:targetNode ex:a ; sh:expression [ sparql:frobnicate ( 1 ) ] .", "sparql#frobnicate"),
    ("ex:S sh:targetNode ex:a ; sh:expression [ sparql:plus ( 1 2 3 ) ] .", "sparql:plus does not take 3"),
    ("ex:S sh:targetNode ex:a ; sh:expression [ ex:notAFunction 1 ] .", "<http://example.org/notAFunction> is not a node expression parameter"),
    ("ex:S sh:targetNode [ shnex:nodes ( ex:a ) ; shnex:filterShape ex:S ] ; sh:class ex:C .", "shnex:filterShape as a target is not implemented"),
    ("ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:values [ shnex:count ( 1 ) ] ] .",
     "computed values by shnex:count are not implemented"),
    ("ex:S sh:targetNode ex:a ; sh:property [ sh:path ( ex:p ex:q ) ; sh:values 1 ] .", "sh:values needs a predicate path"),
    ("ex:S sh:targetNode ex:a ; sh:values 1 .", "sh:values is for property shapes"),
    ("ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:values 1 ; sh:equals ex:q ] .",
     "sh:equals on a property shape with sh:values"),
    ("ex:S sh:targetNode ex:a ; sh:expression _:e . _:e shnex:exists [ shnex:count _:e ] .", "contains itself"),
])
def test_unimplemented_node_expressions_are_refused_by_name(ttl: str, named: str) -> None:
    with pytest.raises(ShapeError, match=named.replace("(", r"\(")):
        shapes(SHNEX + ttl)


def test_memkg_shapes_use_no_node_expression() -> None:
    """memkg's own shapes pay nothing for node expressions: no constraint or target uses one."""
    from pathlib import Path

    from memkg.shacl.components.expression_based import COMPONENTS
    from memkg.shacl.targets import ExpressionTarget

    own = Shapes.from_file(Path(__file__).resolve().parents[2] / "shapes" / "memkg.ttl")
    loaded = [own._shapes[n] for n in own]  # noqa: SLF001 - looking inside on purpose
    assert not any(isinstance(c, COMPONENTS) for s in loaded for c in s.constraints)
    assert not any(isinstance(t, ExpressionTarget) for s in loaded for t in s.targets)
