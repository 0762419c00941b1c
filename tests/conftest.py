"""Shared fixtures: stores to write into. Shared values and helpers live in :mod:`tests.support`."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore
from tests.support.examples import LIA
from tests.support.valid_time import dated_store


@pytest.fixture
def store() -> MemoryStore:
    """A fresh in-memory store."""
    return MemoryStore()


@pytest.fixture
def lia_store(store: MemoryStore) -> MemoryStore:
    """An in-memory store holding the tea story."""
    store.load(LIA)
    return store


@pytest.fixture(scope="module")
def dated() -> tuple[MemoryStore, NamedNode]:
    """Tenant A's store where one claim is valid over [FROM, UNTIL) (:mod:`tests.support.valid_time`)."""
    return dated_store()
