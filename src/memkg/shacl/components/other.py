"""SHACL §4.8 other constraint components: sh:closed (+ sh:ignoredProperties),
sh:hasValue, sh:in."""

from __future__ import annotations


from pyoxigraph import BlankNode, Literal, NamedNode

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, SHACL_SPEC, rdf, sh
from ...core.written import stored_form, suspect
from ..incomplete import Excuse
from ..paths import PredicatePath, parse_path
from ..targets import ClassTarget
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row, const



def rewritten(term: Term) -> bool:
    """Whether a store (and SPARQL) would see the constant ``term`` in another form."""
    return isinstance(term, Literal) and suspect(term) and stored_form(term) != term


class ClosedComponent(Component):
    """sh:closed — value nodes have values only for the properties of the shape's
    property shapes and sh:ignoredProperties; each other triple is a result with
    its predicate as path and its object as value."""

    IRI = sh.ClosedConstraintComponent
    PARAMETERS = (sh.closed, sh.ignoredProperties)
    RULE = "SHACL §4.8.1 sh:closed"
    ANCHOR = SHACL_SPEC + "#ClosedConstraintComponent"

    @classmethod
    def orphan_check(cls, reader: Reader) -> None:
        """sh:ignoredProperties without sh:closed closes nothing: refused, as pySHACL refuses it."""
        if reader.has(sh.ignoredProperties) and not reader.has(sh.closed):
            raise cls.error(reader, "sh:ignoredProperties without sh:closed closes nothing; add sh:closed true")

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        value = reader.one(cls, sh.closed)
        if value == sh.ByTypes and reader.is_property:
            raise cls.error(reader, "sh:closed sh:ByTypes (SHACL 1.2) is supported on node shapes only")
        if value != sh.ByTypes and not reader.boolean(cls, sh.closed, value):
            return []
        allowed: list[NamedNode] = []
        for prop in reader.graph.objects(reader.node, sh.property):
            for path_node in reader.graph.objects(prop, sh.path):
                pred = parse_path(reader.graph, path_node, shape=prop).predicate
                if pred is not None and pred not in allowed:
                    allowed.append(pred)
        ignored = reader.at_most_one(cls, sh.ignoredProperties)
        if ignored is not None:
            for item in reader.graph.list_items(ignored, shape=reader.node, what="the value of sh:ignoredProperties"):
                if item not in allowed:
                    allowed.append(reader.iri(cls, sh.ignoredProperties, item))
        return [cls(reader.shape, closed=value, allowed=tuple(allowed))]

    def fragment(self, ctx: Ctx) -> Fragment:
        allowed = ", ".join(f"<{p.value}>" for p in self.params["allowed"])
        if ctx.shape.path is None:
            node, bind = ctx.focus, ""
        else:
            node = ctx.fresh("n")
            bind = ctx.values(node)
        test = f" FILTER({ctx.path_out} NOT IN ({allowed}))" if allowed else ""
        post = self._by_types if self.params["closed"] == sh.ByTypes else None
        return Fragment(f"{bind} {node} {ctx.path_out} {ctx.value} .{test}", path=True, post=post)

    def _by_types(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        """SHACL 1.2 sh:closed sh:ByTypes: also allowed are rdf:type and the properties of every
        shape that targets one of the focus node's classes (explicitly or as a class), and of
        the shapes those reach through sh:node."""
        allowed: dict[Term, set[Term]] = {}
        out = []
        for r in rows:
            if r.focus not in allowed:
                allowed[r.focus] = self._allowed_by_types(r.focus, engine)
            if r.path not in allowed[r.focus]:
                out.append(r)
        return out

    @staticmethod
    def _allowed_by_types(node: Term, engine: Evaluation) -> set[Term]:
        classes: set[Term] = set()
        for t in engine.view.outgoing(node).get(rdf.type, []) if not isinstance(node, Literal) else []:
            classes |= engine.view.superclasses(t)
        todo = [s for s in engine.compiler.shapes()
                if any(isinstance(t, ClassTarget) and t.cls in classes for t in s.targets)]
        allowed: set[Term] = {rdf.type}
        seen: set[int] = set()
        while todo:
            shape = todo.pop()
            if id(shape) in seen:
                continue
            seen.add(id(shape))
            for c in shape.constraints:
                if c.component == sh.PropertyConstraintComponent:
                    path = engine.compiler.shape(c.params["property"]).path
                    if isinstance(path, PredicatePath):
                        allowed.add(path.iri)
                elif c.component == sh.NodeConstraintComponent:
                    todo.append(engine.compiler.shape(c.params["node"]))
                elif c.component == sh.ClosedConstraintComponent:
                    allowed.update(c.params["allowed"])
        return allowed

    def describe(self) -> str:
        return "Predicate is not allowed (closed shape)"


class HasValueComponent(Component):
    """sh:hasValue — the given term is one of the value nodes."""

    IRI = sh.HasValueConstraintComponent
    PARAMETERS = (sh.hasValue,)
    RULE = "SHACL §4.8.2 sh:hasValue"
    ANCHOR = SHACL_SPEC + "#HasValueConstraintComponent"
    # At a node shape the value node is the focus node itself: no triple decides it.
    EXCUSED_BY = Excuse.FOCUS
    EXCUSED_AT_NODE_SHAPES = False

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, hasValue=v) for v in reader.values(sh.hasValue)]

    def fragment(self, ctx: Ctx) -> Fragment:
        term = self.params["hasValue"]
        if isinstance(term, BlankNode):
            return Fragment("", value=False)  # a shapes-graph blank node is never a data value
        if rewritten(term) and (ctx.shape.path is None or ctx.shape.path.predicate is not None):
            # SPARQL compares constants in their stored form ("1"^^xsd:boolean is true): decide as written.
            return Fragment("", value=False, post=self._decide_rows)
        if ctx.shape.path is None:
            return Fragment(f"FILTER(!sameTerm({ctx.focus}, {const(term)}))", value=False)
        return Fragment(f"FILTER NOT EXISTS {{ {ctx.shape.path.has_value(ctx.focus, const(term), ctx.fresh('h'))} }}",
                        value=False)

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        path = self.shape.path
        out = []
        for row in rows:
            for r in engine.as_written(row):
                predicate = path.predicate if path is not None else None
                values = [r.focus] if predicate is None else engine.values_as_written(r.focus, predicate)
                if self.judge(values, r.focus, engine):
                    out.append(r)
        return out

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        term = self.params["hasValue"]
        return [] if isinstance(term, BlankNode) or term in values else [None]

    def describe(self) -> str:
        return f"Missing expected value {show(self.params['hasValue'], form='exact')}"


