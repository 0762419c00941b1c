"""RDF terms as JSON: the term objects of SPARQL 1.1 Query Results JSON, everywhere memkg writes JSON.

One function, so every JSON memkg writes (validation reports, query results built
here, pictures' data) spells a term one way: ``{"type": "uri", "value": …}``,
``{"type": "bnode", …}``, ``{"type": "literal", "value": …, "datatype"|"xml:lang": …}``
and, for RDF 1.2 triple terms, ``{"type": "triple", "value": {"subject": …,
"predicate": …, "object": …}}`` (as Oxigraph writes them).

>>> from pyoxigraph import Literal, NamedNode
>>> term_json(NamedNode("https://example.org/lia/Lia"))
{'type': 'uri', 'value': 'https://example.org/lia/Lia'}
>>> term_json(Literal("0.9", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal")))
{'type': 'literal', 'value': '0.9', 'datatype': 'http://www.w3.org/2001/XMLSchema#decimal'}
>>> term_json("<https://example.org/p>/<https://example.org/q>")  # a SHACL path that is no term
{'type': 'literal', 'value': '<https://example.org/p>/<https://example.org/q>'}
>>> term_json(None) is None
True
"""

from __future__ import annotations

from typing import Any

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Triple

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def term_json(term: Any) -> dict[str, Any] | None:
    """``term`` as a SPARQL 1.1 JSON results term object; None (and the default graph) as None;
    text that is no term (a SHACL path written in SPARQL) as a plain literal."""
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
            "subject": term_json(term.subject), "predicate": term_json(term.predicate), "object": term_json(term.object),
        }}
    return {"type": "literal", "value": str(term)}


__all__ = ["term_json"]
