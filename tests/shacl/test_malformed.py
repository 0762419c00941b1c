"""A malformed shape is an error, never a silent pass: ShapeError names the shape and the rule."""

from __future__ import annotations

import pytest

from memkg.shacl import ShapeError, Shapes

from .helpers import store, ex, shapes

CASES = [
    ("ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:minCount -1 .", "sh:minCount", "§4.2.1"),
    ("ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:maxCount 'two' .", "sh:maxCount", "§4.2.2"),
    ("ex:S sh:targetNode ex:a ; sh:minCount 1 .", "node shapes cannot have sh:minCount", "§4.2.1"),
    ("ex:S sh:targetNode ex:a ; sh:datatype xsd:string, xsd:integer .", "at most one value", "§4.1.2"),
    ("ex:S sh:targetNode ex:a ; sh:datatype 'xsd:string' .", "must be IRIs", "§4.1.2"),
    ("ex:S sh:targetNode ex:a ; sh:class 'Person' .", "must be IRIs", "§4.1.1"),
    ("ex:S sh:targetNode ex:a ; sh:nodeKind sh:Thing .", "sh:nodeKind must be one of", "§4.1.3"),
    ("ex:S sh:targetNode ex:a ; sh:minInclusive ex:x .", "must be a literal", "§4.3.2"),
    ("ex:S sh:targetNode ex:a ; sh:pattern 5 .", "xsd:string", "§4.4.3"),
    ("ex:S sh:targetNode ex:a ; sh:pattern 'a' ; sh:flags 'z' .", "sh:flags", "§4.4.3"),
    ("ex:S sh:targetNode ex:a ; sh:languageIn ( 'en' 5 ) .", "xsd:string", "§4.4.4"),
    ("ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:uniqueLang 'yes' .", "xsd:boolean", "§4.4.5"),
    ("ex:S sh:targetNode ex:a ; sh:in ex:notAList .", "SHACL list", "§1.4"),
    ("ex:S sh:targetNode ex:a ; sh:or ( ex:A 'literal' ) .", "must be shapes", "§4.6.3"),
    ("ex:S sh:targetNode ex:a ; sh:node [ sh:path ex:p ] .", "must be node shapes", "§4.7.1"),
    ("ex:S sh:targetNode ex:a ; sh:property [ sh:datatype xsd:string ] .", "must be property shapes", "§4.7.2"),
    ("ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:qualifiedValueShape [ sh:class ex:C ] .", "qualifiedMinCount", "§4.7.3"),
    ("ex:S sh:targetNode ex:a ; sh:closed 'yes' .", "xsd:boolean", "§4.8.1"),
    ("ex:S sh:targetNode ex:a ; sh:closed true ; sh:ignoredProperties ( 'p' ) .", "must be IRIs", "§4.8.1"),
    ("ex:S sh:targetNode ex:a ; sh:path [ sh:inversePath ex:p ; sh:zeroOrMorePath ex:q ] .", "exactly one of", "§2.3.1"),
    ("ex:S sh:targetNode ex:a ; sh:path ( ex:p ) .", "at least two members", "§2.3.1"),
    ("ex:S sh:targetNode ex:a ; sh:path [ sh:alternativePath ( ex:p ) ] .", "at least two paths", "§2.3.1"),
    ("ex:S sh:targetNode ex:a ; sh:path ex:p, ex:q .", "exactly one sh:path", "§2.3"),
    ("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:path ex:p .", "cannot have sh:path", "§2.2"),
    ("ex:S a sh:PropertyShape ; sh:targetNode ex:a .", "needs sh:path", "§2.3"),
    ("ex:S sh:targetNode ex:a ; sh:severity 'high' .", "sh:severity", "§2.1.5"),
    ("ex:S sh:targetNode ex:a ; sh:message ex:iri .", "sh:message", "§2.1.5"),
    ("ex:S sh:targetNode ex:a ; sh:deactivated 'no' .", "sh:deactivated", "§2.1.6"),
    ("ex:S sh:targetClass 'C' .", "sh:targetClass", "§2.1.3.2"),
    ("ex:S sh:targetNode ex:a ; sh:lessThan ex:q .", "node shapes cannot have sh:lessThan", "§4.5.3"),
    ("ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:closed sh:ByTypes .", "ByTypes", "§4.8.1"),
]


