"""SHACL §4.2 cardinality, §4.3 value range and §4.4 string-based components."""

from __future__ import annotations

import pytest

from memkg.shacl import ShapeError

from .helpers import check, shapes, store


def prop(constraints: str, path: str = "ex:p", target: str = "sh:targetClass ex:T") -> str:
    return f"ex:S a sh:NodeShape ; {target} ; sh:property ex:P . ex:P sh:path {path} ; {constraints} ."


@pytest.mark.parametrize(
    ("constraint", "violating"),
    [
        ("sh:minCount 1", {"ex:zero"}),
        ("sh:minCount 2", {"ex:zero", "ex:one"}),
        ("sh:minCount 3", {"ex:zero", "ex:one", "ex:two"}),
        ("sh:maxCount 0", {"ex:one", "ex:two", "ex:three"}),
        ("sh:maxCount 1", {"ex:two", "ex:three"}),
        ("sh:maxCount 2", {"ex:three"}),
    ],
)
def test_counts(constraint: str, violating: set[str]) -> None:
    data = """
      ex:zero a ex:T . ex:one a ex:T ; ex:p 1 . ex:two a ex:T ; ex:p 1, 2 . ex:three a ex:T ; ex:p 1, 2, "3" .
    """
    found = check(prop(constraint), data)
    assert {f for f, _, _ in found} == violating
    assert all(v == "-" for _, v, _ in found), "cardinality results carry no sh:value"


def test_counts_distinct_value_nodes_of_complex_paths() -> None:
    """Two routes to the same node count once (value nodes are a set)."""
    data = "ex:a a ex:T ; ex:p ex:x ; ex:q ex:x ."
    assert check(prop("sh:maxCount 1", path="[ sh:alternativePath ( ex:p ex:q ) ]"), data) == {}
    assert check(prop("sh:minCount 2", path="[ sh:alternativePath ( ex:p ex:q ) ]"), data) == {("ex:a", "-", "MinCount"): 1}


@pytest.mark.parametrize("focus", [None, "ex:a"], ids=["whole graph", "one focus node"])
def test_two_routes_along_a_sequence_path_reach_one_value_node(focus: str | None) -> None:
    """SHACL §4.2: counts are of distinct value nodes; ``(ex:p ex:q)`` through two middles to one end is one value.

    So ``sh:minCount 2`` is broken by it and ``sh:maxCount 2`` is not, whatever the number of routes.
    """
    from .helpers import ex, rows, store

    data = "ex:a a ex:T ; ex:p ex:m1 , ex:m2 , ex:m3 . ex:m1 ex:q ex:x . ex:m2 ex:q ex:x . ex:m3 ex:q ex:x ."
    kwargs = {} if focus is None else {"focus": [ex("a")]}
    path = "( ex:p ex:q )"
    assert rows(shapes(prop("sh:minCount 2", path=path)).validate(store(data), **kwargs)) == {("ex:a", "-", "MinCount"): 1}
    assert rows(shapes(prop("sh:maxCount 2", path=path)).validate(store(data), **kwargs)) == {}
    assert rows(shapes(prop("sh:minCount 1 ; sh:maxCount 1", path=path)).validate(store(data), **kwargs)) == {}


def test_ranges_compare_by_value() -> None:
    data = """
      ex:a a ex:T ; ex:p "1.50"^^xsd:decimal .  ex:b a ex:T ; ex:p 1.5e0 .  ex:c a ex:T ; ex:p 2 .
      ex:d a ex:T ; ex:p "abc"^^xsd:decimal .  ex:e a ex:T ; ex:p "1.5" .  ex:f a ex:T ; ex:p ex:iri .
    """
    found = check(prop("sh:minInclusive 1.5 ; sh:maxExclusive 2"), data)
    assert {(f, c) for f, _, c in found} == {
        ("ex:c", "MaxExclusive"),
        ("ex:d", "MinInclusive"), ("ex:d", "MaxExclusive"),  # ill-typed: not comparable
        ("ex:e", "MinInclusive"), ("ex:e", "MaxExclusive"),  # a string is not comparable with a number
        ("ex:f", "MinInclusive"), ("ex:f", "MaxExclusive"),
    }


def test_date_time_ranges() -> None:
    data = """
      ex:a a ex:T ; ex:p "2026-01-01T00:00:00Z"^^xsd:dateTime .
      ex:b a ex:T ; ex:p "2025-12-31T23:59:59Z"^^xsd:dateTime .
      ex:c a ex:T ; ex:p "2026-01-01T01:00:00+02:00"^^xsd:dateTime .
    """
    found = check(prop('sh:minInclusive "2026-01-01T00:00:00Z"^^xsd:dateTime'), data)
    assert {f for f, _, _ in found} == {"ex:b", "ex:c"}


def test_lengths_and_blank_nodes() -> None:
    data = 'ex:a a ex:T ; ex:p "ab" . ex:b a ex:T ; ex:p "abcd" . ex:c a ex:T ; ex:p [] . ex:d a ex:T ; ex:p 12 .'
    found = check(prop("sh:minLength 2 ; sh:maxLength 3"), data)
    assert {(f, c) for f, _, c in found} == {("ex:b", "MaxLength"), ("ex:c", "MinLength"), ("ex:c", "MaxLength")}


def test_pattern_with_flags() -> None:
    data = 'ex:a a ex:T ; ex:p "Hello" . ex:b a ex:T ; ex:p "bye" . ex:c a ex:T ; ex:p ex:HelloIri . ex:d a ex:T ; ex:p [] .'
    found = check(prop('sh:pattern "^hel" ; sh:flags "i"'), data)
    assert {f for f, _, _ in found} == {"ex:b", "ex:c", "ex:d"}  # IRIs match on their string form: "http://..."


def test_invalid_regex_is_a_shape_error() -> None:
    with pytest.raises(ShapeError, match="regular expression"):
        shapes(prop('sh:pattern "(unclosed"'))


def test_language_in_and_unique_lang() -> None:
    data = """
      ex:a a ex:T ; ex:p "x"@en, "y"@en-GB .  ex:b a ex:T ; ex:p "z"@fr .  ex:c a ex:T ; ex:p "plain" .
      ex:d a ex:T ; ex:p "u"@de, "v"@DE, "w" .
    """
    assert {f for f, _, _ in check(prop('sh:languageIn ( "en" "de" )'), data)} == {"ex:b", "ex:c", "ex:d"}
    found = check(prop("sh:uniqueLang true"), data)
    assert found == {("ex:d", "-", "UniqueLang"): 1}, "language tags compare case-insensitively; untagged values do not count"


def test_a_repeated_language_tag_is_reported_in_words() -> None:
    data = 'ex:d a ex:T ; ex:p "u"@de, "v"@de .'
    (result,) = shapes(prop("sh:uniqueLang true")).validate(store(data)).results
    assert result.message == "Language tag used by more than one value"


def test_a_range_bound_given_twice_is_a_shape_error_not_a_crash() -> None:
    with pytest.raises(ShapeError, match="minInclusive"):
        shapes(prop("sh:minInclusive 1, 2"))
