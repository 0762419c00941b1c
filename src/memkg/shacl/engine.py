"""Runs compiled shapes against a pyoxigraph store.

One :class:`Engine` serves one :meth:`memkg.shacl.Shapes.validate` call: it
binds focus nodes (all targets, or the given focus nodes that a shape's
targets select), runs the generated queries, applies the Python steps of the
few constraints decided outside SPARQL, and turns solutions into results.
Conformance of nodes to shapes decided in Python is memoised for the call;
a (shape, node) pair met again while it is being decided is assumed to
conform (recursive shapes are undefined in SHACL 1.0; this is the usual choice).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from typing import Callable, Iterable, Protocol

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    QuerySolutions,
    Store,
    Triple,
    Variable,
)

from ..core.errors import Violation
from ..core.prefixes import show
from ..core.terms import GraphName, Term
from ..core.vocab import rdf, rdfs, sh
from ..core.written import WrittenForms, stored_form
from .compiler import MAX_BRANCHES, VALUES_CHUNK, Binder, Compiler, TargetBinder, node_binders
from .components.base import Branch, Component, Row, Shape
from .components.sparql import SHAPES_GRAPH
from .functions import Function, bound
from .graph import ShapesGraph
from .incomplete import Excuse, IncompleteNodes, stated
from .paths import Path, PredicatePath
from .targets import (
    ClassTarget,
    ExpressionTarget,
    NodeTarget,
    ObjectsOfTarget,
    SparqlTarget,
    SubjectsOfTarget,
    Target,
)
from .terms import TermKey, term_key


class CompiledShapes(Protocol):
    """What an engine reads of the shapes it runs: :class:`memkg.shacl.Shapes`, which
    imports the engine, so the engine names it through this protocol."""

    @property
    def _graph(self) -> ShapesGraph: ...
    @property
    def _targeted(self) -> list[Shape]: ...
    @property
    def _functions(self) -> dict[NamedNode, Function]: ...
    @property
    def _rewritten_targets(self) -> bool: ...
    @property
    def _uses_shapes_graph(self) -> bool: ...
    def _compiler_for(self, *, incomplete: bool) -> Compiler: ...
    def _target_binder(self, shape: Shape) -> TargetBinder: ...


class DataView:
    """Direct look-ups in the data graph(s), used to test targets for given focus nodes."""

    def __init__(self, store: Store, graphs: list[GraphName]) -> None:
        self.store = store
        self.graphs = graphs
        self._supers: dict[Term, set[Term]] = {}
        self._out: dict[Term, dict[NamedNode, list[Term]]] = {}

    def outgoing(self, node: Term) -> dict[NamedNode, list[Term]]:
        """The node's triples in the data graph, by predicate: read once, then asked
        for each shape's targets (one scan instead of a look-up per target predicate)."""
        found = self._out.get(node)
        if found is None:
            found = self._out[node] = defaultdict(list)
            for q in self._quads(node, None, None):
                found[q.predicate].append(q.object)
        return found

    def _quads(self, s: Term | None, p: NamedNode | None, o: Term | None) -> Iterable[Quad]:
        if isinstance(s, Literal):
            return
        for g in self.graphs:
            yield from self.store.quads_for_pattern(s, p, o, g)

    def objects(self, predicate: NamedNode) -> list[Term]:
        """The objects of every triple with this predicate."""
        return [q.object for q in self._quads(None, predicate, None)]

    def exists(self, s: Term | None, p: NamedNode | None, o: Term | None) -> bool:
        if s is not None and not isinstance(s, (NamedNode, BlankNode, Triple)):
            return False
        if s is not None and p is not None and o is None:
            return p in self.outgoing(s)
        return next(iter(self._quads(s, p, o)), None) is not None

    def superclasses(self, cls: Term) -> set[Term]:
        cached = self._supers.get(cls)
        if cached is None:
            cached, todo = set(), [cls]
            while todo:
                c = todo.pop()
                if c in cached or not isinstance(c, (NamedNode, BlankNode)):
                    continue
                cached.add(c)
                todo.extend(q.object for q in self._quads(c, rdfs.subClassOf, None))
            self._supers[cls] = cached
        return cached

    def is_instance(self, node: Term, cls: NamedNode) -> bool:
        if not isinstance(node, (NamedNode, BlankNode)):
            return False
        return any(cls in self.superclasses(t) for t in self.outgoing(node).get(rdf.type, ()))


