"""Recall: from a question in words to the memory's nodes, ranked, with the reasons.

:func:`recall` (and :meth:`memkg.MemoryStore.recall`, SPEC section 7) turns a
question into hits: messages, claims, episodes and vertices, best first, each
with the signals that ranked it (:mod:`memkg.recall.ranking`). The text, vector
and link index behind it (:mod:`memkg.recall.index`) is derived data kept by the
store's write paths; it is built from the store on first use.

>>> from datetime import datetime, timezone
>>> from memkg import MemoryStore, Message, Vertex
>>> store = MemoryStore(embedder=HashingEmbedder())
>>> lia = store.add(Vertex(id="https://example.org/lia", cls="https://w3id.org/memkg#Person", display_name="Lia"))
>>> said = store.add(Message(content="I drink chamomile tea in the evening", sender=lia,
...                          event_time=datetime(2026, 1, 5, 20, tzinfo=timezone.utc)))
>>> other = store.add(Message(content="The build server is down again"))
>>> hits = store.recall("What does Lia drink in the evening?", k=2)
>>> hits[0].node == said.value, hits[0].kind, sorted(hits[0].signals)[:2]
(True, 'Message', ['entity', 'lexical'])
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pyoxigraph import DefaultGraph, NamedNode

from ..provenance.evidence import packet as make_packet
from .embedder import Embedder, HashingEmbedder, WordLlamaEmbedder, default_embedder
from .encoders import MiniLMEmbedder
from .hits import SIGNALS, Hit, Hits, RecallAnswer
from .index import INDEX_FILE, IndexFault, RecallIndex, RecallIndexReport
from .ranking import RecallConfig, rank
from .timeexpr import Period, find_periods

if TYPE_CHECKING:
    from ..store import MemoryStore

__all__ = [
    "INDEX_FILE",
    "SIGNALS",
    "Embedder",
    "HashingEmbedder",
    "Hit",
    "Hits",
    "IndexFault",
    "MiniLMEmbedder",
    "Period",
    "RecallAnswer",
    "RecallConfig",
    "RecallIndex",
    "RecallIndexReport",
    "WordLlamaEmbedder",
    "default_embedder",
    "find_periods",
    "answer",
    "recall",
]


def recall(
    store: "MemoryStore",
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
    """
    if not isinstance(query, str) or not query.strip():
        raise ValueError("recall needs a question (a non-empty string)")
    for name, t in (("valid_at", valid_at), ("known_at", known_at), ("now", now)):
        if t is not None and t.tzinfo is None:
            raise ValueError(f"{name} {t.isoformat()} has no timezone; memkg times must carry one")
    if not store.capabilities.recall_index:  # a server's store: the server recalls (SparqlBackend.recall)
        if tenants is not None and tenant is None:
            raise ValueError("a remote store recalls in one tenant (tenant=…) or in all its token may see")
        answer = store.backend.recall(query, tenant=tenant, k=k, valid_at=valid_at, known_at=known_at)
        return Hits((Hit.from_dict(h) for h in answer["hits"]), query=query, matched=bool(answer.get("matched", True)))
    chosen = [tenant] if tenant is not None else list(tenants) if tenants is not None else None
    graphs = None if chosen is None else ["", *(_graph_key(t) for t in chosen)]
    index = index or store.recall_index()
    with store.lock():  # a consistent view of store and index while ranking
        return rank(index, store.backend.local_store(), query, graphs=graphs, k=k, now=now, valid_at=valid_at,
                    known_at=known_at, config=config)


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
    store: "MemoryStore",
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
        evidence = make_packet(store, [h.node for h in hits], tenant=scope, max_vertices=max(max_vertices, len(hits)))
    return RecallAnswer(query, tuple(hits), evidence, matched=hits.matched)
