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
from ..core.vocab import RDF_REIFIES, mem
from .backends.base import QuadStore
from .clock import Clock
from .formats import as_graph
from .scope import locate, locate_all, require
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
    old_node = iri(old, kind="claim")
    target = as_graph(graph if graph is not None else locate(store.raw, old_node))
    if not any(store.raw.quads_for_pattern(old_node, RDF_REIFIES, None, target)):
        _not_held(store, old_node, target)
        raise NotFoundError(f"{old_node}: no claim by that IRI in graph {target}")
    new.extra = [*new.extra, (mem.supersedes, old_node)]
    return add_all(store, [new], target)[0]


def get_claim(store: Writer, claim: str | NamedNode,
              graph: str | NamedNode | DefaultGraph | None) -> tuple[Claim, Graph]:
    node = iri(claim, kind="claim")
    g = as_graph(graph if graph is not None else locate(store.raw, node))
    quads = list(store.raw.quads_for_pattern(node, None, None, g))
    if any(q.predicate == RDF_REIFIES and isinstance(q.object, Triple) for q in quads):
        return model.claim_from_quads(node, quads), g
    _not_held(store, node, g)
    raise NotFoundError(f"{node}: no claim by that IRI in graph {g}")


def retract(store: Writer, targets: Sequence[str | NamedNode], reason: str | None,
            graph: str | NamedNode | None) -> NamedNode:
    nodes = [iri(t, kind="claim") for t in targets]
    target = as_graph(graph if graph is not None else locate_all(store.raw, nodes))
    for node in nodes:
        if not any(store.raw.quads_for_pattern(node, None, None, target)):
            _not_held(store, node, target)
            raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")
    return add_all(store, [Retraction(retracts=[*nodes], reason=reason)], target)[0]


def _not_held(store: Writer, node: NamedNode, graph: Graph) -> None:
    """UnknownIRIError (with the nearest IRIs) when ``graph``, a tenant's, and the shared graph do
    not hold ``node`` at all: a command given a tenant names the IRI it cannot find there as
    every read does; one the scope holds elsewhere is the caller's NotFoundError."""
    if isinstance(graph, NamedNode) and store.raw.contains_named_graph(graph):
        require(store.raw, node, tenant=graph)


def _find_event(store: Writer, event_id: str, graph: NamedNode | DefaultGraph) -> NamedNode | None:
    for q in store.raw.quads_for_pattern(None, mem.eventId, Literal(event_id), graph):
        if isinstance(q.subject, NamedNode):
            return q.subject
    return None
