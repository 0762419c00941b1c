"""SHACL 1.2 incomplete nodes: sh:incomplete and sh:incompleteURIStart (memkg.shacl.incomplete)."""

from __future__ import annotations

import pytest
from pyoxigraph import RdfFormat, parse

from .helpers import PREFIXES, check, ex, rows, shapes, store

#: ex:Stub... IRIs are described elsewhere unless they say otherwise; ex:flagged says so itself.
INCOMPLETE = """
ex:info sh:incompleteURIStart "http://example.org/Stub"^^xsd:anyURI .
ex:flagged sh:incomplete true .
ex:StubComplete sh:incomplete false .
"""
MIN_COUNT = "ex:S a sh:NodeShape ; sh:targetNode ex:flagged, ex:Stub1, ex:StubComplete, ex:plain ; " \
            "sh:property [ sh:path ex:name ; sh:minCount 1 ] ."


def test_min_count_is_not_reported_for_an_incomplete_focus_node() -> None:
    assert check(MIN_COUNT, INCOMPLETE) == {("ex:StubComplete", "-", "MinCount"): 1, ("ex:plain", "-", "MinCount"): 1}


def test_the_terms_count_only_in_the_data_graph() -> None:
    data = store("ex:x ex:name 'x' .", graph="http://example.org/data")
    data.load((PREFIXES + INCOMPLETE).encode(), format=RdfFormat.TURTLE, to_graph=ex("elsewhere"))
    report = shapes(MIN_COUNT).validate(data, default_graph=[ex("data")])
    assert rows(report) == {(f, "-", "MinCount"): 1 for f in ("ex:flagged", "ex:Stub1", "ex:StubComplete", "ex:plain")}


def test_class_is_not_reported_for_an_incomplete_value_but_for_a_literal() -> None:
    shape = "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:class ex:C ] ."
    data = INCOMPLETE + """
    ex:a ex:p ex:flagged, ex:Stub1, ex:StubComplete, ex:plain, _:b, "http://example.org/Stub2" .
    _:b sh:incomplete true .
    """
    assert check(shape, data) == {
        ("ex:a", "ex:StubComplete", "Class"): 1,
        ("ex:a", "ex:plain", "Class"): 1,
        ("ex:a", '"http://example.org/Stub2"', "Class"): 1,
    }


def test_nested_shape_skips_incomplete_values_at_property_shapes_only() -> None:
    shape = """
    ex:Named a sh:NodeShape ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .
    ex:ByValue a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:node ex:Typed ] .
    ex:Typed a sh:NodeShape ; sh:class ex:C .
    ex:AtNode a sh:NodeShape ; sh:targetNode ex:flagged, ex:plain ; sh:node ex:Named .
    ex:ByProperty a sh:NodeShape ; sh:targetNode ex:a ;
      sh:property [ sh:path ex:p ; sh:property [ sh:path ex:age ; sh:datatype xsd:integer ] ] .
    """
    data = INCOMPLETE + """ex:a ex:p ex:Stub1, ex:StubComplete, ex:plain .
    ex:Stub1 ex:age "old" . ex:plain ex:age "old" ."""
    # At the node shape the incomplete focus node is validated, and the nested sh:minCount excuses it.
    assert check(shape, data) == {
        ("ex:a", "ex:StubComplete", "Node"): 1,
        ("ex:a", "ex:plain", "Node"): 1,
        ("ex:plain", "ex:plain", "Node"): 1,
        ("ex:plain", '"old"', "Datatype"): 1,
    }


def test_recursive_shapes_decided_in_python_skip_incomplete_values_too() -> None:
    shape = """
    ex:Person a sh:NodeShape ; sh:targetNode ex:a ;
      sh:property [ sh:path ex:knows ; sh:node ex:Person ] ;
      sh:property [ sh:path ex:age ; sh:datatype xsd:integer ] .
    """
    data = INCOMPLETE + """
    ex:a ex:knows ex:Stub1, ex:b ; ex:age 1 .
    ex:Stub1 ex:age "old" .
    ex:b ex:age "old" .
    """
    assert check(shape, data) == {("ex:a", "ex:b", "Node"): 1}
    shape = """ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property ex:K .
    ex:K sh:path ex:knows ; sh:nodeKind sh:IRI ; sh:property ex:K ."""
    data = INCOMPLETE + 'ex:a ex:knows ex:Stub1, ex:b . ex:Stub1 ex:knows "one" . ex:b ex:knows "two" .'
    assert check(shape, data) == {("ex:b", '"two"', "NodeKind"): 1}


