"""The SPARQL lexer: terminals, positions, escapes, prologues, brackets."""

from __future__ import annotations

import pytest

from memkg.core.errors import ParseError
from memkg.core.sparql import Prologue, hides_keyword, matching, resolve_iri, tokenize


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text)]


def test_keywords_inside_strings_iris_and_comments_stay_there() -> None:
    text = 'SELECT * FROM <urn:FROM> { ?s ?p "FROM", \'SERVICE\', """x\nSERVICE""" } # SERVICE <urn:x>'
    words = [t.text for t in tokenize(text) if t.kind == "WORD"]
    assert words == ["SELECT", "FROM"]


@pytest.mark.parametrize(("text", "kind", "value"), [
    ('"a\\"b"', "STRING", 'a"b'),
    ("'it\\'s'", "STRING", "it's"),
    ('"""one "two" ""three"""', "STRING", 'one "two" ""three'),
    ("'''a''b'''", "STRING", "a''b"),
    ('"tab\\tnl\\n\\u00e9\\U0001F600"', "STRING", "tab\tnl\né\U0001F600"),
    ("<http://ex.org/a\\u0062c>", "IRI", "http://ex.org/abc"),
    ("<>", "IRI", ""),
    ("ex:a.b", "PNAME", "ex:a.b"),
    ("ex:a\\.b", "PNAME", "ex:a\\.b"),
    (":", "PNAME", ":"),
    ("é:ü", "PNAME", "é:ü"),
    ("_:b1", "BNODE", "_:b1"),
    ("$var", "VAR", "$var"),
    ("@en-GB--rtl", "LANGTAG", "@en-GB--rtl"),
    ("1.5e-3", "NUMBER", "1.5e-3"),
    (".5", "NUMBER", ".5"),
])
def test_single_terminals(text: str, kind: str, value: str) -> None:
    (tok,) = tokenize(text)
    assert (tok.kind, tok.value) == (kind, value)


def test_prefixed_name_does_not_swallow_final_dot() -> None:
    assert kinds("ex:a ex:b ex:c.") == [("PNAME", "ex:a"), ("PNAME", "ex:b"), ("PNAME", "ex:c"), ("PUNCT", ".")]


def test_sparql_12_punctuation() -> None:
    got = [t.text for t in tokenize("<<( ?s ?p ?o )>> ~ ?r {| :a :b |} << :s :p :o >> ?x^^xsd:int")]
    assert got == ["<<(", "?s", "?p", "?o", ")>>", "~", "?r", "{|", ":a", ":b", "|}", "<<", ":s", ":p", ":o", ">>",
                   "?x", "^^", "xsd:int"]


def test_less_than_is_not_an_iri_when_the_grammar_says_so() -> None:
    assert kinds("FILTER(?a <?b || ?a < 3)")[2:5] == [("VAR", "?a"), ("PUNCT", "<"), ("VAR", "?b")]
    assert kinds("?a <= ?b")[1] == ("PUNCT", "<=")
    assert kinds("<a b>")[0] == ("PUNCT", "<")  # a space is not allowed in an IRI


def test_positions_are_line_and_column() -> None:
    toks = tokenize('SELECT *\n# c\n  WHERE {\n"""x\ny""" ?z }')
    where = next(t for t in toks if t.text == "WHERE")
    z = next(t for t in toks if t.text == "?z")
    assert (where.line, where.column) == (3, 3) and (z.line, z.column) == (5, 6)


@pytest.mark.parametrize(("text", "line", "column"), [('SELECT "abc', 1, 8), ("ASK {\n  'x\n'}", 2, 3), ("SELECT `", 1, 8)])
def test_errors_carry_position(text: str, line: int, column: int) -> None:
    with pytest.raises(ParseError) as err:
        tokenize(text)
    assert (err.value.line, err.value.column) == (line, column)


def test_hides_keyword() -> None:
    def hides(text: str) -> bool:
        return hides_keyword(tokenize(text)[0], "SERVICE")

    assert hides("SERVICE") and hides("service") and hides("SERVICESILENT") and hides("trueSERVICE")
    assert hides("SERVICE:x") and hides("falseservice:x")
    assert not hides("ex:SERVICE") and not hides("myservice:x") and not hides('"SERVICE"') and not hides("?service")


def test_prologue_resolves_as_the_parser_does() -> None:
    toks = tokenize("BASE <http://ex.org/a/> PREFIX e: <b/> PREFIX : <urn:x:> VERSION '1.2' SELECT")
    prologue = Prologue()
    i = 0
    while (after := prologue.declare(toks, i)) != i:
        i = after
    assert toks[i].text == "SELECT"
    assert prologue.resolve(tokenize("e:c\\,d")[0]) == "http://ex.org/a/b/c,d"
    assert prologue.resolve(tokenize(":y")[0]) == "urn:x:y"
    assert prologue.resolve(tokenize("<../z>")[0]) == "http://ex.org/z"
    with pytest.raises(ValueError, match="undeclared prefix"):
        prologue.resolve(tokenize("nope:x")[0])


@pytest.mark.parametrize(("base", "ref", "expected"), [
    ("urn:t:", "a", "urn:a"), ("http://x/a/b", "../c", "http://x/c"), ("http://x/a/b", "?q", "http://x/a/b?q"),
    ("http://x/a/b", "#f", "http://x/a/b#f"), ("http://x/a/b", "//y/z", "http://y/z"), ("http://x", "c", "http://x/c"),
    ("http://x/a/b/", "./c/../d", "http://x/a/b/d"), ("urn:x", "", "urn:x"),
])
def test_resolve_iri_matches_oxigraph(base: str, ref: str, expected: str) -> None:
    from pyoxigraph import Store

    (row,) = Store().query(f"SELECT (<{ref}> AS ?x) {{}}", base_iri=base)
    assert resolve_iri(base, ref) == expected == row[0].value


def test_matching_brackets() -> None:
    toks = tokenize("{ a { b } <<( c )>> [ d ] } e")
    assert toks[matching(toks, 0)].text == "}" and matching(toks, 0) == len(toks) - 2
    with pytest.raises(ParseError, match="never closed"):
        matching(tokenize("{ { }"), 0)
