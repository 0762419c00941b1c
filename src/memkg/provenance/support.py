"""Support: the groups that license a claim, whether each stands, and the minimal sets of sources it rests on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pyoxigraph import (
    NamedNode,
)

from ..core.json_terms import term_json, terms_json
from ..store import MemoryStore, scope
from .datasets import IRI, Node, as_node, dataset, select, values_block
from .support_graph import SupportGraph

# -- support ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupStatus:
    """A support group and whether it stands; ``failing`` are the members that do not."""

    node: Node | None
    members: tuple[Node, ...]
    stands: bool
    failing: tuple[Node, ...]


@dataclass(frozen=True)
class Support:
    """A claim's support: its groups, whether each stands, and the claim's standing.

    ``status`` is one of ``"supported"`` (a group stands), ``"unsupported"``
    (groups recorded, none stands), ``"unrecorded"`` (no support recorded: its
    provenance is lineage only; it stands unless withdrawn) or ``"withdrawn"``
    (retracted or superseded). ``refuted_by`` lists recorded evidence against it
    (``mem:refutes``), unresolved.
    """

    claim: NamedNode
    groups: tuple[GroupStatus, ...]
    stands: bool
    status: str
    withdrawn_by: tuple[Node, ...] = ()
    refuted_by: tuple[Node, ...] = ()

    def to_dict(self, minimal: Iterable[Iterable[Node]] | None = None) -> dict[str, Any]:
        """JSON-ready (:func:`memkg.core.json_terms.term_json`: IRIs as text); ``minimal``: the sets :func:`minimal_support` found."""
        return {
            "claim": self.claim.value, "status": self.status, "stands": self.stands,
            "groups": [{"group": term_json(g.node), "members": terms_json(g.members),
                        "stands": g.stands, "failing": terms_json(g.failing)} for g in self.groups],
            "withdrawnBy": terms_json(self.withdrawn_by), "refutedBy": terms_json(self.refuted_by),
            **({"minimal": [sorted(terms_json(ms)) for ms in minimal]} if minimal is not None else {}),
        }


_REFUTERS = "SELECT ?e WHERE { VALUES ?c { %s } ?e mem:refutes ?c }"


def _refuters(store: MemoryStore, claim: NamedNode, options: dict[str, Any]) -> tuple[Node, ...]:
    rows = select(store, _REFUTERS % values_block([claim]), options)
    return tuple(sorted({r[0] for r in rows}, key=str))


def support(store: MemoryStore, claim: IRI, *, tenant: IRI | None = None) -> Support:
    """A claim's support groups, whether each still stands (recursively), and its status.
    A claim that no graph of the scope holds is an error (:func:`memkg.store.scope.locate`,
    as for every read of an IRI), never "unrecorded".

    >>> store = MemoryStore()
    >>> _ = store.load_data('<https://example.org/c> a <https://w3id.org/memkg#Entity> .', format="turtle")
    >>> s = support(store, "https://example.org/c")
    >>> s.status, s.stands, s.groups
    ('unrecorded', True, ())
    >>> support(store, "https://example.org/nothing")
    Traceback (most recent call last):
    ...
    memkg.core.errors.UnknownIRIError: https://example.org/nothing is in no graph of the scope (every graph you may read)

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    """
    node = as_node(claim, "claim")
    scope.locate(store.raw, node, tenant=tenant)
    graph = SupportGraph.around(store, [node], tenant=tenant)
    stand = graph.standing()
    statuses = tuple(
        GroupStatus(
            grp.node, grp.members, graph.group_stands(grp, stand), tuple(m for m in grp.members if m not in stand)
        )
        for grp in graph.groups(node)
    )
    withdrawn_by = tuple(graph.withdrawn_by(node))
    if withdrawn_by:
        status = "withdrawn"
    elif not statuses:
        status = "unrecorded"
    elif any(g.stands for g in statuses):
        status = "supported"
    else:
        status = "unsupported"
    return Support(node, statuses, node in stand, status, withdrawn_by, _refuters(store, node, dataset(tenant)))


def minimal_support(
    store: MemoryStore,
    claim: IRI,
    *,
    tenant: IRI | None = None,
    grounds_only: bool = True,
    limit: int = 256,
) -> list[frozenset[Node]]:
    """The claim's minimal support sets: each is enough on its own, none contains another.

    Support is unfolded recursively (a member claim's own groups, an echo's
    original) and multiplied out (AND inside a group, OR across groups), then
    minimised. With ``grounds_only`` (the default) a set lists only the grounds
    its support rests on: nodes that have no support groups and echo nothing
    (raw sources, and claims whose provenance is lineage only). Without it, a set
    lists every node that must stand for that way of support (intermediate
    claims and echoes too): withdrawing any one breaks it. Withdrawn nodes and
    circular support contribute nothing. The empty list means no standing support;
    a claim with no recorded support has one set, ``{claim}`` itself.

    Raises :class:`ValueError` if there are more than ``limit`` sets.

    >>> store = MemoryStore()
    >>> _ = store.load_data('<https://example.org/c> a <https://w3id.org/memkg#Entity> .', format="turtle")
    >>> minimal_support(store, "https://example.org/c")
    [frozenset({<NamedNode value=https://example.org/c>})]

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    :raises ValueError: there are more than ``limit`` sets.
    """
    node = as_node(claim, "claim")
    scope.locate(store.raw, node, tenant=tenant)
    graph = SupportGraph.around(store, [node], tenant=tenant)
    blocked = graph.withdrawn()
    sets = _unfold(graph, node, frozenset(), blocked, limit)
    if grounds_only:
        grounds = [
            frozenset(n for n in s if not graph.groups(n) and not graph.echoes(n)) for s in sets
        ]
        sets = _minimise(grounds)
    elif graph.groups(node) or graph.echoes(node):
        sets = _minimise([s - {node} for s in sets])
    return sorted(sets, key=lambda s: (len(s), sorted(str(n) for n in s)))


def _and(left: list[frozenset[Node]], right: list[frozenset[Node]], limit: int) -> list[frozenset[Node]]:
    out = _minimise([a | b for a in left for b in right])
    if len(out) > limit:
        raise ValueError(f"more than {limit} minimal support sets; pass a larger limit")
    return out


def _minimise(sets: Iterable[frozenset[Node]]) -> list[frozenset[Node]]:
    unique = sorted(set(sets), key=len)
    kept: list[frozenset[Node]] = []
    for s in unique:
        if not any(k <= s for k in kept):
            kept.append(s)
    return kept


def _unfold(
    graph: SupportGraph, n: Node, path: frozenset[Node], blocked: set[Node], limit: int
) -> list[frozenset[Node]]:
    if n in blocked or n in path:
        return []
    inner = path | {n}
    acc = [frozenset({n})]
    for e in graph.echoes(n):
        acc = _and(acc, _unfold(graph, e, inner, blocked, limit), limit)
        if not acc:
            return []
    groups = graph.groups(n)
    if groups:
        alternatives: list[frozenset[Node]] = []
        for grp in groups:
            if not grp.members:
                continue
            part: list[frozenset[Node]] = [frozenset()]
            for m in grp.members:
                part = _and(part, _unfold(graph, m, inner, blocked, limit), limit)
                if not part:
                    break
            alternatives += part
        acc = _and(acc, _minimise(alternatives), limit)
    return acc
