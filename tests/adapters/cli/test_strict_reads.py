"""Reads answer about what exists, or exit 1 saying what is missing: a store, an IRI."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg.adapters.cli import main

from tests.support.examples import LIA

#: Read commands, each with the arguments it needs besides the store.
READS = [
    ("stats",), ("query", "ASK {}"), ("view", "current"), ("export",), ("history", "urn:x:c"),
    ("support", "urn:x:c"), ("dependents", "urn:x:s"), ("lineage", "urn:x:c"), ("verify", "urn:x:c"),
    ("packet", "urn:x:c"), ("assess", "urn:x:c"), ("recall", "tea"), ("validate",), ("index", "check"),
]


def listing(folder: Path) -> list[tuple[str, int]] | None:
    if not folder.exists():
        return None
    return sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("state", ["missing", "empty", "other files"])
def test_a_read_of_a_folder_that_holds_no_store_exits_1_and_writes_nothing(tmp_path: Path, capsys, state: str) -> None:
    folder = tmp_path / "notes"
    if state != "missing":
        folder.mkdir()
    if state == "other files":
        (folder / "file.txt").write_text("mine", encoding="utf-8")
    before = listing(folder)
    for command in READS:
        code, _, err = run(capsys, "--store", str(folder), *command)
        assert code == 1, (command, err)
        assert f"{folder}" in err and ("not a memkg store" in err if state == "other files"
                                       else "a read never creates a store" in err), (command, err)
        assert listing(folder) == before, command


def test_a_write_into_a_folder_of_other_files_is_refused_and_writes_nothing(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "file.txt").write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "--store", str(folder), "load", str(LIA))
    assert code == 1 and "not a memkg store: the folder holds other files (file.txt)" in err
    assert listing(folder) == [("file.txt", 4)]


def test_a_write_makes_a_store_in_an_empty_folder_that_reads_then_open(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    assert run(capsys, "--store", str(folder), "load", str(LIA))[0] == 0
    code, out, _ = run(capsys, "--store", str(folder), "stats")
    assert code == 0 and "quads" in out
