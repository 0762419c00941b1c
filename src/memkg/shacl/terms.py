"""RDF terms as SPARQL text, and small helpers about terms.

Terms are written into generated queries only through :func:`sparql_term`,
which serialises pyoxigraph terms (never user strings). Blank nodes cannot be
named in a SPARQL query (``_:b`` there is a fresh variable), so they raise
:class:`BlankNodeInQuery`; the engine binds them through pyoxigraph's
``substitutions`` instead.

>>> from pyoxigraph import Literal, NamedNode, Triple
>>> sparql_term(NamedNode("http://example.org/a"))
'<http://example.org/a>'
>>> sparql_term(Literal('say "hi"', language="en"))
'"say \\\\"hi\\\\""@en'
>>> sparql_term(Triple(NamedNode("http://e/s"), NamedNode("http://e/p"), Literal("1")))
'<<( <http://e/s> <http://e/p> "1" )>>'
"""

from __future__ import annotations

import threading

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from ..terms import GraphName, Resource
from ..terms import Term as Term

# The engine's names for memkg.terms' types (any graph name a data graph holds; a focus subject).
Graph = GraphName
Subject = Resource


class BlankNodeInQuery(ValueError):
    """A blank node (or a triple term holding one) cannot be written into SPARQL."""


def sparql_term(term: Term) -> str:
    """The SPARQL 1.2 surface form of ``term``; raises :class:`BlankNodeInQuery` for blank nodes."""
    if isinstance(term, (NamedNode, Literal)):
        return str(term)
    if isinstance(term, Triple):
        return f"<<( {sparql_term(term.subject)} {sparql_term(term.predicate)} {sparql_term(term.object)} )>>"
    if isinstance(term, BlankNode):
        raise BlankNodeInQuery(f"blank node {term} cannot be named in a SPARQL query")
    raise TypeError(f"not an RDF term: {term!r}")


def has_blank(term: Term) -> bool:
    """True for blank nodes and for triple terms that contain one.

    >>> from pyoxigraph import BlankNode, NamedNode
    >>> has_blank(BlankNode()), has_blank(NamedNode("http://e/a"))
    (True, False)
    """
    if isinstance(term, BlankNode):
        return True
    if isinstance(term, Triple):
        return has_blank(term.subject) or has_blank(term.object)
    return False


def sparql_string(text: str) -> str:
    """A SPARQL string literal holding ``text`` (escaped, never pasted raw).

    >>> sparql_string('a"b\\\\c')
    '"a\\\\"b\\\\\\\\c"'
    """
    return str(Literal(text))


def lexical(term: Term) -> str:
    """The text of a term for human messages: lexical form or IRI.

    >>> from pyoxigraph import Literal, NamedNode
    >>> lexical(Literal("5")), lexical(NamedNode("http://e/a"))
    ('5', 'http://e/a')
    """
    if isinstance(term, (NamedNode, Literal, BlankNode)):
        return term.value
    return str(term)


def term_key(term: Term | None) -> tuple:
    """A total sort key for terms (results are reported in a stable order)."""
    if term is None:
        return (0, "")
    if isinstance(term, NamedNode):
        return (1, term.value)
    if isinstance(term, BlankNode):
        return (2, term.value)
    if isinstance(term, Literal):
        return (3, term.value, term.datatype.value, term.language or "")
    if isinstance(term, Triple):
        return (4, term_key(term.subject), term_key(term.predicate), term_key(term.object))
    return (5, str(term))


_SCRATCH = Store()
_SCRATCH_LOCK = threading.Lock()
_S, _P = NamedNode("urn:memkg:shacl:s"), NamedNode("urn:memkg:shacl:p")


def canonical(term: Term) -> Term:
    """``term`` as a pyoxigraph store would give it back.

    >>> from pyoxigraph import Literal, NamedNode
    >>> canonical(Literal("1.50", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal"))).value
    '1.5'
    """
    if isinstance(term, (NamedNode, BlankNode)):
        return term
    with _SCRATCH_LOCK:
        _SCRATCH.add(Quad(_S, _P, term, DefaultGraph()))
        try:
            return next(_SCRATCH.quads_for_pattern(_S, _P, None, DefaultGraph())).object
        finally:
            _SCRATCH.clear()
