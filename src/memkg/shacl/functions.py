"""SPARQL-based functions of a shapes graph, callable from its SPARQL queries.

Two ways of writing one are read: a SHACL-AF ``sh:SPARQLFunction`` whose body is an
``sh:select`` (the first variable of the first solution is the result) or an ``sh:ask``
(a boolean), and a SHACL 1.2 function whose ``sh:bodyExpression`` is ``[ sh:sparqlExpr … ]``
(such as an ``sh:ListParameterExpressionFunction``). Parameters are bound by position, in
``sh:order`` and then by the local name of their ``sh:path``, to the variable named after that
local name (SHACL-AF §5.1), by a VALUES clause opening the body's WHERE group. Functions run through pyoxigraph's ``custom_functions``; a body's query
reads the same data graph as the query that calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, QueryBoolean, QuerySolutions, Store

from ..core.terms import Term
from ..core.vocab import SHACL_SPEC, sh, xsd
from .errors import ShapeError
from .graph import ShapesGraph, integer, prefixes_of

# What pyoxigraph's Store.query takes as its default graph.
GraphSelection = NamedNode | BlankNode | DefaultGraph | list[NamedNode | BlankNode | DefaultGraph] | None

#: Classes whose instances are read as SPARQL-based functions.
FUNCTION_CLASSES = ("SPARQLFunction", "ListParameterExpressionFunction")
_RULE = ("SHACL-AF §5 SPARQL-based functions", "https://www.w3.org/TR/shacl-af/#SPARQLFunction")


@dataclass(frozen=True)
class Function:
    """One function: its IRI, parameter variables in call order, and its body as a query."""

    iri: NamedNode
    parameters: tuple[str, ...]
    query: str
    ask: bool
    where: int  #: where in ``query`` its SELECT or ASK keyword starts (the WHERE group's brace follows)
    #: Read but not applied (pySHACL without ``advanced``): every call is unbound.
    left_aside: bool = False

    def ignored(self) -> "Function":
        """The same function, read but not applied: every call answers nothing."""
        return replace(self, left_aside=True)

    def call(self, store: Store, default_graph: GraphSelection, args: tuple[Term, ...]) -> Term | None:
        """The function's value for ``args`` over ``store``; None (a SPARQL error) when unbound."""
        if self.left_aside or len(args) > len(self.parameters) or any(isinstance(a, BlankNode) for a in args):
            # SPARQL: an error, so the calling expression is unbound. A blank node argument cannot be
            # written into the body's VALUES (and pyoxigraph substitutes only projected variables).
            return None
        names = self.parameters[:len(args)]
        values = f"VALUES ({' '.join('?' + n for n in names)}) {{ ({' '.join(str(a) for a in args)}) }}"
        # Pre-binding: the VALUES opens the body's WHERE group, so its FILTERs see the arguments.
        at = self.query.index("{", self.where) + 1
        found = store.query(self.query[:at] + values + self.query[at:], default_graph=default_graph)
        if isinstance(found, QueryBoolean):
            return Literal("true" if bool(found) else "false", datatype=xsd.boolean)
        assert isinstance(found, QuerySolutions)
        for solution in found:
            value: Term | None = solution[0]
            return value
        return None


def _local_name(iri: Term) -> str:
    text = iri.value if isinstance(iri, NamedNode) else ""
    return text.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def load_functions(graph: ShapesGraph) -> dict[NamedNode, Function]:
    """Every SPARQL-based function of ``graph``; a malformed one is a ShapeError naming it."""
    out: dict[NamedNode, Function] = {}
    for cls in FUNCTION_CLASSES:
        for node in graph.instances(sh[cls]):
            if not isinstance(node, NamedNode):
                raise ShapeError(f"the function {node} needs an IRI to be called by", shape=node,
                                 rule=_RULE[0], link=_RULE[1])
            out[node] = _function(graph, node)
    return out


def _function(graph: ShapesGraph, node: NamedNode) -> Function:
    params: list[tuple[int, str]] = []
    for p in graph.objects(node, sh.parameter):
        paths = graph.objects(p, sh.path)
        if len(paths) != 1 or not isinstance(paths[0], NamedNode):
            raise ShapeError(f"a parameter of the function {node} needs one IRI as sh:path", shape=node,
                             rule=_RULE[0], link=_RULE[1])
        orders = [integer(o) for o in graph.objects(p, sh.order)]
        params.append((orders[0] if orders and orders[0] is not None else 0, _local_name(paths[0])))
    names = tuple(name for _, name in sorted(params))
    selects, asks = graph.objects(node, sh.select), graph.objects(node, sh.ask)
    bodies = [e for b in graph.objects(node, sh.bodyExpression) for e in graph.objects(b, sh.sparqlExpr)]
    written = [*selects, *asks, *bodies]
    if len(written) != 1 or not isinstance(written[0], Literal):
        raise ShapeError(f"the function {node} needs exactly one body: sh:select, sh:ask or "
                         "sh:bodyExpression [ sh:sparqlExpr ]", shape=node, rule=_RULE[0], link=_RULE[1])
    text = written[0].value
    head = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in prefixes_of(graph, node, shape=node, text=text).items())
    query = head + (text if not bodies else f"SELECT ({text} AS ?_result) {{}}")
    try:
        Store().query(query, custom_functions=placeholders(graph))
    except SyntaxError as exc:
        raise ShapeError(f"the body of the function {node} is not valid SPARQL: {exc}", shape=node,
                         rule=_RULE[0], link=SHACL_SPEC + "#sparql-constraints-syntax") from None
    return Function(node, names, query, ask=bool(asks), where=len(head))


def placeholders(graph: ShapesGraph) -> dict[NamedNode, Callable[..., Term | None]]:
    """The shapes graph's function IRIs, each answering nothing: for checking a query's syntax."""
    return {node: _nothing for cls in FUNCTION_CLASSES for node in graph.instances(sh[cls])
            if isinstance(node, NamedNode)}


def _nothing(*_args: Term) -> Term | None:
    return None


def bound(functions: dict[NamedNode, Function], store: Store,
          default_graph: GraphSelection) -> dict[NamedNode, Callable[..., Term | None]] | None:
    """``functions`` as pyoxigraph custom functions reading ``store``'s ``default_graph``."""
    if not functions:
        return None
    return {iri: (lambda *args, f=f: f.call(store, default_graph, args)) for iri, f in functions.items()}


__all__ = ["FUNCTION_CLASSES", "Function", "bound", "load_functions", "placeholders"]
