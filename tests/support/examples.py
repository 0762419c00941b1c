"""Paths to the examples and fixtures, the tea story's names, and a backend that acts as a server's."""

from __future__ import annotations

from pathlib import Path

from memkg import MemoryStore
from memkg.store.backends.base import Capabilities
from memkg.store.backends.embedded import EmbeddedBackend

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"
LIA = EXAMPLES / "lia-tea.trig"
LIA_GRAPH = "https://example.org/tenants/lia"
EX = "https://example.org/lia/"


def data_quads(store: MemoryStore) -> set:
    """The user's quads: no index triples, no ontology graph."""
    from memkg.core.vocab import ONTOLOGY_GRAPH

    return {q for q in store.quads() if q.graph_name != ONTOLOGY_GRAPH}


class FarBackend(EmbeddedBackend):
    """The embedded store, flagged as if every lookup were a request: the paths a server takes."""

    capabilities = Capabilities(in_process=False, bulk_load=False, sole_writer=True)
