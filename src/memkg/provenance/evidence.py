"""Evidence: how strong a claim's support is, where unsupported content entered, and packets for a reader.

Three questions about recorded evidence, answered from the support and lineage
links of :mod:`memkg.provenance`:

* :func:`assess` — how much independent evidence supports a claim, without
  double counting: legs that share an ancestor (through derivation, echo,
  generation or support) are one piece of evidence, not two. The quantities
  stay apart: the claim's recorded ``mem:confidence``, each source's
  ``mem:sourceReliability``, the ``mem:extractionConfidence`` of the reading,
  and the combined evidence strength are reported side by side, never mixed.
* :func:`verify` — walk a derivation chain (source → extraction → relation →
  summary → answer) backwards from its end, give each stage a verdict from
  recorded support, and name the stage where unsupported content entered.
* :func:`packet` — the evidence a reader needs about some claims, within
  budgets of vertices and hops, saying so when the mandatory part does not fit.

>>> store = MemoryStore()
>>> a = assess(store, "https://example.org/nothing")
>>> a.evidence is None, a.independent
(True, 0)
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, RdfFormat, Triple, serialize

from ..core.errors import MemkgError
from ..core.vocab import MEMX, PREFIXES, mem, prov, rdf
from ..store import MemoryStore
from . import Group, SupportGraph
from .datasets import IRI, Node, as_node, dataset, select, values_block

__all__ = [
    "Assessment",
    "BudgetError",
    "Cluster",
    "EvidencePacket",
    "PacketItem",
    "Stage",
    "Verification",
    "assess",
    "packet",
    "verify",
]

#: Lineage links (not support) along which two pieces of evidence can share an ancestor.
_LINEAGE = "prov:wasDerivedFrom|mem:assertedBy|mem:echoOf|prov:wasGeneratedBy|prov:used|prov:wasQuotedFrom"


def _number(term: Any) -> float | None:
    if isinstance(term, Literal):
        try:
            return float(term.value)
        except ValueError:
            return None
    return None


def _describe(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, list[tuple[NamedNode, Any]]]:
    """Every (predicate, object) of ``nodes`` in the tenant's dataset, index triples left out."""
    out: dict[Node, list[tuple[NamedNode, Any]]] = defaultdict(list)
    named = [n for n in dict.fromkeys(nodes) if isinstance(n, NamedNode)]
    if named:
        rows = select(store, f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {values_block(named)} }} ?s ?p ?o }}", dataset(tenant))
        for s, p, o in rows:
            if not p.value.startswith(MEMX):
                out[s].append((p, o))
    return out


