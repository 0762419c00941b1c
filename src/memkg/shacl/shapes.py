"""Shapes and targets: the shapes graph read into Python objects (SHACL §2).

The loader finds every shape of a shapes graph (SHACL §2.1: instances of
``sh:NodeShape``/``sh:PropertyShape``, subjects of targets, of ``sh:path`` or
of constraint parameters, and values of shape-expecting parameters), reads its
path, targets, severity, messages and constraints, and checks each of them:
a malformed shape raises :class:`~memkg.shacl.errors.ShapeError`.
"""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from ..core.prefixes import show
from ..core.terms import Term, sparql_term
from ..core.vocab import SHACL12_SPEC, SHACL_SPEC, local_name, owl, rdf, rdfs, sh, xsd
from ..core.written import stored_form
from .components import CORE, Component, Reader
from .components.base import Shape
from .components.sparql import ComponentDefinition, SparqlBasedComponent
from .errors import ShapeError
from .expressions import (
    ExpressionReader,
    describe,
    is_expression,
    target_pattern,
    values_path,
)
from .graph import ShapesGraph, boolean, prefixes_of
from .paths import parse_path
from .sparqltext import UserQuery
from .targets import (
    ClassTarget,
    ExpressionTarget,
    NodeTarget,
    ObjectsOfTarget,
    SparqlTarget,
    SubjectsOfTarget,
    Target,
)

_TARGETS = (sh.targetNode, sh.targetClass, sh.targetSubjectsOf, sh.targetObjectsOf, sh.target)


def _err(reason: str, node: Term, rule: str, anchor: str) -> ShapeError:
    return ShapeError(reason, shape=node, rule=rule, link=SHACL_SPEC + anchor)


def _values_err(reason: str, node: Term) -> ShapeError:
    return ShapeError(reason, shape=node, rule="SHACL 1.2 sh:values", link=SHACL12_SPEC + "#values")


