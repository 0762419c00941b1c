"""What ``import memkg`` loads: the names it offers are imported when first used, and the
features are plugged into the store by where they live, so that a program that only opens a
store and reads loads neither numpy nor the SHACL engine, validation, recall or loading. A
later top-level import that brings the cost back fails here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.examples import LIA

#: Packages a read needs none of: each costs tenths of a second to import.
HEAVY = ("numpy", "rdflib", "pyshacl", "onnxruntime", "memkg.shacl", "memkg.validation", "memkg.recall",
         "memkg.loading", "memkg.provenance", "memkg.history", "memkg.tags", "memkg.adapters",
         "memkg.integrations", "memkg.store.backends.sparql", "http.client")


def loaded_after(code: str) -> list[str]:
    """The modules loaded once ``code`` ran in a fresh interpreter."""
    run = subprocess.run([sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, timeout=120, check=True)
    return list(json.loads(run.stdout.splitlines()[-1]))


def heavy_in(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_importing_memkg_loads_no_feature_and_no_numpy() -> None:
    assert heavy_in(loaded_after("import memkg")) == []


def test_opening_a_store_and_reading_loads_no_feature(tmp_path: Path) -> None:
    from memkg import MemoryStore

    with MemoryStore(tmp_path / "store") as store:
        store.load(LIA)
    code = (f"from memkg import MemoryStore\nstore = MemoryStore({str(tmp_path / 'store')!r}, read_only=True)\n"
            "assert store.query('ASK {}')\nstore.close()")
    assert heavy_in(loaded_after(code)) == []


def test_a_name_of_memkg_is_what_its_module_defines_once_used() -> None:
    import memkg
    from memkg.provenance import support
    from memkg.recall.answers import recall

    assert memkg.support is support
    assert memkg.recall is recall  # not the subpackage memkg.recall, imported since
    assert set(memkg.__all__) <= set(dir(memkg))


def test_an_unknown_name_of_memkg_is_an_attribute_error() -> None:
    import memkg

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        memkg.nothing_here  # noqa: B018


def test_a_store_that_writes_is_judged_by_the_validation_plugged_in_by_name(tmp_path: Path) -> None:
    from memkg import MemoryStore
    from memkg.validation import WriteValidator

    with MemoryStore(tmp_path / "store") as store:
        assert isinstance(store.validator, WriteValidator)


def test_a_recall_from_the_command_line_loads_neither_the_packet_nor_wordllama_nor_http(tmp_path: Path) -> None:
    from memkg import MemoryStore
    from memkg.recall import HashingEmbedder, rebuild_recall_index, recall_index

    with MemoryStore(tmp_path / "store", followers=[recall_index(embedder=HashingEmbedder())]) as store:
        store.load(LIA)
    with MemoryStore(tmp_path / "store") as store:
        rebuild_recall_index(store)  # with the default embedder, as memkg recall opens it
    code = ("import sys\nfrom memkg.adapters.cli import main\n"
            f"assert main(['--store', {str(tmp_path / 'store')!r}, 'recall', 'what does Lia drink?']) == 0")
    loaded = loaded_after(code)
    assert "memkg.recall.ranking" in loaded and "tokenizers" in loaded  # it ranked, with the default model
    unwanted = ("memkg.provenance", "memkg.adapters.pictures", "memkg.store.backends.sparql", "http.client",
                "wordllama", "memkg.validation", "memkg.shacl")
    assert [m for m in loaded if any(m == u or m.startswith(u + ".") for u in unwanted)] == []