OLD = "ex:Old a sh:NodeShape ; sh:property [ sh:path ex:age ; sh:minInclusive 60 ] ."
#: The same shape, recursive (its conformance is decided in Python).
OLD_RECURSIVE = OLD + " ex:Old sh:property [ sh:path ex:parent ; sh:node ex:Old ] ."


@pytest.mark.parametrize("old", [OLD, OLD_RECURSIVE], ids=["sparql", "python"])
def test_counting_components_count_an_incomplete_value_as_possibly_conforming(old: str) -> None:
    shape = old + """
    ex:S a sh:NodeShape ; sh:targetNode ex:a, ex:b, ex:c, ex:d, ex:e ;
      sh:property [ sh:path ex:knows ; sh:qualifiedValueShape ex:Old ; sh:qualifiedMinCount 2 ] ;
      sh:property [ sh:path ex:knows ; sh:qualifiedValueShape ex:Old ; sh:qualifiedMaxCount 1 ] ;
      sh:property [ sh:path ex:knows ; sh:someValue ex:Old ] .
    """
    data = INCOMPLETE + """
    ex:old ex:age 70 . ex:Stub1 ex:age 10 . ex:Stub2 ex:age 70 . ex:StubComplete ex:age 10 .
    ex:a ex:knows ex:Stub1, ex:old .  # possibly two for the minimum, one for the maximum
    ex:b ex:knows ex:StubComplete, ex:old .
    ex:c ex:knows ex:Stub2, ex:old .
    ex:d ex:knows ex:Stub1 .
    ex:e ex:knows ex:StubComplete .
    """
    assert check(shape, data) == {
        ("ex:b", "-", "QualifiedMinCount"): 1,
        ("ex:d", "-", "QualifiedMinCount"): 1,
        ("ex:e", "-", "QualifiedMinCount"): 1,
        ("ex:e", "-", "SomeValue"): 1,
    }


def test_member_shape_skips_incomplete_members() -> None:
    shape = """ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:list ;
      sh:memberShape [ sh:nodeKind sh:IRI ; sh:property [ sh:path ex:age ; sh:datatype xsd:integer ] ] ] ."""
    data = INCOMPLETE + """ex:Stub1 ex:age "old" . ex:flagged ex:age "old" . ex:StubComplete ex:age "old" .
    ex:a ex:list ( ex:Stub1 ex:flagged ), ( ex:StubComplete ), ( "http://example.org/Stub3" ) ."""
    found = check(shape, data)
    assert sorted(found.elements()) == [("ex:a", "_:", "MemberShape")] * 2


def test_focus_nodes_given_are_judged_the_same() -> None:
    report = shapes(MIN_COUNT).validate(store(INCOMPLETE), focus=[ex("Stub1"), ex("StubComplete"), ex("flagged")])
    assert rows(report) == {("ex:StubComplete", "-", "MinCount"): 1}


def test_values_judged_as_written_are_excused_too() -> None:
    shape = "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:n ; sh:property [ sh:path ex:n ; sh:minCount 2 ] ."
    data = PREFIXES + INCOMPLETE + 'ex:Stub1 ex:n "01"^^xsd:integer, 1 . ex:plain ex:n "01"^^xsd:integer, 1 .'
    report = shapes(shape).validate_quads(parse(data.encode(), format=RdfFormat.TURTLE))
    assert rows(report) == {}  # written apart, the two values are two
    data = PREFIXES + INCOMPLETE + 'ex:Stub1 ex:n "01"^^xsd:integer . ex:plain ex:n "01"^^xsd:integer .'
    report = shapes(shape).validate_quads(parse(data.encode(), format=RdfFormat.TURTLE))
    assert rows(report) == {("ex:plain", "-", "MinCount"): 1}
