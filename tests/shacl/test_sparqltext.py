"""The SPARQL tokenizer used for pre-binding: it only ever re-emits tokens or serialised terms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memkg.core.errors import ParseError
from memkg.shacl import ShapeError
from memkg.core.sparql import tokenize
from memkg.shacl.sparqltext import UserQuery


_TERMINALS = ["SELECT", "ASK", "WHERE", "{", "}", "(", ")", "$this", "?v", "ex:p", ":q", "<http://e/a>",
              '"x y"', "'#'", '"""a\nb"""', "_:b1", "12", "1.5e3", "@en", "<<(", ")>>", "{|", "|}", ".", ";",
              "&&", "!=", "<", "^^", "a", "FILTER", "BOUND", "'\\u0041'"]
_LAYOUT = [" ", "\n", "\t", " # a comment <http://x> 'q\n", "  \r\n"]


@pytest.mark.slow
@given(st.lists(st.tuples(st.sampled_from(_TERMINALS), st.sampled_from(_LAYOUT))))
def test_tokens_rebuild_the_text(parts: list[tuple[str, str]]) -> None:
    text = "".join(token + layout for token, layout in parts)
    tokens = tokenize(text, layout=True)
    assert "".join(t.text for t in tokens) == text
    assert [t.text for t in tokens if not t.layout] == [token for token, _ in parts]


@pytest.mark.slow
@given(st.text())
def test_any_text_rebuilds_or_is_refused_naming_the_spot(text: str) -> None:
    try:
        tokens = tokenize(text, layout=True)
    except ParseError as err:
        assert err.line is not None and err.line >= 1 and err.column is not None and err.column >= 1
        return
    assert "".join(t.text for t in tokens) == text


def test_a_query_that_does_not_lex_is_a_shape_error_naming_line_and_column() -> None:
    with pytest.raises(ShapeError, match=r"not SPARQL \(line 2, column 15: unterminated string\)"):
        UserQuery.parse('SELECT $this\nWHERE { ?x ?p "open }', {})


def test_strings_iris_and_comments_are_opaque() -> None:
    q = UserQuery.parse('SELECT $this WHERE { $this <http://e/p> "$this ex:p" . # $this\n }', {})
    out = q.render(consts={"this": "<http://e/a>"})
    assert '"$this ex:p"' in out and "# $this" in out and out.count("<http://e/a>") == 2


def test_prefixed_names_are_expanded() -> None:
    q = UserQuery.parse("PREFIX ex: <http://e/>\nASK { ?x ex:p\\.q ex:r . ?x a ex:C }", {"ex": "http://other/"})
    assert q.body().strip() == "?x <http://e/p.q> <http://e/r> . ?x a <http://e/C>"


def test_group_by_and_order_by_substitution() -> None:
    q = UserQuery.parse("SELECT $this (COUNT(?o) AS ?n) WHERE { $this ?p ?o } GROUP BY $this ORDER BY $this", {})
    out = q.render(consts={"this": "<http://e/a>"})
    assert "GROUP BY (<http://e/a>)" in out and "ORDER BY (<http://e/a>)" in out


def test_only_select_and_ask() -> None:
    with pytest.raises(ShapeError, match="SELECT or ASK"):
        UserQuery.parse("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", {})
