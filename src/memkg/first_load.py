"""A first load: files written straight into a store that holds no data, judged meanwhile in memory.

A load into a store holding nothing but memkg's ontology needs no context from the store
(see :meth:`memkg.validation.WriteValidator.stage`), so nothing is staged, copied or held
as Python objects for the write. Three readers of the same files run side by side:

* Oxigraph's bulk loader writes the files into the store, then the claim index quads
  (:mod:`memkg.index`) that Python found (compacting only after several files);
* Oxigraph loads a copy in memory (``Store.load``) with its claim index, for the validator
  to judge where it stands (:meth:`~memkg.validation.WriteValidator.judge_first_load`);
* Python reads the files once, the way every load does (limits, file/line/column of a
  syntax error, prefixes): it counts the literals the store rewrites
  (:class:`memkg.literals.LiteralRewrites`) and collects the claim index quads; then it
  judges the copy.

The first two run in Rust on their own threads, the GIL released, so Python's two steps
never wait for them and never compete with them for the GIL.

Nothing is half-written on refusal: a syntax error, a broken limit, a rewritten literal
under ``strict_literals`` or a violation waits for the bulk loader to stop, then puts the
store back as it was (its data dropped, its ontology graph restored); ``memkg load`` also
removes a store directory it created. Each parser names blank nodes afresh, so the index
quads of a reifier that involves a blank node or a nested triple term are not written from
Python's names but derived by the store itself, in one update over its own terms.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, RdfFormat, Store, Triple, serialize

from . import index as claim_index
from . import limits
from .errors import ParseError, ValidationError
from .literals import LiteralRewrites, RewrittenLiteralsError
from .ontology import ONTOLOGY_GRAPH
from .validation.writes import WriteValidator, holds_no_data

if TYPE_CHECKING:
    from .backends.base import QuadStore
    from .store import LoadReport

#: One file of a load: its path, format and base IRI.
Source = tuple[Path, RdfFormat, str]

#: The index quads the store derives itself: those whose names a parser makes up.
_STORE_DERIVED = "isBLANK(?r) || isBLANK(?s) || isBLANK(?o) || isTRIPLE(?o)"
#: The objects whose index quads Python writes (the complement of the filter above).
_NAMED = (NamedNode, Literal)


#: Smaller inputs go the general way (one transaction; MemoryStore.load): for them, the
#: bulk loader's files and the threads cost more than they save. ~200k quads of memkg's data,
#: where the general way turns to the bulk loader too (memkg.store.BULK_THRESHOLD).
MIN_BYTES = 8 * 1024 * 1024


def applies(raw: QuadStore, validator: Any, size: int) -> bool:
    """Whether a load of ``size`` bytes into ``raw`` (the store's quads; the store has checked
    that its backend is in process and bulk loads) is done as a first load: at least
    :data:`MIN_BYTES`, into a store with no data yet, validated by memkg's own validator or
    not at all."""
    return (
        size >= MIN_BYTES
        and (validator is None or isinstance(validator, WriteValidator))
        and holds_no_data(raw)
    )


def load(
    raw: Store,
    sources: Sequence[Source],
    read: Callable[[], Iterator[Quad]],
    starts: list[tuple[str, int]],
    *,
    target: NamedNode | DefaultGraph,
    validator: WriteValidator | None,
    report: LoadReport,
    strict_literals: bool = False,
) -> None:
    """Load ``sources`` into ``raw``, which holds no data, filling ``report``.

    ``read`` yields the files' quads as Python reads them (limits checked, errors located)
    and fills ``starts`` (each file with the index of its first quad). Raises what a load
    raises (ParseError, LimitExceeded, RewrittenLiteralsError, ValidationError, OSError),
    the store then as it was.
    """
    ontology = list(raw.quads_for_pattern(None, None, None, ONTOLOGY_GRAPH))
    stack = limits.parser_stack(max(limits.count_file_openings(path) for path, _, _ in sources))
    into = None if isinstance(target, DefaultGraph) else target
    #: From Python's read to the bulk loader: the index quads as N-Quads (None: refused), and
    #: whether the store must derive some itself.
    handoff: queue.Queue[tuple[bytes, bool] | None] = queue.Queue(maxsize=1)
    timings: dict[str, float] = {}

    def write() -> None:
        # Every step in Rust, the GIL released: Python's read and the validation go on meanwhile.
        with _timed(timings, "bulk load (background)"):
            for path, fmt, base in sources:
                raw.bulk_load(path=str(path), format=fmt, base_iri=base, to_graph=into)
        index = handoff.get()
        if index is None:  # refused: the store is put back
            return
        data, store_derived = index
        with _timed(timings, "index (background)"):
            if data:
                raw.bulk_load(data, format=RdfFormat.N_QUADS)
            if store_derived:
                raw.update(claim_index.insert_update(_STORE_DERIVED))
        if len(sources) > 1:
            with _timed(timings, "optimize (background)"):
                # As after every bulk write into a smaller store (MemoryStore._commit): the bulk
                # loads of several files overlap, and reads are ~3x cheaper once compacted.
                raw.optimize()

    def copy() -> Store:
        with _timed(timings, "copy (background)"):
            scratch = Store()
            for path, fmt, base in sources:
                scratch.load(path=str(path), format=fmt, base_iri=base, to_graph=into)
            scratch.update(claim_index.insert_update())
            return scratch

    writer = _Background("memkg-bulk-load", write, stack)
    copier = _Background("memkg-copy", copy, stack) if validator is not None else None
    handed = False
    try:
        index: list[Quad] = []
        store_derived = False

        def noted() -> Iterator[Quad]:
            nonlocal store_derived
            for q in read():
                extra = claim_index.index_quads(q)
                if extra is not None:
                    r, t = q.subject, q.object  # index_quads: t is a Triple
                    assert isinstance(t, Triple)
                    if type(r) is NamedNode and type(t.subject) is NamedNode and isinstance(t.object, _NAMED):
                        index.extend(extra)
                    else:
                        store_derived = True
                yield q

        with report.phase("parse"):
            report.rewrites = LiteralRewrites.scan(noted(), starts)
            report.parsed = report.rewrites.read
        if strict_literals and report.rewrites:
            raise RewrittenLiteralsError(report.rewrites)
        with report.phase("index"):
            handoff.put((serialize(index, format=RdfFormat.N_QUADS) or b"" if index else b"", store_derived))
            handed = True
            del index
        if copier is not None and validator is not None:
            # Python's GIL-bound work one step after the other (read, then judge): run side by side,
            # they took turns at the GIL and each ran slower than both in a row on a busy machine.
            with report.phase("validate"):
                scratch = _located(copier.join, sources)
                violations = validator.judge_first_load(scratch, progress=report.progress)
                del scratch
                if violations:
                    raise ValidationError(violations, source=", ".join(report.files))
        with report.phase("write"):
            _located(writer.join, sources)
        with report.phase("flush"):
            raw.flush()
        with report.phase("count"):
            report.added = len(raw) - len(ontology)
        report.bulk = True
    except BaseException:
        if not handed:
            handoff.put(None)
        writer.wait()
        if copier is not None:
            copier.wait()
        _put_back(raw, ontology)
        raise
    finally:
        report.seconds.update(timings)


def _put_back(raw: Store, ontology: list[Quad]) -> None:
    """The store as it was before the load: nothing but its ontology graph."""
    raw.clear()
    raw.extend(ontology)
    raw.flush()


def _located(join: Callable[[], Any], sources: Sequence[Source]) -> Any:
    """``join()``; a syntax error Oxigraph met (Python's read met it first, so only if the
    parsers disagree) named with the files."""
    try:
        return join()
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file=", ".join(str(p) for p, _, _ in sources)) from None


class _timed:
    def __init__(self, into: dict[str, float], name: str) -> None:
        self.into, self.name = into, name

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.into[self.name] = time.perf_counter() - self.start


class _Background:
    """A call on its own thread, with a stack deep enough for a parser (``limits.parser_stack``)."""

    def __init__(self, name: str, call: Callable[[], Any], stack: int) -> None:
        self._result: Any = None
        self._error: BaseException | None = None
        previous = threading.stack_size(stack)
        try:
            self._thread = threading.Thread(target=self._run, args=(call,), name=name, daemon=True)
            self._thread.start()
        finally:
            threading.stack_size(previous)

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self._result = call()
        except BaseException as err:  # noqa: BLE001 - raised by join(), on the caller's thread
            self._error = err

    def wait(self) -> None:
        """Until the call is over, whatever it did (an interrupt does not leave it running)."""
        while self._thread.is_alive():
            try:
                self._thread.join()
            except BaseException:  # noqa: BLE001 - the store cannot be put back while it writes
                continue

    def join(self) -> Any:
        self.wait()
        if self._error is not None:
            raise self._error
        return self._result
