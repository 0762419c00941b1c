"""What every constraint component is: parse its parameters, compile to SPARQL.

A component class implements one SHACL constraint component. When shapes load,
:meth:`Component.parse` reads and checks the component's parameters at a shape
(raising :class:`~memkg.shacl.errors.ShapeError` that names the shape and the
spec paragraph). At compile time :meth:`Component.fragment` returns the SPARQL
that finds the violations for the focus nodes bound by the caller, and
:meth:`Component.nonconformance` a pattern that has a solution exactly when a
focus node does not conform (used to nest one shape inside another under
``EXISTS``); it returns None when the component cannot be nested that way,
and the engine then decides conformance in Python over SPARQL results.

Beside the components live what they are part of (a :class:`Shape`, a :class:`Branch`
of a compiled query, a :class:`Row` of its answer) and what they see of the compiler and
the engine that run them (:class:`Planner`, :class:`Evaluation`): both import the
components, so the components name them only through these protocols.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Protocol

from pyoxigraph import BlankNode, Literal, NamedNode

from ...core.prefixes import show
from ...core.terms import BlankNodeInQuery, Term, sparql_term
from ...core.vocab import SHACL12_SPEC, SHACL_SPEC, sh, xsd
from ..errors import ShapeError
from ..graph import ShapesGraph, boolean, integer
from ..incomplete import Excuse
from ..paths import Path
from ..targets import Target


@dataclass(eq=False)
class Shape:
    """One node shape (``path is None``) or property shape of the shapes graph."""

    node: NamedNode | BlankNode
    path: Path | None = None
    targets: list[Target] = field(default_factory=list)
    constraints: list["Component"] = field(default_factory=list)
    severity: NamedNode = sh.Violation
    messages: tuple[Literal, ...] = ()
    deactivated: bool = False

    @property
    def is_property(self) -> bool:
        return self.path is not None

    def __repr__(self) -> str:
        kind = "PropertyShape" if self.path is not None else "NodeShape"
        return f"<{kind} {self.node}>"


@dataclass(eq=False)
class Branch:
    """One constraint of one shape, reached from a root shape by a route of paths."""

    cid: int
    shape: Shape
    component: "Component | None"
    route: tuple[Path, ...]
    focus: str
    fragment: "Fragment"


@dataclass
class Row:
    """One solution of a generated query (a candidate or actual result)."""

    branch: Branch
    root: Term
    route: tuple[Term, ...]
    focus: Term
    value: Term | None
    path: Term | None = None
    key: Term | None = None
    aux: Term | None = None
    message: Literal | None = None
    bindings: dict[str, Term] | None = None
    #: Whether focus and value are already the terms as written (decided in Python).
    as_written: bool = False

    @property
    def group(self) -> tuple[Term, ...]:
        """Identifies the focus node together with the route that reached it."""
        return (self.root, *self.route)

    def without_value(self) -> Row:
        return replace(self, value=None)

    def without_key(self) -> Row:
        return replace(self, key=None)

    def with_solution(self, *, value: Term | None, path: Term | None, message: Literal | None,
                      bindings: dict[str, Term]) -> Row:
        return replace(self, value=value, path=path, message=message, bindings=bindings)


# -- what a component sees of the compiler and the engine that run it ----------------------
# The compiler (memkg.shacl.compiler.Compiler) and the engine (memkg.shacl.engine.Engine)
# import the components; the components know them only through these protocols.


class Planner(Protocol):
    """What a component asks of the compiler while its SPARQL is generated."""

    @property
    def incomplete(self) -> bool:
        """Whether incomplete nodes excuse results (the data graph states ``sh:incomplete``…)."""

    def fresh(self, hint: str = "x") -> str: ...
    def unless_incomplete(self, var: str, excuse: Excuse | None = Excuse.VALUE) -> str: ...
    def is_incomplete(self, var: str, *, iris_only: bool = False) -> str: ...
    def shape(self, node: Term) -> Shape: ...
    def is_shape(self, node: Term) -> bool: ...
    def shapes(self) -> list[Shape]: ...
    def nonconformance(self, shape: Shape, var: str, stack: tuple[Shape, ...]) -> str | None: ...
    def value_test(self, shape: Shape, var: str) -> str | None: ...


class Lookups(Protocol):
    """Direct look-ups in the data graph (memkg.shacl.engine.DataView)."""

    def outgoing(self, node: Term) -> dict[NamedNode, list[Term]]: ...
    def superclasses(self, cls: Term) -> set[Term]: ...
    def is_instance(self, node: Term, cls: NamedNode) -> bool: ...


class Evaluation(Protocol):
    """What a component asks of the engine while one validation runs: queries on the data
    graph, conformance of nodes to other shapes, and the data as written."""

    @property
    def view(self) -> Lookups: ...
    @property
    def compiler(self) -> Planner: ...

    def select(self, text: str, substitutions: dict[str, Term] | None = None) -> list[dict[str, Term]]: ...
    def is_incomplete(self, node: Term | None, *, iris_only: bool = False) -> bool: ...
    def nonconforming(self, shape_node: Term, nodes: Iterable[Term]) -> set[Term]: ...
    def surely_conforms_to(self, shape_node: Term, node: Term) -> bool: ...
    def nested_results(self, shape: Shape, rows: list[Row]) -> list[Row]: ...
    def targets(self, shape: Shape, node: Term) -> bool: ...
    def values_as_written(self, focus: Term, predicate: NamedNode) -> list[Term]: ...
    def conforms_as_written(self, shape_node: Term, node: Term) -> bool | None: ...
    def as_written(self, row: Row) -> list[Row]: ...


@dataclass
class Fragment:
    """What one constraint contributes to a validation query.

    ``body`` is a group-pattern text evaluated after the focus node is bound
    (correlated). Aggregating constraints give ``select`` instead: a sub-query
    template where ``%BINDER%`` is replaced by the pattern binding the focus
    nodes and ``%GROUP%`` by the variables to group on. ``value`` says whether
    the context's value variable carries ``sh:value``; ``path``/``key`` whether
    the path/key output variables are bound. ``post`` is a Python step over the
    rows (for components decided outside SPARQL). ``focused_select``, if given,
    replaces ``body`` when the focus nodes are given explicitly (incremental
    validation): a template like ``select`` whose lookups start from them.
    """

    body: str = ""
    value: bool = True
    path: bool = False
    key: bool = False
    select: str | None = None
    focused_select: str | None = None
    post: Callable[[Evaluation, list[Row]], list[Row]] | None = None


class Ctx:
    """Compile-time context: which shape, which focus variable, which output names."""

    def __init__(
        self,
        compiler: Planner,
        shape: Shape,
        focus: str,
        *,
        top: bool,
        stack: tuple[Shape, ...] = (),
        excuse: Excuse | None = None,
    ) -> None:
        self.compiler = compiler
        self.shape = shape
        self.focus = focus
        self.top = top
        self.stack = stack
        #: Whose incompleteness excuses the constraint's results (``Excuse.VALUE``: the
        #: value nodes that :meth:`values` binds leave out the incomplete ones).
        self.excuse = excuse
        if top:
            self.value, self.path_out, self.key_out = "?_V", "?_P", "?_K"
        else:
            self.value, self.path_out, self.key_out = compiler.fresh("v"), compiler.fresh("p"), compiler.fresh("k")

    @property
    def path(self) -> Path | None:
        return self.shape.path

    def fresh(self, hint: str = "x") -> str:
        """A variable name used nowhere else in the compiled queries."""
        return self.compiler.fresh(hint)

    def values(self, var: str | None = None) -> str:
        """A pattern binding ``var`` (default: the value variable) to the value nodes."""
        var = var or self.value
        if self.shape.path is None:
            pattern = f"BIND({self.focus} AS {var})"
        else:
            pattern = self.shape.path.pattern(self.focus, var)
        if self.excuse in (Excuse.VALUE, Excuse.IRI_VALUE):
            pattern += self.compiler.unless_incomplete(var, self.excuse)
        return pattern

    def value_test(self, shape_node: Term, var: str) -> str | None:
        """An expression true iff the node in ``var`` does not conform to the shape (None: use :meth:`nc`)."""
        return self.compiler.value_test(self.compiler.shape(shape_node), var)

    def values_of(self, focus: str, var: str) -> str:
        """Like :meth:`values` for another focus variable."""
        if self.shape.path is None:
            return f"BIND({focus} AS {var})"
        return str(self.shape.path.pattern(focus, var))

    def nc(self, shape_node: Term, var: str) -> str | None:
        """Pattern with a solution iff the node in ``var`` does not conform to the shape."""
        return self.compiler.nonconformance(self.compiler.shape(shape_node), var, self.stack)


class Component:
    """Base class of constraint components (one subclass per component)."""

    #: The constraint component IRI, e.g. ``sh:ClassConstraintComponent``.
    IRI: ClassVar[NamedNode]
    #: Parameter properties read by this component; the first activates it.
    PARAMETERS: ClassVar[tuple[NamedNode, ...]] = ()
    #: The spec paragraph, for error messages.
    RULE: ClassVar[str] = ""
    #: Link to the paragraph.
    ANCHOR: ClassVar[str] = ""
    #: "any", "node" (node shapes only) or "property" (property shapes only).
    SCOPE: ClassVar[str] = "any"
    #: Parameters whose presence activates the component (default: the first parameter).
    ACTIVATORS: ClassVar[tuple[NamedNode, ...]] = ()
    #: Whether the component judges only value nodes, so that a focus node without
    #: value nodes conforms to it (sh:minCount, sh:hasValue, sh:equals or SPARQL do not).
    #: Incremental validation skips its query for focus nodes with no values.
    PER_VALUE: ClassVar[bool] = False
    #: SHACL 1.2 incomplete nodes (:mod:`memkg.shacl.incomplete`): whose incompleteness
    #: excuses the component's results, because a triple missing there could cause them
    #: (None: a result never comes from a missing triple).
    EXCUSED_BY: ClassVar[Excuse | None] = None
    #: Whether :attr:`EXCUSED_BY` holds at node shapes too (False: at property shapes only).
    EXCUSED_AT_NODE_SHAPES: ClassVar[bool] = True

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        """Whether these value nodes of ``focus`` certainly conform (a per-value
        component may decide cheap cases in Python to spare a query; False: ask SPARQL).
        ``engine`` reads the focus node's other values (``engine.view``) and shapes."""
        return False

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        """The results for ``focus`` with these value nodes as written, decided in Python
        exactly as the SPARQL fragment decides them: the value of each result (None for
        a result about the focus node alone), or None when the component is not decided
        in Python (then the SPARQL results stand). Used for the focus nodes whose values
        a store holds in another form (:mod:`memkg.core.written`)."""
        return None

    def excused_by(self) -> Excuse | None:
        """Whose incompleteness excuses this constraint's results (see :attr:`EXCUSED_BY`)."""
        if self.shape.path is None and not self.EXCUSED_AT_NODE_SHAPES:
            return None
        return self.EXCUSED_BY

    #: Other predicates whose values the component reads at the focus node (sh:equals...).
    def other_predicates(self) -> tuple[NamedNode, ...]:
        return ()

    @classmethod
    def activators(cls) -> tuple[NamedNode, ...]:
        return cls.ACTIVATORS or cls.PARAMETERS[:1]

    @classmethod
    def orphan_check(cls, reader: "Reader") -> None:
        """Refuse secondary parameters given without the main one (default: nothing to check)."""

    def __init__(self, shape: Shape, **params: Any) -> None:
        self.shape = shape
        self.params = params
        self.source_constraint: Term | None = None
        #: The severity of this constraint's results when its triple is annotated with one
        #: (SHACL 1.2: ``sh:minCount 1 {| sh:severity sh:Warning |}``); None: the shape's.
        self.severity: NamedNode | None = None

    # -- loading -------------------------------------------------------------------------

    @classmethod
    def parse(cls, reader: "Reader") -> list["Component"]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def error(cls, reader: "Reader", reason: str) -> ShapeError:
        """A ShapeError for this component at the reader's shape."""
        return ShapeError(reason, shape=reader.node, rule=cls.RULE or None, link=cls.ANCHOR or None)

    # -- compiling -------------------------------------------------------------------------

    def fragment(self, ctx: Ctx) -> Fragment:  # pragma: no cover - abstract
        raise NotImplementedError

    def value_test(self, var: str) -> str | None:
        """A SPARQL expression over the value node in ``var`` alone, true iff it violates
        this constraint (an error counts as false); None when no expression tells.
        Lets a node shape made only of such constraints be tested inline, without an
        ``EXISTS`` per value (:meth:`~memkg.shacl.compiler.Compiler.value_test`)."""
        return None

    def nonconformance(self, ctx: Ctx) -> str | None:
        """Default: the violation fragment's body, when it is a plain correlated pattern."""
        frag = self.fragment(ctx)
        if frag.select is not None or frag.post is not None:
            return None
        return frag.body

    # -- reporting -------------------------------------------------------------------------

    @property
    def component(self) -> NamedNode:
        """The ``sh:sourceConstraintComponent`` of results."""
        return self.IRI

    def describe(self) -> str:
        """A default ``sh:resultMessage``."""
        return f"violates {show(self.IRI, form='exact')}"

    def template_values(self) -> dict[str, Term]:
        """Parameter values for ``{$name}`` in messages."""
        out: dict[str, Term] = {}
        for k, v in self.params.items():
            if isinstance(v, bool):
                continue
            if isinstance(v, int):
                v = Literal(str(v), datatype=xsd.integer)
            if isinstance(v, (NamedNode, Literal, BlankNode)):
                out[k] = v
        return out

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {self.shape.node}>"


