"""Edge properties (memkg.tags): parsing, ids, versioned writes, reserved hyperedges, set queries."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, Message, NotFoundError, UnknownIRIError
from memkg.core.vocab import mem
from memkg.store import Clock
from memkg.tags import (
    DECLARED_QUERY,
    EdgeProperty,
    LaneError,
    ReservedLabelError,
    Tags,
    connect_value,
    declared_id,
    schema_name,
)

from tests.support.examples import data_quads

TENANT = "https://example.org/tenants/acme"
EX = "https://example.org/acme/"
HEX32 = re.compile(r"^[0-9a-f]{32}$")


def ticking_clock(start: datetime = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)) -> Clock:
    """A store clock that advances one minute per write, so transaction times are easy to name."""
    state = {"t": start}

    def now() -> datetime:
        state["t"] += timedelta(minutes=1)
        return state["t"]

    return Clock(now)


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore(clock=ticking_clock())


def messages(store: MemoryStore, *names: str, graph: str = TENANT) -> list[NamedNode]:
    return [store.add(Message(content=f"message {n}", id=EX + n), graph=graph) for n in names]


@pytest.fixture
def tags(store: MemoryStore) -> Tags:
    return Tags(store, graph=TENANT)


def labels_values(tags: Tags, record: NamedNode, **kw: object) -> set[str]:
    return {f"{d.label}:{d.value}" for d in tags.properties(record, **kw)}


# -- writing a property as text --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label", "value"),
    [
        ("org:Acme", "org", "Acme"),
        ("org: Acme Corp. ", "org", "Acme Corp."),          # value trimmed, inner spaces kept
        ("contract owner:Sarah", "contract_owner", "Sarah"),  # spaces in the label become underscores
        (" contract  owner :Sarah", "contract__owner", "Sarah"),  # label trimmed first, each space kept as _
        ("link:https://example.org/a:b", "link", "https://example.org/a:b"),  # split at the first colon only
        ("renewal", "general", "renewal"),                   # no colon: label general
        ("  the renewal  ", "general", "the renewal"),
        ("note:multi\nline", "note", "multi\nline"),
        ("ORG:acme", "ORG", "acme"),                         # case is kept
        ("a\tb\x1fc:x", "a_b_c", "x"),                        # any whitespace, U+001F included, becomes _
    ],
)
def test_parse(text: str, label: str, value: str) -> None:
    p = EdgeProperty.parse(text)
    assert (p.label, p.value) == (label, value)
    assert str(p) == f"{label}:{value}"


@pytest.mark.parametrize("text", [":Acme", "  :Acme", "org:", "org:   ", "", "   ", "org:a\x1fb"])
def test_parse_refuses_empty_parts_and_the_separator(text: str) -> None:
    with pytest.raises(ValueError):
        EdgeProperty.parse(text)


def test_property_from_pair_and_iri() -> None:
    p = EdgeProperty.of(("contract owner", " Sarah "))
    assert p == EdgeProperty("contract_owner", "Sarah") == EdgeProperty.of("contract owner:Sarah")
    assert p.iri == NamedNode("urn:memkg:edge:contract_owner:Sarah")
    assert EdgeProperty("topic", "contract renewal").iri.value == "urn:memkg:edge:topic:contract%20renewal"
    assert EdgeProperty.from_iri(p.iri) == p
    assert EdgeProperty.from_iri(NamedNode("https://example.org/other")) is None


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(label=st.text(min_size=1).filter(lambda s: s.strip() and ":" not in s and "\x1f" not in s),
       value=st.text(min_size=1).filter(lambda s: s.strip() and "\x1f" not in s))
def test_iri_round_trip(label: str, value: str) -> None:
    p = EdgeProperty(label, value)
    assert EdgeProperty.from_iri(p.iri) == p
    assert EdgeProperty.parse(f"{label}:{value}") == p


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(label=st.text(min_size=1).filter(lambda s: s.strip() and ":" not in s and "\x1f" not in s),
       value=st.text(min_size=1).filter(lambda s: s.strip() and "\x1f" not in s))
def test_iri_is_what_sparql_computes(label: str, value: str) -> None:
    """The edge IRI is ENCODE_FOR_URI of label and value: the shapes check it in SPARQL."""
    p = EdgeProperty(label, value)
    q = 'SELECT (CONCAT("urn:memkg:edge:", ENCODE_FOR_URI(?l), ":", ENCODE_FOR_URI(?v)) AS ?iri) WHERE {}'
    row = next(iter(MemoryStore(validation=None).raw.query(
        q.replace("?l", str(Literal(p.label)), 1).replace("?v", str(Literal(p.value)), 1))))
    assert row["iri"].value == p.iri.value


# -- ids ---------------------------------------------------------------------------------------------


def test_declared_id_encoding() -> None:
    record = "https://example.org/acme/m1"
    expected = "ep_" + hashlib.sha256(
        "https://example.org/acme/m1\x1fcrm/email\x1forg\x1fAcme".encode("utf-8")).hexdigest()[:32]
    assert declared_id(record, "org", "Acme", schema="crm/email") == expected
    assert declared_id(NamedNode(record), " org ", " Acme ", schema="crm/email") == expected  # normalized first
    assert declared_id(record, "org", "Acme") != expected  # schema default
    assert declared_id(record, "org", "Acme") == "ep_" + hashlib.sha256(
        "https://example.org/acme/m1\x1fdefault\x1forg\x1fAcme".encode("utf-8")).hexdigest()[:32]
    assert schema_name() == "default" and schema_name("notes") == "notes"
    assert schema_name("crm", "email") == "crm/email"


def test_declared_ids_are_stable_across_versions_and_computable_in_sparql(store: MemoryStore, tags: Tags) -> None:
    m1, m2 = messages(store, "m1", "m2")
    tags.add(m1, ["org:Acme", "topic:renewal"], lane="crm", source_type="email")
    first = {d.edge: d.id for d in tags.properties(m1)}
    tags.add(m1, ["person:Sarah"])
    tags.add(m2, ["org:Acme"])
    second = {d.edge: d.id for d in tags.properties(m1)}
    assert {p: second[p] for p in first} == first
    assert first[EdgeProperty("org", "Acme")] == declared_id(m1, "org", "Acme", schema="crm/email")
    assert {d.id for d in tags.properties(m2)} == {declared_id(m2, "org", "Acme")}
    in_sparql = {(row["record"].value, row["label"].value, row["value"].value, row["schema"].value): row["id"].value
                 for row in store.query(DECLARED_QUERY)}
    in_python = {(d.record.value, d.label, d.value, d.schema): d.id
                 for r in (m1, m2) for d in tags.properties(r)}
    assert in_sparql == in_python and len(in_python) == 4


# -- add, update, remove ---------------------------------------------------------------------------


def test_add_reports_values_already_held_and_does_not_repeat_them(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    first = tags.add(m1, ["org:Acme", "person:Sarah"])
    assert first.changed and set(first.added) == {EdgeProperty("org", "Acme"), EdgeProperty("person", "Sarah")}
    second = tags.add(m1, ["org:Acme", "org: Acme", "topic:renewal"])
    assert second.changed
    assert second.added == (EdgeProperty("topic", "renewal"),)
    assert second.already_held == (EdgeProperty("org", "Acme"),)
    assert len(tags.history(m1)) == 2
    before = len(store)
    third = tags.add(m1, "org:Acme")
    assert not third.changed and third.version is None
    assert third.already_held == (EdgeProperty("org", "Acme"),)
    assert len(store) == before and len(tags.history(m1)) == 2


def test_add_skips_reserved_labels_and_reports_them(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    change = tags.add(m1, ["org:Acme", "e_connect:e_connect_" + "0" * 32, "e_mine:x", "e_group:"])
    assert change.added == (EdgeProperty("org", "Acme"),)
    assert [r.text for r in change.rejected] == ["e_connect:e_connect_" + "0" * 32, "e_mine:x", "e_group:"]
    assert all("reserved" in r.reason or "empty" in r.reason for r in change.rejected)
    assert labels_values(tags, m1) == {"org:Acme"}
    before = len(store)
    only_reserved = tags.add(m1, ["e_group:e_group_" + "1" * 32])
    assert not only_reserved.changed and len(only_reserved.rejected) == 1 and len(store) == before


def test_update_merges_by_label(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme", "topic:renewal", "topic:pricing", "person:Sarah"])
    change = tags.update(m1, ["topic:billing", "topic:support", "stage:won"])
    assert labels_values(tags, m1) == {"org:Acme", "person:Sarah", "topic:billing", "topic:support", "stage:won"}
    assert set(change.removed) == {EdgeProperty("topic", "renewal"), EdgeProperty("topic", "pricing")}
    assert set(change.added) == {EdgeProperty("topic", "billing"), EdgeProperty("topic", "support"),
                                 EdgeProperty("stage", "won")}


def test_update_that_changes_nothing_writes_nothing(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme", "topic:renewal"])
    before = data_quads(store)
    change = tags.update(m1, ["topic: renewal ", "org:Acme"])
    assert not change.changed and change.added == () and change.removed == ()
    assert data_quads(store) == before and len(tags.history(m1)) == 1


def test_update_and_remove_refuse_reserved_labels(store: MemoryStore, tags: Tags) -> None:
    m1, m2 = messages(store, "m1", "m2")
    tags.connect(m1, m2)
    before = data_quads(store)
    with pytest.raises(ReservedLabelError, match="reserved"):
        tags.update(m1, ["org:Acme", "e_connect:e_connect_" + "0" * 32])
    with pytest.raises(ReservedLabelError, match="disconnect"):
        tags.remove(m1, "e_connect")
    with pytest.raises(ReservedLabelError):
        tags.remove(m1, " e_group ", ["e_group_" + "0" * 32])
    assert data_quads(store) == before


def test_remove_a_label_or_values(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme", "topic:renewal", "topic:pricing", "topic:billing"])
    change = tags.remove(m1, "topic", ["pricing", "gossip"])
    assert change.removed == (EdgeProperty("topic", "pricing"),)
    assert change.not_held == (EdgeProperty("topic", "gossip"),)
    assert labels_values(tags, m1) == {"org:Acme", "topic:renewal", "topic:billing"}
    assert set(tags.remove(m1, "topic").removed) == {EdgeProperty("topic", "renewal"), EdgeProperty("topic", "billing")}
    assert labels_values(tags, m1) == {"org:Acme"}
    before = len(store)
    nothing = tags.remove(m1, "topic", "renewal")
    assert not nothing.changed and nothing.not_held == (EdgeProperty("topic", "renewal"),) and len(store) == before
    assert not tags.remove(m1, "person").changed
    last = tags.remove(m1, "org")
    assert last.changed and tags.properties(m1) == []
    assert tags.version(m1).properties == frozenset()  # an empty version: the record carries nothing now


def test_unknown_record_is_refused(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1", graph="https://example.org/tenants/other")
    before = data_quads(store)
    with pytest.raises(NotFoundError):
        tags.add(EX + "nope", ["org:Acme"])
    with pytest.raises(NotFoundError):
        tags.add(m1, ["org:Acme"])  # the record is in another tenant's graph
    assert data_quads(store) == before


def test_an_unknown_record_is_named_with_the_scope_and_the_nearest_records(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme"])
    scope = f"(tenant {TENANT} and the shared default graph); nearest known: {m1.value}"
    reads = [tags.properties, tags.history, tags.version, tags.chain, tags.traverse, tags.connections]
    for call in [*reads, lambda r: tags.add(r, ["org:Acme"]), lambda r: tags.connect(m1, r)]:
        with pytest.raises(UnknownIRIError) as info:
            call(EX + "m2")
        assert str(info.value) == f"{EX}m2 is in no graph of the scope {scope}"
    with pytest.raises(UnknownIRIError, match=r"is in no graph of the scope \(the shared default graph\)"):
        Tags(store).add(m1, ["org:Acme"])  # the tenant's record, not the shared graph's


def test_a_record_whose_content_is_gone_keeps_its_versions_readable(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme"])
    store.change(remove=list(store.quads(m1, None, None)))
    assert [d.label for d in tags.properties(m1)] == ["org"]


def test_versions_and_edges_are_not_records(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    version = tags.add(m1, ["org:Acme"]).version
    with pytest.raises(ValueError, match="not a record"):
        tags.add(version, ["org:Beta"])
    with pytest.raises(ValueError, match="not a record"):
        tags.add(EdgeProperty("org", "Acme").iri, ["org:Beta"])


def test_bad_input_is_refused_whole(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    before = data_quads(store)
    with pytest.raises(ValueError):
        tags.add(m1, ["org:Acme", "org:"])
    with pytest.raises(TypeError):
        tags.add(m1, ["org:Acme", 42])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="lane name"):
        tags.add(m1, ["org:Acme"], lane="crm/email")
    assert data_quads(store) == before


# -- versions: nothing overwritten, readable as of any transaction time ---------------------------------


def test_every_change_is_a_new_version_and_nothing_is_overwritten(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    snapshots = []
    for step in (lambda: tags.add(m1, ["org:Acme", "topic:renewal"]),
                 lambda: tags.update(m1, ["topic:pricing"]),
                 lambda: tags.remove(m1, "org"),
                 lambda: tags.add(m1, ["org:Beta"])):
        step()
        snapshots.append(data_quads(store))
    for earlier, later in zip(snapshots, snapshots[1:]):
        assert earlier < later  # only additions
    history = tags.history(m1)
    assert [sorted(map(str, v.properties)) for v in history] == [
        ["org:Acme", "topic:renewal"], ["org:Acme", "topic:pricing"], ["topic:pricing"], ["org:Beta", "topic:pricing"]]
    assert history[0].revises is None
    assert [v.revises for v in history[1:]] == [v.iri for v in history[:-1]]
    assert all(a.recorded_at < b.recorded_at for a, b in zip(history, history[1:]))
    # the version links are RDF: a version revises the previous one and names its record
    for v in history[1:]:
        assert next(store.quads(v.iri, mem.revises, None)).object == v.revises
        assert next(store.quads(v.iri, mem.versionOf, None)).object == m1


def test_properties_as_of_a_transaction_time(store: MemoryStore, tags: Tags) -> None:
    m1, m2 = messages(store, "m1", "m2")
    v1 = tags.add(m1, ["org:Acme", "topic:renewal"])
    tags.add(m2, ["org:Acme"])
    v2 = tags.update(m1, ["topic:pricing"])
    t1 = tags.version(m1, known_at=store.clock.tick()).recorded_at
    history = tags.history(m1)
    assert [v.iri for v in history] == [v1.version, v2.version]
    before_any = history[0].recorded_at - timedelta(seconds=1)
    between = history[1].recorded_at - timedelta(seconds=1)
    assert tags.properties(m1, known_at=before_any) == []
    assert labels_values(tags, m1, known_at=history[0].recorded_at) == {"org:Acme", "topic:renewal"}
    assert labels_values(tags, m1, known_at=between) == {"org:Acme", "topic:renewal"}
    assert labels_values(tags, m1, known_at=history[1].recorded_at) == {"org:Acme", "topic:pricing"}
    assert labels_values(tags, m1) == {"org:Acme", "topic:pricing"}
    assert t1 == history[1].recorded_at
    # the set queries read the past the same way
    assert tags.intersect(["org:Acme", "topic:renewal"], known_at=between) == [m1]
    assert tags.intersect(["org:Acme", "topic:renewal"]) == []
    assert tags.union(["topic:renewal", "topic:pricing"], known_at=before_any) == []
    assert {lc.label: lc.records for lc in tags.labels(known_at=between)} == {"org": 2, "topic": 1}
    with pytest.raises(ValueError, match="timezone"):
        tags.properties(m1, known_at=datetime(2026, 3, 1))


def test_as_of_is_a_sparql_query_too(store: MemoryStore, tags: Tags) -> None:
    """'The record's properties as of transaction time T' is a plain SPARQL query over the model."""
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme", "topic:renewal"])
    tags.update(m1, ["topic:pricing"])
    first, second = tags.history(m1)
    query = """
        SELECT ?label ?value WHERE { GRAPH ?g {
            ?v mem:versionOf ?record ; mem:recordedAt ?t ; mem:hasEdgeProperty ?p .
            FILTER(?t <= ?T)
            FILTER NOT EXISTS { ?newer mem:revises ?v ; mem:recordedAt ?nt . FILTER(?nt <= ?T) }
            ?p mem:edgeLabel ?label ; mem:edgeValue ?value .
        } } ORDER BY ?label ?value"""

    def as_of(t: datetime) -> list[str]:
        text = query.replace("?record", str(m1)).replace("?T", str(Literal(
            t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z"), datatype=NamedNode(
                "http://www.w3.org/2001/XMLSchema#dateTime"))))
        return [f"{r['label'].value}:{r['value'].value}" for r in store.query(text)]

    assert as_of(first.recorded_at) == ["org:Acme", "topic:renewal"]
    assert as_of(second.recorded_at) == ["org:Acme", "topic:pricing"]
    assert as_of(first.recorded_at - timedelta(seconds=1)) == []


