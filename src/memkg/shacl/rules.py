"""SHACL-AF rules (``sh:rule``: ``sh:TripleRule`` and ``sh:SPARQLRule``), run to a fixpoint.

A rule belongs to a shape and fires for each of the shape's focus nodes that conforms to
every ``sh:condition`` shape. A triple rule makes the triples whose subject, predicate
and object are the outputs of its node expressions (``sh:this``, a constant, ``[ sh:path P ]``,
or a SHACL 1.2 node expression); a SPARQL rule's ``sh:construct`` runs with ``$this``
bound to the focus node. Rules run by ``sh:order`` (then by node), round after round,
each round seeing what the earlier ones concluded, until a round concludes nothing new;
past ``max_rounds`` rounds :class:`RuleError` names the rules still concluding.

The conclusions go into one graph the caller names (``into``), beside the data graph:
the graphs read are never written (:meth:`memkg.shacl.Shapes.apply_rules`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyoxigraph import (
    BlankNode, DefaultGraph, Literal, NamedNode, Quad, QueryTriples, Store, Triple, Variable,
)

from ..core.prefixes import show
from ..core.terms import Term
from ..core.vocab import SH, TRUE, rdf, sh
from .errors import ShapeError
from .functions import Function
from .functions import bound as bound_functions
from .graph import ShapesGraph, prefixes_of

_THIS = re.compile(r"[?$]this\b")
_AF = ("SHACL-AF §8 rules", "https://www.w3.org/TR/shacl-af/#rules")


class RuleError(ShapeError):
    """Rules that did not reach a fixpoint within the bound (or a rule that cannot run)."""


@dataclass(frozen=True)
class Rule:
    """One ``sh:rule`` of a shape."""

    shape: Term
    node: Term
    order: float
    conditions: tuple[Term, ...]
    construct: str | None = None  #: a SPARQL rule's query, prefixes declared
    subject: Term | None = None  #: a triple rule's node expressions
    predicate: Term | None = None
    object: Term | None = None


def _one(graph: ShapesGraph, node: Term, predicate: NamedNode, shape: Term) -> Term:
    values = graph.objects(node, predicate)
    if len(values) != 1:
        raise ShapeError(f"rule {node} needs exactly one {show(predicate, form='exact')}, has {len(values)}",
                         shape=shape, rule=_AF[0], link=_AF[1])
    return values[0]


def read_rules(graph: ShapesGraph, shapes: Sequence[Term]) -> list[Rule]:
    """The active rules of ``shapes``, in the order they run; :class:`ShapeError` for a malformed one."""
    rules: list[Rule] = []
    for shape in shapes:
        if TRUE in graph.objects(
                shape, sh.deactivated):
            continue
        for node in graph.objects(shape, sh.rule):
            if any(isinstance(v, Literal) and v.value == "true" for v in graph.objects(node, sh.deactivated)):
                continue
            orders = graph.objects(node, sh.order)
            try:
                order = float(orders[0].value) if orders and isinstance(orders[0], Literal) else 0.0
            except ValueError:
                raise ShapeError(f"rule {node}: sh:order must be a number, got {orders[0]}", shape=shape,
                                 rule=_AF[0], link=_AF[1]) from None
            conditions = tuple(graph.objects(node, sh.condition))
            types = set(graph.objects(node, rdf.type))
            constructs = graph.objects(node, sh.construct)
            if constructs or sh.SPARQLRule in types:
                text = _one(graph, node, sh.construct, shape)
                if not isinstance(text, Literal):
                    raise ShapeError(f"rule {node}: sh:construct must be a literal", shape=shape, rule=_AF[0],
                                     link=_AF[1])
                prefixes = prefixes_of(graph, node, shape=shape, text=text.value)
                head = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in prefixes.items())
                rules.append(Rule(shape, node, order, conditions, construct=head + text.value))
            elif graph.objects(node, sh.subject) or sh.TripleRule in types:
                rules.append(Rule(shape, node, order, conditions, subject=_one(graph, node, sh.subject, shape),
                                  predicate=_one(graph, node, sh.predicate, shape),
                                  object=_one(graph, node, sh.object, shape)))
            else:
                raise ShapeError(f"rule {node} is neither a sh:TripleRule nor a sh:SPARQLRule", shape=shape,
                                 rule=_AF[0], link=_AF[1])
    return sorted(rules, key=lambda r: (r.order, str(r.shape), str(r.node)))


class RuleRunner:
    """Runs the rules of one shapes graph over a store (see the module doc).

    ``focus_nodes(shape)`` gives a shape's focus nodes, ``conforms(shape, nodes)`` those of
    ``nodes`` that conform to a condition shape, ``evaluate(expression, focus)`` a SHACL 1.2
    node expression's outputs: the engine's, made again each round (what the rules add
    changes the answers)."""

    def __init__(self, graph: ShapesGraph, rules: Sequence[Rule],
                 functions: dict[NamedNode, Function] | None = None) -> None:
        self._graph = graph
        self.rules = list(rules)
        self._functions = functions or {}  #: the shapes graph's SPARQL-based functions, callable from sh:construct

    def round(
        self, store: Store, graphs: list[NamedNode | BlankNode | DefaultGraph], into: NamedNode,
        focus_nodes: Callable[[Term], list[Term]], conforming: Callable[[Term, list[Term]], list[Term]],
        evaluate: Callable[[Term, Term], list[Term]],
    ) -> dict[Term, int]:
        """One round of every rule; how many new triples each rule added (only those that did)."""
        seen = [*graphs, into]
        added: dict[Term, int] = {}
        for rule in self.rules:
            nodes = focus_nodes(rule.shape)
            for condition in rule.conditions:
                nodes = conforming(condition, nodes)
            new: list[Triple] = []
            for focus in nodes:
                for t in self._conclusions(rule, store, seen, focus, evaluate):
                    if not any(next(iter(store.quads_for_pattern(t.subject, t.predicate, t.object, g)), None)
                               for g in seen):
                        new.append(t)
            if new:
                store.extend(Quad(t.subject, t.predicate, t.object, into) for t in dict.fromkeys(new))
                added[rule.node] = len(set(new))
        return added

    def _conclusions(self, rule: Rule, store: Store, graphs: list[NamedNode | BlankNode | DefaultGraph],
                     focus: Term, evaluate: Callable[[Term, Term], list[Term]]) -> list[Triple]:
        if rule.construct is not None:
            # Oxigraph refuses a substitution for a variable the query does not have
            bound = {Variable("this"): focus} if _THIS.search(rule.construct) else None
            found = store.query(rule.construct, substitutions=bound, default_graph=graphs,
                                custom_functions=bound_functions(self._functions, store, graphs))
            if not isinstance(found, QueryTriples):
                raise ShapeError(f"rule {rule.node}: sh:construct must be a CONSTRUCT query", shape=rule.shape,
                                 rule=_AF[0], link=_AF[1])
            return list(found)
        assert rule.subject is not None and rule.predicate is not None and rule.object is not None
        subjects = evaluate(rule.subject, focus)
        predicates = evaluate(rule.predicate, focus)
        objects = evaluate(rule.object, focus)
        out = []
        for s, p, o in itertools.product(subjects, predicates, objects):
            if isinstance(s, (NamedNode, BlankNode, Triple)) and isinstance(p, NamedNode):
                out.append(Triple(s, p, o))
        return out


def describe(added: dict[Term, int]) -> str:
    return ", ".join(f"{node} (+{n})" for node, n in added.items())


__all__ = ["Rule", "RuleError", "RuleRunner", "SH", "describe", "read_rules"]
