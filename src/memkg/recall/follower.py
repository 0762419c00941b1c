"""The recall index plugged into the store (:class:`memkg.store.plugins.FollowerKind`).

A store on disk keeps its index in a file beside its data (:data:`INDEX_FILE`); the store
opens it when it exists, so that every write keeps it up, and builds it on first recall.
A store reaches it by its kind, :data:`RECALL_INDEX`; another embedder than the default is
the kind's option:

>>> from memkg import MemoryStore, Message
>>> from memkg.recall import HashingEmbedder
>>> store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder(dim=64))])
>>> _ = store.add(Message(content="the report is due on Friday"))
>>> rebuild_recall_index(store), store.follower(RECALL_INDEX).embedder.dim
(1, 64)
>>> check_recall_index(store).consistent
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..guard.cancellation import shielded
from ..store.plugins import Host
from ..store.report import Progress
from .embedder import Embedder, default_embedder
from .index import INDEX_FILE, RecallIndex, RecallIndexReport


class RecallIndexKind:
    """Opens the recall index of stores that keep followers (``capabilities.sole_writer``),
    with ``embedder`` (None: :func:`memkg.recall.default_embedder`, whose model loads when first
    needed)."""

    name = "recall index"

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def open(self, host: Host, *, create: bool) -> RecallIndex | None:
        if not host.capabilities.sole_writer:
            return None
        path = host.backend.path
        file = path / INDEX_FILE if path is not None else None
        if not create and not RecallIndex.exists(file):
            return None
        if host.read_only and not RecallIndex.exists(file):
            raise PermissionError(f"{path}: no recall index, and the store is open read-only")
        index = RecallIndex(host.backend.local_store(), file, self.embedder or default_embedder(),
                            read_only=host.read_only)
        if not index.built and not host.read_only:
            with shielded():  # written to the store's directory: whole or not at all
                index.rebuild(_building.get())
        return index

    def build(self, host: Host, *, progress: Progress | None) -> RecallIndex | None:
        """The index, built now if it is not (after a bulk load: :class:`memkg.store.plugins.BuiltAfterLoads`)."""
        if host.read_only:
            return None
        told = None if progress is None else lambda n: progress(f"building the recall index: {n:,} documents…")
        with _telling(told):
            return self.open(host, create=True)


#: Told how many documents a build that opening an index starts has derived (see _telling).
_building: ContextVar[Callable[[int], None] | None] = ContextVar("recall_index_building", default=None)


@contextmanager
def _telling(progress: Callable[[int], None] | None) -> Iterator[None]:
    """Tell ``progress`` of a build that opening the index starts here, whichever kind of the
    recall index's name the store keeps (its own embedder's, or the default)."""
    token = _building.set(progress)
    try:
        yield
    finally:
        _building.reset(token)


def recall_index(*, embedder: Embedder | None = None) -> RecallIndexKind:
    """The recall index with ``embedder``, for one store: ``MemoryStore(path, followers=[recall_index(embedder=…)])``.
    The index records its embedder's name; opened with another, it is built again."""
    return RecallIndexKind(embedder)


#: The recall index with the default embedder, plugged into every store by ``memkg/__init__.py``.
RECALL_INDEX = recall_index()


def check_recall_index(store: Host) -> RecallIndexReport | None:
    """Prove ``store``'s recall index matches the data (:meth:`RecallIndex.check`); None when it
    has none yet (it is built on first recall) or keeps none (a server's store)."""
    index = store.follower(RECALL_INDEX)
    return None if index is None else index.check()


def rebuild_recall_index(store: Host, *, progress: Callable[[int], None] | None = None) -> int:
    """Derive ``store``'s recall index again from the data (creating it); returns its document
    count; ``progress`` is told how many documents are derived so far. Raises PermissionError on
    a store open read-only, ValueError on one that keeps no index (a server's: its server keeps one)."""
    if store.read_only:
        raise PermissionError(f"{store.backend.path}: the store is open read-only")
    with store.lock():
        index = store.follower(RECALL_INDEX)
        if index is not None:
            return index.rebuild(progress)
        with _telling(progress):  # none yet: built as it opens
            index = store.follower(RECALL_INDEX, create=True)
        if index is None:
            raise ValueError("this store keeps no recall index: its server does")
        return int(index.stats()["documents"])
