"""SHACL §4.6 logical and §4.7 shape-based components, nested in SPARQL or decided in Python."""

from __future__ import annotations

from .helpers import check, shapes, store

AGE = "ex:Adult a sh:NodeShape ; sh:property [ sh:path ex:age ; sh:minInclusive 18 ] ."
DATA = "ex:kid a ex:T ; ex:age 7 . ex:grown a ex:T ; ex:age 40 . ex:none a ex:T ."


def test_not_and_or_xone() -> None:
    base = AGE + " ex:Named a sh:NodeShape ; sh:property [ sh:path ex:name ; sh:minCount 1 ] . ex:S a sh:NodeShape ; sh:targetClass ex:T ; "
    data = DATA + " ex:grown ex:name 'G' . ex:kid ex:name 'K' ."
    assert {f for f, _, _ in check(base + "sh:not ex:Adult .", data)} == {"ex:grown", "ex:none"}  # no age: an adult
    assert {f for f, _, _ in check(base + "sh:and ( ex:Adult ex:Named ) .", data)} == {"ex:kid", "ex:none"}
    assert check(base + "sh:or ( ex:Adult ex:Named ) .", data) == {}
    assert {f for f, _, _ in check(base + "sh:or ( ex:Named [ sh:hasValue ex:kid ] ) .", data)} == {"ex:none"}
    # ex:none is an adult (no age to violate) but not named: exactly one → conforms
    assert {f for f, _, _ in check(base + "sh:xone ( ex:Adult ex:Named ) .", data)} == {"ex:grown"}
    assert {f for f, _, _ in check(base + "sh:xone ( ) .", data)} == {"ex:kid", "ex:grown", "ex:none"}


def test_node_reports_the_value_not_the_nested_results() -> None:
    s = AGE + " ex:S a sh:NodeShape ; sh:targetClass ex:Parent ; sh:property [ sh:path ex:child ; sh:node ex:Adult ] ."
    data = "ex:p a ex:Parent ; ex:child ex:kid, ex:grown . ex:kid ex:age 7 . ex:grown ex:age 40 ."
    assert check(s, data) == {("ex:p", "ex:kid", "Node"): 1}


def test_nested_property_shapes_report_their_own_results() -> None:
    s = """
      ex:S a sh:NodeShape ; sh:targetClass ex:Parent ; sh:property ex:Child .
      ex:Child sh:path ex:child ; sh:property [ sh:path ex:age ; sh:minInclusive 18 ] .
    """
    data = "ex:p a ex:Parent ; ex:child ex:kid . ex:kid ex:age 7 ."
    assert check(s, data) == {("ex:kid", "7", "MinInclusive"): 1}


def test_recursive_shapes_are_decided_in_python() -> None:
    """A list shape that refers to itself: every node until rdf:nil has a string rdf:first."""
    s = """
      ex:ListShape a sh:NodeShape ; sh:targetObjectsOf ex:list ;
        sh:or ( [ sh:hasValue rdf:nil ]
                [ sh:property [ sh:path rdf:first ; sh:datatype xsd:string ; sh:minCount 1 ] ;
                  sh:property [ sh:path rdf:rest ; sh:node ex:ListShape ; sh:minCount 1 ] ] ) .
    """
    good = 'ex:a ex:list ( "x" "y" ) .'
    bad = 'ex:b ex:list ( "x" 2 ) .'
    assert check(s, good) == {}
    found = check(s, bad)
    assert {c for _, _, c in found} == {"Or"} and len(found) == 1
    compiled = shapes(s)
    assert compiled._compiler.root_nonconformance(compiled._compiler.shape(next(iter(compiled)))) is None


