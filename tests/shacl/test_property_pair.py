"""SHACL §4.5 sh:equals, sh:disjoint, sh:lessThan, sh:lessThanOrEquals."""

from __future__ import annotations

import pytest

from memkg.shacl import ShapeError

from .helpers import check, shapes

P = "ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:p ; {c} ] ."


def test_equals_reports_values_missing_on_either_side() -> None:
    data = "ex:a a ex:T ; ex:p 1, 2 ; ex:q 1, 3 . ex:b a ex:T ; ex:p 1 ; ex:q 1 ."
    assert check(P.replace("{c}", "sh:equals ex:q"), data) == {("ex:a", "2", "Equals"): 1, ("ex:a", "3", "Equals"): 1}


def test_equals_on_a_node_shape() -> None:
    s = "ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:equals ex:self ."
    data = "ex:a a ex:T ; ex:self ex:a . ex:b a ex:T . ex:c a ex:T ; ex:self ex:c, ex:d ."
    assert check(s, data) == {("ex:b", "ex:b", "Equals"): 1, ("ex:c", "ex:d", "Equals"): 1}


def test_disjoint() -> None:
    data = "ex:a a ex:T ; ex:p 1, 2 ; ex:q 2 . ex:b a ex:T ; ex:p 1 ; ex:q 3 ."
    assert check(P.replace("{c}", "sh:disjoint ex:q"), data) == {("ex:a", "2", "Disjoint"): 1}


def test_less_than_and_less_than_or_equals() -> None:
    data = """
      ex:a a ex:T ; ex:p 1 ; ex:q 2 .  ex:b a ex:T ; ex:p 2 ; ex:q 2 .  ex:c a ex:T ; ex:p 3 ; ex:q 2, 4 .
      ex:d a ex:T ; ex:p "x" ; ex:q 2 .
    """
    lt = check(P.replace("{c}", "sh:lessThan ex:q"), data)
    assert {f for f, _, _ in lt} == {"ex:b", "ex:c", "ex:d"}
    le = check(P.replace("{c}", "sh:lessThanOrEquals ex:q"), data)
    assert {f for f, _, _ in le} == {"ex:c", "ex:d"}


def test_less_than_is_not_allowed_on_node_shapes() -> None:
    with pytest.raises(ShapeError, match="node shapes cannot have sh:lessThan"):
        shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:lessThan ex:q .")
