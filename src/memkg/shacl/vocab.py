"""The SHACL, RDF and XSD terms the engine refers to by name.

>>> SH.minCount
<NamedNode value=http://www.w3.org/ns/shacl#minCount>
>>> XSD.integer.value
'http://www.w3.org/2001/XMLSchema#integer'
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode

SH_NS = "http://www.w3.org/ns/shacl#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_NS = "http://www.w3.org/2000/01/rdf-schema#"
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
OWL_NS = "http://www.w3.org/2002/07/owl#"
#: The engine's own extension of SHACL-SPARQL (see ``components/sparql.py``: ``shx:selectAll``).
SHX_NS = "https://w3id.org/memkg/shacl#"

#: Where the spec paragraphs live; ShapeError messages link to them.
SHACL_SPEC = "https://www.w3.org/TR/shacl/"
SHACL12_SPEC = "https://w3c.github.io/data-shapes/shacl12-core/"


class Namespace:
    """Attribute access to the terms of one namespace: ``SH.node``."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._cache: dict[str, NamedNode] = {}

    def __getattr__(self, name: str) -> NamedNode:
        if name.startswith("__"):
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, name: str) -> NamedNode:
        term = self._cache.get(name)
        if term is None:
            term = self._cache[name] = NamedNode(self.base + name)
        return term


SH = Namespace(SH_NS)
RDF = Namespace(RDF_NS)
RDFS = Namespace(RDFS_NS)
XSD = Namespace(XSD_NS)
OWL = Namespace(OWL_NS)
SHX = Namespace(SHX_NS)

TRUE = Literal("true", datatype=XSD.boolean)
FALSE = Literal("false", datatype=XSD.boolean)


def local_name(iri: NamedNode) -> str:
    """The part after ``#`` or the last ``/``: ``sh:minCount`` → ``minCount``.

    >>> local_name(SH.ClassConstraintComponent)
    'ClassConstraintComponent'
    """
    value = iri.value
    for sep in ("#", "/"):
        if sep in value:
            return value.rsplit(sep, 1)[1]
    return value


def short(term: object) -> str:
    """A compact rendering for messages: ``sh:``, ``xsd:``, ``rdf:`` IRIs are abbreviated.

    >>> short(XSD.integer), short(NamedNode("http://example.org/a"))
    ('xsd:integer', '<http://example.org/a>')
    """
    if isinstance(term, NamedNode):
        for prefix, ns in (("sh", SH_NS), ("xsd", XSD_NS), ("rdf", RDF_NS), ("rdfs", RDFS_NS), ("owl", OWL_NS)):
            if term.value.startswith(ns):
                return f"{prefix}:{term.value[len(ns):]}"
        return f"<{term.value}>"
    return str(term)
