"""SHACL 1.2 reification components: sh:reifierShape / sh:reificationRequired
(and the draft name sh:reifiableBy).

For a property shape with a predicate path ``p``, each value node ``v`` of a
focus node ``f`` stands for the triple term ``<<( f p v )>>``. A violation is
reported for ``v`` (as the suites expect) when a reifier of that triple term
(``?r rdf:reifies <<( f p v )>>``) does not conform to a reifier shape, or when
reification is required and there is no reifier — unless the focus node is
incomplete (:mod:`memkg.shacl.incomplete`): its reifier may be stated elsewhere.

Two paths decide it, alike: the SPARQL fragment over the store, and :meth:`judge` in Python
over the data as written (a store keeps ``<<( f p "01"^^xsd:integer )>>`` as ``"1"``: as written,
a reifier of the one is not a reifier of the other). ``tests/shacl/test_reification.py`` holds
the two to the same results.
"""

from __future__ import annotations

from collections import defaultdict
from typing import ClassVar

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, rdf, sh
from ...core.written import stored_form
from ..graph import boolean
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row


_REIFIES = f"<{rdf.reifies.value}>"


class ReifierShapeComponent(Component):
    """sh:reifierShape (+ sh:reificationRequired) — reifiers of the value triples conform."""

    IRI = sh.ReifierShapeConstraintComponent
    PARAMETERS = (sh.reifierShape, sh.reificationRequired)
    ACTIVATORS: ClassVar[tuple[NamedNode, ...]] = (sh.reifierShape, sh.reificationRequired)
    PARAM = sh.reifierShape
    RULE = "SHACL 1.2 §4.7.5 sh:reifierShape"
    ANCHOR = SHACL12_SPEC + "#ReifierShapeShapeConstraintComponent"
    SCOPE = "property"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        param = cls.PARAM
        required_term = reader.at_most_one(cls, sh.reificationRequired)
        required = False
        if required_term is not None:
            b = boolean(required_term)
            if b is None:
                raise cls.error(reader, f"sh:reificationRequired must be an xsd:boolean literal, got {required_term}")
            required = b
        shapes = tuple(reader.shape_ref(cls, param, v, node_shape=True) for v in reader.values(param))
        if not shapes and (not required or cls.PARAM != sh.reifierShape or reader.has(sh.reifiableBy)):
            return []  # sh:reificationRequired alone belongs to sh:reifierShape's component
        reader.check_scope(cls, param)
        pred = reader.shape.path.predicate if reader.shape.path is not None else None
        if pred is None:
            raise cls.error(reader, f"with {show(param, form='exact')} or sh:reificationRequired, sh:path must be an IRI")
        return [cls(reader.shape, shapes=shapes, reificationRequired=required, predicate=pred)]

    def _triple(self, ctx: Ctx, v: str) -> str:
        return f"<<( {ctx.focus} <{self.params['predicate'].value}> {v} )>>"

    def _missing(self, ctx: Ctx, v: str) -> str:
        r = ctx.fresh("r")
        missing = f"NOT EXISTS {{ {r} {_REIFIES} {self._triple(ctx, v)} }}"
        if ctx.compiler.incomplete:
            missing = f"({missing} && !{ctx.compiler.is_incomplete(ctx.focus)})"
        return missing

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        tests: list[str] = []
        r = ctx.fresh("r")
        ncs = [ctx.nc(s, r) for s in self.params["shapes"]]
        if any(nc is None for nc in ncs):
            # Reifier conformance decided in Python: fetch (value, reifier) pairs,
            # with the 'required but missing' test in the aux column.
            missing = self._missing(ctx, v) if self.params["reificationRequired"] else "false"
            return Fragment(
                f"{ctx.values()} OPTIONAL {{ {ctx.key_out} {_REIFIES} {self._triple(ctx, v)} }} BIND({missing} AS ?_X)",
                key=True,
                post=self._decide_rows,
            )
        if ncs:
            bad = " || ".join(f"EXISTS {{ {nc} }}" for nc in ncs)
            tests.append(f"EXISTS {{ {r} {_REIFIES} {self._triple(ctx, v)} FILTER({bad}) }}")
        if self.params["reificationRequired"]:
            tests.append(self._missing(ctx, v))
        return Fragment(f"{ctx.values()} FILTER({' || '.join(tests)})")

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        reifiers = {r.key for r in rows if r.key is not None}
        failing = [engine.nonconforming(s, reifiers) for s in self.params["shapes"]]
        by_value: dict[tuple[tuple[Term, ...], Term | None], list[Row]] = defaultdict(list)
        for r in rows:
            by_value[(r.group, r.value)].append(r)
        out: list[Row] = []
        for group in by_value.values():
            first = group[0]
            missing = isinstance(first.aux, Literal) and first.aux.value == "true"
            bad = any(r.key is not None and any(r.key in f for f in failing) for r in group)
            if bad or missing:
                out.append(first.without_key())
        return out

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        """The values whose triple, as written, has a reifier that does not conform, or (when
        reification is required) none; None for an incomplete focus node (SPARQL excuses it)."""
        if self.params["reificationRequired"] and engine.is_incomplete(focus):
            return None
        if not isinstance(focus, (NamedNode, BlankNode, Triple)):
            return []  # a literal is the subject of no triple: it has no values here
        predicate: NamedNode = self.params["predicate"]
        out: list[Term | None] = []
        for v in values:
            written = Triple(focus, predicate, v)
            stored = Triple(focus, predicate, stored_form(v))
            rows = engine.select(f"SELECT DISTINCT ?r ?t WHERE {{ ?r {_REIFIES} ?t }}", {"t": stored})
            candidates = [row["r"] for row in rows if "r" in row]
            reifiers = [r for r in candidates if written in engine.values_as_written(r, rdf.reifies)]
            failing = any(engine.nonconforming(s, reifiers) for s in self.params["shapes"]) if reifiers else False
            if failing or (self.params["reificationRequired"] and not reifiers):
                out.append(v)
        return out

    def template_values(self) -> dict[str, Term]:
        return {"reifierShape": s for s in self.params["shapes"][:1]}

    def describe(self) -> str:
        if self.params["shapes"]:
            return "A reifier of the value's triple does not conform to " + ", ".join(
                show(s, form="exact") for s in self.params["shapes"]
            )
        return "The value's triple has no reifier"


class ReifiableByComponent(ReifierShapeComponent):
    """sh:reifiableBy — the earlier draft name of sh:reifierShape (same semantics)."""

    IRI = sh.ReifiableByConstraintComponent
    PARAMETERS = (sh.reifiableBy, sh.reificationRequired)
    ACTIVATORS = (sh.reifiableBy,)
    PARAM = sh.reifiableBy
    RULE = "SHACL 1.2 draft sh:reifiableBy"
    ANCHOR = "https://github.com/w3c/data-shapes/pull/368"


SECTION = "SHACL 1.2 Reification Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (ReifierShapeComponent, ReifiableByComponent)
