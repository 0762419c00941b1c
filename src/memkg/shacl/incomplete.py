"""SHACL 1.2 incomplete nodes: ``sh:incomplete`` and ``sh:incompleteURIStart``.

A node of the data graph is *incomplete* when the data graph says it is described
elsewhere: ``n sh:incomplete true``, or ``n`` is an IRI that starts with a value of
``sh:incompleteURIStart`` stated anywhere in the data graph and ``n sh:incomplete
false`` is not stated. A literal is never incomplete. For an incomplete node the
absence of a triple proves nothing, so a constraint whose result could come from a
missing triple reports nothing for it. Components say which node's incompleteness
excuses their results (:meth:`~memkg.shacl.components.base.Component.excused_by`):

* :data:`Excuse.FOCUS` — a missing triple at the focus node: ``sh:minCount``,
  ``sh:hasValue``, ``sh:equals`` (at property shapes), ``sh:subsetOf``,
  ``sh:qualifiedMinCount``, ``sh:someValue``; an incomplete focus node is not reported.
* :data:`Excuse.VALUE` — a missing triple at the value node: ``sh:class``, and at
  property shapes ``sh:node``, ``sh:property``, ``sh:not``, ``sh:and``, ``sh:or``,
  ``sh:xone`` (an incomplete value node is not checked for conformance).
  :data:`Excuse.IRI_VALUE` the same for IRIs only (``sh:rootClass``: only an IRI can
  be a valid value).

Counting components treat an incomplete value node as possibly conforming, never
held against the focus node: it counts for ``sh:qualifiedMinCount`` and
``sh:someValue``, not for ``sh:qualifiedMaxCount``; an incomplete member of a list
is not checked by ``sh:memberShape``; a required reifier of an incomplete focus
node may be stated elsewhere (``sh:reificationRequired``). Conformance stays two-valued:
under ``sh:not`` an excused constraint counts as met, so ``sh:not [ sh:path ex:p ;
sh:minCount 1 ]`` reports an incomplete node without ``ex:p``.

A validation checks once whether the data graph states either term
(:func:`stated`, two index look-ups); only then are the shapes compiled with the
tests below, so the queries for other data are the same as without this module.

>>> from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Store
>>> store = Store()
>>> stated(store, None)
False
>>> store.add(Quad(NamedNode("http://e/info"), sh.incompleteURIStart, Literal("http://e/ext/"), DefaultGraph()))
>>> stated(store, None)
True
>>> nodes = IncompleteNodes(lambda s, p: [q.object for q in store.quads_for_pattern(s, p, None)],
...                        [q.object for q in store.quads_for_pattern(None, sh.incompleteURIStart, None)])
>>> nodes(NamedNode("http://e/ext/someone")), nodes(NamedNode("http://e/here")), nodes(Literal("http://e/ext/x"))
(True, False, False)
"""

from __future__ import annotations

from enum import Enum
from typing import Callable, Iterable

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Store

from ..core.terms import GraphName, Term
from ..core.vocab import sh, xsd

#: The values of xsd:boolean literals (as SPARQL compares them: "1"^^xsd:boolean = true).
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


class Excuse(Enum):
    """Whose incompleteness excuses a component's results."""

    FOCUS = "focus"
    VALUE = "value"
    IRI_VALUE = "iri value"


def stated(store: Store, graphs: list[GraphName] | None) -> bool:
    """Whether the data graph (``graphs`` of ``store``; None: its default graph) states
    ``sh:incomplete`` or ``sh:incompleteURIStart`` (index look-ups on the predicate)."""
    predicates = (sh.incomplete, sh.incompleteURIStart)
    # First in every graph at once: two seeks answer for the data that never uses the terms.
    if all(next(iter(store.quads_for_pattern(None, p, None, None)), None) is None for p in predicates):
        return False
    return any(
        next(iter(store.quads_for_pattern(None, p, None, graph)), None) is not None
        for graph in (graphs if graphs is not None else [DefaultGraph()])
        for p in predicates
    )


def condition(var: str, fresh: Callable[[str], str], *, iris_only: bool = False) -> str:
    """A SPARQL expression true iff the node in ``var`` is incomplete (``iris_only``:
    and is an IRI; a declared blank node then does not count)."""
    b, s, u = fresh("b"), fresh("s"), fresh("u")
    inc, start = f"<{sh.incomplete.value}>", f"<{sh.incompleteURIStart.value}>"
    # COALESCE: a value of sh:incomplete that is not a boolean says nothing.
    by_start = (
        f"(isIRI({var}) && NOT EXISTS {{ {var} {inc} {b} FILTER(COALESCE({b} = false, false)) }} "
        f"&& EXISTS {{ {s} {start} {u} FILTER(STRSTARTS(STR({var}), STR({u}))) }})"
    )
    declared = f"EXISTS {{ {var} {inc} {b} FILTER(COALESCE({b} = true, false)) }}"
    if iris_only:
        declared = f"(isIRI({var}) && {declared})"
    return f"({declared} || {by_start})"


class IncompleteNodes:
    """The same test in Python, for the steps the engine decides outside SPARQL.

    ``objects(node, predicate)`` reads the data graph; ``starts`` are the values of
    ``sh:incompleteURIStart`` in it.
    """

    def __init__(self, objects: Callable[[Term, NamedNode], Iterable[Term]], starts: Iterable[Term]) -> None:
        self._objects = objects
        self._starts = tuple(str(t.value) for t in starts if isinstance(t, (Literal, NamedNode)))
        self._known: dict[Term, bool] = {}

    def __call__(self, node: Term | None, *, iris_only: bool = False) -> bool:
        if not isinstance(node, (NamedNode, BlankNode)) or (iris_only and not isinstance(node, NamedNode)):
            return False
        found = self._known.get(node)
        if found is None:
            flags = {_BOOLEANS.get(t.value) for t in self._objects(node, sh.incomplete)
                     if isinstance(t, Literal) and t.datatype == xsd.boolean}
            found = True in flags or (
                isinstance(node, NamedNode) and False not in flags and node.value.startswith(self._starts)
            )
            self._known[node] = found
        return found


__all__ = ["Excuse", "IncompleteNodes", "condition", "stated"]
