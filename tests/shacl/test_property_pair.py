"""SHACL §4.5 sh:equals, sh:disjoint, sh:lessThan, sh:lessThanOrEquals."""

from __future__ import annotations

import pytest

from memkg.shacl import ShapeError

from .helpers import check, ex, shapes

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


def test_an_alternative_breaking_disjoint_is_not_taken_for_granted() -> None:
    # Judging given nodes, sh:or takes a shortcut when a member surely conforms; a disjoint
    # whose other property shares a value does not, so ex:a fits no member (SHACL §4.5.2, §4.6.2).
    s = ("ex:S a sh:NodeShape ; sh:targetClass ex:T ; "
         "sh:or ( [ sh:path ex:p ; sh:disjoint ex:q ] [ sh:class ex:Never ] ) .")
    for focus in (None, [ex("a")]):  # every target, and the node alone (as a write is judged)
        assert check(s, "ex:a a ex:T ; ex:p ex:x ; ex:q ex:x .", focus=focus) == {("ex:a", "ex:a", "Or"): 1}
        assert check(s, "ex:a a ex:T ; ex:p ex:x ; ex:q ex:y .", focus=focus) == {}