_TEMPLATE = re.compile(r"\{[$?]([A-Za-z_][A-Za-z0-9_]*)\}")


def _preferred(messages: Iterable[Literal]) -> Literal | None:
    ranked = sorted(messages, key=lambda m: (m.language not in (None, "", "en"), m.language or "", m.value))
    return ranked[0] if ranked else None


class Engine:
    """Executes one validation."""

    def __init__(self, shapes: CompiledShapes, store: Store, default_graph: list[GraphName] | None,
                 written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
                 only: Iterable[Term] | None = None) -> None:
        self.shapes = shapes
        chosen = None if only is None else set(only)
        #: The shapes with targets this validation runs (all, or those ``only`` names).
        self.targeted: list[Shape] = [s for s in shapes._targeted if chosen is None or s.node in chosen]
        graphs: list[GraphName] = list(default_graph) if default_graph is not None else [DefaultGraph()]
        self.written = written if written is not None else WrittenForms()
        self._data_store, self._data_graphs = store, list(graphs)  # where the written forms' quads are
        self._judging: set[tuple[int, Term]] = set()
        if shapes._uses_shapes_graph:
            store, graphs, default_graph = self._with_shapes_graph(store, graphs), [DefaultGraph()], None
        self.store = store
        self.view = DataView(store, graphs)
        # SHACL 1.2 incomplete nodes: the queries test for them only if the data graph names them.
        uses_incomplete = stated(store, graphs)
        self.compiler: Compiler = shapes._compiler_for(incomplete=uses_incomplete)
        self._incomplete = IncompleteNodes(lambda node, p: self.view.outgoing(node).get(p, ()),
                                           self.view.objects(sh.incompleteURIStart)) if uses_incomplete else None
        self._default_graph: list[GraphName] | None = list(default_graph) if default_graph is not None else None
        self._functions = bound(shapes._functions, self.store, self._default_graph)
        self._memo: dict[tuple[int, Term], bool] = {}
        self._deciding: set[tuple[int, Term]] = set()
        self._nesting: set[tuple[int, Term]] = set()
        self._sparql_targets: dict[int, set[Term]] = {}
        self._vouching: set[tuple[int, Term]] = set()
        self.queries = 0
        self._progress = progress
        self.branches = 0  #: branches run in those queries (what parsing and planning cost follows)

    def _with_shapes_graph(self, store: Store, graphs: list[GraphName]) -> Store:
        """A temporary store with the data graph as default graph and the shapes
        graph as ``urn:memkg:shacl:shapes-graph`` (for ``$shapesGraph``)."""
        temp = Store()
        temp.extend(Quad(q.subject, q.predicate, q.object, DefaultGraph())
                    for g in graphs for q in store.quads_for_pattern(None, None, None, g))
        temp.extend(Quad(t.subject, t.predicate, t.object, SHAPES_GRAPH) for t in self.shapes._graph.triples())
        return temp

    # -- running queries --------------------------------------------------------------------

    def select(self, text: str, substitutions: dict[str, Term] | None = None) -> list[dict[str, Term]]:
        """Run a SELECT on the data graph; solutions as {variable name: term}."""
        subs = {Variable(k): v for k, v in substitutions.items()} if substitutions else None
        self.queries += 1
        if self._progress is not None:
            self._progress(f"query {self.queries}…")
        solutions = self.store.query(text, substitutions=subs, default_graph=self._default_graph,
                                     custom_functions=self._functions)
        assert isinstance(solutions, QuerySolutions)
        names = [v.value for v in solutions.variables]
        return [{n: t for n, t in zip(names, tuple(sol)) if t is not None} for sol in solutions]

    def run(self, items: list[tuple[Branch, Binder]]) -> list[Row]:
        """Evaluate branches with their binders; Python steps applied."""
        by_binding: dict[object, list[tuple[Branch, Binder]]] = defaultdict(list)
        for branch, binder in items:
            by_binding[binder.substitution].append((branch, binder))
        raw: dict[int, list[Row]] = defaultdict(list)
        for substitution, group in by_binding.items():
            subs = {"_f": substitution} if isinstance(substitution, (NamedNode, BlankNode, Literal, Triple)) else None
            for start in range(0, len(group), MAX_BRANCHES):
                chunk = group[start : start + MAX_BRANCHES]
                texts = [self.compiler.branch_text(b, binder) for b, binder in chunk]
                self.branches += len(texts)
                depth = max(len(b.route) for b, _ in chunk)
                for sol in self.select(self.compiler.query(texts, depth), subs):
                    branch = self.compiler.branches[int(sol["_C"].value)]  # type: ignore[union-attr]  # ?_C: a branch number every branch binds
                    root = sol.get("_f") or subs["_f"]  # type: ignore[index]  # subs is set whenever a branch leaves ?_f unbound
                    route = tuple(sol[f"_r{i}"] for i in range(1, len(branch.route) + 1))
                    raw[branch.cid].append(
                        Row(branch, root, route, sol["_F"], sol.get("_V"), sol.get("_P"), sol.get("_K"), sol.get("_X"))
                    )
        rows: list[Row] = []
        for cid, found in raw.items():  # noqa: B007
            post = self.compiler.branches[cid].fragment.post
            rows.extend(post(self, found) if post is not None else found)
        return rows

    # -- incomplete nodes -------------------------------------------------------------------------

    def is_incomplete(self, node: Term | None, *, iris_only: bool = False) -> bool:
        """Whether the data graph declares ``node`` incomplete (:mod:`memkg.shacl.incomplete`)."""
        return self._incomplete is not None and self._incomplete(node, iris_only=iris_only)

    def excused(self, comp: Component, focus: Term, found: list[Term | None] | None) -> list[Term | None] | None:
        """A component's results for ``focus`` decided in Python (:meth:`Component.judge`),
        without those that an incomplete focus or value node excuses."""
        excuse = self.compiler.excuse(comp)
        if found is None or excuse is None:
            return found
        if excuse is Excuse.FOCUS:
            return [] if self.is_incomplete(focus) else found
        return [v for v in found if not self.is_incomplete(v, iris_only=excuse is Excuse.IRI_VALUE)]

    # -- conformance decided in Python ---------------------------------------------------------

    def nonconforming(self, shape_node: Term, nodes: Iterable[Term]) -> set[Term]:
        """Those of ``nodes`` that do not conform to the shape."""
        shape = self.compiler.shape(shape_node)
        nodes = {n for n in nodes if n is not None}
        if shape.deactivated or not nodes:
            return set()
        key = id(shape)
        failing = {n for n in nodes if self._memo.get((key, n))}
        todo = [n for n in nodes if (key, n) not in self._memo and (key, n) not in self._deciding]
        if not todo:
            return failing
        self._deciding.update((key, n) for n in todo)
        try:
            nc = self.compiler.root_nonconformance(shape)
            found: set[Term] = set()
            for binder in node_binders(todo):
                if nc is not None:
                    subs = {"_f": binder.substitution} if binder.substitution is not None else None
                    for sol in self.select(self.compiler.nc_query(nc, binder), subs):
                        found.add(sol.get("_f", binder.substitution))  # type: ignore[arg-type]  # ?_f, or the substituted focus: never None
                else:
                    found.update(r.root for r in self.run([(b, binder) for b in self.compiler.plan(shape)]))
        finally:
            self._deciding.difference_update((key, n) for n in todo)
        for n in todo:
            self._memo[(key, n)] = n in found
        return failing | (found & set(todo))

    def surely_conforms_to(self, shape_node: Term, node: Term) -> bool:
        """True only if ``node`` certainly conforms to the shape, every constraint decided
        in Python (:meth:`Component.surely_conforms`); False: ask SPARQL."""
        shape = self.compiler.shape(shape_node)
        key = (id(shape), node)
        values = self._value_nodes(shape, node)
        if shape.deactivated or values is None or key in self._vouching:  # a recursive shape: ask SPARQL
            return False
        self._vouching.add(key)
        try:
            return all(self._clears(c, values, node) for c in shape.constraints)
        finally:
            self._vouching.discard(key)

    def _value_nodes(self, shape: Shape, node: Term) -> list[Term] | None:
        """The value nodes of ``node`` for ``shape`` when one look-up tells them: ``node``
        itself for a node shape, its values for a predicate path (None: other paths)."""
        if shape.path is None:
            return [node]
        if isinstance(shape.path, PredicatePath):
            return [] if isinstance(node, Literal) else self.view.outgoing(node).get(shape.path.iri, [])
        return None

    def _clears(self, comp: Component, values: list[Term], node: Term) -> bool:
        """Whether ``node`` with these value nodes surely conforms to one constraint."""
        return (comp.PER_VALUE and not values) or comp.surely_conforms(values, node, self)

    def nested_results(self, shape: Shape, rows: list[Row]) -> list[Row]:
        """Results of validating the rows' value nodes against a property shape
        reached recursively through ``sh:property``."""
        key = id(shape)
        todo = [n for n in {r.value for r in rows if r.value is not None} if (key, n) not in self._nesting]
        if not todo:
            return []
        self._nesting.update((key, n) for n in todo)
        try:
            sub = self.run([(b, binder) for binder in node_binders(todo) for b in self.compiler.plan(shape)])
        finally:
            self._nesting.difference_update((key, n) for n in todo)
        by_root: dict[Term, list[Row]] = defaultdict(list)
        for s in sub:
            by_root[s.root].append(s)
        out: list[Row] = []
        for r in rows:
            if r.value is None:
                continue
            for s in by_root.get(r.value, ()):
                out.append(replace(s, root=r.root, route=(*r.route, r.value, *s.route)))
        return out

    # -- targets ----------------------------------------------------------------------------------

    def targets(self, shape: Shape, node: Term) -> bool:
        """Whether one of the shape's targets selects ``node``."""
        return any(self._selects(t, shape, node) for t in shape.targets)

    def _selects(self, target: Target, shape: Shape, node: Term) -> bool:
        if isinstance(target, NodeTarget):
            return node in target.nodes
        if isinstance(target, ClassTarget):
            return self.view.is_instance(node, target.cls)
        if isinstance(target, SubjectsOfTarget):
            return self.view.exists(node, target.predicate, None)
        if isinstance(target, ObjectsOfTarget):
            return self.view.exists(None, target.predicate, node)
        if isinstance(target, (SparqlTarget, ExpressionTarget)):
            key = id(target)
            if key not in self._sparql_targets:
                text = "SELECT DISTINCT ?_f WHERE { " + target.sparql("?_f", self.compiler.fresh) + " }"
                self._sparql_targets[key] = {s["_f"] for s in self.select(text) if "_f" in s}
            return node in self._sparql_targets[key]
        raise TypeError(target)  # pragma: no cover

    # -- validation -------------------------------------------------------------------------------

    def validate(self, focus: Iterable[Term] | None, *, scan: bool = False) -> list[Violation]:
        """The results for ``focus`` (None: every target). ``scan``: reach the same results
        for many focus nodes by validating every target and keeping the focus nodes' rows,
        set at a time instead of node by node (cheaper when the data graph is not much
        bigger than what the focus nodes need, as in a write's scratch store)."""
        if focus is not None and scan:
            roots = {stored_form(n) for n in focus}
            rows = [r for r in self._rows(None) if r.root in roots]
        else:
            rows = self._rows(focus)
        if self.written or self.shapes._rewritten_targets:
            rows = self._as_written(rows, focus)
        results = [self.result(r) for r in rows]
        results.sort(key=_result_key)
        return results

    # -- terms as written -------------------------------------------------------------------------

    def values_as_written(self, focus: Term, predicate: NamedNode) -> list[Term]:
        """The values of ``predicate`` at ``focus`` as the input wrote them."""
        if self.written:
            found = self.written.values(self._data_graphs, focus, predicate, self._data_store)
            if found is not None:
                return found
        return [] if isinstance(focus, Literal) else list(self.view.outgoing(focus).get(predicate, []))

    def conforms_as_written(self, shape_node: Term, node: Term) -> bool | None:
        """Whether the literal ``node``, as written, conforms to the shape, decided in Python;
        None when Python cannot tell (not a literal, a path beyond a predicate, a
        constraint only SPARQL decides)."""
        shape = self.compiler.shape(shape_node)
        if shape.deactivated:
            return True
        if not isinstance(node, Literal):
            return None
        if shape.path is None:
            values: list[Term] = [node]
        elif isinstance(shape.path, PredicatePath):
            values = []  # a literal is the subject of no triple
        else:
            return None
        key = (id(shape), node)
        if key in self._judging:
            return True  # recursion: assumed to conform, as in nonconforming()
        self._judging.add(key)
        try:
            for comp in shape.constraints:
                nested = comp.params.get("property") if comp.component == sh.PropertyConstraintComponent else None
                if nested is not None:
                    verdict = self.conforms_as_written(nested, node)
                    if verdict is not True:
                        return verdict
                    continue
                judged = comp.judge(values, node, self)
                if judged is None:
                    return None
                if judged:
                    return False
            return True
        finally:
            self._judging.discard(key)

    def _as_written(self, rows: list[Row], focus: Iterable[Term] | None) -> list[Row]:
        """The rows for the input as written: focus nodes whose values a store holds in
        another form are judged again in Python where the component can be (their SPARQL
        rows dropped); every other row names its focus node and value as written."""
        written = self.written
        given = None if focus is None else {stored_form(n) for n in focus}
        judged: set[tuple[int, Term]] = set()
        extra: list[Row] = []
        # Asked once per shape and node, and per node and predicate, not once per constraint:
        # a shape's constraints on one predicate judge the same nodes and values.
        selected: dict[tuple[int, Term], bool] = {}
        values_of: dict[tuple[Term, NamedNode], list[Term]] = {}
        for shape in self.targeted:
            for branch in self.compiler.plan(shape):
                comp, path = branch.component, branch.shape.path
                if branch.route or comp is None or branch.shape.deactivated:
                    continue
                if isinstance(path, PredicatePath):
                    nodes: set[Term] = set()
                    for p in (path.iri, *comp.other_predicates()):
                        nodes |= written.subjects(self._data_graphs, p)
                    for node in nodes:
                        if given is not None and node not in given:
                            continue
                        chosen = selected.get((id(shape), node))
                        if chosen is None:
                            chosen = selected[(id(shape), node)] = self.targets(shape, node)
                        if chosen:
                            as_written = values_of.get((node, path.iri))
                            if as_written is None:
                                as_written = values_of[(node, path.iri)] = self.values_as_written(node, path.iri)
                            found = self.excused(comp, node, comp.judge(as_written, node, self))
                            if found is not None:
                                judged.add((branch.cid, node))
                                extra += [Row(branch, node, (), node, v, as_written=True) for v in found]
                elif path is None:
                    for stored, forms in self._literal_focus_nodes(shape).items():
                        if given is not None and stored not in given:
                            continue
                        verdicts = [(f, found) for f in forms if (found := comp.judge([f], f, self)) is not None]
                        if len(verdicts) == len(forms):
                            judged.add((branch.cid, stored))
                            extra += [Row(branch, f, (), f, v, as_written=True) for f, found in verdicts for v in found]
        out = [r for r in rows if (r.branch.cid, r.root) not in judged]
        return [w for r in out for w in self.as_written(r)] + extra

    def _literal_focus_nodes(self, shape: Shape) -> dict[Term, list[Term]]:
        """The shape's literal focus nodes that a store holds in another form:
        stored form -> the focus nodes as written."""
        written = self.written
        out: dict[Term, list[Term]] = defaultdict(list)
        for t in shape.targets:
            if isinstance(t, NodeTarget):
                for w in t.written:
                    if isinstance(w, Literal):
                        out[stored_form(w)].append(w)
            elif isinstance(t, ObjectsOfTarget):
                for w in written.objects(self._data_graphs, t.predicate):
                    out[stored_form(w)].append(w)
                for stored in list(out):
                    if stored not in out[stored] and any(
                        q.subject not in written.subjects(self._data_graphs, t.predicate)
                        for g in self._data_graphs for q in self._data_store.quads_for_pattern(None, t.predicate, stored, g)
                    ):
                        out[stored].append(stored)  # also written in its stored form
        return {k: list(dict.fromkeys(v)) for k, v in out.items() if v != [k]}

    def as_written(self, row: Row) -> list[Row]:
        """``row`` with its focus node and value as written (one row per written form)."""
        written = self.written
        if row.as_written or not written:
            return [row]
        stored = written.stored_literals()
        foci = written.forms(self._data_graphs, None, None, row.focus) if row.focus in stored else [row.focus]
        if row.value is not None and row.value == row.focus and row.branch.shape.path is None:
            return [replace(row, focus=f, value=f, as_written=True) for f in foci]  # a node shape's value is its focus
        values: list[Term | None] = [row.value]
        if row.value is not None and row.value in stored:
            path = row.branch.shape.path
            predicate = row.path if isinstance(row.path, NamedNode) else (
                path.iri if isinstance(path, PredicatePath) else None)
            subject = row.focus if predicate is not None and not isinstance(row.focus, Literal) else None
            values = list(written.forms(self._data_graphs, subject, predicate, row.value))
        return [replace(row, focus=f, value=v, as_written=True) for f in foci for v in values]

    def _rows(self, focus: Iterable[Term] | None) -> list[Row]:
        items: list[tuple[Branch, Binder]] = []
        set_forms: list[Branch] = []
        if focus is None:
            for shape in self.targeted:
                target_binder = self.shapes._target_binder(shape)
                for b in self.compiler.plan(shape):
                    if not b.route and getattr(b.component, "query_all", None) is not None:
                        set_forms.append(b)
                    else:
                        items.append((b, target_binder))
        else:
            nodes = list(dict.fromkeys(stored_form(n) for n in focus))
            for shape in self.targeted:
                matched = [n for n in nodes if self.targets(shape, n)]
                binders: dict[tuple[Term, ...], list[Binder]] = {}
                # Sparing queries pays for a small write, where parsing and planning them is
                # most of the cost; for many nodes evaluation dominates and the checks would not.
                prune = len(matched) <= VALUES_CHUNK
                for branch in self.compiler.plan(shape) if matched else ():
                    reported = tuple(n for n in matched if not prune or self._may_report(branch, n))
                    if reported not in binders:
                        binders[reported] = node_binders(reported)
                    items.extend((branch, binder) for binder in binders[reported])
        # (Not in a second thread: pyoxigraph holds the GIL while a query is iterated; measured.)
        rows = [r for b in set_forms for r in b.component.all_rows(self, b)]  # type: ignore[union-attr]  # set_forms holds only components with all_rows
        return rows + self.run(items)

    def _may_report(self, branch: Branch, node: Term) -> bool:
        """False if ``branch`` cannot report about ``node``: a constraint of a node shape
        or of a property shape on a predicate path, whose value nodes (``node`` itself,
        or its values for the predicate) the component clears in Python — none at all,
        for a per-value one. An index look-up here spares parsing and planning its part
        of a query."""
        if branch.route or branch.component is None:
            return True
        values = self._value_nodes(branch.shape, node)
        return values is None or not self._clears(branch.component, values, node)

    def result(self, row: Row) -> Violation:
        branch = row.branch
        comp = branch.component
        shape = branch.shape
        path: Path | None = shape.path
        if isinstance(row.path, NamedNode):
            path = PredicatePath(row.path)
        message = self.message(row)
        return Violation(
            shape=shape.node,
            focus=row.focus,
            message=message.value if message is not None else "",
            path=path,
            value=row.value,
            severity=(comp.severity if comp is not None else None) or shape.severity,
            component=comp.component if comp is not None else shape.node,
            source_shape=shape.node,
            source_constraint=comp.source_constraint if comp is not None else None,
            language=message.language if message is not None else None,
        )

    def message(self, row: Row) -> Literal | None:
        if row.message is not None:
            return row.message
        comp = row.branch.component
        if comp is None:
            return None
        templates = getattr(comp, "messages", ()) or row.branch.shape.messages
        chosen = _preferred(templates)
        if chosen is None:
            return Literal(comp.describe())
        values: dict[str, Term] = dict(comp.template_values())
        values["this"] = row.focus
        if row.value is not None:
            values["value"] = row.value
        if row.bindings:
            values.update(row.bindings)

        def fill(m: re.Match[str]) -> str:
            term = values.get(m.group(1))
            return show(term, form="lexical") if term is not None else m.group(0)

        text = _TEMPLATE.sub(fill, chosen.value)
        return Literal(text, language=chosen.language) if chosen.language else Literal(text)


def _result_key(r: Violation) -> TermKey:
    return (term_key(r.source_shape), term_key(r.focus), str(r.path or ""), term_key(r.value), term_key(r.component))


__all__ = ["DataView", "Engine", "Row"]
