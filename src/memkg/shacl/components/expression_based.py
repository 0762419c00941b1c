"""SHACL 1.2 constraints built on node expressions: sh:expression and sh:nodeByExpression.

Both read their value as a node expression (:mod:`memkg.shacl.expressions`). An
expression that is one SPARQL expression of the focus node (a constant, the focus
node, ``sparql:`` functions of those) or a constant shape compiles into the
validation queries like any other constraint; any other expression is evaluated by
the engine, in Python over Oxigraph queries, for the value nodes the query finds.
"""

from __future__ import annotations


from pyoxigraph import BlankNode, Literal, NamedNode

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL12_NODE_EXPR_SPEC, SHACL12_SPEC, TRUE, sh
from ..errors import ShapeError
from ..expressions import Constant, Evaluator, Expr, ExpressionReader, sparql_expression
from .sparql import messages_of
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row


def _read(cls: type[Component], reader: Reader, param: NamedNode, *, annotated: bool = False) -> list[tuple[Term, Expr]]:
    expressions = ExpressionReader(reader.graph, reader.shapes.load)
    return [(v, expressions.read(v, shape=reader.node, annotated=annotated)) for v in reader.values(param)]


class ExpressionComponent(Component):
    """sh:expression — the node expression, evaluated with each value node as focus node,
    gives no output node other than ``true``; each value node for which it does is a result."""

    IRI = sh.ExpressionConstraintComponent
    messages: tuple[Literal, ...] = ()
    PER_VALUE = True
    PARAMETERS = (sh.expression,)
    RULE = "SHACL 1.2 Node Expressions sh:expression"
    ANCHOR = SHACL12_NODE_EXPR_SPEC + "#ExpressionConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        out: list[Component] = []
        # As SHACL-AF writes it (and pySHACL reads it), the expression's node may carry the results' sh:message.
        for term, expr in _read(cls, reader, sh.expression, annotated=True):
            comp = cls(reader.shape, expression=term, expr=expr)
            comp.source_constraint = term
            comp.messages = messages_of(reader.graph, term) if isinstance(term, BlankNode) else ()
            out.append(comp)
        return out

    def fragment(self, ctx: Ctx) -> Fragment:
        text = sparql_expression(self.params["expr"], ctx.value)
        if text is not None:
            out = ctx.fresh("e")
            return Fragment(f"{ctx.values()} BIND({text} AS {out}) FILTER(BOUND({out}) && !sameTerm({out}, true))")
        return Fragment(ctx.values(), post=self._decide_rows)

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        evaluator = Evaluator(engine)
        failing: dict[Term, bool] = {}
        for r in rows:
            if r.value is not None and r.value not in failing:
                outputs = evaluator.evaluate(self.params["expr"], r.value)
                failing[r.value] = any(o != TRUE for o in outputs)
        return [r for r in rows if r.value is not None and failing[r.value]]

    def template_values(self) -> dict[str, Term]:
        return {"expression": self.params["expression"]}

    def describe(self) -> str:
        return f"Value does not satisfy the expression {show(self.params['expression'], form='exact')}"


class NodeByExpressionComponent(Component):
    """sh:nodeByExpression — every value node conforms to each node shape the node
    expression gives, evaluated with the focus node."""

    IRI = sh.NodeByExpressionConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.nodeByExpression,)
    RULE = "SHACL 1.2 Core sh:nodeByExpression"
    ANCHOR = SHACL12_SPEC + "#NodeByExpressionConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        out: list[Component] = []
        for term, expr in _read(cls, reader, sh.nodeByExpression):
            if isinstance(expr, Constant):
                reader.shape_ref(cls, sh.nodeByExpression, term, node_shape=True)
            comp = cls(reader.shape, nodeByExpression=term, expr=expr)
            if isinstance(expr, Constant):
                comp.source_constraint = term
            out.append(comp)
        return out

    def fragment(self, ctx: Ctx) -> Fragment:
        expr = self.params["expr"]
        if isinstance(expr, Constant):
            nc = ctx.nc(expr.node, ctx.value)
            if nc is not None:
                return Fragment(f"{ctx.values()} FILTER EXISTS {{ {nc} }}")
        return Fragment(ctx.values(), post=self._decide_rows)

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        evaluator = Evaluator(engine)
        shapes: dict[Term, list[Term]] = {}
        for r in rows:
            if r.focus not in shapes:
                found = evaluator.evaluate(self.params["expr"], r.focus)
                for s in found:
                    if not isinstance(s, (NamedNode, BlankNode)) or not engine.compiler.is_shape(s):
                        raise ShapeError(f"sh:nodeByExpression {self.params['nodeByExpression']} gave {s} for the "
                                         f"focus node {r.focus}, which is not a shape of the shapes graph",
                                         shape=self.shape.node, rule=self.RULE, link=self.ANCHOR)
                shapes[r.focus] = found
        out = []
        for r in rows:
            if r.value is None:
                continue
            for s in shapes[r.focus]:
                if r.value in engine.nonconforming(s, [r.value]):
                    out.append(r)
                    break
        return out

    def describe(self) -> str:
        return f"Value does not conform to the shapes of {show(self.params['nodeByExpression'], form='exact')}"


SECTION = "SHACL 1.2 Node Expression Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (ExpressionComponent, NodeByExpressionComponent)
