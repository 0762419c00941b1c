"""A validation's report: its results (each a :class:`~memkg.core.errors.Violation`, the one result
type from the engine to the error) as text, JSON and a SHACL report graph; the bottom of the validation package."""

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
from ..core.vocab import FALSE, MEM, MEMV, PROV, RDF, SH, TRUE, memv, rdf, sh, xsd

ENGINES = ("native", "pyshacl")


#: Severities that never make data nonconforming (SHACL 1.2 §3.4.4: sh:Debug, sh:Trace).
QUIET_SEVERITIES = frozenset({sh.Debug, sh.Trace})


@dataclass(frozen=True)
class Extent:
    """How much a whole-store validation judged, and how long it took: its summary line."""

    claims: int  #: the store's claims (``mem:Claim`` typings outside the ontology graph)
    quads: int  #: the store's quads outside the ontology graph, the claim index included
    seconds: float  #: from opening the store's data to the last result


@dataclass
class Report:
    """The results of validating files or a store.

    ``allowed``: the severities whose results leave the data conforming; by default only
    sh:Debug and sh:Trace (as pySHACL: a warning fails unless ``--allow-warnings``).
    ``stage``: what was judged, ``"data"``, or ``"shapes"`` when ``--meta-shacl`` refused the
    shapes graph before the data was read.
    ``warnings``: what the shapes graph was let do beyond SHACL, for stderr (never a result).
    """

    results: list[Violation] = field(default_factory=list)
    engine: str = "native"
    allowed: frozenset[NamedNode] = QUIET_SEVERITIES
    stage: str = "data"
    #: What the shapes graph was let do beyond SHACL (a prefix borrowed from a shapes file), one line each.
    warnings: list[str] = field(default_factory=list)
    #: What a whole-store validation judged (None for files).
    extent: Extent | None = None

    @property
    def conforms(self) -> bool:
        return all(r.severity in self.allowed for r in self.results)

    def summary(self) -> str:
        """One line: the verdict, with what was judged and how long it took when known.

        >>> Report(extent=Extent(claims=50_000, quads=557_511, seconds=9.84)).summary()
        'conforms: 50,000 claims, 557,511 quads, 0 results in 9.8 s (native engine)'
        """
        verdict = "conforms" if self.conforms else "does not conform"
        judged = "" if self.extent is None else f"{self.extent.claims:,} claims, {self.extent.quads:,} quads, "
        took = "" if self.extent is None else f" in {self.extent.seconds:.1f} s"
        count = len(self.results)
        return f"{verdict}: {judged}{count:,} result{'' if count == 1 else 's'}{took} ({self.engine} engine)"

    def sorted(self) -> list[Violation]:
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
                *([Quad(node, sh.sourceConstraintComponent, r.component)] if r.component is not None else []),
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
