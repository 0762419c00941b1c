"""SHACL 1.2 node expressions: read from the shapes graph, evaluated against the data graph.

A node expression computes a list of nodes (its *output nodes*) from a focus node:
a constant term is itself, a SHACL list concatenates its members' outputs, an empty
blank node is empty, and a blank node with a function's parameters applies the
function (SHACL 1.2 Node Expressions, ``shnex:`` and ``sparql:`` functions, and the
SPARQL-based ``sh:select``/``sh:sparqlExpr``). :class:`ExpressionReader` reads one
(``ShapeError`` names a function or parameter the engine does not implement);
:class:`Evaluator` computes its output nodes, running every path, class, aggregate,
ordering and SPARQL function as a query in Oxigraph; :func:`sparql_expression`
compiles the expressions that are one SPARQL expression of the focus node, so a
constraint built on them runs inside the validation queries; :func:`target_pattern`
and :func:`values_path` give the SPARQL patterns of ``sh:targetNode`` and ``sh:values``
expressions.

>>> from pyoxigraph import NamedNode, RdfFormat, Store, parse
>>> from memkg.shacl import Shapes
>>> text = b'''@prefix shnex: <http://www.w3.org/ns/shacl-node-expr#> . @prefix ex: <http://e/> .
... ex:expr ex:is [ shnex:count [ shnex:pathValues ex:knows ] ] .'''
>>> quads = list(parse(text, format=RdfFormat.TURTLE))
>>> shapes = Shapes.from_quads(quads)
>>> store = Store()
>>> store.load(b"<http://e/ann> <http://e/knows> <http://e/bob>, <http://e/cy> .", format=RdfFormat.TURTLE)
>>> expression = next(q.object for q in quads if q.predicate == NamedNode("http://e/is"))
>>> [str(t) for t in shapes.evaluate(expression, store, focus=NamedNode("http://e/ann"))]
['"2"^^<http://www.w3.org/2001/XMLSchema#integer>']
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from pyoxigraph import BlankNode, Literal, NamedNode, Store, Triple

from ..core.prefixes import show
from ..core.terms import Term, has_blank, sparql_term
from ..core.vocab import (
    FALSE,
    OWL,
    RDF,
    RDFS,
    SH,
    TRUE,
    SHACL12_NODE_EXPR_SPEC,
    SHNEX,
    SPARQL_FUNCTIONS,
    XSD,
    rdf,
    rdfs,
    sh,
    xsd,
)
from .errors import ShapeError
from .functions import FUNCTION_CLASSES
from .graph import ShapesGraph, boolean, integer, prefixes_of
from .paths import Path, parse_path
from .sparqltext import UserQuery

if TYPE_CHECKING:  # pragma: no cover
    from .components.base import Evaluation

_RULE = "SHACL 1.2 Node Expressions"

#: ``sparql:`` functions written as SPARQL operators.
_OPERATORS = {
    "plus": "({0} + {1})", "subtract": "({0} - {1})", "multiply": "({0} * {1})", "divide": "({0} / {1})",
    "equals": "({0} = {1})", "not-equals": "({0} != {1})", "less-than": "({0} < {1})",
    "greater-than": "({0} > {1})", "less-than-or-equal": "({0} <= {1})", "greater-than-or-equal": "({0} >= {1})",
    "logical-and": "({0} && {1})", "logical-or": "({0} || {1})", "logical-not": "(!{0})",
    "unary-minus": "(-{0})", "unary-plus": "(+{0})",
    # SPARQL 1.2's sameValue, which Oxigraph 0.5 lacks: the same term, or equal values.
    "sameValue": "(sameTerm({0}, {1}) || COALESCE({0} = {1}, false))",
}
#: ``sparql:`` functions that are SPARQL built-in calls, by local name (the call is its upper case).
_BUILTINS = frozenset((
    "abs bnode bound ceil coalesce concat contains datatype day encode floor hasLang hasLangdir hours if iri "
    "isBlank isIRI isLiteral isNumeric isTriple isURI lang langMatches langdir lcase md5 minutes month now object "
    "predicate rand regex replace round sameTerm seconds sha1 sha256 sha384 sha512 str strafter strbefore strdt "
    "strends strlang strlangdir strlen strstarts struuid subject substr timezone triple tz ucase uri uuid year"
).split())
_RENAMED = {"encode": "ENCODE_FOR_URI"}

#: Calls of one ``sparql:`` function per evaluation (one per combination of its arguments' outputs).
MAX_CALLS = 10_000
_WELL_KNOWN = {"rdf": RDF, "rdfs": RDFS, "xsd": XSD, "owl": OWL, "sh": SH}
#: ``shnex:`` parameters that take the input nodes (``shnex:nodes``) and one operand each.
_ON_NODES = ("filterShape", "findFirst", "matchAll", "flatMap", "limit", "offset", "orderBy", "remove")
#: SHACL-AF node expression parameters (``sh:`` local name) → the SHACL 1.2 ``shnex:`` parameter
#: that means the same (``sh:nodes`` beside ``sh:path`` is ``shnex:focusNode``).
_AF_NAMES = {n: n for n in ("nodes", "filterShape", "intersection", "union", "distinct", "count", "sum", "min", "max",
                            "exists", "limit", "offset", "orderBy", "desc", "if", "then", "else")} | {"path": "pathValues"}
#: ``shnex:`` functions of one node-expression argument.
_UNARY = ("exists", "count", "sum", "min", "max", "distinct")


class Expr:
    """A parsed node expression."""

    #: The term of the shapes graph it was read from (for messages).
    node: Term


@dataclass(frozen=True, eq=False)
class Constant(Expr):
    """An IRI, literal or triple term: its only output node is itself."""

    node: Term


@dataclass(frozen=True, eq=False)
class ListExpr(Expr):
    """A SHACL list: the outputs of its members, one after the other (``()`` is ``rdf:nil``)."""

    node: Term
    members: tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class Call(Expr):
    """A function applied to its parameters: ``name`` is ``shnex:count``, ``sparql:abs``...

    ``args`` are sub-expressions, ``terms`` the parameters that are plain terms (a path,
    a class, a shape, a number), ``query`` the parsed SPARQL of ``sh:select``/``sh:sparqlExpr``.
    """

    node: Term
    name: str
    args: tuple[Expr, ...] = ()
    terms: tuple[Any, ...] = ()
    query: UserQuery | None = None
    var: str = ""


def _err(reason: str, shape: Term | None) -> ShapeError:
    return ShapeError(reason, shape=shape, rule=_RULE, link=SHACL12_NODE_EXPR_SPEC)


def is_expression(graph: ShapesGraph, node: Term) -> bool:
    """Whether ``node`` is more than a constant: a blank node with properties."""
    return isinstance(node, BlankNode) and bool(graph.predicates(node))


class ExpressionReader:
    """Reads node expressions; ``load_shape`` loads a shape they name (the shapes loader's)."""

    def __init__(self, graph: ShapesGraph, load_shape: Callable[[Term], object]) -> None:
        self.graph = graph
        self.load_shape = load_shape
        self._reading: set[Term] = set()
        #: The shapes graph's SPARQL-based functions, callable as ``[ ex:fn ( args ) ]``.
        self._functions = {f for cls in FUNCTION_CLASSES for f in graph.instances(sh[cls])}

    def read(self, node: Term, *, shape: Term | None = None, annotated: bool = False) -> Expr:
        """The node expression at ``node``; :class:`ShapeError` naming what is not implemented,
        or an expression that contains itself (it would never finish). ``annotated``: the
        expression's own node may carry ``sh:message`` (as SHACL-AF's ``sh:expression`` does)."""
        if node == sh.this:  # SHACL-AF's focus node expression
            return Call(node, "var", terms=("focusNode",))
        if not isinstance(node, BlankNode):
            return Constant(node)
        if node in self._reading:
            raise _err(f"node expression {node} contains itself", shape)
        self._reading.add(node)
        try:
            return self._read(node, shape, annotated)
        finally:
            self._reading.discard(node)

    def _read(self, node: BlankNode, shape: Term | None, annotated: bool) -> Expr:
        g = self.graph
        preds = [p for p in g.predicates(node) if not (annotated and p == sh.message)]
        if not preds:
            return ListExpr(node, ())  # the empty expression: no output nodes
        if rdf.first in preds:
            members = g.list_items(node, shape=shape, what="a list expression")
            return ListExpr(node, tuple(self.read(m, shape=shape) for m in members))
        params = {p: g.objects(node, p) for p in preds}
        for p, vals in params.items():
            if len(vals) != 1:
                raise _err(f"node expression {node}: {show(p, form='exact')} must have one value, found {len(vals)}", shape)
        one = {p: vals[0] for p, vals in params.items()}
        if sh.select in one or sh.sparqlExpr in one:
            return self._sparql_based(node, one, shape)
        sparql = [p for p in one if p.value.startswith(SPARQL_FUNCTIONS)]
        if sparql:
            if len(one) != 1:
                raise _err(f"node expression {node}: a sparql: function takes no other parameters", shape)
            name = sparql[0].value[len(SPARQL_FUNCTIONS):]
            if name not in _OPERATORS and name not in _BUILTINS:
                raise _err(f"node expression {node}: the function <{sparql[0].value}> is not implemented", shape)
            args = g.list_items(one[sparql[0]], shape=shape, what=f"the arguments of sparql:{name}")
            _check_call(node, name, len(args), shape)
            return Call(node, "sparql:" + name, tuple(self.read(a, shape=shape) for a in args))
        if len(one) == 1 and next(iter(one)) in self._functions:
            (function, arguments), = one.items()
            args = g.list_items(arguments, shape=shape, what=f"the arguments of {show(function, form='exact')}")
            return Call(node, sparql_term(function), tuple(self.read(a, shape=shape) for a in args))
        if any(p.value.startswith(SH) for p in one):
            return self._advanced(node, one, shape)
        names = {}
        for p in one:
            if not p.value.startswith(SHNEX):
                raise _err(f"node expression {node}: {show(p, form='exact')} is not a node expression parameter memkg "
                           "implements", shape)
            names[p.value[len(SHNEX):]] = one[p]
        return self._shnex(node, names, shape)

    def _sparql_based(self, node: Term, one: dict[NamedNode, Term], shape: Term | None) -> Expr:
        key = sh.select if sh.select in one else sh.sparqlExpr
        extra = set(one) - {key, sh.prefixes}
        if extra:
            raise _err(f"node expression {node}: {show(sorted(extra, key=str)[0], form='exact')} is not a parameter of "
                       f"{show(key, form='exact')}", shape)
        text = one[key]
        if not isinstance(text, Literal):
            raise _err(f"node expression {node}: {show(key, form='exact')} must be a string literal", shape)
        # The well-known prefixes need no declaration in a node expression's SPARQL (the W3C tests'
        # sh:targetNode [ sh:select ] uses rdfs: undeclared; w3c/data-shapes#176 proposes this default).
        prefixes = prefixes_of(self.graph, node, shape=shape, text=text.value, defaults=_WELL_KNOWN)
        if key == sh.select:
            query = UserQuery.parse(text.value, prefixes, shape=shape, where=f"the node expression {node}")
            projected = query.projected()
            if query.form != "SELECT" or len(projected) != 1:
                raise _err(f"node expression {node}: sh:select must be a SELECT query projecting one variable",
                           shape)
            return Call(node, "sh:select", query=query, var=next(iter(projected)))
        query = UserQuery.parse(f"SELECT $this ?_nex WHERE {{ BIND(({text.value}) AS ?_nex) }}", prefixes,
                                shape=shape, where=f"the node expression {node}")
        return Call(node, "sh:sparqlExpr", query=query, var="_nex")

    def _shnex(self, node: Term, names: dict[str, Term], shape: Term | None) -> Expr:
        def read(term: Term) -> Expr:
            return self.read(term, shape=shape)

        g = self.graph
        if "nodes" in names:
            ops = [n for n in names if n in _ON_NODES]
            rest = set(names) - {"nodes", "desc", *ops}
            if len(ops) != 1 or rest or ("desc" in names and ops != ["orderBy"]):
                raise _err(f"node expression {node}: shnex:nodes takes exactly one of "
                           f"{', '.join('shnex:' + o for o in _ON_NODES)} (found "
                           f"{', '.join('shnex:' + n for n in sorted(names))})", shape)
            op, operand = ops[0], names[ops[0]]
            terms: tuple[Any, ...] = ()
            args: tuple[Expr, ...] = (read(names["nodes"]),)
            if op in ("filterShape", "findFirst", "matchAll"):
                terms = (self._shape(node, op, operand, shape),)
            elif op in ("limit", "offset"):
                n = integer(operand)
                if n is None or n < 0:
                    raise _err(f"node expression {node}: shnex:{op} must be a non-negative integer", shape)
                terms = (n,)
            else:
                args = (*args, read(operand))
                if op == "orderBy":
                    desc = boolean(names["desc"]) if "desc" in names else False
                    if desc is None:
                        raise _err(f"node expression {node}: shnex:desc must be a boolean", shape)
                    terms = (desc,)
            return Call(node, op, args, terms)
        if len(names) == 1 or set(names) == {"pathValues", "focusNode"} or set(names) <= {"if", "then", "else"}:
            if "pathValues" in names:
                path = parse_path(g, names["pathValues"], shape=shape)
                args = (read(names["focusNode"]),) if "focusNode" in names else ()
                return Call(node, "pathValues", args, (path,))
            if "if" in names:
                if "then" not in names:
                    raise _err(f"node expression {node}: shnex:if needs shnex:then", shape)
                return Call(node, "if", tuple(read(names[k]) for k in ("if", "then", "else") if k in names))
            (name, value), = names.items()
            if name in _UNARY:
                return Call(node, name, (read(value),))
            if name in ("concat", "intersection"):
                members = g.list_items(value, shape=shape, what=f"the value of shnex:{name}")
                return Call(node, name, tuple(read(m) for m in members))
            if name == "var":
                if not isinstance(value, Literal):
                    raise _err(f"node expression {node}: shnex:var must be a string", shape)
                return Call(node, "var", terms=(value.value,))
            if name == "instancesOf":
                if not isinstance(value, NamedNode):
                    raise _err(f"node expression {node}: shnex:instancesOf must be an IRI", shape)
                return Call(node, name, terms=(value,))
            if name == "nodesMatching":
                return Call(node, name, terms=(self._shape(node, name, value, shape),))
            if name in ("conformsTo", "conformsToShape"):
                pair = g.list_items(value, shape=shape, what=f"the value of shnex:{name}")
                if len(pair) != 2:
                    raise _err(f"node expression {node}: shnex:{name} takes a list of an expression and a shape",
                               shape)
                return Call(node, "conformsTo", (read(pair[0]),), (self._shape(node, name, pair[1], shape),))
        raise _err(f"node expression {node}: the function " + " + ".join(f"shnex:{n}" for n in sorted(names))
                   + " is not implemented", shape)

    def _advanced(self, node: Term, one: dict[NamedNode, Term], shape: Term | None) -> Expr:
        """A SHACL-AF node expression (``sh:path``, ``sh:filterShape``, ``sh:union``, ``sh:count``…,
        as pySHACL and TopQuadrant read them), as the SHACL 1.2 function that means the same."""
        names: dict[str, Term] = {}
        for p, value in one.items():
            local = p.value[len(SH):] if p.value.startswith(SH) else ""
            if local not in _AF_NAMES:
                raise _err(f"node expression {node}: {show(p, form='exact')} is not a node expression parameter memkg "
                           "implements", shape)
            names[_AF_NAMES[local]] = value
        if "pathValues" in names and "nodes" in names:
            names["focusNode"] = names.pop("nodes")
        if "union" in names:
            if len(names) != 1:
                raise _err(f"node expression {node}: sh:union takes no other parameters", shape)
            members = self.graph.list_items(names["union"], shape=shape, what="the value of sh:union")
            return Call(node, "distinct", (Call(node, "concat", tuple(self.read(m, shape=shape) for m in members)),))
        return self._shnex(node, names, shape)

    def _shape(self, node: Term, param: str, value: Term, shape: Term | None) -> Term:
        if not isinstance(value, (NamedNode, BlankNode)):
            raise _err(f"node expression {node}: shnex:{param} must be a shape, got {value}", shape)
        self.load_shape(value)
        return value


_SCRATCH = Store()


def _check_call(node: Term, name: str, arity: int, shape: Term | None) -> None:
    """Refuse a ``sparql:`` call that is not valid SPARQL (a wrong number of arguments)
    when the shapes load, not when a validation runs it."""
    text = sparql_call(name, [f"?_a{i}" for i in range(arity)])
    if name in _OPERATORS and arity != len(set(re.findall(r"\{(\d)\}", _OPERATORS[name]))):
        raise _err(f"node expression {node}: sparql:{name} does not take {arity} argument(s)", shape)
    try:
        _SCRATCH.query(f"SELECT ?_r WHERE {{ BIND({text} AS ?_r) }}")
    except SyntaxError as e:
        raise _err(f"node expression {node}: sparql:{name} with {arity} argument(s) is not a SPARQL call memkg "
                   f"can run ({e})", shape) from None


def _boolean(value: bool) -> Literal:
    return TRUE if value else FALSE


def _integer(n: int) -> Literal:
    return Literal(str(n), datatype=xsd.integer)


def _distinct(nodes: list[Term]) -> list[Term]:
    return list(dict.fromkeys(nodes))


def _const(term: Term) -> str:
    """SPARQL text for a node in VALUES; blank nodes cannot be named and match nothing."""
    return "<urn:memkg:shacl:unnameable-blank-node>" if has_blank(term) else sparql_term(term)


class Evaluator:
    """Evaluates node expressions for one validation (``engine`` runs the queries and
    decides conformance to shapes). ``scope`` names variables for ``shnex:var``."""

    def __init__(self, engine: "Evaluation", scope: dict[str, Term] | None = None) -> None:
        self.engine = engine
        self.scope = dict(scope or {})

    def evaluate(self, expr: Expr, focus: Term | None) -> list[Term]:
        """The output nodes of ``expr`` at ``focus`` (None: no focus node)."""
        if isinstance(expr, Constant):
            return [expr.node]
        if isinstance(expr, ListExpr):
            if not expr.members and expr.node == rdf.nil:
                return [rdf.nil]
            return [n for m in expr.members for n in self.evaluate(m, focus)]
        assert isinstance(expr, Call)
        method: Callable[[Call, Term | None], list[Term]] | None = getattr(
            self, "_" + expr.name.replace(":", "_").replace("-", "_"), None)
        if method is not None:
            return method(expr, focus)
        return self._sparql_call(expr, focus)

    # -- basic ---------------------------------------------------------------------------------

    def _var(self, expr: Call, focus: Term | None) -> list[Term]:
        name = expr.terms[0]
        if name == "focusNode":
            return [] if focus is None else [focus]
        return [self.scope[name]] if name in self.scope else []

    def _pathValues(self, expr: Call, focus: Term | None) -> list[Term]:
        starts = self.evaluate(expr.args[0], focus) if expr.args else ([] if focus is None else [focus])
        path: Path = expr.terms[0]
        out: list[Term] = []
        for start in starts:
            if isinstance(start, Literal):
                continue
            text = f"SELECT ?_s ?_v WHERE {{ ?_s {path.sparql()} ?_v }}"
            out.extend(s["_v"] for s in self.engine.select(text, {"_s": start}))
        return out

    def _instancesOf(self, expr: Call, focus: Term | None) -> list[Term]:
        text = (f"SELECT DISTINCT ?_v WHERE {{ ?_v <{rdf.type.value}>/<{rdfs.subClassOf.value}>* "
                f"{sparql_term(expr.terms[0])} }}")
        return [s["_v"] for s in self.engine.select(text)]

    def _nodesMatching(self, expr: Call, focus: Term | None) -> list[Term]:
        nodes = [s["_v"] for s in self.engine.select("SELECT DISTINCT ?_v WHERE { { ?_v ?_p ?_o } UNION { ?_s ?_p ?_v } }")]
        failing = self.engine.nonconforming(expr.terms[0], nodes)
        return [n for n in nodes if n not in failing]

    def _conformsTo(self, expr: Call, focus: Term | None) -> list[Term]:
        nodes = self.evaluate(expr.args[0], focus)
        failing = self.engine.nonconforming(expr.terms[0], nodes)
        return [_boolean(n not in failing) for n in nodes]

    def _if(self, expr: Call, focus: Term | None) -> list[Term]:
        cond = self.evaluate(expr.args[0], focus)
        if cond and cond[0] == TRUE:
            return self.evaluate(expr.args[1], focus)
        return self.evaluate(expr.args[2], focus) if len(expr.args) > 2 else []

    # -- one argument ----------------------------------------------------------------------------

    def _exists(self, expr: Call, focus: Term | None) -> list[Term]:
        return [_boolean(bool(self.evaluate(expr.args[0], focus)))]

    def _count(self, expr: Call, focus: Term | None) -> list[Term]:
        return [_integer(len(self.evaluate(expr.args[0], focus)))]

    def _distinct(self, expr: Call, focus: Term | None) -> list[Term]:
        return _distinct(self.evaluate(expr.args[0], focus))

    def _aggregate(self, function: str, nodes: list[Term]) -> list[Term]:
        values = " ".join(_const(n) for n in nodes)
        found = self.engine.select(f"SELECT ({function}(?_x) AS ?_r) WHERE {{ VALUES ?_x {{ {values} }} }}")
        return [s["_r"] for s in found if "_r" in s]

    def _sum(self, expr: Call, focus: Term | None) -> list[Term]:
        return self._aggregate("SUM", self.evaluate(expr.args[0], focus))

    def _min(self, expr: Call, focus: Term | None) -> list[Term]:
        return self._aggregate("MIN", self.evaluate(expr.args[0], focus))

    def _max(self, expr: Call, focus: Term | None) -> list[Term]:
        return self._aggregate("MAX", self.evaluate(expr.args[0], focus))

    # -- lists of expressions ------------------------------------------------------------------------

    def _concat(self, expr: Call, focus: Term | None) -> list[Term]:
        return [n for a in expr.args for n in self.evaluate(a, focus)]

    def _intersection(self, expr: Call, focus: Term | None) -> list[Term]:
        if not expr.args:
            return []
        first, *others = (self.evaluate(a, focus) for a in expr.args)
        kept = [set(o) for o in others]
        return _distinct([n for n in first if all(n in k for k in kept)])

    # -- on shnex:nodes ----------------------------------------------------------------------------------

    def _input(self, expr: Call, focus: Term | None) -> list[Term]:
        return self.evaluate(expr.args[0], focus)

    def _filterShape(self, expr: Call, focus: Term | None) -> list[Term]:
        nodes = self._input(expr, focus)
        failing = self.engine.nonconforming(expr.terms[0], nodes)
        return [n for n in nodes if n not in failing]

    def _findFirst(self, expr: Call, focus: Term | None) -> list[Term]:
        return self._filterShape(expr, focus)[:1]

    def _matchAll(self, expr: Call, focus: Term | None) -> list[Term]:
        nodes = self._input(expr, focus)
        return [_boolean(not self.engine.nonconforming(expr.terms[0], nodes))]

    def _flatMap(self, expr: Call, focus: Term | None) -> list[Term]:
        return [m for n in self._input(expr, focus) for m in self.evaluate(expr.args[1], n)]

    def _limit(self, expr: Call, focus: Term | None) -> list[Term]:
        return self._input(expr, focus)[: expr.terms[0]]

    def _offset(self, expr: Call, focus: Term | None) -> list[Term]:
        return self._input(expr, focus)[expr.terms[0]:]

    def _remove(self, expr: Call, focus: Term | None) -> list[Term]:
        removed = set(self.evaluate(expr.args[1], focus))  # by term equality: "01"^^xsd:integer is not 1
        return [n for n in self._input(expr, focus) if n not in removed]

    def _orderBy(self, expr: Call, focus: Term | None) -> list[Term]:
        """Sorted by each node's first key as SPARQL's ORDER BY sorts (no key first), stable."""
        nodes = self._input(expr, focus)
        if len(nodes) < 2:
            return nodes
        rows = []
        for i, n in enumerate(nodes):
            keys = self.evaluate(expr.args[1], n)
            rows.append(f"({i} {_const(keys[0]) if keys else 'UNDEF'})")
        order = "DESC(?_k)" if expr.terms[0] else "?_k"
        found = self.engine.select(f"SELECT ?_i WHERE {{ VALUES (?_i ?_k) {{ {' '.join(rows)} }} }} ORDER BY {order} ?_i")
        positions = [s["_i"] for s in found]
        return [nodes[int(i.value)] for i in positions if isinstance(i, Literal)]

    # -- SPARQL --------------------------------------------------------------------------------------------

    def _sparql_call(self, expr: Call, focus: Term | None) -> list[Term]:
        """A ``sparql:`` function, once for each combination of its arguments' output nodes
        (an argument without output is an unbound variable, as ``sparql:bound`` expects).
        Terms are written into the query; blank nodes, which cannot be, are substituted."""
        name = expr.name.removeprefix("sparql:")
        choices: list[list[Term | None]] = [[*self.evaluate(a, focus)] or [None] for a in expr.args]
        combinations = math.prod(len(c) for c in choices)
        if combinations > MAX_CALLS:
            raise _err(f"node expression {expr.node}: {expr.name} would run for {combinations:,} combinations of its "
                       f"arguments' output nodes, more than the limit of {MAX_CALLS:,}", None)
        out: list[Term] = []
        for combination in itertools.product(*choices):
            args, subs = [], {}
            for i, term in enumerate(combination):
                if term is None or has_blank(term):
                    args.append(f"?_a{i}")
                    if term is not None:
                        subs[f"_a{i}"] = term
                else:
                    args.append(sparql_term(term))
            projected = " ".join(f"?{n}" for n in subs)
            query = f"SELECT {projected} ?_r WHERE {{ BIND({sparql_call(name, args)} AS ?_r) }}"
            out.extend(s["_r"] for s in self.engine.select(query, subs) if "_r" in s)
        return out

    def _sh_select(self, expr: Call, focus: Term | None) -> list[Term]:
        assert expr.query is not None
        if focus is not None and has_blank(focus):
            # A blank node cannot be written into the query: it is substituted, joined with the
            # query's results as a sub-query that projects $this.
            query = f"SELECT ?_nexs ?_nexo WHERE {{ {select_pattern(expr, None)} }}"
            return [s["_nexo"] for s in self.engine.select(query, {"_nexs": focus}) if "_nexo" in s]
        consts = {"this": sparql_term(focus)} if focus is not None else {}
        return [s[expr.var] for s in self.engine.select(expr.query.render(consts=consts)) if expr.var in s]

    def _sh_sparqlExpr(self, expr: Call, focus: Term | None) -> list[Term]:
        assert expr.query is not None
        subs = {"this": focus} if focus is not None else None
        return [s["_nex"] for s in self.engine.select(expr.query.render(), subs) if "_nex" in s]


def sparql_call(name: str, args: list[str]) -> str:
    """The SPARQL expression applying the ``sparql:`` function ``name`` (or the shapes graph's
    function ``<IRI>``) to ``args``."""
    if name.startswith("<"):
        return f"{name}({', '.join(args)})"
    if name in _OPERATORS:
        return _OPERATORS[name].format(*args, *([""] * 2))
    return f"{_RENAMED.get(name, name.upper())}({', '.join(args)})"


def sparql_expression(expr: Expr, focus: str) -> str | None:
    """``expr`` as one SPARQL expression of the focus variable ``focus``, when it is one
    (a constant, the focus node, a ``sparql:`` function of such); None otherwise."""
    if isinstance(expr, Constant):
        return None if has_blank(expr.node) else sparql_term(expr.node)
    if isinstance(expr, ListExpr) and len(expr.members) == 1:
        return sparql_expression(expr.members[0], focus)
    if isinstance(expr, Call):
        if expr.name == "var" and expr.terms[0] == "focusNode":
            return focus
        name = expr.name.removeprefix("sparql:")
        if expr.name.startswith(("sparql:", "<")) and name not in ("bnode", "rand", "uuid", "struuid", "now"):
            args = [sparql_expression(a, focus) for a in expr.args]
            texts = [a for a in args if a is not None]
            if len(texts) == len(args):
                return sparql_call(name, texts)
    return None


def target_pattern(expr: Expr, var: str) -> str | None:
    """A SPARQL pattern binding ``var`` to the output nodes of ``expr`` evaluated without a
    focus node (as a target is), for the expressions that have one: constants and lists
    of them, ``shnex:instancesOf``, ``sh:select`` not mentioning ``$this``; None otherwise."""
    if isinstance(expr, Constant):
        return "FILTER(false)" if has_blank(expr.node) else f"VALUES {var} {{ {sparql_term(expr.node)} }}"
    if isinstance(expr, ListExpr):
        found = [target_pattern(m, var) for m in expr.members]
        parts = [p for p in found if p is not None]
        if len(parts) != len(found):
            return None
        return " UNION ".join("{ " + p + " }" for p in parts) if parts else "FILTER(false)"
    if isinstance(expr, Call):
        if expr.name == "instancesOf":
            return f"{var} <{rdf.type.value}>/<{rdfs.subClassOf.value}>* {sparql_term(expr.terms[0])} ."
        if expr.name == "sh:select" and expr.query is not None and "this" not in expr.query.variables():
            return "{ " + expr.query.render(renames={expr.var: var}) + " }"
    return None


@dataclass(frozen=True)
class ValuesPath(Path):
    """The value nodes of a property shape with ``sh:values``: the output nodes of a node
    expression at the focus node, in place of the values along ``declared`` (its ``sh:path``,
    which results still name). ``template`` is a SPARQL pattern over ``?_nexs`` (the focus
    node) binding ``?_nexo`` (a value node)."""

    declared: Path
    template: str

    computed: ClassVar[bool] = True

    def sparql(self) -> str:
        return self.declared.sparql()

    def to_triples(self) -> tuple[Term, list[Triple]]:
        return self.declared.to_triples()

    def pattern(self, subject: str, obj: str) -> str:
        return self.template.replace("?_nexs", subject).replace("?_nexo", obj)

    def has_value(self, subject: str, term: str, fresh: str) -> str:
        return f"{self.pattern(subject, fresh)} FILTER(sameTerm({fresh}, {term}))"


def select_pattern(expr: Call, shape: Term | None) -> str:
    """The ``sh:select`` expression ``expr`` as a sub-query projecting the focus node as
    ``?_nexs`` beside its output as ``?_nexo``, so that it joins with a bound focus node."""
    assert expr.query is not None
    if expr.query.projects("this"):
        raise _err(f"node expression {expr.node}: a sh:select projecting $this is not implemented here", shape)
    rendered = expr.query.render(renames={"this": "?_nexs", expr.var: "?_nexo"})
    head = re.match(r"\s*SELECT(\s+(DISTINCT|REDUCED))?", rendered, re.IGNORECASE)
    if head is None:  # pragma: no cover - a parsed SELECT query starts so
        raise _err(f"node expression {expr.node}: cannot read the SELECT query", shape)
    return "{ " + rendered[: head.end()] + " ?_nexs" + rendered[head.end():] + " }"


def values_path(declared: Path, expr: Expr, *, shape: Term) -> ValuesPath:
    """The :class:`ValuesPath` of ``sh:values expr``, for the expressions that are a SPARQL
    pattern of the focus node: SPARQL expressions of it (constants, ``sparql:`` functions),
    ``sh:sparqlExpr``, ``sh:select``, ``shnex:pathValues`` from the focus node.
    Anything else is refused by name."""
    text = sparql_expression(expr, "?_nexs")
    template: str | None = None
    if text is not None:
        template = f"BIND(({text}) AS ?_nexo)"
    elif isinstance(expr, Call) and expr.query is not None and expr.name == "sh:sparqlExpr":
        template = expr.query.render(renames={"this": "?_nexs", "_nex": "?_nexo"}, body_only=True)
    elif isinstance(expr, Call) and expr.name == "sh:select":
        template = select_pattern(expr, shape)
    elif isinstance(expr, Call) and expr.name == "pathValues" and not expr.args:
        template = expr.terms[0].pattern("?_nexs", "?_nexo")
    if template is None:
        raise _err(f"sh:values {expr.node}: computed values by {describe(expr)} are not implemented (SPARQL "
                   "expressions of the focus node, sh:sparqlExpr, sh:select and shnex:pathValues are)", shape)
    try:
        _SCRATCH.query(f"SELECT * WHERE {{ ?_nexs <urn:memkg:shacl:anchor> ?_a . {template} }}")
    except SyntaxError as e:
        raise _err(f"sh:values {expr.node}: its SPARQL is not valid in a validation query ({e})", shape) from None
    return ValuesPath(declared, template)


def describe(expr: Expr) -> str:
    """The function of ``expr`` for messages: ``shnex:filterShape``, ``sh:select``, ``a constant``."""
    if isinstance(expr, Call):
        return expr.name if ":" in expr.name else "shnex:" + expr.name
    return "a list" if isinstance(expr, ListExpr) else "a constant"


__all__ = ["Call", "Constant", "Evaluator", "Expr", "ExpressionReader", "ListExpr", "ValuesPath", "describe",
           "is_expression", "select_pattern", "sparql_expression", "target_pattern", "values_path"]

