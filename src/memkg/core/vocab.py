"""Namespaces and the terms memkg's code refers to by name.

The vocabulary itself is defined in ``ontology/memkg.ttl``; this module only
gives Python names to the IRIs the code needs, so that no IRI string is typed
twice.
"""

from __future__ import annotations

from pyoxigraph import NamedNode

MEM = "https://w3id.org/memkg#"
#: The toolkit's own index triples (see :mod:`memkg.store.claim_index`). Never user data.
MEMX = "https://w3id.org/memkg/index#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
SH = "http://www.w3.org/ns/shacl#"

#: The ontology's IRI, and the graph each store keeps its copy of the ontology in.
ONTOLOGY_IRI = "https://w3id.org/memkg"
ONTOLOGY_GRAPH = NamedNode(ONTOLOGY_IRI)

PREFIXES: dict[str, str] = {
    "mem": MEM,
    "prov": PROV,
    "rdf": RDF,
    "rdfs": RDFS,
    "xsd": XSD,
    "owl": OWL,
}


class _Namespace:
    """``MEM_.Claim`` → ``NamedNode("https://w3id.org/memkg#Claim")``."""

    def __init__(self, base: str) -> None:
        self._base = base

    def __getattr__(self, name: str) -> NamedNode:
        # Called only for a name not yet set: the term is kept as an attribute, so that
        # `mem.eventId` in a loop over a load's quads is a plain lookup (0.4 s per 420k).
        if name.startswith("__"):
            raise AttributeError(name)
        term = NamedNode(self._base + name)
        setattr(self, name, term)
        return term

    def __getitem__(self, name: str) -> NamedNode:
        return NamedNode(self._base + name)


mem = _Namespace(MEM)
memx = _Namespace(MEMX)
prov = _Namespace(PROV)
rdf = _Namespace(RDF)
rdfs = _Namespace(RDFS)
xsd = _Namespace(XSD)
owl = _Namespace(OWL)

RDF_TYPE = rdf.type
RDF_REIFIES = rdf.reifies


def sparql_prefixes() -> str:
    """The PREFIX lines for the namespaces above, for query templates built in code."""
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
