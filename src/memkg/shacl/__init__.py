"""memkg's native SHACL engine: shapes compiled to SPARQL 1.2, run inside Oxigraph.

Load a shapes graph once, validate stores (or just the nodes a write touched)
many times::

    >>> from pyoxigraph import Store, RdfFormat, parse, NamedNode
    >>> shapes = Shapes.from_quads(parse(b'''
    ...   @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
    ...   @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    ...   ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
    ...     sh:property [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxCount 1 ] .
    ... ''', format=RdfFormat.TURTLE))
    >>> store = Store()
    >>> store.load(b'''@prefix ex: <http://example.org/> .
    ...   ex:ann a ex:Person ; ex:age 42 .
    ...   ex:bob a ex:Person ; ex:age "old" .''', format=RdfFormat.TURTLE)
    >>> report = shapes.validate(store)
    >>> report.conforms
    False
    >>> [(str(r.focus), str(r.path), str(r.value)) for r in report.results]
    [('<http://example.org/bob>', '<http://example.org/age>', '"old"')]
    >>> shapes.validate(store, focus=[NamedNode("http://example.org/ann")]).conforms
    True

A malformed shape is refused when the shapes load::

    >>> Shapes.from_quads(parse(b'''@prefix sh: <http://www.w3.org/ns/shacl#> .
    ...   <http://example.org/S> sh:targetNode <http://example.org/x> ; sh:path <http://example.org/p> ; sh:minCount -1 .
    ... ''', format=RdfFormat.TURTLE))
    Traceback (most recent call last):
    ...
    memkg.shacl.errors.ShapeError: shape <http://example.org/S>: sh:minCount must be a non-negative xsd:integer literal, got "-1"^^<http://www.w3.org/2001/XMLSchema#integer> [SHACL §4.2.1 sh:minCount, https://www.w3.org/TR/shacl/#MinCountConstraintComponent]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path as FilePath

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, Store, Triple

from ..core.errors import Violation
from ..core.prefixes import show
from ..core.terms import Term
from ..core.vocab import sh
from ..core.written import WrittenForms
from .compiler import Compiler, TargetBinder
from .components.sparql import component_definitions
from .engine import Engine
from .errors import ShapeError
from .expressions import Evaluator, ExpressionReader
from .graph import ShapesGraph, borrowed_prefix_warnings, parse_file
from .paths import Path
from .report import ValidationReport
from .rules import RuleError, RuleRunner, describe, read_rules
from .components.base import Shape
from .shapes import Loader
from .targets import NodeTarget, SparqlTarget
from .functions import load_functions
from .unknown_terms import refuse_unknown_terms


def _graph_list(
    default_graph: Iterable[NamedNode | BlankNode | DefaultGraph] | NamedNode | DefaultGraph | None,
) -> list[NamedNode | BlankNode | DefaultGraph] | None:
    if default_graph is None:
        return None
    if isinstance(default_graph, (NamedNode, BlankNode, DefaultGraph)):
        return [default_graph]
    return list(default_graph)


__all__ = ["Path", "RuleError", "ShapeError", "Shapes", "ValidationReport", "Violation", "WrittenForms"]


class Shapes:
    """A shapes graph, read, checked and compiled to SPARQL once.

    Build it with :meth:`from_quads` or :meth:`from_file`; run it with :meth:`validate`.
    """

    def __init__(self, graph: ShapesGraph, *, advanced: bool = True, always_applied: Collection[Term] = ()) -> None:
        self._graph = graph
        loader = Loader(graph, component_definitions(graph))
        for node in loader.candidates():
            loader.load(node)
        self._shapes: dict[Term, Shape] = loader.shapes
        self._functions = load_functions(graph)
        self._loader = loader
        refuse_unknown_terms(graph, {p for cls in loader.parsers for p in cls.PARAMETERS}, self._shapes)
        #: What is read but left unapplied without ``advanced`` (pySHACL's ``-a``), one line each.
        self._ignored: list[str] = []
        if not advanced:
            self._leave_advanced_aside(frozenset(always_applied))
        self._targeted: list[Shape] = [s for s in self._shapes.values() if s.targets and not s.deactivated]
        self._compiler = Compiler(self._shapes)
        self._incomplete_compiler: Compiler | None = None
        self._binders: dict[int, TargetBinder] = {}
        for shape in self._targeted:
            self._compiler.plan(shape)
            self._target_binder(shape)
        #: Whether a target node is a literal that a store holds in another form.
        self._rewritten_targets = any(
            isinstance(t, NodeTarget) and t.written != t.nodes for s in self._targeted for t in s.targets
        )
        self._uses_shapes_graph = any(
            getattr(c, "uses_shapes_graph", False) for s in self._shapes.values() for c in s.constraints
        )

    @classmethod
    def from_quads(
        cls, quads: Iterable[Quad | Triple], *, file_prefixes: Mapping[str, Collection[str]] | None = None,
        strict_prefixes: bool = False, advanced: bool = True, always_applied: Collection[Term] = (),
    ) -> "Shapes":
        """Shapes from the quads (or triples) of a shapes graph; graph names are ignored.

        ``file_prefixes``: the ``@prefix`` declarations of the files the quads come from
        (prefix → namespaces). SPARQL that uses a prefix no ``sh:prefixes``/``sh:declare``
        gives borrows it from them, as pySHACL does, and :attr:`warnings` says so once per
        prefix; ``strict_prefixes`` refuses it instead, as SHACL §5.2.1 says. ``advanced=False``
        reads SHACL-AF functions and custom targets (``sh:target``) but leaves them unapplied, as
        pySHACL does without ``-a``: a function call is unbound, a custom target selects nothing,
        and :attr:`warnings` says so once for each. The shapes and functions in ``always_applied``
        (memkg's own invariants, which a user's ``advanced`` does not choose) keep theirs.

        Raises :class:`ShapeError` naming the malformed shape and the rule it breaks.

        >>> from pyoxigraph import parse, RdfFormat
        >>> text = b'''@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://e/> .
        ...   ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "SELECT $this WHERE { $this ex:p 1 }" ] .'''
        >>> parser = parse(text, format=RdfFormat.TURTLE)
        >>> quads = list(parser)
        >>> shapes = Shapes.from_quads(quads, file_prefixes={p: [ns] for p, ns in parser.prefixes.items()})
        >>> print(shapes.warnings[0])  # doctest: +ELLIPSIS
        shape <http://e/S>: SPARQL uses the prefix 'ex', which no sh:prefixes or sh:declare gives; ...
        >>> Shapes.from_quads(quads, file_prefixes={"ex": ["http://e/"]}, strict_prefixes=True)
        Traceback (most recent call last):
        ...
        memkg.shacl.errors.ShapeError: shape <http://e/S>: the SPARQL of _:... uses the undeclared prefix 'ex'; ...
        """
        return cls(ShapesGraph(quads, file_prefixes=file_prefixes, strict_prefixes=strict_prefixes), advanced=advanced,
                   always_applied=always_applied)

    @classmethod
    def from_file(cls, path: str | FilePath, *, base_iri: str | None = None, strict_prefixes: bool = False) -> "Shapes":
        """Shapes from a Turtle/TriG/N-Triples/N-Quads (1.2) file; its ``@prefix`` declarations
        serve SPARQL that declares no prefixes (see :meth:`from_quads`).

        Raises ``SyntaxError`` for bad RDF, ``OSError`` if the file cannot be read,
        ``ValueError`` for an unknown extension, :class:`ShapeError` for malformed shapes.

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "shapes.ttl"
        >>> _ = path.write_text("@prefix sh: <http://www.w3.org/ns/shacl#> . "
        ...                     "<http://e/S> sh:targetNode <http://e/a> ; sh:class <http://e/C> .")
        >>> [str(s) for s in Shapes.from_file(path)]
        ['<http://e/S>']
        """
        quads, prefixes = parse_file(path, base_iri=base_iri)
        return cls.from_quads(quads, file_prefixes={p: [ns] for p, ns in prefixes.items()},
                              strict_prefixes=strict_prefixes)

    def _leave_advanced_aside(self, kept: frozenset[Term]) -> None:
        """As pySHACL without ``advanced``: SHACL-AF functions answer nothing (a call is unbound)
        and custom targets select nothing; each is said, once. Rules are the caller's to run. The
        shapes and functions ``kept`` are left as they are."""
        for iri, function in self._functions.items():
            if iri in kept:
                continue
            self._functions[iri] = function.ignored()
            self._ignored.append(f"function {show(iri, form='exact')} ignored: SHACL-AF functions run with --advanced "
                                 "(its calls are unbound)")
        for shape in self._shapes.values():
            if shape.node in kept:
                continue
            custom = [t for t in shape.targets if isinstance(t, SparqlTarget)]
            for target in custom:
                self._ignored.append(f"target {show(target.node, form='exact')} of shape {show(shape.node, form='exact')} "
                                     "ignored: SHACL-AF custom targets run with --advanced")
            shape.targets = [t for t in shape.targets if not isinstance(t, SparqlTarget)]

    def rules(self) -> list[tuple[Term, Term]]:
        """(shape, rule node) of every ``sh:rule`` of the shapes, deactivated or not, in the order
        of the shapes graph: what :meth:`apply_rules` reads (and checks)."""
        return [(node, rule) for node in self._shapes for rule in self._graph.objects(node, sh.rule)]

    @property
    def warnings(self) -> list[str]:
        """What loading (or running) the shapes let pass that SHACL would not: one line per
        prefix borrowed from the shapes files, naming the shapes that used it; without
        ``advanced``, one line per SHACL-AF function and custom target left unapplied."""
        return [*borrowed_prefix_warnings(self._graph), *self._ignored]

    def __len__(self) -> int:
        return len(self._shapes)

    def __repr__(self) -> str:
        return f"<Shapes: {len(self._shapes)} shapes, {len(self._targeted)} with targets>"

    def __iter__(self) -> Iterator[Term]:
        """The shape nodes (IRIs and blank nodes) of the shapes graph."""
        return iter(list(self._shapes))

    def _compiler_for(self, *, incomplete: bool) -> Compiler:
        """The compiler for a data graph that does (or does not) state SHACL 1.2
        ``sh:incomplete`` / ``sh:incompleteURIStart``; the first is compiled when first needed."""
        if not incomplete:
            return self._compiler
        if self._incomplete_compiler is None:
            compiler = self._compiler.variant(incomplete=True)
            for shape in self._targeted:  # planned before it is shared, as the first compiler is
                compiler.plan(shape)
            self._incomplete_compiler = compiler
        return self._incomplete_compiler

    def _target_binder(self, shape: Shape) -> TargetBinder:
        binder = self._binders.get(id(shape))
        if binder is None:
            binder = self._binders[id(shape)] = TargetBinder(shape, self._compiler)
        return binder

    def validate_quads(self, quads: Iterable[Quad | Triple]) -> ValidationReport:
        """Validate parsed quads (or triples), every literal as written; their union is the data graph.

        A pyoxigraph store would hold ``"01"^^xsd:integer`` as ``"1"``: the quads go into
        a store for the SPARQL, and :class:`WrittenForms` keeps what was written.

        >>> from pyoxigraph import parse, RdfFormat
        >>> shapes = Shapes.from_quads(parse(b'''@prefix sh: <http://www.w3.org/ns/shacl#> .
        ...   @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
        ...   <http://e/S> sh:targetSubjectsOf <http://e/p> ; sh:property [ sh:path <http://e/p> ; sh:datatype xsd:byte ] .
        ... ''', format=RdfFormat.TURTLE))
        >>> data = parse(b'<http://e/a> <http://e/p> "300"^^<http://www.w3.org/2001/XMLSchema#byte> .', format=RdfFormat.TURTLE)
        >>> [str(r.value) for r in shapes.validate_quads(data).results]
        ['"300"^^<http://www.w3.org/2001/XMLSchema#byte>']
        """
        flat = [Quad(q.subject, q.predicate, q.object, DefaultGraph()) for q in quads]
        store = Store()
        store.extend(flat)
        return self.validate(store, written=WrittenForms.of(flat))

    def evaluate(
        self,
        expression: Term,
        store: Store,
        *,
        focus: Term | None = None,
        scope: dict[str, Term] | None = None,
        default_graph: Iterable[NamedNode | BlankNode | DefaultGraph] | NamedNode | DefaultGraph | None = None,
    ) -> list[Term]:
        """The output nodes of the SHACL 1.2 node expression at ``expression`` (a term of
        this shapes graph: a constant, a list or a blank node with a function's
        parameters), evaluated against the data graph in ``store`` at the ``focus``
        node, with ``scope`` naming the values of ``shnex:var`` variables.

        Raises :class:`ShapeError` naming a function memkg does not implement.

        >>> from pyoxigraph import parse, RdfFormat, Literal
        >>> quads = list(parse(b'''@prefix shnex: <http://www.w3.org/ns/shacl-node-expr#> .
        ...   <http://e/x> <http://e/expr> [ shnex:sum ( 4 5.1 [ shnex:var "n" ] ) ] .''', format=RdfFormat.TURTLE))
        >>> shapes = Shapes.from_quads(quads)
        >>> expression = next(q.object for q in quads if q.predicate == NamedNode("http://e/expr"))
        >>> [str(t) for t in shapes.evaluate(expression, Store(), scope={"n": Literal("1", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))})]
        ['"10.1"^^<http://www.w3.org/2001/XMLSchema#decimal>']
        """
        expr = ExpressionReader(self._graph, self._load_for_expression).read(expression)
        engine = Engine(self, store, _graph_list(default_graph))
        return Evaluator(engine, scope).evaluate(expr, focus)

    def apply_rules(
        self,
        store: Store,
        *,
        default_graph: Iterable[NamedNode | BlankNode | DefaultGraph] | NamedNode | DefaultGraph | None = None,
        into: NamedNode,
        max_rounds: int = 100,
    ) -> int:
        """Run the shapes graph's SHACL-AF rules (:mod:`memkg.shacl.rules`) over the data graph
        (``default_graph``, as for :meth:`validate`) until they conclude nothing new, writing
        their conclusions into graph ``into`` of ``store``, which joins the data graph as they
        run; returns the number of triples added. Nothing else in ``store`` is written.

        Raises :class:`~memkg.shacl.rules.RuleError` naming the rules still concluding after
        ``max_rounds`` rounds.

        >>> from pyoxigraph import parse, RdfFormat
        >>> shapes = Shapes.from_quads(parse(b'''@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://e/> .
        ...   ex:S sh:targetClass ex:Square ; sh:rule [ a sh:TripleRule ;
        ...     sh:subject sh:this ; sh:predicate ex:height ; sh:object [ sh:path ex:width ] ] .
        ... ''', format=RdfFormat.TURTLE))
        >>> store = Store()
        >>> store.load(b"<http://e/sq> a <http://e/Square> ; <http://e/width> 3 .", format=RdfFormat.TURTLE)
        >>> shapes.apply_rules(store, into=NamedNode("http://e/inferred"))
        1
        >>> [str(q.object) for q in store.quads_for_pattern(None, NamedNode("http://e/height"), None)]
        ['"3"^^<http://www.w3.org/2001/XMLSchema#integer>']
        """
        runner = RuleRunner(self._graph, read_rules(self._graph, list(self._shapes)), self._functions)
        if not runner.rules:
            return 0
        for rule in runner.rules:  # a condition may be a shape nothing else names
            for condition in rule.conditions:
                self._load_for_expression(condition)
        graphs = _graph_list(default_graph) or [DefaultGraph()]
        added = 0
        new: dict[Term, int] = {}
        for _ in range(max_rounds):
            engine = Engine(self, store, [*graphs, into])

            def focus_nodes(shape_node: Term) -> list[Term]:
                shape = self._shapes.get(shape_node)
                if shape is None or not shape.targets:
                    return []
                rows = engine.select("SELECT ?_f WHERE " + self._target_binder(shape).pattern())
                return [row["_f"] for row in rows if "_f" in row]

            def conforming(condition: Term, nodes: list[Term]) -> list[Term]:
                failing = engine.nonconforming(condition, nodes)
                return [n for n in nodes if n not in failing]

            def evaluate(expression: Term, focus: Term) -> list[Term]:
                expr = ExpressionReader(self._graph, self._load_for_expression).read(expression)
                return Evaluator(engine, None).evaluate(expr, focus)

            new = runner.round(store, graphs, into, focus_nodes, conforming, evaluate)
            if not new:
                return added
            added += sum(new.values())
        raise RuleError(f"rules still conclude new triples after {max_rounds} rounds: {describe(new)}",
                        shape=next(iter(new)), rule="SHACL-AF §8 rules (memkg runs them to a fixpoint)",
                        link="https://www.w3.org/TR/shacl-af/#rules")

    def _load_for_expression(self, node: Term) -> Shape:
        """Load a shape named only by a node expression evaluated after load (``shnex:filterShape``...)."""
        known = node in self._shapes
        shape = self._loader.load(node)
        if not known:
            refuse_unknown_terms(self._graph, {p for cls in self._loader.parsers for p in cls.PARAMETERS}, [node])
        return shape

    def validate(
        self,
        store: Store,
        *,
        default_graph: Iterable[NamedNode | BlankNode | DefaultGraph] | NamedNode | DefaultGraph | None = None,
        focus: Iterable[Term] | None = None,
        scan: bool = False,
        written: WrittenForms | None = None,
        progress: Callable[[str], None] | None = None,
        shapes: Iterable[Term] | None = None,
        disallows: Iterable[NamedNode] | None = None,
    ) -> ValidationReport:
        """Validate the data graph held in ``store``.

        ``default_graph``: None validates the store's default graph; otherwise the
        union of the given graphs is the data graph (as ``Store.query(default_graph=...)``).
        ``focus``: None validates every target; otherwise only the given nodes, as
        focus nodes of the shapes whose targets select them (incremental validation).
        ``scan``: the same results for ``focus``, found by evaluating every target set
        at a time and keeping the focus nodes' (faster for many focus nodes in a
        data graph not much bigger than what they need).
        ``written``: the literals of the data as written where ``store`` holds another
        form (:class:`~memkg.core.written.WrittenForms`, from the parsed input): the
        focus nodes they touch are judged again as written, and results name the
        terms as written.
        ``progress`` is told as each query starts (``"query 3…"``): a long validation is not silent.
        ``shapes``: None runs every shape with targets; otherwise only the shapes named
        (pySHACL's ``--shape``): a shape named that has no targets selects nothing.
        ``disallows``: the severities whose results make the data graph nonconforming (SHACL
        1.2's ``sh:conformanceDisallows``); None: every severity but ``sh:Debug`` and ``sh:Trace``.
        Raises :class:`ShapeError` if a SPARQL-based constraint reports a failure,
        ``OSError`` if the store cannot be read.

        >>> from pyoxigraph import Literal, NamedNode, Quad, Store, parse, RdfFormat
        >>> shapes = Shapes.from_quads(parse(b'''@prefix sh: <http://www.w3.org/ns/shacl#> .
        ...   <http://e/S> sh:targetSubjectsOf <http://e/name> ; sh:property [ sh:path <http://e/name> ; sh:maxCount 1 ] .
        ... ''', format=RdfFormat.TURTLE))
        >>> store, tenant = Store(), NamedNode("http://e/tenant")
        >>> store.add(Quad(NamedNode("http://e/a"), NamedNode("http://e/name"), Literal("A"), tenant))
        >>> store.add(Quad(NamedNode("http://e/a"), NamedNode("http://e/name"), Literal("B"), tenant))
        >>> shapes.validate(store).conforms  # the default graph is empty
        True
        >>> print(shapes.validate(store, default_graph=[tenant], focus=[NamedNode("http://e/a")]))
        Violation: <http://e/a> path <http://e/name>: More than 1 values (shape _:..., sh:MaxCountConstraintComponent)
        """
        engine = Engine(self, store, _graph_list(default_graph), written, progress, only=shapes)
        results = engine.validate(focus, scan=scan)
        if disallows is None:
            # SHACL 1.2: results of severity sh:Debug or sh:Trace do not make a graph nonconforming.
            return ValidationReport(all(r.severity in (sh.Debug, sh.Trace) for r in results), tuple(results))
        disallowed = set(disallows)
        return ValidationReport(not any(r.severity in disallowed for r in results), tuple(results))
