"""Small helpers about terms for the engine: strings, lexical forms, keys, canonical forms.

Terms are written into generated queries only through :func:`memkg.core.terms.sparql_term`,
which serialises pyoxigraph terms (never user strings) and refuses blank nodes; the
engine binds those through pyoxigraph's ``substitutions`` instead.
"""

from __future__ import annotations

import threading

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from ..core.terms import GraphName, Resource
from ..core.terms import Term as Term

# The engine's names for memkg.core.terms' types (any graph name a data graph holds; a focus subject).
Graph = GraphName
Subject = Resource


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


#: A sort key of a term: its kind's rank, then its parts (a triple term's are keys themselves).
TermKey = tuple["int | str | TermKey", ...]


def term_key(term: Term | None) -> TermKey:
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
