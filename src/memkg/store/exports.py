"""Writing a store out: every graph, or one, in a format pyoxigraph serialises; and the copy of a
store in memory that a server's export and snapshot are made from."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Triple, serialize

from ..core.vocab import MEMX, ONTOLOGY_GRAPH, PREFIXES
from . import claim_index
from .backends.base import Backend, QuadStore
from .backends.embedded import EmbeddedBackend
from .formats import as_graph, rdf_format


def named_graphs(raw: QuadStore) -> list[NamedNode]:
    """:meth:`MemoryStore.named_graphs`: the tenants' graphs (the ontology graph left out)."""
    graphs = (g for g in raw.named_graphs() if isinstance(g, NamedNode))
    return sorted((g for g in graphs if g != ONTOLOGY_GRAPH), key=str)


def copy(backend: Backend, *, with_index: bool = True, graphs: Sequence[NamedNode] | None = None) -> EmbeddedBackend:
    """The memory copied into an in-memory backend: every graph, or the shared graph plus
    ``graphs``. A server is read in one query."""
    copied = EmbeddedBackend()
    copied.extend(backend.copy(with_index=with_index, graphs=graphs))
    return copied


#: How many quads pass between two calls of an export's ``progress``.
PROGRESS_EVERY = 100_000


def export(backend: Backend, output: str | os.PathLike[str] | IO[bytes] | None, *, format: str | RdfFormat,
           graph: str | NamedNode | None, with_index: bool, with_ontology: bool,
           prefixes: Mapping[str, str] = PREFIXES, progress: Callable[[int], None] | None = None) -> bytes | None:
    """:meth:`MemoryStore.export`."""
    if not backend.capabilities.in_process:  # read in one query, not a request per pattern
        backend = copy(backend)
    fmt = rdf_format("", format)
    target = as_graph(graph) if graph is not None else None
    if not fmt.supports_datasets and target is None:
        if named_graphs(backend.store):
            raise ValueError(
                f"{fmt.name} holds a single graph but the store has named graphs; "
                f"name the graph to load it into, or use trig/nquads"
            )
        target = DefaultGraph()
    found: Iterator[Quad] = (q for q in backend.store.quads_for_pattern(None, None, None, target)
             if with_index or not claim_index.is_index_quad(q))
    if not with_ontology and target is None:
        found = (q for q in found if q.graph_name != ONTOLOGY_GRAPH)
    if progress is not None:
        found = _counted(found, progress)
    written: Iterable[Quad] | Iterable[Triple] = found if fmt.supports_datasets else (q.triple for q in found)
    declared = None
    if fmt in (RdfFormat.TURTLE, RdfFormat.TRIG):  # the index's namespace only with the index
        declared = {name: iri for name, iri in prefixes.items() if with_index or iri != MEMX}
    return serialize(written, output, fmt, prefixes=declared)


def _counted(quads: Iterable[Quad], progress: Callable[[int], None]) -> Iterator[Quad]:
    """``quads`` as they pass, ``progress`` told how many have every :data:`PROGRESS_EVERY` and at the end."""
    count = 0
    for count, quad in enumerate(quads, 1):
        if count % PROGRESS_EVERY == 0:
            progress(count)
        yield quad
    progress(count)
