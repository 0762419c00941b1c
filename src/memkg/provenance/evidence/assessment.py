"""Corroboration without double counting: :func:`assess`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import NamedNode

from ...core.vocab import mem
from ...store import MemoryStore, scope
from .. import Group, SupportGraph
from ..datasets import IRI, Node, as_node, dataset, select, values_block
from .nodes import LINEAGE_PATH, describe, number


@dataclass(frozen=True)
class Cluster:
    """Support alternatives that share an ancestor: together, one piece of evidence.

    ``strength`` is the strongest alternative's (the shared part is counted
    once); ``shared`` the ancestors that tie them together (empty for a cluster
    of one).
    """

    alternatives: tuple[Group, ...]
    shared: tuple[Node, ...]
    strength: float


@dataclass(frozen=True)
class Assessment:
    """A claim's evidence, with each quantity kept apart.

    * ``confidence`` — the claim's recorded ``mem:confidence`` (the agent's belief), as recorded;
    * ``extraction_confidence`` — the claim's ``mem:extractionConfidence`` (how well it was read);
    * ``reliabilities`` — each support source's ``mem:sourceReliability`` where recorded;
    * ``evidence`` — the combined strength of the independent support that stands now:
      ``1 - prod(1 - cluster.strength)`` over the clusters (None without standing support);
    * ``utility`` — memory utility (how useful the memory is to keep): the vocabulary has no
      term for it yet, so it is ``mem:utility`` where recorded, else None.

    ``assumed`` lists the sources whose reliability was not recorded and was
    taken as ``default_reliability``.
    """

    claim: NamedNode
    confidence: float | None
    extraction_confidence: float | None
    evidence: float | None
    clusters: tuple[Cluster, ...]
    reliabilities: dict[Node, float] = field(default_factory=dict)
    assumed: tuple[Node, ...] = ()
    utility: float | None = None

    @property
    def independent(self) -> int:
        """How many independent pieces of evidence support the claim now."""
        return len(self.clusters)


def assess(
    store: MemoryStore, claim: IRI, *, tenant: IRI | None = None, default_reliability: float = 0.5
) -> Assessment:
    """How strongly independent, standing evidence supports ``claim`` (no double counting).

    Each support alternative that stands has a strength: the product of its
    members' strengths (AND; members of a group are independent by invariant
    11). A member's strength is its ``mem:sourceReliability`` (or
    ``default_reliability``); an echo's is what it echoes (capped by its own
    reliability, if recorded); a claim's is its own combined evidence, recursively. Alternatives whose ancestries meet
    (a common node upstream through derivation, echo, generation, usage or
    support — two summaries of one message) form one cluster, worth its
    strongest alternative; independent clusters combine as
    ``1 - prod(1 - s)``. Nothing here reads or changes ``mem:confidence``.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    """
    if not 0 <= default_reliability <= 1:
        raise ValueError(f"default_reliability must be in [0, 1], got {default_reliability!r}")
    node = as_node(claim, "claim")
    scope.locate(store.raw, node, tenant=tenant)
    graph = SupportGraph.around(store, [node], tenant=tenant)
    stand = graph.standing()
    nodes = graph.nodes()
    facts = describe(store, nodes, tenant)
    reliabilities = {n: r for n in nodes if (r := _value(facts, n, mem.sourceReliability)) is not None}
    strengths = _Strengths(graph, stand, _ancestors(store, nodes, tenant), reliabilities, default_reliability)
    alts = [g for g in graph.groups(node) if graph.group_stands(g, stand)]
    clusters: list[Cluster] = []
    evidence: float | None = None
    if alts and node in stand:
        evidence, clusters = _combine(_clusters(
            alts, strengths.ancestors, lambda g: _group_strength(g, strengths.strength, frozenset({node}))
        ))
    legs = {m for g in graph.groups(node) for m in g.members}
    assumed = strengths.assumed
    return Assessment(
        node,
        confidence=_value(facts, node, mem.confidence),
        extraction_confidence=_value(facts, node, mem.extractionConfidence),
        evidence=None if evidence is None else round(evidence, 6),
        clusters=tuple(clusters),
        reliabilities={n: r for n, r in reliabilities.items() if n in legs or n in assumed},
        assumed=tuple(sorted(assumed, key=str)),
        utility=_value(facts, node, mem.utility),
    )


def _value(facts: dict[Node, list[tuple[NamedNode, Any]]], n: Node, p: NamedNode) -> float | None:
    """The number ``n``'s first ``p`` holds (None: none, or not a number)."""
    for q, o in facts.get(n, ()):
        if q == p:
            return number(o)
    return None


