"""Erasure: consent revoked; the content and what was derived only from it removed, the erasure recorded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    Quad,
    Triple,
)

from ..core.errors import NotFoundError
from ..core.json_terms import terms_json
from ..core.model import Retraction
from ..core.terms import Resource, new_id
from ..core.vocab import MEMX, mem, memx, prov, rdf
from ..store import MemoryStore, scope
from .datasets import IRI, as_node

#: An erasure record is also typed ``mem:Erasure`` (⊑ mem:Retraction).
ERASURE = mem.Erasure

# -- erasure ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ErasurePlan:
    """What erasing ``source`` in ``graph`` removes and keeps, decided and not yet done.

    :func:`erase` carries out exactly this plan; :func:`erasure_plan` returns it and
    writes nothing (``memkg erase --dry-run``, ``memkg dependents``). ``removed``: the
    identifiers whose content goes (the source first); ``kept``: the claims downstream
    of it that another lawful source still supports; ``quads``: the data quads removed.
    """

    source: NamedNode
    graph: NamedNode | DefaultGraph
    removed: tuple[Resource, ...]
    kept: tuple[NamedNode, ...]
    quads: tuple[Quad, ...]

    @property
    def claims(self) -> tuple[Resource, ...]:
        """The claims and occurrences it takes with the source (removed nodes that reify a triple), sorted."""
        reifying = {q.subject for q in self.quads if q.predicate == rdf.reifies}
        return tuple(sorted((n for n in self.removed if n in reifying and n != self.source), key=str))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (IRIs as text; the default graph as null): what would be removed and kept."""
        return {"source": self.source.value,
                "graph": self.graph.value if isinstance(self.graph, NamedNode) else None,
                "removed": terms_json(self.removed), "claims": terms_json(self.claims),
                "kept": [n.value for n in self.kept], "quadsRemoved": len(self.quads)}


@dataclass(frozen=True)
class Erasure:
    """A recorded erasure: the ``mem:Retraction`` written, and the plan it carried out.

    ``removed`` are the identifiers whose content is gone (the source first);
    ``kept`` the claims downstream of it that another lawful source still
    supports (their links to removed nodes are cut); ``quads_removed`` counts data quads.
    """

    record: NamedNode
    plan: ErasurePlan
    quads_removed: int

    @property
    def removed(self) -> tuple[Resource, ...]:
        return self.plan.removed

    @property
    def kept(self) -> tuple[NamedNode, ...]:
        return self.plan.kept

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (IRIs as text): the record, then the plan's fields as :meth:`ErasurePlan.to_dict`."""
        return {"record": self.record.value, **self.plan.to_dict(), "quadsRemoved": self.quads_removed}


#: Links along which content flows downstream of a source (reverse direction: ?n LINK ?removed).
_FLOW = (
    mem.supportedBy, mem.member, mem.supportGroup, mem.echoOf, prov.wasDerivedFrom,
    mem.assertedBy, prov.wasGeneratedBy, prov.used, memx.subject, memx.object,
)
_SUPPORT = {mem.supportedBy, mem.supportGroup}
#: Lineage inputs of a node without support groups.
_LINEAGE_INPUTS = (prov.wasDerivedFrom, mem.assertedBy, mem.echoOf, prov.wasGeneratedBy, prov.used)
#: References to a removed identifier that are kept: decisions about identifiers, not content.
_KEEP_REFERENCES = {mem.retracts, mem.supersedes, mem.contradicts, mem.equivalentTo, mem.specializes}


def erase(
    store: MemoryStore, source: IRI, *, reason: str, graph: IRI | None = None
) -> Erasure:
    """Erase ``source`` (consent revoked) and what was derived only from it, in one atomic change.

    Follows support, derivation, assertion, generation/usage and echo links
    downstream from ``source`` inside ``graph`` (a tenant; None: the tenant whose graph
    holds ``source``, or the shared graph when only it does, :func:`memkg.store.scope.locate`).
    A downstream node is removed when it rests only on removed nodes:

    * a claim with support groups, when every group has a removed member — a
      claim that another lawful source still supports is kept (whether or not
      that source was withdrawn: erasure is about what may be held, not about
      belief);
    * any other node (a claim whose provenance is lineage only, an extraction,
      an echo, a derived document), when all its lineage inputs are removed;
    * a support group, when a member is removed; a claim whose proposition
      mentions a removed node;
    * a removed message's attachments (``mem:attachment``), parts of it.

    Removed: every quad about a removed node, the asserted triple of a removed
    occurrence (unless another reifier still asserts it), and kept nodes' links
    into removed ones (support, lineage, refutation). Kept: references by
    identifier in version and epistemic decisions (``mem:retracts``,
    ``mem:supersedes``, ``mem:contradicts``, …). Recorded in the same step: a
    ``mem:Erasure`` (a ``mem:Retraction``) with ``mem:reason`` that
    ``mem:retracts`` every removed IRI, so they survive as identifiers only:
    the tenant's own, even where another tenant types the same IRI
    (invariant 7 exempts an identifier its tenant erased).

    Raises :class:`~memkg.core.errors.NotFoundError` if ``graph`` holds nothing about ``source``.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    :raises ~memkg.core.errors.NotFoundError: ``graph`` holds nothing about ``source``.
    :raises ~memkg.core.errors.ValidationError: the write breaks an invariant (nothing is written).
    """
    if not reason:
        raise ValueError("an erasure needs a reason")
    with store.lock():  # decide and remove in one step: no write may slip in between
        plan = erasure_plan(store, source, graph=graph)
        named = [n for n in plan.removed if isinstance(n, NamedNode)]
        record = Retraction(retracts=list[IRI](named), reason=reason, id=new_id("erasure"),
                            extra=[(rdf.type, ERASURE)])
        count = store.change(remove=plan.quads, add=record.quads(plan.graph, store.clock.tick()),
                             source=f"erasure of {plan.source}")
    return Erasure(record.node(), plan, count)


