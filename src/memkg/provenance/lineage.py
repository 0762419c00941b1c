"""Lineage: every source a claim reaches through derivation, assertion, generation or echo links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyoxigraph import (
    NamedNode,
)

from ..core.json_terms import term_json, terms_json
from ..core.terms import tenant_iri
from ..store import MemoryStore, scope
from ..store.views import solutions
from .datasets import IRI, Node, as_node

# -- lineage ---------------------------------------------------------------------------

#: Kinds of link in a lineage, and whether each counts as support.
LINK_KINDS = {
    "support": True,  # mem:supportedBy
    "group": True,  # mem:supportGroup / mem:member
    "echo": False,  # mem:echoOf: support through it rests on what it echoes
    "derivation": False,  # prov:wasDerivedFrom
    "assertion": False,  # mem:assertedBy (a kind of derivation)
    "generation": False,  # prov:wasGeneratedBy
    "usage": False,  # prov:used
}


@dataclass(frozen=True)
class Link:
    """One lineage link: ``source`` reached from ``node`` by a link of ``kind`` (through ``group``)."""

    node: Node
    kind: str
    source: Node
    group: Node | None = None

    @property
    def is_support(self) -> bool:
        return LINK_KINDS[self.kind]


@dataclass(frozen=True)
class Lineage:
    """Every source a claim reaches through support, derivation or echo links.

    ``links`` are all links reached (each with its kind); ``grounds`` the raw
    sources at the ends (messages, occurrences, outcomes with nothing further
    upstream); ``open_ends`` the ends that are not raw sources: branches that
    never reach one.
    """

    claim: NamedNode
    links: tuple[Link, ...]
    grounds: tuple[Node, ...]
    open_ends: tuple[Node, ...]

    def sources(self) -> tuple[Node, ...]:
        """Every node reached, in first-reached order."""
        return tuple(dict.fromkeys(link.source for link in self.links))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (:func:`memkg.core.json_terms.term_json`: IRIs as text): the claim, each link, grounds and open ends."""
        return {
            "claim": self.claim.value,
            "links": [{"from": term_json(k.node), "kind": k.kind, "source": term_json(k.source),
                       "group": term_json(k.group), "support": k.is_support}
                      for k in self.links],
            "grounds": terms_json(self.grounds),
            "openEnds": terms_json(self.open_ends),
        }


def lineage(store: MemoryStore, claim: IRI, *, tenant: IRI | None = None) -> Lineage:
    """The lineage of ``claim`` (the ``lineage`` view), as links, grounds and open ends.

    >>> store = MemoryStore()
    >>> _ = store.load_data('<https://example.org/c> a <https://w3id.org/memkg#Entity> .', format="turtle")
    >>> lineage(store, "https://example.org/c").links
    ()

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.AmbiguousIRIError: without a tenant, several tenants' graphs hold the IRI (the error names them).
    """
    node = as_node(claim, "claim")
    scope.locate(store.raw, node, tenant=tenant)
    params = {"claim": node.value}
    graph = tenant_iri(tenant)
    if graph is not None:
        params["tenant"] = graph.value
    links: dict[tuple[Any, ...], Link] = {}
    ends: dict[Node, bool] = {}
    for row in solutions(store.view("lineage", params), what="the lineage view"):
        link = Link(row["from"], row["kind"].value, row["source"], row["group"])
        links[(link.node, link.kind, link.source, link.group)] = link
        if row["end"] is not None and row["end"].value == "true":
            ends[link.source] = row["raw"] is not None and row["raw"].value == "true"
    ordered = sorted(links.values(), key=lambda k: (str(k.node), k.kind, str(k.source), str(k.group or "")))
    return Lineage(
        node,
        tuple(ordered),
        tuple(sorted((n for n, raw in ends.items() if raw), key=str)),
        tuple(sorted((n for n, raw in ends.items() if not raw), key=str)),
    )
