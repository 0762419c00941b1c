"""A lexical scanner for SPARQL 1.2 queries and updates.

memkg does not parse SPARQL itself (Oxigraph does); it only needs to *see* a
request the way Oxigraph will: which words are keywords (``FROM``, ``SERVICE``,
``INSERT``…), which IRIs follow them, where one update operation ends and the
next begins. A regular expression over the raw text gets that wrong as soon as
a keyword sits in a string, a comment or an IRI, so this module tokenizes by
the SPARQL grammar's terminals: IRIs ``<…>`` (with ``\\u`` escapes), the four
string quote forms with their escapes, ``#`` comments, prefixed names, blank
node labels, variables, numbers, language tags, SPARQL 1.2's ``<<( )>>``,
``{| |}`` and ``~``, and bare words.

>>> [t.text for t in tokenize('SELECT * FROM <urn:a> WHERE { ?s ?p "FROM" } # FROM')]
['SELECT', '*', 'FROM', '<urn:a>', 'WHERE', '{', '?s', '?p', '"FROM"', '}']

Oxigraph matches keywords without a word boundary (``SERVICE:x`` is the
keyword ``SERVICE`` followed by ``:x``; ``FROMNAMED<g>`` is ``FROM NAMED <g>``),
so a bare word here may hold more than one keyword: callers that guard against
a keyword check with :func:`hides_keyword`, never by equality alone.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from .errors import ParseError

# Grammar terminals (SPARQL 1.1 section 19.8, with SPARQL 1.2's additions).
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_"
_PN_CHARS = _PN_CHARS_U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_PLX = r"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"
_PN_PREFIX = f"[{_PN_CHARS_BASE}](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?"
_PN_LOCAL = f"(?:[{_PN_CHARS_U}:0-9]|{_PLX})(?:(?:[{_PN_CHARS}.:]|{_PLX})*(?:[{_PN_CHARS}:]|{_PLX}))?"
_VARNAME = f"[{_PN_CHARS_U}0-9][{_PN_CHARS_U}0-9\u00b7\u0300-\u036f\u203f-\u2040]*"
_UCHAR = r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"
_ECHAR = r"\\[tbnrf\"'\\]"

_RULES: list[tuple[str, str]] = [
    ("IRI", f"<(?:[^<>\"{{}}|^`\\\\\\x00-\\x20]|{_UCHAR})*>"),
    ("STRING", f"'''(?:(?:'|'')?(?:[^'\\\\]|{_ECHAR}|{_UCHAR}))*'''"),
    ("STRING", f'"""(?:(?:"|"")?(?:[^"\\\\]|{_ECHAR}|{_UCHAR}))*"""'),
    ("STRING", f"'(?:[^'\\\\\\n\\r]|{_ECHAR}|{_UCHAR})*'"),
    ("STRING", f'"(?:[^"\\\\\\n\\r]|{_ECHAR}|{_UCHAR})*"'),
    ("BNODE", f"_:[{_PN_CHARS_U}0-9](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?"),
    ("VAR", f"[?$]{_VARNAME}"),
    ("PNAME", f"(?:{_PN_PREFIX})?:(?:{_PN_LOCAL})?"),
    ("LANGTAG", r"@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*(?:--[a-zA-Z]+)?"),
    ("NUMBER", r"[0-9]+\.?[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]*\.[0-9]+|[0-9]+"),
    ("WORD", r"[A-Za-z_][A-Za-z0-9_]*"),
    ("PUNCT", r"<<\(|\)>>|<<|>>|\{\||\|\}|\^\^|&&|\|\||!=|<=|>=|[{}()\[\];,.*+\-/=<>!|^~?$]"),
]


@functools.cache
def _scanner(quotes_in_iris: bool) -> re.Pattern[str]:
    """The scanner of one reading of ``<``, compiled when first used (it takes a tenth of a
    second, which a command that reads no SPARQL should not pay)."""
    return re.compile("|".join(
        f"(?P<{kind}{i}>{rx if quotes_in_iris or kind != 'IRI' else _without_quote(rx)})"
        for i, (kind, rx) in enumerate(_RULES)))


def _without_quote(iri_rule: str) -> str:
    r"""The other reading of ``<``: SPARQL's grammar lets ``<2&&'>`` be an IRI or, in an expression,
    "less than" followed by a string. Without ``'`` in IRIs, a ``<`` that swallowed a quote in the
    first reading is an operator in this one (``\u0027`` still spells a quote inside an IRI)."""
    return iri_rule.replace("[^<>", "[^'<>", 1)


_SPACE = re.compile(r"(?:[ \t\r\n]|#[^\r\n]*)*")
#: What lies between two terminals, for ``tokenize(layout=True)``.
_LAYOUT = re.compile(r"(?P<SPACE>[ \t\r\n]+)|(?P<COMMENT>#[^\r\n]*)")
_ESCAPE = re.compile(f"{_UCHAR}|{_ECHAR}")
_ECHARS = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


@dataclass(frozen=True)
class Token:
    """One terminal: its kind, its text as written, and where it starts (offsets, 1-based line/column)."""

    kind: str  # IRI STRING BNODE VAR PNAME LANGTAG NUMBER WORD PUNCT (and SPACE COMMENT: layout)
    text: str
    start: int
    end: int
    line: int
    column: int

    def is_word(self, *keywords: str) -> bool:
        """Whether this is exactly one of ``keywords`` (ASCII case-insensitive)."""
        return self.kind == "WORD" and self.text.upper() in keywords

    @property
    def keyword(self) -> str | None:
        """A bare word upper-cased (keywords are case-insensitive); None for other tokens."""
        return self.text.upper() if self.kind == "WORD" else None

    @property
    def var(self) -> str | None:
        """A variable's name without ``?``/``$``; None for other tokens."""
        return self.text[1:] if self.kind == "VAR" else None

    @property
    def layout(self) -> bool:
        """Whether this is white space or a comment (``tokenize(layout=True)``)."""
        return self.kind in ("SPACE", "COMMENT")

    @property
    def value(self) -> str:
        """An IRI's or string's content with escapes resolved; the text otherwise."""
        if self.kind == "IRI":
            return _unescape(self.text[1:-1])
        if self.kind == "STRING":
            quote = 3 if self.text[:3] in ("'''", '"""') else 1
            return _unescape(self.text[quote:-quote])
        return self.text


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        s = m.group(0)
        return chr(int(s[2:], 16)) if s[1] in "uU" else _ECHARS[s[1]]

    return _ESCAPE.sub(one, text)


