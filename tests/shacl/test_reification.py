"""SHACL 1.2: sh:reifierShape, sh:reificationRequired (and the draft sh:reifiableBy)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from pyoxigraph import RdfFormat, parse

from memkg.shacl import ShapeError
from memkg.shacl.engine import Engine

from .helpers import PREFIXES, check, ex, shapes, store

SHAPES = """
ex:Prov a sh:NodeShape ; sh:property [ sh:path ex:source ; sh:minCount 1 ; sh:nodeKind sh:IRI ] .
ex:S a sh:NodeShape ; sh:targetClass ex:Person ; sh:property ex:S-age .
ex:S-age sh:path ex:age ; sh:reifierShape ex:Prov ; {required}
"""
DATA = """
ex:ann a ex:Person ; ex:age 30 ~ ex:r1 {| ex:source ex:census |} .
ex:bob a ex:Person ; ex:age 40 ~ ex:r2 {| ex:source "gossip" |} .
ex:cy a ex:Person ; ex:age 50 .
ex:dee a ex:Person ; ex:age 60 ; sh:incomplete true .
ex:Stub1 a ex:Person ; ex:age 70 .
ex:Stub2 a ex:Person ; ex:age 80 ; sh:incomplete false .
ex:info sh:incompleteURIStart "http://example.org/Stub"^^xsd:anyURI .
"""


def test_reifiers_must_conform() -> None:
    found = check(SHAPES.replace("{required}", "."), DATA)
    assert found == {("ex:bob", "40", "ReifierShape"): 1}


def test_reification_required_unless_incomplete() -> None:
    found = check(SHAPES.replace("{required}", "sh:reificationRequired true ."), DATA)
    assert found == {
        ("ex:bob", "40", "ReifierShape"): 1,
        ("ex:cy", "50", "ReifierShape"): 1,
        ("ex:Stub2", "80", "ReifierShape"): 1,
    }


def test_reifier_shape_decided_in_python_when_recursive() -> None:
    s = SHAPES.replace("{required}", ".") + " ex:Prov sh:or ( [ sh:path ex:source ; sh:hasValue ex:census ] [ sh:node ex:Prov ] ) ."
    assert check(s, DATA) == {("ex:bob", "40", "ReifierShape"): 1}


def test_reifier_shape_needs_a_predicate_path() -> None:
    with pytest.raises(ShapeError, match="sh:path must be an IRI"):
        shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path [ sh:inversePath ex:p ] ; sh:reifierShape ex:P ] .")


# -- the two paths: SPARQL over the store, Python over the data as written ------------------------------


def _written(shape_ttl: str, data_ttl: str) -> set[tuple[str, str]]:
    report = shapes(shape_ttl).validate_quads(parse((PREFIXES + data_ttl).encode(), format=RdfFormat.TURTLE))
    return {(str(r.focus), str(r.value)) for r in report.results}


INT = "<http://www.w3.org/2001/XMLSchema#integer>"


def test_a_reifier_reifies_the_triple_as_written() -> None:
    # A store keeps "01" as 1: as written, ex:r reifies the triple with "01", not the one with 1.
    data = 'ex:ann a ex:Person ; ex:age 1 ; ex:age "01"^^xsd:integer ~ ex:r {| ex:source ex:census |} .'
    required = SHAPES.replace("{required}", "sh:reificationRequired true .")
    assert _written(required, data) == {("<http://example.org/ann>", f'"1"^^{INT}')}
    bad = 'ex:ann a ex:Person ; ex:age 1 ~ ex:ok {| ex:source ex:census |} ; ex:age "01"^^xsd:integer ~ ex:r {| ex:source "x" |} .'
    assert _written(SHAPES.replace("{required}", "."), bad) == {("<http://example.org/ann>", f'"01"^^{INT}')}


_PEOPLE = ["ex:ann", "ex:bob", "ex:cy"]
_SOURCES = ["ex:census", '"gossip"', None]


@st.composite
def _data(draw: st.DrawFn) -> str:
    lines = []
    for i, person in enumerate(_PEOPLE):
        ages = draw(st.lists(st.integers(1, 3), max_size=3, unique=True))
        line = f"{person} a ex:Person"
        for age in ages:
            line += f" ; ex:age {age}"
            for j, source in enumerate(draw(st.lists(st.sampled_from(_SOURCES), max_size=2))):
                said = f"ex:source {source}" if source else "ex:note 1"
                line += f" ~ ex:r{i}{age}{j} {{| {said} |}}"
        lines.append(line + " .")
    return "\n".join(lines)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=_data(), required=st.booleans(), recursive=st.booleans())
def test_sparql_and_python_decide_reifier_shapes_alike(data: str, required: bool, recursive: bool) -> None:
    """Every focus node judged by the component in Python (:meth:`judge`, the as-written path)
    gets the results the SPARQL fragment gives for it."""
    text = SHAPES.replace("{required}", "sh:reificationRequired true ." if required else ".")
    if recursive:  # the reifier shape decided in Python on the SPARQL path too
        text += " ex:Prov sh:or ( [ sh:path ex:source ; sh:hasValue ex:census ] [ sh:node ex:Prov ] ) ."
    compiled, data_store = shapes(text), store(data)
    by_sparql = {(str(r.focus), str(r.value)) for r in compiled.validate(data_store).results}
    engine = Engine(compiled, data_store, None)
    component = compiled._shapes[ex("S-age")].constraints[0]
    by_python = set()
    for person in _PEOPLE:
        focus = ex(person[3:])
        values = engine.values_as_written(focus, ex("age"))
        judged = component.judge(values, focus, engine)
        assert judged is not None
        by_python |= {(str(focus), str(v)) for v in judged}
    assert by_python == by_sparql