def test_lane_and_source_type_are_fixed_by_the_first_version(store: MemoryStore, tags: Tags) -> None:
    (m1,) = messages(store, "m1")
    tags.add(m1, ["org:Acme"], lane="crm", source_type="email")
    tags.add(m1, ["person:Sarah"])  # lane and source type carried forward
    assert tags.version(m1).lane == "crm" and tags.version(m1).source_type == "email"
    assert tags.version(m1).schema == "crm/email"
    tags.add(m1, ["topic:renewal"], lane="crm", source_type="email")  # the same: fine
    with pytest.raises(LaneError, match="lane"):
        tags.add(m1, ["topic:pricing"], lane="notes")
    with pytest.raises(LaneError, match="source type"):
        tags.update(m1, ["topic:pricing"], source_type="call")
    assert all(v.lane == "crm" for v in tags.history(m1))


# -- reserved hyperedges: connect, group, adjusts -----------------------------------------------------


def test_connect_joins_exactly_two_records(store: MemoryStore, tags: Tags) -> None:
    m1, m2, m3 = messages(store, "m1", "m2", "m3")
    link = tags.connect(m1, m2)
    assert link.changed and link.edge.label == "e_connect"
    assert re.match(r"^e_connect_[0-9a-f]{32}$", link.value)
    assert link.value == connect_value(m2, m1)  # derived from the pair, whichever order
    assert tags.connections(m1) == [m2] and tags.connections(m2) == [m1]
    assert tags.intersect([link.edge]) == [m1, m2]
    before = len(store)
    again = tags.connect(m2, m1)
    assert not again.changed and again.value == link.value and len(store) == before
    other = tags.connect(m1, m3)
    assert other.value != link.value and tags.connections(m1) == [m2, m3]
    gone = tags.disconnect(m2, m1)
    assert gone.changed and tags.connections(m1) == [m3] and tags.connections(m2) == []
    assert not tags.disconnect(m1, m2).changed
    with pytest.raises(ValueError):
        tags.connect(m1, m1)


