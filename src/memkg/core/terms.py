"""RDF terms as memkg uses them: one place for the type aliases, IRIs from text, and times.

Every module names terms with these aliases and turns text into IRIs and times
with these functions, so that one rule holds everywhere:

- an IRI argument is a :class:`~pyoxigraph.NamedNode` or text; text without a
  scheme (``"lia"``) is a caller's stable id, kept under :data:`ID_BASE`;
- a time is an ``xsd:dateTime`` with a timezone; a naive time is refused.

>>> iri("https://example.org/lia")
<NamedNode value=https://example.org/lia>
>>> iri("lia", kind="person")
<NamedNode value=urn:memkg:person:lia>
>>> parse_datetime("2026-01-01T09:00:00Z").isoformat()
'2026-01-01T09:00:00+00:00'
>>> datetime_literal(parse_datetime("2026-01-01T10:00:00+01:00"))
<Literal value=2026-01-01T09:00:00Z datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#dateTime>>
>>> datetime_of(Literal("not a time")) is None
True
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from typing import Union

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Triple

#: An IRI argument: a node, or its text.
IRI = Union[str, NamedNode]
#: Any RDF 1.2 term (what a quad's object may be).
Term = Union[NamedNode, BlankNode, Literal, Triple]
#: A node that can carry properties: an IRI or a blank node.
Resource = Union[NamedNode, BlankNode]
#: What a quad's subject may be, as pyoxigraph types it (a triple term among them).
Subject = Union[NamedNode, BlankNode, Triple]
#: Where a write goes: a tenant's named graph, or the shared default graph.
Graph = Union[NamedNode, DefaultGraph]
#: Any graph name a dataset may hold (a loaded file may name a graph by a blank node).
GraphName = Union[NamedNode, BlankNode, DefaultGraph]

#: Prefix of the IRIs memkg mints when the caller gives none.
ID_BASE = "urn:memkg:"

_XSD_DATETIME = NamedNode("http://www.w3.org/2001/XMLSchema#dateTime")


def iri(value: IRI, *, kind: str = "id") -> NamedNode:
    """An IRI argument as a node. A bare token with no scheme (``"lia"``) is a
    caller's stable id and is kept, under :data:`ID_BASE`.

    Raises :class:`TypeError` for a value that is not text or a node, and
    :class:`ValueError` for text that is not a valid IRI.
    """
    if isinstance(value, NamedNode):
        return value
    if not isinstance(value, str) or not value:
        raise TypeError(f"expected an IRI (str or NamedNode), got {value!r}")
    if ":" not in value:
        value = f"{ID_BASE}{kind}:{value}"
    try:
        return NamedNode(value)
    except ValueError as err:
        raise ValueError(f"not a valid IRI: {value!r} ({err})") from None


def tenant_iri(value: IRI | None) -> NamedNode | None:
    """A ``tenant`` argument as its graph's node, or None (every graph). A tenant is
    always named by a full IRI (text or node): a bare token is refused, never minted.

    >>> tenant_iri("https://example.org/tenants/lia")
    <NamedNode value=https://example.org/tenants/lia>
    >>> tenant_iri("lia")
    Traceback (most recent call last):
    ValueError: tenant must be a full IRI, got 'lia'
    """
    return None if value is None else full_iri(value, "tenant")


def full_iri(value: IRI, what: str = "IRI") -> NamedNode:
    """An IRI argument that must be absolute (a tenant, a claim to explain): unlike
    :func:`iri`, a bare token is refused with a ValueError naming ``what``."""
    if isinstance(value, NamedNode):
        return value
    if not isinstance(value, str) or ":" not in value:
        raise ValueError(f"{what} must be a full IRI, got {value!r}")
    return iri(value)


def new_id(kind: str) -> NamedNode:
    """A fresh, time-ordered IRI such as ``urn:memkg:claim:0193a…``.

    Time-ordered (48-bit milliseconds, then 80 random bits) so that IRIs sort in
    the order they were minted, which keeps exports and logs readable.
    """
    stamp = int(time.time() * 1000).to_bytes(6, "big").hex()
    return NamedNode(f"{ID_BASE}{kind}:{stamp}{os.urandom(10).hex()}")


def parse_datetime(text: str) -> datetime:
    """An ISO 8601 / ``xsd:dateTime`` text as a datetime (``Z`` is UTC).

    The result may be naive when the text has no timezone: callers that need one
    check ``tzinfo`` and say which input lacked it. Raises :class:`ValueError`
    for text that is not a time.
    """
    return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))


def zoned_datetime(text: str) -> datetime:
    """A time a person typed (an option, a request parameter), which must carry its timezone.

    Raises :class:`ValueError` naming the text and how to write it, for text that is not a
    time or a time without a timezone; the CLI and the endpoint say it in their own error.

    >>> zoned_datetime("2026-01-01T09:00:00+01:00").isoformat()
    '2026-01-01T09:00:00+01:00'
    >>> zoned_datetime("2026-01-01")
    Traceback (most recent call last):
    ValueError: '2026-01-01' has no timezone: memkg times carry one (…Z or …+01:00)
    """
    try:
        t = parse_datetime(text)
    except ValueError:
        raise ValueError(f"not a date-time: {text!r} (write 2026-01-01T00:00:00Z)") from None
    if t.tzinfo is None:
        raise ValueError(f"{text!r} has no timezone: memkg times carry one (…Z or …+01:00)")
    return t


def datetime_of(term: object) -> datetime | None:
    """The time a literal holds, or None for anything that is not a readable time."""
    if isinstance(term, Literal):
        try:
            return parse_datetime(term.value)
        except ValueError:
            return None
    return None


def datetime_literal(t: datetime) -> Literal:
    """An ``xsd:dateTime`` literal in UTC; a naive time is refused with :class:`ValueError`."""
    if t.tzinfo is None:
        raise ValueError(f"datetime {t.isoformat()} has no timezone; memkg times must carry one")
    text = t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return Literal(text, datatype=_XSD_DATETIME)


class BlankNodeInQuery(ValueError):
    """A blank node (or a triple term holding one) cannot be written into a SPARQL query."""


def sparql_term(term: Term) -> str:
    """The SPARQL 1.2 surface form of ``term``, for query text memkg generates.

    Blank nodes raise :class:`BlankNodeInQuery`: ``_:b`` in a query pattern is a fresh
    variable, not that node (bind it through ``substitutions`` instead); data blocks
    use :func:`sparql_data_term`.

    >>> sparql_term(Literal('say "hi"', language="en"))
    '"say \\\\"hi\\\\""@en'
    >>> sparql_term(Triple(NamedNode("http://e/s"), NamedNode("http://e/p"), Literal("1")))
    '<<( <http://e/s> <http://e/p> "1" )>>'
    """
    if isinstance(term, (NamedNode, Literal)):
        return str(term)
    if isinstance(term, Triple):
        return f"<<( {sparql_term(term.subject)} {sparql_term(term.predicate)} {sparql_term(term.object)} )>>"
    if isinstance(term, BlankNode):
        raise BlankNodeInQuery(f"blank node {term} cannot be named in a SPARQL query")
    raise TypeError(f"not an RDF term: {term!r}")


def sparql_data_term(term: Term) -> str:
    """A term as written in an ``INSERT DATA`` block, where ``_:label`` names a new blank node.

    >>> sparql_data_term(BlankNode("b0"))
    '_:b0'
    """
    if isinstance(term, Triple):
        return f"<<( {sparql_data_term(term.subject)} {term.predicate} {sparql_data_term(term.object)} )>>"
    return str(term)


def has_blank(term: object) -> bool:
    """Whether ``term`` is a blank node, or a triple term or quad that holds one.

    >>> has_blank(BlankNode()), has_blank(NamedNode("http://e/a"))
    (True, False)
    """
    if isinstance(term, BlankNode):
        return True
    if isinstance(term, Triple):
        return has_blank(term.subject) or has_blank(term.object)
    if isinstance(term, Quad):
        return has_blank(term.subject) or has_blank(term.object) or has_blank(term.graph_name)
    return False


__all__ = [
    "ID_BASE",
    "BlankNodeInQuery",
    "IRI",
    "Graph",
    "GraphName",
    "Resource",
    "Subject",
    "Term",
    "datetime_literal",
    "datetime_of",
    "has_blank",
    "iri",
    "new_id",
    "parse_datetime",
    "zoned_datetime",
    "sparql_data_term",
    "sparql_term",
]
