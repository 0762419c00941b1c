"""SHACL 1.2: sh:reifierShape, sh:reificationRequired (and the draft sh:reifiableBy)."""

from __future__ import annotations

import pytest

from memkg.shacl import ShapeError

from .helpers import check, shapes

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
