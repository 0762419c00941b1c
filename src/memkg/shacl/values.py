"""Exact tests on single terms as written, for constraints decided in Python.

Each test means what the engine's generated SPARQL means, and asks Oxigraph
where it can without letting a store see the literal: lexical forms go in as
plain strings (a store would not rewrite them), values only after the literal
is known to be well formed (then comparing by value is what SPARQL does).
Results are cached: the terms judged this way are the few a store rewrites.

>>> from pyoxigraph import Literal
>>> from memkg.shacl.vocab import XSD
>>> well_formed(Literal("300", datatype=XSD.byte)), well_formed(Literal("-5", datatype=XSD.negativeInteger))
(False, True)
>>> compare(Literal("01", datatype=XSD.integer), ">=", Literal("1", datatype=XSD.integer))
True
>>> matches(Literal("2020-01-01T00:00:00.000Z", datatype=XSD.dateTime), r"\\.000Z$", None)
True
"""

from __future__ import annotations

import functools

from pyoxigraph import BlankNode, Literal, NamedNode, QuerySolutions, Store

from .terms import Term, sparql_string
from ..core.terms import sparql_term
from .vocab import RDF, XSD_NS

_STORE = Store()


def _ask(expression: str) -> bool | None:
    """The boolean value of a SPARQL expression over constants (None: an error)."""
    solutions = _STORE.query(f'SELECT (COALESCE({expression}, "error") AS ?r) {{}}')
    assert isinstance(solutions, QuerySolutions)
    value = next(iter(solutions))["r"]
    if isinstance(value, Literal) and value.datatype.value == XSD_NS + "boolean":
        return value.value == "true"
    return None


@functools.lru_cache(maxsize=65536)
def _lexical_ok(lexical: str, datatype: NamedNode) -> bool:
    from .components.value_type import wellformed  # the SPARQL test sh:datatype compiles to

    test = wellformed("?v", datatype)
    if test is None:
        return True
    return bool(_ask(test.replace("?v", sparql_string(lexical))))


def well_formed(term: Term) -> bool:
    """Whether a literal's lexical form is in its datatype's lexical space (True for
    datatypes the engine does not know, as for ``sh:datatype``)."""
    if not isinstance(term, Literal):
        return False
    if term.datatype == RDF.langString:
        return bool(term.language)
    return _lexical_ok(term.value, term.datatype)


@functools.lru_cache(maxsize=65536)
def _compare(a: Literal, operator: str, b: Literal) -> bool | None:
    return _ask(f"({sparql_term(a)} {operator} {sparql_term(b)})")


def compare(a: Term, operator: str, b: Term) -> bool | None:
    """``a operator b`` as SPARQL compares (by value); None where SPARQL raises an error:
    an IRI or blank node, an ill-typed literal, incomparable datatypes."""
    if not (isinstance(a, Literal) and isinstance(b, Literal)) or not (well_formed(a) and well_formed(b)):
        return None
    return _compare(a, operator, b)


@functools.lru_cache(maxsize=4096)
def _regex(text: str, pattern: str, flags: str | None) -> bool:
    args = sparql_string(pattern) + (f", {sparql_string(flags)}" if flags else "")
    return bool(_ask(f"REGEX({sparql_string(text)}, {args})"))


def matches(term: Term, pattern: str, flags: str | None) -> bool:
    """Whether the string form of ``term`` matches (blank nodes never do)."""
    if isinstance(term, BlankNode) or not isinstance(term, (Literal, NamedNode)):
        return False
    return _regex(term.value, pattern, flags)


def lang_matches(tag: str, language_range: str) -> bool:
    """SPARQL ``langMatches`` (RFC 4647 basic filtering).

    >>> lang_matches("en-US", "en"), lang_matches("", "*"), lang_matches("de", "*")
    (True, False, True)
    """
    tag, language_range = tag.lower(), language_range.lower()
    if language_range == "*":
        return bool(tag)
    return tag == language_range or tag.startswith(language_range + "-")


def string_length(term: Term) -> int | None:
    """``STRLEN(STR(term))``; None for blank nodes and triple terms."""
    if isinstance(term, (Literal, NamedNode)):
        return len(term.value)
    return None


__all__ = ["compare", "lang_matches", "matches", "string_length", "well_formed"]