def test_group_joins_two_or_more_and_dissolves_below_two(store: MemoryStore, tags: Tags) -> None:
    m1, m2, m3, m4 = messages(store, "m1", "m2", "m3", "m4")
    link = tags.group([m1, m2, m3])
    assert re.match(r"^e_group_[0-9a-f]{32}$", link.value)
    assert tags.union([link.edge]) == [m1, m2, m3]
    tags.group([m4], into=link.value)
    assert tags.count([link.edge]) == 4
    tags.ungroup(link.value, [m1, m2])
    assert tags.union([link.edge]) == [m3, m4]
    dissolved = tags.ungroup(link.value, [m3])  # one would be left: the group goes
    assert {c.record for c in dissolved.changes} == {m3, m4}
    assert tags.union([link.edge]) == []
    with pytest.raises(ValueError, match="two or more"):
        tags.group([m1])
    with pytest.raises(ReservedLabelError):
        tags.group([m1, m2], into="my-group")
    with pytest.raises(NotFoundError):
        tags.group([m1, m2], into="e_group_" + "0" * 32)
    second = tags.group([m1, m2])
    assert second.value != link.value
    assert not tags.ungroup(second.value, [m3]).changed  # m3 is not in it
    tags.ungroup(second.value)
    assert tags.union([second.edge]) == []


