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

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Triple

#: An IRI argument: a node, or its text.
IRI = Union[str, NamedNode]
#: Any RDF 1.2 term (what a quad's object may be).
Term = Union[NamedNode, BlankNode, Literal, Triple]
#: A node that can carry properties: an IRI or a blank node.
Resource = Union[NamedNode, BlankNode]
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


__all__ = [
    "ID_BASE",
    "IRI",
    "Graph",
    "Resource",
    "Term",
    "datetime_literal",
    "datetime_of",
    "iri",
    "new_id",
    "parse_datetime",
]
