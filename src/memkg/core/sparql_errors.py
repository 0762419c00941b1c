"""SPARQL syntax errors for people: one line saying what is wrong, where, and what would be right.

Oxigraph's parser reports what its grammar expected at the failing character,
which can be five lines of character classes (an undefined prefix) or a word
that misleads (``SELEC`` → "expected CONSTRUCT"). :func:`explain` reads the
query text at the reported position and says it plainly.

>>> explain("expected CONSTRUCT", "SELEC * WHERE {}", 1, 10)
'SELEC is not a query form: write SELECT, CONSTRUCT, ASK or DESCRIBE (did you mean SELECT?)'
>>> explain("expected one of Prefix not found, ['%']", "SELECT * { ?s foo:bar ?o }", 1, 22)
'undefined prefix foo: (in foo:bar): declare it (PREFIX foo: <…>) or use one of mem:, prov:, rdf:, rdfs:, xsd:, owl:'
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

QUERY_FORMS = ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE")
UPDATE_FORMS = ("INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH")
KEYWORDS = (
    *QUERY_FORMS, *UPDATE_FORMS, "WHERE", "FILTER", "OPTIONAL", "UNION", "MINUS", "GRAPH", "SERVICE", "BIND",
    "VALUES", "LIMIT", "OFFSET", "ORDER", "BY", "GROUP", "HAVING", "DISTINCT", "REDUCED", "FROM", "NAMED",
    "PREFIX", "BASE", "EXISTS", "NOT", "AS", "ASC", "DESC", "DATA", "USING", "DEFAULT", "ALL", "SILENT", "LATERAL",
)
_PROLOGUE = re.compile(r"\s*(?:#[^\n]*\n\s*|(?i:PREFIX)\s+[\w.-]*:\s*<[^>]*>\s*|(?i:BASE)\s*<[^>]*>\s*|(?i:VERSION)\s+\"[^\"]*\"\s*)*")
_PREFIXED = re.compile(r"(?<![\w<?$])([A-Za-z][\w.-]*)?:([\w.-]*)")
_DECLARED = re.compile(r"(?i)PREFIX\s+([\w.-]*):")


def explain(reason: str, text: str, line: int | None, column: int | None,
            predeclared: Iterable[str] = ("mem", "prov", "rdf", "rdfs", "xsd", "owl"), *, update: bool = False) -> str:
    """One line for Oxigraph's ``reason`` at ``line``:``column`` of ``text``."""
    forms = UPDATE_FORMS if update else QUERY_FORMS
    first = _first_word(text)
    if first is not None and first.upper() not in (*QUERY_FORMS, *UPDATE_FORMS):
        names = ", ".join(forms[:-1]) + " or " + forms[-1]
        return f"{first} is not a{'n update' if update else ' query'} form: write {names}{_did_you_mean(first, forms)}"
    masked = _masked(text)
    undefined = _undefined_prefix(masked, line, column, predeclared)
    if undefined or "Prefix not found" in reason:
        if undefined:
            prefix, name = undefined
            known = ", ".join(f"{p}:" for p in predeclared)
            return (f"undefined prefix {prefix}: (in {name}): declare it (PREFIX {prefix}: <…>) "
                    f"or use one of {known}")
    relative = _relative_iri_near(text, line, column)
    if "IRI parsing failed" in reason or relative:
        iri = relative or _iri_at(text, line, column)
        return f"{iri or 'an IRI'} is not an absolute IRI: write <scheme:…> such as <https://example.org/x>, or prefix:name"
    misspelt = _misspelt(masked)
    if misspelt:
        return f"unexpected {misspelt[0]}: did you mean {misspelt[1]}?"
    expected = _expected(reason)
    if expected is None:
        return " ".join(reason.split())
    word = _word_at(text, line, column)
    shown = ", ".join(expected[:8]) + (", …" if len(expected) > 8 else "")
    unclosed = _unclosed(masked)
    if unclosed:
        return f"the text ends with {unclosed} left open: expected {shown}"
    if word is None:
        return f"the text is incomplete or malformed near its end: expected {shown}"
    hint = _did_you_mean(word, KEYWORDS) if word.isalpha() else ""
    return f"unexpected {word!r}: expected {shown}{hint}" if shown else f"unexpected {word!r}{hint}"


