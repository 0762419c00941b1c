"""A bulk load (the first load of a store included) builds the recall index itself, after its commit,
as a phase of its own with progress: the first recall after it starts with no build."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg import MemoryStore
from memkg.loading import first_load
from memkg.recall import RECALL_INDEX, HashingEmbedder, check_recall_index, recall_index
from memkg.recall.vector_file import VECTORS_FILE
from memkg.store import loads

EX = "https://example.org/"


def turns(path: Path, first: int, count: int) -> Path:
    """A TriG file of ``count`` messages in a tenant's graph."""
    lines = ["@prefix mem: <https://w3id.org/memkg#> .", f"<{EX}t> {{"]
    lines += [f'<{EX}m{i}> a mem:Message ; mem:content "turn about the okapi, code k{i}z" .'
              for i in range(first, first + count)]
    path.write_text("\n".join([*lines, "}"]) + "\n")
    return path


def opened(path: Path) -> MemoryStore:
    return MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder(dim=32))])


@pytest.mark.parametrize("way", ["first load", "bulk load"])
def test_a_bulk_load_builds_the_recall_index_as_its_own_phase(tmp_path: Path, monkeypatch, way: str) -> None:
    monkeypatch.setattr(loads, "BULK_THRESHOLD", 0)
    monkeypatch.setattr(first_load, "MIN_BYTES", 0 if way == "first load" else 1 << 40)
    monkeypatch.setattr(first_load, "IN_ANOTHER_PROCESS", False)
    told: list[str] = []
    with opened(tmp_path / "store") as store:
        report = store.load(turns(tmp_path / "a.trig", 0, 40), progress=told.append)
        assert report.bulk and "build" in report.seconds
        assert told.index("building the derived indexes…") > told.index("writing…")
        assert "building the recall index: 40 documents…" in told
        index = store.follower(RECALL_INDEX)
        assert index is not None and index.built and index.stats()["documents"] == 40
    assert (tmp_path / "store" / VECTORS_FILE).exists()
    with opened(tmp_path / "store") as store:
        assert store.recall("okapi k7z", k=1)[0].node == EX + "m7"
        assert check_recall_index(store).consistent


def test_a_bulk_load_into_a_store_with_its_index_keeps_it_without_a_rebuild(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(loads, "BULK_THRESHOLD", 0)
    with opened(tmp_path / "store") as store:
        store.load(turns(tmp_path / "a.trig", 0, 10))
        mark = store.follower(RECALL_INDEX).meta("rebuilt")
        report = store.load(turns(tmp_path / "b.trig", 10, 10))
        assert "build" not in report.seconds  # it followed the write
        assert store.follower(RECALL_INDEX).meta("rebuilt") == mark
        assert store.recall("okapi k15z", k=1)[0].node == EX + "m15"
        assert check_recall_index(store).consistent


def test_a_small_load_leaves_the_index_to_the_first_recall(tmp_path: Path) -> None:
    with opened(tmp_path / "store") as store:
        report = store.load(turns(tmp_path / "a.trig", 0, 5))
        assert not report.bulk and "build" not in report.seconds
        assert store.follower(RECALL_INDEX) is None
