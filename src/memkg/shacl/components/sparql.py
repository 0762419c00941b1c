"""SHACL-SPARQL: SPARQL-based constraints (SHACL §5, ``sh:sparql``) and
SPARQL-based constraint components (SHACL §6, ``sh:ConstraintComponent`` with
``sh:validator`` / ``sh:nodeValidator`` / ``sh:propertyValidator``).

Pre-binding (SHACL §5.6) is implemented two ways, both with the spec's
substitution semantics:

* inside generated queries, ``$this``/``$value`` are renamed to the engine's
  variables and the query is nested under ``EXISTS``, whose evaluation in
  Oxigraph substitutes the outer bindings everywhere in the nested pattern
  (also in sub-queries that project them). ASK validators are decided this way
  entirely in SPARQL; SELECT queries use it to find the focus nodes that have
  solutions;
* the solutions themselves are then read with one query per such focus node,
  where ``$this`` is replaced by the serialised term (blank nodes, which cannot
  be written in SPARQL, are bound with pyoxigraph's ``substitutions``).

Parameters, ``$currentShape`` and ``$shapesGraph`` are substituted as terms,
``$PATH`` as the SPARQL form of the shape's path.

An extension for validating a whole data graph: a SPARQL constraint may also
carry ``shx:selectAll`` (``https://w3id.org/memkg/shacl#``), a SELECT whose
solutions with ``$this`` *unbound* are the union of ``sh:select``'s solutions
over every node of the data graph. A query written for pre-binding (start from
``$this``, test it with ``NOT EXISTS``) is fast for a few focus nodes and slow
for all of them at once; the set-at-a-time form (distinct values first, one
join) can be ~10x faster. This engine runs it, once, when it validates every
target, keeps the solutions of the nodes the shape targets, and uses
``sh:select`` otherwise; other engines ignore it. That the two forms agree is
the shapes author's promise, which a differential test should hold them to.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any, ClassVar

from pyoxigraph import BlankNode, Literal, NamedNode, Store

from ...core.prefixes import show
from ...core.terms import BlankNodeInQuery, Term, has_blank, sparql_term
from ...core.vocab import SH, SHACL_SPEC, local_name, sh, shx
from ..errors import ShapeError
from ..functions import placeholders
from ..graph import ShapesGraph, boolean, prefixes_of
from ..sparqltext import UserQuery
from .base import Component, Ctx, Evaluation, Fragment, Reader, Row


#: The graph name under which the shapes graph is visible to ``$shapesGraph``.
SHAPES_GRAPH = NamedNode("urn:memkg:shacl:shapes-graph")
_CHECK_STORE = Store()


def _one_string(graph: ShapesGraph, node: Term, param: NamedNode, shape: Term, rule: str) -> str:
    values = graph.objects(node, param)
    if len(values) != 1 or not isinstance(values[0], Literal) or values[0].language:
        raise ShapeError(f"{node} must have exactly one string value for {show(param, form='exact')}", shape=shape, rule=rule,
                         link=SHACL_SPEC + "#sparql-constraints")
    return values[0].value


def messages_of(graph: ShapesGraph, node: Term) -> tuple[Literal, ...]:
    return tuple(m for m in graph.objects(node, sh.message) if isinstance(m, Literal))


def _consts(component: "Component", reader_shape: Any, query: UserQuery, *, where: str) -> dict[str, str]:
    """Term text for parameters, $currentShape, $shapesGraph and $PATH."""
    used = query.variables()
    consts: dict[str, str] = {}
    for name, value in component.template_values().items():
        if name in used:
            try:
                consts[name] = sparql_term(value)
            except BlankNodeInQuery:
                raise ShapeError(f"{where}: the value of parameter ${name} is a blank node and cannot be pre-bound",
                                 shape=reader_shape.node) from None
    if "currentShape" in used:
        try:
            consts["currentShape"] = sparql_term(reader_shape.node)
        except BlankNodeInQuery:
            raise ShapeError(f"{where} uses $currentShape but the shape is a blank node, which cannot be pre-bound",
                             shape=reader_shape.node) from None
    if "shapesGraph" in used:
        consts["shapesGraph"] = sparql_term(SHAPES_GRAPH)
    if "PATH" in used:
        if reader_shape.path is None:
            raise ShapeError(f"{where} uses $PATH, which is only available in property shapes", shape=reader_shape.node,
                             rule="SHACL §5.3.1 $PATH", link=SHACL_SPEC + "#sparql-constraints-path")
        if reader_shape.path.computed:
            raise ShapeError(f"{where} uses $PATH, which a property shape with sh:values (computed values) does not "
                             "have: not implemented", shape=reader_shape.node, rule="SHACL §5.3.1 $PATH",
                             link=SHACL_SPEC + "#sparql-constraints-path")
        consts["PATH"] = reader_shape.path.sparql()
    return consts


def _syntax_check(query: UserQuery, consts: dict[str, str], *, shape: Term, where: str,
                  functions: dict[NamedNode, Any] | None = None) -> None:
    # Only $this is pre-bound when the query runs; ?value is a result variable (it may be BIND's target).
    dummy = {"this": "<urn:memkg:shacl:check>"}
    try:
        _CHECK_STORE.query(query.render(consts={**dummy, **consts}), custom_functions=functions or None)
    except SyntaxError as exc:
        raise ShapeError(f"{where} is not valid SPARQL: {exc}", shape=shape,
                         rule="SHACL §5.1 sh:select", link=SHACL_SPEC + "#sparql-constraints-syntax") from None


#: Keywords after which a SELECT's solutions are not simply its WHERE pattern's.
_SOLUTION_SHAPERS = ("GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "COUNT", "SUM", "MIN", "MAX", "AVG",
                     "SAMPLE", "GROUP_CONCAT")


class _SelectBased(Component):
    """Shared logic of SELECT-based SPARQL constraints and validators."""

    query: UserQuery
    consts: dict[str, str]
    messages: tuple[Literal, ...] = ()
    uses_shapes_graph: bool = False

    def _prefilter(self, ctx: Ctx) -> str | None:
        """A correlated pattern with a solution iff the focus node has solutions."""
        if "this" not in self.query.projected():
            return None
        if not self.query.has_keyword(*_SOLUTION_SHAPERS):
            # Without grouping, aggregates or slicing, the SELECT has a solution iff its
            # WHERE pattern has one; nested directly under EXISTS, the bound focus drives
            # index lookups, whereas Oxigraph evaluates a sub-SELECT whole for every focus
            # node (quadratic: 28 s against 0.17 s for invariant 9 at 10k claims). The
            # query's other variables are renamed so the outer query cannot capture them.
            renames = {v: f"{ctx.focus}_q_{v}" for v in self.query.variables() if v != "this"}
            body = self.query.render(consts=self.consts, renames={**renames, "this": ctx.focus}, body_only=True)
            return f"FILTER EXISTS {{ {body} }}"
        sub = self.query.render(consts=self.consts, renames={"this": ctx.focus})
        return f"FILTER EXISTS {{ {{ {sub} }} }}"

    def fragment(self, ctx: Ctx) -> Fragment:
        inner = self._focus_join(ctx)
        if inner is None:
            return Fragment(self._prefilter(ctx) or "", value=False, post=self._solutions)
        return Fragment(
            f"{{ SELECT DISTINCT {ctx.focus} WHERE {{ {inner} }} }}",
            # Given a few focus nodes, the binder goes inside the sub-SELECT: its lookups
            # then start from those nodes instead of reading the whole data graph.
            focused_select=f"{{ SELECT DISTINCT %GROUP% WHERE {{ %BINDER% {inner} }} }}",
            value=False,
            post=self._solutions,
        )

    def _focus_join(self, ctx: Ctx) -> str | None:
        """At top level, the WHERE pattern to select the focus nodes with solutions,
        as a sub-SELECT joined on the focus (None where that is not allowed).

        Oxigraph does not use an outer binding to drive the lookups inside EXISTS: it
        re-evaluates the nested pattern for every focus node, which made invariant 9
        quadratic (22 s at 10k claims). One uncorrelated sub-SELECT, joined on the
        focus variable, is computed once (70 ms there).
        """
        # Only where joining equals pre-binding (SHACL §5.6): the WHERE pattern opens with
        # a triple pattern on $this, so every solution binds it before anything else reads
        # it, and no sub-SELECT could hide it from the join.
        if not ctx.top or "this" not in self.query.projected() or self.query.has_keyword(*_SOLUTION_SHAPERS):
            return None
        if self.query.has_keyword("SELECT") and sum(t.keyword == "SELECT" for t in self.query.tokens) > 1:
            return None
        if self.query.body_head_var() != "this":
            return None
        renames = {v: f"{ctx.focus}_q_{v}" for v in self.query.variables() if v != "this"}
        return self.query.render(consts=self.consts, renames={**renames, "this": ctx.focus}, body_only=True)

    def nonconformance(self, ctx: Ctx) -> str | None:
        return self._prefilter(ctx)

    def _solutions(self, engine: Evaluation, rows: list["Row"]) -> list["Row"]:
        out: list[Row] = []
        done: set[tuple[Term, ...]] = set()
        for r in rows:
            if r.group in done:
                continue
            done.add(r.group)
            focus = r.focus
            if has_blank(focus):
                if "this" not in self.query.projected():
                    raise ShapeError("a SPARQL constraint must project $this to validate blank-node focus nodes",
                                     shape=self.shape.node)
                solutions = engine.select(self.query.render(consts=self.consts), {"this": focus})
            else:
                solutions = engine.select(self.query.render(consts={**self.consts, "this": sparql_term(focus)}))
            out += self._rows(r, solutions)
        return out

    def _rows(self, r: "Row", solutions: list[dict[str, Term]]) -> list["Row"]:
        """The results of one focus node's solutions."""
        out: list[Row] = []
        seen: set[tuple[tuple[str, str], ...]] = set()
        for sol in solutions:
            # Oxigraph evaluates a default graph made of several graphs as a bag: a
            # triple stored in two of them matches twice. Identical solutions would
            # only repeat the same result, so each is reported once.
            ident = tuple(sorted((k, str(v)) for k, v in sol.items()))
            if ident in seen:
                continue
            seen.add(ident)
            failure = sol.get("failure")
            if failure is not None and boolean(failure):
                raise ShapeError(f"SPARQL constraint reported a failure for focus node {r.focus}", shape=self.shape.node)
            path = sol.get("path")
            message = sol.get("message")
            out.append(
                r.with_solution(
                    value=sol.get("value", r.focus),
                    path=path if isinstance(path, NamedNode) else None,
                    message=message if isinstance(message, Literal) else None,
                    bindings=sol,
                )
            )
        return out


