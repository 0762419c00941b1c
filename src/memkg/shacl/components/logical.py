"""SHACL §4.6 logical constraint components: sh:not, sh:and, sh:or, sh:xone.

Each member shape is nested as a SPARQL pattern under ``EXISTS`` (the pattern
has a solution iff the value node does not conform). When a member cannot be
nested — a recursive shape, or a constraint that only Python can decide — the
value nodes are fetched by SPARQL and conformance is decided by the engine.
"""

from __future__ import annotations


from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL_SPEC, sh
from ..incomplete import Excuse
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row



class _Logical(Component):
    PARAM = sh["not"]
    # At a property shape an incomplete value node is not checked for conformance; at a
    # node shape the nested shapes judge the focus node (and excuse what they excuse).
    EXCUSED_BY = Excuse.VALUE
    EXCUSED_AT_NODE_SHAPES = False

    @property
    def members(self) -> list[Term]:
        return list(self.params["members"])

    def combine(self, nonconforming: list[str]) -> str:  # pragma: no cover - abstract
        """SPARQL: is the value a violation, given per-member 'does not conform' tests."""
        raise NotImplementedError

    def decide(self, nonconforming: list[bool]) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def fragment(self, ctx: Ctx) -> Fragment:
        tests: list[str] = []
        for m in self.members:
            test = ctx.value_test(m, ctx.value)
            if test is None:
                nc = ctx.nc(m, ctx.value)
                if nc is None:
                    return Fragment(ctx.values(), post=self._decide_rows)
                test = f"EXISTS {{ {nc} }}"
            tests.append(test)
        return Fragment(f"{ctx.values()} FILTER({self.combine(tests)})")

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        out: list[Term | None] = []
        for v in values:
            conforming = [engine.conforms_as_written(m, v) for m in self.members]
            if any(c is None for c in conforming):
                return None
            if self.decide([not c for c in conforming]):
                out.append(v)
        return out

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        nodes = {r.value for r in rows if r.value is not None}
        failing = [engine.nonconforming(m, nodes) for m in self.members]
        return [r for r in rows if self.decide([r.value in s for s in failing])]


class NotComponent(_Logical):
    """sh:not — no value node conforms to the shape."""

    IRI = sh.NotConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh["not"],)
    RULE = "SHACL §4.6.1 sh:not"
    ANCHOR = SHACL_SPEC + "#NotConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, members=(reader.shape_ref(cls, sh["not"], v),)) for v in reader.values(sh["not"])]

    def combine(self, nonconforming: list[str]) -> str:
        return f"!({nonconforming[0]})"

    def decide(self, nonconforming: list[bool]) -> bool:
        return not nonconforming[0]

    def template_values(self) -> dict[str, Term]:
        return {"not": self.members[0]}

    def describe(self) -> str:
        return f"Value conforms to {show(self.members[0], form='exact')}"


class _ListLogical(_Logical):
    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        param = cls.PARAMETERS[0]
        return [cls(reader.shape, members=tuple(reader.shape_list(cls, param, v))) for v in reader.values(param)]


class AndComponent(_ListLogical):
    """sh:and — every value node conforms to all member shapes."""

    IRI = sh.AndConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh["and"],)
    RULE = "SHACL §4.6.2 sh:and"
    ANCHOR = SHACL_SPEC + "#AndConstraintComponent"

    def combine(self, nonconforming: list[str]) -> str:
        return " || ".join(nonconforming) or "false"

    def decide(self, nonconforming: list[bool]) -> bool:
        return any(nonconforming)

    def describe(self) -> str:
        return "Value does not conform to all shapes of sh:and"


class OrComponent(_ListLogical):
    """sh:or — every value node conforms to at least one member shape."""

    IRI = sh.OrConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh["or"],)
    RULE = "SHACL §4.6.3 sh:or"
    ANCHOR = SHACL_SPEC + "#OrConstraintComponent"

    def combine(self, nonconforming: list[str]) -> str:
        return " && ".join(nonconforming) or "true"

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        return all(any(engine.surely_conforms_to(m, v) for m in self.members) for v in values)

    def decide(self, nonconforming: list[bool]) -> bool:
        return all(nonconforming)

    def describe(self) -> str:
        return "Value does not conform to any shape of sh:or"


class XoneComponent(_ListLogical):
    """sh:xone — every value node conforms to exactly one member shape (duplicates count twice)."""

    IRI = sh.XoneConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.xone,)
    RULE = "SHACL §4.6.4 sh:xone"
    ANCHOR = SHACL_SPEC + "#XoneConstraintComponent"

    def combine(self, nonconforming: list[str]) -> str:
        if not nonconforming:
            return "true"
        return "(" + " + ".join(f"IF({t}, 0, 1)" for t in nonconforming) + ") != 1"

    def decide(self, nonconforming: list[bool]) -> bool:
        return sum(1 for n in nonconforming if not n) != 1

    def describe(self) -> str:
        return "Value does not conform to exactly one shape of sh:xone"


SECTION = "SHACL §4.6 Logical Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (NotComponent, AndComponent, OrComponent, XoneComponent)