@pytest.mark.parametrize(("ttl", "reason", "section"), CASES, ids=[c[1] + "-" + str(i) for i, c in enumerate(CASES)])
def test_malformed_shape_is_refused(ttl: str, reason: str, section: str) -> None:
    with pytest.raises(ShapeError) as info:
        shapes(ttl)
    err = info.value
    assert reason in str(err)
    assert section in (err.rule or ""), err.rule
    assert err.shape == ex("S"), "the error names the shape"
    assert str(ex("S")) in str(err)


def test_blank_target_node_is_accepted() -> None:
    """SHACL 1.2 lets sh:targetNode name a blank node (W3C core/node/nodeKind-002; SHACL 1.0 §2.1.3.1
    did not): a blank node of the shapes graph is no node of the data graph, so nothing is validated."""
    assert shapes("ex:S sh:targetNode [] ; sh:nodeKind sh:IRI .").validate(store("")).conforms


@pytest.mark.parametrize(("ttl", "term"), [
    ("ex:S sh:targetNode ex:a ; sh:minCont 1 .", "sh:minCont"),
    ("ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:uniqueMembrs true ] .", "sh:uniqueMembrs"),
    ("ex:f a sh:JSFunction ; sh:jsFunctionName 'f' .", "SHACL-AF function"),  # sh:SPARQLFunction is (shacl.functions)
    ("ex:r a sh:JSRule .", "SHACL-AF rule"),  # sh:TripleRule and sh:SPARQLRule are implemented (shacl.rules)
])
def test_unimplemented_sh_term_is_refused_not_ignored(ttl: str, term: str) -> None:
    with pytest.raises(ShapeError, match=term):
        shapes(ttl)


@pytest.mark.parametrize(("ttl", "named"), [
    ("ex:f a sh:SPARQLFunction .", "needs exactly one body"),
    ("ex:f a sh:SPARQLFunction ; sh:select 'SELECT ?r WHERE { BIND(1 AS ?r) }', 'ASK {}' .", "needs exactly one body"),
    ("ex:f a sh:SPARQLFunction ; sh:select 'SELECT ?r WHERE { BIND(1 AS ?r) ' .", "not valid SPARQL"),
    ("ex:f a sh:SPARQLFunction ; sh:parameter [ sh:path [ sh:inversePath ex:p ] ] ; sh:ask 'ASK {}' .", "sh:path"),
    ("[] a sh:SPARQLFunction ; sh:ask 'ASK {}' .", "needs an IRI"),
])
def test_malformed_function_is_a_shape_error_naming_it(ttl: str, named: str) -> None:
    with pytest.raises(ShapeError, match=named) as caught:
        shapes(ttl)
    assert "function" in str(caught.value)


def test_shape_error_is_a_value_error_and_a_memkg_error() -> None:
    from memkg.core.errors import MemkgError

    with pytest.raises(ValueError):
        shapes("ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:minCount -1 .")
    assert issubclass(ShapeError, MemkgError)


def test_unused_ill_formed_paths_are_not_shapes() -> None:
    """Only nodes that are shapes are checked (W3C core/path/path-unused-001)."""
    shapes("_:p1 sh:inversePath _:p2 . _:p2 sh:zeroOrMorePath ( _:p2 ) .")


def test_from_file_reports_syntax_errors(tmp_path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix ex: <http://example.org/> . ex:a ex:b")
    with pytest.raises(SyntaxError):
        Shapes.from_file(bad)
    with pytest.raises(ValueError, match="extension"):
        Shapes.from_file(tmp_path / "shapes.unknown")