# -- corroboration ---------------------------------------------------------------------


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
    """
    if not 0 <= default_reliability <= 1:
        raise ValueError(f"default_reliability must be in [0, 1], got {default_reliability!r}")
    node = as_node(claim, "claim")
    graph = SupportGraph.around(store, [node], tenant=tenant)
    stand = graph.standing()
    nodes = graph.nodes()
    facts = _describe(store, nodes, tenant)
    lineage = _ancestors(store, nodes, tenant)

    def value(n: Node, p: NamedNode) -> float | None:
        for q, o in facts.get(n, ()):
            if q == p:
                return _number(o)
        return None

    reliabilities = {n: r for n in nodes if (r := value(n, mem.sourceReliability)) is not None}
    assumed: set[Node] = set()
    anc_memo: dict[Node, frozenset[Node]] = {}

    def ancestors(n: Node, path: frozenset[Node] = frozenset()) -> frozenset[Node]:
        if n in anc_memo:
            return anc_memo[n]
        if n in path:
            return frozenset({n})
        inner = path | {n}
        out = {n} | lineage.get(n, set())
        for grp in graph.groups(n):
            for m in grp.members:
                out |= ancestors(m, inner)
        for e in graph.echoes(n):
            out |= ancestors(e, inner)
        result = frozenset(out)
        anc_memo[n] = result
        return result

    strength_memo: dict[Node, float] = {}

    def strength(n: Node, path: frozenset[Node]) -> float:
        if n in strength_memo:
            return strength_memo[n]
        if n not in stand or n in path:
            return 0.0
        inner = path | {n}
        alts = [g for g in graph.groups(n) if graph.group_stands(g, stand)]
        echoed = graph.echoes(n)
        own = reliabilities.get(n)
        if alts:
            s = _combine(_clusters(alts, ancestors, lambda g: _group_strength(g, strength, inner)))[0]
        elif own is not None or not echoed:
            if own is None:
                assumed.add(n)
                own = default_reliability
            s = own
        else:
            s = 1.0  # an echo adds nothing of its own: it is worth what it echoes
        for e in echoed:
            s = min(s, strength(e, inner))
        strength_memo[n] = s
        return s

    alts = [g for g in graph.groups(node) if graph.group_stands(g, stand)]
    clusters: list[Cluster] = []
    evidence: float | None = None
    if alts and node in stand:
        evidence, clusters = _combine(_clusters(alts, ancestors, lambda g: _group_strength(g, strength, frozenset({node}))))
    legs = {m for g in graph.groups(node) for m in g.members}
    return Assessment(
        node,
        confidence=value(node, mem.confidence),
        extraction_confidence=value(node, mem.extractionConfidence),
        evidence=None if evidence is None else round(evidence, 6),
        clusters=tuple(clusters),
        reliabilities={n: r for n, r in reliabilities.items() if n in legs or n in assumed},
        assumed=tuple(sorted(assumed, key=str)),
        utility=value(node, mem.utility),
    )


def _ancestors(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, set[Node]]:
    named = [n for n in nodes if isinstance(n, NamedNode)]
    out: dict[Node, set[Node]] = defaultdict(set)
    if named:
        q = f"SELECT ?x ?a WHERE {{ VALUES ?x {{ {values_block(named)} }} ?x ({_LINEAGE})+ ?a }}"
        for x, a in select(store, q, dataset(tenant)):
            out[x].add(a)
    return out


def _group_strength(group: Group, strength: Any, path: frozenset[Node]) -> float:
    s = 1.0
    for m in group.members:
        s *= strength(m, path)
    return s


def _clusters(
    alts: Sequence[Group], ancestors: Any, strength: Any
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


# -- backward verification -----------------------------------------------------------

SUPPORTED, NOT_SUPPORTED, INCONCLUSIVE = "supported", "not supported", "inconclusive"
_RANK = {NOT_SUPPORTED: 0, INCONCLUSIVE: 1, SUPPORTED: 2}

#: Classes of first-hand records: a stage of one of these with nothing upstream is a raw source.
_RAW = (mem.Message, mem.Occurrence, mem.Outcome, mem.Action, mem.Episode)
_LINEAGE_PREDICATES = (prov.wasDerivedFrom, mem.assertedBy, mem.echoOf, prov.wasGeneratedBy, prov.used)


@dataclass(frozen=True)
class Stage:
    """One stage of a derivation chain and its verdict.

    ``kind``: ``"claim"``, ``"extraction"`` (an activity, judged by what it
    used), ``"document"`` (a derived source: one with lineage of its own, judged
    by its inputs and by the claims it asserts), ``"source"`` (a raw source) or
    ``"unknown"`` (nothing recorded about it). ``depth``: links from the end.
    ``depends_on``: the stages its verdict was drawn from.
    """

    node: Node
    kind: str
    verdict: str
    reason: str
    depth: int
    depends_on: tuple[Node, ...] = ()


@dataclass(frozen=True)
class Verification:
    """The verdicts of every stage upstream of ``end``, and where unsupported content entered.

    ``stages`` are every stage walked (lineage context included); ``entered_at``
    are the stages the end's verdict rests on (through ``depends_on``) that are
    not supported although nothing they depend on is unsupported — where
    unsupported content entered — deepest (nearest the sources) first.
    ``first`` is the first of them, or None.
    """

    end: Node
    verdict: str
    stages: tuple[Stage, ...]
    entered_at: tuple[Node, ...]

    @property
    def first(self) -> Node | None:
        return self.entered_at[0] if self.entered_at else None

    def stage(self, node: IRI | Node) -> Stage:
        target = node if isinstance(node, (NamedNode, BlankNode)) else as_node(node)
        for s in self.stages:
            if s.node == target:
                return s
        raise KeyError(str(target))


def verify(store: MemoryStore, end: IRI, *, tenant: IRI | None = None) -> Verification:
    """Verify a derivation chain backwards from ``end``, from recorded support.

    Walks upstream from ``end`` through support, derivation, assertion,
    generation, usage and echo links, and into what documents assert (the claims
    whose ``mem:assertedBy`` they are). Verdicts:

    * a claim is *supported* when one of its support groups has only supported
      members, *inconclusive* when the best group has inconclusive members or
      standing evidence refutes it (``mem:refutes``: contested), *not
      supported* when no group can license it — including a claim with no
      recorded support at all: lineage says where content came from, not that
      it follows;
    * an extraction (any activity) is judged by what it used (nothing recorded:
      inconclusive); a derived document (a source with lineage of its own: a
      summary, an answer) by its inputs and the claims it asserts together, the
      worst verdict winning; a raw source is supported; a node nothing is
      recorded about is inconclusive;
    * anything withdrawn (retracted, superseded, or an echo of a withdrawn
      source) is not supported.

    >>> v = verify(MemoryStore(), "https://example.org/answer")
    >>> v.verdict, v.entered_at
    ('inconclusive', ())
    """
    start = as_node(end, "end")
    options = dataset(tenant)
    facts: dict[Node, list[tuple[NamedNode, Any]]] = {}
    asserted: dict[Node, list[Node]] = defaultdict(list)
    depth: dict[Node, int] = {start: 0}
    frontier: list[Node] = [start]
    graph_nodes: list[Node] = []
    while frontier:
        described = _describe(store, frontier, tenant)
        groups = [o for n in frontier for p, o in described.get(n, ()) if p == mem.supportGroup]
        members = _describe(store, groups, tenant)
        derived = [
            n for n in frontier
            if isinstance(n, NamedNode) and any(p in _LINEAGE_PREDICATES for p, _o in described.get(n, ()))
        ]
        content: dict[Node, list[Node]] = defaultdict(list)
        if derived:
            for c, doc in select(store, f"SELECT ?c ?doc WHERE {{ VALUES ?doc {{ {values_block(derived)} }} ?c mem:assertedBy ?doc }}", options):
                content[doc].append(c)
        nxt: list[Node] = []
        for n in frontier:
            facts[n] = described.get(n, [])
            graph_nodes.append(n)
            ups: list[Any] = []
            for p, o in facts[n]:
                if p in _LINEAGE_PREDICATES or p == mem.supportedBy:
                    ups.append(o)
                elif p == mem.supportGroup:  # through the group to its members; the group is no stage
                    ups += [m for q, m in members.get(o, ()) if q == mem.member]
            asserted[n] = sorted(set(content.get(n, [])), key=str)
            for m in [*ups, *asserted[n]]:
                if isinstance(m, (NamedNode, BlankNode)) and m not in depth:
                    depth[m] = depth[n] + 1
                    nxt.append(m)
        frontier = nxt

    refuters = _refuters(store, graph_nodes, tenant)
    against = [r for rs in refuters.values() for r in rs]
    support = SupportGraph.around(
        store, [n for n in [*graph_nodes, *against] if isinstance(n, NamedNode)], tenant=tenant
    )
    types = _types(store, graph_nodes, tenant)
    stand = support.standing()
    verdicts: dict[Node, tuple[str, str, tuple[Node, ...]]] = {}
    visiting: set[Node] = set()

    def kind(n: Node) -> str:
        cls = types.get(n, set())
        if "claim" in cls or support.groups(n):
            return "claim"
        if "activity" in cls:
            return "extraction"
        if not facts.get(n):
            return "unknown"
        if any(p in _LINEAGE_PREDICATES for p, _o in facts[n]):
            return "document"
        return "source"

    def judge(n: Node) -> tuple[str, str, tuple[Node, ...]]:
        if n in verdicts:
            return verdicts[n]
        if n in visiting:
            return (INCONCLUSIVE, "circular", ())
        visiting.add(n)
        result = _judge(n)
        visiting.discard(n)
        verdicts[n] = result
        return result

    def worst(nodes: Iterable[Node]) -> tuple[str, list[Node]]:
        got = [(judge(m)[0], m) for m in nodes]
        if not got:
            return SUPPORTED, []
        v = min((g[0] for g in got), key=_RANK.__getitem__)
        return v, [m for verdict, m in got if verdict == v]

    def _judge(n: Node) -> tuple[str, str, tuple[Node, ...]]:
        withdrawers = support.withdrawn_by(n)
        if withdrawers:
            return (NOT_SUPPORTED, f"withdrawn by {', '.join(map(str, withdrawers))}", ())
        echoes = support.echoes(n)
        if echoes:
            v, culprits = worst(echoes)
            if v != SUPPORTED:
                return (v, "restates a source that is " + v, tuple(culprits))
        k = kind(n)
        if k == "claim":
            groups = support.groups(n)
            if not groups:
                return (NOT_SUPPORTED, "no recorded support (lineage is not support)", ())
            best: tuple[str, list[Node]] | None = None
            for grp in groups:
                v, culprits = worst(grp.members) if grp.members else (NOT_SUPPORTED, [])
                if best is None or _RANK[v] > _RANK[best[0]]:
                    best = (v, list(grp.members) if v == SUPPORTED else culprits)
            assert best is not None
            if best[0] == SUPPORTED:
                against = [r for r in refuters.get(n, ()) if r in stand]
                if against:
                    return (INCONCLUSIVE, "contested: refuted by " + ", ".join(map(str, against)), tuple(best[1]))
                return (SUPPORTED, "a support group stands", tuple(best[1]))
            reason = "no support group can license it" if best[0] == NOT_SUPPORTED else "its best support is inconclusive"
            return (best[0], reason, tuple(best[1]))
        if k == "extraction":
            used = [o for p, o in facts.get(n, ()) if p == prov.used]
            if not used:
                return (INCONCLUSIVE, "used nothing recorded", ())
            v, culprits = worst(used)
            return (v, "what it used is " + v, tuple(culprits if v != SUPPORTED else used))
        if k == "document":
            inputs = [o for p, o in facts[n] if p in _LINEAGE_PREDICATES]
            parts = [*inputs, *asserted.get(n, [])]
            v, culprits = worst(parts)
            return (v, "its inputs and claims are " + v if v == SUPPORTED else "carries content that is " + v,
                    tuple(culprits if v != SUPPORTED else parts))
        if k == "unknown":
            return (INCONCLUSIVE, "open end: nothing recorded about it", ())
        return (SUPPORTED, "raw source", ())

    stages = []
    for n in sorted(depth, key=lambda x: (depth[x], str(x))):
        v, reason, deps = judge(n)
        stages.append(Stage(n, kind(n), v, reason, depth[n], deps))
    by_node = {s.node: s for s in stages}
    # Where it entered: among the stages the end's verdict rests on (following depends_on),
    # those not supported although nothing they rest on is unsupported.
    reached: dict[Node, None] = {start: None}
    todo: list[Node] = [start]
    while todo:
        for d in by_node[todo.pop()].depends_on:
            if d in by_node and d not in reached:
                reached[d] = None
                todo.append(d)
    entered = [
        by_node[x] for x in reached
        if by_node[x].verdict == NOT_SUPPORTED
        and not any(by_node[d].verdict == NOT_SUPPORTED for d in by_node[x].depends_on if d in by_node)
    ]
    entered.sort(key=lambda s: (-s.depth, str(s.node)))
    return Verification(start, by_node[start].verdict, tuple(stages), tuple(s.node for s in entered))


def _types(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, set[str]]:
    named = [n for n in nodes if isinstance(n, NamedNode)]
    out: dict[Node, set[str]] = defaultdict(set)
    if not named:
        return out
    q = (
        f"SELECT ?x ?kind WHERE {{ VALUES ?x {{ {values_block(named)} }} ?x a ?c . ?c rdfs:subClassOf* ?k . "
        "VALUES (?k ?kind) { (mem:Claim \"claim\") (prov:Activity \"activity\") (mem:Action \"raw\") "
        "(mem:Episode \"raw\") (mem:Message \"raw\") (mem:Occurrence \"raw\") (mem:Outcome \"raw\") } }"
    )
    for x, k in select(store, q, dataset(tenant)):
        out[x].add(k.value)
    # Actions and episodes are activities in PROV but first-hand records here.
    for x, kinds in out.items():
        if "raw" in kinds:
            kinds.discard("activity")
    return out


def _refuters(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, list[Node]]:
    named = [n for n in nodes if isinstance(n, NamedNode)]
    out: dict[Node, list[Node]] = defaultdict(list)
    if named:
        for c, e in select(store, f"SELECT ?c ?e WHERE {{ VALUES ?c {{ {values_block(named)} }} ?e mem:refutes ?c }}", dataset(tenant)):
            out[c].append(e)
    return out


# -- evidence packets ------------------------------------------------------------------


class BudgetError(MemkgError, ValueError):
    """The budget cannot hold a packet's mandatory evidence (raised with ``strict=True``)."""

    def __init__(self, omitted: Sequence[tuple[Node, str, str]], max_vertices: int, max_hops: int) -> None:
        self.omitted = list(omitted)
        names = ", ".join(f"{n} ({why})" for n, _role, why in self.omitted[:10])
        more = f" and {len(self.omitted) - 10} more" if len(self.omitted) > 10 else ""
        super().__init__(
            f"the budget (max_vertices={max_vertices}, max_hops={max_hops}) cannot hold the mandatory "
            f"evidence: {len(self.omitted)} item(s) left out: {names}{more}"
        )


