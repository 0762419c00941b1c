"""Where terms were written: file, line and column of a node or of one of its triples.

pyoxigraph's parsers give quads, not where they stood in the text. A validation
result, or a refused load, is only useful in CI if it points at the line: this module
reads the files again, with a tokenizer of its own for Turtle, TriG, N-Triples and
N-Quads 1.2 (the files already parsed, so it never has to report a syntax error),
and keeps the positions of only the nodes it is asked about. It runs only when there
is something to point at: a file that conforms is never read twice.

For each node asked about it finds, in this order of preference:

1. the triple ``(node, predicate, value)`` (the position of the value as written);
2. the first triple ``(node, predicate, …)`` (the position of the predicate);
3. the node written as a subject;
4. the node written anywhere (a node only ever linked to).

Blank nodes are renamed by the parser, so a blank node of the data is matched to one
of the file by what it says: the same predicates and (non-blank) objects.

>>> import pathlib, tempfile
>>> from pyoxigraph import NamedNode
>>> path = pathlib.Path(tempfile.mkdtemp()) / "data.ttl"
>>> _ = path.write_text('@prefix ex: <http://e/> .\\n\\nex:a a ex:C ;\\n    ex:name "A" .\\n')
>>> a, name = NamedNode("http://e/a"), NamedNode("http://e/name")
>>> found = locate([path], [Wanted(a, name, None), Wanted(a, None, None)])
>>> [(found[w].line, found[w].column) for w in (Wanted(a, name, None), Wanted(a, None, None))]
[(4, 5), (3, 1)]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from .terms import Term
from .vocab import RDF, XSD


@dataclass(frozen=True, order=True)
class Position:
    """A place in a file: 1-based line and column (in characters)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Wanted:
    """What to find: a node, and optionally the predicate and value of its offending triple."""

    node: Term | str  #: a term, or its N-Triples form (as :class:`~memkg.core.errors.Violation` names it)
    predicate: NamedNode | str | None = None
    value: Term | str | None = None


# -- the tokenizer ----------------------------------------------------------------------------

