"""The recall index's vectors file: a search maps it instead of reading the vectors from the database,
and ranks exactly as it would from the database, whatever writes, erasures and reopenings came before."""

from __future__ import annotations

import mmap
import shutil
from pathlib import Path

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from memkg import MemoryStore, Message, erase
from memkg.recall import RECALL_INDEX, HashingEmbedder, check_recall_index, rebuild_recall_index, recall_index
from memkg.recall.vector_file import VECTORS_FILE, read

EX = "https://example.org/"
WORDS = ["tea", "kayak", "okapi", "build", "server", "garden", "piano", "river", "lamp", "quartz"]


def opened(path: Path) -> MemoryStore:
    return MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder(dim=32))])


def ranked(store: MemoryStore, question: str) -> list[tuple[str, float]]:
    return [(h.node, round(h.score, 9)) for h in store.recall(question, k=8)]


def from_the_database(store: MemoryStore, question: str) -> list[tuple[str, float]]:
    """The hits of a search whose vectors are read from the database whole (no file)."""
    index = store.follower(RECALL_INDEX, create=True)
    assert index is not None
    saved = index.vector_path, index._vectors, index._changed
    index.vector_path, index._vectors = None, None
    try:
        return ranked(store, question)
    finally:
        index.vector_path, index._vectors, index._changed = saved


def mapped(store: MemoryStore) -> bool:
    """Whether the index's vectors are views of a mapped file."""
    index = store.follower(RECALL_INDEX)
    assert index is not None
    base = index.vectors().matrix
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


def filled(path: Path, n: int = 30) -> None:
    with opened(path) as store:
        for i in range(n):
            store.add(Message(id=f"{EX}m{i}", content=f"{WORDS[i % 10]} and {WORDS[(i * 3) % 10]} number {i}"))
        store.follower(RECALL_INDEX, create=True)


def test_a_search_after_opening_maps_the_vectors_file_and_ranks_as_the_database_does(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    assert (path / VECTORS_FILE).exists()
    with opened(path) as store:
        assert ranked(store, "tea kayak") == from_the_database(store, "tea kayak")
        assert mapped(store)


def test_writes_after_the_file_are_found_and_the_file_catches_up_at_close(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    with opened(path) as store:
        store.add(Message(id=EX + "late", content="a zebra crossed the river"))
    assert read(path / VECTORS_FILE, 32).newest < 31  # one write: the file is left behind
    with opened(path) as store:
        assert ranked(store, "zebra")[0][0] == EX + "late"
        assert ranked(store, "zebra river") == from_the_database(store, "zebra river")
        store.follower(RECALL_INDEX).FILE_LAG = 0  # a reader leaves the file as it is
    assert read(path / VECTORS_FILE, 32).newest < 31
    with opened(path) as store:
        store.add(Message(id=EX + "later", content="an okapi in the garden"))
        store.follower(RECALL_INDEX).FILE_LAG = 0  # a writer: any lag, written again at close
    held = read(path / VECTORS_FILE, 32)
    assert held is not None and held.vectors.size == 32


def test_an_erasure_zeroes_the_erased_vectors_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    with opened(path) as store:
        doc = store.follower(RECALL_INDEX, create=True).find(EX + "m4", "")
        erase(store, EX + "m4", reason="consent revoked")
        assert EX + "m4" not in {node for node, _ in ranked(store, "garden")}
    held = read(path / VECTORS_FILE, 32)
    assert held is not None
    v = held.vectors
    at = int(np.searchsorted(v.ids[: v.size], doc))
    assert v.ids[at] == doc and not v.alive[at] and not v.matrix[at].any() and not v.bits[:, at].any()


def test_a_damaged_or_stale_file_is_ignored_reported_and_written_again(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    stale = tmp_path / "stale.vectors"
    shutil.copy(path / VECTORS_FILE, stale)
    (path / VECTORS_FILE).write_bytes(b"MEMKGVEC1\n" + b"\xff" * 40)
    with opened(path) as store:
        report = check_recall_index(store)
        assert any(VECTORS_FILE in f.problem for f in report.faults)
        assert ranked(store, "piano") == from_the_database(store, "piano")
        assert not mapped(store)
    assert read(path / VECTORS_FILE, 32) is not None  # written again at close
    with opened(path) as store:
        rebuild_recall_index(store)
        shutil.copy(stale, path / VECTORS_FILE)  # of the earlier rebuild: ignored
        store.follower(RECALL_INDEX)._vectors = None
        assert ranked(store, "piano") == from_the_database(store, "piano")
        assert not mapped(store) and check_recall_index(store).consistent


def test_a_file_of_other_vectors_than_the_database_fails_the_check(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    with opened(path) as store:
        index = store.follower(RECALL_INDEX)
        v = index.vectors()
        v.matrix = np.array(v.matrix)
        v.matrix[3] = -v.matrix[3]
        index._save_vectors()
        assert any("differs from the database" in f.problem for f in check_recall_index(store).faults)


def test_rebuilding_tells_progress(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    told: list[int] = []
    with opened(path) as store:
        assert rebuild_recall_index(store, progress=told.append) == 30
    assert told[-1] == 30


@settings(max_examples=12, stateful_step_count=12, deadline=None)
class VectorFileAgreesWithTheDatabase(RuleBasedStateMachine):
    """Writes, erasures, rebuilds and reopenings in any order: a search ranks as one that reads
    the vectors from the database, and the index checks consistent."""

    @initialize()
    def start(self) -> None:
        self.dir = Path(__import__("tempfile").mkdtemp())
        self.path = self.dir / "store"
        filled(self.path, 12)
        self.store = opened(self.path)
        self.next = 100
        self.live = [f"{EX}m{i}" for i in range(12)]

    @rule(a=st.sampled_from(WORDS), b=st.sampled_from(WORDS))
    def add(self, a: str, b: str) -> None:
        self.store.add(Message(id=f"{EX}m{self.next}", content=f"{a} then {b} at {self.next}"))
        self.live.append(f"{EX}m{self.next}")
        self.next += 1

    @rule(data=st.data())
    def erase_one(self, data: st.DataObject) -> None:
        if self.live:
            node = data.draw(st.sampled_from(self.live))
            erase(self.store, node, reason="consent revoked")
            self.live.remove(node)

    @rule(lag=st.sampled_from([0, 4096]))
    def reopen(self, lag: int) -> None:
        index = self.store.follower(RECALL_INDEX)
        if index is not None:
            index.FILE_LAG = lag
        self.store.close()
        self.store = opened(self.path)

    @rule()
    def rebuild(self) -> None:
        rebuild_recall_index(self.store)

    @invariant()
    def ranks_as_the_database(self) -> None:
        for question in ("tea river", "okapi", "quartz lamp garden"):
            assert ranked(self.store, question) == from_the_database(self.store, question)

    def teardown(self) -> None:
        report = check_recall_index(self.store)
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        assert report is None or report.consistent, report


TestVectorFileAgreesWithTheDatabase = VectorFileAgreesWithTheDatabase.TestCase


def test_an_erasure_removes_a_file_it_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "store"
    filled(path)
    (path / VECTORS_FILE).write_bytes(b"MEMKGVEC1\n" + b"\x07" * 40)
    with opened(path) as store:
        erase(store, EX + "m4", reason="consent revoked")
        assert not (path / VECTORS_FILE).exists()
        assert EX + "m4" not in {node for node, _ in ranked(store, "garden")}
