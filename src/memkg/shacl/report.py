"""Validation results and reports (SHACL §3.6).

>>> from pyoxigraph import Literal, NamedNode
>>> from memkg.shacl.paths import PredicatePath
>>> from memkg.core.vocab import sh
>>> r = ValidationResult(NamedNode("http://e/a"), PredicatePath(NamedNode("http://e/age")), Literal("x"),
...                      NamedNode("http://e/S"), sh.DatatypeConstraintComponent, sh.Violation,
...                      Literal("Value is not an xsd:integer"), None)
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

from ..core.prefixes import show
from ..core.terms import Term
from ..core.vocab import FALSE, RDF, SH, TRUE, XSD, local_name, rdf, sh
from .paths import Path

_PREFIXES = {"sh": SH, "xsd": XSD, "rdf": RDF}


@dataclass(frozen=True)
class ValidationResult:
    """One validation result: which focus node, along which path, which value,
    which shape and constraint component, how severe, and why.

    ``path`` is a :class:`~memkg.shacl.paths.Path` (``str(path)`` is its SPARQL
    form) or None for results of node shapes.
    """

    focus: Term
    path: Path | None
    value: Term | None
    source_shape: NamedNode | BlankNode
    component: NamedNode | BlankNode
    severity: NamedNode
    message: Literal | None
    source_constraint: Term | None = None

    def __str__(self) -> str:
        parts = [f"{local_name(self.severity)}: {show(self.focus, form='exact')}"]
        if self.path is not None:
            parts.append(f"path {self.path}")
        if self.value is not None:
            parts.append(f"value {show(self.value, form='exact')}")
        text = " ".join(parts)
        msg = self.message.value if self.message is not None else ""
        return f"{text}: {msg} (shape {show(self.source_shape, form='exact')}, {show(self.component, form='exact')})"


@dataclass(frozen=True)
class ValidationReport:
    """The outcome of :meth:`memkg.shacl.Shapes.validate`.

    ``conforms`` is True iff there are no results (of any severity, as SHACL
    defines it); ``results`` are in a stable order.
    """

    conforms: bool
    results: tuple[ValidationResult, ...]

    def __str__(self) -> str:
        if self.conforms:
            return "Conforms"
        return "\n".join(str(r) for r in self.results)

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
            if r.path is not None:
                head, more = r.path.to_triples()
                triples.append(Triple(node, sh.resultPath, head))
                triples.extend(more)
            if r.value is not None:
                triples.append(Triple(node, sh.value, r.value))
            triples.append(Triple(node, sh.sourceShape, r.source_shape))
            triples.append(Triple(node, sh.sourceConstraintComponent, r.component))
            triples.append(Triple(node, sh.resultSeverity, r.severity))
            if r.message is not None:
                triples.append(Triple(node, sh.resultMessage, r.message))
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