def test_adjustments_form_a_chain_over_time(store: MemoryStore, tags: Tags) -> None:
    quote, fix, fix2, other, other_fix = messages(store, "quote", "fix", "fix2", "other", "other_fix")
    link = tags.adjusts(fix, quote)
    assert re.match(r"^e_adjustment_[0-9a-f]{32}$", link.value)
    assert tags.adjusts(fix2, fix).value == link.value  # joins the same chain
    assert tags.chain(fix2) == [quote, fix, fix2]  # in the records' time order
    assert tags.chain(other) == []
    second = tags.adjusts(other_fix, other)
    assert second.value != link.value and tags.chain(other) == [other, other_fix]
    with pytest.raises(ValueError, match="another adjustment chain"):
        tags.adjusts(fix, other)  # fix is in the first chain already
    with pytest.raises(ValueError):
        tags.adjusts(fix, fix)
    tags.unadjust(fix)
    assert tags.chain(quote) == [quote, fix2]
    tags.unadjust(fix2)  # a chain of one is no chain
    assert tags.chain(quote) == [] and tags.properties(quote) == []
    assert not tags.unadjust(quote).changed


def test_adjustments_stay_out_of_intersect_and_union_but_traverse_walks_them(store: MemoryStore, tags: Tags) -> None:
    quote, fix = messages(store, "quote", "fix")
    tags.add(quote, ["org:Acme"])
    link = tags.adjusts(fix, quote)
    for gather in (tags.intersect, tags.union, tags.count, tags.timeline):
        with pytest.raises(ReservedLabelError, match="traverse"):
            gather(["org:Acme", link.edge])
    assert [(s.record, s.via) for s in tags.traverse(quote)] == [(fix, link.edge)]
    assert [s.record for s in tags.traverse(quote, labels=["org"])] == []
    assert tags.intersect(["org:Acme"]) == [quote]  # the adjusting record carries no org: not listed


