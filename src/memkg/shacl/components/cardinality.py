"""SHACL §4.2 cardinality constraint components: sh:minCount, sh:maxCount."""

from __future__ import annotations


from ...core.terms import Term
from ...core.vocab import SHACL_SPEC, sh
from ..incomplete import Excuse
from .base import Component, Ctx, Evaluation, Fragment, Reader, at_least



class MinCountComponent(Component):
    """sh:minCount — at least n value nodes (property shapes only)."""

    IRI = sh.MinCountConstraintComponent
    PARAMETERS = (sh.minCount,)
    RULE = "SHACL §4.2.1 sh:minCount"
    ANCHOR = SHACL_SPEC + "#MinCountConstraintComponent"
    SCOPE = "property"
    EXCUSED_BY = Excuse.FOCUS

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        reader.check_scope(cls, sh.minCount)
        n = reader.non_negative_integer(cls, sh.minCount, reader.one(cls, sh.minCount))
        return [cls(reader.shape, minCount=n)] if n > 0 else []

    def fragment(self, ctx: Ctx) -> Fragment:
        n: int = self.params["minCount"]
        x = ctx.fresh("x")
        if n == 1:
            return Fragment(f"FILTER NOT EXISTS {{ {ctx.values(x)} }}", value=False)
        return Fragment(
            value=False,
            select=(
                f"{{ SELECT %GROUP% WHERE {{ %BINDER% OPTIONAL {{ {ctx.values(x)} }} }} "
                f"GROUP BY %GROUP% HAVING (COUNT(DISTINCT {x}) < {n}) }}"
            ),
        )

    def nonconformance(self, ctx: Ctx) -> str | None:
        pattern = at_least(self.params["minCount"], ctx.focus, ctx)
        return None if pattern is None else f"FILTER NOT EXISTS {{ {pattern} }}"

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        least: int = self.params["minCount"]
        return len(set(values)) >= least

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        return [None] if len(set(values)) < self.params["minCount"] else []

    def describe(self) -> str:
        return f"Less than {self.params['minCount']} values"


class MaxCountComponent(Component):
    """sh:maxCount — at most n value nodes (property shapes only)."""

    IRI = sh.MaxCountConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.maxCount,)
    RULE = "SHACL §4.2.2 sh:maxCount"
    ANCHOR = SHACL_SPEC + "#MaxCountConstraintComponent"
    SCOPE = "property"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        reader.check_scope(cls, sh.maxCount)
        n = reader.non_negative_integer(cls, sh.maxCount, reader.one(cls, sh.maxCount))
        return [cls(reader.shape, maxCount=n)]

    def fragment(self, ctx: Ctx) -> Fragment:
        m: int = self.params["maxCount"]
        if m <= 1:
            pattern = at_least(m + 1, ctx.focus, ctx)
            return Fragment(f"FILTER EXISTS {{ {pattern} }}", value=False)
        x = ctx.fresh("x")
        return Fragment(
            value=False,
            select=(
                f"{{ SELECT %GROUP% WHERE {{ %BINDER% {ctx.values(x)} }} "
                f"GROUP BY %GROUP% HAVING (COUNT(DISTINCT {x}) > {m}) }}"
            ),
        )

    def nonconformance(self, ctx: Ctx) -> str | None:
        pattern = at_least(self.params["maxCount"] + 1, ctx.focus, ctx)
        return None if pattern is None else f"FILTER EXISTS {{ {pattern} }}"

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        most: int = self.params["maxCount"]
        return len(set(values)) <= most

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        return [None] if len(set(values)) > self.params["maxCount"] else []

    def describe(self) -> str:
        return f"More than {self.params['maxCount']} values"


SECTION = "SHACL §4.2 Cardinality Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (MinCountComponent, MaxCountComponent)
