"""SHACL 1.2 list constraint components: sh:minListLength, sh:maxListLength,
sh:uniqueMembers, sh:memberShape.

Each value node must be a well-formed SHACL list in the data graph — ``rdf:nil``,
or a node with exactly one ``rdf:first`` and one ``rdf:rest`` whose rest is again
a list, without cycles (other triples on a list node are allowed) — and its
members must meet the constraint. A value node that is not a list is a result
(its value is the node). Lists are walked in Python with index look-ups
(:class:`~memkg.shacl.engine.DataView`), after SPARQL has found the value nodes.
"""

from __future__ import annotations


from pyoxigraph import BlankNode, NamedNode

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, rdf, sh
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row



def list_members(node: Term, engine: Evaluation) -> list[Term] | None:
    """The members of the data-graph list ``node``, or None if it is not a well-formed SHACL list."""
    members: list[Term] = []
    seen: set[Term] = set()
    while node != rdf.nil:
        if not isinstance(node, (NamedNode, BlankNode)) or node in seen:
            return None
        seen.add(node)
        out = engine.view.outgoing(node)
        first, rest = out.get(rdf.first, []), out.get(rdf.rest, [])
        if len(first) != 1 or len(rest) != 1:
            return None
        members.append(first[0])
        node = rest[0]
    return members


class _ListComponent(Component):
    PER_VALUE = True
    RULE = "SHACL 1.2 §4.9 list constraint components"

    def fragment(self, ctx: Ctx) -> Fragment:
        return Fragment(ctx.values(), post=self._decide_rows)

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        return [r for r in rows if r.value is not None and not self.accepts(list_members(r.value, engine), engine)]

    def accepts(self, members: list[Term] | None, engine: Evaluation) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        return [v for v in values if not self.accepts(list_members(v, engine), engine)]


class _ListLength(_ListComponent):
    PARAM = sh.minListLength

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        n = reader.non_negative_integer(cls, cls.PARAM, reader.one(cls, cls.PARAM))
        return [cls(reader.shape, length=n)]


class MinListLengthComponent(_ListLength):
    """sh:minListLength — every value node is a list of at least n members."""

    IRI = sh.MinListLengthConstraintComponent
    PARAMETERS = (sh.minListLength,)
    PARAM = sh.minListLength
    ANCHOR = SHACL12_SPEC + "#MinListLengthConstraintComponent"

    def accepts(self, members: list[Term] | None, engine: Evaluation) -> bool:
        return members is not None and len(members) >= self.params["length"]

    def describe(self) -> str:
        return f"Value is not a list of at least {self.params['length']} members"


class MaxListLengthComponent(_ListLength):
    """sh:maxListLength — every value node is a list of at most n members."""

    IRI = sh.MaxListLengthConstraintComponent
    PARAMETERS = (sh.maxListLength,)
    PARAM = sh.maxListLength
    ANCHOR = SHACL12_SPEC + "#MaxListLengthConstraintComponent"

    def accepts(self, members: list[Term] | None, engine: Evaluation) -> bool:
        return members is not None and len(members) <= self.params["length"]

    def describe(self) -> str:
        return f"Value is not a list of at most {self.params['length']} members"


class UniqueMembersComponent(_ListComponent):
    """sh:uniqueMembers — every value node is a list without repeated members."""

    IRI = sh.UniqueMembersConstraintComponent
    PARAMETERS = (sh.uniqueMembers,)
    ANCHOR = SHACL12_SPEC + "#UniqueMembersConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        on = reader.boolean(cls, sh.uniqueMembers, reader.one(cls, sh.uniqueMembers))
        return [cls(reader.shape, uniqueMembers=on)] if on else []

    def accepts(self, members: list[Term] | None, engine: Evaluation) -> bool:
        return members is not None and len(set(members)) == len(members)

    def describe(self) -> str:
        return "Value is not a list of distinct members"


class MemberShapeComponent(_ListComponent):
    """sh:memberShape — every value node is a list whose members all conform to the shape
    (an incomplete member is not checked, as by sh:node)."""

    IRI = sh.MemberShapeConstraintComponent
    PARAMETERS = (sh.memberShape,)
    ANCHOR = SHACL12_SPEC + "#MemberShapeConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, memberShape=reader.shape_ref(cls, sh.memberShape, v))
                for v in reader.values(sh.memberShape)]

    def accepts(self, members: list[Term] | None, engine: Evaluation) -> bool:
        if members is None:
            return False
        checked = [m for m in members if not engine.is_incomplete(m)]
        return not engine.nonconforming(self.params["memberShape"], checked)

    def describe(self) -> str:
        return f"Value is not a list whose members conform to {show(self.params['memberShape'], form='exact')}"


SECTION = "SHACL 1.2 List Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (
    MinListLengthComponent,
    MaxListLengthComponent,
    UniqueMembersComponent,
    MemberShapeComponent,
)