def erasure_plan(store: MemoryStore, source: IRI, *, graph: IRI | None = None) -> ErasurePlan:
    """What :func:`erase` would remove and keep for ``source`` in ``graph`` (None: the tenant whose
    graph holds it, :func:`memkg.store.scope.locate`), found by the same traversal; nothing is written.

    Raises :class:`~memkg.core.errors.UnknownIRIError` if no graph of the scope holds ``source``,
    :class:`~memkg.core.errors.NotFoundError` if ``graph`` holds nothing about it.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    :raises ~memkg.core.errors.NotFoundError: ``graph`` holds nothing about ``source``.
    """
    node = as_node(source, "source")
    located = scope.locate(store.raw, node, tenant=graph)  # without a graph, the tenant whose graph holds it
    target: NamedNode | DefaultGraph = DefaultGraph() if located is None else located
    with store.lock():  # one consistent state, read once
        return _plan(store, node, target)


def erasure_plans(store: MemoryStore, source: IRI, *, tenant: IRI | None = None) -> list[ErasurePlan]:
    """What erasing ``source`` would do in each graph it could be erased from: ``tenant``'s
    graph, or (None) every graph holding statements about it, the default graph first; an
    empty list when none does. Nothing is written."""
    node = as_node(source, "source")
    within = None if tenant is None else as_node(tenant, "tenant")
    with store.lock():
        found = {q.graph_name for q in store.raw.quads_for_pattern(node, None, None, within)}
        graphs = sorted(found, key=lambda g: (isinstance(g, NamedNode), str(g)))
        return [_plan(store, node, g) for g in graphs if isinstance(g, (NamedNode, DefaultGraph))]


def _plan(store: MemoryStore, node: NamedNode, target: NamedNode | DefaultGraph) -> ErasurePlan:
    raw = store.raw
    if not any(raw.quads_for_pattern(node, None, None, target)):
        raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")

    def out(n: Resource, p: NamedNode) -> list[Any]:
        return [q.object for q in raw.quads_for_pattern(n, p, None, target)]

    removed: dict[Resource, None] = {node: None}
    considered: set[Resource] = set()
    frontier: list[Resource] = [node]
    while frontier:
        candidates: dict[Resource, None] = {}
        for r in frontier:
            for p in _FLOW:
                for q in raw.quads_for_pattern(None, p, r, target):
                    if isinstance(q.subject, (NamedNode, BlankNode)) and q.subject not in removed:
                        candidates[q.subject] = None
        frontier = []
        for n in candidates:
            if _erased_with(n, removed, out, raw, target):
                removed[n] = None
                frontier.append(n)
        considered.update(candidates)
        # A kept node may fall later, when more of its inputs are removed: look again.
        if not frontier:
            again = [n for n in considered if n not in removed and _erased_with(n, removed, out, raw, target)]
            for n in again:
                removed[n] = None
            frontier = again
    # A message's attachments are parts of it (their captions are its content): they go with it.
    for n in list(removed):
        for part in out(n, mem.attachment):
            removed.setdefault(part, None)

    gone: set[Quad] = set()
    for n in removed:
        for q in raw.quads_for_pattern(n, None, None, target):
            gone.add(q)
            if q.predicate == rdf.reifies and isinstance(q.object, Triple) and _is_occurrence(raw, n, target):
                t = q.object
                others = [
                    o for o in raw.quads_for_pattern(None, rdf.reifies, t, target) if o.subject not in removed
                ]
                if not others:
                    gone.add(Quad(t.subject, t.predicate, t.object, target))
        for q in raw.quads_for_pattern(None, None, n, target):
            if q.subject not in removed and q.predicate not in _KEEP_REFERENCES and not q.predicate.value.startswith(MEMX):
                gone.add(q)
    kept = sorted(
        (n for n in considered if n not in removed and isinstance(n, NamedNode) and out(n, rdf.reifies)), key=str
    )
    # Index quads follow the data quads they index (the store removes them): they are not content.
    data = sorted((q for q in gone if not q.predicate.value.startswith(MEMX)), key=str)
    return ErasurePlan(node, target, tuple(removed), tuple(kept), tuple(data))


def _is_occurrence(raw: Any, n: Resource, target: Any) -> bool:
    return any(raw.quads_for_pattern(n, rdf.type, mem.Occurrence, target))


def _erased_with(n: Resource, removed: dict[Resource, None], out: Any, raw: Any, target: Any) -> bool:
    """Whether ``n`` rests only on removed nodes (see :func:`erase`)."""
    # A claim whose proposition mentions a removed node.
    if any(o in removed for o in out(n, memx.subject)) or any(o in removed for o in out(n, memx.object)):
        return True
    members = out(n, mem.member)
    if members:  # a support group
        return any(m in removed for m in members)
    legs = out(n, mem.supportedBy)
    groups = out(n, mem.supportGroup)
    if legs or groups:
        if any(leg not in removed for leg in legs):
            return False
        for g in groups:
            if g in removed:
                continue
            ms = out(g, mem.member)
            if ms and not any(m in removed for m in ms):
                return False
        return True
    inputs = [o for p in _LINEAGE_INPUTS for o in out(n, p)]
    return bool(inputs) and all(i in removed for i in inputs)