# -- gathering --------------------------------------------------------------------------------------


@pytest.fixture
def acme(store: MemoryStore, tags: Tags) -> dict[str, NamedNode]:
    """Five records about Acme, Sarah and the renewal, with event times out of write order."""
    day = lambda d: datetime(2026, 2, d, 10, tzinfo=timezone.utc)  # noqa: E731
    specs = {
        "m1": (day(3), ["org:Acme", "person:Sarah", "topic:renewal"]),
        "m2": (day(1), ["org:Acme", "topic:billing"]),
        "m3": (day(5), ["person:Sarah", "topic:renewal"]),
        "m4": (day(2), ["org:Globex", "person:Sarah"]),
        "m5": (None, ["org:Acme", "topic:renewal"]),
    }
    out = {}
    for name, (when, props) in specs.items():
        node = store.add(Message(content=name, id=EX + name, event_time=when), graph=TENANT)
        tags.add(node, props)
        out[name] = node
    return out


def test_intersect_union_count(tags: Tags, acme: dict[str, NamedNode]) -> None:
    m = acme
    assert tags.intersect(["org:Acme", "person:Sarah"]) == [m["m1"]]
    assert tags.intersect(["org:Acme", "topic:renewal"]) == [m["m1"], m["m5"]]
    assert tags.intersect(["org:Acme", "person:Sarah", "topic:renewal"]) == [m["m1"]]
    assert tags.intersect(["org:Acme", "org:Globex"]) == []
    assert tags.intersect(["org:Nobody", "org:Acme"]) == []
    assert tags.union(["org:Globex", "topic:billing"]) == [m["m2"], m["m4"]]
    assert tags.union("person:Sarah") == [m["m1"], m["m3"], m["m4"]]
    assert tags.count(["topic:renewal"]) == 3
    assert tags.count(["org:Acme", "person:Sarah"], mode="any") == 5
    with pytest.raises(ValueError):
        tags.count(["org:Acme"], mode="most")
    with pytest.raises(ValueError):
        tags.intersect([])


