"""The RDF 1.1 projection of RDF 1.2 data, for rdflib, pySHACL and owlrl.

memkg's data is RDF 1.2: every claim is ``?c rdf:reifies <<( s p o )>>``, whose
object is a *triple term*. pyoxigraph parses and stores triple terms, but
rdflib's model has no triple terms (its parsers reject them), and pySHACL and
owlrl work on rdflib graphs. So before handing data to them we *project* it:
each distinct triple term becomes one ordinary node, described by three edges::

    <urn:memkg:tripleterm:…> a proj:TripleTerm ;
        proj:subject s ; proj:predicate p ; proj:object o .

(``proj:`` is ``https://w3id.org/memkg/projection#``.) The projection keeps
exactly what the tools must see and nothing they must not:

- a triple term is *not* asserted, so the projection never adds ``s p o`` itself;
  a reasoner that sees ``proj:predicate owl:sameAs`` merges nothing;
- shapes can still reach inside a proposition (``rdf:reifies/proj:subject``);
- every projected node maps back to the original pyoxigraph term
  (:meth:`Projection.to_original`), so validation reports and inferences can
  name the user's own terms, triple terms included.

A triple term made only of IRIs and literals becomes the IRI
``urn:memkg:tripleterm:<sha256 of its N-Triples form>``, the same in every
projection. One that contains a blank node becomes a blank node instead, keyed by
the blank node labels of this parse: blank nodes are local to their data, and an
IRI would wrongly identify two different ``<<( _:b ex:p ex:o )>>`` from two
files. Structural edges are written in every graph that uses the triple term, so
each named graph can be validated on its own.

Limitations: rdflib rejects RDF 1.2 directional language tags (``"x"@en--ltr``),
so the direction is carried in a BCP 47 private-use subtag (``en-x-memkgdir-ltr``)
that :func:`from_rdflib_term` turns back (so a data tag that really ends in
``-memkgdir-ltr`` would be misread); likewise a data IRI that starts with
``urn:memkg:tripleterm:``, or one equal to rdflib's default-graph identifier
(``urn:x-rdflib:default``), would be misread on the way back.

>>> from pyoxigraph import RdfFormat, parse
>>> data = '''VERSION "1.2"
... PREFIX ex: <http://example.org/>
... ex:c0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:Lia ex:prefers ex:tea )>> .'''
>>> projection = project(parse(data, format=RdfFormat.TURTLE))
>>> len(projection.dataset)
5
>>> node = projection.dataset.default_graph.value(URIRef("http://example.org/c0"), REIFIES)
>>> projection.to_original(node)
<Triple subject=<NamedNode value=http://example.org/Lia> predicate=<NamedNode value=http://example.org/prefers> object=<NamedNode value=http://example.org/tea>>
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import pyoxigraph as ox
from rdflib import RDF, BNode, Dataset, Namespace, URIRef
from rdflib import Graph as RdflibGraph
from rdflib import Literal as RLiteral
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.term import Identifier

from ..core.terms import GraphName, Term
from ..core.vocab import PROJ

__all__ = [
    "REIFIES",
    "TRIPLE_TERM_IRI_PREFIX",
    "Projection",
    "from_rdflib_term",
    "proj",
    "project",
    "to_rdflib_term",
]

#: The projection's terms as rdflib nodes (``proj:TripleTerm``, ``proj:subject`` …).
proj = Namespace(PROJ)
TRIPLE_TERM_IRI_PREFIX = "urn:memkg:tripleterm:"
#: ``rdf:reifies`` (RDF 1.2); rdflib's closed ``RDF`` namespace does not list it yet.
REIFIES = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
# BCP 47 private-use subtag that carries an RDF 1.2 base direction through rdflib.
_DIRECTION_SUBTAG = "memkgdir"


class Projection:
    """RDF 1.2 quads projected to an :class:`rdflib.Dataset`, with the way back.

    Built by :func:`project`. ``dataset`` holds the same graphs as the input
    (the default graph as rdflib's default graph); ``to_original`` maps any
    node of it back to the pyoxigraph term it stands for.
    """

    def __init__(self) -> None:
        self.dataset: Dataset = Dataset()
        # Projected node -> triple term, and back; only triple terms need a table,
        # every other term converts both ways on its own.
        self._triples: dict[Identifier, ox.Triple] = {}
        self._nodes: dict[ox.Triple, Identifier] = {}
        # (node, graph) pairs whose structural edges are already written.
        self._described: set[tuple[Identifier, Identifier]] = set()
        self._graphs: dict[GraphName, RdflibGraph] = {}

    @property
    def default_graph(self) -> RdflibGraph:
        """The projected default graph (rdflib leaves ``Dataset.default_graph`` untyped)."""
        graph: RdflibGraph = self.dataset.default_graph
        return graph

    def to_original(self, term: Identifier) -> Term | ox.DefaultGraph:
        """The pyoxigraph term a projected node stands for.

        Triple-term nodes give back their :class:`pyoxigraph.Triple`; any other
        rdflib term is converted with :func:`from_rdflib_term`.

        :raises ValueError: if ``term`` is not a valid RDF term for pyoxigraph.
        """
        original = self._triples.get(term)
        return original if original is not None else from_rdflib_term(term)

    def node(self, term: Term) -> Identifier:
        """The projected node of ``term`` in this projection (the inverse of :meth:`to_original`).

        :raises KeyError: if ``term`` is a triple term this projection never saw.
        """
        if isinstance(term, ox.Triple):
            return self._nodes[term]
        return to_rdflib_term(term)

    def add(self, quad: ox.Quad | ox.Triple) -> None:
        """Project one quad (a bare triple goes to the default graph) into ``dataset``."""
        if isinstance(quad, ox.Triple):
            quad = ox.Quad(quad.subject, quad.predicate, quad.object, ox.DefaultGraph())
        graph = self._graph(quad.graph_name)
        graph.add(
            (
                self._project_term(quad.subject, graph),
                to_rdflib_term(quad.predicate),
                self._project_term(quad.object, graph),
            )
        )

    def _graph(self, name: GraphName) -> RdflibGraph:
        graph = self._graphs.get(name)
        if graph is None:
            if isinstance(name, ox.DefaultGraph):
                graph = self.dataset.graph(DATASET_DEFAULT_GRAPH_ID)
            else:
                graph = self.dataset.graph(to_rdflib_term(name))
            self._graphs[name] = graph
        return graph

    def _project_term(self, term: Term, graph: RdflibGraph) -> Identifier:
        if not isinstance(term, ox.Triple):
            return to_rdflib_term(term)
        node = self._nodes.get(term)
        if node is None:
            node = _triple_term_node(term)
            self._nodes[term] = node
            self._triples[node] = term
        if (node, graph.identifier) not in self._described:
            self._described.add((node, graph.identifier))
            # Nested triple terms are described in the same graph, recursively.
            graph.add((node, RDF.type, proj.TripleTerm))
            graph.add((node, proj.subject, self._project_term(term.subject, graph)))
            graph.add((node, proj.predicate, to_rdflib_term(term.predicate)))
            graph.add((node, proj.object, self._project_term(term.object, graph)))
        return node


def project(quads: Iterable[ox.Quad | ox.Triple]) -> Projection:
    """Project RDF 1.2 quads (triple terms allowed) into an RDF 1.1 :class:`Projection`.

    ``quads`` may be anything that yields pyoxigraph quads: :func:`pyoxigraph.parse`,
    ``Store.quads_from_pattern(None, None, None)``, a list.

    >>> from pyoxigraph import NamedNode, Quad
    >>> ex = "http://example.org/"
    >>> q = Quad(NamedNode(ex + "Lia"), NamedNode(ex + "likes"), NamedNode(ex + "tea"))
    >>> len(project([q]).dataset)
    1
    """
    projection = Projection()
    for quad in quads:
        projection.add(quad)
    return projection


def _triple_term_node(triple: ox.Triple) -> Identifier:
    # The N-Triples form names the term exactly (IRIs, literals, nested terms), so
    # its hash is a stable name. Blank node labels only mean something within one
    # parse, so such terms get a blank node: their identity stays local too.
    digest = hashlib.sha256(f"<<( {triple} )>>".encode()).hexdigest()
    if _has_blank_node(triple):
        return BNode(f"tt{digest}")
    return URIRef(TRIPLE_TERM_IRI_PREFIX + digest)


def _has_blank_node(triple: ox.Triple) -> bool:
    return any(
        isinstance(t, ox.BlankNode) or (isinstance(t, ox.Triple) and _has_blank_node(t))
        for t in (triple.subject, triple.object)
    )


def to_rdflib_term(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.DefaultGraph) -> Identifier:
    """Convert a pyoxigraph term to the equal rdflib term, exactly.

    Literals keep their lexical form (rdflib would otherwise normalise ``"01"``
    to ``"1"``), datatype and language; ``xsd:string`` literals become rdflib's
    plain literals, which is how rdflib's own parsers represent them.
    Triple terms need a :class:`Projection`.

    >>> to_rdflib_term(ox.Literal("01", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
    rdflib.term.Literal('01', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))

    :raises TypeError: for a triple term or anything that is not a pyoxigraph term.
    """
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language is not None:
            language = term.language
            if term.direction is not None:
                language = _encode_direction(language, str(term.direction))
            return RLiteral(term.value, lang=language)
        if term.datatype.value == _XSD_STRING:
            return RLiteral(term.value)
        return RLiteral(term.value, datatype=URIRef(term.datatype.value), normalize=False)
    if isinstance(term, ox.DefaultGraph):
        return DATASET_DEFAULT_GRAPH_ID
    if isinstance(term, ox.Triple):
        raise TypeError("a triple term has no RDF 1.1 form on its own; use project()")
    raise TypeError(f"not a pyoxigraph term: {term!r}")


def from_rdflib_term(term: Identifier) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.DefaultGraph:
    """Convert an rdflib term back to the equal pyoxigraph term (inverse of :func:`to_rdflib_term`).

    >>> from_rdflib_term(RLiteral("thé", lang="fr"))
    <Literal value=thé language=fr>

    :raises ValueError: if pyoxigraph rejects the IRI, blank node label or language tag.
    :raises TypeError: for anything that is not an rdflib IRI, blank node or literal.
    """
    if isinstance(term, URIRef):
        if term == DATASET_DEFAULT_GRAPH_ID:
            return ox.DefaultGraph()
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, RLiteral):
        lexical = str(term)
        if term.language is not None:
            language, direction = _decode_direction(term.language)
            if direction is not None:
                return ox.Literal(lexical, language=language, direction=ox.BaseDirection(direction))
            return ox.Literal(lexical, language=language)
        if term.datatype is None:
            return ox.Literal(lexical)
        return ox.Literal(lexical, datatype=ox.NamedNode(str(term.datatype)))
    raise TypeError(f"not an rdflib IRI, blank node or literal: {term!r}")


def _encode_direction(language: str, direction: str) -> str:
    # "en" + ltr -> "en-x-memkgdir-ltr"; a tag that already has a private-use
    # part ("en-x-foo") gets the two subtags appended to it.
    has_private_use = "x" in language.lower().split("-")
    return f"{language}{'' if has_private_use else '-x'}-{_DIRECTION_SUBTAG}-{direction}"


def _decode_direction(language: str) -> tuple[str, str | None]:
    subtags = language.split("-")
    if len(subtags) >= 3 and subtags[-2].lower() == _DIRECTION_SUBTAG and subtags[-1].lower() in ("ltr", "rtl"):
        base = subtags[:-2]
        if base[-1].lower() == "x":  # the private-use part held only the direction
            base = base[:-1]
        return "-".join(base), subtags[-1].lower()
    return language, None
