"""What a store holds, counted: its quads, its default graph, and each graph's typed nodes.

:meth:`memkg.store.MemoryStore.stats` returns a :class:`StoreStats`; ``memkg stats`` prints it.

>>> from memkg import MemoryStore
>>> store = MemoryStore(validation=None)
>>> _ = store.load_data("<urn:ex:t> { <urn:ex:a> a <urn:ex:C> . <urn:ex:b> a <urn:ex:C> . }", format="trig")
>>> stats = store.stats()
>>> [(str(g.graph), [(str(c), n) for c, n in g.classes]) for g in stats.graphs]
[('<urn:ex:t>', [('<urn:ex:C>', 2)])]
>>> stats.to_dict()["graphs"][0]["classes"]
[{'class': 'urn:ex:C', 'count': 2}]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyoxigraph import Literal

from ..core.json_terms import term_json
from ..core.terms import Term
from ..core.vocab import ONTOLOGY_GRAPH
from .backends.base import QuadStore
from .views import solutions

#: Each named graph's nodes by class (the ontology graph left out), largest first.
CLASSES_QUERY = f"""
SELECT ?g ?class (COUNT(DISTINCT ?x) AS ?n) WHERE {{
  GRAPH ?g {{ ?x a ?class }}
  FILTER(?g != <{ONTOLOGY_GRAPH.value}>)
}} GROUP BY ?g ?class ORDER BY ?g DESC(?n) ?class
"""
DEFAULT_GRAPH_QUERY = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@dataclass(frozen=True)
class GraphStats:
    """One named graph: how many nodes of each class it holds, largest first."""

    graph: Term
    classes: tuple[tuple[Term, int], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (:mod:`memkg.core.json_terms`)."""
        return {"graph": term_json(self.graph),
                "classes": [{"class": term_json(c), "count": n} for c, n in self.classes]}


@dataclass(frozen=True)
class StoreStats:
    """The counts of one store."""

    quads: int  #: every quad, the claim index and the ontology graph included
    default_graph_triples: int
    graphs: tuple[GraphStats, ...]  #: the named graphs with typed nodes, in IRI order

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (:mod:`memkg.core.json_terms`)."""
        return {"quads": self.quads, "defaultGraphTriples": self.default_graph_triples,
                "graphs": [g.to_dict() for g in self.graphs]}


def count_store(quads: QuadStore) -> StoreStats:
    """Count what a store holds (``quads``: its :attr:`~memkg.store.MemoryStore.raw`): two
    queries and its length."""
    classes: dict[Term, list[tuple[Term, int]]] = {}
    for row in solutions(quads.query(CLASSES_QUERY)):
        graph, kind, n = row["g"], row["class"], row["n"]
        assert graph is not None and kind is not None and isinstance(n, Literal)  # bound by the query
        classes.setdefault(graph, []).append((kind, int(n.value)))
    (default,) = solutions(quads.query(DEFAULT_GRAPH_QUERY))
    triples = default["n"]
    assert isinstance(triples, Literal)  # COUNT is always bound
    return StoreStats(
        quads=len(quads),
        default_graph_triples=int(triples.value),
        graphs=tuple(GraphStats(g, tuple(counts)) for g, counts in classes.items()),
    )