class _Strengths:
    """The ancestries and the strengths of the nodes of one support graph (memoised).

    ``assumed`` collects the nodes whose strength fell back to ``default_reliability``.
    """

    def __init__(
        self,
        graph: SupportGraph,
        stand: set[Node],
        lineage: dict[Node, set[Node]],
        reliabilities: dict[Node, float],
        default_reliability: float,
    ) -> None:
        self.graph = graph
        self.stand = stand
        self.lineage = lineage
        self.reliabilities = reliabilities
        self.default_reliability = default_reliability
        self.assumed: set[Node] = set()
        self._ancestors: dict[Node, frozenset[Node]] = {}
        self._strengths: dict[Node, float] = {}

    def ancestors(self, n: Node, path: frozenset[Node] = frozenset()) -> frozenset[Node]:
        """``n`` and everything upstream of it: its lineage, its support members' and echoes' ancestries."""
        if n in self._ancestors:
            return self._ancestors[n]
        if n in path:
            return frozenset({n})
        inner = path | {n}
        out = {n} | self.lineage.get(n, set())
        for grp in self.graph.groups(n):
            for m in grp.members:
                out |= self.ancestors(m, inner)
        for e in self.graph.echoes(n):
            out |= self.ancestors(e, inner)
        result = frozenset(out)
        self._ancestors[n] = result
        return result

    def strength(self, n: Node, path: frozenset[Node]) -> float:
        """``n``'s strength: its standing support's combined, else its reliability; capped by what it echoes."""
        if n in self._strengths:
            return self._strengths[n]
        if n not in self.stand or n in path:
            return 0.0
        inner = path | {n}
        graph = self.graph
        alts = [g for g in graph.groups(n) if graph.group_stands(g, self.stand)]
        echoed = graph.echoes(n)
        own = self.reliabilities.get(n)
        if alts:
            s = _combine(_clusters(alts, self.ancestors, lambda g: _group_strength(g, self.strength, inner)))[0]
        elif own is not None or not echoed:
            if own is None:
                self.assumed.add(n)
                own = self.default_reliability
            s = own
        else:
            s = 1.0  # an echo adds nothing of its own: it is worth what it echoes
        for e in echoed:
            s = min(s, self.strength(e, inner))
        self._strengths[n] = s
        return s


def _ancestors(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, set[Node]]:
    named = [n for n in nodes if isinstance(n, NamedNode)]
    out: dict[Node, set[Node]] = defaultdict(set)
    if named:
        q = f"SELECT ?x ?a WHERE {{ VALUES ?x {{ {values_block(named)} }} ?x ({LINEAGE_PATH})+ ?a }}"
        for x, a in select(store, q, dataset(tenant)):
            out[x].add(a)
    return out


def _group_strength(group: Group, strength: Callable[[Node, frozenset[Node]], float], path: frozenset[Node]) -> float:
    s = 1.0
    for m in group.members:
        s *= strength(m, path)
    return s


def _clusters(
    alts: Sequence[Group], ancestors: Callable[[Node], frozenset[Node]], strength: Callable[[Group], float]
) -> list[tuple[list[Group], set[Node], float]]:
    """Union-find of alternatives whose ancestries meet; each cluster with what ties it and its best strength."""
    anc = [frozenset().union(*(ancestors(m) for m in g.members)) for g in alts]
    parent = list(range(len(alts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(alts)):
        for j in range(i):
            if anc[i] & anc[j]:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(alts)):
        groups[find(i)].append(i)
    out = []
    for members in groups.values():
        shared: set[Node] = set()
        for a in members:
            for b in members:
                if a < b:
                    shared |= anc[a] & anc[b]
        out.append(([alts[i] for i in members], shared, max(strength(alts[i]) for i in members)))
    return out


def _combine(clusters: list[tuple[list[Group], set[Node], float]]) -> tuple[float, list[Cluster]]:
    remaining = 1.0
    out = []
    for alts, shared, s in clusters:
        remaining *= 1 - s
        out.append(Cluster(tuple(alts), tuple(sorted(shared, key=str)), round(s, 6)))
    out.sort(key=lambda c: (-c.strength, [str(m) for g in c.alternatives for m in g.members]))
    return 1 - remaining, out
