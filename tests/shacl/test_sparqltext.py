"""The SPARQL tokenizer used for pre-binding: it only ever re-emits tokens or serialised terms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memkg.shacl import ShapeError
from memkg.shacl.sparqltext import UserQuery, tokenize


@given(st.text())
def test_tokens_rebuild_the_text(text: str) -> None:
    assert "".join(t.text for t in tokenize(text)) == text


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
