"""Every limit at exactly its value and one past: sizes, nesting depths, literal lengths, and
SPARQL text counted in UTF-8 bytes; a refusal names the limit and its option."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Triple

from memkg.guard.limits import OPTIONS, LimitExceeded, Limits


def refused_by(name: str, check) -> LimitExceeded:  # type: ignore[no-untyped-def]
    with pytest.raises(LimitExceeded) as info:
        check()
    assert info.value.limit == name, info.value
    return info.value


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_rdf_nesting_at_max_depth_is_read_and_one_deeper_is_refused(depth: int) -> None:
    def nested(n: int) -> str:
        inner = "<urn:a> <urn:b> <urn:c>"
        for _ in range(n):
            inner = f"<urn:a> <urn:b> <<( {inner} )>>"
        return inner + " ."

    limits = Limits(max_depth=depth)
    limits.check_rdf(nested(depth).encode())
    err = refused_by("max_depth", lambda: limits.check_rdf(nested(depth + 1).encode()))
    assert f"{depth + 1} deep" in str(err) and f"limit of {depth}" in str(err) and "--max-depth" in str(err)


@pytest.mark.parametrize("depth", [1, 3, 8])
def test_sparql_brackets_at_max_depth_are_read_and_one_deeper_is_refused(depth: int) -> None:
    def query(n: int) -> str:
        return "ASK { FILTER(" + "(" * (n - 1) + "true" + ")" * (n - 1) + ") }"

    limits = Limits(max_depth=depth + 1)  # the group's brace is one level
    limits.check_query(query(depth))
    refused_by("max_depth", lambda: limits.check_query(query(depth + 1)))


def test_a_literal_of_exactly_max_literal_characters_is_read_and_one_more_is_refused() -> None:
    limits = Limits(max_literal=10)
    s, p = NamedNode("urn:s"), NamedNode("urn:p")
    limits.check_literals([Quad(s, p, Literal("é" * 10))])  # characters, not bytes
    limits.check_literals([Quad(s, p, Triple(s, p, Literal("é" * 10)))])  # inside a triple term too
    refused_by("max_literal", lambda: limits.check_literals([Quad(s, p, Triple(s, p, Literal("é" * 11)))]))
    err = refused_by("max_literal", lambda: limits.check_literals([Quad(s, p, Literal("é" * 11))]))
    assert "11 characters" in str(err) and "limit of 10" in str(err)


@pytest.mark.parametrize("name, check", [("max_query", Limits.check_query), ("max_update", Limits.check_update)])
def test_sparql_text_of_exactly_its_limit_in_utf8_bytes_is_read_and_one_byte_more_is_refused(name: str, check) -> None:  # type: ignore[no-untyped-def]
    text = "ASK { FILTER('é') }" if name == "max_query" else "INSERT DATA { <urn:s> <urn:p> 'é' }"
    size = len(text.encode())  # 'é' is two bytes: a character count would be one short
    check(Limits(**{name: size}), text)
    refused_by(name, lambda: check(Limits(**{name: size - 1}), text))


@pytest.mark.parametrize("name", ["max_query", "max_update", "max_body"])
def test_a_size_limit_of_one_is_allowed_and_zero_is_not(name: str) -> None:
    Limits(**{name: 1}).check_size(name, 1, "it")
    with pytest.raises(ValueError, match=name):
        Limits(**{name: 0})


def test_the_body_limit_answers_413_and_the_others_400() -> None:
    limits = Limits(max_body=5, max_query=5)
    assert refused_by("max_body", lambda: limits.check_size("max_body", 6, "the body")).status == 413
    assert refused_by("max_query", lambda: limits.check_size("max_query", 6, "the query")).status == 400


SIZE_LIMITS = sorted(name for name in OPTIONS if name != "max_depth")


@pytest.mark.parametrize("name", SIZE_LIMITS)
def test_a_size_equal_to_its_limit_is_accepted_and_one_more_is_refused(name: str) -> None:
    limits = Limits(**{name: 10})
    limits.check_size(name, 10, "the input")
    with pytest.raises(LimitExceeded) as err:
        limits.check_size(name, 11, "the input")
    assert err.value.limit == name and OPTIONS[name] in str(err.value)


@pytest.mark.parametrize("name", ["max_body", "max_query", "max_update"])
def test_every_size_limit_allows_its_value_and_refuses_one_past(name: str) -> None:
    limits = Limits(**{name: 100})
    limits.check_size(name, 100, "the thing")  # exactly the limit: allowed
    with pytest.raises(LimitExceeded) as info:
        limits.check_size(name, 101, "the thing")
    assert info.value.limit == name and "101" in str(info.value) and "100" in str(info.value)


def test_a_query_of_exactly_max_query_bytes_is_accepted_and_one_more_byte_is_refused() -> None:
    query = "ASK {}"
    Limits(max_query=len(query)).check_query(query)
    with pytest.raises(LimitExceeded, match="--max-query"):
        Limits(max_query=len(query) - 1).check_query(query)
