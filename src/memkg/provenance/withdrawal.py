"""Dependents, impact and withdrawal: what falls if a source goes, and the record that withdraws it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyoxigraph import (
    DefaultGraph,
    NamedNode,
)

from ..core.errors import NotFoundError
from ..core.json_terms import terms_json
from ..core.model import Retraction
from ..core.vocab import ONTOLOGY_GRAPH, mem, rdf
from ..store import MemoryStore, gc_paused, scope
from .datasets import IRI, Node, as_node, dataset, select
from .support_graph import SupportGraph, iri_key

# -- dependents, impact and withdrawal -------------------------------------------------


@dataclass(frozen=True)
class Impact:
    """What withdrawing ``sources`` would do to what rests on them.

    ``fallen``: claims that stand now and would lose all support.
    ``weakened``: claims that would lose at least one standing group but still stand.
    ``fallen_sources``: other nodes that would stop standing (echoes of a source).
    ``downstream``: the other claims downstream of a source through lineage
    (derivation, assertion, generation, echo) or through fallen or weakened
    support: their own support still stands, but what they were drawn from, or
    rest on, changed.
    """

    sources: tuple[NamedNode, ...]
    fallen: tuple[NamedNode, ...]
    weakened: tuple[NamedNode, ...]
    fallen_sources: tuple[Node, ...]
    downstream: tuple[NamedNode, ...]

    @property
    def review(self) -> tuple[NamedNode, ...]:
        """Every claim that needs re-evaluation: fallen, weakened or downstream."""
        return tuple(sorted({*self.fallen, *self.weakened, *self.downstream}, key=str))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: IRIs as text."""
        return {"sources": [n.value for n in self.sources], "fallen": [n.value for n in self.fallen],
                "weakened": [n.value for n in self.weakened], "downstream": [n.value for n in self.downstream],
                "fallenSources": terms_json(self.fallen_sources)}


def dependents(store: MemoryStore, source: IRI, *, tenant: IRI | None = None) -> list[NamedNode]:
    """The claims that lose all support if ``source`` is withdrawn (recursively).

    A claim stands while any one of its support groups stands; a claim that
    supports another stands only while it stands itself. Only claims that stand
    now are listed (one already without support has nothing left to lose).
    ``queries/dependents.rq`` is the direct case of the same question, in SPARQL.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    """
    return list(impact(store, source, tenant=tenant, with_downstream=False).fallen)


#: Claims downstream of the sources through lineage or support links: one path from each
#: source written as a constant, then the claim classes by name. Virtuoso 7 evaluates neither
#: a path started from a VALUES block ("transitive start not given") nor a second path joined
#: to the first (rdfs:subClassOf*: no rows), so the classes are read on their own.
_DOWNSTREAM_PATH = (
    "{ %s (^prov:wasDerivedFrom|^mem:assertedBy|^mem:echoOf|^prov:used|^prov:wasGeneratedBy"
    "|^mem:supportedBy|^mem:member/^mem:supportGroup)+ ?x }"
)
_DOWNSTREAM = "SELECT DISTINCT ?x WHERE { %s ?x a ?class FILTER(?class IN (%s)) }"
_CLAIM_CLASSES = "SELECT DISTINCT ?class WHERE { ?class rdfs:subClassOf* mem:Claim }"


def _downstream(store: MemoryStore, roots: Sequence[Node], options: dict[str, Any]) -> set[NamedNode]:
    """The claims reached from ``roots`` through lineage or support links (blank roots: none)."""
    named = [r for r in roots if isinstance(r, NamedNode)]
    if not named:
        return set()
    classes = ", ".join(str(r[0]) for r in select(store, _CLAIM_CLASSES, options))
    paths = " UNION ".join(_DOWNSTREAM_PATH % r for r in named)
    return {r[0] for r in select(store, _DOWNSTREAM % (paths, classes), options) if isinstance(r[0], NamedNode)}


