"""A first load (memkg.loading.first_load): written where it lands, judged meanwhile, undone on refusal.

Every test lowers ``first_load.MIN_BYTES`` so that small files take that path, and compares
it with the general path (an in-memory store, which never takes it) where the outcome must
be the same.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, NamedNode, Quad, Triple

from memkg import MemoryStore, ValidationError
from memkg.loading import first_load
from memkg.store import claim_index
from memkg.core.errors import ParseError
from memkg.guard.limits import LimitExceeded, Limits
from memkg.store.literals import RewrittenLiteralsError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "lia-tea.trig"
INVALID = ROOT / "tests" / "fixtures" / "invalid"
VALID = ROOT / "tests" / "fixtures" / "valid"


@pytest.fixture(autouse=True)
def every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_load, "MIN_BYTES", 0)


def named(quads: set[Quad]) -> set[Quad]:
    """The quads without a blank node anywhere (each parser names blank nodes afresh)."""

    def blank(t: object) -> bool:
        return isinstance(t, BlankNode) or isinstance(t, Triple) and (blank(t.subject) or blank(t.object))

    return {q for q in quads if not (blank(q.subject) or blank(q.object))}


def general(*files: Path, **options: object) -> set[Quad]:
    store = MemoryStore(validation=None)  # in memory: always the general path
    store.load(*files, **options)  # type: ignore[arg-type]
    return set(store.raw)


def test_a_first_load_writes_what_the_general_path_writes(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "s")
    report = store.load(EXAMPLE)
    assert report.bulk and "waiting for the reading" in report.seconds  # it took the first-load path
    assert report.parsed > 0 and report.added == len(store.raw) - len(MemoryStore().raw)
    assert set(store.raw) == general(EXAMPLE)
    assert store.check_index().consistent
    assert store.prefixes["ex"] == "https://example.org/lia/"  # the files' prefixes are remembered


def test_several_files_and_formats_into_a_tenant_graph(tmp_path: Path) -> None:
    tenant = "https://example.org/tenants/t"
    turtle = tmp_path / "a.ttl"
    turtle.write_text(
        'VERSION "1.2"\nPREFIX ex: <http://e/>\nex:r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> '
        '<<( ex:s ex:p "1.50"^^<http://www.w3.org/2001/XMLSchema#decimal> )>> .\n'
        "ex:s ex:p ex:o {| ex:by ex:x |} .\n"
        "ex:q <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:s ex:p <<( ex:a ex:b ex:c )>> )>> .\n"
        "_:b <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( _:c ex:p ex:o )>> .\n"
        "# a comment without a line break at the end"
    )
    empty = tmp_path / "empty.nt"
    empty.write_text("")
    quads = tmp_path / "b.nq"
    quads.write_text('<http://e/r2> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <http://e/s> <http://e/p> "x" )>> <http://e/g> .')
    files = (turtle, empty, quads, VALID / "episode-and-occurrences.trig")
    store = MemoryStore(tmp_path / "s", validation=None)
    report = store.load(*files, graph=tenant)
    assert "waiting for the reading" in report.seconds
    assert report.rewrites.count == 1 and report.rewrites.examples[0].file == str(turtle)
    expected = general(*files, graph=tenant)
    assert len(store.raw) == len(expected) and named(set(store.raw)) == named(expected)
    assert store.check_index().consistent  # blank and nested reifiers too, derived by the store
    assert claim_index.check(store.raw).consistent
    graphs = {q.graph_name for q in store.raw.quads_for_pattern(NamedNode("http://e/r"), None, None, None)}
    assert graphs == {NamedNode(tenant)}


def ontology_only(path: Path) -> set[Quad]:
    store = MemoryStore(path, validation=None)
    try:
        return set(store.raw)
    finally:
        store.close()


@pytest.mark.parametrize("fixture", ["inv2-untyped-vertex.trig", "inv9-duplicate-event-id.trig", "inv7-cross-tenant-link.trig"])
def test_a_refused_first_load_leaves_the_store_as_it_was(tmp_path: Path, fixture: str) -> None:
    before = ontology_only(tmp_path / "s")
    store = MemoryStore(tmp_path / "s")
    with pytest.raises(ValidationError) as info:
        store.load(EXAMPLE, INVALID / fixture)
    assert "nothing was written" in str(info.value)
    with pytest.raises(ValidationError) as general_info:  # the same judgement as the general path
        MemoryStore().load(EXAMPLE, INVALID / fixture)
    assert {v.shape for v in info.value.violations} == {v.shape for v in general_info.value.violations}
    assert set(store.raw) == before
    store.load(EXAMPLE)  # and it is still a store with no data: a first load again
    assert set(store.raw) == general(EXAMPLE)


def test_a_syntax_error_names_the_place_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trig"
    bad.write_text(EXAMPLE.read_text() + "\n<http://e/a> <http://e/b> .\n")
    before = ontology_only(tmp_path / "s")
    store = MemoryStore(tmp_path / "s")
    with pytest.raises(ParseError) as info:
        store.load(bad)
    assert info.value.file == str(bad) and info.value.line == EXAMPLE.read_text().count("\n") + 2
    assert set(store.raw) == before


def test_strict_literals_and_limits_refuse_a_first_load_whole(tmp_path: Path) -> None:
    data = tmp_path / "d.ttl"
    data.write_text('<http://e/a> <http://e/p> 1.50, "' + "x" * 100 + '" .\n')
    before = ontology_only(tmp_path / "s")
    store = MemoryStore(tmp_path / "s", validation=None)
    with pytest.raises(RewrittenLiteralsError):
        store.load(data, strict_literals=True)
    assert set(store.raw) == before
    with pytest.raises(LimitExceeded):
        store.load(data, limits=Limits(max_literal=10))
    assert set(store.raw) == before
    assert store.load(data).rewrites.count == 1 and len(store.raw) == len(before) + 2


def test_a_store_with_data_takes_the_general_path(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "s")
    store.load(VALID / "two-tenants.trig")
    report = store.load(EXAMPLE)
    assert "waiting for the reading" not in report.seconds and "validate" in report.seconds


def memkg(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from memkg.loading import first_load; first_load.MIN_BYTES = 0; from memkg.adapters.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_memkg_load_removes_the_store_directory_a_refused_load_created(tmp_path: Path) -> None:
    done = memkg("--store", "new", "load", str(EXAMPLE), str(INVALID / "inv2-untyped-vertex.trig"), cwd=tmp_path)
    assert done.returncode == 1 and "nothing was written" in done.stderr
    assert not (tmp_path / "new").exists()
    # An existing store stays, unchanged.
    before = ontology_only(tmp_path / "old")
    done = memkg("--store", "old", "load", str(INVALID / "inv2-untyped-vertex.trig"), cwd=tmp_path)
    assert done.returncode == 1 and (tmp_path / "old").is_dir()
    assert ontology_only(tmp_path / "old") == before
    done = memkg("--store", "new", "load", str(EXAMPLE), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shutil.rmtree(tmp_path / "new")


def test_every_phase_of_a_first_load_is_told(tmp_path: Path) -> None:
    told: list[str] = []
    MemoryStore(tmp_path / "s").load(EXAMPLE, progress=told.append)
    for phase in ("parsing…", "validating…", "writing…", "flushing to disk…"):
        assert phase in told, told
    assert any(m.startswith("validating graph 1/1 <https://example.org/tenants/lia>") for m in told), told


def test_the_reading_and_judging_run_in_another_process_and_their_answers_are_the_same_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    seen: list[tuple[str, int]] = []

    def noting(name: str, work: object) -> object:
        def noted(task: first_load.Task, progress: object = None) -> object:
            seen.append((name, os.getpid()))
            return work(task, progress)  # type: ignore[operator]
        return noted

    elsewhere = MemoryStore(tmp_path / "a").load(EXAMPLE)
    assert {"parse (other process)", "copy (other process)", "validate (other process)"} <= set(elsewhere.seconds)
    monkeypatch.setattr(first_load, "IN_ANOTHER_PROCESS", False)
    monkeypatch.setattr(first_load, "read_files", noting("reading", first_load.read_files))
    monkeypatch.setattr(first_load, "judge_copy", noting("judging", first_load.judge_copy))
    here = MemoryStore(tmp_path / "b").load(EXAMPLE)
    assert seen == [("reading", os.getpid()), ("judging", os.getpid())]  # the fallback; the first load did not call them here
    assert (here.parsed, here.added, here.rewrites.count) == (elsewhere.parsed, elsewhere.added, elsewhere.rewrites.count)
    assert set(MemoryStore(tmp_path / "b").raw) == set(MemoryStore(tmp_path / "a").raw)


@pytest.mark.parametrize("when", ["at once", "after the reading"])
def test_the_other_process_dying_is_an_error_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str,
) -> None:
    from memkg.core.errors import MemkgError

    dies = "import os\n" + ("os._exit(3)\n" if when == "at once" else
                            "import memkg.loading.first_load as f\nf.judge_copy = lambda *a, **k: os._exit(3)\nf.worker_main()\n")
    monkeypatch.setattr(first_load, "WORKER_PROGRAM", dies)
    before = ontology_only(tmp_path / "s")
    store = MemoryStore(tmp_path / "s")
    with pytest.raises(MemkgError, match=r"first load's other process ended without an answer \(exit status 3\); "
                                         "nothing was written"):
        store.load(EXAMPLE)
    assert set(store.raw) == before


def test_an_error_the_other_process_cannot_pickle_is_told_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memkg.core.errors import MemkgError

    program = ("import memkg.loading.first_load as f\n"
               "class Odd(Exception):\n    def __reduce__(self): raise TypeError('no')\n"
               "def fail(*a, **k): raise Odd('the reader broke')\n"
               "f.read_files = fail\nf.worker_main()")
    monkeypatch.setattr(first_load, "WORKER_PROGRAM", program)
    store = MemoryStore(tmp_path / "s")
    before = set(store.raw)
    with pytest.raises(MemkgError, match="other process failed:(.|\n)*Odd: the reader broke"):
        store.load(EXAMPLE)
    assert set(store.raw) == before


def test_a_file_nested_past_any_parser_stack_is_refused_before_a_parser_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Oxigraph's loaders are not guarded as Python's read is: 3M nested triple terms crashed the
    # process (SIGSEGV) while it bulk-loaded. Here the stack's cap is lowered to what 10k
    # openings need, so that a small file stands for one with millions.
    from memkg.guard import limits

    monkeypatch.setattr(limits, "STACK_CAP", limits.parser_stack(10_000))
    deep = tmp_path / "deep.nt"
    deep.write_text("<urn:a> <urn:b> " + "<<( <urn:a> <urn:b> " * 20_000 + "<urn:c>" + " )>>" * 20_000 + " .\n")
    before = ontology_only(tmp_path / "s")
    store = MemoryStore(tmp_path / "s")
    with pytest.raises(LimitExceeded, match=r"deep\.nt nests 20,000 deep .*past the limit of 64 \(--max-depth\)"):
        store.load(deep)
    assert set(store.raw) == before
    # As many openings, each nested once: scanned, then loaded as usual.
    wide = tmp_path / "wide.nt"
    wide.write_text("".join(f"<urn:r{i}> <urn:b> <<( <urn:a> <urn:b> <urn:c{i}> )>> .\n" for i in range(20_000)))
    assert store.load(wide).parsed == 20_000
