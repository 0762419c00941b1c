"""Library results as JSON: the one form the command line, the endpoint and the agent tools share.

Terms follow the evidence packet's convention (:meth:`memkg.provenance.evidence.EvidencePacket.to_dict`):
an IRI is its text, a blank node ``_:label``, a literal ``{"value", "datatype"}`` (plus
``"language"``), a triple term ``{"subject", "predicate", "object"}``. IRIs stay whole, so a
reader (an agent) can cite them back. Documents that are SPARQL's own (query results built
here, validation reports) use SPARQL 1.1 Query Results JSON term objects instead
(:func:`sparql_term_json`).

>>> from pyoxigraph import Literal, NamedNode
>>> term_json(NamedNode("https://example.org/tea"))
'https://example.org/tea'
>>> term_json(Literal("0.9", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal")))
{'value': '0.9', 'datatype': 'http://www.w3.org/2001/XMLSchema#decimal'}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    QuerySolutions,
    Triple,
)

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def term_json(term: Any) -> Any:
    """One RDF term (or None) as JSON."""
    if term is None:
        return None
    if isinstance(term, NamedNode):
        return term.value
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if isinstance(term, Literal):
        out = {"value": term.value, "datatype": term.datatype.value}
        if term.language:
            out["language"] = term.language
        return out
    if isinstance(term, Triple):
        return {"subject": term_json(term.subject), "predicate": term_json(term.predicate),
                "object": term_json(term.object)}
    return str(term)


def sparql_term_json(term: Any) -> dict[str, Any] | None:
    """``term`` as a SPARQL 1.1 Query Results JSON term object, the style of documents that
    are SPARQL's own (query results, validation reports): ``{"type": "uri"|"bnode"|"literal"|
    "triple", "value": …}`` with ``datatype`` or ``xml:lang``. None (and the default graph)
    as None; text that is no term (a SHACL path written in SPARQL) as a plain literal.

    >>> sparql_term_json(NamedNode("https://example.org/tea"))
    {'type': 'uri', 'value': 'https://example.org/tea'}
    >>> sparql_term_json("<https://example.org/p>/<https://example.org/q>")
    {'type': 'literal', 'value': '<https://example.org/p>/<https://example.org/q>'}
    """
    if term is None or isinstance(term, DefaultGraph):
        return None
    if isinstance(term, NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, Literal):
        out: dict[str, Any] = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != XSD_STRING:
            out["datatype"] = term.datatype.value
        return out
    if isinstance(term, Triple):
        return {"type": "triple", "value": {
            "subject": sparql_term_json(term.subject), "predicate": sparql_term_json(term.predicate),
            "object": sparql_term_json(term.object),
        }}
    return {"type": "literal", "value": str(term)}


def terms_json(terms: Iterable[Any]) -> list[Any]:
    return [term_json(t) for t in terms]


def rows_json(solutions: QuerySolutions, *, limit: int | None = None) -> tuple[list[dict[str, Any]], bool]:
    """SELECT solutions as one dict per row (unbound variables left out), at most ``limit``
    rows; also whether rows were left out."""
    names = [v.value for v in solutions.variables]
    rows: list[dict[str, Any]] = []
    for row in solutions:
        if limit is not None and len(rows) >= limit:
            return rows, True
        rows.append({n: term_json(row[n]) for n in names if row[n] is not None})
    return rows, False