class SparqlConstraintComponent(_SelectBased):
    """sh:sparql — a SPARQL SELECT query whose solutions are the violations (SHACL §5)."""

    IRI = sh.SPARQLConstraintComponent
    PARAMETERS = (sh.sparql,)
    RULE = "SHACL §5.1 SPARQL-based constraints"
    ANCHOR = SHACL_SPEC + "#sparql-constraints"
    #: The ``shx:selectAll`` form, for every focus node at once (see the module doc).
    query_all: UserQuery | None = None

    def all_rows(self, engine: Evaluation, branch: Any) -> list["Row"]:
        """Every target's results from one run of ``shx:selectAll``."""
        assert self.query_all is not None
        by_focus: dict[Term, list[dict[str, Term]]] = {}
        for sol in engine.select(self.query_all.render(consts=self.consts)):
            focus = sol.get("this")
            if focus is not None:
                by_focus.setdefault(focus, []).append(sol)
        out: list[Row] = []
        for focus, solutions in by_focus.items():
            if engine.targets(branch.shape, focus):
                out += self._rows(Row(branch, focus, (), focus, None), solutions)
        return out

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        out: list[Component] = []
        for node in reader.values(sh.sparql):
            if not isinstance(node, (NamedNode, BlankNode)):
                raise cls.error(reader, f"the values of sh:sparql must be IRIs or blank nodes, got {node}")
            deact = reader.graph.objects(node, sh.deactivated)
            if deact and boolean(deact[0]):
                continue
            text = _one_string(reader.graph, node, sh.select, reader.node, cls.RULE)
            where = f"the sh:select of {node}"
            prefixes = prefixes_of(reader.graph, node, shape=reader.node, text=text)
            query = UserQuery.parse(text, prefixes, shape=reader.node, where=where)
            if query.form != "SELECT":
                raise cls.error(reader, f"{where} must be a SELECT query")
            query.check_prebinding({"this", "currentShape", "shapesGraph"}, shape=reader.node, where=where)
            comp = cls(reader.shape, sparql=node)
            comp.source_constraint = node
            comp.messages = messages_of(reader.graph, node)
            severities = reader.graph.objects(node, sh.severity)  # SHACL 1.2: a constraint's own severity
            if len(severities) > 1 or (severities and not isinstance(severities[0], NamedNode)):
                raise cls.error(reader, f"the sh:severity of {node} must be a single IRI")
            comp.severity = severities[0] if severities and isinstance(severities[0], NamedNode) else None
            comp.query = query
            comp.consts = _consts(comp, reader.shape, query, where=where)
            comp.uses_shapes_graph = "shapesGraph" in query.variables()
            _syntax_check(query, comp.consts, shape=reader.node, where=where, functions=placeholders(reader.graph))
            comp.query_all = _select_all(reader, node, query, comp.consts)
            out.append(comp)
        return out

    def template_values(self) -> dict[str, Term]:
        return {}

    def describe(self) -> str:
        return f"Violates the SPARQL constraint {show(self.params['sparql'], form='exact')}"