def test_recursion_through_cyclic_data_terminates() -> None:
    s = """
      ex:Person a sh:NodeShape ; sh:targetClass ex:Person ;
        sh:property [ sh:path ex:knows ; sh:node ex:Person ] ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .
    """
    data = "ex:a a ex:Person ; ex:name 'A' ; ex:knows ex:b . ex:b a ex:Person ; ex:name 'B' ; ex:knows ex:a . ex:c a ex:Person ; ex:knows ex:a ."
    assert check(s, data) == {("ex:c", "-", "MinCount"): 1}


def test_qualified_value_shapes_with_disjoint_siblings() -> None:
    s = """
      ex:Hand a sh:NodeShape ; sh:targetClass ex:Hand ;
        sh:property [ sh:path ex:digit ; sh:qualifiedValueShape [ sh:class ex:Thumb ] ;
                      sh:qualifiedMinCount 1 ; sh:qualifiedMaxCount 1 ; sh:qualifiedValueShapesDisjoint true ] ;
        sh:property [ sh:path ex:digit ; sh:qualifiedValueShape [ sh:class ex:Finger ] ;
                      sh:qualifiedMinCount 2 ; sh:qualifiedMaxCount 2 ; sh:qualifiedValueShapesDisjoint true ] .
    """
    data = """
      ex:ok a ex:Hand ; ex:digit ex:t, ex:f1, ex:f2 .  ex:t a ex:Thumb . ex:f1 a ex:Finger . ex:f2 a ex:Finger .
      ex:odd a ex:Hand ; ex:digit ex:both, ex:f1, ex:f2 . ex:both a ex:Thumb, ex:Finger .
      ex:many a ex:Hand ; ex:digit ex:t, ex:f1, ex:f2, ex:f3 . ex:f3 a ex:Finger .
    """
    assert check(s, data) == {("ex:odd", "-", "QualifiedMinCount"): 1, ("ex:many", "-", "QualifiedMaxCount"): 1}


def test_inlined_and_python_decided_conformance_agree() -> None:
    """The same sh:node check, once nested in SPARQL and once (through recursion) in Python."""
    inline = "ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:node ex:N ] . ex:N a sh:NodeShape ; sh:datatype xsd:integer ."
    recursive = inline + " ex:N sh:or ( [ sh:datatype xsd:integer ] [ sh:node ex:N ; sh:datatype xsd:integer ] ) ."
    data = "ex:a a ex:T ; ex:p 1, 'x', ex:i . ex:b a ex:T ; ex:p 2 ."
    assert check(inline, data) == check(recursive, data) == {("ex:a", '"x"', "Node"): 1, ("ex:a", "ex:i", "Node"): 1}
    s = shapes(recursive)
    report = s.validate(store(data))
    assert len(report.results) == 2


def test_a_value_that_fits_no_alternative_of_sh_or_is_reported_in_words() -> None:
    base = AGE + " ex:Named a sh:NodeShape ; sh:property [ sh:path ex:name ; sh:minCount 1 ] . ex:S a sh:NodeShape ; sh:targetClass ex:T ; "
    (result,) = shapes(base + "sh:or ( ex:Adult ex:Named ) .").validate(store(DATA)).results  # ex:kid
    assert result.message == "Value does not conform to any shape of sh:or"


def test_qualified_min_count_counts_each_conforming_value_when_the_shape_is_decided_row_by_row() -> None:
    # SHACL §4.7.3: the number of value nodes that conform. sh:minCount 5 is too large to
    # spell out in SPARQL, so the qualified shape is decided over the rows in Python.
    s = ("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; "
         "sh:qualifiedValueShape [ sh:path ex:r ; sh:minCount 5 ] ; sh:qualifiedMinCount 2 ] .")
    five = "ex:r 1, 2, 3, 4, 5"
    assert check(s, f"ex:a ex:p ex:b1, ex:b2, ex:b3 . ex:b1 {five} . ex:b2 {five} . ex:b3 ex:r 1 .") == {}
    assert check(s, f"ex:a ex:p ex:b1, ex:b3 . ex:b1 {five} . ex:b3 ex:r 1 .") == {("ex:a", "-", "QualifiedMinCount"): 1}
