"""The compiler from shapes to SPARQL 1.2.

Every constraint of a shape becomes a *branch*: a SPARQL group pattern that,
after a *binder* has bound the focus nodes to ``?_f``, yields one solution per
validation result, with the constraint's number in ``?_C``, the result's focus
node in ``?_F``, value in ``?_V`` and, where needed, path in ``?_P``.
``sh:property`` is flattened into *routes* (the property shape's focus nodes
are the parent's value nodes, bound in ``?_r1``, ``?_r2``, ...), so one query
also reports the results of nested property shapes. Branches are joined with
``UNION`` into queries of at most :data:`MAX_BRANCHES` branches (Oxigraph's
planning cost grows faster than linearly with the number of branches).

Compiled for a data graph that states ``sh:incomplete`` or ``sh:incompleteURIStart``
(``incomplete=True``), the constraints that an incomplete node excuses leave it out
(:mod:`memkg.shacl.incomplete`); otherwise the queries do not mention these terms.

Shapes used by ``sh:node``, ``sh:not``, ``sh:and``, ``sh:or``, ``sh:xone``,
``sh:qualifiedValueShape`` and ``sh:reifierShape`` are nested as a pattern
under ``EXISTS`` that has a solution iff the node does not conform
(:meth:`Compiler.nonconformance`). Recursive shapes (and the few constraints
that cannot be nested) are decided by the engine in Python instead.
"""

from __future__ import annotations

import itertools
from typing import Callable, Iterable, Iterator

from ..core.terms import Term, has_blank, sparql_term
from .components.base import Branch, Component, Ctx, Evaluation, Fragment, Row, Shape
from .components.shape_based import PropertyComponent
from .incomplete import Excuse, condition
from .paths import Path

#: Branches per generated query.
MAX_BRANCHES = 8
#: Nested patterns longer than this are decided in Python instead.
INLINE_LIMIT = 100_000