def impact(
    store: MemoryStore, *sources: IRI, tenant: IRI | None = None, with_downstream: bool = True
) -> Impact:
    """What withdrawing ``sources`` (together) would do; nothing is written.

    ``with_downstream=False`` skips the lineage search (``Impact.downstream``
    and ``weakened`` are then empty), which is all :func:`dependents` needs.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    """
    if not sources:
        raise ValueError("impact needs at least one source")
    roots = tuple(as_node(s, "source") for s in sources)
    for root in roots:
        scope.locate(store.raw, root, tenant=tenant)
    with gc_paused():  # tens of thousands of small acyclic objects: no collection can free any
        graph = SupportGraph.downstream_of(store, roots, tenant=tenant)
        effect = graph.withdrawal_effect(roots, with_weakened=with_downstream)
    fallen, weakened = effect.fallen, effect.weakened
    downstream: list[NamedNode] = []
    if with_downstream:
        reached = _downstream(store, roots, dataset(tenant))
        skip = {*fallen, *weakened, *roots}
        downstream = sorted((n for n in reached if n not in skip), key=iri_key)
    fallen_sources = effect.fallen_sources
    return Impact(roots, tuple(fallen), tuple(weakened), tuple(fallen_sources), tuple(downstream))




@dataclass(frozen=True)
class Withdrawal:
    """A recorded withdrawal: the ``mem:Retraction`` written, and the claims to re-evaluate."""

    retraction: NamedNode
    impact: Impact

    @property
    def fallen(self) -> tuple[NamedNode, ...]:
        return self.impact.fallen

    @property
    def weakened(self) -> tuple[NamedNode, ...]:
        return self.impact.weakened

    @property
    def review(self) -> tuple[NamedNode, ...]:
        return self.impact.review

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the retraction's IRI and the impact."""
        return {"retraction": self.retraction.value, **self.impact.to_dict()}


#: A proposed term, used only once the ontology declares it: a withdrawal's
#: ``mem:needsReview`` (Retraction → Claim) names the claims to re-evaluate.
NEEDS_REVIEW = mem.needsReview


def is_declared(store: MemoryStore, term: NamedNode) -> bool:
    return any(store.raw.quads_for_pattern(term, rdf.type, None, ONTOLOGY_GRAPH))


def withdraw(
    store: MemoryStore, source: IRI, *, reason: str | None = None, graph: IRI | None = None
) -> Withdrawal:
    """Withdraw ``source``: record a ``mem:Retraction`` of it, and report what needs re-evaluation.

    The retraction goes through the store's validated write API, in ``graph``
    (a tenant; None: the tenant whose graph holds ``source``, or the shared graph when only
    it does, :func:`memkg.store.scope.locate`), whose data (with the shared graphs)
    is also what the impact is computed over. Nothing else is rewritten: the
    claims that fell or weakened are returned, not changed. If the ontology
    declares ``mem:needsReview``, the retraction also names each of them with it
    (on the retraction record itself, in the same write); otherwise nothing but
    the retraction is recorded.

    Raises :class:`~memkg.core.errors.NotFoundError` if ``graph`` says nothing about
    ``source``.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    :raises ~memkg.core.errors.NotFoundError: ``graph`` says nothing about ``source``.
    :raises ~memkg.core.errors.ValidationError: the write breaks an invariant (nothing is written).
    """
    node = as_node(source, "source")
    graph = scope.locate(store.raw, node, tenant=graph)  # without one, the tenant whose graph holds it
    target = DefaultGraph() if graph is None else graph
    if not any(store.raw.quads_for_pattern(node, None, None, target)) and not any(
        store.raw.quads_for_pattern(None, None, node, target)
    ):
        raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")
    with store.lock():  # what is reported is what the retraction was recorded against
        found = impact(store, node, tenant=graph)
        extra: list[tuple[IRI, Any]] = []
        if is_declared(store, NEEDS_REVIEW):
            extra = [(NEEDS_REVIEW, c) for c in found.review]
        record = store.add(Retraction(retracts=[node], reason=reason, extra=extra), graph=graph)
    return Withdrawal(record, found)
