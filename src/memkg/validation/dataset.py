"""Which graphs a validation reads: a tenant's data graph, and every tenant of a store.

SHACL validates one graph, memkg keeps one graph per tenant: each tenant is validated
with its own graph plus the shared default graph and the ontology as its data graph.
"""

from __future__ import annotations

from pyoxigraph import DefaultGraph

from ..core.terms import GraphName
from ..core.vocab import ONTOLOGY_GRAPH
from ..store.backends.base import QuadStore


def data_graph_for(graph: GraphName) -> list[GraphName]:
    """The union that SHACL sees as the data graph when validating ``graph``."""
    if isinstance(graph, DefaultGraph):
        return [DefaultGraph(), ONTOLOGY_GRAPH]
    return [graph, DefaultGraph(), ONTOLOGY_GRAPH]


def tenant_graphs(store: QuadStore) -> list[GraphName]:
    """The default graph and every tenant graph (not the ontology)."""
    named = sorted((g for g in store.named_graphs() if g != ONTOLOGY_GRAPH), key=str)
    return [DefaultGraph(), *named]
