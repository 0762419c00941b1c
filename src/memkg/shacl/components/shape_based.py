"""SHACL §4.7 shape-based constraint components: sh:node, sh:property,
sh:qualifiedValueShape with sh:qualifiedMinCount / sh:qualifiedMaxCount."""

from __future__ import annotations

from collections import defaultdict

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, SHACL_SPEC, sh
from ..incomplete import Excuse
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row, at_least



class NodeComponent(Component):
    """sh:node — every value node conforms to the node shape."""

    IRI = sh.NodeConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.node,)
    RULE = "SHACL §4.7.1 sh:node"
    ANCHOR = SHACL_SPEC + "#NodeConstraintComponent"
    EXCUSED_BY = Excuse.VALUE  # as sh:and
    EXCUSED_AT_NODE_SHAPES = False

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, node=reader.shape_ref(cls, sh.node, v, node_shape=True)) for v in reader.values(sh.node)]

    def fragment(self, ctx: Ctx) -> Fragment:
        nc = ctx.nc(self.params["node"], ctx.value)
        if nc is not None:
            return Fragment(f"{ctx.values()} FILTER EXISTS {{ {nc} }}")
        return Fragment(ctx.values(), post=self._decide_rows)

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        failing = engine.nonconforming(self.params["node"], {r.value for r in rows if r.value is not None})
        return [r for r in rows if r.value in failing]

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        conforming = [engine.conforms_as_written(self.params["node"], v) for v in values]
        if any(c is None for c in conforming):
            return None
        return [v for v, c in zip(values, conforming) if not c]

    def describe(self) -> str:
        return f"Value does not conform to shape {show(self.params['node'], form='exact')}"


class PropertyComponent(Component):
    """sh:property — every value node is validated against the property shape.

    Its results are the nested shape's own results, so the compiler flattens
    sh:property into routes instead of asking this class for a fragment.
    """

    IRI = sh.PropertyConstraintComponent
    PARAMETERS = (sh.property,)
    RULE = "SHACL §4.7.2 sh:property"
    ANCHOR = SHACL_SPEC + "#PropertyConstraintComponent"
    EXCUSED_BY = Excuse.VALUE  # as sh:node
    EXCUSED_AT_NODE_SHAPES = False

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        out: list[Component] = []
        for v in reader.values(sh.property):
            reader.shape_ref(cls, sh.property, v)
            if reader.shapes.load(v).path is None:
                raise cls.error(reader, f"the values of sh:property must be property shapes (with sh:path), {v} is not")
            out.append(cls(reader.shape, property=v))
        return out

    def fragment(self, ctx: Ctx) -> Fragment:  # pragma: no cover - flattened by the compiler
        raise AssertionError("sh:property is compiled as a route")

    def nonconformance(self, ctx: Ctx) -> str | None:
        target = self.params["property"]
        if ctx.shape.path is None:
            return ctx.nc(target, ctx.focus)
        v = ctx.fresh("v")
        nc = ctx.nc(target, v)
        return None if nc is None else f"{ctx.values(v)} {{ {nc} }}"