class Reader:
    """Reads and checks parameter values at one shape while shapes load."""

    def __init__(self, graph: ShapesGraph, shape: Shape, shapes: Any) -> None:
        self.graph = graph
        self.shape = shape
        self.node = shape.node
        self.is_property = shape.path is not None
        self.shapes = shapes  # the loader; referenced shapes are registered through it

    def values(self, param: NamedNode) -> list[Term]:
        return self.graph.objects(self.node, param)

    def has(self, param: NamedNode) -> bool:
        return self.graph.has(self.node, param)

    def one(self, cls: type[Component], param: NamedNode) -> Term:
        """The single value of a parameter known to be present (ShapeError if several)."""
        value = self.at_most_one(cls, param)
        if value is None:  # pragma: no cover - callers check presence first
            raise cls.error(self, f"{show(param, form='exact')} has no value")
        return value

    def at_most_one(self, cls: type[Component], param: NamedNode) -> Term | None:
        vals = self.values(param)
        if len(vals) > 1:
            raise cls.error(self, f"{show(param, form='exact')} must have at most one value, found {len(vals)}")
        return vals[0] if vals else None

    def check_scope(self, cls: type[Component], param: NamedNode) -> None:
        if cls.SCOPE == "property" and not self.is_property:
            raise cls.error(self, f"node shapes cannot have {show(param, form='exact')} (only property shapes can)")
        if cls.SCOPE == "node" and self.is_property:
            raise cls.error(self, f"property shapes cannot have {show(param, form='exact')}")

    def non_negative_integer(self, cls: type[Component], param: NamedNode, value: Term) -> int:
        n = integer(value)
        if n is None or n < 0:
            raise cls.error(self, f"{show(param, form='exact')} must be a non-negative xsd:integer literal, got {value}")
        return n

    def boolean(self, cls: type[Component], param: NamedNode, value: Term) -> bool:
        b = boolean(value)
        if b is None:
            raise cls.error(self, f"{show(param, form='exact')} must be an xsd:boolean literal, got {value}")
        return b

    def iri(self, cls: type[Component], param: NamedNode, value: Term) -> NamedNode:
        if not isinstance(value, NamedNode):
            raise cls.error(self, f"the values of {show(param, form='exact')} must be IRIs, got {value}")
        return value

    def string(self, cls: type[Component], param: NamedNode, value: Term) -> str:
        if not isinstance(value, Literal) or value.datatype != xsd.string or value.language:
            raise cls.error(self, f"{show(param, form='exact')} must be an xsd:string literal, got {value}")
        return value.value

    def shape_ref(self, cls: type[Component], param: NamedNode, value: Term, *, node_shape: bool = False) -> Term:
        """Check that ``value`` can be a shape and make sure it is loaded."""
        if not isinstance(value, (NamedNode, BlankNode)):
            raise cls.error(self, f"the values of {show(param, form='exact')} must be shapes (IRIs or blank nodes), got {value}")
        shape = self.shapes.load(value)
        if node_shape and shape.path is not None:
            raise cls.error(self, f"the values of {show(param, form='exact')} must be node shapes, {value} has sh:path")
        return value

    def shape_list(self, cls: type[Component], param: NamedNode, value: Term) -> list[Term]:
        members = self.graph.list_items(value, shape=self.node, what=f"the value of {show(param, form='exact')}")
        return [self.shape_ref(cls, param, m) for m in members]


