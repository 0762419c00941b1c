"""SHACL property paths (SHACL §2.3.1) as Python values that render to SPARQL.

A path parsed from the shapes graph becomes one of the frozen dataclasses below.
:meth:`Path.sparql` gives the SPARQL property path, :meth:`Path.to_triples`
the SHACL encoding for a validation report.

>>> from pyoxigraph import NamedNode
>>> p, q = NamedNode("http://e/p"), NamedNode("http://e/q")
>>> SequencePath((PredicatePath(p), ZeroOrMorePath(InversePath(PredicatePath(q))))).sparql()
'(<http://e/p>/((^<http://e/q>))*)'
>>> str(AlternativePath((PredicatePath(p), PredicatePath(q))))
'(<http://e/p>|<http://e/q>)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pyoxigraph import BlankNode, NamedNode, Triple

from ..core.terms import Term
from ..core.vocab import SHACL_SPEC, rdf, sh
from .errors import ShapeError
from .graph import ShapesGraph

_RULE = "SHACL §2.3.1 SHACL property paths"
_LINK = SHACL_SPEC + "#property-paths"


class Path:
    """Base class of the SHACL path forms."""

    #: Whether the values are computed (``sh:values``) rather than read along a property path.
    computed: ClassVar[bool] = False

    def sparql(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __str__(self) -> str:
        return self.sparql()

    def pattern(self, subject: str, obj: str) -> str:
        """A SPARQL pattern binding the fresh variable ``obj`` to the values of ``subject``."""
        return f"{subject} {self.sparql()} {obj} ."

    def has_value(self, subject: str, term: str, fresh: str) -> str:
        """A pattern with a solution iff ``term`` (a bound variable or a constant) is a value of
        ``subject``; ``fresh`` is a variable name free for the pattern's use."""
        return f"{subject} {self.sparql()} {term} ."

    def to_triples(self) -> tuple[Term, list[Triple]]:
        """The node that encodes this path in a report graph, and its triples."""
        raise NotImplementedError  # pragma: no cover - abstract

    @property
    def predicate(self) -> NamedNode | None:
        """The IRI of a predicate path, else None."""
        return None


@dataclass(frozen=True)
class PredicatePath(Path):
    """An IRI: the values of that property."""

    iri: NamedNode

    def sparql(self) -> str:
        return str(self.iri)

    def to_triples(self) -> tuple[Term, list[Triple]]:
        return self.iri, []

    @property
    def predicate(self) -> NamedNode | None:
        return self.iri


def _list_triples(items: list[Term]) -> tuple[Term, list[Triple]]:
    head: Term = rdf.nil
    triples: list[Triple] = []
    for item in reversed(items):
        node = BlankNode()
        triples.append(Triple(node, rdf.first, item))
        triples.append(Triple(node, rdf.rest, head))
        head = node
    return head, triples


def _members_to_triples(paths: tuple[Path, ...]) -> tuple[Term, list[Triple]]:
    nodes, triples = [], []
    for p in paths:
        n, t = p.to_triples()
        nodes.append(n)
        triples.extend(t)
    head, more = _list_triples(nodes)
    return head, triples + more


@dataclass(frozen=True)
class SequencePath(Path):
    """A SHACL list of two or more paths, followed one after the other."""

    steps: tuple[Path, ...]

    def sparql(self) -> str:
        return "(" + "/".join(s.sparql() for s in self.steps) + ")"

    def to_triples(self) -> tuple[Term, list[Triple]]:
        return _members_to_triples(self.steps)


@dataclass(frozen=True)
class AlternativePath(Path):
    """``sh:alternativePath``: the union of two or more paths."""

    options: tuple[Path, ...]

    def sparql(self) -> str:
        return "(" + "|".join(s.sparql() for s in self.options) + ")"

    def to_triples(self) -> tuple[Term, list[Triple]]:
        node = BlankNode()
        head, triples = _members_to_triples(self.options)
        return node, [Triple(node, sh.alternativePath, head), *triples]


