"""The reference engine: pySHACL over the RDF 1.1 projection of the data.

The one module of memkg that calls rdflib, pySHACL and owlrl: terms go in and come out as
pyoxigraph's, through the projection (:mod:`memkg.validation.projection`). It is imported
only when the engine is asked for (:func:`memkg.validation.make_engine`), as these
libraries take most of a second to import.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cached_property

import owlrl
import pyshacl
from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store, Triple
from rdflib import RDF as RDFNS
from rdflib import Graph as RdflibGraph
from rdflib import Namespace, URIRef
from rdflib.term import Identifier, Node

from ..core.errors import Violation
from ..core.terms import GraphName, Term
from ..core.vocab import PROJ, SH
from ..core.written import WrittenForms
from ..store.ontology import ontology_quads
from .dataset import data_graph_for
from .engines import _SH, ShapeNames
from .projection import Projection, project


class PyshaclEngine:
    """pySHACL over the RDF 1.1 projection of the data: the reference engine.

    pySHACL cannot read triple terms, so the data is projected
    (:mod:`memkg.validation.projection`) and every result mapped back. The SHACL 1.2 node
    kind ``sh:TripleTerm`` becomes ``sh:class proj:TripleTerm`` on the
    projection, and its results are reported under the node-kind component
    again. The ontology's OWL-RL closure (computed once, on the ontology alone:
    owlrl over data is far too slow) is mixed into every data graph.

    pySHACL validates a single rdflib graph, so a SHACL-SPARQL constraint that
    reads other graphs (``GRAPH``; memkg's tenant-isolation shape) cannot run
    there: such shapes are listed in :attr:`unsupported` and left out.
    """

    name = "pyshacl"
    #: pySHACL reports nothing it lets pass beyond SHACL.
    warnings: list[str] = []

    def __init__(self, shapes: Sequence[Quad]) -> None:
        self._quads = list(shapes)
        self._names = ShapeNames(self._quads)
        needs_graphs = {
            q.subject
            for q in self._quads
            if q.predicate == _SH("select") and not isinstance(q.object, Triple)
            and re.search(r"\bGRAPH\b", q.object.value, re.IGNORECASE)
        }
        #: Named shapes this engine cannot check (they read other graphs).
        self.unsupported = {self._names.named(c) for c in needs_graphs}

    @cached_property
    def _shapes_graph(self) -> RdflibGraph:
        rewritten: list[Quad] = []
        self._triple_term_shapes: set[Term] = set()
        for q in self._quads:
            if q.subject in self.unsupported:
                continue
            if q.predicate == _SH("nodeKind") and q.object == _SH("TripleTerm"):
                self._triple_term_shapes.add(q.subject)
                rewritten.append(Quad(q.subject, _SH("class"), NamedNode(PROJ + "TripleTerm"), q.graph_name))
            else:
                rewritten.append(q)
        return project(rewritten).default_graph

    @cached_property
    def _ontology_closure(self) -> RdflibGraph:
        graph = project([Quad(q.subject, q.predicate, q.object) for q in ontology_quads()]).default_graph
        owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
        return graph

    def validate(
        self, store: Store, graph: GraphName, *, focus: Sequence[Term] | None = None, scan: bool = False,
        written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
        data_graph: Sequence[GraphName] | None = None, shapes: Sequence[Term] | None = None,
    ) -> list[Violation]:
        """``scan`` is the native engine's evaluation strategy; pySHACL has its own.
        ``written``: the data's literals as written, given to pySHACL in place of the stored ones.
        ``progress`` is told when pySHACL starts (it reports nothing while it runs)."""
        if progress is not None:
            progress("pySHACL…")
        shapes_graph = self._shapes_graph
        data = []
        for g in data_graph if data_graph is not None else data_graph_for(graph):
            data += [Quad(q.subject, q.predicate, q.object) for q in store.quads_for_pattern(None, None, None, g)
                     if not (written and written.values([g], q.subject, q.predicate) is not None)]
            if written:
                data += [Quad(s, p, o) for s, p, o in written.triples([g])]
        projection = project(data)
        rdf_data = projection.default_graph
        focus_nodes: list[str | URIRef] | None = None
        if focus is not None:
            focus_nodes = [projection.node(f) for f in focus]
            if not focus_nodes:
                return []
            if any(isinstance(f, BlankNode) for f in focus):
                focus_nodes = None  # pySHACL names focus nodes by IRI only: validate all, keep the focus nodes' below
        _, results_graph, _ = pyshacl.validate(
            rdf_data,
            shacl_graph=shapes_graph,
            ont_graph=self._ontology_closure,
            inference="none",
            advanced=True,
            allow_warnings=True,
            focus_nodes=focus_nodes,
            use_shapes=[projection.node(s) for s in shapes] if shapes is not None else None,
        )
        sh = Namespace(SH)
        out: list[Violation] = []
        for node in results_graph.subjects(RDFNS.type, sh.ValidationResult):
            read = _ReportedResult(results_graph, node, projection)
            source = read.term(sh.sourceShape)
            component = read.resource(sh.sourceConstraintComponent)
            if source in self._triple_term_shapes and component == _SH("ClassConstraintComponent"):
                component = _SH("NodeKindConstraintComponent")
            out.append(
                Violation(
                    focus=read.term(sh.focusNode),
                    shape=self._names.named(source),
                    component=component,
                    message=str(read.value(sh.resultMessage) or ""),
                    path=read.optional_term(sh.resultPath),
                    value=read.optional_term(sh.value),
                    severity=read.iri(sh.resultSeverity),
                    source_shape=source,
                    graph=graph,
                )
            )
        if focus is not None and focus_nodes is None:
            wanted = set(focus)
            out = [r for r in out if r.focus in wanted]
        return out


class _ReportedResult:
    """One ``sh:ValidationResult`` of pySHACL's report, read back in pyoxigraph's terms."""

    def __init__(self, report: RdflibGraph, node: Node, projection: Projection) -> None:
        self._report, self._node, self._projection = report, node, projection

    def value(self, predicate: URIRef) -> Node | None:
        """The rdflib node the report gives for ``predicate``, as it is."""
        return self._report.value(self._node, predicate)

    def optional_term(self, predicate: URIRef) -> Term | None:
        value = self.value(predicate)
        if value is None:
            return None
        if not isinstance(value, Identifier):
            raise TypeError(f"pySHACL's report gives {value!r} for {predicate}, not an RDF term")
        original = self._projection.to_original(value)
        if isinstance(original, DefaultGraph):
            raise ValueError(f"pySHACL's report gives rdflib's default graph for {predicate}")
        return original

    def term(self, predicate: URIRef) -> Term:
        original = self.optional_term(predicate)
        if original is None:
            raise TypeError(f"pySHACL's report gives no {predicate} for a result")
        return original

    def resource(self, predicate: URIRef) -> NamedNode | BlankNode:
        original = self.term(predicate)
        if not isinstance(original, (NamedNode, BlankNode)):
            raise TypeError(f"pySHACL's report gives {original} for {predicate}, not an IRI or blank node")
        return original

    def iri(self, predicate: URIRef) -> NamedNode:
        original = self.resource(predicate)
        if not isinstance(original, NamedNode):
            raise TypeError(f"pySHACL's report gives {original} for {predicate}, not an IRI")
        return original


def owlrl_closure(triples: Sequence[Triple]) -> list[Triple]:
    """The triples the OWL 2 RL closure of ``triples`` adds (owlrl, as pySHACL's ``inference="owlrl"``),
    mapped back to pyoxigraph's terms; triple terms travel through the projection."""
    projection = project(triples)
    graph = projection.default_graph
    before = set(graph)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    out: list[Triple] = []
    for s, p, o in set(graph) - before:
        if not (isinstance(s, Identifier) and isinstance(p, Identifier) and isinstance(o, Identifier)):
            continue  # rdflib's node type admits graphs (N3 formulae), which owlrl never adds
        subject, predicate, obj = projection.to_original(s), projection.to_original(p), projection.to_original(o)
        if isinstance(obj, DefaultGraph) or isinstance(subject, (Literal, DefaultGraph)) \
                or not isinstance(predicate, NamedNode):
            continue  # owlrl's generalised triples (a literal subject) have no RDF form
        out.append(Triple(subject, predicate, obj))
    return out
