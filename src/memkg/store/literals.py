"""Literals a load stores in another form than the file writes: found, counted, located.

Oxigraph's store keeps typed literals by value and gives them back canonical
(``"01"^^xsd:integer`` as ``"1"``, ``"5"^^xsd:int`` as ``"5"^^xsd:integer``, the
ill-typed ``"300"^^xsd:byte`` as a valid ``"300"^^xsd:integer``). SPARQL over the
store compares values either way, so memkg keeps the store as Oxigraph writes it,
and a load never changes a literal silently instead: every load counts the
literals it stores in another form and names the first few with file and line
(:class:`LiteralRewrites`, on :attr:`memkg.store.LoadReport.rewrites`); with
``strict_literals`` the load is refused whole (:class:`RewrittenLiteralsError`).
File validation (``memkg validate FILE``) judges the literals as written
(:class:`memkg.shacl.WrittenForms`).

>>> from pyoxigraph import Literal, NamedNode, Quad
>>> from memkg.core.vocab import xsd
>>> q = Quad(NamedNode("http://e/s"), NamedNode("http://e/p"), Literal("01", datatype=xsd.integer))
>>> rewrites = LiteralRewrites.of(WrittenForms.of([q]), [("<data>", 0)])
>>> rewrites.count, str(rewrites.examples[0])
(1, '<data>: "01"^^<http://www.w3.org/2001/XMLSchema#integer> is stored as "1"^^<http://www.w3.org/2001/XMLSchema#integer>')
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from pyoxigraph import Literal, Quad, Triple

from ..core.errors import Refused, rebuilt
from ..core.written import WrittenForms

#: How many rewritten literals a report names (with file and line).
EXAMPLES = 5


@dataclass(frozen=True)
class RewrittenLiteral:
    """One literal a load stores in another form: where it is written, as what, and as what it is kept."""

    file: str
    line: int | None
    written: Any  #: the object as written (a literal, or a triple term holding one)
    stored: Any  #: the object as the store keeps it

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.written} is stored as {self.stored}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "written": str(self.written), "stored": str(self.stored)}


@dataclass
class LiteralRewrites:
    """How many of a load's literals the store keeps in another form, and the first few."""

    count: int = 0
    examples: list[RewrittenLiteral] = field(default_factory=list)
    #: The written forms, for validating the input as written (not kept after a load).
    written: WrittenForms = field(default_factory=WrittenForms, repr=False)
    #: How many quads were read (set by :meth:`scan`).
    read: int = 0

    @classmethod
    def of(cls, written: WrittenForms, files: list[tuple[str, int]]) -> "LiteralRewrites":
        """The rewrites among the quads ``written`` was built from; ``files`` gives each
        file with the index of its first quad in that sequence, in order."""
        starts = [start for _, start in files]
        examples: list[RewrittenLiteral] = []
        for index, q, kept in written.rewritten[:EXAMPLES]:
            name = files[max(bisect.bisect_right(starts, index) - 1, 0)][0] if files else "<data>"
            examples.append(RewrittenLiteral(name, None, q.object, kept.object))
        return cls(len(written), _located(examples), written)

    @classmethod
    def scan(cls, quads: Iterable[Quad], files: list[tuple[str, int]], *, chunk: int = 200_000) -> "LiteralRewrites":
        """The rewrites in a stream too big to hold: counted a chunk at a time (the
        written forms are not kept). ``files`` may fill while the stream is read."""
        quads = iter(quads)
        count, read = 0, 0
        found: list[tuple[int, Quad, Quad]] = []
        while True:
            block = list(islice(quads, chunk))
            if not block:
                break
            written = WrittenForms.of(block, complete=False)  # counted, not kept
            count += len(written)
            found += [(read + i, q, kept) for i, q, kept in written.rewritten[: EXAMPLES - len(found)]]
            read += len(block)
        summary = WrittenForms()
        summary.rewritten = found
        out = cls.of(summary, files)
        out.count, out.read = count, read
        return out

    def __bool__(self) -> bool:
        return self.count > 0

    def summary(self) -> str:
        """A few lines for a person: how many, and where the first ones are."""
        if not self.count:
            return "every literal is stored as written"
        lines = [f"{self.count:,} literal(s) are stored in canonical form, not as written"
                 " (SPARQL compares them by value; `memkg validate FILE` judges them as written):"]
        lines += [f"  {e}" for e in self.examples]
        if self.count > len(self.examples):
            lines.append(f"  … and {self.count - len(self.examples):,} more")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "examples": [e.to_dict() for e in self.examples]}


class RewrittenLiteralsError(Refused):
    """A load refused (``strict_literals``) because the store would keep literals in another form; nothing was written."""

    def __init__(self, rewrites: LiteralRewrites) -> None:
        self.rewrites = rewrites
        super().__init__("load refused (--strict-literals), nothing was written: " + rewrites.summary())

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt, (type(self), (self.rewrites,), {})


def _lexical(term: Any) -> Literal | None:
    if isinstance(term, Literal):
        return term
    if isinstance(term, Triple):
        return _lexical(term.object) or _lexical(term.subject)
    return None


def _located(examples: list[RewrittenLiteral]) -> list[RewrittenLiteral]:
    """The examples with the line of the file where each literal is written: the next
    line, after the previous example's in the same file, that holds its lexical form
    as a token (quads carry no position; a few examples are worth one read of the file)."""
    out: list[RewrittenLiteral] = []
    after: dict[tuple[str, str], int] = {}
    lines_of: dict[str, list[str]] = {}
    for e in examples:
        lit = _lexical(e.written)
        path = Path(e.file)
        if lit is None or not path.is_file():
            out.append(e)
            continue
        if e.file not in lines_of:
            with path.open(encoding="utf-8", errors="replace") as fh:
                lines_of[e.file] = fh.readlines()
        token = re.compile(r"(?<![\w.+-])" + re.escape(lit.value) + r"(?![\w.])")
        start = after.get((e.file, lit.value), 0)
        line = next((n for n, text in enumerate(lines_of[e.file][start:], start + 1) if token.search(text)), None)
        if line is not None:
            after[(e.file, lit.value)] = line
        out.append(RewrittenLiteral(e.file, line, e.written, e.stored))
    return out


__all__ = ["LiteralRewrites", "RewrittenLiteral", "RewrittenLiteralsError"]