@dataclass(frozen=True)
class PacketItem:
    """One vertex of a packet: why it is there (``role``, ``via``), how far from a seed, and its status.

    Roles: ``seed``; mandatory ``support`` (a support member, recursively),
    ``echoed`` (what a supporting echo rests on), ``lineage`` (a seed's direct
    provenance), ``refutation`` (evidence against a seed or its support),
    ``competing`` (explicitly contradicts a seed); optional ``conflicting`` (same
    subject, a functional predicate, another object) and ``qualifying``
    (specializes, equivalent, another version, or the same statement under
    another context). ``status`` for claims: ``supported``, ``unsupported``,
    ``unrecorded`` (no support recorded), ``retracted`` or ``superseded``; for
    other vertices ``standing`` or ``withdrawn``.
    """

    node: Node
    role: str
    hop: int
    mandatory: bool
    via: tuple[tuple[Node, str], ...]
    status: str
    statement: Triple | None = None
    content: str | None = None
    withdrawn_by: tuple[Node, ...] = ()
    refuted_by: tuple[Node, ...] = ()
    groups: tuple[tuple[Node | None, tuple[Node, ...]], ...] = ()


@dataclass(frozen=True)
class EvidencePacket:
    """Evidence for a reader about ``seeds``, with identifiers throughout.

    ``complete`` is False when the budget could not hold the mandatory
    evidence; ``omitted`` then lists each left-out item as (node, role, reason).
    """

    seeds: tuple[NamedNode, ...]
    items: tuple[PacketItem, ...]
    max_vertices: int
    max_hops: int
    complete: bool
    omitted: tuple[tuple[Node, str, str], ...]
    quads: tuple[Quad, ...] = ()

    def nodes(self) -> tuple[Node, ...]:
        return tuple(i.node for i in self.items)

    def item(self, node: IRI | Node) -> PacketItem:
        target = node if isinstance(node, (NamedNode, BlankNode)) else as_node(node)
        for i in self.items:
            if i.node == target:
                return i
        raise KeyError(str(target))

    def to_dict(self) -> dict[str, Any]:
        def t(x: Any) -> Any:
            if x is None:
                return None
            if isinstance(x, Triple):
                return {"subject": t(x.subject), "predicate": t(x.predicate), "object": t(x.object)}
            if isinstance(x, NamedNode):
                return x.value
            if isinstance(x, BlankNode):
                return f"_:{x.value}"
            if isinstance(x, Literal):
                return {"value": x.value, "datatype": x.datatype.value, **({"language": x.language} if x.language else {})}
            return str(x)

        return {
            "seeds": [t(s) for s in self.seeds],
            "budget": {"max_vertices": self.max_vertices, "max_hops": self.max_hops},
            "complete": self.complete,
            "omitted": [{"id": t(n), "role": role, "reason": why} for n, role, why in self.omitted],
            "items": [
                {
                    "id": t(i.node),
                    "role": i.role,
                    "mandatory": i.mandatory,
                    "hop": i.hop,
                    "via": [{"from": t(f), "link": link} for f, link in i.via],
                    "status": i.status,
                    **({"statement": t(i.statement)} if i.statement is not None else {}),
                    **({"content": i.content} if i.content is not None else {}),
                    **({"withdrawnBy": [t(w) for w in i.withdrawn_by]} if i.withdrawn_by else {}),
                    **({"refutedBy": [t(r) for r in i.refuted_by]} if i.refuted_by else {}),
                    **(
                        {"supportGroups": [{"group": t(g), "members": [t(m) for m in ms]} for g, ms in i.groups]}
                        if i.groups else {}
                    ),
                }
                for i in self.items
            ],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The packet as JSON: identifiers as IRIs (blank nodes as ``_:label``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_turtle(self) -> str:
        """The packet's vertices as Turtle 1.2: what the store says about each (index left out),
        headed by comments naming the seeds, the budget and anything left out."""
        head = [
            "# memkg evidence packet",
            "# seeds: " + " ".join(f"<{s.value}>" for s in self.seeds),
            f"# budget: max_vertices={self.max_vertices} max_hops={self.max_hops}; "
            f"{len(self.items)} vertices; complete: {'yes' if self.complete else 'NO'}",
        ]
        for n, role, why in self.omitted:
            head.append(f"# omitted mandatory {role}: {n} ({why})")
        for i in self.items:
            head.append(f"# {i.role} (hop {i.hop}, {i.status}): {i.node}")
        body = serialize([q.triple for q in self.quads], format=RdfFormat.TURTLE, prefixes=PREFIXES) or b""
        return "\n".join(head) + "\n" + body.decode()


_MANDATORY = ("seed", "support", "echoed", "lineage", "refutation", "competing")

_COMPETING = """
SELECT ?c ?other ?link WHERE {
  VALUES ?c { %s }
  { ?c mem:contradicts ?other BIND("mem:contradicts" AS ?link) }
  UNION { ?other mem:contradicts ?c BIND("^mem:contradicts" AS ?link) }
}"""

_QUALIFYING = """
PREFIX memx: <https://w3id.org/memkg/index#>
SELECT ?c ?other ?link ?role WHERE {
  VALUES ?c { %s }
  {
    ?c mem:specializes|mem:equivalentTo|mem:supersedes ?other
    BIND("qualifying" AS ?role) BIND("forward" AS ?link)
  } UNION {
    ?other mem:specializes|mem:equivalentTo|mem:supersedes ?c
    BIND("qualifying" AS ?role) BIND("inverse" AS ?link)
  } UNION {
    ?c memx:subject ?s ; memx:predicate ?p ; memx:object ?o .
    ?other memx:subject ?s ; memx:predicate ?p ; memx:object ?o2 .
    FILTER(?other != ?c)
    OPTIONAL { ?p a ?functional FILTER(?functional = owl:FunctionalProperty) }
    OPTIONAL { ?c mem:context ?cx . FILTER NOT EXISTS { ?other mem:context ?cx } }
    OPTIONAL { ?other mem:context ?ox . FILTER NOT EXISTS { ?c mem:context ?ox } }
    BIND(IF(BOUND(?cx) || BOUND(?ox), "qualifying", IF(BOUND(?functional) && ?o != ?o2, "conflicting", "")) AS ?role)
    FILTER(?role != "")
    BIND("same statement" AS ?link)
  }
}"""


def packet(
    store: MemoryStore,
    seeds: Iterable[IRI],
    *,
    tenant: IRI | None = None,
    max_vertices: int = 50,
    max_hops: int = 3,
    strict: bool = False,
) -> EvidencePacket:
    """The evidence a reader needs about ``seeds``, within ``max_vertices`` and ``max_hops``.

    Mandatory, for each seed: its support (every member of every group,
    recursively through supporting claims, and what supporting echoes rest on),
    its direct lineage (``mem:assertedBy``, ``prov:wasGeneratedBy``,
    ``prov:wasDerivedFrom``), evidence against it (``mem:refutes``, for seeds and
    their supporting claims) and the claims that explicitly contradict it. Then,
    while the budget lasts, hop by hop: conflicting claims (same subject, a
    functional predicate, another object) and qualifying ones (specializations,
    equivalents, other versions, the same statement under another context) of
    every claim in the packet. Each item says why it is there and its status.

    If the mandatory evidence needs more vertices or hops than the budget, the
    packet says so: ``complete`` is False and ``omitted`` names what was left
    out (with ``strict=True``, :class:`BudgetError` is raised instead).
    """
    if max_vertices < 1 or max_hops < 0:
        raise ValueError("max_vertices must be at least 1 and max_hops at least 0")
    roots = tuple(dict.fromkeys(as_node(s, "seed") for s in seeds))
    if not roots:
        raise ValueError("a packet needs at least one seed")
    options = dataset(tenant)
    support = SupportGraph.around(store, list(roots), tenant=tenant)
    stand = support.standing()

    # -- mandatory evidence, breadth first ------------------------------------------
    found: dict[Node, tuple[str, int, list[tuple[Node, str]]]] = {}
    order: list[Node] = []

    def note(n: Node, role: str, hop: int, via: tuple[Node, str] | None) -> bool:
        if n in found:
            if via is not None and via not in found[n][2]:
                found[n][2].append(via)
            return False
        found[n] = (role, hop, [via] if via is not None else [])
        order.append(n)
        return True

    for s in roots:
        note(s, "seed", 0, None)
    lineage = _describe(store, list(roots), tenant)
    for s in roots:
        for p, o in lineage.get(s, ()):
            if p in (mem.assertedBy, prov.wasGeneratedBy, prov.wasDerivedFrom) and isinstance(o, (NamedNode, BlankNode)):
                note(o, "lineage", 1, (s, _curie(p)))
    queue: list[Node] = list(roots)
    while queue:
        n = queue.pop(0)
        hop = found[n][1]
        for grp in support.groups(n):
            link = "mem:supportedBy" if grp.node is None else "mem:supportGroup/mem:member"
            for m in grp.members:
                if note(m, "support", hop + 1, (n, link)):
                    queue.append(m)
        for e in support.echoes(n):
            if note(e, "echoed", hop + 1, (n, "mem:echoOf")):
                queue.append(e)
    supporting_claims = [n for n in order if found[n][0] in ("seed", "support") and support.groups(n)]
    refuting = _refuters(store, [*roots, *supporting_claims], tenant)
    for c in [*roots, *supporting_claims]:
        for r in refuting.get(c, ()):
            note(r, "refutation", found[c][1] + 1, (c, "^mem:refutes"))
    for c, other, link in select(store, _COMPETING % values_block(roots), options):
        note(other, "competing", 1, (c, link.value))

    mandatory = list(order)
    omitted: list[tuple[Node, str, str]] = []
    kept: list[Node] = []
    for node in mandatory:
        role, hop, _via = found[node]
        if hop > max_hops:
            omitted.append((node, role, f"needs {hop} hops, budget {max_hops}"))
        elif len(kept) >= max_vertices:
            omitted.append((node, role, f"vertex budget {max_vertices} exhausted"))
        else:
            kept.append(node)
    if omitted and strict:
        raise BudgetError(omitted, max_vertices, max_hops)

    # -- optional: conflicting and qualifying claims, hop by hop ------------------------
    included = set(kept)
    frontier = [n for n in kept if isinstance(n, NamedNode) and found[n][1] < max_hops]
    while frontier and len(kept) < max_vertices:
        rows = sorted(select(store, _QUALIFYING % values_block(frontier), options),
                      key=lambda r: (r["role"].value != "conflicting", str(r["c"]), str(r["other"])))
        nxt: list[Node] = []
        for row in rows:
            other, origin = row["other"], row["c"]
            if other in included or found[origin][1] + 1 > max_hops:
                continue
            if len(kept) >= max_vertices:
                break
            note(other, row["role"].value, found[origin][1] + 1, (origin, row["link"].value))
            kept.append(other)
            included.add(other)
            nxt.append(other)
        frontier = [n for n in nxt if isinstance(n, NamedNode) and found[n][1] < max_hops]

    # -- describe what is in -------------------------------------------------------------
    facts = _describe(store, kept, tenant)
    group_nodes = [g.node for n in kept for g in support.groups(n) if g.node is not None]
    group_facts = _describe(store, group_nodes, tenant)
    extra = SupportGraph.around(store, [n for n in kept if support.node_id(n) is None], tenant=tenant)
    extra_stand = extra.standing()
    refuted = _refuters(store, kept, tenant)

    def graph_of(n: Node) -> tuple[SupportGraph, set[Node]]:
        return (support, stand) if support.node_id(n) is not None else (extra, extra_stand)

    def graph_of_withdrawers(n: Node) -> list[Node]:
        return graph_of(n)[0].withdrawn_by(n)

    withdrawer_facts = _describe(store, [w for n in kept for w in graph_of_withdrawers(n)], tenant)
    items = []
    for n in kept:
        role, hop_n, via = found[n]
        g, st = graph_of(n)
        statement = next((o for p, o in facts.get(n, ()) if p == rdf.reifies and isinstance(o, Triple)), None)
        content = next((o.value for p, o in facts.get(n, ()) if p == mem.content and isinstance(o, Literal)), None)
        withdrawers = tuple(g.withdrawn_by(n))
        groups = tuple((grp.node, grp.members) for grp in g.groups(n))
        if statement is not None or groups:
            if withdrawers:
                retracted = any(p == mem.retracts and o == n for w in withdrawers for p, o in withdrawer_facts.get(w, ()))
                status = "retracted" if retracted else "superseded"
            elif not groups:
                status = "unrecorded"
            else:
                status = "supported" if n in st else "unsupported"
        else:
            status = "withdrawn" if withdrawers or n not in st else "standing"
        items.append(PacketItem(
            n, role, hop_n, role in _MANDATORY, tuple(v for v in via if v is not None), status,
            statement, content, withdrawers, tuple(sorted(refuted.get(n, ()), key=str)), groups,
        ))
    quads = tuple(
        Quad(n, p, o)
        for source in (facts, group_facts)
        for n, pairs in source.items()
        for p, o in pairs
    )
    return EvidencePacket(roots, tuple(items), max_vertices, max_hops, not omitted, tuple(omitted), quads)


def _curie(p: NamedNode) -> str:
    for prefix, ns in PREFIXES.items():
        if p.value.startswith(ns):
            return f"{prefix}:{p.value[len(ns):]}"
    return str(p)
