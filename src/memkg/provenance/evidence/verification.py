"""Backward verification of a derivation chain: :func:`verify`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import BlankNode, NamedNode

from ...core.vocab import mem, prov
from ...store import MemoryStore, scope
from .. import SupportGraph
from ..datasets import IRI, Node, as_node, dataset, node_arg, select, values_block
from .nodes import describe, refuters_of

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
        target = node_arg(node)
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

    >>> store = MemoryStore()
    >>> _ = store.load_data('<https://example.org/answer> <https://example.org/says> "42" .', format="turtle")
    >>> v = verify(store, "https://example.org/answer")
    >>> v.verdict, v.entered_at
    ('supported', ())

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    """
    start = as_node(end, "end")
    scope.locate(store.raw, start, tenant=tenant)
    chain = _walk_upstream(store, start, tenant)
    refuters = refuters_of(store, chain.nodes, tenant)
    against = [r for rs in refuters.values() for r in rs]
    support = SupportGraph.around(
        store, [n for n in [*chain.nodes, *against] if isinstance(n, NamedNode)], tenant=tenant
    )
    judge = _Judge(chain, support, _types(store, chain.nodes, tenant), refuters)
    stages = []
    for n in sorted(chain.depth, key=lambda x: (chain.depth[x], str(x))):
        v, reason, deps = judge.judge(n)
        stages.append(Stage(n, judge.kind(n), v, reason, chain.depth[n], deps))
    by_node = {s.node: s for s in stages}
    return Verification(start, by_node[start].verdict, tuple(stages), _entered_at(by_node, start))


@dataclass
class _Chain:
    """What the walk upstream from the end read: each stage's facts, the claims each document
    asserts, each stage's depth, and the stages in the order walked."""

    facts: dict[Node, list[tuple[NamedNode, Any]]] = field(default_factory=dict)
    asserted: dict[Node, list[Node]] = field(default_factory=lambda: defaultdict(list))
    depth: dict[Node, int] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)


def _walk_upstream(store: MemoryStore, start: NamedNode, tenant: IRI | None) -> _Chain:
    """Breadth first from ``start`` through support, lineage links and into what documents assert."""
    options = dataset(tenant)
    chain = _Chain(depth={start: 0})
    frontier: list[Node] = [start]
    while frontier:
        described = describe(store, frontier, tenant)
        groups = [o for n in frontier for p, o in described.get(n, ()) if p == mem.supportGroup]
        members = describe(store, groups, tenant)
        content = _asserted_by(store, frontier, described, options)
        nxt: list[Node] = []
        for n in frontier:
            chain.facts[n] = described.get(n, [])
            chain.nodes.append(n)
            ups = _upstream(chain.facts[n], members)
            chain.asserted[n] = sorted(set(content.get(n, [])), key=str)
            for m in [*ups, *chain.asserted[n]]:
                if isinstance(m, (NamedNode, BlankNode)) and m not in chain.depth:
                    chain.depth[m] = chain.depth[n] + 1
                    nxt.append(m)
        frontier = nxt
    return chain


def _asserted_by(
    store: MemoryStore,
    frontier: Sequence[Node],
    described: dict[Node, list[tuple[NamedNode, Any]]],
    options: dict[str, Any],
) -> dict[Node, list[Node]]:
    """The claims asserted by (``mem:assertedBy``) each derived document of ``frontier``."""
    derived = [
        n for n in frontier
        if isinstance(n, NamedNode) and any(p in _LINEAGE_PREDICATES for p, _o in described.get(n, ()))
    ]
    content: dict[Node, list[Node]] = defaultdict(list)
    if derived:
        for c, doc in select(store, f"SELECT ?c ?doc WHERE {{ VALUES ?doc {{ {values_block(derived)} }} ?c mem:assertedBy ?doc }}", options):
            content[doc].append(c)
    return content


def _upstream(facts: list[tuple[NamedNode, Any]], members: dict[Node, list[tuple[NamedNode, Any]]]) -> list[Any]:
    """What a stage's ``facts`` link it to upstream: lineage and support, through a group to its members."""
    ups: list[Any] = []
    for p, o in facts:
        if p in _LINEAGE_PREDICATES or p == mem.supportedBy:
            ups.append(o)
        elif p == mem.supportGroup:  # through the group to its members; the group is no stage
            ups += [m for q, m in members.get(o, ()) if q == mem.member]
    return ups


