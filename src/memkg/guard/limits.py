"""How big and how deep an input may be: one set of limits for every adapter.

The command line, the endpoint and the agent tools read RDF and SPARQL from
people they may not trust. Each input is checked against :class:`Limits`
before it reaches a parser that could exhaust memory or the stack, and a
refusal is a :class:`LimitExceeded` that names the limit, its value and the
option that changes it (``--max-depth``, …): HTTP 400 (413 for a body), exit 2.

Why each limit exists (pyoxigraph 0.5.13, measured):

* nesting depth: Oxigraph's parsers recurse. A triple term nested ~30,000 deep
  (``<<( … <<( … )>> … )>>``) overflows an 8 MiB stack in the Turtle/TriG/
  N-Triples parser, and ~5,000 nested brackets ``((((…`` crash the SPARQL
  parser: SIGSEGV, the whole process. memkg's own code walks terms iteratively,
  so the bound is the parsers'; 64 leaves room for any real data (memkg's claims
  nest one or two deep; its views' brackets at most eight).
* literal size: the RDF parsers refuse a token over 16 MiB with MemoryError; memkg
  says so as a parse error naming the limit, and refuses literals over
  ``max_literal`` (16 MiB by default, never more) after parsing.
* query and update text: a SPARQL request is read twice (Oxigraph parses it and
  memkg's lexer splits an update), at ~1.5 s and ~90 bytes of memory per byte
  of text for the lexer; a large write belongs in a Graph Store request or ``memkg load``.
* request body: read in full before parsing, so bounded first (``--max-body``).

>>> limits = Limits(max_depth=2)
>>> nesting_depth('<urn:a> <urn:b> <<( <urn:a> <urn:b> "<<" )>> .')
1
>>> limits.check_rdf(b'<urn:a> <urn:b> <<( <urn:a> <urn:b> <<( <urn:a> <urn:b> <<( <a> <b> <c> )>> )>> )>> .')
Traceback (most recent call last):
...
memkg.guard.limits.LimitExceeded: the input nests 3 deep (<<( … )>>, {| … |}), past the limit of 2 (--max-depth)
"""

from __future__ import annotations

import mmap
import queue
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from ..core.errors import MemkgError, rebuilt

MiB = 1 << 20

#: The longest token (literal, IRI) Oxigraph's RDF parsers read: their buffer's size.
PARSER_TOKEN_LIMIT = 16 * MiB


class LimitExceeded(MemkgError, ValueError):
    """An input past one of the :class:`Limits`; the message names the limit and its option."""

    def __init__(self, message: str, *, limit: str, value: int, status: int = 400) -> None:
        super().__init__(message)
        self.limit = limit  #: the field of :class:`Limits` (``max_depth``, …)
        self.value = value  #: the limit's value
        self.status = status  #: the HTTP status an endpoint answers with (413 for a body)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (str(self),), {"limit": self.limit, "value": self.value, "status": self.status})


#: The command-line option of each limit, named in refusals.
OPTIONS = {
    "max_depth": "--max-depth",
    "max_literal": "--max-literal",
    "max_query": "--max-query",
    "max_update": "--max-update",
    "max_body": "--max-body",
}