def _select_all(reader: Reader, node: Term, query: UserQuery, consts: dict[str, str]) -> UserQuery | None:
    """The constraint's ``shx:selectAll``, checked: a SELECT projecting ``$this`` and
    every variable ``sh:select`` projects (its solutions must carry the same results)."""
    if not reader.graph.objects(node, shx.selectAll):
        return None
    where = f"the shx:selectAll of {node}"
    text = _one_string(reader.graph, node, shx.selectAll, reader.node, SparqlConstraintComponent.RULE)
    prefixes = prefixes_of(reader.graph, node, shape=reader.node, text=text)
    query_all = UserQuery.parse(text, prefixes, shape=reader.node, where=where)
    missing = sorted(({"this"} | query.projected()) - query_all.projected())
    if query_all.form != "SELECT" or missing:
        raise ShapeError(f"{where} must be a SELECT projecting " + ", ".join("?" + v for v in missing or ["this"]),
                         shape=reader.node)
    _syntax_check(query_all, consts, shape=reader.node, where=where)
    return query_all


@dataclass
class Validator:
    """A SPARQL-based validator of a constraint component (SHACL §6.2)."""

    node: Term
    query: UserQuery
    messages: tuple[Literal, ...]


@dataclass
class Parameter:
    """A declared parameter of a SPARQL-based constraint component (SHACL §6.1)."""

    path: NamedNode
    name: str
    optional: bool


