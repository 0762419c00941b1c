"""Recall: from a question in words to the memory's nodes, ranked, with the reasons.

:func:`recall` (and :meth:`memkg.MemoryStore.recall`, docs/contract.md section 7) turns a
question into hits: messages, claims, episodes and vertices, best first, each
with the signals that ranked it (:mod:`memkg.recall.ranking`). The text, vector
and link index behind it (:mod:`memkg.recall.index`) is derived data, a follower of the
store (:data:`RECALL_INDEX`, :mod:`memkg.recall.follower`) kept by its writes; it is built
from the store on first use. Its options (the embedder) are its kind's:
``MemoryStore(path, followers=[recall_index(embedder=…)])``.

>>> from datetime import datetime, timezone
>>> from memkg import MemoryStore, Message, Vertex
>>> store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
>>> lia = store.add(Vertex(id="https://example.org/lia", cls="https://w3id.org/memkg#Person", display_name="Lia"))
>>> said = store.add(Message(content="I drink chamomile tea in the evening", sender=lia,
...                          event_time=datetime(2026, 1, 5, 20, tzinfo=timezone.utc)))
>>> other = store.add(Message(content="The build server is down again"))
>>> hits = store.recall("What does Lia drink in the evening?", k=2)
>>> hits[0].node == said.value, hits[0].kind, sorted(hits[0].signals)[:2]
(True, 'Message', ['entity', 'lexical'])
"""

from __future__ import annotations

from .answers import RECALLER, answer, recall
from .embedder import Embedder, HashingEmbedder, WordLlamaEmbedder, default_embedder
from .encoders import MiniLMEmbedder
from .follower import RECALL_INDEX, RecallIndexKind, check_recall_index, rebuild_recall_index, recall_index
from .hits import SIGNALS, Hit, Hits, RecallAnswer
from .index import INDEX_FILE, IndexFault, RecallIndex, RecallIndexReport
from .ranking import RecallConfig
from .timeexpr import Period, find_periods

__all__ = [
    "INDEX_FILE",
    "RECALLER",
    "RECALL_INDEX",
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
    "RecallIndexKind",
    "RecallIndexReport",
    "WordLlamaEmbedder",
    "answer",
    "check_recall_index",
    "default_embedder",
    "find_periods",
    "rebuild_recall_index",
    "recall",
    "recall_index",
]
