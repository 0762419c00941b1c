"""Whole-store validation of an on-disk store: in memory or on disk, the same results.

``validate_store`` copies an on-disk store into memory when it fits (the queries read
every edge several times, and each read from disk costs a look-up per term); the
copy must change nothing but the time, and a store that outgrows the budget must be
validated where it lies, not refused or half-judged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg import MemoryStore
from memkg.core.vocab import ONTOLOGY_GRAPH, mem, rdf
from memkg.validation import validate_files, validate_store
from memkg.validation import whole

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# Several invariants at once, with a tenant link (GRAPH ?other) and blank nodes.
BROKEN = [FIXTURES / "invalid" / name for name in (
    "inv1-blank-claim.trig", "inv7-cross-tenant-link.trig", "inv10-confidence-above-one.trig",
    "inv6-time-without-timezone.trig", "inv8-supersession-cycle.trig", "inv9-duplicate-event-id.trig",
)]


@pytest.fixture(scope="module")
def disk_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("whole") / "store"
    with MemoryStore(path, validation=None) as store:
        for f in BROKEN:
            store.load(f)
    return path


def keys(report) -> list[tuple[str, ...]]:  # noqa: ANN001
    return sorted(r.key() for r in report.results)


def test_the_in_memory_copy_finds_what_the_disk_store_holds(disk_store: Path) -> None:
    with MemoryStore(disk_store, validation=None, read_only=True) as store:
        on_disk = validate_store(store, in_memory=False)
        copied = validate_store(store, in_memory=True)
        default = validate_store(store)
    assert not on_disk.conforms
    assert {str(r.shape).strip("<>").rsplit("#", 1)[1] for r in on_disk.results} >= {
        "IriIdentityShape", "TenantIsolationShape", "UnitIntervalShape", "TimeShape", "AcyclicShape",
        "UniqueEventIdShape"}
    assert keys(copied) == keys(on_disk)
    assert keys(default) == keys(on_disk)
    assert copied.to_json() == on_disk.to_json()  # messages, severities and order too


def test_a_store_over_the_memory_budget_is_validated_on_disk(disk_store: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(whole, "COPY_CHUNK", 10)
    monkeypatch.setattr(whole, "available_memory", lambda: 40 * whole.BYTES_PER_QUAD)  # room for 20 quads
    said: list[str] = []
    with MemoryStore(disk_store, validation=None, read_only=True) as store:
        assert len(store) > 20
        assert whole.in_memory_copy(store.raw) is None
        report = validate_store(store, progress=said.append)
        on_disk = validate_store(store, in_memory=False)
    assert keys(report) == keys(on_disk)
    assert any("does not fit in memory" in m for m in said), said
    assert not any("reading the store into memory: 30" in m for m in said), "the copy went on past the budget"


def test_every_phase_reports_progress(disk_store: Path) -> None:
    said: list[str] = []
    with MemoryStore(disk_store, validation=None, read_only=True) as store:
        validate_store(store, progress=said.append)
    assert any(m.startswith("reading the store into memory") for m in said), said
    assert any(m.startswith("validating") for m in said), said
    # Within a graph too: a long validation is never silent between two graphs.
    assert any(m.startswith("validating graph") and ": query " in m for m in said), said


def test_the_report_tells_how_much_was_judged_and_how_long_it_took(disk_store: Path) -> None:
    with MemoryStore(disk_store, validation=None, read_only=True) as store:
        claims = {q.subject for q in store.quads(None, rdf.type, mem.Claim) if q.graph_name != ONTOLOGY_GRAPH}
        data = [q for q in store.raw if q.graph_name != ONTOLOGY_GRAPH]
        report = validate_store(store)
    assert report.extent is not None
    assert (report.extent.claims, report.extent.quads) == (len(claims), len(data))
    assert report.extent.seconds > 0
    line = report.summary()
    assert line.startswith("does not conform: ") and "\n" not in line
    assert f"{len(claims):,} claims, {len(data):,} quads, {len(report.results):,} results in " in line, line


def test_files_are_judged_without_an_extent() -> None:
    report = validate_files(BROKEN[:1])
    assert report.extent is None
    line = report.summary()
    assert line.startswith("does not conform: ") and "claims" not in line and line.endswith("(native engine)"), line


def test_the_store_validates_like_the_files_it_was_loaded_from(disk_store: Path) -> None:
    """The literals of these fixtures are canonical, so the store's record is what was written."""
    with MemoryStore(disk_store, validation=None, read_only=True) as store:
        from_store = validate_store(store)
    from_files = validate_files(BROKEN)
    # Blank node labels differ between two loads: compare the rest.
    def strip(report) -> list[tuple[str, ...]]:  # noqa: ANN001
        return sorted(tuple("_:" if v.startswith("_:") else v for v in k) for k in keys(report))

    assert strip(from_store) == strip(from_files)