class _Qualified(Component):
    PARAMETERS = (sh.qualifiedValueShape, sh.qualifiedMinCount, sh.qualifiedMaxCount, sh.qualifiedValueShapesDisjoint)
    #: Whether an incomplete value node counts (it possibly conforms: it may make up a
    #: minimum, never exceed a maximum).
    COUNTS_INCOMPLETE = False
    RULE = "SHACL §4.7.3 sh:qualifiedValueShape"
    ANCHOR = SHACL_SPEC + "#QualifiedValueShapeConstraintComponent"
    SCOPE = "property"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        reader.check_scope(cls, sh.qualifiedValueShape)
        qvs = reader.shape_ref(cls, sh.qualifiedValueShape, reader.one(cls, sh.qualifiedValueShape))
        low = reader.at_most_one(cls, sh.qualifiedMinCount)
        high = reader.at_most_one(cls, sh.qualifiedMaxCount)
        disjoint_term = reader.at_most_one(cls, sh.qualifiedValueShapesDisjoint)
        disjoint = reader.boolean(cls, sh.qualifiedValueShapesDisjoint, disjoint_term) if disjoint_term else False
        if low is None and high is None:
            raise cls.error(reader, "sh:qualifiedValueShape needs sh:qualifiedMinCount or sh:qualifiedMaxCount")
        siblings: list[Term] = []
        if disjoint:
            for parent in reader.graph.subjects(sh.property, reader.node):
                for prop in reader.graph.objects(parent, sh.property):
                    for sib in reader.graph.objects(prop, sh.qualifiedValueShape):
                        if sib != qvs and sib not in siblings:
                            siblings.append(reader.shape_ref(cls, sh.qualifiedValueShape, sib))
        common = {"qualifiedValueShape": qvs, "siblings": tuple(siblings), "disjoint": disjoint}
        out: list[Component] = []
        if low is not None:
            n = reader.non_negative_integer(cls, sh.qualifiedMinCount, low)
            out.append(QualifiedMinCountComponent(reader.shape, qualifiedMinCount=n, **common))
        if high is not None:
            n = reader.non_negative_integer(cls, sh.qualifiedMaxCount, high)
            out.append(QualifiedMaxCountComponent(reader.shape, qualifiedMaxCount=n, **common))
        return out

    def template_values(self) -> dict[str, Term]:
        return {k: v for k, v in self.params.items() if k == "qualifiedValueShape"}

    def _condition(self, ctx: Ctx, v: str) -> str | None:
        own = ctx.nc(self.params["qualifiedValueShape"], v)
        if own is None:
            return None
        parts = [f"NOT EXISTS {{ {own} }}"]
        for sib in self.params["siblings"]:
            nc = ctx.nc(sib, v)
            if nc is None:
                return None
            parts.append(f"EXISTS {{ {nc} }}")
        counted = " && ".join(parts)
        if not ctx.compiler.incomplete:
            return counted
        if self.COUNTS_INCOMPLETE:
            return f"{ctx.compiler.is_incomplete(v)} || ({counted})"
        return f"!{ctx.compiler.is_incomplete(v)} && ({counted})"

    def _count_rows(self, engine: Evaluation, rows: list["Row"]) -> dict[tuple[Term, ...], int]:
        nodes = {r.value for r in rows if r.value is not None}
        own = engine.nonconforming(self.params["qualifiedValueShape"], nodes)
        sibs = [engine.nonconforming(s, nodes) for s in self.params["siblings"]]
        counts: dict[tuple[Term, ...], set[Term]] = defaultdict(set)
        for r in rows:
            group = counts[r.group]
            if r.value is None:
                continue
            if engine.is_incomplete(r.value):
                if self.COUNTS_INCOMPLETE:
                    group.add(r.value)
            elif r.value not in own and all(r.value in s for s in sibs):
                group.add(r.value)
        return {g: len(vs) for g, vs in counts.items()}


class QualifiedMinCountComponent(_Qualified):
    """sh:qualifiedMinCount — at least n value nodes conform to the qualified shape."""

    IRI = sh.QualifiedMinCountConstraintComponent
    EXCUSED_BY = Excuse.FOCUS
    COUNTS_INCOMPLETE = True

    def fragment(self, ctx: Ctx) -> Fragment:
        n = self.params["qualifiedMinCount"]
        q = ctx.fresh("q")
        cond = self._condition(ctx, q)
        if cond is None:
            return Fragment(f"OPTIONAL {{ {ctx.values()} }}", value=False, post=self._decide_rows)
        if n == 0:
            return Fragment("FILTER(false)", value=False)
        return Fragment(
            value=False,
            select=(
                f"{{ SELECT %GROUP% WHERE {{ %BINDER% OPTIONAL {{ {ctx.values(q)} FILTER({cond}) }} }} "
                f"GROUP BY %GROUP% HAVING (COUNT(DISTINCT {q}) < {n}) }}"
            ),
        )

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        counts = self._count_rows(engine, rows)
        out, seen = [], set()
        for r in rows:
            if r.group not in seen and counts[r.group] < self.params["qualifiedMinCount"]:
                seen.add(r.group)
                out.append(r.without_value())
        return out

    def nonconformance(self, ctx: Ctx) -> str | None:
        n = self.params["qualifiedMinCount"]
        cond_var: list[str] = []

        def cond(v: str) -> str:
            c = self._condition(ctx, v)
            if c is None:
                cond_var.append(v)
                return "false"
            return c

        pattern = at_least(n, ctx.focus, ctx, cond)
        if pattern is None or cond_var:
            return None
        return f"FILTER NOT EXISTS {{ {pattern} }}" if n else "FILTER(false)"

    def describe(self) -> str:
        return (
            f"Less than {self.params['qualifiedMinCount']} values conform to "
            f"{show(self.params['qualifiedValueShape'], form='exact')}"
        )


