"""The store and the recall index commit separately: a process that dies between the two commits
leaves a gap that the next open repairs (docs/contract.md section 7: the index is derived data)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from memkg import MemoryStore, Message, erase
from memkg.recall import INDEX_FILE, RECALL_INDEX, HashingEmbedder, check_recall_index, recall_index

EX = "https://example.org/"

# Runs in a child process: write through the store with the recall index built, then die (no
# cleanup, no close) right after the store has committed and before the index commits.
CHILD = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from memkg import MemoryStore, Message, erase
    from memkg.recall import RECALL_INDEX, HashingEmbedder, RecallIndex, recall_index

    path, step = Path(sys.argv[1]), sys.argv[2]
    EX = "https://example.org/"
    store = MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder())])
    store.follower(RECALL_INDEX, create=True)

    def die(self, **changes):
        os._exit(17)  # the store has committed; the index never will

    RecallIndex.apply = die
    if step == "add":
        store.add(Message(id=EX + "late", content="the okapi sanctuary opens on Sunday"))
    elif step == "erase":
        erase(store, EX + "secret", reason="consent revoked")
    elif step == "load":
        file = path.parent / "bulk.nt"
        file.write_text(f'<{EX}bulk> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/memkg#Message> .\\n'
                        f'<{EX}bulk> <https://w3id.org/memkg#content> "a pangolin crossed the road" .\\n')
        store.load(file)
    raise SystemExit("the write returned: the crash was not simulated")
""")


def crash_during(path: Path, step: str) -> None:
    """Run ``step`` in a child process that dies between the store's commit and the index's."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), step], capture_output=True, text=True, timeout=120)
    assert done.returncode == 17, done.stderr


def crashed_store(tmp_path: Path, step: str) -> Path:
    """A store with two messages and its recall index, then ``step`` crashed between the commits."""
    path = tmp_path / "store"
    with MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder())]) as store:
        store.add(Message(id=EX + "early", content="the build server is down again"))
        store.add(Message(id=EX + "secret", content="my pin is zanzibarquokka 4471"))
        store.follower(RECALL_INDEX, create=True)
    crash_during(path, step)
    return path


def test_a_write_the_index_missed_is_derived_on_the_next_open(tmp_path: Path) -> None:
    path = crashed_store(tmp_path, "add")
    with MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder())]) as store:
        assert store.recall("okapi sanctuary", k=1)[0].node == EX + "late"
        assert store.follower(RECALL_INDEX, create=True).recovered == 1
        assert check_recall_index(store).consistent


def test_an_erasure_the_index_missed_leaves_no_trace_after_the_next_open(tmp_path: Path) -> None:
    path = crashed_store(tmp_path, "erase")
    with MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder())]) as store:
        assert EX + "secret" not in {h.node for h in store.recall("zanzibarquokka pin", k=10)}
        assert check_recall_index(store).consistent
    for file in (p for p in path.iterdir() if p.name.startswith(INDEX_FILE)):
        assert b"zanzibarquokka" not in file.read_bytes(), file.name


def test_an_interrupted_bulk_load_rebuilds_the_index(tmp_path: Path) -> None:
    path = crashed_store(tmp_path, "load")
    with MemoryStore(path, followers=[recall_index(embedder=HashingEmbedder())]) as store:
        assert store.recall("pangolin", k=1)[0].node == EX + "bulk"
        assert store.follower(RECALL_INDEX, create=True).recovered == "rebuilt"
        assert check_recall_index(store).consistent


def test_a_read_only_open_reports_the_gap(tmp_path: Path) -> None:
    path = crashed_store(tmp_path, "add")
    with MemoryStore(path, read_only=True, followers=[recall_index(embedder=HashingEmbedder())]) as store:
        report = check_recall_index(store)
        assert not report.consistent
        assert any("interrupted" in f.problem for f in report.faults)
        assert any(f.node == EX + "late" and f.problem == "missing" for f in report.faults)


def test_a_write_that_completes_leaves_nothing_pending(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "store", followers=[recall_index(embedder=HashingEmbedder())]) as store:
        store.follower(RECALL_INDEX, create=True)
        store.add(Message(id=EX + "m", content="nothing interrupted this one"))
        erase(store, EX + "m", reason="consent revoked")
        assert store.follower(RECALL_INDEX, create=True).pending() == []
