"""SHACL §4.3 value range constraint components: sh:minExclusive, sh:minInclusive,
sh:maxExclusive, sh:maxInclusive.

Comparisons use SPARQL's operators, so literals compare by value; a value that
cannot be compared (an IRI, an ill-typed literal, another datatype) violates.
"""

from __future__ import annotations

import operator

from pyoxigraph import Literal

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL_SPEC, sh
from ..values import compare
from .base import Component, Ctx, Evaluation, Fragment, Reader, const
from .value_type import python_number


_COMPARE = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


class _Range(Component):
    OPERATOR = ">"
    PARAM = sh.minExclusive

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        value = reader.one(cls, cls.PARAM)
        if not isinstance(value, Literal):
            raise cls.error(reader, f"{show(cls.PARAM, form='exact')} must be a literal, got {value}")
        return [cls(reader.shape, **{cls.PARAM.value.rsplit("#", 1)[1]: value})]

    @property
    def bound(self) -> Literal:
        bound: Literal = next(iter(self.params.values()))  # parse() keeps only a literal
        return bound

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        return Fragment(f"{ctx.values()} FILTER(!COALESCE({v} {self.OPERATOR} {const(self.bound)}, false))")

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        # Short integer and decimal numerals compare exactly in Python as in SPARQL.
        bound = python_number(self.bound)
        if bound is None:
            return False
        compare = _COMPARE[self.OPERATOR]
        numbers = [python_number(v) for v in values]
        return all(n is not None and compare(n, bound) for n in numbers)

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        return [v for v in values if compare(v, self.OPERATOR, self.bound) is not True]

    def describe(self) -> str:
        return f"Value is not {self.OPERATOR} {self.bound.value}"


class MinExclusiveComponent(_Range):
    """sh:minExclusive — every value node is greater than the bound."""

    IRI = sh.MinExclusiveConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.minExclusive,)
    PARAM = sh.minExclusive
    OPERATOR = ">"
    RULE = "SHACL §4.3.1 sh:minExclusive"
    ANCHOR = SHACL_SPEC + "#MinExclusiveConstraintComponent"


class MinInclusiveComponent(_Range):
    """sh:minInclusive — every value node is greater than or equal to the bound."""

    IRI = sh.MinInclusiveConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.minInclusive,)
    PARAM = sh.minInclusive
    OPERATOR = ">="
    RULE = "SHACL §4.3.2 sh:minInclusive"
    ANCHOR = SHACL_SPEC + "#MinInclusiveConstraintComponent"


class MaxExclusiveComponent(_Range):
    """sh:maxExclusive — every value node is less than the bound."""

    IRI = sh.MaxExclusiveConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.maxExclusive,)
    PARAM = sh.maxExclusive
    OPERATOR = "<"
    RULE = "SHACL §4.3.3 sh:maxExclusive"
    ANCHOR = SHACL_SPEC + "#MaxExclusiveConstraintComponent"


class MaxInclusiveComponent(_Range):
    """sh:maxInclusive — every value node is less than or equal to the bound."""

    IRI = sh.MaxInclusiveConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.maxInclusive,)
    PARAM = sh.maxInclusive
    OPERATOR = "<="
    RULE = "SHACL §4.3.4 sh:maxInclusive"
    ANCHOR = SHACL_SPEC + "#MaxInclusiveConstraintComponent"


SECTION = "SHACL §4.3 Value Range Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (
    MinExclusiveComponent,
    MinInclusiveComponent,
    MaxExclusiveComponent,
    MaxInclusiveComponent,
)
