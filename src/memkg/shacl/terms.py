"""Small helpers about terms for the engine: SPARQL strings, sort keys.

Terms are written into generated queries only through :func:`memkg.core.terms.sparql_term`,
which serialises pyoxigraph terms (never user strings) and refuses blank nodes; the
engine binds those through pyoxigraph's ``substitutions`` instead.
"""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from ..core.terms import Term


def sparql_string(text: str) -> str:
    """A SPARQL string literal holding ``text`` (escaped, never pasted raw).

    >>> sparql_string('a"b\\\\c')
    '"a\\\\"b\\\\\\\\c"'
    """
    return str(Literal(text))


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
