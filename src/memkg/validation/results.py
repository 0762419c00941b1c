"""Validation results: one broken constraint (Result) and a validation's report; the bottom of the validation package."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

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
from ..core.prefixes import show
from ..core.terms import GraphName, Term
from ..core.vocab import FALSE, MEM, MEMV, PROV, RDF, SH, TRUE, memv, rdf, sh, xsd

ENGINES = ("native", "pyshacl")


# -- results ------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """One validation result, in the original terms (reifier IRIs, triple terms)."""

    focus: Term
    shape: Term  #: the named shape (the invariant) the result belongs to
    #: the SHACL constraint component, e.g. sh:MinCountConstraintComponent (a custom one may be a blank node)
    component: NamedNode | BlankNode
    message: str
    path: Term | str | None = None
    value: Term | None = None
    severity: NamedNode = NamedNode(SH + "Violation")
    source_shape: Term | None = None  #: the (possibly blank) shape that produced it
    graph: GraphName | None = None  #: the tenant graph it was found in
    #: where the focus node's offending triple (or the focus node) is written, for a
    #: validation of files (:mod:`memkg.core.positions`); None for a store's data
    file: str | None = None
    line: int | None = None
    column: int | None = None

    @property
    def where(self) -> str | None:
        """``data.ttl:12:5`` (or ``data.ttl`` when the files never write the focus node)."""
        if self.file is None:
            return None
        return ":".join(str(x) for x in (self.file, self.line, self.column) if x is not None)

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
            where=self.where,
        )


#: Severities that never make data nonconforming (SHACL 1.2 §3.4.4: sh:Debug, sh:Trace).
QUIET_SEVERITIES = frozenset({NamedNode(SH + "Debug"), NamedNode(SH + "Trace")})


@dataclass
class Report:
    """The results of validating files or a store.

    ``allowed``: the severities whose results leave the data conforming; by default only
    sh:Debug and sh:Trace (as pySHACL: a warning fails unless ``--allow-warnings``).
    ``stage``: what was judged, ``"data"``, or ``"shapes"`` when ``--meta-shacl`` refused the
    shapes graph before the data was read.
    """

    results: list[Result] = field(default_factory=list)
    engine: str = "native"
    allowed: frozenset[NamedNode] = QUIET_SEVERITIES
    stage: str = "data"

    @property
    def conforms(self) -> bool:
        return all(r.severity in self.allowed for r in self.results)

    def sorted(self) -> list[Result]:
        """By file and place when they are known (the order of the text), then graph and key."""
        return sorted(self.results, key=lambda r: (r.file or "", r.line or 0, r.column or 0, str(r.graph or ""))
                      + r.key())

    def to_text(self) -> str:
        """One line per result: where (``data.ttl:12:5:``), severity, shape, focus node, path, value, message."""
        lines = []
        for r in self.sorted():
            parts = [r.severity.value.rsplit("#", 1)[-1], show(r.shape, form="exact"), show(r.focus, form="exact")]
            if r.path is not None:
                parts.append(f"path {show(r.path, form='exact')}")
            if r.value is not None:
                parts.append(f"value {show(r.value, form='exact')}")
            if r.graph is not None and not isinstance(r.graph, DefaultGraph):
                parts.append(f"in {show(r.graph, form='exact')}")
            at = f"{r.where}: " if r.where is not None else ""
            lines.append(at + "  ".join(parts) + f": {r.message}")
        verdict = "conforms" if self.conforms else "does not conform"
        if self.results:
            verdict += f", {len(self.results)} result(s)"
        if self.stage == "shapes":
            verdict = "the shapes graph " + verdict + " to SHACL's shapes for shapes (--meta-shacl)"
        lines.append(f"{verdict} ({self.engine} engine)")
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        """The report as JSON; every term a SPARQL 1.1 JSON results term object
        (:func:`memkg.core.json_terms.sparql_term_json`), the message a string."""
        return json.dumps(
            {
                "conforms": self.conforms,
                "engine": self.engine,
                "stage": self.stage,
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
                        "file": r.file,
                        "line": r.line,
                        "column": r.column,
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
            Quad(report, rdf.type, sh.ValidationReport),
            Quad(report, sh.conforms, TRUE if self.conforms else FALSE),
        ]
        for r in self.sorted():
            node = BlankNode()
            quads += [
                Quad(report, sh.result, node),
                Quad(node, rdf.type, sh.ValidationResult),
                Quad(node, sh.focusNode, r.focus),
                Quad(node, sh.resultSeverity, r.severity),
                Quad(node, sh.sourceShape, r.source_shape or r.shape),
                Quad(node, sh.sourceConstraintComponent, r.component),
                Quad(node, sh.resultMessage, Literal(r.message)),
            ]
            if isinstance(r.path, (NamedNode, BlankNode)):
                quads.append(Quad(node, sh.resultPath, r.path))
            if r.value is not None:
                quads.append(Quad(node, sh.value, r.value))
            if r.file is not None:
                quads.append(Quad(node, memv.file, Literal(r.file)))
            if r.line is not None and r.column is not None:
                quads.append(Quad(node, memv.line, Literal(str(r.line), datatype=xsd.integer)))
                quads.append(Quad(node, memv.column, Literal(str(r.column), datatype=xsd.integer)))
        return quads

    def to_turtle(self) -> str:
        prefixes = {"sh": SH, "mem": MEM, "prov": PROV, "rdf": RDF, "memv": MEMV}
        return (serialize([q.triple for q in self.to_quads()], format=RdfFormat.TURTLE, prefixes=prefixes) or b"").decode()