class InComponent(Component):
    """sh:in — every value node is a member of the list."""

    IRI = sh.InConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh["in"],)
    RULE = "SHACL §4.8.3 sh:in"
    ANCHOR = SHACL_SPEC + "#InConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        value = reader.one(cls, sh["in"])
        members = reader.graph.list_items(value, shape=reader.node, what="the value of sh:in")
        return [cls(reader.shape, **{"in": value, "members": tuple(members)})]

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        if any(rewritten(m) for m in self.params["members"]):
            # SPARQL compares constants in their stored form ("1"^^xsd:boolean is true): decide as written.
            return Fragment(ctx.values(), post=self._decide_rows)
        tests = [f"sameTerm({v}, {const(m)})" for m in self.params["members"] if not isinstance(m, BlankNode)]
        return Fragment(f"{ctx.values()} FILTER(!({' || '.join(tests) or 'false'}))")

    def _decide_rows(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        members = self.params["members"]
        return [r for row in rows for r in engine.as_written(row) if r.value not in members]

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        members = self.params["members"]
        return [v for v in values if v not in members]

    def describe(self) -> str:
        return "Value is not in " + ", ".join(show(m, form="exact") for m in self.params["members"])


class UniqueValuesForComponent(Component):
    """sh:uniqueValuesFor (SHACL 1.2) — no two focus nodes of the shape's targets share the values of
    the property (or, for a list of properties, the same combination of values)."""

    IRI = sh.UniqueValuesForConstraintComponent
    PARAMETERS = (sh.uniqueValuesFor,)
    RULE = "SHACL 1.2 §4.8.4 sh:uniqueValuesFor"
    ANCHOR = SHACL12_SPEC + "#UniqueValuesForConstraintComponent"
    SCOPE = "node"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        reader.check_scope(cls, sh.uniqueValuesFor)
        out: list[Component] = []
        for v in reader.values(sh.uniqueValuesFor):
            items = reader.graph.list_items(v, shape=reader.node, what="the value of sh:uniqueValuesFor") \
                if isinstance(v, BlankNode) or v == rdf.nil else [v]
            if not items:
                raise cls.error(reader, "sh:uniqueValuesFor needs at least one property")
            out.append(cls(reader.shape, uniqueValuesFor=v,
                           properties=tuple(reader.iri(cls, sh.uniqueValuesFor, i) for i in items)))
        return out

    def fragment(self, ctx: Ctx) -> Fragment:
        targets = [t.sparql("?_g", ctx.fresh) for t in ctx.shape.targets]
        if not targets:
            return Fragment("FILTER(false)", value=False)  # no other focus node to clash with
        other = ctx.fresh("g")
        values = [ctx.fresh("u") for _ in self.params["properties"]]
        mine = " ".join(f"{ctx.focus} <{p.value}> {v} ." for p, v in zip(self.params["properties"], values))
        theirs = " ".join(f"{other} <{p.value}> {v} ." for p, v in zip(self.params["properties"], values))
        among = " UNION ".join("{ " + t.replace("?_g", other) + " }" for t in targets)
        return Fragment(f"FILTER EXISTS {{ {mine} {theirs} FILTER(!sameTerm({other}, {ctx.focus})) {among} }}", value=False)

    def describe(self) -> str:
        return "Another focus node has the same values for " + ", ".join(show(p, form="exact") for p in self.params["properties"])


SECTION = "SHACL §4.8 Other Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (ClosedComponent, HasValueComponent, InComponent, UniqueValuesForComponent)
