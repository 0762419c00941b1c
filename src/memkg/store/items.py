"""Remembering items (:mod:`memkg.core.model`): minted IRIs, the clock, retries, versions.

The functions behind :meth:`MemoryStore.add_all`, :meth:`~MemoryStore.supersede`,
:meth:`~MemoryStore.get_claim` and :meth:`~MemoryStore.retract`: each turns items into
quads and hands them to the store's write (:meth:`MemoryStore.write`, over its commit path,
:mod:`memkg.store.commit`). They are given a :class:`Writer`, what they need of the store.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Protocol

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Triple

from ..core import model
from ..core.errors import NotFoundError, ValidationError, Violation
from ..core.model import Claim, Correction, Item, Message, Retraction, Supersession, idempotency_key
from ..core.terms import Graph, iri
from ..core.vocab import ONTOLOGY_GRAPH, RDF_REIFIES, mem, prov
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


def supersede(store: Writer, old: str | NamedNode, new: Claim, graph: str | NamedNode | DefaultGraph | None, *,
              by: str | NamedNode | None = None, interface: str = "api") -> Supersession:
    """Record ``new`` as the next version of ``old``, in ``old``'s chain (see
    :meth:`MemoryStore.supersede`)."""
    target = as_graph(graph)
    old_node = iri(old, kind="claim")
    with store.lock():  # read the chain and write the new version as one step
        quads = list(store.raw.quads_for_pattern(old_node, None, None, target))
        if not any(q.predicate == RDF_REIFIES for q in quads):
            raise NotFoundError(f"{old_node}: no claim by that IRI in graph {target}")
        successors = _successors(store, old_node, target)
        if successors:
            raise _forked(store, old_node, successors[0], target)
        previous = model.claim_from_quads(old_node, quads)
        if _states_the_same(previous, quads, new):
            return Supersession(claim=old_node, supersedes=old_node, kind="unchanged")
        kind = "change" if new.valid_from != previous.valid_from else "correction"
        items: list[Item] = [new]
        activity = None
        if not _has_source(new):  # a version states its own source: here, the correction itself
            correction = Correction(by=by, interface=interface)
            activity = correction.node()
            new.generated_by = activity
            items.append(correction)
        new.extra = [*new.extra, (mem.supersedes, old_node)]
        claim = add_all(store, items, target)[0]
    return Supersession(claim=claim, supersedes=old_node, kind=kind, activity=activity)


def _successors(store: Writer, claim: NamedNode, graph: Graph) -> list[NamedNode]:
    return sorted((q.subject for q in store.raw.quads_for_pattern(None, mem.supersedes, claim, graph)
                   if isinstance(q.subject, NamedNode)), key=str)


def _forked(store: Writer, old: NamedNode, successor: NamedNode, graph: Graph) -> ValidationError:
    """The refusal of a second successor of ``old``: the violation the judge would report
    (invariant 12), naming the chain's current version and how to supersede it."""
    head, seen = successor, {old}
    while head not in seen and (later := _successors(store, head, graph)):
        seen.add(head)
        head = later[0]
    message = (f"{old} is already superseded by {successor}: a claim's versions form a chain, each superseded "
               f"at most once. Its current version is {head}: supersede that one (memkg supersede {head.value} …, "
               f"or MemoryStore.supersede({head.value!r}, …)); link claims that disagree with mem:contradicts")
    return ValidationError([Violation(shape=mem.VersionChainShape, focus=old, message=message, value=successor,
                                      graph=graph if isinstance(graph, NamedNode) else None)],
                           source=str(old))


def _has_source(claim: Claim) -> bool:
    return bool(claim.asserted_by or claim.generated_by or claim.derived_from or claim.supported_by
                or any(iri(p) == mem.supportGroup for p, _ in claim.extra))


#: The predicates that say where a claim came from (its source), as opposed to what it states.
_SOURCE_PREDICATES = (mem.assertedBy, prov.wasGeneratedBy, prov.wasDerivedFrom, mem.supportedBy, mem.supportGroup)


def _states_the_same(old: Claim, old_quads: Sequence[Quad], new: Claim) -> bool:
    """Whether ``new`` would state what ``old`` states (triple, confidence, times, context,
    class), from no source of its own or from exactly ``old``'s: a new version that changes nothing."""
    if new.extra or new.triple() != old.triple() or iri(new.cls) != iri(old.cls):
        return False
    if (new.valid_from, new.valid_until, new.event_time) != (old.valid_from, old.valid_until, old.event_time):
        return False
    if _number(new.confidence) != _number(old.confidence) or {iri(c) for c in new.context} != set(old.context):
        return False
    if not _has_source(new):
        return True
    return {(q.predicate, q.object) for q in old_quads if q.predicate in _SOURCE_PREDICATES} == _sources_of(new)


def _sources_of(claim: Claim) -> set[tuple[NamedNode, NamedNode]]:
    given = [(mem.assertedBy, claim.asserted_by), (prov.wasGeneratedBy, claim.generated_by),
             *((prov.wasDerivedFrom, d) for d in claim.derived_from), *((mem.supportedBy, s) for s in claim.supported_by)]
    return {(p, iri(o)) for p, o in given if o}


def _number(x: float | Decimal | None) -> Decimal | None:
    return None if x is None else Decimal(repr(x)) if isinstance(x, float) else Decimal(x)


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
