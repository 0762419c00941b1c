"""SHACL §4.5 property pair constraint components: sh:equals, sh:disjoint,
sh:lessThan, sh:lessThanOrEquals."""

from __future__ import annotations


from pyoxigraph import Literal, NamedNode

from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, SHACL_SPEC, sh
from ..errors import ShapeError
from ..incomplete import Excuse
from ..paths import Path, parse_path
from ..values import compare
from .base import Component, Ctx, Evaluation, Fragment, Reader



class _Pair(Component):
    PARAM = sh.equals

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        reader.check_scope(cls, cls.PARAM)
        out: list[Component] = []
        for v in reader.values(cls.PARAM):
            if isinstance(v, Literal):
                reader.iri(cls, cls.PARAM, v)  # raises: an IRI (or, SHACL 1.2, a path) is needed
            path = parse_path(reader.graph, v, shape=reader.node)  # SHACL 1.2: a path, not only an IRI
            out.append(cls(reader.shape, property=v, other=path))
        return out

    @property
    def other(self) -> str:
        path: Path = self.params["other"]
        return path.sparql()

    @property
    def _predicate(self) -> NamedNode | None:
        path: Path = self.params["other"]
        return path.predicate

    def other_predicates(self) -> tuple[NamedNode, ...]:
        return (self._predicate,) if self._predicate is not None else ()

    def _others(self, focus: Term, engine: Evaluation) -> list[Term] | None:
        return engine.values_as_written(focus, self._predicate) if self._predicate is not None else None

    def _other_is_empty(self, focus: Term, engine: Evaluation) -> bool:
        """True if the focus node has no value for the other property: then sh:disjoint,
        sh:lessThan and sh:lessThanOrEquals have nothing to compare with."""
        return self._predicate is not None and not engine.view.outgoing(focus).get(self._predicate)


class EqualsComponent(_Pair):
    """sh:equals — the value nodes equal the values of the other property."""

    IRI = sh.EqualsConstraintComponent
    PARAMETERS = (sh.equals,)
    PARAM = sh.equals
    RULE = "SHACL §4.5.1 sh:equals"
    ANCHOR = SHACL_SPEC + "#EqualsConstraintComponent"
    EXCUSED_BY = Excuse.FOCUS
    EXCUSED_AT_NODE_SHAPES = False

    def fragment(self, ctx: Ctx) -> Fragment:
        # One group (no nested groups, whose FILTERs would not see the focus):
        # candidates are the value nodes and the values of the other property.
        v, f = ctx.value, ctx.focus
        if ctx.shape.path is not None and ctx.shape.path.computed:
            raise ShapeError("sh:equals on a property shape with sh:values is not implemented", shape=ctx.shape.node,
                             rule=self.RULE, link=self.ANCHOR)
        if ctx.shape.path is None:
            candidates = f"{f} {self.other}? {v} ."
            member = f"sameTerm({f}, {v})"
        else:
            candidates = f"{f} ({ctx.shape.path.sparql()}|{self.other}) {v} ."
            member = f"EXISTS {{ {ctx.shape.path.has_value(f, v, ctx.fresh('e'))} }}"
        return Fragment(f"{candidates} FILTER(NOT EXISTS {{ {f} {self.other} {v} }} || !({member}))")

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        others = self._others(focus, engine)
        if others is None:
            return None
        out: list[Term | None] = [v for v in values if v not in others]
        return out + [o for o in others if o not in values]

    def describe(self) -> str:
        return f"Value sets differ from those of {self.params['other']}"


class DisjointComponent(_Pair):
    """sh:disjoint — no value node is also a value of the other property."""

    IRI = sh.DisjointConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.disjoint,)
    PARAM = sh.disjoint
    RULE = "SHACL §4.5.2 sh:disjoint"
    ANCHOR = SHACL_SPEC + "#DisjointConstraintComponent"

    def fragment(self, ctx: Ctx) -> Fragment:
        return Fragment(f"{ctx.values()} FILTER EXISTS {{ {ctx.focus} {self.other} {ctx.value} }}")

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        return self._other_is_empty(focus, engine)

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        others = self._others(focus, engine)
        return None if others is None else [v for v in values if v in others]

    def describe(self) -> str:
        return f"Value is also a value of {self.params['other']}"


class LessThanComponent(_Pair):
    """sh:lessThan — every value node is less than every value of the other property (property shapes only)."""

    IRI = sh.LessThanConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.lessThan,)
    PARAM = sh.lessThan
    RULE = "SHACL §4.5.3 sh:lessThan"
    ANCHOR = SHACL_SPEC + "#LessThanConstraintComponent"
    SCOPE = "property"
    OPERATOR = "<"

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        o = ctx.key_out
        return Fragment(
            f"{ctx.values()} {ctx.focus} {self.other} {o} . FILTER(!COALESCE({v} {self.OPERATOR} {o}, false))",
            key=True,
        )

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        return self._other_is_empty(focus, engine)

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        others = self._others(focus, engine)
        if others is None:
            return None
        return [v for v in values for o in others if compare(v, self.OPERATOR, o) is not True]

    def describe(self) -> str:
        return f"Value is not {self.OPERATOR} the values of {self.params['other']}"


class LessThanOrEqualsComponent(LessThanComponent):
    """sh:lessThanOrEquals — every value node is at most every value of the other property."""

    IRI = sh.LessThanOrEqualsConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.lessThanOrEquals,)
    PARAM = sh.lessThanOrEquals
    RULE = "SHACL §4.5.4 sh:lessThanOrEquals"
    ANCHOR = SHACL_SPEC + "#LessThanOrEqualsConstraintComponent"
    OPERATOR = "<="


class SubsetOfComponent(Component):
    """sh:subsetOf (SHACL 1.2) — every value node is also reached from the focus node by the given path."""

    IRI = sh.SubsetOfConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.subsetOf,)
    RULE = "SHACL 1.2 §4.5.5 sh:subsetOf"
    ANCHOR = SHACL12_SPEC + "#SubsetOfConstraintComponent"
    EXCUSED_BY = Excuse.FOCUS

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, subsetOf=v, other=parse_path(reader.graph, v, shape=reader.node))
                for v in reader.values(sh.subsetOf)]

    def fragment(self, ctx: Ctx) -> Fragment:
        return Fragment(f"{ctx.values()} FILTER NOT EXISTS {{ {ctx.focus} {self.params['other'].sparql()} {ctx.value} }}")

    def template_values(self) -> dict[str, Term]:
        return {"subsetOf": self.params["subsetOf"]}

    def describe(self) -> str:
        return f"Value is not a value of {self.params['other']}"


SECTION = "SHACL §4.5 Property Pair Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (
    EqualsComponent,
    DisjointComponent,
    LessThanComponent,
    LessThanOrEqualsComponent,
    SubsetOfComponent,
)