def tokenize(text: str, *, source: str = "<sparql>", layout: bool = False, quotes_in_iris: bool = True) -> list[Token]:
    """Every token of ``text``; with ``layout``, white space and comments too (as ``SPACE``
    and ``COMMENT`` tokens), so that joining the tokens' texts gives ``text`` back, for code
    that rewrites a query. ``quotes_in_iris=False`` reads ``<`` before a ``'`` as an operator
    (see :func:`ambiguous_iri`).

    Raises :class:`~memkg.core.errors.ParseError` (with line and column) at a
    character no SPARQL terminal can start with, e.g. an unterminated string.

    >>> [t.text for t in tokenize('ASK { ?x a "y" } # done', layout=True) if t.kind not in ("SPACE",)]
    ['ASK', '{', '?x', 'a', '"y"', '}', '# done']
    """
    return list(_scan(text, source=source, layout=layout, quotes_in_iris=quotes_in_iris))


def _scan(text: str, *, source: str, layout: bool, quotes_in_iris: bool) -> Iterator[Token]:
    """The tokens of ``text`` one at a time (:func:`tokenize`), so a reader may stop early."""
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while True:
        space = _SPACE.match(text, pos)
        assert space is not None
        if layout:
            for m in _LAYOUT.finditer(text, pos, space.end()):
                yield Token("COMMENT" if m.lastgroup == "COMMENT" else "SPACE", m.group(0), m.start(),
                            m.end(), line, m.start() - line_start + 1)
                for nl in re.finditer(r"\n", m.group(0)):
                    line, line_start = line + 1, m.start() + nl.end()
        else:
            for m in re.finditer(r"\n", space.group(0)):
                line, line_start = line + 1, pos + m.end()
        pos = space.end()
        if pos >= n:
            return
        found = _scanner(quotes_in_iris).match(text, pos)
        if found is None or found.end() == pos:
            what = "unterminated string" if text[pos] in "'\"" else f"unexpected character {text[pos]!r}"
            raise ParseError(what, file=source, line=line, column=pos - line_start + 1)
        kind = (found.lastgroup or "").rstrip("0123456789")
        yield Token(kind, found.group(0), pos, found.end(), line, pos - line_start + 1)
        newlines = found.group(0).count("\n")
        if newlines:
            line += newlines
            line_start = pos + found.group(0).rfind("\n") + 1
        pos = found.end()


def ambiguous_iri(tokens: list[Token]) -> Token | None:
    """The first IRI token holding a ``'``: where ``<`` may also be read as "less than", which pairs
    the quotes of the rest of the text differently. Readers that decide rights read such a text
    both ways (``tokenize(quotes_in_iris=False)``)."""
    return next((t for t in tokens if t.kind == "IRI" and "'" in t.text), None)


