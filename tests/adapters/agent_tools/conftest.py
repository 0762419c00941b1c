"""The agent tools over the tea story, and a grant that writes its tenant."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore
from memkg.adapters.agent_tools import MemoryTools
from memkg.guard.access import Grant
from tests.support.examples import LIA, LIA_GRAPH

#: A caller who reads and writes the tea story's tenant.
LIA_WRITER = Grant(frozenset({NamedNode(LIA_GRAPH)}), write=True)


@pytest.fixture
def lia_tools() -> MemoryTools:
    """The agent tools over an in-memory store holding the tea story."""
    store = MemoryStore()
    store.load(LIA)
    return MemoryTools(store)