@dataclass(frozen=True)
class Limits:
    """Bounds on untrusted input; ``None`` turns one off (not ``max_depth``: the parsers crash).

    >>> Limits().max_depth
    64
    """

    max_depth: int = 64  #: nesting of triple terms in RDF; of brackets in SPARQL
    max_literal: int | None = PARSER_TOKEN_LIMIT  #: characters of one literal's lexical form
    max_query: int | None = 1 * MiB  #: bytes of a SPARQL query's text
    max_update: int | None = 4 * MiB  #: bytes of a SPARQL update's text
    max_body: int | None = 1 << 30  #: bytes of an HTTP request body

    def __post_init__(self) -> None:
        if self.max_depth < 1:
            raise ValueError("max_depth must be at least 1 (the parsers recurse: it cannot be turned off)")
        if self.max_literal is not None and not 0 < self.max_literal <= PARSER_TOKEN_LIMIT:
            raise ValueError(f"max_literal must be between 1 and {PARSER_TOKEN_LIMIT:,} (the RDF parsers' own limit)")
        for name in ("max_query", "max_update", "max_body"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be positive, or None for no limit")

    # -- sizes -------------------------------------------------------------------------

    def check_size(self, name: str, size: int, what: str) -> None:
        """LimitExceeded if ``size`` (bytes) passes limit ``name``."""
        limit = getattr(self, name)
        if limit is not None and size > limit:
            status = 413 if name == "max_body" else 400
            raise LimitExceeded(
                f"{what} has {size:,} bytes, past the limit of {limit:,} ({OPTIONS[name]})",
                limit=name, value=limit, status=status,
            )

    def check_query(self, text: str) -> None:
        """The size and nesting of a SPARQL query (see :func:`sparql_depth`)."""
        self.check_size("max_query", _utf8_length(text), "the query")
        self._check_sparql_depth(text, "the query")

    def check_update(self, text: str) -> None:
        self.check_size("max_update", _utf8_length(text), "the update")
        self._check_sparql_depth(text, "the update")

    def _check_sparql_depth(self, text: str, what: str) -> None:
        openings = count_sparql_openings(text)
        # Fewer brackets than the limit cannot nest past it: most requests are never scanned.
        if openings > self.max_depth:
            if len(text) > _PREFIX:  # deep from the start: refused without reading the rest
                self._check_depth(sparql_depth(_prefix(text)), what, "brackets ( { [ <<", at_least=True)
            self._check_depth(sparql_depth(text), what, "brackets ( { [ <<")
        if openings > MAX_SPARQL_BRACKETS:
            raise LimitExceeded(
                f"{what} has {openings:,} opening brackets ( {{ [ <<, past the {MAX_SPARQL_BRACKETS:,} a query "
                f"worker's stack is sized for (memkg.guard.limits.MAX_SPARQL_BRACKETS: all are counted, in strings too, "
                f"so that no reading of '<' can hide one); split the request",
                limit="max_query", value=MAX_SPARQL_BRACKETS,
            )

    # -- RDF -----------------------------------------------------------------------------

    def check_rdf(self, data: str | bytes | Any, *, source: str = "the input", whole: bool = True) -> None:
        """The triple-term nesting of Turtle, TriG, N-Triples or N-Quads text (a buffer or mmap too).

        An input that nests past the limit in its first 64 KiB is refused without reading on.
        ``whole=False``: those 64 KiB only, for a caller that parses with :func:`guarded`, which
        checks each quad as it comes out (scanning a large body whole costs nearly what parsing it does).
        """
        if len(data) > _PREFIX:
            self._check_depth(nesting_depth(_prefix(data)), source, "<<( … )>>, {| … |}", at_least=True)
            if not whole:
                return
        self._check_depth(nesting_depth(data), source, "<<( … )>>, {| … |}")

    def check_literals(self, terms: Iterable[Any], *, source: str = "the input") -> None:
        """LimitExceeded for the first literal, at any depth of a triple term, longer than ``max_literal``."""
        if self.max_literal is None:
            return
        limit = self.max_literal
        for term in terms:
            if type(term) is Quad:  # the common case, spelled out: a literal is only ever an object
                o = term.object
                if type(o) is NamedNode or type(o) is BlankNode:
                    continue
                if type(o) is Literal and len(o.value) <= limit:
                    continue
            todo = [term]
            while todo:  # a loop, not recursion: terms nest
                t = todo.pop()
                kind = type(t).__name__
                if kind in ("Quad", "Triple"):
                    todo += (t.subject, t.predicate, t.object)
                elif kind == "Literal" and len(t.value) > limit:
                    raise LimitExceeded(
                        f"{source} has a literal of {len(t.value):,} characters, past the limit of {limit:,} "
                        f"({OPTIONS['max_literal']})",
                        limit="max_literal", value=limit,
                    )

    def _check_depth(self, depth: int, what: str, brackets: str, *, at_least: bool = False) -> None:
        if depth > self.max_depth:
            raise LimitExceeded(
                f"{what} nests {'at least ' if at_least else ''}{depth:,} deep ({brackets}), past the limit of "
                f"{self.max_depth} ({OPTIONS['max_depth']})",
                limit="max_depth", value=self.max_depth,
            )


#: The limits used when none are given.
DEFAULT = Limits()
_PREFIX = 64 << 10


def _prefix(data: Any) -> Any:
    """The first 64 KiB of ``data``, cut after a space or line end where there is one: no IRI
    spans it, and a string or comment cut there hides what it hides in the whole text, so
    the prefix nests as deep as the whole does up to there."""
    head = data[:_PREFIX]
    cut = max(head.rfind(c) for c in ((" ", "\n") if isinstance(head, str) else (b" ", b"\n")))
    return head[: cut + 1] if cut > _PREFIX // 2 else head

# -- the stack a SPARQL request needs ---------------------------------------------------------
#
# Oxigraph's SPARQL parser and evaluator recurse per nesting level: measured, up to 4 KiB of
# stack a level (``{{{…``; ``((…`` 1.9 KiB), so an 8 MiB stack overflows at a few thousand.
# The depth check above reads brackets as the scan reads the text, which can differ from the
# parser's reading of ``<`` (see the nesting section); the count of every opening bracket,
# in strings and comments too, bounds the parser's depth whatever the reading. A worker runs
# each request on a thread with that much stack (virtual memory: only what a deep request
# touches is used), and no request may have more brackets than MAX_SPARQL_BRACKETS.

#: Stack per opening bracket, twice the most measured.
SPARQL_STACK_PER_BRACKET = 8 << 10
#: The stack every request gets, however few its brackets.
SPARQL_STACK_BASE = 256 * MiB
#: The most stack a request's thread gets (virtual; 1 GiB) …
SPARQL_STACK_CAP = 1 << 30
#: … and so the most opening brackets a SPARQL request may have.
MAX_SPARQL_BRACKETS = (SPARQL_STACK_CAP - SPARQL_STACK_BASE) // SPARQL_STACK_PER_BRACKET


def count_sparql_openings(text: str) -> int:
    """Every ``( { [ <<`` in ``text``, in strings and comments too: an upper bound of its nesting
    under any reading.

    >>> count_sparql_openings("SELECT * WHERE { FILTER(?a < ?b || '((' = '') }")
    4
    """
    return sum(text.count(b) for b in _SPARQL_OPEN)


def sparql_stack(text: str) -> int:
    """Bytes of stack that parsing and evaluating the SPARQL ``text`` can need, whatever the
    reading of its ``<`` (at most :data:`SPARQL_STACK_CAP` for a request within the limits).

    >>> sparql_stack("ASK { FILTER(?a < 1) }") - SPARQL_STACK_BASE == 2 * SPARQL_STACK_PER_BRACKET
    True
    """
    return SPARQL_STACK_BASE + count_sparql_openings(text) * SPARQL_STACK_PER_BRACKET


def parser_token_error(err: MemoryError, source: str) -> LimitExceeded:
    """Oxigraph's MemoryError for a token over its buffer, as a refusal naming the limit."""
    return LimitExceeded(
        f"{source} holds a literal or IRI longer than {PARSER_TOKEN_LIMIT:,} bytes, the RDF parser's limit "
        f"({err})",
        limit="max_literal", value=PARSER_TOKEN_LIMIT,
    )


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


# -- nesting ---------------------------------------------------------------------------------
#
# One regular expression cuts the text into bracket tokens and runs of everything else
# (strings, IRIs, comments and escapes are matched whole, so a bracket inside them does not
# count), at C speed; the brackets alone, back to back, are then summed by numpy. It reads
# the lexical rules the parsers share: Turtle's and SPARQL's strings, IRIs and comments are
# the same. An IRI is matched only when it is a valid IRIREF (\u escapes included), so a
# bracket is never hidden in one.
#
# In SPARQL, ``<`` is also an operator, and only the parser knows which one it is: a scan
# can misread ``FILTER(?a<?b&&'>' …`` (an IRI ``<?b&&'>``, then a string that hides what
# follows). The scan's depth is what refusals name; what keeps a worker alive whatever the
# reading is :func:`sparql_stack`, sized from a count that no reading can exceed.

_SKIP = (
    r'"""(?:[^"\\]++|\\.|"(?!""))*+(?:"""|\Z)'  # long strings, closed or not
    r"|'''(?:[^'\\]++|\\.|'(?!''))*+(?:'''|\Z)"
    r'|"(?:[^"\\\n\r]++|\\.)*+"?'  # short strings
    r"|'(?:[^'\\\n\r]++|\\.)*+'?"
    r'|<(?:[^<>"{}|^`\\\x00-\x20]++|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*+>'  # IRIREF
    r"|#[^\n\r]*+"  # comments
    r"|\\."  # escapes in prefixed names (ex:a\'b)
)
_RDF_OPEN, _RDF_CLOSE = ("<<", "{|"), (">>", "|}")
_SPARQL_OPEN, _SPARQL_CLOSE = ("<<", "(", "{", "["), (">>", ")", "}", "]")


def _pattern(opening: tuple[str, ...], closing: tuple[str, ...], as_bytes: bool) -> re.Pattern[Any]:
    """A bracket token (group 1), or a run of anything else (possessive: no backtracking)."""
    brackets = "|".join(re.escape(b) for b in (*opening, *closing))
    other = r"""[^"'<>#\\{}()\[\]|]++"""
    text = f"({brackets})|(?:{_SKIP}|{other}|(?!{brackets}).)++"
    return re.compile(text.encode() if as_bytes else text, re.DOTALL)


_PATTERNS = {
    (kind, as_bytes): _pattern(opening, closing, as_bytes)
    for kind, opening, closing in (("rdf", _RDF_OPEN, _RDF_CLOSE), ("sparql", _SPARQL_OPEN, _SPARQL_CLOSE))
    for as_bytes in (False, True)
}
#: The two-character brackets as one byte each (cut left to right, as the tokens were).
_PAIRS = {
    "rdf": ((b"<<", b"\x01"), (b"{|", b"\x01"), (b">>", b"\x02"), (b"|}", b"\x02")),
    "sparql": ((b"<<", b"\x01"), (b">>", b"\x02")),
}
_STEP = {b: 1 for b in b"\x01({["} | {b: -1 for b in b"\x02)}]"}


def _depth(data: str | bytes | Any, kind: str) -> int:
    as_bytes = not isinstance(data, str)
    tokens = _PATTERNS[kind, as_bytes].findall(data)  # "" for each run between brackets
    brackets: bytes = b"".join(tokens) if as_bytes else "".join(tokens).encode("ascii")
    if not brackets:
        return 0
    for pair, byte in _PAIRS[kind]:
        brackets = brackets.replace(pair, byte)
    if len(brackets) < 4096:
        return max(0, max(accumulate(_STEP.get(b, 0) for b in brackets)))

    import numpy as np  # here: a command that reads nothing large need not load numpy

    table = np.zeros(256, dtype=np.int64)
    for b, step in _STEP.items():
        table[b] = step
    return max(0, int(np.cumsum(table[np.frombuffer(brackets, dtype=np.uint8)]).max()))


def nesting_depth(data: str | bytes | Any) -> int:
    """How deep triple terms (``<<( )>>``, ``<< >>``) and annotations (``{| |}``) nest in RDF text.

    >>> nesting_depth(b"<urn:a> <urn:b> <<( <urn:c> <urn:d> <<( <e> <f> <g> )>> )>> .")
    2
    """
    if isinstance(data, str):
        if "<<" not in data and "{|" not in data:
            return 0
    elif data.find(b"<<") < 0 and data.find(b"{|") < 0:
        return 0
    return _depth(data, "rdf")


def sparql_depth(text: str) -> int:
    """How deep brackets (``( { [ <<``) nest in SPARQL text, outside strings, IRIs and comments.

    >>> sparql_depth("SELECT * WHERE { FILTER((1 > 0)) }")
    3
    """
    return _depth(text, "sparql")


_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"?')
_JSON_STEP = bytes(1 if c in b"[{" else 255 if c in b"]}" else 0 for c in range(256))  # +1, -1 (as int8), 0


def json_depth(data: bytes, *, over: int = 0) -> int:
    """How deep arrays and objects nest in JSON text; brackets inside strings do not count.

    A text with at most ``over`` brackets cannot nest deeper than ``over``: it is not
    scanned and 0 is returned (the common case). The scan runs at C speed (a regular
    expression drops the strings, numpy sums the brackets): ~10 ms per MB.

    >>> json_depth(b'{"a": [1, {"b": "[[[["}]}')
    3
    >>> json_depth(b'{"a": [1, 2]}', over=2)
    0
    """
    if data.count(b"[") + data.count(b"{") <= over:
        return 0
    import numpy  # here: a command that reads nothing large need not load numpy

    steps = numpy.frombuffer(_JSON_STRING.sub(b"", data).translate(_JSON_STEP), dtype=numpy.int8)
    return int(max(0, numpy.cumsum(steps, dtype=numpy.int64).max(initial=0)))


# -- parsing untrusted RDF -------------------------------------------------------------------
#
# The RDF parsers recurse once per nesting level, a few hundred bytes of stack each (an
# 8 MiB stack overflows between 10,000 and 30,000 levels). Scanning text exactly for its
# nesting costs ~0.5 s per MB in Python, so it is done only when it must be: the number of
# "<<" and "{|" in the text bounds its depth from above and is counted at C speed; the parse
# runs on a thread whose stack holds that many levels (virtual memory: only the pages a deep
# input touches are used). When it has more openings than the depth limit, its text is
# scanned first (given a ``scan``; ordinary data scans at ~15 MB/s, where measuring every
# quad took three times as long), and only when the scan finds brackets nested past the
# limit is each quad's depth measured as it comes out, before any other code touches it.
# An input with more openings than a stack of STACK_CAP holds must be scanned.

#: Stack per nesting level, with a margin (measured: under 840 bytes).
_STACK_PER_LEVEL = 1024
_STACK_BASE = 16 * MiB
STACK_CAP = 1 << 30
_BATCH = 4096


def parser_stack(openings: int) -> int:
    """The thread stack (bytes) on which a parser can read an input with ``openings``
    (:func:`count_openings`) without overflowing, at most :data:`STACK_CAP`: run every
    parser of untrusted RDF on such a thread (``threading.stack_size``)."""
    return min(_STACK_BASE + openings * _STACK_PER_LEVEL, STACK_CAP)


def check_file_nesting(path: str | Path, bounds: Limits = DEFAULT) -> int:
    """The stack (bytes, :func:`parser_stack`) on which a parser of ``path`` cannot overflow;
    LimitExceeded, before any parser runs, for a file nested deeper than ``bounds`` allows
    whose nesting no such stack could hold. Parsers that run without :func:`guarded` (the
    bulk loader of a first load, ``memkg.loading.first_load``) need this: a stack too small crashes
    the process. The file is scanned only when its openings are past what :data:`STACK_CAP`
    holds (over a million), so the common file costs a count."""
    stack = parser_stack(count_file_openings(path))
    if stack >= STACK_CAP:
        bounds._check_depth(file_nesting_depth(path), str(path), "<<( … )>>, {| … |}")
    return stack


def count_openings(data: bytes | str) -> int:
    """An upper bound on the nesting depth of RDF text: its ``<<`` and ``{|``, strings included."""
    if isinstance(data, str):
        return data.count("<<") + data.count("{|")
    return data.count(b"<<") + data.count(b"{|")


def count_file_openings(path: str | Path) -> int:
    """:func:`count_openings` of a file, read a chunk at a time."""
    total, tail = 0, b""
    with open(path, "rb") as f:
        while chunk := f.read(16 * MiB):
            total += count_openings(tail + chunk[:1]) + count_openings(chunk)
            tail = chunk[-1:]
    return total


def file_nesting_depth(path: str | Path) -> int:
    """:func:`nesting_depth` of a file, mapped into memory rather than read."""
    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            return 0
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return nesting_depth(mapped)


def term_depth(term: Any, *, past: int | None = None) -> int:
    """How deep triple terms nest in a quad, triple or term (0: none), without recursion.

    Read from the term's N-Triples form (one pass in Rust): its literals are taken out,
    and what is left nests only through ``<<(`` and ``)>>``. ``past``: the answer is exact
    up to ``past``, and above it when the form has more ``<<(`` than ``past``.

    >>> from pyoxigraph import Literal, NamedNode, Triple
    >>> a = NamedNode("urn:a")
    >>> term_depth(Triple(a, a, Triple(a, a, Literal("<<( )>> <<("))))
    2
    """
    if type(term).__name__ not in ("Quad", "Triple"):
        return 0
    text = str(term)
    depth = 1 if type(term).__name__ == "Triple" else 0
    if text.count("<<(") + depth <= (past if past is not None else -1):
        return text.count("<<(") + depth  # an upper bound within the limit is enough
    text = _LITERAL.sub("", text).replace("<<(", "\x01").replace(")>>", "\x02")
    steps = _NOT_A_BRACKET.sub("", text).encode("ascii")
    if not steps:
        return depth
    running = accumulate(steps, lambda total, step: total + (1 if step == 1 else -1), initial=0)
    return depth + max(running)


_LITERAL = re.compile(r'"(?:[^"\\]++|\\.)*+"')
_NOT_A_BRACKET = re.compile("[^\x01\x02]++")


def guarded(
    parse: Callable[[], Iterable[Any]],
    *,
    openings: int,
    limits: Limits = DEFAULT,
    source: str = "the input",
    scan: Callable[[], int] | None = None,
) -> Iterator[Any]:
    """The quads ``parse()`` yields, parsed where no input can overflow the stack, checked against ``limits``.

    ``openings`` is :func:`count_openings` of the input; ``scan`` measures its depth
    exactly, for an input with more openings than :data:`STACK_CAP` allows.
    LimitExceeded for a quad nested past ``max_depth`` or with a literal past
    ``max_literal``, or for a token past the parser's own limit.

    >>> from pyoxigraph import parse, RdfFormat
    >>> doc = b"<urn:a> <urn:b> <<( <urn:a> <urn:b> <<( <a:a> <a:b> <a:c> )>> )>> ."
    >>> list(guarded(lambda: parse(doc, RdfFormat.N_TRIPLES), openings=count_openings(doc), limits=Limits(max_depth=1)))
    Traceback (most recent call last):
    ...
    memkg.guard.limits.LimitExceeded: the input nests triple terms more than 1 deep (<<( … )>>), past the limit (--max-depth)
    """
    stack = parser_stack(openings)
    check_depth = _needs_depth_check(openings, stack, limits, source, scan)
    out: queue.Queue[Any] = queue.Queue(maxsize=4)
    stop = threading.Event()
    producer = thread_on_stack(stack, lambda: _produce(parse, out, stop, check_depth, limits, source))
    try:
        while True:
            item = out.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield from item
    finally:
        stop.set()
        while producer.is_alive():  # let a producer blocked on a full queue see the stop
            try:
                out.get(timeout=0.1)
            except queue.Empty:
                pass


def _needs_depth_check(
    openings: int, stack: int, limits: Limits, source: str, scan: Callable[[], int] | None
) -> bool:
    """Whether each quad's depth must be measured; LimitExceeded when a scan finds the input nested
    deeper than a parser's stack can hold at all."""
    check_depth = openings > limits.max_depth  # fewer openings cannot nest deeper
    if check_depth and scan is not None:
        # One scan of the text bounds every quad's depth (its brackets nest at least as deep):
        # within the limit, no quad needs measuring (a third of a large load's parse time).
        depth = scan()
        if stack >= STACK_CAP:
            limits._check_depth(depth, source, "<<( … )>>, {| … |}")
        return depth > limits.max_depth
    if stack >= STACK_CAP:
        raise ValueError("an input this large needs a scan of its nesting")
    return check_depth


def _produce(
    parse: Callable[[], Iterable[Any]],
    out: queue.Queue[Any],
    stop: threading.Event,
    check_depth: bool,
    limits: Limits,
    source: str,
) -> None:
    """The parser's thread: the quads in checked batches into ``out``, then None; or the error that
    stopped it, for the consumer to raise."""
    batch: list[Any] = []
    try:
        for quad in parse():
            if check_depth and term_depth(quad, past=limits.max_depth) > limits.max_depth:
                quad = None  # freed here, on the deep stack (its drop recurses too)
                raise LimitExceeded(
                    f"{source} nests triple terms more than {limits.max_depth} deep (<<( … )>>), past the limit "
                    f"({OPTIONS['max_depth']})", limit="max_depth", value=limits.max_depth,
                )
            batch.append(quad)
            if len(batch) >= _BATCH:
                limits.check_literals(batch, source=source)
                out.put(batch)
                batch = []
                if stop.is_set():
                    return
        limits.check_literals(batch, source=source)
        out.put(batch)
        out.put(None)
    except MemoryError as err:
        out.put(parser_token_error(err, source))
    except BaseException as err:  # noqa: BLE001 - handed to the consumer, raised there
        out.put(err)


def thread_on_stack(stack: int, target: Callable[[], None], *, name: str = "memkg-parse") -> threading.Thread:
    """``target`` started on a daemon thread with a ``stack``-byte stack (:func:`parser_stack`: deep
    enough for a parser)."""
    previous = threading.stack_size(stack)
    try:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
    finally:
        threading.stack_size(previous)
    return thread