_UCHAR = r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"
_PN_LOCAL_CHAR = r"[\w\-:%\u00B7]|\\[_~.\-!$&'()*+,;=/?#@%]|%[0-9A-Fa-f]{2}"
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n]+|\#[^\r\n]*)
  | (?P<tt_open><<\()
  | (?P<tt_close>\)>>)
  | (?P<rt_open><<)
  | (?P<rt_close>>>)
  | (?P<ann_open>\{\|)
  | (?P<ann_close>\|\})
  | (?P<iri><(?:[^<>"{}|^`\\\x00-\x20]|""" + _UCHAR + r""")*>)
  | (?P<long>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*''')
  | (?P<string>"(?:[^"\\\n\r]|\\.)*"|'(?:[^'\\\n\r]|\\.)*')
  | (?P<lang>@[A-Za-z]+(?:-[A-Za-z0-9]+)*(?:--[A-Za-z]+)?)
  | (?P<dtype>\^\^)
  | (?P<number>[+-]?(?:\d+\.\d*[eE][+-]?\d+|\.\d+[eE][+-]?\d+|\d+[eE][+-]?\d+|\d*\.\d+|\d+))
  | (?P<blank>_:[\w](?:[\w.\-\u00B7]*[\w\-\u00B7])?)
  | (?P<pname>(?:[^\W\d_](?:[\w.\-]*[\w\-])?)?:(?:(?:""" + _PN_LOCAL_CHAR + r""")(?:(?:""" + _PN_LOCAL_CHAR
    + r"""|\.)*(?:""" + _PN_LOCAL_CHAR + r"""))?)?)
  | (?P<word>[A-Za-z]+)
  | (?P<punct>[.;,\[\](){}~])
    """,
    re.VERBOSE,
)
_ECHAR = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)
_ECHARS = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            return _ECHARS.get(m.group(3), m.group(3))
        return chr(int(m.group(1) or m.group(2), 16))

    return _ECHAR.sub(one, text) if "\\" in text else text


@dataclass
class _Token:
    kind: str
    text: str
    at: int  #: offset in the text


def _tokens(text: str) -> Iterator[_Token]:
    at, end = 0, len(text)
    match = _TOKEN.match
    while at < end:
        m = match(text, at)
        if m is None:  # not a token this reader knows: stop here, keeping what was found before
            return
        kind = m.lastgroup or ""
        if kind != "ws":
            yield _Token(kind, m.group(), at)
        at = m.end()


# -- the statement reader ---------------------------------------------------------------------


@dataclass
class _Found:
    """The first positions (offsets) of the nodes asked about, in one file."""

    triple: dict[tuple[str, str, str], int] = field(default_factory=dict)
    pair: dict[tuple[str, str], int] = field(default_factory=dict)
    subject: dict[str, int] = field(default_factory=dict)
    anywhere: dict[str, int] = field(default_factory=dict)
    #: blank nodes of the file: what they say, and where they are first written
    blank_pairs: dict[str, set[tuple[str, str]]] = field(default_factory=dict)


class _Reader:
    """Reads statements and records the positions of the wanted subjects' triples.

    Terms are keyed by their N-Triples form (``str()`` of the pyoxigraph term); a
    file's blank nodes by ``_:label`` (made-up labels for ``[]`` and lists)."""

    def __init__(self, text: str, base: str, wanted: set[str], blanks: bool) -> None:
        self._tokens = _tokens(text)
        self._next: _Token | None = None
        self._back: list[_Token] = []  # tokens read ahead and put back (a TriG graph name or a subject?)
        self._base = base
        self._prefixes: dict[str, str] = {}
        self._wanted = wanted
        self._blanks = blanks  # whether blank nodes are asked about (then every blank's pairs are kept)
        self._fresh = 0
        self.found = _Found()

    # tokens
    def _peek(self) -> _Token | None:
        if self._back:
            return self._back[-1]
        if self._next is None:
            self._next = next(self._tokens, None)
        return self._next

    def _take(self) -> _Token:
        if self._back:
            return self._back.pop()
        token = self._peek()
        if token is None:
            raise _Stop
        self._next = None
        return token

    def _unread(self, *tokens: _Token) -> None:
        """Put tokens back, the first given to be read first."""
        self._back.extend(reversed(tokens))

    def _kind(self) -> str:
        token = self._peek()
        return "" if token is None else token.kind

    def _is(self, text: str) -> bool:
        token = self._peek()
        return token is not None and token.kind == "punct" and token.text == text

    # terms
    def _iri(self, text: str) -> str:
        iri = _unescape(text[1:-1])
        if not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", iri):
            # urljoin drops an empty fragment ("ns#"): it is put back
            iri = urljoin(self._base, iri[:-1]) + "#" if iri.endswith("#") else urljoin(self._base, iri)
        return iri

    def _pname(self, text: str) -> str:
        prefix, _, local = text.partition(":")
        namespace = self._prefixes.get(prefix)
        if namespace is None:
            raise _Stop  # an undeclared prefix: the file did not parse; nothing more to find
        return "<" + namespace + re.sub(r"\\(.)", r"\1", local) + ">"

    def _blank(self) -> str:
        self._fresh += 1
        return f"_:memkg-pos-{self._fresh}"

    def _term(self, token: _Token) -> str:
        """The key of a simple term (IRI, prefixed name, blank label, literal, ``a``)."""
        kind = token.kind
        if kind == "iri":
            return "<" + self._iri(token.text) + ">"
        if kind == "pname":
            return self._pname(token.text)
        if kind == "blank":
            return token.text
        if kind == "word":
            word = token.text
            if word == "a":
                return f"<{RDF}type>"
            if word in ("true", "false"):
                return str(Literal(word, datatype=NamedNode(XSD + "boolean")))
            raise _Stop
        if kind == "number":
            text = token.text
            dtype = "double" if "e" in text.lower() else "decimal" if "." in text else "integer"
            return str(Literal(text, datatype=NamedNode(XSD + dtype)))
        if kind in ("string", "long"):
            quote = 3 if kind == "long" else 1
            value = _unescape(token.text[quote:-quote])
            after = self._peek()
            if after is not None and after.kind == "lang":
                self._take()
                language, _, direction = after.text[1:].partition("--")
                if direction:
                    return f'"{_nt_string(value)}"@{language.lower()}--{direction}'
                return str(Literal(value, language=language))
            if after is not None and after.kind == "dtype":
                self._take()
                dtype_token = self._take()
                dtype = self._term(dtype_token)
                return str(Literal(value, datatype=NamedNode(dtype[1:-1])))
            return str(Literal(value))
        raise _Stop

    # statements
    def read(self) -> None:
        try:
            while self._peek() is not None:
                self._statement()
        except _Stop:
            pass

    def _statement(self) -> None:
        token = self._peek()
        assert token is not None
        if token.kind == "lang" and token.text in ("@prefix", "@base", "@version"):
            self._directive(self._take().text[1:], dotted=True)
            return
        if token.kind == "word" and token.text.upper() in ("PREFIX", "BASE", "VERSION"):
            self._directive(self._take().text.lower(), dotted=False)
            return
        if token.kind == "word" and token.text.upper() == "GRAPH":
            self._take()
            self._graph_name()
            self._block()
            return
        if self._is("{"):
            self._block()
            return
        if self._is("[") and self._blank_graph_block():
            return
        if token.kind in ("iri", "pname", "blank") and self._graph_block_follows():
            return
        self._triples()
        if self._is("."):
            self._take()

    def _graph_block_follows(self) -> bool:
        """``<g> { … }`` (TriG): the term is a graph name, not a subject."""
        token = self._take()
        if self._is("{"):
            self._block()
            return True
        self._unread(token)
        return False

    def _blank_graph_block(self) -> bool:
        """``[] { … }`` (TriG): a blank graph name; anything else is a blank subject."""
        bracket = self._take()
        if self._is("]"):
            closing = self._take()
            if self._is("{"):
                self._block()
                return True
            self._unread(bracket, closing)
            return False
        self._unread(bracket)
        return False

    def _graph_name(self) -> None:
        if self._is("["):
            self._take()
            self._take()  # "]"
        else:
            self._take()

    def _block(self) -> None:
        self._take()  # "{"
        while not self._is("}"):
            if self._peek() is None:
                raise _Stop
            self._triples()
            if self._is("."):
                self._take()
        self._take()

    def _directive(self, name: str, *, dotted: bool) -> None:
        if name == "prefix":
            prefix = self._take().text.rstrip(":")
            self._prefixes[prefix] = self._iri(self._take().text)
        elif name == "base":
            self._base = self._iri(self._take().text)
        else:  # version
            self._take()
        if dotted and self._is("."):
            self._take()

    def _triples(self) -> None:
        token = self._take()
        at = token.at
        if token.kind == "punct" and token.text == "[":
            subject = self._blank()
            self._note_subject(subject, at)
            if not self._is("]"):
                self._predicate_objects(subject)
            self._take()  # "]"
            if not (self._is(".") or self._is("}")):
                self._predicate_objects(subject)
            return
        subject = self._compound(token)
        self._note_subject(subject, at)
        self._predicate_objects(subject)

    def _compound(self, token: _Token) -> str:
        """A subject or object that may be a collection, a reified or a triple term."""
        if token.kind == "punct" and token.text == "(":
            return self._collection(token.at)
        if token.kind == "rt_open":
            return self._reified(token.at)
        if token.kind == "tt_open":
            s = self._compound(self._take())
            p = self._term(self._take())
            o = self._compound(self._take())
            self._take()  # ")>>"
            return f"<<( {s} {p} {o} )>>"
        if token.kind == "punct" and token.text == "[":
            blank = self._blank()
            if not self._is("]"):
                self._predicate_objects(blank)
            self._take()
            return blank
        return self._term(token)

    def _reified(self, at: int) -> str:
        s = self._compound(self._take())
        p = self._term(self._take())
        o = self._compound(self._take())
        reifier = self._blank()
        if self._is("~"):
            self._take()
            if self._kind() not in ("rt_close", ""):
                reifier = self._term(self._take())
        self._take()  # ">>"
        self._emit(reifier, f"<{RDF}reifies>", f"<<( {s} {p} {o} )>>", at, at)
        return reifier

    def _collection(self, at: int) -> str:
        items: list[tuple[str, int]] = []
        while not self._is(")"):
            token = self._take()
            items.append((self._compound(token), token.at))
        self._take()
        if not items:
            return f"<{RDF}nil>"
        head = cell = self._blank()
        for i, (item, item_at) in enumerate(items):
            self._emit(cell, f"<{RDF}first>", item, item_at, item_at)
            rest = self._blank() if i + 1 < len(items) else f"<{RDF}nil>"
            self._emit(cell, f"<{RDF}rest>", rest, item_at, item_at)
            cell = rest
        return head

    def _predicate_objects(self, subject: str) -> None:
        while True:
            token = self._peek()
            if token is None or token.kind == "ann_close" or (token.kind == "punct" and token.text in (".", "]", "}")):
                return
            if token.kind == "punct" and token.text == ";":
                self._take()
                continue
            predicate_token = self._take()
            predicate = self._term(predicate_token)
            self._objects(subject, predicate, predicate_token.at)
            if not self._is(";"):
                return

    def _objects(self, subject: str, predicate: str, predicate_at: int) -> None:
        while True:
            token = self._take()
            obj = self._compound(token)
            self._emit(subject, predicate, obj, token.at, predicate_at)
            if self._kind() in ("iri", "pname", "blank"):
                self._take()  # N-Quads: the graph name
            # reifiers and annotation blocks, in any number: a block annotates the reifier just
            # named ("~ :r {| … |}"), or a fresh blank node
            while self._is("~") or self._kind() == "ann_open":
                reifier = self._blank()
                if self._is("~"):
                    self._take()
                    if self._kind() in ("iri", "pname", "blank"):
                        reifier = self._term(self._take())
                self._emit(reifier, f"<{RDF}reifies>", f"<<( {subject} {predicate} {obj} )>>", token.at, token.at)
                if self._kind() == "ann_open":
                    self._annotation(reifier)
            if not self._is(","):
                return
            self._take()

    def _annotation(self, reifier: str) -> None:
        self._take()  # "{|"
        token = self._peek()
        self._note_subject(reifier, token.at if token is not None else 0)
        self._predicate_objects(reifier)
        self._take()  # "|}"

    # recording
    def _note_subject(self, subject: str, at: int) -> None:
        if subject in self._wanted or (self._blanks and subject.startswith("_:")):
            self.found.subject.setdefault(subject, at)

    def _emit(self, s: str, p: str, o: str, object_at: int, predicate_at: int) -> None:
        found = self.found
        if s in self._wanted:
            found.subject.setdefault(s, predicate_at)  # a reifier named only by "~"
            found.triple.setdefault((s, p, o), object_at)
            found.pair.setdefault((s, p), predicate_at)
        if o in self._wanted:
            found.anywhere.setdefault(o, object_at)
        if self._blanks and s.startswith("_:"):
            found.blank_pairs.setdefault(s, set()).add((p, o if not o.startswith("_:") else "_:"))
            found.subject.setdefault(s, predicate_at)


class _Stop(Exception):
    """The end of what this reader can follow in a file."""


def _nt_string(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


# -- locating ----------------------------------------------------------------------------------


def key(term: Term | str | None) -> str:
    """A term's key: its N-Triples form (pyoxigraph's ``str()`` leaves a triple term's own brackets off)."""
    if term is None:
        return ""
    if isinstance(term, str):
        return term
    return f"<<( {term} )>>" if isinstance(term, Triple) else str(term)


def _signature(node: BlankNode, described: dict[BlankNode, set[tuple[str, str]]]) -> set[tuple[str, str]]:
    return described.get(node, set())


def locate(
    files: Sequence[str | Path],
    wanted: Iterable[Wanted],
    *,
    base_iri: str | None = None,
    descriptions: dict[BlankNode, set[tuple[str, str]]] | None = None,
) -> dict[Wanted, Position]:
    """The position of each wanted node (see the module doc) in the first file that writes it.

    ``descriptions``: for blank nodes asked about, what the data says of them, as
    ``(predicate, object)`` pairs in N-Triples form (a blank object as ``"_:"``); a
    blank node is found where the file writes a blank node that says the same.
    A wanted node no file writes is left out of the answer.
    """
    asked = list(dict.fromkeys(wanted))
    keys = {key(w.node) for w in asked if not isinstance(w.node, BlankNode)}
    blanks = any(isinstance(w.node, BlankNode) for w in asked)
    answer: dict[Wanted, Position] = {}
    for file in files:
        todo = [w for w in asked if w not in answer]
        if not todo:
            break
        path = Path(file)
        try:
            with path.open(encoding="utf-8", newline="") as f:  # a "\r" in a literal stays one
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        reader = _Reader(text, base_iri or path.resolve().as_uri(), keys, blanks)
        reader.read()
        found = reader.found
        lines = _LineIndex(text)
        by_signature: dict[frozenset[tuple[str, str]], str] = {}
        if blanks:
            for label, pairs in found.blank_pairs.items():
                by_signature.setdefault(frozenset(pairs), label)
        for w in todo:
            node = key(w.node)
            if isinstance(w.node, BlankNode):
                matched = by_signature.get(frozenset(_signature(w.node, descriptions or {})))
                if matched is None:
                    continue
                node = matched
            offset = _first_of(found, node, key(w.predicate) if w.predicate is not None else None, key(w.value))
            if offset is not None:
                line, column = lines.at(offset)
                answer[w] = Position(str(file), line, column)
    return answer


def _first_of(found: _Found, node: str, predicate: str | None, value: str) -> int | None:
    if predicate is not None:
        if value and (node, predicate, value) in found.triple:
            return found.triple[(node, predicate, value)]
        if (node, predicate) in found.pair:
            return found.pair[(node, predicate)]
    if node in found.subject:
        return found.subject[node]
    return found.anywhere.get(node)


class _LineIndex:
    """Offsets to (line, column), 1-based, by bisecting the line starts."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1
