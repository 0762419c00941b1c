"""Datasets and query helpers shared by the provenance questions: the tenant's dataset, VALUES blocks, chunks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pyoxigraph import (
    NamedNode,
    QuerySolutions,
)

from ..core.terms import (
    IRI as IRI,  # re-exported: the provenance modules' argument type
)
from ..core.terms import Term, full_iri, tenant_iri
from ..guard.access import dataset_for
from ..store import MemoryStore

#: A node of a lineage or support graph: an IRI or a blank node, or a literal or triple
#: term where the data links to one (a support leg or group member), kept as it is.
Node = Term


# -- datasets -----------------------------------------------------------------------


#: An IRI argument that must be absolute, as a node (:func:`memkg.core.terms.full_iri`).
as_node = full_iri


def node_arg(value: IRI | Node, what: str = "IRI") -> Node:
    """A node argument: text as a full IRI (:func:`as_node`), a term as it is."""
    return as_node(value, what) if isinstance(value, str) else value


def dataset(tenant: IRI | None) -> dict[str, Any]:
    """Query options for one tenant (its graph, the shared default graph, the ontology), or all graphs."""
    return dataset_for(tenant_iri(tenant))


def select(store: MemoryStore, query: str, options: dict[str, Any]) -> QuerySolutions:
    """Run a SELECT query (memkg prefixes predeclared) with dataset ``options``."""
    result = store.query(query, **options)
    if not isinstance(result, QuerySolutions):
        raise TypeError("expected a SELECT query")
    return result


def values_block(nodes: Iterable[Node]) -> str:
    """IRIs serialized as SPARQL terms for a VALUES block (blank nodes cannot be named in a query)."""
    return " ".join(str(n) for n in nodes if isinstance(n, NamedNode))


CHUNK = 4000


def chunks(nodes: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for i in range(0, len(nodes), CHUNK):
        yield nodes[i : i + CHUNK]