class Loader:
    """Reads the shapes of one shapes graph."""

    def __init__(self, graph: ShapesGraph, definitions: list[ComponentDefinition]) -> None:
        self.graph = graph
        self.extra: tuple[type[SparqlBasedComponent], ...] = tuple(d.make_class() for d in definitions)
        self.parsers: tuple[type[Component], ...] = (*CORE, *self.extra)
        self.shapes: dict[Term, Shape] = {}

    def candidates(self) -> list[NamedNode | BlankNode]:
        """Every node that is a shape by SHACL §2.1, in a stable order."""
        g = self.graph
        found: dict[Term, None] = {}
        for kind in (sh.NodeShape, sh.PropertyShape, sh.ShapeClass):
            for n in g.instances(kind):
                found[n] = None
        params = {sh.path, *_TARGETS}
        for parser in self.parsers:
            params.update(parser.PARAMETERS)
        for p in params:
            for n in g.subjects(p):
                found[n] = None
        nodes: list[NamedNode | BlankNode] = [n for n in found if isinstance(n, (NamedNode, BlankNode))]
        return sorted(nodes, key=lambda n: (isinstance(n, BlankNode), n.value))

    def load(self, node: Term) -> Shape:
        """The shape at ``node`` (read once; shapes may refer to each other recursively)."""
        shape = self.shapes.get(node)
        if shape is not None:
            return shape
        if not isinstance(node, (NamedNode, BlankNode)):
            raise ShapeError(f"a shape must be an IRI or a blank node, not {node}")
        g = self.graph
        shape = self.shapes[node] = Shape(node)
        paths = g.objects(node, sh.path)
        if len(paths) > 1:
            raise _err(f"a property shape has exactly one sh:path, found {len(paths)}", node, "SHACL §2.3 sh:path", "#property-shapes")
        if paths:
            if g.is_instance(node, sh.NodeShape):
                raise _err("a SHACL instance of sh:NodeShape cannot have sh:path", node, "SHACL §2.2 node shapes", "#node-shapes")
            shape.path = parse_path(g, paths[0], shape=node)
            computed = g.objects(node, sh["values"])
            if len(computed) > 1:
                raise _values_err(f"a property shape has at most one sh:values, found {len(computed)}", node)
            if computed:
                if shape.path.predicate is None:
                    raise _values_err("sh:values needs a predicate path (an IRI as sh:path)", node)
                expr = ExpressionReader(g, self.load).read(computed[0], shape=node)
                shape.path = values_path(shape.path, expr, shape=node)
        elif g.has(node, sh["values"]):
            raise _values_err("sh:values is for property shapes (with sh:path)", node)
        elif g.is_instance(node, sh.PropertyShape):
            raise _err("a SHACL instance of sh:PropertyShape needs sh:path", node, "SHACL §2.3 property shapes", "#property-shapes")
        self._read_common(shape)
        reader = Reader(g, shape, self)
        for cls in self.parsers:
            if any(reader.has(p) for p in cls.activators()):
                shape.constraints.extend(self._annotated(shape, cls, cls.parse(reader)))
            cls.orphan_check(reader)
        return shape

    def _annotated(self, shape: Shape, cls: type[Component], components: list[Component]) -> list[Component]:
        """``components`` with the severity and deactivation their parameter triples are
        annotated with (SHACL 1.2: a reifier of ``<<( shape param value )>>`` carrying
        ``sh:severity`` or ``sh:deactivated``); deactivated ones are left out."""
        g, node = self.graph, shape.node
        out = list(components)
        for param in cls.PARAMETERS:
            for value in g.objects(node, param):
                if isinstance(value, BlankNode | NamedNode | Literal | Triple):
                    reifiers = g.subjects(rdf.reifies, Triple(node, param, value))
                else:  # pragma: no cover - every object is one of those
                    reifiers = []
                for reifier in reifiers:
                    concerned = [c for c in out if value in c.params.values()] or out
                    severities = g.objects(reifier, sh.severity)
                    if len(severities) > 1 or (severities and not isinstance(severities[0], NamedNode)):
                        raise _err("sh:severity must be a single IRI", node, "SHACL 1.2 §2.1.5 sh:severity", "#severity")
                    deactivated = g.objects(reifier, sh.deactivated)
                    if len(deactivated) > 1 or (deactivated and boolean(deactivated[0]) is None):
                        raise _err("sh:deactivated must be a single xsd:boolean", node,
                                   "SHACL 1.2 §2.1.6 sh:deactivated", "#deactivated")
                    for c in concerned:
                        if severities and isinstance(severities[0], NamedNode):
                            c.severity = severities[0]
                    if deactivated and boolean(deactivated[0]):
                        out = [c for c in out if c not in concerned]
        return out

    def _read_common(self, shape: Shape) -> None:
        g, node = self.graph, shape.node
        severities = g.objects(node, sh.severity)
        if len(severities) > 1 or (severities and not isinstance(severities[0], NamedNode)):
            raise _err("sh:severity must be a single IRI", node, "SHACL §2.1.5 sh:severity", "#severity")
        if severities:
            shape.severity = severities[0]  # type: ignore[assignment]  # checked above: a NamedNode
        messages = g.objects(node, sh.message)
        for m in messages:
            if not isinstance(m, Literal) or (m.datatype not in (xsd.string, rdf.langString)):
                raise _err(f"sh:message values must be strings, got {m}", node, "SHACL §2.1.5 sh:message", "#message")
        shape.messages = tuple(messages)  # type: ignore[arg-type]  # checked above: string literals
        deactivated = g.objects(node, sh.deactivated)
        if len(deactivated) > 1 or (deactivated and boolean(deactivated[0]) is None):
            raise _err("sh:deactivated must be a single xsd:boolean", node, "SHACL §2.1.6 sh:deactivated", "#deactivated")
        shape.deactivated = bool(deactivated and boolean(deactivated[0]))
        shape.targets = self._targets(shape)

    def _expression_target(self, shape: Term, node: Term) -> ExpressionTarget:
        """``sh:targetNode`` ``node``, a node expression, as a pattern (refused if it has none)."""
        expr = ExpressionReader(self.graph, self.load).read(node, shape=shape)
        pattern = target_pattern(expr, "?_nextarget")
        if pattern is None:
            raise ShapeError(f"sh:targetNode {node}: a node expression using {describe(expr)} as a target is not "
                             "implemented (constants, lists, shnex:instancesOf and sh:select without $this are)",
                             shape=shape, rule="SHACL 1.2 §2.1.3.1 sh:targetNode", link=SHACL12_SPEC + "#targetNode")
        return ExpressionTarget(pattern, node)

    def _sparql_target(self, shape: Term, target: Term) -> SparqlTarget:
        """``sh:target``: a SPARQL-based target, or an instance of a ``sh:SPARQLTargetType``
        whose parameters it gives (SHACL-AF §5.1, §5.2)."""
        g = self.graph
        kinds = [k for k in g.objects(target, rdf.type) if g.is_instance(k, sh.SPARQLTargetType)]
        holder = kinds[0] if len(kinds) == 1 else target
        selects = g.objects(holder, sh.select)
        if len(kinds) > 1 or len(selects) != 1 or not isinstance(selects[0], Literal):
            raise ShapeError(f"sh:target {target}: only SPARQL-based targets, and instances of one "
                             "sh:SPARQLTargetType, with exactly one sh:select are supported",
                             shape=shape, rule="SHACL-AF §5.1 SPARQL-based targets")
        consts: dict[str, str] = {}
        for param in g.objects(holder, sh.parameter) if kinds else ():
            paths = g.objects(param, sh.path)
            path = paths[0] if len(paths) == 1 else None
            if not isinstance(path, NamedNode):
                raise ShapeError(f"a parameter of the target type {holder} needs one IRI as sh:path", shape=shape,
                                 rule="SHACL-AF §5.2 SPARQL-based target types")
            values = g.objects(target, path)
            optional = any(boolean(o) for o in g.objects(param, sh.optional))
            if len(values) > 1 or not (values or optional):
                raise ShapeError(f"sh:target {target}: the target type {show(holder, form='exact')} takes one value of "
                                 f"{show(path, form='exact')}, found {len(values)}", shape=shape,
                                 rule="SHACL-AF §5.2 SPARQL-based target types")
            if values:
                consts[local_name(path)] = sparql_term(values[0])
        text = selects[0].value
        query = UserQuery.parse(text, prefixes_of(g, holder, shape=shape, text=text), shape=shape,
                                where=f"the target {target}")
        query.check_prebinding(set(consts), shape=shape, where=f"the target {target}")
        if query.form != "SELECT" or "this" not in query.projected():
            raise ShapeError(f"the target {target} must be a SELECT query projecting ?this", shape=shape,
                             rule="SHACL-AF §5.1 SPARQL-based targets")
        return SparqlTarget(query, target, tuple(consts.items()))

    def _targets(self, shape: Shape) -> list[Target]:
        g, node = self.graph, shape.node
        targets: list[Target] = []
        nodes = []
        for n in g.objects(node, sh.targetNode):
            if is_expression(g, n):
                targets.append(self._expression_target(node, n))
            else:
                nodes.append(n)
        if nodes:  # (a bare blank node of the shapes graph is never a node of the data graph: nothing to validate)
            targets.append(NodeTarget(tuple(stored_form(n) for n in nodes), tuple(nodes)))
        for p, cls, rule, anchor in (
            (sh.targetClass, ClassTarget, "SHACL §2.1.3.2 sh:targetClass", "#targetClass"),
            (sh.targetSubjectsOf, SubjectsOfTarget, "SHACL §2.1.3.4 sh:targetSubjectsOf", "#targetSubjectsOf"),
            (sh.targetObjectsOf, ObjectsOfTarget, "SHACL §2.1.3.5 sh:targetObjectsOf", "#targetObjectsOf"),
        ):
            for v in g.objects(node, p):
                if not isinstance(v, NamedNode):
                    raise _err(f"{show(p, form='exact')} values are IRIs, got {v}", node, rule, anchor)
                targets.append(cls(v))
        # SHACL 1.2: a sh:ShapeClass is a node shape and a class, so it targets its instances.
        is_class = g.is_instance(node, rdfs.Class) or g.is_instance(node, owl.Class) or g.is_instance(node, sh.ShapeClass)
        if is_class and (g.is_instance(node, sh.NodeShape) or g.is_instance(node, sh.PropertyShape)
                         or g.is_instance(node, sh.ShapeClass)):
            if not isinstance(node, NamedNode):
                raise _err("a shape that is also a class must be an IRI", node, "SHACL §2.1.3.3 implicit class targets", "#implicit-targetClass")
            targets.append(ClassTarget(node))
        for t in g.objects(node, sh.target):
            targets.append(self._sparql_target(node, t))
        return targets
