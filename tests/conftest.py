"""Shared fixtures: stores to write into. Shared values and helpers live in :mod:`tests.support`."""

from __future__ import annotations

import pytest

from memkg import MemoryStore
from tests.support.examples import LIA


@pytest.fixture
def store() -> MemoryStore:
    """A fresh in-memory store."""
    return MemoryStore()


@pytest.fixture
def lia_store(store: MemoryStore) -> MemoryStore:
    """An in-memory store holding the tea story."""
    store.load(LIA)
    return store