class Binder:
    """Binds the root focus variable ``?_f``."""

    substitution: Term | None = None
    #: Whether the focus nodes are given (a few nodes), not selected by targets.
    explicit: bool = False

    def pattern(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


class TargetBinder(Binder):
    """The focus nodes of a shape's targets (full validation)."""

    def __init__(self, shape: Shape, compiler: "Compiler") -> None:
        parts = [t.sparql("?_f", compiler.fresh) for t in shape.targets]
        self._pattern = "{ SELECT DISTINCT ?_f WHERE { " + " UNION ".join("{ " + p + " }" for p in parts) + " } }"

    def pattern(self) -> str:
        return self._pattern


class ValuesBinder(Binder):
    """Explicit focus nodes that can be written in SPARQL (no blank nodes)."""

    explicit = True

    def __init__(self, nodes: Iterable[Term]) -> None:
        self._pattern = "VALUES ?_f { " + " ".join(sparql_term(n) for n in nodes) + " }"

    def pattern(self) -> str:
        return self._pattern


class SubstitutionBinder(Binder):
    """One focus node bound through pyoxigraph's ``substitutions`` (for blank nodes,
    which cannot be written in a query).

    The pattern is an OPTIONAL that never matches but mentions ``?_f``: without a
    pattern using the variable first, Oxigraph 0.5 folds ``BIND(?_f AS ?x)`` over
    an empty group to unbound before the substitution applies.
    """

    explicit = True

    def __init__(self, node: Term) -> None:
        self.substitution = node

    def pattern(self) -> str:
        return "OPTIONAL { ?_f <urn:memkg:shacl:anchor> ?_anchor }"


#: Focus nodes per VALUES block.
VALUES_CHUNK = 256


def node_binders(nodes: Iterable[Term]) -> list[Binder]:
    """Binders for a set of explicit focus nodes: VALUES binders (of at most
    :data:`VALUES_CHUNK` nodes) for the nameable nodes, one substitution binder
    per blank node."""
    named: list[Term] = []
    blanks: list[Term] = []
    for n in nodes:
        (blanks if has_blank(n) else named).append(n)
    out: list[Binder] = [ValuesBinder(named[i : i + VALUES_CHUNK]) for i in range(0, len(named), VALUES_CHUNK)]
    out.extend(SubstitutionBinder(b) for b in blanks)
    return out


class Compiler:
    """Compiles shapes into branches and nested non-conformance patterns."""

    def __init__(self, shapes: dict[Term, Shape], *, incomplete: bool = False,
                 counter: Iterator[int] | None = None) -> None:
        self._shapes = shapes
        #: Whether incomplete nodes excuse results (the data graph states sh:incomplete...).
        self.incomplete = incomplete
        # Shared by the compilers of one shapes graph: their target binders are interchangeable.
        self._counter = counter if counter is not None else itertools.count(1)
        self._plans: dict[int, list[Branch]] = {}
        self._nc_top: dict[int, str | None] = {}
        self.branches: list[Branch] = []

    def fresh(self, hint: str = "x") -> str:
        """A fresh variable name (``?_x12``)."""
        return f"?_{hint}{next(self._counter)}"

    def variant(self, *, incomplete: bool) -> "Compiler":
        """A compiler of the same shapes, drawing variable names from the same counter."""
        return Compiler(self._shapes, incomplete=incomplete, counter=self._counter)

    # -- incomplete nodes ---------------------------------------------------------------

    def excuse(self, comp: Component | None) -> Excuse | None:
        """Whose incompleteness excuses the constraint's results here (None: nobody's,
        always so when the data graph does not use the terms)."""
        return comp.excused_by() if self.incomplete and comp is not None else None

    def unless_incomplete(self, var: str, excuse: Excuse | None = Excuse.VALUE) -> str:
        """A FILTER (with a leading space) that leaves out the node in ``var`` when it is
        incomplete; nothing when the data graph does not use the terms."""
        if not self.incomplete or excuse is None:
            return ""
        return f" FILTER(!{self.is_incomplete(var, iris_only=excuse is Excuse.IRI_VALUE)})"

    def is_incomplete(self, var: str, *, iris_only: bool = False) -> str:
        """An expression true iff the node in ``var`` is incomplete ("false" when the
        data graph does not use the terms)."""
        return condition(var, self.fresh, iris_only=iris_only) if self.incomplete else "false"

    def shape(self, node: Term) -> Shape:
        return self._shapes[node]

    def is_shape(self, node: Term) -> bool:
        """Whether ``node`` is a shape of the shapes graph."""
        return node in self._shapes

    def shapes(self) -> list[Shape]:
        """Every shape of the shapes graph."""
        return list(self._shapes.values())

    # -- nesting -----------------------------------------------------------------------

    def nonconformance(self, shape: Shape, var: str, stack: tuple[Shape, ...]) -> str | None:
        """A pattern with a solution iff the node bound to ``var`` does not conform
        to ``shape`` (None: cannot be nested — recursion or a Python-decided part)."""
        if shape.deactivated:
            return "FILTER(false)"
        if shape in stack:
            return None
        inner = (*stack, shape)
        parts: list[str] = []
        for comp in shape.constraints:
            excuse = self.excuse(comp)
            pattern = comp.nonconformance(Ctx(self, shape, var, top=False, stack=inner, excuse=excuse))
            if pattern is None:
                return None
            if excuse is Excuse.FOCUS:
                pattern += self.unless_incomplete(var, excuse)
            parts.append(pattern)
        if not parts:
            return "FILTER(false)"
        text = parts[0] if len(parts) == 1 else " UNION ".join("{ " + p + " }" for p in parts)
        return None if len(text) > INLINE_LIMIT else text

    def value_test(self, shape: Shape, var: str) -> str | None:
        """An expression true iff the node in ``var`` does not conform to ``shape``, for a
        node shape whose every constraint is a test of the value alone
        (:meth:`Component.value_test`); None otherwise. ``EXISTS { nonconformance }``
        says the same, but is evaluated as a pattern per value (~3x slower for
        ``sh:or`` of datatypes, measured at 20k claims)."""
        if shape.deactivated:
            return "false"
        if shape.path is not None or not shape.constraints:
            return None
        tests = [c.value_test(var) for c in shape.constraints]
        if any(t is None for t in tests):
            return None
        return "(" + " || ".join(f"COALESCE({t}, false)" for t in tests) + ")"

    def root_nonconformance(self, shape: Shape) -> str | None:
        """:meth:`nonconformance` of ``shape`` at ``?_f`` (cached)."""
        key = id(shape)
        if key not in self._nc_top:
            self._nc_top[key] = self.nonconformance(shape, "?_f", ())
        return self._nc_top[key]

    # -- planning ----------------------------------------------------------------------

    def plan(self, root: Shape) -> list[Branch]:
        """The branches validating focus nodes of ``root`` (with its nested property shapes)."""
        key = id(root)
        if key not in self._plans:
            branches: list[Branch] = []
            self._walk(root, (), (root,), branches)
            self._plans[key] = branches
        return self._plans[key]

    def _walk(self, shape: Shape, route: tuple[Path, ...], chain: tuple[Shape, ...], out: list[Branch]) -> None:
        focus = f"?_r{len(route)}" if route else "?_f"
        for comp in shape.constraints:
            if isinstance(comp, PropertyComponent):
                nested = self.shape(comp.params["property"])
                if nested.deactivated:
                    continue
                if nested in chain:  # recursion through sh:property: evaluated by the engine
                    ctx = Ctx(self, shape, focus, top=True, stack=(shape,), excuse=self.excuse(comp))
                    frag = Fragment(ctx.values(), post=_nested_results(nested))
                    out.append(self._branch(shape, None, route, focus, frag))
                    continue
                step = (shape.path,) if shape.path is not None else ()
                self._walk(nested, route + step, (*chain, nested), out)
                continue
            ctx = Ctx(self, shape, focus, top=True, stack=(shape,), excuse=self.excuse(comp))
            out.append(self._branch(shape, comp, route, focus, comp.fragment(ctx)))

    def _branch(self, shape: Shape, comp: Component | None, route: tuple[Path, ...], focus: str, frag: Fragment) -> Branch:
        b = Branch(len(self.branches), shape, comp, route, focus, frag)
        self.branches.append(b)
        return b

    # -- query text --------------------------------------------------------------------

    def route_pattern(self, route: tuple[Path, ...]) -> str:
        parts, prev = [], "?_f"
        for i, path in enumerate(route, 1):
            # A step is a property shape's sh:property: its incomplete values are not validated.
            parts.append(path.pattern(prev, f"?_r{i}") + self.unless_incomplete(f"?_r{i}"))
            prev = f"?_r{i}"
        return " ".join(parts)

    def branch_text(self, branch: Branch, binder: Binder) -> str:
        frag = branch.fragment
        bound = binder.pattern() + " " + self.route_pattern(branch.route)
        select = frag.focused_select if binder.explicit and frag.focused_select is not None else frag.select
        if select is not None:
            group = " ".join(["?_f", *(f"?_r{i}" for i in range(1, len(branch.route) + 1))])
            text = select.replace("%BINDER%", bound).replace("%GROUP%", group)
        else:
            text = f"{bound} {frag.body}"
        if self.excuse(branch.component) is Excuse.FOCUS:
            text += self.unless_incomplete(branch.focus, Excuse.FOCUS)
        return f"{{ {text} BIND({branch.focus} AS ?_F) BIND({branch.cid} AS ?_C) }}"

    @staticmethod
    def query(texts: list[str], depth: int) -> str:
        route_vars = " ".join(f"?_r{i}" for i in range(1, depth + 1))
        return f"SELECT DISTINCT ?_C ?_f ?_F ?_V ?_P ?_K ?_X {route_vars} WHERE {{ {' UNION '.join(texts)} }}"

    def nc_query(self, nc: str, binder: Binder) -> str:
        return f"SELECT DISTINCT ?_f WHERE {{ {binder.pattern()} FILTER EXISTS {{ {nc} }} }}"


def _nested_results(shape: Shape) -> Callable[[Evaluation, list[Row]], list[Row]]:
    def post(engine: Evaluation, rows: list[Row]) -> list[Row]:
        return engine.nested_results(shape, rows)

    return post


__all__ = ["Binder", "Branch", "Compiler", "SubstitutionBinder", "TargetBinder", "ValuesBinder", "node_binders"]