FUNCTIONS = (
    "STR", "LANG", "LANGMATCHES", "DATATYPE", "BOUND", "IRI", "URI", "BNODE", "RAND", "ABS", "CEIL", "FLOOR",
    "ROUND", "CONCAT", "STRLEN", "UCASE", "LCASE", "ENCODE_FOR_URI", "CONTAINS", "STRSTARTS", "STRENDS",
    "STRBEFORE", "STRAFTER", "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS", "TIMEZONE", "TZ", "NOW",
    "UUID", "STRUUID", "MD5", "SHA1", "SHA256", "SHA384", "SHA512", "COALESCE", "IF", "STRLANG", "STRDT",
    "SAMETERM", "ISIRI", "ISURI", "ISBLANK", "ISLITERAL", "ISNUMERIC", "REGEX", "SUBSTR", "REPLACE", "COUNT",
    "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT", "SEPARATOR", "IN", "A", "TRUE", "FALSE", "UNDEF",
    "ISTRIPLE", "TRIPLE", "SUBJECT", "PREDICATE", "OBJECT", "LANGDIR", "HASLANG", "HASLANGDIR", "STRLANGDIR",
    "INTO", "TO", "CLEAR", "ADJUST", "VERSION",
)


def _masked(text: str) -> str:
    """``text`` with IRIs, strings and comments blanked out (offsets kept), so words are words."""
    pattern = re.compile(r'<[^<>\s]*>|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*')
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _misspelt(masked: str) -> tuple[str, str] | None:
    """A bare word that is no SPARQL keyword or function but close to one: (word, keyword)."""
    known = {*KEYWORDS, *FUNCTIONS}
    for m in re.finditer(r"(?<![\w?$:.-])([A-Za-z]\w*)(?![\w:(-])", masked):
        word = m.group(1)
        if word.upper() in known:
            continue
        close = difflib.get_close_matches(word.upper(), list(KEYWORDS), n=1, cutoff=0.75)
        if close:
            return word, close[0]
    return None


def _unclosed(masked: str) -> str | None:
    depth = {"{": 0, "(": 0, "[": 0}
    closing = {"}": "{", ")": "(", "]": "["}
    for ch in masked:
        if ch in depth:
            depth[ch] += 1
        elif ch in closing:
            depth[closing[ch]] -= 1
    open_ = [f"'{k}'" for k, n in depth.items() if n > 0]
    return " and ".join(open_) or None


def _first_word(text: str) -> str | None:
    prologue = _PROLOGUE.match(text)
    rest = text[prologue.end():] if prologue else text
    m = re.match(r"[A-Za-z]\w*", rest)
    return m.group(0) if m else None


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word.upper(), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close and close[0] != word.upper() else ""


def _offset(text: str, line: int | None, column: int | None) -> int | None:
    if line is None or column is None:
        return None
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(column - 1, 0)


def _undefined_prefix(text: str, line: int | None, column: int | None,
                      predeclared: Iterable[str]) -> tuple[str, str] | None:
    declared = {*predeclared, *_DECLARED.findall(text)}
    at = _offset(text, line, column)
    candidates = [m for m in _PREFIXED.finditer(text) if (m.group(1) or "") not in declared]
    if not candidates:
        return None
    if at is not None:  # the one nearest before the reported position
        before = [m for m in candidates if m.start() <= at]
        m = before[-1] if before else candidates[0]
    else:
        m = candidates[0]
    return m.group(1) or "", m.group(0)


def _relative_iri_near(text: str, line: int | None, column: int | None) -> str | None:
    """An IRI without a scheme just before the reported position, in a query without BASE
    (Oxigraph then reports what it expected next, not the IRI)."""
    at = _offset(text, line, column)
    if at is None or re.search(r"(?i)\bBASE\s*<", text):
        return None
    for m in re.finditer(r"<([^<>\s\"{}|^`\\]*)>", text):
        if m.start() <= at <= m.end() + 4 and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", m.group(1)):
            return m.group(0)
    return None


def _iri_at(text: str, line: int | None, column: int | None) -> str | None:
    at = _offset(text, line, column)
    iris = list(re.finditer(r"<[^<>\s]*>", text))
    if at is not None:
        iris = [m for m in iris if m.start() <= at] or iris
    return iris[-1].group(0) if iris else None


def _word_at(text: str, line: int | None, column: int | None) -> str | None:
    at = _offset(text, line, column)
    if at is None or at >= len(text.rstrip()):
        return None
    m = re.compile(r"\s*([\w:?$<>\"'.-]+|\S)").match(text, at)
    return m.group(1)[:40] if m else None


def _expected(reason: str) -> list[str] | None:
    """The alternatives in "expected one of A, B, …" (character classes left out), or None."""
    m = re.match(r"expected (?:one of )?(.*)", reason, re.DOTALL)
    if not m:
        return None
    parts = re.findall(r'"[^"]*"|\[[^\]]*\]|[^,\s][^,]*', " ".join(m.group(1).split()))
    return [p.strip() for p in parts if not p.startswith("[") and "not found" not in p]


__all__ = ["explain"]
