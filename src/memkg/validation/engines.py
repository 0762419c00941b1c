"""The two validation engines behind :mod:`memkg.validation`, with one result shape.

Both take a pyoxigraph store, the graph to validate (its data graph is that
graph plus the shared ones, see :func:`memkg.validation.data_graph_for`) and
optionally the focus nodes to restrict to, and return
:class:`~memkg.core.errors.Violation` objects in the original RDF 1.2 terms, each
attributed to the *named* shape (the invariant) it belongs to.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from pyoxigraph import BlankNode, NamedNode, Quad, Store

from ..core.errors import Violation
from ..core.terms import GraphName, Term
from ..core.vocab import RDF, SH
from ..core.written import WrittenForms
from ..shacl import Path, Shapes
from .dataset import data_graph_for


def _SH(name: str) -> NamedNode:
    return NamedNode(SH + name)


class ShapeNames:
    """Maps any shape node (a blank property shape, an sh:or member) to its named ancestor."""

    _LINKS = ("property", "node", "not", "qualifiedValueShape", "sparql")
    _LISTS = ("or", "and", "xone")

    def __init__(self, shapes: Sequence[Quad]) -> None:
        parent: dict[Term, Term] = {}
        rest: dict[Term, Term] = {}  # list cell -> the cell or shape that points at it
        for q in shapes:
            p = q.predicate.value
            if p in (SH + link for link in self._LINKS) or p in (SH + lst for lst in self._LISTS):
                parent.setdefault(q.object, q.subject)
            elif p == RDF + "first":
                parent.setdefault(q.object, q.subject)
            elif p == RDF + "rest":
                rest[q.object] = q.subject
        self._parent = {**rest, **parent}

    def named(self, node: Term) -> Term:
        seen = set()
        while isinstance(node, BlankNode) and node in self._parent and node not in seen:
            seen.add(node)
            node = self._parent[node]
        return node


class NativeEngine:
    """Shapes compiled to SPARQL and run inside Oxigraph (:mod:`memkg.shacl`)."""

    name = "native"

    def apply_rules(self, store: Store, graphs: Sequence[GraphName], into: NamedNode, *, max_rounds: int) -> int:
        """The shapes' SHACL-AF rules over the union of ``graphs``, concluded into graph ``into``."""
        return self._shapes.apply_rules(store, default_graph=list(graphs), into=into, max_rounds=max_rounds)

    def __init__(self, shapes: Sequence[Quad], *, file_prefixes: Mapping[str, Collection[str]] | None = None,
                 strict_prefixes: bool = False, advanced: bool = True, always_applied: Collection[Term] = ()) -> None:
        self._quads = list(shapes)
        self._shapes = Shapes.from_quads(self._quads, file_prefixes=file_prefixes, strict_prefixes=strict_prefixes,
                                         advanced=advanced, always_applied=always_applied)
        self._names = ShapeNames(self._quads)

    @property
    def warnings(self) -> list[str]:
        """What the shapes graph was let do beyond SHACL (:attr:`memkg.shacl.Shapes.warnings`)."""
        return self._shapes.warnings

    def rules(self) -> list[tuple[Term, Term]]:
        """(shape, rule node) of every rule of the shapes (:meth:`memkg.shacl.Shapes.rules`)."""
        return self._shapes.rules()

    def validate(
        self, store: Store, graph: GraphName, *, focus: Sequence[Term] | None = None, scan: bool = False,
        written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
        data_graph: Sequence[GraphName] | None = None, shapes: Sequence[Term] | None = None,
    ) -> list[Violation]:
        """``data_graph``: the graphs whose union is the data graph (default: :func:`data_graph_for`);
        ``shapes``: only these named shapes (default: all)."""
        graphs = list(data_graph) if data_graph is not None else data_graph_for(graph)
        report = self._shapes.validate(store, default_graph=graphs, focus=focus, scan=scan,
                                       written=written, progress=progress, shapes=shapes)
        out = []
        for r in report.results:
            # A simple path reports its predicate; a complex one its SPARQL form.
            path = r.path.predicate or str(r.path) if isinstance(r.path, Path) else r.path
            out.append(replace(r, shape=self._names.named(r.source_shape or r.shape), path=path, graph=graph))
        return out
