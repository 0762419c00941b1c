"""The range components at their bound: exclusive and inclusive alike whether SPARQL judges, the
Python comparisons clear a value first (with focus nodes, inside ``sh:or``), or the data is read
as written."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, RdfFormat, Store, parse

from memkg.adapters.cli import main
from memkg.shacl import Shapes
from memkg.shacl.components.value_range import COMPONENTS

EX = "https://example.org/planted/"
XSD = "http://www.w3.org/2001/XMLSchema#"
BOUND = Literal("5", datatype=NamedNode(XSD + "integer"))
VALUES = [Literal(v, datatype=NamedNode(XSD + t)) for v, t in
          [("4", "integer"), ("5", "integer"), ("6", "integer"), ("4.9", "decimal"), ("5.0", "decimal"),
           ("5.1", "decimal"), ("-5", "integer"), ("05", "integer")]]
_PREFIXES = b"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.__name__)
def test_range_components_judge_alike_in_python_and_in_sparql(component) -> None:  # type: ignore[no-untyped-def]
    """``surely_conforms`` (Python numbers) may only ever say yes where ``judge`` (SPARQL's
    comparison, by value) finds nothing; and at the bound it must say what SPARQL says."""
    comp = component.__new__(component)
    comp.params = {component.PARAM.value.rsplit("#", 1)[1]: BOUND}
    for value in VALUES:
        sparql_ok = comp.judge([value], NamedNode("urn:x"), None) == []
        python_ok = comp.surely_conforms([value], NamedNode("urn:x"), None)
        assert sparql_ok or not python_ok, ("Python cleared what SPARQL refuses", component.__name__, value)
        if value.value != "05":  # a numeral Python reads (canonical, short) is decided there, as SPARQL would
            assert python_ok == sparql_ok, (component.__name__, value, python_ok, sparql_ok)
        expected = {">": Decimal(value.value) > 5, ">=": Decimal(value.value) >= 5,
                    "<": Decimal(value.value) < 5, "<=": Decimal(value.value) <= 5}[component.OPERATOR]
        assert sparql_ok is expected, (component.__name__, value)


@pytest.mark.parametrize(("component", "value", "conforms"), [
    ("sh:minExclusive", "5", False), ("sh:minExclusive", "6", True), ("sh:minExclusive", "4", False),
    ("sh:minInclusive", "5", True), ("sh:minInclusive", "4", False), ("sh:minInclusive", "6", True),
    ("sh:maxExclusive", "5", False), ("sh:maxExclusive", "4", True), ("sh:maxExclusive", "6", False),
    ("sh:maxInclusive", "5", True), ("sh:maxInclusive", "6", False), ("sh:maxInclusive", "4", True),
])
@pytest.mark.parametrize("written", ["{}", "0{}", "+{}"])
def test_range_bounds_judge_alike_in_sparql_and_as_written(component: str, value: str, conforms: bool, written: str) -> None:
    shapes = Shapes.from_quads(parse(_PREFIXES + f"""
        <http://e/S> sh:targetSubjectsOf <http://e/p> ; sh:property [ sh:path <http://e/p> ; {component} 5 ] .
    """.encode(), format=RdfFormat.TURTLE))
    data = f'<http://e/a> <http://e/p> "{written.format(value)}"^^<http://www.w3.org/2001/XMLSchema#integer> .'
    quads = list(parse(data.encode(), format=RdfFormat.TURTLE))
    as_written = shapes.validate_quads(quads)
    store = Store()
    store.extend(quads)
    in_store = shapes.validate(store)
    # With focus nodes (as a write is judged), Python may clear a value before any SPARQL runs.
    focused = shapes.validate(store, focus=[quads[0].subject])
    assert as_written.conforms is conforms, (component, value, written)
    assert in_store.conforms is conforms, (component, value, written)
    assert focused.conforms is conforms, (component, value, written)


@pytest.mark.parametrize(("component", "value", "conforms"), [
    (">", "5", False), (">", "6", True), (">=", "5", True), (">=", "4", False),
    ("<", "5", False), ("<", "4", True), ("<=", "5", True), ("<=", "6", False),
])
def test_range_bounds_at_the_bound_inside_sh_or_where_python_decides_first(component: str, value: str, conforms: bool) -> None:
    # sh:or asks each member whether a value surely conforms, in Python, before SPARQL.
    name = {">": "sh:minExclusive", ">=": "sh:minInclusive", "<": "sh:maxExclusive", "<=": "sh:maxInclusive"}[component]
    shapes = Shapes.from_quads(parse(_PREFIXES + f"""
        <http://e/S> sh:targetSubjectsOf <http://e/p> ;
            sh:property [ sh:path <http://e/p> ; sh:or ( [ {name} 5 ] ) ] .
    """.encode(), format=RdfFormat.TURTLE))
    data = f'<http://e/a> <http://e/p> {value} .'
    assert shapes.validate_quads(parse(data.encode(), format=RdfFormat.TURTLE)).conforms is conforms


@pytest.mark.parametrize("bound, value, conforms", [
    ("sh:minExclusive", 5, False), ("sh:minExclusive", 6, True),
    ("sh:maxExclusive", 5, False), ("sh:maxExclusive", 4, True),
    ("sh:minInclusive", 5, True), ("sh:minInclusive", 4, False),
    ("sh:maxInclusive", 5, True), ("sh:maxInclusive", 6, False),
])
@pytest.mark.parametrize("wrapped", [False, True], ids=["direct", "in-sh:or"])
@pytest.mark.parametrize("focus", [False, True], ids=["whole", "focus"])
def test_shacl_range_bounds_at_the_boundary(tmp_path: Path, bound: str, value: int, conforms: bool, wrapped: bool,
                                            focus: bool) -> None:
    """Validating everything, SPARQL judges; with focus nodes, the Python comparisons of
    ``surely_conforms`` first clear what they can (inside sh:or too: its second member never
    holds, so the range alone decides)."""
    constraint = f"{bound} 5"
    if wrapped:
        constraint = f'sh:or ( [ {bound} 5 ] [ sh:in ( "never" ) ] )'
    shapes = f"""PREFIX sh: <http://www.w3.org/ns/shacl#>
PREFIX ex: <{EX}>
ex:S a sh:NodeShape ; sh:targetNode ex:x ; sh:property [ sh:path ex:age ; {constraint} ] .
"""
    data = f"PREFIX ex: <{EX}>\nex:x ex:age {value} .\n"
    (tmp_path / "shapes.ttl").write_text(shapes)
    (tmp_path / "data.ttl").write_text(data)
    code = main(["--store", str(tmp_path / "store"), "validate", str(tmp_path / "data.ttl"),
                 "--shapes", str(tmp_path / "shapes.ttl"), "--shapes-only", "--format", "json",
                 *(["--focus", EX + "x"] if focus else [])])
    assert (code == 0) is conforms, f"{value} against {bound} 5"
