"""Namespaces and the terms memkg's code refers to by name: the one vocabulary module.

The vocabulary itself is defined in ``ontology/memkg.ttl`` (and SHACL's by the W3C); this
module only gives Python names to the IRIs the code needs, so that no IRI string is typed
twice. One convention throughout: ``MEM``, ``SH``, ``XSD`` … are namespace IRIs as text;
``mem``, ``sh``, ``xsd`` … give their terms as nodes (``sh.minCount``).

>>> sh.minCount
<NamedNode value=http://www.w3.org/ns/shacl#minCount>
>>> xsd.integer.value == XSD + "integer"
True
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode

MEM = "https://w3id.org/memkg#"
#: The toolkit's own index triples (see :mod:`memkg.store.claim_index`). Never user data.
MEMX = "https://w3id.org/memkg/index#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
SH = "http://www.w3.org/ns/shacl#"
#: The few terms the framework adapters add (:mod:`memkg.integrations`): a framework's own
#: record of an item, LangGraph's items and their values.
MEMI = "https://w3id.org/memkg/integrations#"
#: The native SHACL engine's own extension of SHACL-SPARQL (``shx:selectAll``, :mod:`memkg.shacl`).
SHX = "https://w3id.org/memkg/shacl#"
#: Where a validation result was written, in a Turtle report: ``memv:file``, ``memv:line``, ``memv:column``.
MEMV = "https://w3id.org/memkg/validation#"
#: The terms of the RDF 1.1 projection pySHACL validates (:mod:`memkg.validation.projection`).
PROJ = "https://w3id.org/memkg/projection#"
#: SHACL 1.2 node expressions' parameters (``shnex:``), and the SPARQL functions they call (``sparql:``).
SHNEX = "http://www.w3.org/ns/shacl-node-expr#"
SPARQL_FUNCTIONS = "http://www.w3.org/ns/sparql#"
#: Vocabularies whose names recall reads as a vertex's names (``skos:prefLabel``, ``foaf:name``).
SKOS = "http://www.w3.org/2004/02/skos/core#"
FOAF = "http://xmlns.com/foaf/0.1/"

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


class Namespace:
    """Attribute access to the terms of one namespace: ``mem.Claim`` → ``NamedNode("https://w3id.org/memkg#Claim")``."""

    def __init__(self, base: str) -> None:
        self.base = base

    def __getattr__(self, name: str) -> NamedNode:
        # Called only for a name not yet set: the term is kept as an attribute, so that
        # `mem.eventId` in a loop over a load's quads is a plain lookup (0.4 s per 420k).
        if name.startswith("__"):
            raise AttributeError(name)
        term = NamedNode(self.base + name)
        setattr(self, name, term)
        return term

    def __getitem__(self, name: str) -> NamedNode:
        return NamedNode(self.base + name)


mem = Namespace(MEM)
memx = Namespace(MEMX)
prov = Namespace(PROV)
rdf = Namespace(RDF)
rdfs = Namespace(RDFS)
xsd = Namespace(XSD)
owl = Namespace(OWL)
sh = Namespace(SH)
shx = Namespace(SHX)
memi = Namespace(MEMI)
memv = Namespace(MEMV)
skos = Namespace(SKOS)
foaf = Namespace(FOAF)

RDF_TYPE = rdf.type
RDF_REIFIES = rdf.reifies

TRUE = Literal("true", datatype=xsd.boolean)
FALSE = Literal("false", datatype=xsd.boolean)

#: Where the SHACL spec paragraphs live; ShapeError messages link to them.
SHACL_SPEC = "https://www.w3.org/TR/shacl/"
SHACL12_SPEC = "https://w3c.github.io/data-shapes/shacl12-core/"
SHACL12_NODE_EXPR_SPEC = "https://w3c.github.io/data-shapes/shacl12-node-expr/"


def sparql_prefixes() -> str:
    """The PREFIX lines for the namespaces above, for query templates built in code."""
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())


def local_name(iri: NamedNode) -> str:
    """The part after ``#`` or the last ``/``: ``sh:minCount`` → ``minCount``.

    >>> local_name(sh.ClassConstraintComponent)
    'ClassConstraintComponent'
    """
    value = iri.value
    for sep in ("#", "/"):
        if sep in value:
            return value.rsplit(sep, 1)[1]
    return value
