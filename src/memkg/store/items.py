"""Remembering items (:mod:`memkg.core.model`): minted IRIs, the clock, retries, versions.

The functions behind :meth:`MemoryStore.add_all`, :meth:`~MemoryStore.supersede`,
:meth:`~MemoryStore.get_claim` and :meth:`~MemoryStore.retract`: each turns items into
quads and hands them to the store's write (:meth:`MemoryStore.write`, over its commit path,
:mod:`memkg.store.commit`). They are given a :class:`Writer`, what they need of the store.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Protocol

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Triple

from ..core import model
from ..core.errors import NotFoundError
from ..core.model import Claim, Item, Message, Retraction, idempotency_key
from ..core.terms import Graph, iri
from ..core.vocab import ONTOLOGY_GRAPH, RDF_REIFIES, mem
from .backends.base import QuadStore
from .clock import Clock
from .formats import as_graph
from .turns import TurnCounter


class Writer(Protocol):
    """What remembering items needs of a store (a :class:`MemoryStore` is one): its quads, its
    clock, its write lock and its write."""

    @property
    def raw(self) -> QuadStore: ...

    @property
    def clock(self) -> Clock: ...

    def lock(self) -> threading.RLock: ...

    def write(self, quads: Iterable[Quad], *, source: str | None = None) -> int: ...


def add_all(store: Writer, items: Sequence[Item], graph: str | NamedNode | DefaultGraph | None) -> list[NamedNode]:
    """Write ``items`` in one atomic write; a message or occurrence whose event id the graph
    holds already is a retry, and keeps the IRI stored."""
    target = as_graph(graph)
    with store.lock():
        recorded_at = store.clock.tick()
        quads: list[Quad] = []
        seen: dict[str, NamedNode] = {}
        turns = TurnCounter(store.raw, target)
        for item in items:
            key = idempotency_key(item)
            if key is not None:
                existing = seen.get(key) or _find_event(store, key, target)
                if existing is not None:
                    item.id = existing
                    continue
            if isinstance(item, Message):
                turns.number(item)
            quads += item.quads(target, recorded_at)
            if key is not None:
                seen[key] = item.node()
        store.write(quads, source=", ".join(str(i.node()) for i in items))
        return [item.node() for item in items]


def supersede(store: Writer, old: str | NamedNode, new: Claim,
              graph: str | NamedNode | DefaultGraph | None) -> NamedNode:
    target = as_graph(graph)
    old_node = iri(old, kind="claim")
    if not any(store.raw.quads_for_pattern(old_node, RDF_REIFIES, None, target)):
        raise NotFoundError(f"{old_node}: no claim by that IRI in graph {target}")
    new.extra = [*new.extra, (mem.supersedes, old_node)]
    return add_all(store, [new], target)[0]


def get_claim(store: Writer, claim: str | NamedNode,
              graph: str | NamedNode | None) -> tuple[Claim, Graph]:
    node = iri(claim, kind="claim")
    graphs: list[Graph] = [as_graph(graph)] if graph is not None else [
        q.graph_name for q in store.raw.quads_for_pattern(node, RDF_REIFIES, None, None)
        if isinstance(q.graph_name, (NamedNode, DefaultGraph))  # a tenant's graph, or the shared one
    ]
    for g in graphs:
        quads = list(store.raw.quads_for_pattern(node, None, None, g))
        terms = [q.object for q in quads if q.predicate == RDF_REIFIES and isinstance(q.object, Triple)]
        if terms:
            return model.claim_from_quads(node, quads), g
    raise NotFoundError(f"{node}: no claim by that IRI" + (f" in graph {graph}" if graph else ""))


def retract(store: Writer, targets: Sequence[str | NamedNode], reason: str | None,
            graph: str | NamedNode | None) -> NamedNode:
    nodes = [iri(t, kind="claim") for t in targets]
    target = as_graph(graph) if graph is not None else _graph_of(store, nodes)
    for node in nodes:
        if not any(store.raw.quads_for_pattern(node, None, None, target)):
            raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")
    return add_all(store, [Retraction(retracts=[*nodes], reason=reason)], target)[0]


def _graph_of(store: Writer, nodes: Sequence[NamedNode]) -> NamedNode | DefaultGraph:
    """The one graph that describes ``nodes``; NotFoundError if none does, ValueError if several."""
    graphs = {q.graph_name for n in nodes for q in store.raw.quads_for_pattern(n, None, None, None)
              if isinstance(q.graph_name, (NamedNode, DefaultGraph))}
    graphs.discard(ONTOLOGY_GRAPH)
    if len(graphs) == 1:
        return graphs.pop()
    if not graphs:
        raise NotFoundError(f"{nodes[0]}: nothing by that IRI in any graph")
    names = ", ".join(sorted(str(g) for g in graphs))
    raise ValueError(f"{', '.join(map(str, nodes))} are described in several graphs ({names}): name one "
                     "with --tenant (graph=)")


def _find_event(store: Writer, event_id: str, graph: NamedNode | DefaultGraph) -> NamedNode | None:
    for q in store.raw.quads_for_pattern(None, mem.eventId, Literal(event_id), graph):
        if isinstance(q.subject, NamedNode):
            return q.subject
    return None
