"""The recall index plugged into the store (:class:`memkg.store.plugins.FollowerKind`).

A store on disk keeps its index in a file beside its data (:data:`INDEX_FILE`); the store
opens it when it exists, so that every write keeps it up, and builds it on first recall.
"""

from __future__ import annotations

from ..guard.cancellation import shielded
from ..store import MemoryStore
from .embedder import default_embedder
from .index import INDEX_FILE, RecallIndex


class RecallIndexKind:
    """Plugs the recall index into stores whose backend keeps one (``capabilities.recall_index``)."""

    name = "recall"

    def open(self, store: MemoryStore, *, create: bool) -> RecallIndex | None:
        if not store.capabilities.recall_index:
            return None
        file = store.path / INDEX_FILE if store.path is not None else None
        if not create and not RecallIndex.exists(file):
            return None
        if store.read_only and not RecallIndex.exists(file):
            raise PermissionError(f"{store.path}: no recall index, and the store is open read-only")
        index = RecallIndex(store.backend.local_store(), file, store.embedder or default_embedder(),
                            read_only=store.read_only)
        if not index.built and not store.read_only:
            with shielded():  # written to the store's directory: whole or not at all
                index.rebuild()
        return index


RECALL_INDEX = RecallIndexKind()
