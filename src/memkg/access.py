"""Who may see and change what: bearer tokens, tenants and the dataset a request runs over.

SPEC section 6: with a tokens file (JSON ``{"TOKEN": {"tenants": [GRAPH-IRI, …], "write":
bool}}``) every request needs ``Authorization: Bearer TOKEN``; a token sees its tenants'
graphs plus the shared default graph (and the ontology graph, the shared vocabulary), and
writes only where ``write`` is true, whatever the request names (``GRAPH``, ``FROM``,
``FROM NAMED``, ``SERVICE``, protocol parameters).

This module is the one place that decides it, for the endpoint and anything else that
serves more than one tenant. Without a tokens file every request gets :data:`OPEN`, the
whole store.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyoxigraph import NamedNode

from .errors import MemkgError


class Unauthorized(MemkgError, PermissionError):
    """No token, or a token the server does not know (HTTP 401)."""


class Forbidden(MemkgError, PermissionError):
    """A known token asking beyond its rights (HTTP 403)."""


@dataclass(frozen=True)
class Grant:
    """What one request may do. ``tenants`` None means every graph (no tokens configured)."""

    tenants: frozenset[NamedNode] | None
    write: bool
    token_name: str | None = None  #: for logs: never the token itself

    @property
    def restricted(self) -> bool:
        return self.tenants is not None


#: The grant of every request when the server has no tokens file.
OPEN = Grant(tenants=None, write=True)