def one_reading(text: str, *, source: str = "<sparql>") -> list[Token]:
    """The tokens of ``text`` when it reads one way only; ParseError naming the place where it
    reads two ways, for code that builds on a single reading (the update planner).

    A text only the "less than" reading can tokenize (``FILTER(1<2&&'>'!='')``) is read that
    way; one that both readings tokenize differently is refused, with how to write it plainly.
    """
    try:
        tokens = tokenize(text, source=source)
    except ParseError as greedy:
        try:
            return tokenize(text, source=source, quotes_in_iris=False)
        except ParseError:
            raise greedy from None
    odd = ambiguous_iri(tokens)
    if odd is None:
        return tokens
    try:
        tokenize(text, source=source, quotes_in_iris=False)
    except ParseError:
        return tokens
    raise ParseError(
        f"{odd.text[:40]!r} reads as an IRI or as '<' then a string, which pairs the rest of the text's quotes "
        "otherwise: put a space after '<' where it means \"less than\", or write a quote inside an IRI as \\u0027",
        file=source, line=odd.line, column=odd.column,
    )


def hides_keyword(token: Token, keyword: str) -> bool:
    """Whether Oxigraph could read ``keyword`` at this token, although it lexes as something else.

    Oxigraph's keywords need no word boundary: ``SERVICE:x`` is ``SERVICE :x``,
    ``SERVICESILENT<…>`` is ``SERVICE SILENT <…>`` and ``trueSERVICE`` can end a
    triple with ``true``. Any bare word containing the keyword, and any prefixed
    name whose prefix starts with it (after an optional ``true``/``false``), counts.
    """
    keyword = keyword.upper()
    if token.kind == "WORD":
        return keyword in token.text.upper()
    if token.kind == "PNAME":
        prefix = token.text.split(":", 1)[0].upper()
        return any(prefix.startswith(lead + keyword) for lead in ("", "TRUE", "FALSE"))
    return False


@dataclass
class Prologue:
    """The BASE and PREFIX declarations in force, to resolve IRIs the way the parser will.

    The one reader of a query's or update's declarations: :meth:`read` takes a prologue
    from the tokens, :func:`read_prologue` from text.

    >>> p = read_prologue("BASE <http://e/> PREFIX ex: <x#> SELECT * { ?s ex:p ?o }")
    >>> p.base, p.prefixes
    ('http://e/', {'ex': 'http://e/x#'})
    """

    base: str | None = None
    prefixes: dict[str, str] | None = None

    def declare(self, tokens: list[Token], i: int) -> int:
        """If ``tokens[i]`` starts a BASE/PREFIX/VERSION declaration, record it and return the
        index after it (white space and comments between its parts are skipped); else ``i``.
        A relative IRI without a base raises ValueError."""
        tok = tokens[i]
        j = _solid(tokens, i + 1)
        if tok.is_word("BASE") and j < len(tokens) and tokens[j].kind == "IRI":
            self.base = self.resolve(tokens[j])
            return j + 1
        k = _solid(tokens, j + 1)
        if (
            tok.is_word("PREFIX")
            and k < len(tokens)
            and tokens[j].kind == "PNAME"
            and tokens[j].text.endswith(":")
            and tokens[k].kind == "IRI"
        ):
            self.prefixes = dict(self.prefixes or {})
            self.prefixes[tokens[j].text[:-1]] = self.resolve(tokens[k])
            return k + 1
        if tok.is_word("VERSION") and j < len(tokens) and tokens[j].kind == "STRING":
            return j + 1
        return i

    def read(self, tokens: list[Token], i: int = 0) -> int:
        """Record every declaration from ``tokens[i]`` on; the index of the first token after
        them (a layout token's, when ``tokens`` has them, is skipped)."""
        while True:
            i = _solid(tokens, i)
            if i >= len(tokens) or (after := self.declare(tokens, i)) == i:
                return i
            i = after

    def sparql(self) -> str:
        """The declarations as SPARQL text, to put before another query.

        >>> Prologue(base="http://e/", prefixes={"ex": "http://e/x#"}).sparql()
        'BASE <http://e/>\\nPREFIX ex: <http://e/x#>\\n'
        """
        head = f"BASE <{self.base}>\n" if self.base is not None else ""
        return head + "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in (self.prefixes or {}).items())

    def resolve(self, token: Token) -> str:
        """The absolute IRI an IRI or prefixed-name token denotes; ValueError if it cannot be told."""
        if token.kind == "IRI":
            iri = token.value
            if re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", iri):
                return iri
            if self.base is None:
                raise ValueError(f"relative IRI <{iri}> without a base IRI")
            return resolve_iri(self.base, iri)
        if token.kind == "PNAME":
            prefix, local = token.text.split(":", 1)
            if prefix not in (self.prefixes or {}):
                raise ValueError(f"undeclared prefix {prefix!r} in {token.text}")
            return (self.prefixes or {})[prefix] + re.sub(r"\\(.)", r"\1", local)
        raise ValueError(f"{token.text} is not an IRI")