def test_timeline_orders_by_record_time(tags: Tags, acme: dict[str, NamedNode]) -> None:
    m = acme
    rows = tags.timeline(["topic:renewal"])
    assert [r for r, _ in rows] == [m["m1"], m["m3"], m["m5"]]  # m5 has no event time: its recordedAt (now)
    assert rows[0][1] == datetime(2026, 2, 3, 10, tzinfo=timezone.utc)
    any_rows = tags.timeline(["org:Acme", "person:Sarah"], mode="any")
    assert [r for r, _ in any_rows] == [m["m2"], m["m4"], m["m1"], m["m3"], m["m5"]]
    assert all(a[1] <= b[1] for a, b in zip(any_rows, any_rows[1:]))


def test_traverse_follows_shared_properties_with_a_depth_bound(tags: Tags, acme: dict[str, NamedNode]) -> None:
    m = acme
    one = tags.traverse(m["m4"])  # m4: org:Globex, person:Sarah
    assert {s.record for s in one} == {m["m1"], m["m3"]}
    assert all(s.depth == 1 and s.via == EdgeProperty("person", "Sarah") and s.source == m["m4"] for s in one)
    two = tags.traverse(m["m4"], depth=2)
    assert {s.record for s in two} == {m["m1"], m["m3"], m["m2"], m["m5"]}
    assert {s.record for s in two if s.depth == 2} == {m["m2"], m["m5"]}
    assert tags.traverse(m["m4"], depth=0) == []
    assert [s.record for s in tags.traverse(m["m4"], depth=5, labels=["org"])] == []
    assert len(tags.traverse(m["m4"], depth=2, limit=3)) == 3
    with pytest.raises(ValueError):
        tags.traverse(m["m4"], depth=-1)


