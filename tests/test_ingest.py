"""JSON Lines ingestion: versions by id, no-op on repeated content, all-or-nothing batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, mem
from memkg.cli import main
from memkg.ingest import RDF_JSON, IngestError, ingest_lines

TENANT = "https://example.org/tenants/agent"


def line(**fields) -> str:  # type: ignore[no-untyped-def]
    return json.dumps(fields)


def claim(value: str, **more) -> str:  # type: ignore[no-untyped-def]
    return line(id="pref", content_kind="claim",
                content={"subject": "lia", "predicate": "prefers", "value": value, **more})


def current(store: MemoryStore) -> dict[str, str]:
    return {r["claim"].value: r["object"].value for r in store.view("current", {"tenant": TENANT})}


def test_a_note_keeps_its_content_verbatim(store: MemoryStore) -> None:
    ingest_lines(store, [line(id="n1", content="Lia  likes\\ttea.  "), line(id="n2", content={"b": 1, "a": [True]})],
                 graph=TENANT)
    contents = {q.object for q in store.quads(None, mem.content, None)}
    assert Literal("Lia  likes\\ttea.  ") in contents
    assert Literal('{"b":1,"a":[true]}', datatype=RDF_JSON) in contents  # key order kept


def test_new_content_is_a_new_version_superseding_the_old(store: MemoryStore) -> None:
    ingest_lines(store, [claim("tea", confidence=0.9)], graph=TENANT)
    assert current(store) == {"urn:memkg:memory:pref/v1": "tea"}
    report = ingest_lines(store, [claim("coffee")], graph=TENANT)
    assert [v.value for v in report.versions] == ["urn:memkg:memory:pref/v2"]
    assert current(store) == {"urn:memkg:memory:pref/v2": "coffee"}
    v2 = NamedNode("urn:memkg:memory:pref/v2")
    assert [q.object for q in store.quads(v2, mem.supersedes, None)] == [NamedNode("urn:memkg:memory:pref/v1")]


def test_the_same_content_again_is_a_no_op(store: MemoryStore) -> None:
    ingest_lines(store, [claim("tea")], graph=TENANT)
    size = len(store)
    report = ingest_lines(store, [claim("tea")], graph=TENANT)
    assert report.versions == [] and report.unchanged == 1
    assert len(store) == size


@pytest.mark.parametrize("batches", [[["tea"], ["coffee"], ["coffee"]], [["tea"], ["coffee", "coffee"]],
                                     [["tea", "coffee"], ["coffee"]]], ids=["three runs", "two runs", "retried run"])
def test_repeating_the_newest_content_is_a_no_op_after_several_versions(store: MemoryStore, batches) -> None:
    """A retry of the latest line changes nothing, however many versions came before it (compared with the newest)."""
    reports = [ingest_lines(store, [claim(v) for v in batch], graph=TENANT) for batch in batches]
    assert current(store) == {"urn:memkg:memory:pref/v2": "coffee"}
    assert sum(len(r.versions) for r in reports) == 2 and sum(r.unchanged for r in reports) == 1
    assert not any(store.quads(NamedNode("urn:memkg:memory:pref/v3"), None, None))


def test_going_back_to_earlier_content_is_a_third_version(store: MemoryStore) -> None:
    ingest_lines(store, [claim("tea"), claim("coffee"), claim("tea")], graph=TENANT)
    assert current(store) == {"urn:memkg:memory:pref/v3": "tea"}


def test_evidence_and_provenance_are_recorded(store: MemoryStore) -> None:
    ingest_lines(store, [line(id="p", content_kind="claim", provenance={"agent_step": 4, "tool_call": "chat.read"},
                              event_time="2026-01-01T09:00:00Z",
                              content={"subject": "lia", "predicate": "prefers", "value": {"@id": "https://e/tea"},
                                       "evidence": ["She said so."]})], graph=TENANT)
    v1 = NamedNode("urn:memkg:memory:p/v1")
    (support,) = [q.object for q in store.quads(v1, mem.supportedBy, None)]
    assert [q.object for q in store.quads(support, mem.content, None)] == [Literal("She said so.")]
    (message,) = [q.object for q in store.quads(v1, mem.assertedBy, None)]
    (record,) = [q.object for q in store.quads(message, mem.provenance, None)]
    assert json.loads(record.value) == {"agent_step": 4, "tool_call": "chat.read"}
    assert store.check_index().consistent


def test_invalid_lines_are_reported_by_number_and_nothing_is_written(store: MemoryStore) -> None:
    size = len(store)
    with pytest.raises(IngestError) as info:
        ingest_lines(store, [claim("tea"), "{not json", line(id="x", content_kind="fact", content="?"),
                             claim("tea", confidence=2)], graph=TENANT, source="batch.jsonl")
    assert [n for n, _ in info.value.problems] == [2, 3, 4]
    assert "batch.jsonl:3: 'content_kind'" in str(info.value)
    assert len(store) == size


def test_the_command_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "mem.jsonl"
    path.write_text(claim("tea") + "\n" + line(id="n", content="hello") + "\n")
    store = str(tmp_path / "store")
    assert main(["--store", store, "ingest", str(path), "--graph", TENANT]) == 0
    assert "2 new version(s)" in capsys.readouterr().out
    path.write_text("oops\n")
    assert main(["--store", store, "ingest", str(path)]) == 1
    assert f"{path}:1: not JSON" in capsys.readouterr().err
