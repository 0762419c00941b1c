"""The memkg ontology: read from ``ontology/memkg.ttl`` and kept in every store.

Each store holds a copy of the ontology in its own named graph (the ontology's
IRI), so that query templates can follow ``rdf:type/rdfs:subClassOf*`` at query
time instead of materialising inferences over the data (owlrl over the data is
far too slow; over the ontology alone it is cheap). The copy is refreshed when
the ontology's ``owl:versionInfo`` or content changes, and left out of exports
unless asked.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import TYPE_CHECKING

from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, parse, serialize

from ..core.resources import ontology_path
from ..core.vocab import ONTOLOGY_GRAPH, ONTOLOGY_IRI

if TYPE_CHECKING:
    from .backends.base import QuadStore, UpdatableQuadStore

_FINGERPRINT = NamedNode("https://w3id.org/memkg/index#ontologyFingerprint")


@cache
def ontology_text() -> bytes:
    return ontology_path().read_bytes()


def fingerprint() -> str:
    return hashlib.sha256(ontology_text()).hexdigest()


def ontology_quads() -> list[Quad]:
    """The ontology's triples, in the ontology graph."""
    triples = parse(ontology_text(), RdfFormat.TURTLE, base_iri=ONTOLOGY_IRI)
    return [Quad(q.subject, q.predicate, q.object, ONTOLOGY_GRAPH) for q in triples]


def is_current(store: QuadStore) -> bool:
    marker = Quad(ONTOLOGY_GRAPH, _FINGERPRINT, Literal(fingerprint()), ONTOLOGY_GRAPH)
    return marker in store


def install(store: UpdatableQuadStore) -> None:
    """Put the current ontology in ``store``'s ontology graph, replacing an older copy atomically."""
    if is_current(store):
        return
    written = serialize(
        [q.triple for q in ontology_quads()]
        + [Quad(ONTOLOGY_GRAPH, _FINGERPRINT, Literal(fingerprint())).triple],
        format=RdfFormat.N_TRIPLES,
    )
    assert written is not None  # serialize returns the bytes when given no output
    body = written.decode()
    # One update string is one transaction: readers see the old or the new copy.
    store.update(f"DROP SILENT GRAPH <{ONTOLOGY_IRI}> ; INSERT DATA {{ GRAPH <{ONTOLOGY_IRI}> {{ {body} }} }}")