_IRI_PARTS = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.DOTALL)


def _iri_parts(text: str) -> re.Match[str]:
    """``text`` split into scheme, authority, path, query and fragment (groups 1 to 5)."""
    m = _IRI_PARTS.match(text)
    if m is None:  # not reached: every part of the pattern is optional
        raise ValueError(f"{text!r} is not an IRI reference")
    return m


def resolve_iri(base: str, ref: str) -> str:
    """RFC 3986 section 5.2 reference resolution, as Oxigraph does it (``urljoin`` differs for ``urn:``)."""
    rs, ra, rp, rq, rf = _iri_parts(ref).groups()
    bs, ba, bp, bq, _ = _iri_parts(base).groups()
    if rs is not None:
        s, a, p, q = rs, ra, _remove_dots(rp), rq
    elif ra is not None:
        s, a, p, q = bs, ra, _remove_dots(rp), rq
    elif rp == "":
        s, a, p, q = bs, ba, bp, rq if rq is not None else bq
    else:
        if rp.startswith("/"):
            p = _remove_dots(rp)
        elif ba is not None and bp == "":
            p = _remove_dots("/" + rp)
        else:
            p = _remove_dots(bp[: bp.rfind("/") + 1] + rp)
        s, a, q = bs, ba, rq
    out = f"{s}:" if s is not None else ""
    out += f"//{a}" if a is not None else ""
    out += p
    out += f"?{q}" if q is not None else ""
    return out + (f"#{rf}" if rf is not None else "")


def _remove_dots(path: str) -> str:
    out: list[str] = []
    while path:
        if path.startswith("../"):
            path = path[3:]
        elif path.startswith("./"):
            path = path[2:]
        elif path.startswith("/./") or path == "/.":
            path = "/" + path[3:]
        elif path.startswith("/../") or path == "/..":
            path = "/" + path[4:]
            if out:
                out.pop()
        elif path in (".", ".."):
            path = ""
        else:
            m = re.match(r"/?[^/]*", path)
            assert m is not None
            out.append(m.group(0))
            path = path[m.end():]
    return "".join(out)


def matching(tokens: list[Token], i: int) -> int:
    """The index of the bracket closing the one at ``tokens[i]`` (``{``, ``(``, ``[``, ``<<(``, ``{|``)."""
    pairs = {"{": "}", "(": ")", "[": "]", "<<(": ")>>", "<<": ">>", "{|": "|}"}
    openers = {"{", "(", "[", "<<(", "<<", "{|"}
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind != "PUNCT":
            continue
        if t.text in openers:
            depth += 1
        elif t.text in pairs.values():
            depth -= 1
            if depth == 0:
                return j
    tok = tokens[i]
    raise ParseError(f"{tok.text!r} is never closed", line=tok.line, column=tok.column)


def words(tokens: list[Token]) -> Iterator[str]:
    """The bare words, upper-cased (for quick keyword tests)."""
    return (t.text.upper() for t in tokens if t.kind == "WORD")


def _solid(tokens: list[Token], i: int) -> int:
    """The index of the first token from ``i`` on that is not white space or a comment."""
    while i < len(tokens) and tokens[i].layout:
        i += 1
    return i


def read_prologue(text: str) -> Prologue:
    """The declarations at the head of a query or update ``text``.

    Raises :class:`~memkg.core.errors.ParseError` for text no SPARQL tokenizer reads, and
    ValueError for a relative IRI with no base.
    """
    base, prefixes = _declared(text)
    return Prologue(base=base, prefixes=dict(prefixes))


@functools.lru_cache(maxsize=256)
def _declared(text: str) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The base and prefixes ``text`` declares, read once per text (a view's is read on every
    call) and no further than the declarations (a long query's body is never scanned)."""
    prologue = Prologue()
    stream = _scan(text, source="<sparql>", layout=False, quotes_in_iris=True)
    tokens: list[Token] = []
    i = 0
    while True:
        tokens.extend(itertools.islice(stream, i + 3 - len(tokens)))
        after = prologue.declare(tokens, i) if i < len(tokens) else i
        if after == i:
            return prologue.base, tuple((prologue.prefixes or {}).items())
        i = after


def predeclared(prefixes: Mapping[str, str] | None) -> Prologue:
    return Prologue(prefixes=dict(prefixes or {}))
