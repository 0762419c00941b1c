"""The ``sh:`` terms the engine implements; a shapes graph using another is refused.

A shape written with a term the engine does not know (a SHACL 1.2 feature not
built yet, a SHACL-AF function or rule, a typo such as ``sh:minCont``) would
otherwise be read without it and could report a silent "conforms". So every
``sh:`` predicate of the shapes graph, and every ``sh:`` class a node is typed
with, must be one the engine implements or a descriptive one it may ignore;
anything else raises :class:`~memkg.shacl.errors.ShapeError` naming the term.

>>> from pyoxigraph import Literal, NamedNode, Triple
>>> from memkg.shacl.graph import ShapesGraph
>>> from memkg.core.vocab import sh
>>> s = NamedNode("http://e/S")
>>> refuse_unknown_terms(ShapesGraph([Triple(s, sh.minCont, Literal("1"))]), set())
Traceback (most recent call last):
...
memkg.shacl.errors.ShapeError: shape <http://e/S>: sh:minCont is not a SHACL term memkg's engine implements; the shapes graph is refused rather than read without it [SHACL 1.2 Core, https://w3c.github.io/data-shapes/shacl12-core/]
"""

from __future__ import annotations

from collections.abc import Iterable

from pyoxigraph import NamedNode, Triple

from ..core.prefixes import show
from ..core.terms import Term
from ..core.vocab import SH, SHACL12_SPEC, rdf, sh
from .errors import ShapeError
from .functions import FUNCTION_CLASSES
from .graph import ShapesGraph

#: Predicates the engine reads besides the components' parameters: structure, targets,
#: SHACL-SPARQL, reports (test files hold their expected report), and data-graph flags.
_STRUCTURE = (
    "path", "inversePath", "alternativePath", "zeroOrMorePath", "oneOrMorePath", "zeroOrOnePath",
    "targetNode", "targetClass", "targetSubjectsOf", "targetObjectsOf", "target",
    "severity", "message", "deactivated",
    "sparql", "select", "ask", "sparqlExpr", "values", "prefixes", "declare", "prefix", "namespace", "parameter", "optional",
    "validator", "nodeValidator", "propertyValidator", "labelTemplate",
    "conforms", "result", "focusNode", "resultPath", "value", "sourceShape", "sourceConstraintComponent",
    "resultSeverity", "resultMessage", "sourceConstraint", "detail",
    "incomplete", "incompleteURIStart", "shapesGraph", "suggestedShapesGraph", "shapesGraphWellFormed",
    "rule", "subject", "predicate", "object", "condition", "construct",  # SHACL-AF rules (memkg.shacl.rules)
    "nodes",  # a SHACL-AF path expression's input, [ sh:path P ; sh:nodes E ], read as a shape for its sh:path
)
#: Non-validating annotations (SHACL §2.1.6, §5.x): read by forms and tools, not by validation.
_DESCRIPTIVE = ("name", "description", "order", "group", "defaultValue", "declare", "returnType", "bodyExpression", "labelTemplate", "codeIdentifier",
                "jsFunctionName", "jsLibrary", "jsLibraryURL")  # a function's JavaScript, beside its SPARQL body
#: Classes a node of the shapes graph may have.
_CLASSES = (
    "NodeShape", "PropertyShape", "Shape", "ShapeClass", "ConstraintComponent", "Parameter", "Parameterizable",
    "SPARQLConstraint", "SPARQLAskValidator", "SPARQLSelectValidator", "Validator", "SPARQLExecutable",
    "SPARQLAskExecutable", "SPARQLSelectExecutable", "PrefixDeclaration", "SPARQLTarget", "Target",
    "PropertyGroup", "ValidationReport", "ValidationResult", "AbstractResult", "Severity", "NodeKind",
    "TargetType", "SPARQLTargetType", "Rule", "TripleRule", "SPARQLRule", "ShapesGraph",
    "SPARQLConstraintObject",  # what DASH's and pySHACL's tests type their SPARQL constraints with
    "Function", *FUNCTION_CLASSES,  # SPARQL-based functions (memkg.shacl.functions)
)
_RULE = ("SHACL 1.2 Core", SHACL12_SPEC)


def _known(extra: Iterable[NamedNode]) -> frozenset[NamedNode]:
    return frozenset((*(sh[n] for n in (*_STRUCTURE, *_DESCRIPTIVE)), *extra))


def refuse_unknown_terms(graph: ShapesGraph, parameters: set[NamedNode], shapes: Iterable[Term] = ()) -> None:
    """Refuse the shapes graph if a shape (or the reifier of one of its triples) has an ``sh:``
    predicate outside the engine's vocabulary (``parameters``: the constraint components'),
    or a node is typed with an ``sh:`` class it does not implement. Other nodes are not
    read as shapes (a test file's data may use retired terms such as ``sh:nodeShape``)."""
    known = _known(parameters)
    classes = frozenset(sh[n] for n in _CLASSES)
    checked = set(shapes)
    for t in graph.triples():
        p = t.predicate
        if p == rdf.reifies and isinstance(t.object, Triple) and t.object.subject in checked:
            checked.add(t.subject)  # annotations of a shape's triples: sh:severity, sh:deactivated
    for t in graph.triples():
        p = t.predicate
        if p.value.startswith(SH) and p not in known and (t.subject in checked or not shapes):
            raise ShapeError(f"{show(p, form='exact')} is not a SHACL term memkg's engine implements; the shapes graph is "
                             "refused rather than read without it", shape=t.subject, rule=_RULE[0], link=_RULE[1])
        if p == rdf.type and isinstance(t.object, NamedNode) and t.object.value.startswith(SH) \
                and t.object not in classes and not _javascript_beside_sparql(graph, t):
            what = ("a SHACL-AF function" if t.object.value.endswith("Function") else
                    "a SHACL-AF rule" if t.object.value.endswith("Rule") else "a class")
            raise ShapeError(f"{t.subject} is {show(t.object, form='exact')}, {what} memkg's engine does not implement; the "
                             "shapes graph is refused rather than read without it", shape=t.subject,
                             rule=_RULE[0], link=_RULE[1])


def _javascript_beside_sparql(graph: ShapesGraph, t: Triple) -> bool:
    """Whether ``t`` types as ``sh:JSFunction`` a function that has a SPARQL body as well (DASH's
    functions do): the engine calls its SPARQL and leaves its JavaScript aside."""
    return t.object == sh.JSFunction and any(graph.is_instance(t.subject, sh[c]) for c in FUNCTION_CLASSES)


__all__ = ["refuse_unknown_terms"]
