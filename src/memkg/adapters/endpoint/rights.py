"""Who may do what at the endpoint: every rights decision it makes, in this one module.

The rest of the endpoint never reads a grant's tenants or its write flag: it asks here,
and this module asks :mod:`memkg.guard.access`, where the rules are. Without ``--tokens``
every request gets :data:`memkg.guard.access.OPEN`: the whole store, ``SERVICE`` included
(as on Oxigraph's own server: an open server is for trusted clients on a trusted network);
with tokens, :mod:`memkg.guard.access` confines each request.

A query's dataset is decided from its text as the engine will read it
(:func:`query_dataset`), so it is decided in the query worker, where untrusted text is
parsed; so is an update's reach, by :func:`memkg.history.updates.plan_update` with the
request's grant. Everything else is decided in the server process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pyoxigraph import DefaultGraph, NamedNode

from ...core.terms import Graph, GraphName
from ...core.vocab import ONTOLOGY_GRAPH
from ...guard import access
from ...guard.access import OPEN, Forbidden, Grant, TokenCheck, bearer_grant


def load_tokens(path: str | Path | None) -> TokenCheck | None:
    """The server's tokens, or None (no ``--tokens``: every request is :data:`OPEN`)."""
    return None if path is None else access.Tokens.load(path)


def admit(tokens: TokenCheck | None, authorization: str | None, *, writes: bool, public: bool = False) -> Grant | None:
    """Who sent a request, from its headers alone (before its body is read).

    :class:`~memkg.guard.access.Unauthorized` without a token the server knows;
    :class:`~memkg.guard.access.Forbidden` for a write by a read-only token. None: no
    token on a request that needs none (``public``: ``/health``, which then tells its status
    and nothing more, and the query page, which holds no data).
    """
    if tokens is None:
        return OPEN
    if public and not authorization:
        return None
    grant = bearer_grant(tokens, authorization)
    if writes:
        require_write(grant)
    return grant


def require_write(grant: Grant) -> None:
    """Forbidden unless ``grant`` may write."""
    if not grant.write:
        raise Forbidden(f"{grant.who} may not write")


def require_write_graph(grant: Grant, graph: GraphName, label: str) -> None:
    """Forbidden unless ``grant`` may change ``graph`` (``label``: how a refusal names it)."""
    if graph == ONTOLOGY_GRAPH:
        raise Forbidden(f"{graph} is memkg's ontology graph; memkg maintains it, writes to it are refused")
    if not access.can_write_graph(grant, graph):
        raise Forbidden(f"this token may not write {label}")


def visible_graphs(grant: Grant) -> frozenset[Graph] | None:
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


def seen(grant: Grant, graphs: Iterable[NamedNode]) -> list[NamedNode]:
    """The ``graphs`` that ``grant`` may read: all a refusal may name (a graph not found, say)."""
    return [g for g in graphs if grant.can_see(g)]


# -- the dataset a read runs over --------------------------------------------------------------


def query_dataset(
    grant: Grant,
    query: str,
    *,
    default_graph_uris: Sequence[str] = (),
    named_graph_uris: Sequence[str] = (),
    base_iri: str | None = None,
) -> dict[str, Any]:
    """``Store.query`` keyword arguments giving a request's query its dataset (SPARQL 1.1
    Protocol §2.1.4), read from the text as the engine reads it
    (:func:`memkg.guard.access.query_options`): called where the text is parsed, in a worker."""
    return access.query_options(
        grant, query, default_graph_uris=default_graph_uris, named_graph_uris=named_graph_uris, base_iri=base_iri
    )


def view_dataset(grant: Grant, tenant: NamedNode | None) -> dict[str, Any]:
    """The dataset a view runs over: one tenant's graph (plus the shared graphs), or all it may
    see; Forbidden for a tenant beyond the grant."""
    return access.view_options(grant, tenant)


def require_whole_store(grant: Grant) -> None:
    """Forbidden unless ``grant`` may read every graph at once (a Graph Store GET of the store)."""
    if grant.restricted:
        raise Forbidden("a token limited to tenants reads one graph at a time: /store?graph=IRI")


def recall_tenants(grant: Grant, tenant: NamedNode | None) -> tuple[str, ...] | None:
    """The tenants a recall searches: the one asked for, or every tenant of the grant; None:
    every graph (a server without tokens)."""
    if tenant is not None:
        if grant.restricted and tenant not in (grant.tenants or ()):
            raise Forbidden(f"tenant {tenant.value} is not one of this token's tenants")
        return (tenant.value,)
    return tuple(sorted(t.value for t in grant.tenants or ())) if grant.restricted else None


def picture_tenant(grant: Grant, tenant: NamedNode | None) -> NamedNode | None:
    """The tenant a picture reads: the one asked for, else the grant's only tenant; None: every
    graph (a server without tokens)."""
    if tenant is None:
        if not grant.restricted:
            return None
        if len(grant.tenants or ()) != 1:
            raise Forbidden("this token has several tenants: name one with tenant=IRI")
        return next(iter(grant.tenants or ()))
    if grant.restricted and tenant not in (grant.tenants or ()):
        raise Forbidden(f"tenant {tenant} is not one of this token's tenants")
    return tenant


def share(grant: Grant) -> str | None:
    """Whose share of the query workers a request counts against: its token's name; None on a
    server without tokens (not counted)."""
    return grant.token_name if grant.restricted else None


# -- what the server tells about itself ------------------------------------------------------


def sees_settings(grant: Grant | None) -> bool:
    """Whether ``/health`` tells this requester the server's settings (read-only, time limit)."""
    return grant is not None


def sees_activity(grant: Grant | None) -> bool:
    """Whether ``/health`` tells this requester the snapshot number and the workers' process ids:
    not a tenant's token (the snapshot number counts every tenant's writes)."""
    return grant is not None and not grant.restricted