def test_labels_and_values(tags: Tags, acme: dict[str, NamedNode]) -> None:
    assert [(lc.label, lc.records, lc.values) for lc in tags.labels()] == [
        ("org", 4, 2), ("person", 3, 1), ("topic", 4, 2)]
    assert tags.values("org") == [("Acme", 3), ("Globex", 1)]
    assert tags.values("topic") == [("renewal", 3), ("billing", 1)]
    assert tags.values("nothing") == []


def test_graphs_are_separate(store: MemoryStore) -> None:
    other = "https://example.org/tenants/other"
    (a,) = messages(store, "a")
    (b,) = messages(store, "b", graph=other)
    Tags(store, graph=TENANT).add(a, ["org:Acme"])
    Tags(store, graph=other).add(b, ["org:Acme"])
    assert Tags(store, graph=TENANT).union(["org:Acme"]) == [a]
    assert Tags(store, graph=other).union(["org:Acme"]) == [b]
    assert Tags(store).union(["org:Acme"]) == []


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(assignment=st.lists(st.sets(st.sampled_from(["org:A", "org:B", "person:S", "topic:r", "topic:q"])),
                           min_size=1, max_size=6),
       query=st.sets(st.sampled_from(["org:A", "org:B", "person:S", "topic:r", "topic:q"]), min_size=1))
def test_intersect_and_union_match_a_set_model(assignment: list[set[str]], query: set[str]) -> None:
    store = MemoryStore(validation=None)
    tags = Tags(store)
    records = [store.add(Message(content=str(i), id=f"urn:x:r{i}")) for i in range(len(assignment))]
    for r, props in zip(records, assignment):
        tags.update(r, sorted(props))  # a first version, then (for some) a second one
        if "topic:q" in props:
            tags.remove(r, "topic", "q")
            props.discard("topic:q")
    expect_all = sorted((r for r, p in zip(records, assignment) if query <= p), key=str)
    expect_any = sorted((r for r, p in zip(records, assignment) if query & p), key=str)
    assert tags.intersect(sorted(query)) == expect_all
    assert tags.union(sorted(query)) == expect_any
    sparql = "SELECT ?r WHERE { " + " ".join(f"?v mem:hasEdgeProperty {EdgeProperty.parse(p).iri} ." for p in query) + \
        " FILTER NOT EXISTS { ?n mem:revises ?v } ?v mem:versionOf ?r } ORDER BY STR(?r)"
    assert [row["r"] for row in store.query(sparql)] == expect_all


# -- end to end -------------------------------------------------------------------------------------


