"""Remembering items (:mod:`memkg.core.model`): minted IRIs, the clock, retries, versions.

The functions behind :meth:`MemoryStore.add_all`, :meth:`~MemoryStore.supersede`,
:meth:`~MemoryStore.get_claim` and :meth:`~MemoryStore.retract`: each turns items into
quads and hands them to the store's commit path (:mod:`memkg.store.commit`), stamped by its clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Triple

from ..core import model
from ..core.errors import NotFoundError
from ..core.model import Claim, Item, Message, Retraction, idempotency_key
from ..core.terms import Graph, iri
from ..core.vocab import ONTOLOGY_GRAPH, RDF_REIFIES, mem
from .backends.base import QuadStore
from .clock import Clock
from .commit import CommitPath
from .formats import as_graph
from .turns import TurnCounter


def add_all(commits: CommitPath, clock: Clock, items: Sequence[Item],
            graph: str | NamedNode | DefaultGraph | None) -> list[NamedNode]:
    """Write ``items`` in one atomic write; a message or occurrence whose event id the graph
    holds already is a retry, and keeps the IRI stored."""
    target = as_graph(graph)
    with commits.lock():
        recorded_at = clock.tick()
        quads: list[Quad] = []
        seen: dict[str, NamedNode] = {}
        turns = TurnCounter(commits.raw, target)
        for item in items:
            key = idempotency_key(item)
            if key is not None:
                existing = seen.get(key) or _find_event(commits.raw, key, target)
                if existing is not None:
                    item.id = existing
                    continue
            if isinstance(item, Message):
                turns.number(item)
            quads += item.quads(target, recorded_at)
            if key is not None:
                seen[key] = item.node()
        commits.write(quads, source=", ".join(str(i.node()) for i in items))
        return [item.node() for item in items]


def supersede(commits: CommitPath, clock: Clock, old: str | NamedNode, new: Claim,
              graph: str | NamedNode | DefaultGraph | None) -> NamedNode:
    target = as_graph(graph)
    old_node = iri(old, kind="claim")
    if not any(commits.raw.quads_for_pattern(old_node, RDF_REIFIES, None, target)):
        raise NotFoundError(f"{old_node}: no claim by that IRI in graph {target}")
    new.extra = [*new.extra, (mem.supersedes, old_node)]
    return add_all(commits, clock, [new], target)[0]


def get_claim(raw: QuadStore, claim: str | NamedNode, graph: str | NamedNode | None) -> tuple[Claim, Graph]:
    node = iri(claim, kind="claim")
    graphs: list[Graph] = [as_graph(graph)] if graph is not None else [
        q.graph_name for q in raw.quads_for_pattern(node, RDF_REIFIES, None, None)
        if isinstance(q.graph_name, (NamedNode, DefaultGraph))  # a tenant's graph, or the shared one
    ]
    for g in graphs:
        quads = list(raw.quads_for_pattern(node, None, None, g))
        terms = [q.object for q in quads if q.predicate == RDF_REIFIES and isinstance(q.object, Triple)]
        if terms:
            return model.claim_from_quads(node, quads), g
    raise NotFoundError(f"{node}: no claim by that IRI" + (f" in graph {graph}" if graph else ""))


def retract(commits: CommitPath, clock: Clock, targets: Sequence[str | NamedNode], reason: str | None,
            graph: str | NamedNode | None) -> NamedNode:
    nodes = [iri(t, kind="claim") for t in targets]
    target = as_graph(graph) if graph is not None else _graph_of(commits.raw, nodes)
    for node in nodes:
        if not any(commits.raw.quads_for_pattern(node, None, None, target)):
            raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")
    return add_all(commits, clock, [Retraction(retracts=[*nodes], reason=reason)], target)[0]


def _graph_of(raw: QuadStore, nodes: Sequence[NamedNode]) -> NamedNode | DefaultGraph:
    """The one graph that describes ``nodes``; NotFoundError if none does, ValueError if several."""
    graphs = {q.graph_name for n in nodes for q in raw.quads_for_pattern(n, None, None, None)
              if isinstance(q.graph_name, (NamedNode, DefaultGraph))}
    graphs.discard(ONTOLOGY_GRAPH)
    if len(graphs) == 1:
        return graphs.pop()
    if not graphs:
        raise NotFoundError(f"{nodes[0]}: nothing by that IRI in any graph")
    names = ", ".join(sorted(str(g) for g in graphs))
    raise ValueError(f"{', '.join(map(str, nodes))} are described in several graphs ({names}): name one "
                     "with --tenant (graph=)")


def _find_event(raw: QuadStore, event_id: str, graph: NamedNode | DefaultGraph) -> NamedNode | None:
    for q in raw.quads_for_pattern(None, mem.eventId, Literal(event_id), graph):
        if isinstance(q.subject, NamedNode):
            return q.subject
    return None