#: A stage's verdict, the reason for it, and the stages it was drawn from.
_Verdict = tuple[str, str, tuple[Node, ...]]


class _Judge:
    """The verdict of each stage of a chain, drawn from those it depends on (memoised; a cycle is inconclusive)."""

    def __init__(
        self, chain: _Chain, support: SupportGraph, types: dict[Node, set[str]], refuters: dict[Node, list[Node]]
    ) -> None:
        self.chain = chain
        self.support = support
        self.types = types
        self.refuters = refuters
        self.stand = support.standing()
        self.verdicts: dict[Node, _Verdict] = {}
        self.visiting: set[Node] = set()

    def kind(self, n: Node) -> str:
        cls = self.types.get(n, set())
        if "claim" in cls or self.support.groups(n):
            return "claim"
        if "activity" in cls:
            return "extraction"
        facts = self.chain.facts
        if not facts.get(n):
            return "unknown"
        if any(p in _LINEAGE_PREDICATES for p, _o in facts[n]):
            return "document"
        return "source"

    def judge(self, n: Node) -> _Verdict:
        if n in self.verdicts:
            return self.verdicts[n]
        if n in self.visiting:
            return (INCONCLUSIVE, "circular", ())
        self.visiting.add(n)
        result = self._judge(n)
        self.visiting.discard(n)
        self.verdicts[n] = result
        return result

    def worst(self, nodes: Iterable[Node]) -> tuple[str, list[Node]]:
        got = [(self.judge(m)[0], m) for m in nodes]
        if not got:
            return SUPPORTED, []
        v = min((g[0] for g in got), key=_RANK.__getitem__)
        return v, [m for verdict, m in got if verdict == v]

    def _judge(self, n: Node) -> _Verdict:
        withdrawers = self.support.withdrawn_by(n)
        if withdrawers:
            return (NOT_SUPPORTED, f"withdrawn by {', '.join(map(str, withdrawers))}", ())
        echoes = self.support.echoes(n)
        if echoes:
            v, culprits = self.worst(echoes)
            if v != SUPPORTED:
                return (v, "restates a source that is " + v, tuple(culprits))
        k = self.kind(n)
        if k == "claim":
            return self._claim(n)
        if k == "extraction":
            return self._extraction(n)
        if k == "document":
            return self._document(n)
        if k == "unknown":
            return (INCONCLUSIVE, "open end: nothing recorded about it", ())
        return (SUPPORTED, "raw source", ())

    def _claim(self, n: Node) -> _Verdict:
        groups = self.support.groups(n)
        if not groups:
            return (NOT_SUPPORTED, "no recorded support (lineage is not support)", ())
        best: tuple[str, list[Node]] | None = None
        for grp in groups:
            v, culprits = self.worst(grp.members) if grp.members else (NOT_SUPPORTED, [])
            if best is None or _RANK[v] > _RANK[best[0]]:
                best = (v, list(grp.members) if v == SUPPORTED else culprits)
        assert best is not None
        if best[0] == SUPPORTED:
            against = [r for r in self.refuters.get(n, ()) if r in self.stand]
            if against:
                return (INCONCLUSIVE, "contested: refuted by " + ", ".join(map(str, against)), tuple(best[1]))
            return (SUPPORTED, "a support group stands", tuple(best[1]))
        reason = "no support group can license it" if best[0] == NOT_SUPPORTED else "its best support is inconclusive"
        return (best[0], reason, tuple(best[1]))

    def _extraction(self, n: Node) -> _Verdict:
        used = [o for p, o in self.chain.facts.get(n, ()) if p == prov.used]
        if not used:
            return (INCONCLUSIVE, "used nothing recorded", ())
        v, culprits = self.worst(used)
        return (v, "what it used is " + v, tuple(culprits if v != SUPPORTED else used))

    def _document(self, n: Node) -> _Verdict:
        inputs = [o for p, o in self.chain.facts[n] if p in _LINEAGE_PREDICATES]
        parts = [*inputs, *self.chain.asserted.get(n, [])]
        v, culprits = self.worst(parts)
        return (v, "its inputs and claims are " + v if v == SUPPORTED else "carries content that is " + v,
                tuple(culprits if v != SUPPORTED else parts))


def _entered_at(by_node: dict[Node, Stage], start: NamedNode) -> tuple[Node, ...]:
    """Where unsupported content entered: among the stages the end's verdict rests on (following
    depends_on), those not supported although nothing they rest on is unsupported; deepest first."""
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
    return tuple(s.node for s in entered)


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

