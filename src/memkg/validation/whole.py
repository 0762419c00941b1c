"""Validating a whole store, or files, with either engine."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pyoxigraph import Store

from ..core.written import WrittenForms
from ..store import MemoryStore
from .dataset import tenant_graphs
from .results import Report
from .shapes import builtin_shapes, make_engine, read_shapes, validate_graphs

if TYPE_CHECKING:
    from ..guard.limits import Limits
    from ..store import MemoryStore

#: Bytes an in-memory pyoxigraph store takes per quad (measured: ~600 with memkg's data).
BYTES_PER_QUAD = 800
#: Quads copied between two progress reports (and the granularity of the memory check).
COPY_CHUNK = 100_000


def available_memory() -> int | None:
    """Bytes the system can still give without swapping (``MemAvailable``; None if unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def in_memory_copy(
    raw: Store, *, budget: int | None = None, progress: Callable[[str], None] | None = None,
) -> Store | None:
    """An in-memory copy of the on-disk ``raw``, or None when it would take more than
    ``budget`` bytes (default: half the memory available now).

    Validation reads every edge several times, and each read from an on-disk store
    costs a RocksDB look-up per term: copying once, then running the queries in memory,
    is ~2x cheaper in all (``benchmarks/bench_validation.py``). The copy stops (and is
    dropped) as soon as it outgrows the budget, so a store too big for memory costs
    at most that much reading before it is validated where it lies.

    >>> from pyoxigraph import NamedNode, Quad
    >>> disk = Store()
    >>> disk.add(Quad(NamedNode("http://e/a"), NamedNode("http://e/p"), NamedNode("http://e/b")))
    >>> len(in_memory_copy(disk))
    1
    >>> in_memory_copy(disk, budget=10) is None
    True
    """
    if budget is None:
        free = available_memory()
        budget = free // 2 if free is not None else 0
    copy = Store()
    quads = iter(raw)
    copied = 0
    while chunk := list(itertools.islice(quads, COPY_CHUNK)):
        copied += len(chunk)
        if copied * BYTES_PER_QUAD > budget:
            if progress is not None:
                progress(f"the store does not fit in memory ({copied:,}+ quads): validating it on disk…")
            return None
        copy.bulk_extend(chunk)
        if progress is not None:
            progress(f"reading the store into memory: {copied:,} quads…")
    return copy


# -- whole-store and file validation ---------------------------------------------------


def validate_store(
    store: MemoryStore, *, engine: str = "native", extra_shapes: Sequence[str | Path] = (),
    written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
    in_memory: bool | None = None,
) -> Report:
    """Validate every graph of ``store`` against memkg's shapes (and ``extra_shapes``).

    ``written``: the literals of the data as written where the store keeps another
    form (the input's, see :func:`validate_files`); None judges the store's own record.
    ``progress`` is told what is being done (``memkg.adapters.cli.output.stderr_progress()``).
    ``in_memory``: validate an in-memory copy of an on-disk store (None, the default:
    when it fits in half the available memory, see :func:`in_memory_copy`; True: always;
    False: never). A store already in memory is validated where it is.
    """
    shapes = list(builtin_shapes())
    for path in extra_shapes:
        shapes += read_shapes(path)
    eng = make_engine(engine, shapes)
    backend = store.backend
    raw = backend.local_store()  # on a server, a local copy: the engines ask many small questions
    if backend.capabilities.in_process and store.path is not None and in_memory is not False:
        raw = in_memory_copy(raw, budget=1 << 62 if in_memory else None, progress=progress) or raw
    return Report(validate_graphs(eng, raw, tenant_graphs(raw), None, written=written, progress=progress),
                  engine=engine)


def validate_files(
    paths: Sequence[str | Path],
    *,
    engine: str = "native",
    extra_shapes: Sequence[str | Path] = (),
    format: str | None = None,
    progress: Callable[[str], None] | None = None,
    limits: Limits | None = None,
) -> Report:
    """Validate files as if they were loaded into an empty store (nothing is kept),
    every literal judged as the files write it (not as a store would keep it).

    Raises :class:`~memkg.core.errors.ParseError` for a file that does not parse, and
    :class:`~memkg.guard.limits.LimitExceeded` for one past ``limits`` (nesting, literal size).
    """
    scratch = MemoryStore(validation=None)  # we want every violation, not a refusal
    loaded = scratch.load(*paths, format=format, progress=progress, limits=limits)
    return validate_store(scratch, engine=engine, extra_shapes=extra_shapes, written=loaded.rewrites.written,
                          progress=progress)
