"""The endpoint's one seam with :mod:`memkg.guard.access` (who may do what) and :mod:`memkg.history.updates`.

Every call the server makes about tokens, datasets and SPARQL Update goes through
this module, so the server never decides rights on its own. Without ``--tokens``
every request gets :data:`memkg.guard.access.OPEN`: the whole store, ``SERVICE``
included (as on Oxigraph's own server: an open server is for trusted clients on
a trusted network); with tokens, :mod:`memkg.guard.access` confines each request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyoxigraph import DefaultGraph, NamedNode

from ...core.vocab import ONTOLOGY_GRAPH
from ...guard import access
from ...guard.access import (
    OPEN,
    Forbidden,
    Grant,
    TokenCheck,
    Unauthorized,
    bearer_grant,
)
from ...history.updates import UnsupportedUpdate

__all__ = [
    "OPEN", "Forbidden", "Grant", "Unauthorized", "UnsupportedUpdate",
    "TokenCheck", "bearer_grant", "load_tokens", "query_options", "view_options", "can_write_graph", "visible_graphs",
]


def load_tokens(path: str | Path | None) -> TokenCheck | None:
    """The server's tokens, or None (no ``--tokens``: every request is :data:`OPEN`)."""
    return None if path is None else access.Tokens.load(path)


def grant(tokens: TokenCheck | None, authorization: str | None) -> Grant:
    """What a request may do; :class:`Unauthorized` without a known token."""
    return OPEN if tokens is None else bearer_grant(tokens, authorization)


def query_options(
    grant: Grant,
    query: str,
    *,
    default_graph_uris: Sequence[str] = (),
    named_graph_uris: Sequence[str] = (),
    base_iri: str | None = None,
) -> dict[str, Any]:
    """``Store.query`` keyword arguments giving a query its dataset (SPARQL 1.1 Protocol §2.1.4)."""
    return access.query_options(
        grant, query, default_graph_uris=default_graph_uris, named_graph_uris=named_graph_uris, base_iri=base_iri
    )


def view_options(grant: Grant, tenant: NamedNode | None) -> dict[str, Any]:
    """The dataset a view runs over: one tenant's graph (plus the shared graphs), or all it may see."""
    return access.view_options(grant, tenant)


def can_write_graph(grant: Grant, graph: NamedNode | DefaultGraph) -> bool:
    return bool(access.can_write_graph(grant, graph))


@dataclass(frozen=True)
class UpdateSummary:
    removed: int
    added: int


def visible_graphs(grant: Grant) -> frozenset[NamedNode | DefaultGraph] | None:
    """The graphs a write by ``grant`` is judged against (None: all of them).

    A restricted token's write is validated over its own graphs, the shared default
    graph and the ontology, exactly what it can read: whether it is refused must not
    depend on another tenant's data (else a refusal tells whether an IRI is typed, or a
    predicate declared, elsewhere). Tenant isolation across the whole store (invariant 7)
    is judged by ``memkg validate`` and on writes without tokens.
    """
    if not grant.restricted:
        return None
    return frozenset({*(grant.tenants or ()), DefaultGraph(), ONTOLOGY_GRAPH})
