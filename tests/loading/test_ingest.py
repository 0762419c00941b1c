"""JSON Lines ingestion: versions by id, no-op on repeated content, all-or-nothing batches;
messages with sender, addressees, episode, turn, time and attachments; retries by event id;
input errors that name file, line and limit, exit 2 and write nothing."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, mem
from memkg.adapters.cli import main
from memkg.loading.ingest import RDF_JSON, IngestError, ingest_lines, timezone_named
from memkg.loading.jsonlines import JsonLimits

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


def test_versions_of_one_id_in_two_tenants_are_compared_each_within_its_own_tenant(store: MemoryStore) -> None:
    # The same id names the same node IRI in every tenant; whether content is new is
    # decided against the newest version in the tenant written to, never another's.
    a, b = "https://example.org/tenants/a", "https://example.org/tenants/b"
    ingest_lines(store, [claim("tea")], graph=a)
    ingest_lines(store, [claim("coffee")], graph=b)
    assert [v.value for v in ingest_lines(store, [claim("coffee")], graph=a).versions] == ["urn:memkg:memory:pref/v2"]
    assert [v.value for v in ingest_lines(store, [claim("tea")], graph=b).versions] == ["urn:memkg:memory:pref/v2"]
    for tenant, now in ((a, "coffee"), (b, "tea")):
        assert {r["claim"].value: r["object"].value for r in store.view("current", {"tenant": tenant})} == {
            "urn:memkg:memory:pref/v2": now}


@pytest.mark.parametrize("value", [True, False])
def test_a_claims_json_boolean_value_is_an_xsd_boolean(store: MemoryStore, value: bool) -> None:
    ingest_lines(store, [claim(value)], graph=TENANT)  # type: ignore[arg-type]
    (row,) = store.view("current", {"tenant": TENANT})
    assert row["object"] == Literal("true" if value else "false", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#boolean"))


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
    assert main(["--store", store, "ingest", str(path)]) == 2  # a parse error (docs/contract.md section 5), nothing written
    assert f"{path}:1: not JSON" in capsys.readouterr().err


# -- who, when and where -----------------------------------------------------------------------

PROV_GENERATED, PROV_ATTRIBUTED = (NamedNode("http://www.w3.org/ns/prov#" + n) for n in ("wasGeneratedBy", "wasAttributedTo"))
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
LIA, AURORA = NamedNode("urn:memkg:entity:lia"), NamedNode("urn:memkg:entity:aurora")
SESSION = NamedNode("urn:memkg:episode:session-3")


def message(event_id: str, content: str = "hello", **more) -> str:  # type: ignore[no-untyped-def]
    return line(content_kind="message", event_id=event_id, content=content, **more)


def objects(store: MemoryStore, s: NamedNode, p: NamedNode) -> list:
    return [q.object for q in store.quads(s, p, None, NamedNode(TENANT))]


def by_event(store: MemoryStore, event_id: str) -> NamedNode:
    (q,) = store.quads(None, mem.eventId, Literal(event_id), NamedNode(TENANT))
    return q.subject


def conversation(store: MemoryStore, episode: NamedNode = SESSION) -> list[tuple[int, str]]:
    rows = store.query(f"""SELECT ?turn ?text WHERE {{ GRAPH ?g {{
        ?m prov:wasGeneratedBy {episode} ; mem:turn ?turn ; mem:content ?text }} }} ORDER BY ?turn""")
    return [(int(r["turn"].value), r["text"].value) for r in rows]


def test_a_message_line_keeps_sender_addressees_episode_time_and_event(store: MemoryStore) -> None:
    report = ingest_lines(store, [message(
        "chat-41", "Look, my new mug!", episode="session-3", sender="lia",
        recipients=[{"id": "aurora", "type": "agent", "name": "Aurora"}],
        event_time="2026-05-02T19:04:00+02:00",
        attachments=[{"url": "https://example.org/mug.jpg", "caption": "a blue mug", "media_type": "image/jpeg"}],
    )], graph=TENANT)
    m = by_event(store, "chat-41")
    assert report.messages == [m] and report.versions == []
    assert objects(store, m, PROV_ATTRIBUTED) == [LIA]
    assert objects(store, m, mem.recipient) == [AURORA]
    assert objects(store, m, PROV_GENERATED) == [SESSION]
    assert objects(store, m, mem.eventTime)[0].value == "2026-05-02T17:04:00Z"
    assert objects(store, m, mem.content) == [Literal("Look, my new mug!")]
    # Everything at the far end of a role is a typed vertex; names only where given.
    assert objects(store, LIA, RDF_TYPE) == [mem.Person] and objects(store, LIA, mem.displayName) == []
    assert objects(store, AURORA, RDF_TYPE) == [mem.Agent]
    assert objects(store, AURORA, mem.displayName) == [Literal("Aurora")]
    assert objects(store, SESSION, RDF_TYPE) == [mem.Episode]
    assert set(objects(store, SESSION, mem.participant)) == {LIA, AURORA}
    (attachment,) = objects(store, m, mem.attachment)
    assert objects(store, attachment, RDF_TYPE) == [mem.Attachment]
    assert objects(store, attachment, mem.caption) == [Literal("a blue mug")]
    assert objects(store, attachment, mem.url)[0].value == "https://example.org/mug.jpg"
    assert objects(store, attachment, mem.mediaType) == [Literal("image/jpeg")]


def test_notes_and_claims_carry_who_when_and_where_on_their_message(store: MemoryStore) -> None:
    ingest_lines(store, [
        line(id="pref", content_kind="claim", event_id="chat-43", episode="session-3", sender="lia",
             recipients=["aurora"], event_time="2026-05-02T19:05:00Z",
             content={"subject": "lia", "predicate": "prefers", "value": "coffee"}),
        line(id="move", content="Lia moves in June.", event_id="chat-44", episode="session-3", sender="lia"),
    ], graph=TENANT)
    claim_message = NamedNode("urn:memkg:memory:pref/v1/message")
    assert by_event(store, "chat-43") == claim_message
    assert objects(store, claim_message, PROV_ATTRIBUTED) == [LIA]
    assert objects(store, claim_message, mem.recipient) == [AURORA]
    assert objects(store, NamedNode("urn:memkg:memory:pref/v1"), mem.assertedBy) == [claim_message]
    assert by_event(store, "chat-44") == NamedNode("urn:memkg:memory:move/v1/message")
    assert [t for t, _ in conversation(store)] == [1, 2]
    # lia, a claim's subject and a sender, is one vertex: a person.
    assert objects(store, LIA, RDF_TYPE) == [mem.Person]


def test_turn_order_is_kept_within_an_episode_and_across_batches(store: MemoryStore) -> None:
    ingest_lines(store, [message("e1", "first", episode="session-3", event_time="2026-05-02T19:00:00Z"),
                         message("x1", "elsewhere", episode="session-4"),
                         message("e2", "second", episode="session-3", event_time="2026-05-02T18:00:00Z")], graph=TENANT)
    ingest_lines(store, [message("e3", "third", episode="session-3")], graph=TENANT)
    # Arrival order, not event time: a late clock never reorders a conversation.
    assert conversation(store) == [(1, "first"), (2, "second"), (3, "third")]
    assert conversation(store, NamedNode("urn:memkg:episode:session-4")) == [(1, "elsewhere")]


def test_a_retry_by_event_id_writes_nothing_and_takes_no_turn(store: MemoryStore) -> None:
    lines = [message("e1", "first", episode="session-3", sender="lia"),
             line(id="pref", content_kind="claim", event_id="e2", episode="session-3",
                  content={"subject": "lia", "predicate": "prefers", "value": "tea"})]
    ingest_lines(store, lines, graph=TENANT)
    size = len(store)
    report = ingest_lines(store, lines + [lines[0]], graph=TENANT)
    assert (report.retries, report.messages, report.versions, report.conflicts) == (3, [], [], [])
    assert len(store) == size
    ingest_lines(store, [message("e3", "third", episode="session-3")], graph=TENANT)
    assert [t for t, _ in conversation(store)] == [1, 2, 3]


def test_a_retry_with_other_content_is_reported_and_writes_nothing(store: MemoryStore) -> None:
    ingest_lines(store, [message("e1", "first")], graph=TENANT)
    size = len(store)
    report = ingest_lines(store, ["", message("e1", "changed?")], graph=TENANT)
    assert report.conflicts == [(2, "e1")] and report.retries == 1
    assert len(store) == size


def test_a_message_id_is_its_iri_and_a_retry_key(store: MemoryStore) -> None:
    ingest_lines(store, [line(content_kind="message", id="https://example.org/m/1", content="hi")], graph=TENANT)
    report = ingest_lines(store, [line(content_kind="message", id="https://example.org/m/1", content="hi")],
                          graph=TENANT)
    assert report.retries == 1 and report.messages == []
    assert objects(store, NamedNode("https://example.org/m/1"), mem.content) == [Literal("hi")]


def test_the_same_content_as_a_new_event_is_kept_and_asserts_the_current_version(store: MemoryStore) -> None:
    ingest_lines(store, [claim("tea")], graph=TENANT)
    report = ingest_lines(store, [line(id="pref", content_kind="claim", event_id="chat-9", sender="lia",
                                       content={"subject": "lia", "predicate": "prefers", "value": "tea"})],
                          graph=TENANT)
    assert report.versions == [] and report.unchanged == 1
    (restated,) = report.messages
    assert by_event(store, "chat-9") == restated
    assert restated in objects(store, NamedNode("urn:memkg:memory:pref/v1"), mem.assertedBy)
    assert current(store) == {"urn:memkg:memory:pref/v1": "tea"}


def test_an_entity_addressed_as_a_person_becomes_one(store: MemoryStore) -> None:
    # A claim about lia types her mem:Entity; a message addressed to her then needs a person.
    ingest_lines(store, [claim("tea")], graph=TENANT)
    ingest_lines(store, [message("e1", recipients=["lia"])], graph=TENANT)
    assert set(objects(store, LIA, RDF_TYPE)) == {mem.Entity, mem.Person}


def test_each_tenant_types_its_own_parties(store: MemoryStore) -> None:
    other = "https://example.org/tenants/other"
    ingest_lines(store, [message("e1", sender="lia", recipients=["aurora"], episode="s")], graph=TENANT)
    ingest_lines(store, [message("e1", sender="lia", recipients=["aurora"], episode="s")], graph=other)
    assert objects(store, LIA, RDF_TYPE) == [mem.Person]
    assert [q.object for q in store.quads(AURORA, RDF_TYPE, None, NamedNode(other))] == [mem.Person]


def test_a_time_without_a_zone_is_refused_naming_the_line(store: MemoryStore) -> None:
    size = len(store)
    with pytest.raises(IngestError) as info:
        ingest_lines(store, [message("e1"), message("e2", event_time="2026-05-02T19:04:00")], source="chat.jsonl")
    assert info.value.problems[0][0] == 2
    assert "chat.jsonl:2: 'event_time' '2026-05-02T19:04:00' has no timezone" in str(info.value)
    assert len(store) == size


@pytest.mark.parametrize(("zone", "stored"), [("UTC", "2026-05-02T19:04:00Z"), ("+02:00", "2026-05-02T17:04:00Z"),
                                              ("-0530", "2026-05-03T00:34:00Z"),
                                              ("Europe/Lisbon", "2026-05-02T18:04:00Z")])
def test_an_assumed_timezone_places_a_time_without_one(store: MemoryStore, zone: str, stored: str) -> None:
    ingest_lines(store, [message("e1", event_time="2026-05-02T19:04:00")], graph=TENANT, assume_timezone=zone)
    assert objects(store, by_event(store, "e1"), mem.eventTime)[0].value == stored


@pytest.mark.parametrize("zone", ["Mars/Olympus", "Europe", "/etc/passwd", "x" * 300, "UTC+1", "+25:00"])
def test_an_unknown_timezone_is_a_value_error(store: MemoryStore, zone: str) -> None:
    with pytest.raises(ValueError, match="unknown timezone|not under 24 hours") as info:
        ingest_lines(store, [message("e1")], assume_timezone=zone)
    assert type(info.value) is ValueError


@pytest.mark.parametrize(("zone", "fine"), [("+23:59", True), ("-23:59", True), ("+24:00", False), ("-24:00", False),
                                             ("+24:01", False)])
def test_a_timezone_offset_is_under_24_hours(zone: str, fine: bool) -> None:
    """An offset one minute short of 24 hours is a zone; 24 hours, or a minute more, is none."""
    if fine:
        assert timezone_named(zone).utcoffset(None) == (1 if zone[0] == "+" else -1) * timedelta(hours=23, minutes=59)
    else:
        with pytest.raises(ValueError, match="not under 24 hours"):
            timezone_named(zone)


def test_an_unknown_timezone_is_refused_saying_how_to_write_one(store: MemoryStore) -> None:
    with pytest.raises(ValueError) as info:
        ingest_lines(store, [message("e1")], assume_timezone="Mars/Olympus")
    assert str(info.value) == ("unknown timezone 'Mars/Olympus' (write UTC, an offset such as +02:00, "
                               "or an IANA name such as Europe/Lisbon)")


def test_an_erased_message_takes_its_attachments_along(store: MemoryStore) -> None:
    from memkg import erase

    ingest_lines(store, [message("e1", "see photo", attachments=[{"url": "https://e.org/a.jpg", "caption": "secret"}])],
                 graph=TENANT)
    m = by_event(store, "e1")
    (attachment,) = objects(store, m, mem.attachment)
    erase(store, m, reason="consent revoked", graph=TENANT)
    assert not list(store.quads(attachment, None, None)) and not list(store.quads(m, None, None))
    assert Literal("secret") not in {q.object for q in store.quads()}


@pytest.mark.parametrize(("fields", "expected"), [
    ({"sender": 7}, "'sender' names a person or agent"),
    ({"sender": {"id": "x", "type": "robot"}}, "type must be \"person\" or \"agent\""),
    ({"recipients": "lia"}, "'recipients' must be a list"),
    ({"episode": "a b"}, "'episode' cannot name a node"),
    ({"episode": " "}, "'episode' must be a non-empty string (an IRI or a token)"),
    ({"sender": {"id": 7}}, "'sender' must be a non-empty string (an IRI or a token)"),
    ({"event_id": ""}, "'event_id' must be a non-empty string"),
    ({"event_time": 1714669440}, "'event_time' must be an ISO 8601 date-time string"),
    ({"attachments": [{"caption": "no url"}]}, "url required"),
    ({"attachments": [{"url": "mug.jpg"}]}, "absolute URL"),
    ({"attachments": [{"url": "https://e.org/a b.jpg"}]}, "without spaces"),
])
def test_who_when_and_where_fields_are_checked(store: MemoryStore, fields: dict, expected: str) -> None:
    with pytest.raises(IngestError, match=re.escape(expected)):
        ingest_lines(store, [line(content_kind="message", content="hi", **fields)])


def test_a_note_needs_an_id_and_says_how_to_write_a_plain_message(store: MemoryStore) -> None:
    with pytest.raises(IngestError, match='"content_kind": "message"'):
        ingest_lines(store, [line(content="hello", event_id="e1")])


# -- input errors ----------------------------------------------------------------------------------


def test_claim_fields_at_the_top_level_say_where_they_belong(store: MemoryStore) -> None:
    with pytest.raises(IngestError) as info:
        ingest_lines(store, [line(id="p", subject="lia", predicate="prefers", value="tea", confidence=0.9)],
                     source="mem.jsonl")
    text = str(info.value)
    assert "mem.jsonl:1: subject, predicate, value, confidence belong inside \"content\"" in text
    assert '"content_kind": "claim"' in text and "unknown field" not in text


def test_the_help_documents_every_field_with_a_line_of_each_kind_that_ingests(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["ingest", "--help"])
    help_text = capsys.readouterr().out
    for name in ("content_kind", "id", "content", "event_id", "event_time", "sender", "recipients", "episode",
                 "attachments", "provenance", "--assume-timezone", "--max-depth"):
        assert name in help_text
    examples = re.findall(r"^  (\{.*?\})$(?=\n(?!   ))", help_text, re.MULTILINE | re.DOTALL)
    kinds = {json.loads(e).get("content_kind", "note") for e in examples}
    assert kinds == {"message", "note", "claim"}
    path = tmp_path / "help.jsonl"
    path.write_text("\n".join(json.dumps(json.loads(e)) for e in examples) + "\n")
    assert main(["--store", str(tmp_path / "store"), "ingest", str(path), "--graph", TENANT]) == 0


def test_a_file_with_every_kind_of_line_and_the_cli_report(tmp_path: Path, capsys) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join([message("e1", "hi", episode="s", sender="lia"), claim("tea"),
                               line(id="n", content="a note")]) + "\n")
    store = str(tmp_path / "store")
    assert main(["--store", store, "ingest", str(path), "--graph", TENANT]) == 0
    assert "3 line(s)" in capsys.readouterr().out
    path.write_text(message("e1", "changed") + "\n")
    assert main(["--store", store, "ingest", str(path), "--graph", TENANT]) == 0
    out, err = capsys.readouterr()
    assert "1 retried" in out and f"{path}:1: event 'e1' is already held with other content" in err


def stored_quads(path: Path) -> int:
    if not path.exists():
        return 0
    with MemoryStore(path) as s:
        return len(s)


FIRST = claim("tea").encode() + b"\n"  # a valid first line: the error is on line 2


@pytest.mark.parametrize(("content", "expected"), [
    (FIRST + b'{"id": "n", "content": "caf\xe9"}\n',
     f":2: invalid UTF-8 (byte 0xe9) at byte offset {len(FIRST) + 27} of the file, 27 of the line"),
    (FIRST + b'{"id": "n", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
     ":2: arrays and objects nest more than 64 deep (--max-depth)"),
    (FIRST + line(id="p", subject="lia", predicate="p", value="v").encode() + b"\n",
     ":2: subject, predicate, value belong inside \"content\""),
    (FIRST + message("e1", event_time="2026-05-02T19:04:00").encode() + b"\n",
     ":2: 'event_time' '2026-05-02T19:04:00' has no timezone"),
], ids=["utf-8", "depth", "claim-fields", "timezone"])
def test_input_errors_exit_2_naming_file_and_line_and_write_nothing(tmp_path: Path, capsys, content: bytes,
                                                                    expected: str) -> None:
    store = tmp_path / "store"
    good = tmp_path / "good.jsonl"
    good.write_text(message("e0") + "\n")
    assert main(["--store", str(store), "ingest", str(good)]) == 0
    before = stored_quads(store)
    capsys.readouterr()
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    assert main(["--store", str(store), "ingest", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}{expected}" in err and "nothing was written" in err and "Traceback" not in err
    assert stored_quads(store) == before


def test_deep_nesting_is_refused_by_the_library_without_recursion(store: MemoryStore) -> None:
    deep = '{"id": "n", "content": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(IngestError, match=r"<jsonl>:1: arrays and objects nest more than 64 deep \(--max-depth\)"):
        ingest_lines(store, [deep])
    # Configurable, up to a ceiling that json.loads handles without a RecursionError.
    ingest_lines(store, [line(id="n", content=json.loads("[" * 400 + "]" * 400))], limits=JsonLimits(max_depth=401))
    with pytest.raises(ValueError, match="max_depth is at most 500"):
        JsonLimits(max_depth=100_000)


def test_long_lines_and_strings_are_refused_naming_the_limit(tmp_path: Path, capsys) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(line(id="n", content="x" * 5000) + "\n" + message("e1", "y" * 100) + "\n")
    store = str(tmp_path / "store")
    assert main(["--store", store, "ingest", str(path), "--max-line-bytes", "1000"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1: line is 5,026 bytes or more, past the limit of 1,000 (--max-line-bytes)" in err
    assert f"{path}:2:" not in err  # the next line is read as usual
    assert main(["--store", store, "ingest", str(path), "--max-literal", "1000"]) == 2
    assert f"{path}:1: a string of 5,000 characters ('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'…), past the limit of 1,000 " \
           "(--max-literal)" in capsys.readouterr().err
    assert main(["--store", store, "ingest", str(path), "--max-depth", "0"]) == 2
    assert "max_depth must be at least 1" in capsys.readouterr().err
    assert main(["--store", store, "ingest", str(path), "--max-depth", "501"]) == 2
    assert "max_depth is at most 500" in capsys.readouterr().err
    assert main(["--store", store, "ingest", str(path)]) == 0


def test_an_unknown_assumed_timezone_is_a_usage_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(message("e1") + "\n")
    assert main(["--store", str(tmp_path / "store"), "ingest", str(path), "--assume-timezone", "Nowhere/Town"]) == 2
    assert "unknown timezone 'Nowhere/Town'" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "expected"), [
    ('{"id": "n", "content": NaN}', "NaN is not a JSON number"),
    ('{"id": "n", "content": 1e999}', "too large for a finite number"),
    ('{"id": "n", "content": "\\ud800"}', "lone surrogate \\ud800"),
    ('{"id": "n", "content": ' + "9" * 5000 + "}", "not JSON memkg can keep"),
    ('{"id": "n", "content_kind": "claim", "content": {"subject": "Lia Smith", "predicate": "p", "value": 1}}',
     "cannot name a node"),
    ('{"id": "n", "content_kind": "claim", "content": {"subject": "l", "predicate": "p", "value": 1, '
     '"evidence": ["http://e/a<b"]}}', "neither text nor a valid IRI"),
])
def test_json_that_cannot_be_kept_is_refused_not_crashed_on(store: MemoryStore, text: str, expected: str) -> None:
    with pytest.raises(IngestError, match=re.escape(expected)):
        ingest_lines(store, [text])


@pytest.mark.slow
def test_ingest_into_a_remote_store_keeps_turns_and_retries(tmp_path: Path, capsys) -> None:
    from tests.support.remote_servers import start_oxigraph

    server = start_oxigraph(tmp_path)
    if isinstance(server, str):
        pytest.skip(server)
    try:
        path = tmp_path / "chat.jsonl"
        path.write_text("\n".join([
            message("e1", "hi", episode="s", sender="lia", recipients=[{"id": "aurora", "type": "agent"}],
                    attachments=[{"url": "https://e.org/mug.jpg", "caption": "a mug"}]),
            message("e2", "hello", episode="s", sender="aurora")]) + "\n")
        remote = ["--endpoint", server.endpoint]
        assert main([*remote, "ingest", str(path), "--graph", TENANT]) == 0
        assert main([*remote, "ingest", str(path), "--graph", TENANT]) == 0
        assert "0 new message(s), 0 unchanged, 2 retried" in capsys.readouterr().out
        path.write_text(message("e3", "third", episode="s") + "\n")
        assert main([*remote, "ingest", str(path), "--graph", TENANT]) == 0
        capsys.readouterr()
        assert main([*remote, "query", "--format", "json", "SELECT ?turn ?text WHERE { GRAPH ?g { "
                     "?m mem:turn ?turn ; mem:content ?text } } ORDER BY ?turn"]) == 0
        bindings = json.loads(capsys.readouterr().out)["results"]["bindings"]
        assert [(b["turn"]["value"], b["text"]["value"]) for b in bindings] == [("1", "hi"), ("2", "hello"),
                                                                                ("3", "third")]
    finally:
        server.stop()


def test_concurrent_ingests_into_one_episode_never_share_a_turn(store: MemoryStore) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def run(writer: int) -> None:
        for i in range(5):
            ingest_lines(store, [message(f"w{writer}-{i}", f"{writer}.{i}", episode="session-3")], graph=TENANT)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(run, range(4)))
    assert [t for t, _ in conversation(store)] == list(range(1, 21))


def test_standard_input_is_read_as_bytes_too(tmp_path: Path, capsys, monkeypatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"content_kind": "message", "content": "\xff"}\n')))
    assert main(["--store", str(tmp_path / "store"), "ingest", "-"]) == 2
    assert "<stdin>:1: invalid UTF-8 (byte 0xff) at byte offset 40 of the file" in capsys.readouterr().err
