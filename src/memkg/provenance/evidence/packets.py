"""Evidence packets for a reader, within budgets: :func:`packet`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, RdfFormat, Triple, serialize

from ...core.errors import MemkgError
from ...core.vocab import PREFIXES, mem, prov, rdf
from ...store import MemoryStore, scope
from .. import SupportGraph
from ..datasets import IRI, Node, as_node, dataset, node_arg, select, values_block
from .nodes import describe, refuters_of


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
        target = node_arg(node)
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

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.provenance.evidence.BudgetError: ``strict`` is set and the mandatory evidence needs more than the budget.
    """
    if max_vertices < 1 or max_hops < 0:
        raise ValueError("max_vertices must be at least 1 and max_hops at least 0")
    roots = tuple(dict.fromkeys(as_node(s, "seed") for s in seeds))
    if not roots:
        raise ValueError("a packet needs at least one seed")
    scope.require_all(store.raw, roots, tenant=tenant)  # every seed in the scope (recall's hits are)
    options = dataset(tenant)
    support = SupportGraph.around(store, list(roots), tenant=tenant)
    stand = support.standing()
    found = _mandatory(store, support, roots, tenant, options)
    kept, omitted = _within_budget(found, max_vertices, max_hops)
    if omitted and strict:
        raise BudgetError(omitted, max_vertices, max_hops)
    _add_optional(store, found, kept, options, max_vertices=max_vertices, max_hops=max_hops)
    items, quads = _described(store, support, stand, found, kept, tenant)
    return EvidencePacket(roots, items, max_vertices, max_hops, not omitted, tuple(omitted), quads)


@dataclass
class _Found:
    """The vertices gathered so far, in the order found: each one's role, hop and the links that reached it."""

    entries: dict[Node, tuple[str, int, list[tuple[Node, str]]]] = field(default_factory=dict)
    order: list[Node] = field(default_factory=list)

    def note(self, n: Node, role: str, hop: int, via: tuple[Node, str] | None) -> bool:
        """Record ``n`` (True), or only the new link to it when it is known already (False)."""
        if n in self.entries:
            if via is not None and via not in self.entries[n][2]:
                self.entries[n][2].append(via)
            return False
        self.entries[n] = (role, hop, [via] if via is not None else [])
        self.order.append(n)
        return True

    def hop(self, n: Node) -> int:
        return self.entries[n][1]


def _mandatory(
    store: MemoryStore, support: SupportGraph, roots: tuple[NamedNode, ...], tenant: IRI | None, options: dict[str, Any]
) -> _Found:
    """The seeds and their mandatory evidence, breadth first: lineage, support, refutations, competing claims."""
    found = _Found()
    for s in roots:
        found.note(s, "seed", 0, None)
    lineage = describe(store, list(roots), tenant)
    for s in roots:
        for p, o in lineage.get(s, ()):
            if p in (mem.assertedBy, prov.wasGeneratedBy, prov.wasDerivedFrom) and isinstance(o, (NamedNode, BlankNode)):
                found.note(o, "lineage", 1, (s, _curie(p)))
    _note_support(found, support, roots)
    supporting_claims = [n for n in found.order if found.entries[n][0] in ("seed", "support") and support.groups(n)]
    refuting = refuters_of(store, [*roots, *supporting_claims], tenant)
    for c in [*roots, *supporting_claims]:
        for r in refuting.get(c, ()):
            found.note(r, "refutation", found.hop(c) + 1, (c, "^mem:refutes"))
    for c, other, link in select(store, _COMPETING % values_block(roots), options):
        found.note(other, "competing", 1, (c, link.value))
    return found


def _note_support(found: _Found, support: SupportGraph, roots: Sequence[Node]) -> None:
    """Every member of every support group of ``roots``, recursively, and what supporting echoes rest on."""
    queue: list[Node] = list(roots)
    while queue:
        n = queue.pop(0)
        hop = found.hop(n)
        for grp in support.groups(n):
            link = "mem:supportedBy" if grp.node is None else "mem:supportGroup/mem:member"
            for m in grp.members:
                if found.note(m, "support", hop + 1, (n, link)):
                    queue.append(m)
        for e in support.echoes(n):
            if found.note(e, "echoed", hop + 1, (n, "mem:echoOf")):
                queue.append(e)


