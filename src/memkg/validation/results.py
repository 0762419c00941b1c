"""Validation results: one broken constraint (Result) and a validation's report; the bottom of the validation package."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    RdfFormat,
    serialize,
)

from ..core.errors import Violation
from ..core.json_terms import sparql_term_json as term
from ..core.terms import Graph as Graph  # re-exported for the validation modules
from ..core.terms import Term as Term
from ..core.vocab import MEM, MEMX, PROV, RDF, SH, rdf

if TYPE_CHECKING:
    pass

ENGINES = ("native", "pyshacl")


# -- results ------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """One validation result, in the original terms (reifier IRIs, triple terms)."""

    focus: Term
    shape: Term  #: the named shape (the invariant) the result belongs to
    component: NamedNode  #: the SHACL constraint component, e.g. sh:MinCountConstraintComponent
    message: str
    path: Term | str | None = None
    value: Term | None = None
    severity: NamedNode = NamedNode(SH + "Violation")
    source_shape: Term | None = None  #: the (possibly blank) shape that produced it
    graph: Graph | None = None  #: the tenant graph it was found in

    def key(self) -> tuple[str, str, str, str, str]:
        """What identifies a result across engines: focus, path, value, shape, component."""
        return (str(self.focus), str(self.path or ""), str(self.value or ""), str(self.shape), str(self.component))

    def violation(self) -> Violation:
        return Violation(
            shape=str(self.shape),
            focus=str(self.focus),
            message=self.message,
            path=str(self.path) if self.path is not None else None,
            value=str(self.value) if self.value is not None else None,
            severity=self.severity.value.rsplit("#", 1)[-1],
        )


@dataclass
class Report:
    """The results of validating files or a store."""

    results: list[Result] = field(default_factory=list)
    engine: str = "native"

    @property
    def conforms(self) -> bool:
        return not any(r.severity.value == SH + "Violation" for r in self.results)

    def sorted(self) -> list[Result]:
        return sorted(self.results, key=lambda r: (str(r.graph or ""),) + r.key())

    def to_text(self) -> str:
        """One line per result: severity, shape, focus node, path, value, message."""
        lines = []
        for r in self.sorted():
            parts = [r.severity.value.rsplit("#", 1)[-1], _short(r.shape), _short(r.focus)]
            if r.path is not None:
                parts.append(f"path {_short(r.path)}")
            if r.value is not None:
                parts.append(f"value {_short(r.value)}")
            if r.graph is not None and not isinstance(r.graph, DefaultGraph):
                parts.append(f"in {_short(r.graph)}")
            lines.append("  ".join(parts) + f": {r.message}")
        verdict = "conforms" if self.conforms else f"{len(self.results)} result(s)"
        lines.append(f"{verdict} ({self.engine} engine)")
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        """The report as JSON; every term a SPARQL 1.1 JSON results term object
        (:func:`memkg.core.json_terms.sparql_term_json`), the message a string."""
        return json.dumps(
            {
                "conforms": self.conforms,
                "engine": self.engine,
                "results": [
                    {
                        "severity": term(r.severity),
                        "shape": term(r.shape),
                        "focusNode": term(r.focus),
                        "resultPath": term(r.path),
                        "value": term(r.value),
                        "sourceConstraintComponent": term(r.component),
                        "sourceShape": term(r.source_shape),
                        "graph": term(r.graph),
                        "message": r.message,
                    }
                    for r in self.sorted()
                ],
            },
            indent=2,
        )

    def to_quads(self) -> list[Quad]:
        """A standard ``sh:ValidationReport``."""
        report = BlankNode()
        quads = [
            Quad(report, rdf.type, NamedNode(SH + "ValidationReport")),
            Quad(report, NamedNode(SH + "conforms"), Literal("true" if self.conforms else "false",
                                                             datatype=NamedNode("http://www.w3.org/2001/XMLSchema#boolean"))),
        ]
        for r in self.sorted():
            node = BlankNode()
            quads += [
                Quad(report, NamedNode(SH + "result"), node),
                Quad(node, rdf.type, NamedNode(SH + "ValidationResult")),
                Quad(node, NamedNode(SH + "focusNode"), r.focus),
                Quad(node, NamedNode(SH + "resultSeverity"), r.severity),
                Quad(node, NamedNode(SH + "sourceShape"), r.source_shape or r.shape),
                Quad(node, NamedNode(SH + "sourceConstraintComponent"), r.component),
                Quad(node, NamedNode(SH + "resultMessage"), Literal(r.message)),
            ]
            if isinstance(r.path, (NamedNode, BlankNode)):
                quads.append(Quad(node, NamedNode(SH + "resultPath"), r.path))
            if r.value is not None:
                quads.append(Quad(node, NamedNode(SH + "value"), r.value))
        return quads

    def to_turtle(self) -> str:
        prefixes = {"sh": SH, "mem": MEM, "prov": PROV, "rdf": RDF}
        return (serialize([q.triple for q in self.to_quads()], format=RdfFormat.TURTLE, prefixes=prefixes) or b"").decode()


def _short(term: Any) -> str:
    if isinstance(term, NamedNode):
        for prefix, ns in (("mem", MEM), ("memx", MEMX), ("prov", PROV), ("rdf", RDF), ("sh", SH)):
            if term.value.startswith(ns):
                return f"{prefix}:{term.value[len(ns):]}"
        return f"<{term.value}>"
    return str(term)
