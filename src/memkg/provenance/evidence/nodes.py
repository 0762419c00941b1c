"""What the store records about the nodes the evidence questions read."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pyoxigraph import Literal, NamedNode

from ...core.vocab import MEMX
from ...store import MemoryStore
from ..datasets import IRI, Node, dataset, select, values_block

#: Lineage links (not support) along which two pieces of evidence can share an ancestor.
LINEAGE_PATH = "prov:wasDerivedFrom|mem:assertedBy|mem:echoOf|prov:wasGeneratedBy|prov:used|prov:wasQuotedFrom"


def number(term: Any) -> float | None:
    if isinstance(term, Literal):
        try:
            return float(term.value)
        except ValueError:
            return None
    return None


def describe(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, list[tuple[NamedNode, Any]]]:
    """Every (predicate, object) of ``nodes`` in the tenant's dataset, index triples left out."""
    out: dict[Node, list[tuple[NamedNode, Any]]] = defaultdict(list)
    named = [n for n in dict.fromkeys(nodes) if isinstance(n, NamedNode)]
    if named:
        rows = select(store, f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {values_block(named)} }} ?s ?p ?o }}", dataset(tenant))
        for s, p, o in rows:
            if not p.value.startswith(MEMX):
                out[s].append((p, o))
    return out

def refuters_of(store: MemoryStore, nodes: Sequence[Node], tenant: IRI | None) -> dict[Node, list[Node]]:
    named = [n for n in nodes if isinstance(n, NamedNode)]
    out: dict[Node, list[Node]] = defaultdict(list)
    if named:
        for c, e in select(store, f"SELECT ?c ?e WHERE {{ VALUES ?c {{ {values_block(named)} }} ?e mem:refutes ?c }}", dataset(tenant)):
            out[c].append(e)
    return out
