"""Writing a store out: every graph, or one, in a format pyoxigraph serialises."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any

from pyoxigraph import DefaultGraph, NamedNode, RdfFormat, serialize

from ..core.vocab import ONTOLOGY_GRAPH, PREFIXES
from .formats import as_graph, rdf_format

if TYPE_CHECKING:
    from .memory import MemoryStore


def export(store: MemoryStore, output: str | os.PathLike[str] | IO[bytes] | None, *, format: str | RdfFormat,
           graph: str | NamedNode | None, with_index: bool, with_ontology: bool) -> bytes | None:
    """:meth:`MemoryStore.export`."""

    if not store.capabilities.in_process:  # read in one query, not a request per pattern
        return store.snapshot(with_index=True).export(output, format=format, graph=graph, with_index=with_index,
                                                     with_ontology=with_ontology)
    fmt = rdf_format("", format)
    target = as_graph(graph) if graph is not None else None
    if not fmt.supports_datasets and target is None:
        if store.named_graphs():
            raise ValueError(
                f"{fmt.name} holds a single graph but the store has named graphs; "
                f"name the graph to load it into, or use trig/nquads"
            )
        target = DefaultGraph()
    quads = store.quads(graph=target, with_index=with_index)
    if not with_ontology and target is None:
        quads = (q for q in quads if q.graph_name != ONTOLOGY_GRAPH)
    written: Iterable[Any] = quads if fmt.supports_datasets else (q.triple for q in quads)
    prefixes = PREFIXES if fmt in (RdfFormat.TURTLE, RdfFormat.TRIG) else None
    return serialize(written, output, fmt, prefixes=prefixes)