class SparqlBasedComponent(_SelectBased):
    """Base of the classes made for each ``sh:ConstraintComponent`` of a shapes graph."""

    DEFINITION: ClassVar["ComponentDefinition"]
    validator: "Validator"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        d = cls.DEFINITION
        if not all(reader.has(p.path) for p in d.parameters if not p.optional):
            return []
        validator = (d.property_validator if reader.is_property else d.node_validator) or d.validator
        if validator is None:
            return []
        out: list[Component] = []
        choices: list[list[Term | None]] = [list(reader.values(p.path)) or [None] for p in d.parameters]
        for combo in product(*choices):
            params = {p.name: v for p, v in zip(d.parameters, combo) if v is not None}
            comp = cls(reader.shape, **params)
            comp.validator = validator
            comp.query = validator.query
            comp.messages = validator.messages or d.messages
            where = f"the validator {validator.node} of {show(d.node, form='exact')}"
            comp.consts = _consts(comp, reader.shape, validator.query, where=where)
            comp.uses_shapes_graph = "shapesGraph" in validator.query.variables()
            _syntax_check(validator.query, comp.consts, shape=reader.node, where=where)
            out.append(comp)
        return out

    @property
    def component(self) -> NamedNode:
        return self.DEFINITION.node  # type: ignore[return-value]  # read from an IRI

    def fragment(self, ctx: Ctx) -> Fragment:
        if self.query.form == "SELECT":
            return super().fragment(ctx)
        return Fragment(f"{ctx.values()} FILTER NOT EXISTS {{ {self._ask_body(ctx)} }}")

    def nonconformance(self, ctx: Ctx) -> str | None:
        if self.query.form == "SELECT":
            return super().nonconformance(ctx)
        return self.fragment(ctx).body

    def _ask_body(self, ctx: Ctx) -> str:
        return self.query.render(consts=self.consts, renames={"this": ctx.focus, "value": ctx.value}, body_only=True)

    def describe(self) -> str:
        return f"Violates {show(self.DEFINITION.node, form='exact')}"


