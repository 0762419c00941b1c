"""The endpoint's one seam with :mod:`memkg.access` (who may do what) and :mod:`memkg.updates`.

Every call the server makes about tokens, datasets and SPARQL Update goes
through this module. When those modules provide the call it is used as is;
until they do, the no-tokens case (every request gets :data:`memkg.access.OPEN`)
is implemented here from the SPARQL 1.1 Protocol alone, and tokens are refused
at startup. Nothing here decides rights on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pyoxigraph import DefaultGraph, NamedNode

from .. import access, views
from ..access import OPEN, Forbidden, Grant, Unauthorized
from ..errors import MemkgError, ParseError
from ..ontology import ONTOLOGY_GRAPH
from ..store import MemoryStore
from ..vocab import PREFIXES

try:
    from ..updates import UnsupportedUpdate
    from ..updates import apply_update as _apply_update
except ImportError:  # memkg.updates not merged yet: see apply_update below
    _apply_update = None

    class UnsupportedUpdate(MemkgError, NotImplementedError):  # type: ignore[no-redef]
        """A SPARQL Update operation the endpoint does not carry out (HTTP 501)."""


__all__ = [
    "OPEN", "Forbidden", "Grant", "Unauthorized", "UnsupportedUpdate",
    "TokenCheck", "load_tokens", "query_options", "view_options", "can_write_graph", "apply_update",
]


class TokenCheck(Protocol):
    def grant(self, authorization: str | None) -> Grant: ...


def load_tokens(path: str | Path | None) -> TokenCheck | None:
    """The server's tokens, or None (no ``--tokens``: every request is :data:`OPEN`)."""
    if path is None:
        return None
    tokens = getattr(access, "Tokens", None)
    if tokens is None:
        raise ValueError(f"{path}: this build of memkg cannot check tokens yet (memkg.access.Tokens is missing)")
    return tokens.load(path)


def grant(tokens: TokenCheck | None, authorization: str | None) -> Grant:
    """What a request may do; :class:`Unauthorized` without a known token."""
    return OPEN if tokens is None else tokens.grant(authorization)


def query_options(
    grant: Grant, query: str, *, default_graph_uris: Sequence[str] = (), named_graph_uris: Sequence[str] = ()
) -> dict[str, Any]:
    """``Store.query`` keyword arguments giving a query its dataset (SPARQL 1.1 Protocol §2.1.4)."""
    decide = getattr(access, "query_options", None)
    if decide is not None:
        return decide(grant, query, default_graph_uris=default_graph_uris, named_graph_uris=named_graph_uris)
    _open_only(grant)
    # Without protocol parameters the query's own FROM / FROM NAMED apply, else the store's
    # default graph and every named graph. With them, they *are* the dataset.
    if not default_graph_uris and not named_graph_uris:
        return {}
    return {
        "default_graph": [_iri(u, "default-graph-uri") for u in default_graph_uris],
        "named_graphs": [_iri(u, "named-graph-uri") for u in named_graph_uris],
    }


def view_options(grant: Grant, tenant: NamedNode | None) -> dict[str, Any]:
    """The dataset a view runs over: one tenant's graph (plus the shared graphs), or all."""
    decide = getattr(access, "view_options", None)
    if decide is not None:
        return decide(grant, tenant)
    _open_only(grant)
    return views.dataset_for(tenant, ONTOLOGY_GRAPH)


def can_write_graph(grant: Grant, graph: NamedNode | DefaultGraph) -> bool:
    decide = getattr(access, "can_write_graph", None)
    if decide is not None:
        return bool(decide(grant, graph))
    _open_only(grant)
    return grant.write


@dataclass(frozen=True)
class UpdateSummary:
    removed: int | None  #: None: not known (the temporary fallback below cannot tell)
    added: int | None


def apply_update(
    store: MemoryStore,
    update: str,
    *,
    grant: Grant,
    using_graphs: Sequence[str] = (),
    using_named_graphs: Sequence[str] = (),
    base_iri: str | None = None,
) -> UpdateSummary:
    """Carry out a SPARQL Update atomically (the caller holds the store's write lock)."""
    if _apply_update is not None:
        report = _apply_update(
            store,
            update,
            grant=grant,
            using_graphs=tuple(_iri(u, "using-graph-uri") for u in using_graphs),
            using_named_graphs=tuple(_iri(u, "using-named-graph-uri") for u in using_named_graphs),
            base_iri=base_iri,
        )
        return UpdateSummary(removed=report.removed, added=report.added)
    # ---- TEMPORARY FALLBACK, to be replaced by memkg.updates.apply_update -------------------
    # store.raw.update() is atomic but NOT validated and does not maintain memkg's claim
    # index. It is here only so the endpoint's protocol plumbing can be exercised before
    # memkg.updates lands; it serves the no-tokens case only.
    _open_only(grant)
    if using_graphs or using_named_graphs:
        raise UnsupportedUpdate("using-graph-uri / using-named-graph-uri need memkg.updates (not in this build)")
    try:
        store.raw.update(update, base_iri=base_iri, prefixes=PREFIXES)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<update>") from None
    return UpdateSummary(removed=None, added=None)  # len(store) would scan the whole store
    # ---- END OF TEMPORARY FALLBACK ---------------------------------------------------------


def _open_only(grant: Grant) -> None:
    if grant.restricted:  # cannot happen: tokens are refused at startup without memkg.access.Tokens
        raise Forbidden("tenant restrictions need memkg.access (not in this build)")


def _iri(value: str, parameter: str) -> NamedNode:
    try:
        return NamedNode(value)
    except ValueError as err:
        raise ValueError(f"{parameter}={value!r} is not an IRI: {err}") from None
