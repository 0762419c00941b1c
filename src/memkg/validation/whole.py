"""Validating a whole store, or files, with either engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..shacl.written import WrittenForms
from .dataset import tenant_graphs
from .results import Report
from .shapes import builtin_shapes, make_engine, read_shapes, validate_graphs

if TYPE_CHECKING:
    from ..limits import Limits
    from ..store import MemoryStore

# -- whole-store and file validation ---------------------------------------------------


def validate_store(
    store: MemoryStore, *, engine: str = "native", extra_shapes: Sequence[str | Path] = (),
    written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
) -> Report:
    """Validate every graph of ``store`` against memkg's shapes (and ``extra_shapes``).

    ``written``: the literals of the data as written where the store keeps another
    form (the input's, see :func:`validate_files`); None judges the store's own record.
    ``progress`` is told which graph is being validated (``memkg.store.stderr_progress()``).
    """
    shapes = list(builtin_shapes())
    for path in extra_shapes:
        shapes += read_shapes(path)
    eng = make_engine(engine, shapes)
    raw = store.backend.local_store()  # on a server, a local copy: the engines ask many small questions
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

    Raises :class:`~memkg.errors.ParseError` for a file that does not parse, and
    :class:`~memkg.limits.LimitExceeded` for one past ``limits`` (nesting, literal size).
    """
    from ..store import MemoryStore

    scratch = MemoryStore(validation=None)  # we want every violation, not a refusal
    loaded = scratch.load(*paths, format=format, progress=progress, limits=limits)
    return validate_store(scratch, engine=engine, extra_shapes=extra_shapes, written=loaded.rewrites.written,
                          progress=progress)
