"""Validating a whole store, or files, with either engine."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pyoxigraph import DefaultGraph, NamedNode, Quad, Store

from ..core.prefixes import show
from ..core.terms import GraphName
from ..core.vocab import ONTOLOGY_GRAPH, mem, rdf
from ..core.written import WrittenForms
from ..store import MemoryStore
from ..store.formats import rdf_format
from ..store.reading import FileReader
from .dataset import data_graph_for, tenant_graphs
from .engines import NativeEngine
from .inference import infer_into
from .locations import place
from .options import ValidationOptions
from .results import Extent, Report
from .rules import run_rules
from .shapes import builtin_shapes, make_engine, read_shapes_graph, validate_graphs, validate_shapes_graph

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

#: The graph of a validation's copy that holds the ``--ontology`` files (mixed into every data graph).
MIXED_ONTOLOGY = NamedNode("urn:memkg:validation:ontology")
#: The prefix of the graphs of a validation's copy that hold what inference and rules added (one per data graph).
INFERRED = "urn:memkg:validation:inferred:"


def validate_store(
    store: MemoryStore, *, engine: str = "native", extra_shapes: Sequence[str | Path] = (),
    written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
    in_memory: bool | None = None, options: ValidationOptions | None = None,
) -> Report:
    """Validate every graph of ``store`` against memkg's shapes (and ``extra_shapes``).

    ``written``: the literals of the data as written where the store keeps another
    form (the input's, see :func:`validate_files`); None judges the store's own record.
    ``progress`` is told what is being done (``memkg.adapters.cli.output.stderr_progress()``).
    ``in_memory``: validate an in-memory copy of an on-disk store (None, the default:
    when it fits in half the available memory, see :func:`in_memory_copy`; True: always;
    False: never). A store already in memory is validated where it is.
    ``options``: pySHACL's options (:class:`~memkg.validation.options.ValidationOptions`);
    an ontology, inference or rules make the validation work on an in-memory copy, so the
    store itself is never written.
    """
    started = time.perf_counter()
    options = options or ValidationOptions()
    backend = store.backend
    raw = backend.local_store()  # on a server, a local copy: the engines ask many small questions
    changes = bool(options.ontology) or options.inference != "none" or options.advanced
    if changes and raw is store.raw:
        raw = in_memory_copy(raw, budget=1 << 62, progress=progress) or raw
    elif backend.capabilities.in_process and store.path is not None and in_memory is not False:
        raw = in_memory_copy(raw, budget=1 << 62 if in_memory else None, progress=progress) or raw
    claims, quads = _extent(raw)
    report = _validate_raw(raw, engine=engine, extra_shapes=extra_shapes, written=written, progress=progress,
                           options=options, builtin=not options.shapes_only, memkg_graphs=True)
    report.extent = Extent(claims, quads, time.perf_counter() - started)
    return report


def _extent(raw: Store) -> tuple[int, int]:
    """The claims and the quads of a store's data (outside the ontology graph), before it is
    validated: inference and rules may add to a copy."""
    ontology = sum(1 for _ in raw.quads_for_pattern(None, None, None, ONTOLOGY_GRAPH))
    claims = sum(1 for q in raw.quads_for_pattern(None, rdf.type, mem.Claim, None) if q.graph_name != ONTOLOGY_GRAPH)
    return claims, len(raw) - ontology


def validate_files(
    paths: Sequence[str | Path],
    *,
    engine: str = "native",
    extra_shapes: Sequence[str | Path] = (),
    format: str | None = None,
    progress: Callable[[str], None] | None = None,
    limits: Limits | None = None,
    options: ValidationOptions | None = None,
) -> Report:
    """Validate files as if they were loaded into an empty store (nothing is kept),
    every literal judged as the files write it (not as a store would keep it). Every
    result names the file, line and column where its focus node's offending triple
    (or the focus node) is written, found only when there are results to place
    (:mod:`memkg.core.positions`).

    With ``options.shapes_only`` the data graph is the files as parsed (each named graph
    with the default graph), judged by ``extra_shapes`` alone: no claim index, no memkg
    ontology; otherwise the files are loaded as ``memkg load`` would load them.

    Raises :class:`~memkg.core.errors.ParseError` for a file that does not parse, and
    :class:`~memkg.guard.limits.LimitExceeded` for one past ``limits`` (nesting, literal size).

    :raises ~memkg.core.errors.ParseError: a file does not parse (file, line and column named).
    :raises ~memkg.guard.limits.LimitExceeded: a file is past ``limits`` (nesting, literal size).
    """
    options = options or ValidationOptions()
    if options.shapes_only:
        reader = FileReader([(Path(p), rdf_format(p, format)) for p in paths], limits=limits)
        for path, _ in reader.sources:
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such file")
        parsed = list(reader.quads(progress=progress))
        raw = Store()
        raw.bulk_extend(parsed)
        return _validate_raw(raw, engine=engine, extra_shapes=extra_shapes, written=WrittenForms.of(parsed),
                             progress=progress, options=options, builtin=False, memkg_graphs=False,
                             files=[Path(p) for p in paths])
    scratch = MemoryStore(validation=None)  # we want every violation, not a refusal
    loaded = scratch.load(*paths, format=format, progress=progress, limits=limits)
    return _validate_raw(scratch.backend.local_store(), engine=engine, extra_shapes=extra_shapes,
                         written=loaded.rewrites.written, progress=progress, options=options, builtin=True,
                         memkg_graphs=True, files=[Path(p) for p in paths])


def _validate_raw(
    raw: Store, *, engine: str, extra_shapes: Sequence[str | Path], written: WrittenForms | None,
    progress: Callable[[str], None] | None, options: ValidationOptions, builtin: bool, memkg_graphs: bool,
    files: Sequence[Path] = (),
) -> Report:
    """Validate the graphs of ``raw`` (a store this validation may write into: a copy); the
    results placed in ``files`` (the data's, or the shapes' for ``--meta-shacl``)."""
    documents = read_shapes_graph(extra_shapes, imports=options.imports, remote=options.remote_imports)
    user_shapes = documents.quads
    if options.meta_shacl:
        meta = validate_shapes_graph(user_shapes)
        if meta.results:
            meta.allowed = options.allowed
            # a blank focus node (a property shape written as [ … ]) is told apart by what it says
            said = Store()
            said.extend(Quad(q.subject, q.predicate, q.object) for q in user_shapes)
            meta.results = place(meta.results, [Path(p) for p in extra_shapes], store=said)
            return meta
    own = list(builtin_shapes()) if builtin else []
    shapes = [*own, *user_shapes]
    named = {q.subject for q in shapes}
    for chosen in options.shapes:
        if chosen not in named:
            raise ValueError(f"--shape {chosen}: the shapes graph has no such shape")
    # memkg's invariants use SHACL-AF targets; --advanced chooses for the user's shapes only
    eng = make_engine(engine, shapes, file_prefixes=documents.prefixes, strict_prefixes=options.strict_prefixes,
                      advanced=options.advanced, always_applied={q.subject for q in own})
    tenants = tenant_graphs(raw) if memkg_graphs else _plain_graphs(raw)
    mixed: list[GraphName] = []
    if options.ontology:
        ontology = read_shapes_graph(options.ontology, imports=options.imports, remote=options.remote_imports).quads
        raw.extend(Quad(q.subject, q.predicate, q.object, MIXED_ONTOLOGY) for q in ontology)
        mixed.append(MIXED_ONTOLOGY)

    def data_graph(g: GraphName) -> list[GraphName]:
        own = data_graph_for(g) if memkg_graphs else ([g] if isinstance(g, DefaultGraph) else [g, DefaultGraph()])
        extra = [*mixed, _inferred(tenants, g)] if options.inference != "none" or options.advanced else mixed
        return [*own, *extra]

    if options.inference != "none":
        for g in tenants:
            if progress is not None:
                progress(f"{options.inference} inference for graph {g}…")
            infer_into(raw, data_graph(g)[:-1], _inferred(tenants, g), options.inference,
                       max_rounds=options.max_rule_rounds)
    ignored: list[str] = []
    if options.advanced:
        run_rules(eng, raw, tenants, data_graph, options, progress)
    elif isinstance(eng, NativeEngine):  # as pySHACL without -a: the rules are not run, and that is said
        ignored = [f"rule {show(rule, form='exact')} of shape {show(shape, form='exact')} ignored: SHACL-AF rules run "
                   "with --advanced" for shape, rule in eng.rules()]
    focus = list(options.focus) or None
    results = validate_graphs(eng, raw, tenants, focus, written=written, progress=progress, data_graph=data_graph,
                              shapes=list(options.shapes) or None)
    if results and files:
        results = place(results, files, store=raw)
    return Report(results, engine=engine, allowed=options.allowed, warnings=[*eng.warnings, *ignored])


def _inferred(tenants: Sequence[GraphName], g: GraphName) -> NamedNode:
    return NamedNode(f"{INFERRED}{tenants.index(g)}")


def _plain_graphs(raw: Store) -> list[GraphName]:
    """The default graph and every named graph of files read as they are (``--shapes-only``)."""
    named = sorted((g for g in raw.named_graphs() if isinstance(g, NamedNode)), key=str)
    return [DefaultGraph(), *named]