@dataclass(frozen=True)
class _Unary(Path):
    inner: Path
    _PREDICATE = sh.inversePath
    _FORMAT = "{}"

    def sparql(self) -> str:
        return self._FORMAT.format(self.inner.sparql())

    def to_triples(self) -> tuple[Term, list[Triple]]:
        node = BlankNode()
        inner, triples = self.inner.to_triples()
        return node, [Triple(node, self._PREDICATE, inner), *triples]


@dataclass(frozen=True)
class InversePath(_Unary):
    """``sh:inversePath``: follow the inner path backwards."""

    _PREDICATE = sh.inversePath
    _FORMAT = "(^{})"


@dataclass(frozen=True)
class ZeroOrMorePath(_Unary):
    """``sh:zeroOrMorePath``: ``p*``."""

    _PREDICATE = sh.zeroOrMorePath
    _FORMAT = "({})*"


@dataclass(frozen=True)
class OneOrMorePath(_Unary):
    """``sh:oneOrMorePath``: ``p+``."""

    _PREDICATE = sh.oneOrMorePath
    _FORMAT = "({})+"


@dataclass(frozen=True)
class ZeroOrOnePath(_Unary):
    """``sh:zeroOrOnePath``: ``p?``."""

    _PREDICATE = sh.zeroOrOnePath
    _FORMAT = "({})?"


_UNARY = {
    sh.inversePath: InversePath,
    sh.zeroOrMorePath: ZeroOrMorePath,
    sh.oneOrMorePath: OneOrMorePath,
    sh.zeroOrOnePath: ZeroOrOnePath,
}


def parse_path(graph: ShapesGraph, node: Term, *, shape: Term | None = None) -> Path:
    """The path encoded at ``node`` in ``graph``; :class:`ShapeError` if it is ill-formed.

    Follows the definitions of SHACL 1.0 §2.3.1 literally: a node that is a SHACL
    list is a sequence path; a blank node that is the subject of exactly one
    triple, with one of the path predicates, is that kind of path.

    >>> from pyoxigraph import BlankNode, NamedNode, Triple
    >>> b, p = BlankNode(), NamedNode("http://e/p")
    >>> parse_path(ShapesGraph([Triple(b, sh.inversePath, p)]), b)
    InversePath(inner=PredicatePath(iri=<NamedNode value=http://e/p>))
    """
    return _parse(graph, node, shape, ())


def _fail(reason: str, shape: Term | None) -> ShapeError:
    return ShapeError(reason, shape=shape, rule=_RULE, link=_LINK)


def _parse(graph: ShapesGraph, node: Term, shape: Term | None, visiting: tuple[Term, ...]) -> Path:
    if isinstance(node, NamedNode):
        return PredicatePath(node)
    if not isinstance(node, BlankNode):
        raise _fail(f"a path must be an IRI or a blank node, not {node}", shape)
    if node in visiting:
        raise _fail(f"path {node} is recursive (a path cannot contain itself)", shape)
    visiting = (*visiting, node)
    if graph.has(node, rdf.first):
        items = graph.list_items(node, shape=shape, what="a sequence path")
        if len(items) < 2:
            raise _fail(f"a sequence path needs at least two members, {node} has {len(items)}", shape)
        return SequencePath(tuple(_parse(graph, i, shape, visiting) for i in items))
    predicates = graph.predicates(node)
    if graph.out_degree(node) != 1:
        raise _fail(
            f"path {node} must be an IRI, a list, or a blank node with exactly one of "
            "sh:alternativePath, sh:inversePath, sh:zeroOrMorePath, sh:oneOrMorePath, sh:zeroOrOnePath",
            shape,
        )
    predicate = predicates[0]
    (value,) = graph.objects(node, predicate)
    if predicate == sh.alternativePath:
        items = graph.list_items(value, shape=shape, what="the value of sh:alternativePath")
        if len(items) < 2:
            raise _fail(f"sh:alternativePath needs a list of at least two paths, {node} has {len(items)}", shape)
        return AlternativePath(tuple(_parse(graph, i, shape, visiting) for i in items))
    cls = _UNARY.get(predicate)
    if cls is None:
        raise _fail(f"{predicate} is not a path predicate (at path node {node})", shape)
    return cls(_parse(graph, value, shape, visiting))
