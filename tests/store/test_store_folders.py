"""Which folders hold a store: a store's own, a new or empty one for a write; nothing else,
and nothing is written into a folder refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg import MemoryStore, NotAStoreError

from tests.support.examples import LIA


def listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*"))


def test_a_folder_holding_other_files_is_refused_for_reads_and_writes_and_left_as_it_was(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "file.txt").write_text("mine", encoding="utf-8")
    before = listing(notes)
    for create in (False, True):
        with pytest.raises(NotAStoreError, match=r"notes is not a memkg store: the folder holds other files \(file.txt\)"):
            MemoryStore(notes, create=create)
    assert listing(notes) == before


@pytest.mark.parametrize("state", ["missing", "empty"])
def test_a_read_never_creates_a_store(tmp_path: Path, state: str) -> None:
    folder = tmp_path / "store"
    if state == "empty":
        folder.mkdir()
    with pytest.raises(NotAStoreError, match="a read never creates a store"):
        MemoryStore(folder, create=False)
    with pytest.raises(NotAStoreError):
        MemoryStore(folder, read_only=True)
    assert (listing(folder) if folder.exists() else None) == ([] if state == "empty" else None)


def test_a_write_creates_a_store_in_a_new_or_empty_folder_and_opens_it_again(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "new" / "deeper"):
        with MemoryStore(folder) as store:
            store.load(LIA)
        with MemoryStore(folder, create=False) as again:
            assert len(again) > 0


def test_a_file_is_no_store_folder(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    with pytest.raises(NotAStoreError, match="is a file, not a store folder"):
        MemoryStore(plain)
    assert plain.read_text(encoding="utf-8") == "x"