def _within_budget(found: _Found, max_vertices: int, max_hops: int) -> tuple[list[Node], list[tuple[Node, str, str]]]:
    """The mandatory vertices the budget holds, in the order found, and the ones it leaves out (with why)."""
    omitted: list[tuple[Node, str, str]] = []
    kept: list[Node] = []
    for node in list(found.order):
        role, hop, _via = found.entries[node]
        if hop > max_hops:
            omitted.append((node, role, f"needs {hop} hops, budget {max_hops}"))
        elif len(kept) >= max_vertices:
            omitted.append((node, role, f"vertex budget {max_vertices} exhausted"))
        else:
            kept.append(node)
    return kept, omitted


def _add_optional(
    store: MemoryStore, found: _Found, kept: list[Node], options: dict[str, Any], *, max_vertices: int, max_hops: int
) -> None:
    """Add to ``kept``, hop by hop while the budget lasts, the claims conflicting with or qualifying those in it."""
    included = set(kept)
    frontier = [n for n in kept if isinstance(n, NamedNode) and found.hop(n) < max_hops]
    while frontier and len(kept) < max_vertices:
        rows = sorted(select(store, _QUALIFYING % values_block(frontier), options),
                      key=lambda r: (r["role"].value != "conflicting", str(r["c"]), str(r["other"])))
        nxt: list[Node] = []
        for row in rows:
            other, origin = row["other"], row["c"]
            if other in included or found.hop(origin) + 1 > max_hops:
                continue
            if len(kept) >= max_vertices:
                break
            found.note(other, row["role"].value, found.hop(origin) + 1, (origin, row["link"].value))
            kept.append(other)
            included.add(other)
            nxt.append(other)
        frontier = [n for n in nxt if isinstance(n, NamedNode) and found.hop(n) < max_hops]


def _described(
    store: MemoryStore,
    support: SupportGraph,
    stand: set[Node],
    found: _Found,
    kept: list[Node],
    tenant: IRI | None,
) -> tuple[tuple[PacketItem, ...], tuple[Quad, ...]]:
    """The kept vertices as items (each with its status, statement, content and groups), and what the
    store says about them and their support groups, as quads."""
    facts = describe(store, kept, tenant)
    group_nodes = [g.node for n in kept for g in support.groups(n) if g.node is not None]
    group_facts = describe(store, group_nodes, tenant)
    extra = SupportGraph.around(store, [n for n in kept if support.node_id(n) is None], tenant=tenant)
    extra_stand = extra.standing()
    refuted = refuters_of(store, kept, tenant)

    def graph_of(n: Node) -> tuple[SupportGraph, set[Node]]:
        return (support, stand) if support.node_id(n) is not None else (extra, extra_stand)

    withdrawer_facts = describe(store, [w for n in kept for w in graph_of(n)[0].withdrawn_by(n)], tenant)
    items = []
    for n in kept:
        role, hop_n, via = found.entries[n]
        g, st = graph_of(n)
        statement = next((o for p, o in facts.get(n, ()) if p == rdf.reifies and isinstance(o, Triple)), None)
        content = next((o.value for p, o in facts.get(n, ()) if p == mem.content and isinstance(o, Literal)), None)
        withdrawers = tuple(g.withdrawn_by(n))
        groups = tuple((grp.node, grp.members) for grp in g.groups(n))
        retracted = any(p == mem.retracts and o == n for w in withdrawers for p, o in withdrawer_facts.get(w, ()))
        status = _status(statement is not None or bool(groups), bool(groups), withdrawers, retracted, n in st)
        items.append(PacketItem(
            n, role, hop_n, role in _MANDATORY, tuple(v for v in via if v is not None), status,
            statement, content, withdrawers, tuple(sorted(refuted.get(n, ()), key=str)), groups,
        ))
    quads = tuple(
        Quad(n, p, o)
        for source in (facts, group_facts)
        for n, pairs in source.items()
        if not isinstance(n, Literal)  # describe() keys are IRIs: this only narrows the type
        for p, o in pairs
    )
    return tuple(items), quads


def _status(is_claim: bool, has_groups: bool, withdrawers: Sequence[Node], retracted: bool, stands: bool) -> str:
    """A claim's status (supported, unsupported, unrecorded, retracted, superseded), or another vertex's."""
    if not is_claim:
        return "withdrawn" if withdrawers or not stands else "standing"
    if withdrawers:
        return "retracted" if retracted else "superseded"
    if not has_groups:
        return "unrecorded"
    return "supported" if stands else "unsupported"


def _curie(p: NamedNode) -> str:
    for prefix, ns in PREFIXES.items():
        if p.value.startswith(ns):
            return f"{prefix}:{p.value[len(ns):]}"
    return str(p)
