"""Validation reports (SHACL §3.6): the results of one validation, each a
:class:`~memkg.core.errors.Violation` (the one result type, from the engine to the error).

>>> from pyoxigraph import Literal, NamedNode
>>> from memkg.core.errors import Violation
>>> from memkg.shacl.paths import PredicatePath
>>> from memkg.core.vocab import sh
>>> r = Violation(NamedNode("http://e/S"), NamedNode("http://e/a"), "Value is not an xsd:integer",
...               path=PredicatePath(NamedNode("http://e/age")), value=Literal("x"),
...               component=sh.DatatypeConstraintComponent, source_shape=NamedNode("http://e/S"))
>>> report = ValidationReport(False, (r,))
>>> print(report)
Violation: <http://e/a> path <http://e/age> value "x": Value is not an xsd:integer (shape <http://e/S>, sh:DatatypeConstraintComponent)
>>> "sh:conforms false" in report.serialize("turtle")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    RdfFormat,
    Triple,
    serialize,
)

from ..core.errors import Violation
from ..core.prefixes import show
from ..core.vocab import FALSE, RDF, SH, TRUE, XSD, local_name, rdf, sh
from .paths import Path

_PREFIXES = {"sh": SH, "xsd": XSD, "rdf": RDF}


def result_line(r: Violation) -> str:
    """One result as the engine's report prints it: severity, focus node, path, value, message,
    then the shape and the constraint component."""
    parts = [f"{local_name(r.severity)}: {show(r.focus, form='exact')}"]
    if r.path is not None:
        parts.append(f"path {r.path}")
    if r.value is not None:
        parts.append(f"value {show(r.value, form='exact')}")
    shape = show(r.source_shape or r.shape, form="exact")
    return f"{' '.join(parts)}: {r.message} (shape {shape}, {show(r.component, form='exact')})"


@dataclass(frozen=True)
class ValidationReport:
    """The outcome of :meth:`memkg.shacl.Shapes.validate`.

    ``conforms`` is True iff there are no results (of any severity, as SHACL
    defines it); ``results`` are in a stable order.
    """

    conforms: bool
    results: tuple[Violation, ...]

    def __str__(self) -> str:
        if self.conforms:
            return "Conforms"
        return "\n".join(result_line(r) for r in self.results)

    def __len__(self) -> int:
        return len(self.results)

    def to_quads(self, *, graph_name: NamedNode | BlankNode | DefaultGraph | None = None) -> list[Quad]:
        """The report as a standard ``sh:ValidationReport`` graph."""
        g = graph_name or DefaultGraph()
        triples: list[Triple] = []
        report = BlankNode()
        triples.append(Triple(report, rdf.type, sh.ValidationReport))
        triples.append(Triple(report, sh.conforms, TRUE if self.conforms else FALSE))
        for r in self.results:
            node = BlankNode()
            triples.append(Triple(report, sh.result, node))
            triples.append(Triple(node, rdf.type, sh.ValidationResult))
            triples.append(Triple(node, sh.focusNode, r.focus))
            if isinstance(r.path, Path):
                head, more = r.path.to_triples()
                triples.append(Triple(node, sh.resultPath, head))
                triples.extend(more)
            if r.value is not None:
                triples.append(Triple(node, sh.value, r.value))
            triples.append(Triple(node, sh.sourceShape, r.source_shape or r.shape))
            if r.component is not None:
                triples.append(Triple(node, sh.sourceConstraintComponent, r.component))
            triples.append(Triple(node, sh.resultSeverity, r.severity))
            if r.message:
                triples.append(Triple(node, sh.resultMessage, Literal(r.message, language=r.language)))
            if r.source_constraint is not None:
                triples.append(Triple(node, sh.sourceConstraint, r.source_constraint))
        return [Quad(t.subject, t.predicate, t.object, g) for t in triples]

    def serialize(self, format: Union[RdfFormat, str] = RdfFormat.TURTLE) -> str:  # noqa: A002
        """The report graph as text; ``format`` is an :class:`~pyoxigraph.RdfFormat` or a
        file extension / name such as ``"turtle"``, ``"ttl"``, ``"nt"``, ``"jsonld"``."""
        fmt = _format(format)
        triples = [q.triple for q in self.to_quads()]
        if fmt.supports_datasets:
            data = serialize(self.to_quads(), format=fmt)
        elif fmt in (RdfFormat.TURTLE, RdfFormat.N3):
            data = serialize(triples, format=fmt, prefixes=_PREFIXES)
        else:
            data = serialize(triples, format=fmt)
        assert data is not None
        return data.decode("utf-8")


_NAMES = {"turtle": "ttl", "ntriples": "nt", "n-triples": "nt", "nquads": "nq", "n-quads": "nq",
          "json-ld": "jsonld", "rdfxml": "rdf", "rdf/xml": "rdf", "xml": "rdf"}


def _format(format: Union[RdfFormat, str]) -> RdfFormat:  # noqa: A002
    if isinstance(format, RdfFormat):
        return format
    name = format.lower().lstrip(".")
    fmt = RdfFormat.from_extension(_NAMES.get(name, name)) or RdfFormat.from_media_type(format)
    if fmt is None:
        raise ValueError(f"unknown RDF format {format!r}")
    return fmt