@dataclass
class ComponentDefinition:
    """A ``sh:ConstraintComponent`` declared in the shapes graph."""

    node: Term
    parameters: list[Parameter]
    validator: Validator | None
    node_validator: Validator | None
    property_validator: Validator | None
    messages: tuple[Literal, ...]

    def make_class(self) -> type[SparqlBasedComponent]:
        mandatory = tuple(p.path for p in self.parameters if not p.optional) or tuple(p.path for p in self.parameters)
        return type(
            f"SparqlBased_{local_name(self.node) if isinstance(self.node, NamedNode) else 'component'}",
            (SparqlBasedComponent,),
            {
                "DEFINITION": self,
                "IRI": self.node,
                "PARAMETERS": tuple(p.path for p in self.parameters),
                "ACTIVATORS": mandatory,
                "RULE": f"SHACL §6 SPARQL-based constraint component {show(self.node, form='exact')}",
                "ANCHOR": SHACL_SPEC + "#sparql-constraint-components",
            },
        )


def component_definitions(graph: ShapesGraph) -> list[ComponentDefinition]:
    """The SPARQL-based constraint components declared in ``graph``."""
    out: list[ComponentDefinition] = []
    rule = "SHACL §6 SPARQL-based constraint components"
    for node in sorted(graph.instances(sh.ConstraintComponent), key=str):
        if not isinstance(node, NamedNode) or node.value.startswith(SH):
            continue  # core components (e.g. from a copy of the SHACL vocabulary) are built in
        params: list[Parameter] = []
        for p in graph.objects(node, sh.parameter):
            paths = graph.objects(p, sh.path)
            if len(paths) != 1 or not isinstance(paths[0], NamedNode):
                raise ShapeError(f"parameter {p} of {node} needs exactly one IRI sh:path", shape=node, rule=rule,
                                 link=SHACL_SPEC + "#constraint-components-parameters")
            opt = graph.objects(p, sh.optional)
            params.append(Parameter(paths[0], local_name(paths[0]), bool(opt and boolean(opt[0]))))
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ShapeError(f"parameters of {node} have clashing local names {names}", shape=node, rule=rule)

        def validator(prop: NamedNode, *, select_ok: bool, ask_ok: bool) -> Validator | None:
            values = graph.objects(node, prop)
            if not values:
                return None
            v = values[0]
            asks, selects = graph.objects(v, sh.ask), graph.objects(v, sh.select)
            where = f"the validator {v} of {show(node, form='exact') if isinstance(node, NamedNode) else node}"
            if asks and ask_ok:
                text = _one_string(graph, v, sh.ask, node, rule)
                prebound = {"this", "value", "currentShape", "shapesGraph", *names}
            elif selects and select_ok:
                text = _one_string(graph, v, sh.select, node, rule)
                prebound = {"this", "currentShape", "shapesGraph", *names}
            else:
                raise ShapeError(f"{where} needs sh:ask (sh:validator) or sh:select", shape=node, rule=rule)
            query = UserQuery.parse(text, prefixes_of(graph, v, shape=node, text=text), shape=node, where=where)
            query.check_prebinding(prebound, shape=node, where=where)
            return Validator(v, query, messages_of(graph, v))

        out.append(
            ComponentDefinition(
                node=node,
                parameters=params,
                validator=validator(sh.validator, select_ok=False, ask_ok=True),
                node_validator=validator(sh.nodeValidator, select_ok=True, ask_ok=True),
                property_validator=validator(sh.propertyValidator, select_ok=True, ask_ok=True),
                messages=messages_of(graph, node),
            )
        )
    return out


SECTION = "SHACL §5–6 SHACL-SPARQL"
COMPONENTS: tuple[type[Component], ...] = (SparqlConstraintComponent,)
