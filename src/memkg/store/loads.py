"""Loading files into a store: parsed and checked whole before anything is committed.

The functions behind :meth:`MemoryStore.load` and :meth:`~MemoryStore.load_data`, over the
store's commit path (:mod:`memkg.store.commit`). A load takes one of three ways, by size:

* held in memory: parsed, its literals checked, indexed, judged, then committed (by
  ``Store.extend``, one transaction, or past :data:`BULK_THRESHOLD` quads by the bulk
  loader, which is faster on disk but not transactional, and so only *after* the whole
  input has parsed and been judged: only an I/O failure in that final write could leave
  part of it, and loading the same files again is then safe, since quads are a set);
* past :data:`STREAM_THRESHOLD_BYTES`: parsed twice, once to check and once to stream
  into the bulk loader, instead of being held as Python objects;
* a large load into a store with no data: handed to the plugged-in first load
  (:class:`memkg.store.plugins.FirstLoad`), which writes the files where they land while
  a copy is judged (by the :class:`~memkg.store.plugins.FirstLoadJudge` the store's judge
  offers), and puts the store back if the load is refused.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

from pyoxigraph import NamedNode, Quad, RdfFormat

from ..core.errors import ValidationError
from ..core.prefixes import Renamed
from ..core.positions import Wanted, locate
from ..core.written import WrittenForms
from ..guard.limits import Limits
from . import claim_index
from .commit import CommitPath
from .formats import as_graph, rdf_format
from .literals import LiteralRewrites, RewrittenLiteralsError
from .reading import FileReader, read_bytes
from .report import LoadReport, Progress

#: Loads with more quads than this go through the bulk loader (see the module doc).
BULK_THRESHOLD = 200_000
#: Inputs larger than this many bytes are parsed twice (check, then stream)
#: instead of being held in memory as Python objects.
STREAM_THRESHOLD_BYTES = 256 * 1024 * 1024


def load_files(
    commits: CommitPath,
    paths: Sequence[str | os.PathLike[str]],
    *,
    declare: Callable[[Sequence[tuple[str, str]]], list[Renamed]],
    graph: str | NamedNode | None,
    format: str | RdfFormat | None,
    base_iri: str | None,
    progress: Progress | None,
    strict_literals: bool,
    limits: Limits | None,
) -> LoadReport:
    """:meth:`MemoryStore.load`; the prefixes the files declare are handed to ``declare`` (under
    the lock, once the load is committed)."""
    commits.check_writable()
    if not paths:
        raise ValueError("load needs at least one file")
    target = as_graph(graph)
    sources = [(Path(p), rdf_format(p, format)) for p in paths]
    for path, _ in sources:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    report = LoadReport(files=[str(p) for p, _ in sources], progress=progress)
    total_bytes = sum(p.stat().st_size for p, _ in sources)
    reader = FileReader(sources, target, base_iri, limits)
    with commits.lock(), gc_paused():
        first_load = commits.first_load
        try:
            if first_load is not None and _loads_first(commits) and first_load.applies(commits, total_bytes):
                declared = first_load.load(commits, reader, report, judge=commits.first_load_judge(),
                                           strict_literals=strict_literals)
            elif total_bytes <= STREAM_THRESHOLD_BYTES:
                declared = _load_held(commits, reader, report, strict_literals)
            else:
                declared = _load_streamed(commits, reader, report, strict_literals)
        except ValidationError as refused:
            raise placed(refused, reader) from None
        report.renamed_prefixes = declare(declared)
    return report


def placed(refused: ValidationError, reader: FileReader) -> ValidationError:
    """The refusal with each violation's file, line and column (:mod:`memkg.core.positions`):
    the files are read again only now, when there is something to point at."""
    wanted = [Wanted(v.focus, v.path if isinstance(v.path, (NamedNode, str)) else None, v.value if v.path else None)
              for v in refused.violations]
    found = locate([p for p, _ in reader.sources], wanted, base_iri=reader.base_iri)
    violations = [replace(v, file=at.file, line=at.line, column=at.column) if (at := found.get(w)) else v
                  for v, w in zip(refused.violations, wanted)]
    return ValidationError(violations, source=refused.source)


def _loads_first(commits: CommitPath) -> bool:
    """Whether the store could take a first load: on disk, in process, bulk loading, with no
    follower to keep up (the first load writes past them), and a judge that offers to judge
    one (or none)."""
    capabilities = commits.capabilities
    return (
        commits.backend.path is not None
        and (commits.judge is None or commits.first_load_judge() is not None)
        and capabilities.in_process
        and capabilities.bulk_load
        and not commits.open_followers()
    )


def _load_held(commits: CommitPath, reader: FileReader, report: LoadReport,
               strict_literals: bool) -> list[tuple[str, str]]:
    declared: list[tuple[str, str]] = []  # the files' prefixes, in order
    starts: list[tuple[str, int]] = []  # each file with the index of its first quad
    with report.phase("parse"):
        parsed = list(reader.quads(progress=report.progress, starts=starts, declared=declared))
        report.parsed = len(parsed)
    with report.phase("literals"):
        report.rewrites = LiteralRewrites.of(WrittenForms.of(parsed), starts)
    refuse_rewrites(report.rewrites, strict_literals)
    with report.phase("index"):
        batch = list(claim_index.with_index(parsed))
        del parsed
    with report.phase("validate"):
        commits.check(batch, ", ".join(report.files))
    report.bulk = len(batch) > BULK_THRESHOLD
    with report.phase("count"):
        added = _added_by(commits, batch)
    commits.commit(batch, streamed=True, bulk=report.bulk, compact=added.store_was_smaller, report=report)
    with report.phase("count"):
        report.added = added.count()
    return declared


def _load_streamed(commits: CommitPath, reader: FileReader, report: LoadReport,
                   strict_literals: bool) -> list[tuple[str, str]]:
    """Too big to hold as Python objects: a first pass proves the input parses (and is
    counted), a second streams it to the bulk loader."""
    declared: list[tuple[str, str]] = []
    starts: list[tuple[str, int]] = []

    def read_all() -> Iterator[Quad]:
        return reader.quads(progress=report.progress, starts=starts, declared=declared)

    with report.phase("count"):
        before = len(commits.raw)
    with report.phase("parse"):
        report.rewrites = LiteralRewrites.scan(read_all(), starts)
        report.parsed = report.rewrites.read
    refuse_rewrites(report.rewrites, strict_literals)
    with report.phase("validate"):
        _judge_stream(commits, read_all, ", ".join(report.files))
    report.bulk = True
    commits.commit(claim_index.with_index(read_all()), streamed=True, bulk=True, compact=report.parsed >= before,
                   report=report)
    with report.phase("count"):
        report.added = len(commits.raw) - before
    return declared


def load_text(commits: CommitPath, data: str | bytes, *, format: str | RdfFormat, graph: str | NamedNode | None,
              base_iri: str | None, strict_literals: bool) -> LoadReport:
    """:meth:`MemoryStore.load_data`."""
    commits.check_writable()
    fmt = rdf_format("", format)
    target = as_graph(graph)
    raw = data.encode() if isinstance(data, str) else data
    with commits.lock():
        parsed = list(read_bytes(raw, fmt, target, base_iri))
        rewrites = LiteralRewrites.of(WrittenForms.of(parsed), [("<data>", 0)])
        refuse_rewrites(rewrites, strict_literals)
        batch = list(claim_index.with_index(parsed))
        commits.check(batch, "<data>")
        added = _added_by(commits, batch)
        commits.commit(batch, streamed=True, bulk=len(batch) > BULK_THRESHOLD, compact=added.store_was_smaller)
        return LoadReport(files=["<data>"], parsed=len(parsed), added=added.count(), rewrites=rewrites)


def refuse_rewrites(rewrites: LiteralRewrites, strict: bool) -> None:
    """With ``strict``, a load whose literals the store would keep in another form is refused."""
    if strict and rewrites:
        raise RewrittenLiteralsError(rewrites)


def _judge_stream(commits: CommitPath, read: Callable[[], Iterator[Quad]], source: str) -> None:
    if commits.judge is None:
        return
    # With the claim index, as everywhere: the shapes see inside triple terms through it.
    # memkg's validator takes the stream as it comes (see WriteValidator.streams).
    quads = claim_index.with_index(read())
    commits.check(quads if commits.streams() else list(quads), source)


@dataclass(frozen=True)
class _Added:
    store_was_smaller: bool  #: the store held fewer quads than the write
    count: Callable[[], int]  #: after the write: how many quads it added


def _added_by(commits: CommitPath, batch: Sequence[Quad]) -> _Added:
    """How to tell, after writing ``batch``, how many quads it added; and whether the
    store held fewer quads than the write (then a bulk write is compacted).

    At a cost that follows the write, not the store: the store is counted only up to the
    write's size; a store that big is asked, before the write, which of the write's quads
    it lacks.
    """
    raw = commits.raw
    if not commits.capabilities.in_process:  # a count is one request, a lookup per quad many
        before = len(raw)
        return _Added(before < len(batch), lambda: len(raw) - before)
    held = sum(1 for _ in islice(raw, len(batch)))
    if held < len(batch):
        return _Added(True, lambda: len(raw) - held)
    new = sum(1 for q in dict.fromkeys(batch) if q not in raw)
    return _Added(False, lambda: new)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a load builds millions of quads.

    pyoxigraph's quads are tracked by the collector, so a big batch triggers full
    collections over and over although it holds no cycles (benchmarks/README.md, Load).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