def test_acme_sarah_renewal_end_to_end(tmp_path) -> None:
    """The README example: Acme, Sarah and the renewal, on disk, under a policy, validated by both engines."""
    from memkg.tags.policy import Policy, PolicyError
    from memkg.validation import validate_store

    policy = Policy.loads("""
        [lanes.crm.source_types.email]
        labels = { org = "*", person = "*", topic = ["renewal", "pricing", "billing"] }
        [lanes.notes]
    """)
    store = MemoryStore(tmp_path / "store")
    tags = Tags(store, graph=TENANT, policy=policy)
    day = lambda d: datetime(2026, 3, d, 9, tzinfo=timezone.utc)  # noqa: E731
    mail1, mail2, mail3, note = (
        store.add(Message(content=c, id=EX + n, event_time=t), graph=TENANT) for n, c, t in [
            ("mail1", "Sarah (Acme): can we talk about the renewal?", day(2)),
            ("mail2", "Acme: invoice 2291 is overdue", day(3)),
            ("mail3", "Sarah (Acme): renewal quote corrected to 120k", day(9)),
            ("note1", "Remember: Sarah prefers calls after 4pm", day(4)),
        ])
    tags.add(mail1, ["org:Acme", "person:Sarah", "topic:renewal"], lane="crm", source_type="email")
    tags.add(mail2, ["org:Acme", "topic:billing"], lane="crm", source_type="email")
    tags.add(mail3, ["org:Acme", "person:Sarah", "topic:pricing"], lane="crm", source_type="email")
    tags.add(note, ["person:Sarah", "general:call preferences"], lane="notes")
    tags.adjusts(mail3, mail1)  # the corrected quote adjusts the first mail

    # Every record about Acme; how many mention the renewal; Sarah at Acme over time.
    assert tags.union(["org:Acme"]) == [mail1, mail2, mail3]
    assert tags.count(["topic:renewal"]) == 1
    assert [r for r, _ in tags.timeline(["org:Acme", "person:Sarah"])] == [mail1, mail3]
    assert {s.record for s in tags.traverse(note)} == {mail1, mail3}
    assert tags.chain(mail1) == [mail1, mail3]

    # The policy refuses what the crm/email source type does not allow, and writes nothing.
    before = data_quads(store)
    with pytest.raises(PolicyError, match="label 'mood' is not allowed"):
        tags.add(mail2, ["mood:angry"])
    with pytest.raises(PolicyError, match="value 'gossip' of label 'topic'"):
        tags.update(mail2, ["topic:gossip"])
    assert data_quads(store) == before

    # A change is a new version; the old one stays readable.
    t_before = tags.version(mail2).recorded_at
    tags.update(mail2, ["topic:renewal"])
    assert tags.count(["topic:renewal"]) == 2
    assert tags.count(["topic:renewal"], known_at=t_before) == 1
    assert labels_values(tags, mail2, known_at=t_before) == {"org:Acme", "topic:billing"}
    assert tags.update(mail2, ["topic:renewal"]).version is None  # changes nothing, writes nothing

    # The generated shapes agree with the API: the store conforms, under both engines.
    shapes = policy.write_shapes(tmp_path / "policy-shapes.ttl")
    for engine in ("native", "pyshacl"):
        report = validate_store(store, engine=engine, extra_shapes=[shapes])
        assert report.conforms, report.to_text()
    store.close()
    reopened = Tags(MemoryStore(tmp_path / "store", read_only=True), graph=TENANT)
    assert reopened.intersect(["org:Acme", "topic:renewal"]) == [mail1, mail2]


def test_intersect_joins_the_smallest_hyperedge_first(store: MemoryStore, tags: Tags, monkeypatch) -> None:
    import memkg.tags.records as records_module

    records = messages(store, *(f"r{i}" for i in range(12)))
    for i, r in enumerate(records):
        props = ["topic:common"] + (["org:Mid"] if i < 6 else []) + (["person:Rare"] if i < 2 else [])
        tags.add(r, props)
    monkeypatch.setattr(records_module, "PROBE_CAP", 2)  # every size reaches the first cap: it grows
    order = tags._smallest_first([EdgeProperty.parse(p) for p in ("topic:common", "org:Mid", "person:Rare")])
    assert [str(p) for p in order] == ["person:Rare", "org:Mid", "topic:common"]
    assert tags.intersect(["topic:common", "org:Mid", "person:Rare"]) == records[:2]
    assert tags.intersect(["topic:common", "org:None"]) == []

