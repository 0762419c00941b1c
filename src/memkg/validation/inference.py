"""Inference before validation (pySHACL's ``inference=``), always on a copy of the data.

* ``rdfs``: the RDFS closure that SHACL's targets and paths can see (rules rdfs2, rdfs3,
  rdfs5, rdfs7, rdfs9, rdfs11: domains, ranges, sub-properties, sub-classes), computed
  inside Oxigraph with SPARQL, round after round to a fixpoint;
* ``owlrl``: the OWL 2 RL closure, by ``owlrl`` (as pySHACL computes it), through the one
  rdflib boundary :mod:`memkg.validation.pyshacl_engine`; ``both``: the two, as pySHACL's.

The inferred triples go into a graph of their own beside the data
(:func:`infer_into`), which the validation adds to the data graph: the graphs that were
read are never written. Axiomatic triples (``rdf:type rdfs:Resource`` for everything,
``rdf:_1 a rdfs:ContainerMembershipProperty``…) are left out of ``rdfs``: no shape of
memkg's or the suites' reads them, and they would multiply the data.

>>> from pyoxigraph import NamedNode, Quad, Store
>>> ex = lambda n: NamedNode("http://e/" + n)
>>> rdf_type = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
>>> sub = NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
>>> store = Store()
>>> store.extend([Quad(ex("a"), rdf_type, ex("Cat")), Quad(ex("Cat"), sub, ex("Animal"))])
>>> infer_into(store, [DefaultGraph()], ex("inferred"), "rdfs")
1
>>> [str(q.object) for q in store.quads_for_pattern(ex("a"), rdf_type, None, ex("inferred"))]
['<http://e/Animal>']
"""

from __future__ import annotations

from collections.abc import Sequence

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, QueryTriples, Store, Triple

from ..core.errors import MemkgError
from ..core.terms import GraphName

_RDFS_RULES = """
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
CONSTRUCT { ?s ?p ?o } WHERE {
  {  # rdfs9, rdfs11
    ?s rdf:type ?c0 . ?c0 rdfs:subClassOf+ ?o . BIND(rdf:type AS ?p)
  } UNION {  # rdfs7, rdfs5
    ?s ?p0 ?o . ?p0 rdfs:subPropertyOf+ ?p .
  } UNION {  # rdfs2 (through sub-properties and sub-classes)
    ?s ?p0 ?x . ?p0 rdfs:subPropertyOf* ?q . ?q rdfs:domain ?c0 . ?c0 rdfs:subClassOf* ?o . BIND(rdf:type AS ?p)
  } UNION {  # rdfs3
    ?x ?p0 ?s . FILTER(!isLiteral(?s))
    ?p0 rdfs:subPropertyOf* ?q . ?q rdfs:range ?c0 . ?c0 rdfs:subClassOf* ?o . BIND(rdf:type AS ?p)
  } UNION {  # rdfs5, rdfs11 themselves
    ?s rdfs:subClassOf+ ?o . BIND(rdfs:subClassOf AS ?p)
  } UNION {
    ?s rdfs:subPropertyOf+ ?o . BIND(rdfs:subPropertyOf AS ?p)
  }
}
"""
INFERENCE_KINDS = ("none", "rdfs", "owlrl", "both")


class InferenceError(MemkgError, ValueError):
    """Inference that did not reach a fixpoint within its bound."""


def infer_into(store: Store, graphs: Sequence[GraphName], into: NamedNode, kind: str, *, max_rounds: int = 100) -> int:
    """Add to graph ``into`` of ``store`` what ``kind`` of inference entails from the union
    of ``graphs`` (and ``into``) and is not there yet; the number of triples added.

    Raises :class:`InferenceError` when the closure has not settled after ``max_rounds``
    rounds (each round adds at least one triple, so only a huge closure gets there).
    """
    if kind not in INFERENCE_KINDS:
        raise ValueError(f"unknown inference {kind!r}; expected one of {', '.join(INFERENCE_KINDS)}")
    added = 0
    if kind in ("rdfs", "both"):
        added += _rdfs(store, [*graphs, into], into, max_rounds)
    if kind in ("owlrl", "both"):
        # owlrl and rdflib take most of a second to import: only this kind needs them.
        from .pyshacl_engine import owlrl_closure

        seen = [*graphs, into]
        triples = [q.triple for g in seen for q in store.quads_for_pattern(None, None, None, g)]
        new = [t for t in owlrl_closure(triples) if not _present(store, seen, t)]
        store.extend(Quad(t.subject, t.predicate, t.object, into) for t in new)
        added += len(new)
    return added


def _present(store: Store, graphs: Sequence[NamedNode | BlankNode | DefaultGraph], t: Triple) -> bool:
    return any(next(iter(store.quads_for_pattern(t.subject, t.predicate, t.object, g)), None) is not None
               for g in graphs)


def _rdfs(store: Store, graphs: list[NamedNode | BlankNode | DefaultGraph], into: NamedNode, max_rounds: int) -> int:
    added = 0
    for _ in range(max_rounds):
        found = store.query(_RDFS_RULES, default_graph=graphs)
        assert isinstance(found, QueryTriples)
        new = [t for t in found if not _present(store, graphs, t)]
        if not new:
            return added
        store.extend(Quad(t.subject, t.predicate, t.object, into) for t in new)
        added += len(new)
    raise InferenceError(f"RDFS inference did not reach a fixpoint in {max_rounds} rounds")


__all__ = ["INFERENCE_KINDS", "DefaultGraph", "InferenceError", "infer_into"]