class QualifiedMaxCountComponent(_Qualified):
    """sh:qualifiedMaxCount — at most n value nodes conform to the qualified shape."""

    IRI = sh.QualifiedMaxCountConstraintComponent
    PER_VALUE = True

    def fragment(self, ctx: Ctx) -> Fragment:
        n = self.params["qualifiedMaxCount"]
        q = ctx.fresh("q")
        cond = self._condition(ctx, q)
        if cond is None:
            return Fragment(f"OPTIONAL {{ {ctx.values()} }}", value=False, post=self._decide_rows)
        return Fragment(
            value=False,
            select=(
                f"{{ SELECT %GROUP% WHERE {{ %BINDER% {ctx.values(q)} FILTER({cond}) }} "
                f"GROUP BY %GROUP% HAVING (COUNT(DISTINCT {q}) > {n}) }}"
            ),
        )

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        counts = self._count_rows(engine, rows)
        out, seen = [], set()
        for r in rows:
            if r.group not in seen and counts[r.group] > self.params["qualifiedMaxCount"]:
                seen.add(r.group)
                out.append(r.without_value())
        return out

    def nonconformance(self, ctx: Ctx) -> str | None:
        n = self.params["qualifiedMaxCount"]
        failed: list[str] = []

        def cond(v: str) -> str:
            c = self._condition(ctx, v)
            if c is None:
                failed.append(v)
                return "false"
            return c

        pattern = at_least(n + 1, ctx.focus, ctx, cond)
        if pattern is None or failed:
            return None
        return f"FILTER EXISTS {{ {pattern} }}"

    def describe(self) -> str:
        return (
            f"More than {self.params['qualifiedMaxCount']} values conform to "
            f"{show(self.params['qualifiedValueShape'], form='exact')}"
        )


class SomeValueComponent(Component):
    """sh:someValue (SHACL 1.2) — at least one value node conforms to the shape."""

    IRI = sh.SomeValueConstraintComponent
    PARAMETERS = (sh.someValue,)
    RULE = "SHACL 1.2 §4.7.4 sh:someValue"
    ANCHOR = SHACL12_SPEC + "#SomeValueConstraintComponent"
    # As sh:qualifiedMinCount 1: the focus node's conforming value may be stated elsewhere,
    # and an incomplete value node possibly conforms.
    EXCUSED_BY = Excuse.FOCUS

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, someValue=reader.shape_ref(cls, sh.someValue, v)) for v in reader.values(sh.someValue)]

    def fragment(self, ctx: Ctx) -> Fragment:
        pattern = self.nonconformance(ctx)
        if pattern is None:
            return Fragment(f"OPTIONAL {{ {ctx.values()} }}", value=False, post=self._decide_rows)
        return Fragment(pattern, value=False)

    def nonconformance(self, ctx: Ctx) -> str | None:
        v = ctx.fresh("v")
        nc = ctx.nc(self.params["someValue"], v)
        if nc is None:
            return None
        conforms = f"FILTER NOT EXISTS {{ {nc} }}"
        if ctx.compiler.incomplete:
            conforms = f"FILTER({ctx.compiler.is_incomplete(v)} || NOT EXISTS {{ {nc} }})"
        return f"FILTER NOT EXISTS {{ {ctx.values_of(ctx.focus, v)} {conforms} }}"

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        failing = engine.nonconforming(self.params["someValue"], {r.value for r in rows if r.value is not None})
        conforming = {r.group for r in rows if r.value is not None
                      and (r.value not in failing or engine.is_incomplete(r.value))}
        out, seen = [], set()
        for r in rows:
            if r.group not in conforming and r.group not in seen:
                seen.add(r.group)
                out.append(r.without_value())
        return out

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        shape = self.params["someValue"]
        verdicts = [engine.is_incomplete(v) or engine.conforms_as_written(shape, v) for v in values]
        if any(v is None for v in verdicts):
            return None
        return [] if any(verdicts) else [None]

    def describe(self) -> str:
        return f"No value conforms to {show(self.params['someValue'], form='exact')}"


SECTION = "SHACL §4.7 Shape-based Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (NodeComponent, PropertyComponent, _Qualified, SomeValueComponent)
