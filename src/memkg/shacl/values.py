"""Exact tests on single terms as written, for constraints decided in Python.

Each test means what the engine's generated SPARQL means, and asks Oxigraph
where it can without letting a store see the literal: lexical forms go in as
plain strings (a store would not rewrite them), values only after the literal
is known to be well formed (then comparing by value is what SPARQL does).
Results are cached: the terms judged this way are the few a store rewrites.

>>> from pyoxigraph import Literal
>>> from memkg.core.vocab import xsd
>>> well_formed(Literal("300", datatype=xsd.byte)), well_formed(Literal("-5", datatype=xsd.negativeInteger))
(False, True)
>>> compare(Literal("01", datatype=xsd.integer), ">=", Literal("1", datatype=xsd.integer))
True
>>> matches(Literal("2020-01-01T00:00:00.000Z", datatype=xsd.dateTime), r"\\.000Z$", None)
True
"""

from __future__ import annotations

import functools

from pyoxigraph import BlankNode, Literal, NamedNode, QuerySolutions, Store

from ..core.terms import Term, sparql_term
from ..core.vocab import XSD, rdf
from .terms import sparql_string

_STORE = Store()

# The lexical spaces of the XSD datatypes, as SPARQL tests (what sh:datatype compiles to).
_CASTABLE = {
    "boolean", "integer", "decimal", "float", "double", "dateTime", "date", "time",
    "duration", "yearMonthDuration", "dayTimeDuration",
}
_INTEGER_RANGES: dict[str, tuple[int | None, int | None]] = {
    "nonNegativeInteger": (0, None),
    "positiveInteger": (1, None),
    "nonPositiveInteger": (None, 0),
    "negativeInteger": (None, -1),
    "long": (-(2**63), 2**63 - 1),
    "int": (-(2**31), 2**31 - 1),
    "short": (-(2**15), 2**15 - 1),
    "byte": (-128, 127),
    "unsignedLong": (0, 2**64 - 1),
    "unsignedInt": (0, 2**32 - 1),
    "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 255),
}
_TZ = r"(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_REGEXES = {
    "gYear": r"^-?([1-9][0-9]{3,}|0[0-9]{3})" + _TZ + "$",
    "gYearMonth": r"^-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])" + _TZ + "$",
    "gMonth": r"^--(0[1-9]|1[0-2])" + _TZ + "$",
    "gMonthDay": r"^--(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])" + _TZ + "$",
    "gDay": r"^---(0[1-9]|[12][0-9]|3[01])" + _TZ + "$",
    "hexBinary": r"^([0-9a-fA-F]{2})*$",
    "base64Binary": r"^((([A-Za-z0-9+/] ?){4})*(([A-Za-z0-9+/] ?){3}[A-Za-z0-9+/]|([A-Za-z0-9+/] ?){2}[AEIMQUYcgkosw048] ?=|[A-Za-z0-9+/] ?[AQgw] ?= ?=))?$",
    "language": r"^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$",
    "normalizedString": r"^[^\n\r\t]*$",
    "token": r"^([^\s]+( [^\s]+)*)?$",
    "NMTOKEN": r"^[\w.:-]+$",
    "Name": r"^[A-Za-z_:][\w.:-]*$",
    "NCName": r"^[A-Za-z_][\w.-]*$",
}


#: Lexical forms Python vouches for exactly as Oxigraph's casts read them (a write's
#: confidence, its dates): plain numerals short enough for Oxigraph's fixed-point
#: decimals, and dateTimes Python's calendar accepts (years 1-9999, hours below 24,
#: microseconds at most), no sign but "-", no leading zeros (canonical forms: what a
#: Store holds). Anything else is left to SPARQL.


def wellformed(v: str, datatype: NamedNode) -> str | None:
    """A SPARQL expression true iff the literal in ``v`` (already known to have
    ``datatype``) has a lexical form in the datatype's lexical space; None when
    any lexical form is acceptable (xsd:string, unknown datatypes).

    >>> from memkg.core.vocab import xsd
    >>> wellformed("?v", xsd.decimal)
    'COALESCE(isLiteral(<http://www.w3.org/2001/XMLSchema#decimal>(STR(?v))), false)'
    >>> wellformed("?v", xsd.string) is None
    True
    """
    iri = datatype.value
    if iri == rdf.langString.value:
        return f'(LANG({v}) != "")'
    if not iri.startswith(XSD):
        return None
    name = iri[len(XSD):]
    if name in _CASTABLE:
        return f"COALESCE(isLiteral(<{iri}>(STR({v}))), false)"
    if name in _INTEGER_RANGES:
        lo, hi = _INTEGER_RANGES[name]
        cast = f"<{XSD}integer>(STR({v}))"
        conds = [f"isLiteral({cast})"]
        # Oxigraph's xsd:integer is 64-bit: the cast fails beyond, and bounds at the
        # limits would not even parse (-9223372036854775808 is read as -(2^63)).
        if lo is not None and lo > -(2**63):
            conds.append(f"{cast} >= {lo}")
        if hi is not None and hi < 2**63 - 1:
            conds.append(f"{cast} <= {hi}")
        return "COALESCE(" + " && ".join(conds) + ", false)"
    if name == "dateTimeStamp":
        cast = f"<{XSD}dateTime>(STR({v}))"
        return f'COALESCE(isLiteral({cast}) && TZ({cast}) != "", false)'
    if name in _REGEXES:
        return f"COALESCE(REGEX(STR({v}), {Literal(_REGEXES[name])}), false)"
    return None


def _ask(expression: str) -> bool | None:
    """The boolean value of a SPARQL expression over constants (None: an error)."""
    solutions = _STORE.query(f'SELECT (COALESCE({expression}, "error") AS ?r) {{}}')
    assert isinstance(solutions, QuerySolutions)
    value = next(iter(solutions))["r"]
    if isinstance(value, Literal) and value.datatype.value == XSD + "boolean":
        return value.value == "true"
    return None


@functools.lru_cache(maxsize=65536)
def _lexical_ok(lexical: str, datatype: NamedNode) -> bool:
    test = wellformed("?v", datatype)
    if test is None:
        return True
    return bool(_ask(test.replace("?v", sparql_string(lexical))))


def well_formed(term: Term) -> bool:
    """Whether a literal's lexical form is in its datatype's lexical space (True for
    datatypes the engine does not know, as for ``sh:datatype``)."""
    if not isinstance(term, Literal):
        return False
    if term.datatype == rdf.langString:
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
