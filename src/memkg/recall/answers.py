"""From a question in words to hits: :func:`recall` and :func:`answer`, and the recall the store
asks for :meth:`memkg.MemoryStore.recall` (:data:`RECALLER`, plugged in under
:data:`memkg.store.plugins.RECALL`'s name).

A store that keeps followers ranks with its recall index (:data:`memkg.recall.RECALL_INDEX`);
a store on a ``memkg serve`` asks the server (``GET /recall``), which ranks with the index it
keeps beside its store.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from pyoxigraph import DefaultGraph, NamedNode, Quad

from ..core.hits import Hit, Hits
from ..store import MemoryStore
from ..store.backends.base import Backend
from ..store.plugins import RECALL, Host, NotPluggedIn
from .follower import RECALL_INDEX
from .hits import RecallAnswer
from .index import RecallIndex
from .ranking import RecallConfig, rank


def recall(
    store: Host,
    query: str,
    *,
    tenant: str | NamedNode | None = None,
    tenants: Sequence[str | NamedNode] | None = None,
    k: int = 10,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    now: datetime | None = None,
    config: RecallConfig | None = None,
    index: RecallIndex | None = None,
) -> Hits:
    """The ``k`` best hits for ``query``, best first (a list of :class:`Hit` that also says
    whether anything in memory matched: :attr:`Hits.matched`).

    The scope is ``tenant``'s graph plus the shared default graph; or the union
    of ``tenants`` (each plus the default graph); or, with neither, every graph.
    ``known_at`` recalls what the store knew then (later records, supersessions
    and retractions unseen); ``valid_at`` is the time claims are judged current
    at. Relative periods in the question ("last week") count back from ``now``,
    which defaults to ``known_at``, then ``valid_at``, then the present. ``index``: the recall
    index to rank with instead of the store's own (a query worker's, which follows the
    server's index while the store is one snapshot after another).

    :raises ValueError: ``query`` is empty, or a tenant is not an IRI.
    """
    if not isinstance(query, str) or not query.strip():
        raise ValueError("recall needs a question (a non-empty string)")
    for name, t in (("valid_at", valid_at), ("known_at", known_at), ("now", now)):
        if t is not None and t.tzinfo is None:
            raise ValueError(f"{name} {t.isoformat()} has no timezone; memkg times must carry one")
    if not store.capabilities.sole_writer:  # a server's store: the server recalls
        if tenants is not None and tenant is None:
            raise ValueError("a remote store recalls in one tenant (tenant=…) or in all its token may see")
        return _served(store.backend, query, tenant=tenant, k=k, valid_at=valid_at, known_at=known_at)
    chosen = [tenant] if tenant is not None else list(tenants) if tenants is not None else None
    graphs = None if chosen is None else ["", *(_graph_key(t) for t in chosen)]
    index = index or store.follower(RECALL_INDEX, create=True)
    if index is None:
        raise NotPluggedIn("no recall index is plugged in: import memkg")
    with store.lock():  # a consistent view of store and index while ranking
        return rank(index, store.backend.local_store(), query, graphs=graphs, k=k, now=now, valid_at=valid_at,
                    known_at=known_at, config=config)


def _served(backend: Backend, query: str, *, tenant: str | NamedNode | None, k: int, valid_at: datetime | None,
            known_at: datetime | None) -> Hits:
    """Recall on the server: a ``memkg serve`` answers ``GET /recall`` from the text and vector
    indexes it keeps beside its store, under the backend's token (docs/contract.md section 7:
    ``{"query", "hits", "matched"}``). Another SPARQL server has no such indexes (and no copy
    here could be kept current as other clients write): :class:`RemoteError` says so."""
    from ..store.backends.sparql import RemoteError  # here: a recall on disk needs no HTTP client

    params = [("q", query), ("k", str(k))]
    params += [(name, value) for name, value in (
        ("tenant", tenant.value if isinstance(tenant, NamedNode) else tenant),
        ("valid_at", valid_at.isoformat() if valid_at else None),
        ("known_at", known_at.isoformat() if known_at else None)) if value is not None]
    try:
        answer = backend.fetch_json("recall", params)
    except RemoteError as err:
        if err.status in (404, 405):
            raise RemoteError(
                f"the server answers no recall ({err}): recall needs memkg's text and vector indexes, which "
                f"only `memkg serve` keeps beside its store; serve the store with memkg serve, or recall where "
                f"the store is (--store)", status=err.status) from None
        raise
    if not isinstance(answer, dict) or not isinstance(answer.get("hits"), list):
        raise RemoteError(f"the server's recall answer is not memkg's (no list of hits): {str(answer)[:200]}")
    return Hits((Hit.from_dict(h) for h in answer["hits"]), query=query, matched=bool(answer.get("matched", True)))


def _graph_key(tenant: str | NamedNode) -> str:
    if isinstance(tenant, DefaultGraph):
        return ""
    if isinstance(tenant, NamedNode):
        return tenant.value
    try:
        return NamedNode(tenant).value
    except (TypeError, ValueError) as err:
        raise ValueError(f"not a valid tenant graph IRI: {tenant!r} ({err})") from None


def answer(
    store: MemoryStore,
    query: str,
    *,
    tenant: str | NamedNode | None = None,
    tenants: Sequence[str | NamedNode] | None = None,
    k: int = 10,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    packet: bool = False,
    max_vertices: int = 50,
    index: RecallIndex | None = None,
) -> RecallAnswer:
    """:func:`recall` as a :class:`RecallAnswer`; with ``packet``, the evidence packet seeded by
    the hits (:func:`memkg.provenance.evidence.packet`) over the same scope, which must then be one tenant
    (``tenant``, or a single entry in ``tenants``) or every graph."""
    hits = recall(store, query, tenant=tenant, tenants=tenants, k=k, valid_at=valid_at, known_at=known_at, index=index)
    evidence = None
    if packet and hits:
        scope = tenant if tenant is not None else None
        if scope is None and tenants is not None:
            if len(tenants) != 1:
                raise ValueError("a packet covers one tenant: name it (tenant=…)")
            scope = tenants[0]
        from ..provenance.evidence import packet as make_packet  # here: a recall without one never imports it

        evidence = make_packet(store, [h.node for h in hits], tenant=scope, max_vertices=max(max_vertices, len(hits)))
    return RecallAnswer(query, tuple(hits), evidence, matched=hits.matched)


class _Recaller:
    """The recall a store asks for :meth:`memkg.MemoryStore.recall`
    (:class:`memkg.store.plugins.Recaller`): :func:`recall` over the store it serves. It follows
    no write: the recall index it ranks with does."""

    follows: Collection[NamedNode] = frozenset()

    def __init__(self, host: Host) -> None:
        self._host = host

    def recall(self, query: str, *, tenant: str | NamedNode | None = None, k: int = 10,
               valid_at: datetime | None = None, known_at: datetime | None = None) -> Hits:
        return recall(self._host, query, tenant=tenant, k=k, valid_at=valid_at, known_at=known_at)

    def begin(self, added: Sequence[Quad] | None, removed: Sequence[Quad]) -> None:
        return None

    def apply(self, *, added: Sequence[Quad], removed: Sequence[Quad], begun: object) -> None:
        pass

    def close(self) -> None:
        pass


class RecallerKind:
    """Opens a store's :class:`_Recaller` when the store is first asked to recall."""

    name = RECALL.name

    def open(self, host: Host, *, create: bool) -> _Recaller | None:
        return _Recaller(host) if create else None


#: What answers :meth:`memkg.MemoryStore.recall`, plugged into every store by ``memkg/__init__.py``.
RECALLER = RecallerKind()