def const(term: Term) -> str:
    """SPARQL text for a constant; blank nodes (which cannot be named) match nothing."""
    try:
        return sparql_term(term)
    except BlankNodeInQuery:
        return "<urn:memkg:shacl:unnameable-blank-node>"


def spec(section: str, anchor: str, *, v12: bool = False) -> tuple[str, str]:
    """(rule, link) for a SHACL paragraph."""
    return (f"SHACL {'1.2 ' if v12 else ''}{section}", (SHACL12_SPEC if v12 else SHACL_SPEC) + "#" + anchor)


def at_least(n: int, focus: str, ctx: Ctx, cond: Callable[[str], str] | None = None) -> str | None:
    """A correlated pattern with a solution iff ``focus`` has at least ``n`` distinct
    value nodes (each satisfying the FILTER ``cond``), or None when ``n`` is too
    large to spell out pairwise."""
    if n <= 0:
        return ""
    if n > 4:
        return None
    vs = [ctx.fresh("c") for _ in range(n)]
    parts = [ctx.values_of(focus, v) for v in vs]
    if cond:
        parts += [f"FILTER({cond(v)})" for v in vs]
    for i in range(n):
        for j in range(i + 1, n):
            parts.append(f"FILTER(!sameTerm({vs[i]}, {vs[j]}))")
    return " ".join(parts)
