"""The claim index: subject, predicate and object of every reifier, as plain triples.

Oxigraph indexes quads, not the inside of triple terms, so "the claims about
ex:Lia" would scan every ``rdf:reifies`` triple. For every quad
``r rdf:reifies <<( s p o )>>`` in graph g the store therefore also writes::

    r memx:subject s .  r memx:predicate p .  r memx:object o .   (in graph g)

in the same atomic write. They live beside the reifier, in its graph, so a
tenant's index is exactly as visible as the tenant's claims; they use their own
namespace (``https://w3id.org/memkg/index#``) so export and validation can leave
them out. :func:`check` proves they are consistent with the data.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyoxigraph import Quad, QuerySolutions, Store, Triple

from ..core.vocab import MEMX, RDF_REIFIES, memx

if TYPE_CHECKING:
    from .backends.base import QuadStore

INDEX_PREDICATES = (memx.subject, memx.predicate, memx.object)


def index_quads(quad: Quad) -> tuple[Quad, Quad, Quad] | None:
    """The three index quads a ``rdf:reifies`` quad needs, or None for any other quad."""
    if quad.predicate != RDF_REIFIES or not isinstance(quad.object, Triple):
        return None
    r, t, g = quad.subject, quad.object, quad.graph_name
    return (
        Quad(r, memx.subject, t.subject, g),
        Quad(r, memx.predicate, t.predicate, g),
        Quad(r, memx.object, t.object, g),
    )


def with_index(quads: Iterable[Quad]) -> Iterator[Quad]:
    """Yield every quad, each ``rdf:reifies`` quad followed by its index quads."""
    for quad in quads:
        yield quad
        extra = index_quads(quad)
        if extra is not None:
            yield from extra


def is_index_quad(quad: Quad) -> bool:
    return quad.predicate.value.startswith(MEMX)


def stale_index_quads(removed: Collection[Quad], store: QuadStore) -> list[Quad]:
    """The index quads that removing ``removed`` (quads ``store`` holds) leaves without a source.

    An index quad goes with its ``rdf:reifies`` quad, unless another ``rdf:reifies`` of the
    same reifier in the same graph, one that stays, derives the same index quad. ``store`` is
    read before the removal (the embedded store, a server, or a pending update's base).

    >>> from pyoxigraph import Literal, NamedNode, Triple
    >>> r, p = NamedNode("urn:ex:r"), NamedNode("urn:ex:p")
    >>> one, two = (Quad(r, RDF_REIFIES, Triple(NamedNode("urn:ex:a"), p, Literal(v))) for v in "12")
    >>> store = Store()
    >>> store.extend(with_index([one, two]))
    >>> [str(q.predicate) for q in stale_index_quads({one}, store)]  # subject and predicate stay (two has them)
    ['<https://w3id.org/memkg/index#object>']
    """
    stale: dict[Quad, None] = {}
    for q in removed:
        for iq in index_quads(q) or ():
            siblings = store.quads_for_pattern(q.subject, q.predicate, None, q.graph_name)
            if not any(other not in removed and iq in (index_quads(other) or ()) for other in siblings):
                stale[iq] = None
    return list(stale)


@dataclass(frozen=True)
class IndexReport:
    """What :func:`check` found: reifier facts without index triples, and the reverse."""

    missing: list[tuple[str, str, str]]  # (graph, reifier, which component)
    orphaned: list[tuple[str, str, str]]

    @property
    def consistent(self) -> bool:
        return not self.missing and not self.orphaned


# Each component name with the SPARQL 1.2 accessor that reads it from a triple term.
_COMPONENTS = (("subject", "SUBJECT"), ("predicate", "PREDICATE"), ("object", "OBJECT"))


def _graph_patterns(body: str) -> str:
    """``body`` over the default graph and every named graph."""
    return f"{{ {body} BIND(<urn:memkg:default-graph> AS ?g) }} UNION {{ GRAPH ?g {{ {body} }} }}"


def check(store: QuadStore, *, limit: int = 1000) -> IndexReport:
    """Compare the index triples with the ``rdf:reifies`` triples they derive from.

    Returns up to ``limit`` faults of each kind; an empty report means the index
    is exactly what :func:`index_quads` would write for the data now in the store.
    """
    missing: list[tuple[str, str, str]] = []
    orphaned: list[tuple[str, str, str]] = []
    for name, accessor in _COMPONENTS:
        lacking = (
            f"?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t FILTER(isTRIPLE(?t)) "
            f"FILTER NOT EXISTS {{ ?r <{MEMX}{name}> ?x FILTER(sameTerm(?x, {accessor}(?t))) }}"
        )
        for row in _solutions(store, f"SELECT DISTINCT ?g ?r WHERE {{ {_graph_patterns(lacking)} }} LIMIT {limit}"):
            missing.append((str(row["g"]), str(row["r"]), name))
        stray = (
            f"?r <{MEMX}{name}> ?x "
            f"FILTER NOT EXISTS {{ ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t "
            f"FILTER(isTRIPLE(?t) && sameTerm(?x, {accessor}(?t))) }}"
        )
        for row in _solutions(store, f"SELECT DISTINCT ?g ?r WHERE {{ {_graph_patterns(stray)} }} LIMIT {limit}"):
            orphaned.append((str(row["g"]), str(row["r"]), name))
    return IndexReport(missing, orphaned)


def insert_update(where: str = "") -> str:
    """A SPARQL update that writes the index triples of every ``rdf:reifies`` triple (in every
    graph) that passes ``where``, a filter over ``?r`` and ``?s ?p ?o`` (empty: all)."""
    test = f"FILTER({where})" if where else ""
    return f"""
INSERT {{ ?r <{MEMX}subject> ?s ; <{MEMX}predicate> ?p ; <{MEMX}object> ?o }}
WHERE {{ ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t FILTER(isTRIPLE(?t))
        BIND(SUBJECT(?t) AS ?s) BIND(PREDICATE(?t) AS ?p) BIND(OBJECT(?t) AS ?o) {test} }} ;
INSERT {{ GRAPH ?g {{ ?r <{MEMX}subject> ?s ; <{MEMX}predicate> ?p ; <{MEMX}object> ?o }} }}
WHERE {{ GRAPH ?g {{ ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t FILTER(isTRIPLE(?t)) }}
        BIND(SUBJECT(?t) AS ?s) BIND(PREDICATE(?t) AS ?p) BIND(OBJECT(?t) AS ?o) {test} }}
"""


def _solutions(store: QuadStore, select: str) -> QuerySolutions:
    result = store.query(select)
    assert isinstance(result, QuerySolutions)
    return result


REBUILD_UPDATE = f"""
DELETE {{ ?r ?ip ?x }} WHERE {{ ?r ?ip ?x VALUES ?ip {{ <{MEMX}subject> <{MEMX}predicate> <{MEMX}object> }} }} ;
DELETE {{ GRAPH ?g {{ ?r ?ip ?x }} }} WHERE {{ GRAPH ?g {{ ?r ?ip ?x VALUES ?ip {{ <{MEMX}subject> <{MEMX}predicate> <{MEMX}object> }} }} }} ;
{insert_update()}"""


def rebuild(store: Store) -> None:
    """Drop every index triple and derive them again, in one atomic update."""
    store.update(REBUILD_UPDATE)
