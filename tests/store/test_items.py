"""The write API: each call one atomic, stamped write; retries collapse; ids are kept or minted."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from pyoxigraph import Literal, NamedNode, Triple

from memkg import (
    Action,
    Claim,
    Episode,
    MemoryStore,
    Message,
    NotFoundError,
    ValidationError,
    Occurrence,
    Outcome,
    Predicate,
    Vertex,
    mem,
)
from memkg.core.model import content_hash
from memkg.store import Clock

EX = "http://example.org/"
LIA, AURORA, TEA = NamedNode(EX + "Lia"), NamedNode(EX + "Aurora"), NamedNode(EX + "tea")
TENANT = "http://example.org/tenants/lia"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
PREDICATES = ("prefers", "likes", "recommends", "age")


@pytest.fixture
def store() -> MemoryStore:
    """A store whose vertices and predicates exist, as the invariants require of claims."""
    s = MemoryStore()
    s.add_all(
        [Vertex(id=LIA, cls=mem.Person), Vertex(id=AURORA, cls=mem.Agent), Vertex(id=TEA, cls=mem.Entity),
         Vertex(id=EX + "morning", cls=mem.Context), Message(id=EX + "m", content="Lia talks about tea.")]
        + [Predicate(id=EX + p, label=p) for p in PREDICATES]
    )
    return s


def values(store: MemoryStore, s: NamedNode, p: NamedNode) -> list:
    return [q.object for q in store.quads(s, p, None)]


def test_a_message_is_kept_verbatim_with_hash_and_recorded_at(store: MemoryStore) -> None:
    text = "I prefer tea   without sugar.\n"
    m = store.add(Message(content=text, event_id="chat-1", sender=LIA, event_time=T0))
    assert values(store, m, mem.content) == [Literal(text)]
    assert values(store, m, mem.contentHash) == [Literal(content_hash(text))]
    (recorded,) = values(store, m, mem.recordedAt)
    assert recorded.datatype.value.endswith("#dateTime") and recorded.value.endswith("Z")


def test_a_retry_with_the_same_event_id_writes_nothing(store: MemoryStore) -> None:
    first = store.add(Message(content="hello", event_id="evt-7"), graph=TENANT)
    size = len(store)
    again = store.add(Message(content="hello", event_id="evt-7"), graph=TENANT)
    assert again == first
    assert len(store) == size


def test_distinct_event_ids_with_the_same_content_all_survive(store: MemoryStore) -> None:
    a = store.add(Message(content="same words", event_id="evt-1"))
    b = store.add(Message(content="same words", event_id="evt-2"))
    assert a != b
    assert values(store, a, mem.contentHash) == values(store, b, mem.contentHash)


def test_retries_inside_one_batch_collapse_too(store: MemoryStore) -> None:
    ids = store.add_all([Message(content="x", event_id="e"), Message(content="x", event_id="e")])
    assert ids[0] == ids[1]
    assert len(list(store.quads(None, mem.eventId, Literal("e")))) == 1


def test_event_ids_are_per_tenant(store: MemoryStore) -> None:
    a = store.add(Message(content="x", event_id="e"), graph="http://example.org/t1")
    b = store.add(Message(content="x", event_id="e"), graph="http://example.org/t2")
    assert a != b


def test_a_claim_reifies_one_triple_term_and_is_not_asserted(store: MemoryStore) -> None:
    m = store.add(Message(content="I prefer tea"))
    c = store.add(
        Claim(
            subject=LIA,
            predicate=EX + "prefers",
            object=TEA,
            confidence=0.95,
            valid_from=T0,
            context=[EX + "morning"],
            asserted_by=m,
        )
    )
    assert values(store, c, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")) == [
        Triple(LIA, NamedNode(EX + "prefers"), TEA)
    ]
    assert not list(store.quads(LIA, NamedNode(EX + "prefers"), TEA))
    assert values(store, c, mem.confidence)[0].value == "0.95"
    assert values(store, c, mem.assertedBy) == [m]
    assert values(store, c, mem.context) == [NamedNode(EX + "morning")]
    assert store.check_index().consistent
    # the index finds it by subject without scanning triple terms
    assert [q.subject for q in store.quads(None, NamedNode("https://w3id.org/memkg/index#subject"), LIA, None, with_index=True)] == [c]


def test_claim_objects_from_python_values_become_typed_literals(store: MemoryStore) -> None:
    c = store.add(Claim(subject=LIA, predicate=EX + "age", object=41, asserted_by=EX + "m"))
    (t,) = values(store, c, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"))
    assert t.object == Literal("41", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf")])
def test_confidence_outside_the_unit_interval_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        Claim(subject=LIA, predicate=EX + "p", object=TEA, confidence=bad)


def test_validity_must_be_an_increasing_interval() -> None:
    with pytest.raises(ValueError, match="valid_from"):
        Claim(subject=LIA, predicate=EX + "p", object=TEA, valid_from=T0, valid_until=T0)


def test_naive_datetimes_are_refused(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="timezone"):
        store.add(Message(content="naive", event_time=datetime(2026, 1, 1)))
    assert not list(store.quads(None, mem.content, Literal("naive")))


def test_parallel_occurrences_keep_their_own_identity(store: MemoryStore) -> None:
    e1 = store.add(Occurrence(subject=AURORA, predicate=EX + "recommends", object=TEA, event_time=T0, confidence=0.96))
    e2 = store.add(
        Occurrence(subject=AURORA, predicate=EX + "recommends", object=TEA,
                   event_time=T0 + timedelta(days=52), confidence=0.72)
    )
    assert e1 != e2
    assert len(list(store.quads(AURORA, NamedNode(EX + "recommends"), TEA))) == 1
    rows = list(store.query(
        "SELECT ?e WHERE { ?e a mem:Occurrence ; rdf:reifies <<( <http://example.org/Aurora> "
        "<http://example.org/recommends> <http://example.org/tea> )>> }"
    ))
    assert {r["e"] for r in rows} == {e1, e2}


def test_an_occurrence_retry_collapses_on_its_event_id(store: MemoryStore) -> None:
    occ = Occurrence(subject=AURORA, predicate=EX + "recommends", object=TEA, event_id="rec-1")
    first = store.add(occ)
    assert store.add(Occurrence(subject=AURORA, predicate=EX + "recommends", object=TEA, event_id="rec-1")) == first


def test_an_episode_with_actions_and_outcome_is_one_write(store: MemoryStore) -> None:
    outcome = Outcome(description="Lia accepted")
    action = Action(actor=AURORA, recipient=LIA, object=TEA, produces=outcome)
    ep = store.add(Episode(participants=[LIA, AURORA], actions=[action], event_time=T0), graph=TENANT)
    assert values(store, ep, mem.hasAction) == [action.node()]
    assert values(store, action.node(), mem.produces) == [outcome.node()]
    assert values(store, action.node(), mem.actor) == [AURORA]
    stamps = {q.object for q in store.quads(None, mem.recordedAt, None, NamedNode(TENANT))}
    assert len(stamps) == 1  # one write, one transaction time


def test_caller_ids_are_kept_and_missing_ids_minted(store: MemoryStore) -> None:
    kept = store.add(Vertex(id=EX + "Lia", cls=mem.Person, display_name="Lia"))
    assert kept == LIA
    token = store.add(Vertex(id="lia", cls=mem.Person))
    assert token.value == "urn:memkg:vertex:lia"
    minted = {store.add(Message(content=str(i))) for i in range(50)}
    assert len(minted) == 50
    assert all(m.value.startswith("urn:memkg:message:") for m in minted)


def test_an_invalid_write_is_refused_whole_naming_shape_and_focus(store: MemoryStore) -> None:
    size = len(store)
    coffee = NamedNode(EX + "coffee")  # never declared as a vertex
    with pytest.raises(ValidationError) as info:
        store.add_all([Message(id=EX + "m9", content="ok"),
                       Claim(id=EX + "c9", subject=LIA, predicate=EX + "likes", object=coffee, asserted_by=EX + "m9")])
    (violation,) = info.value.violations
    assert str(violation.shape) == "<https://w3id.org/memkg#TypedVertexShape>"
    assert str(violation.focus) == f"<{EX}c9>"
    assert "nothing was written" in str(info.value)
    assert len(store) == size  # not even the valid message


def test_a_refused_write_of_several_items_names_every_item_it_held(store: MemoryStore) -> None:
    # The refusal says which write it was: the items of the call, in order, as IRIs.
    with pytest.raises(ValidationError) as info:
        store.add_all([Message(id=EX + "m9", content="ok"),
                       Claim(id=EX + "c9", subject=LIA, predicate=EX + "likes", object=NamedNode(EX + "coffee"),
                             asserted_by=EX + "m9")])
    assert info.value.source == f"<{EX}m9>, <{EX}c9>"
    assert str(info.value).startswith(f"<{EX}m9>, <{EX}c9>: write refused, 1 violation(s)")


def test_recorded_at_comes_from_a_strictly_increasing_clock() -> None:
    frozen = Clock(lambda: T0)  # a clock that does not move must still never repeat
    store = MemoryStore(clock=frozen)
    stamps = [store.clock.tick() for _ in range(3)]
    assert stamps == sorted(set(stamps))


def test_supersede_writes_a_new_version_and_keeps_the_old(store: MemoryStore) -> None:
    m = store.add(Message(content="call me Lia"))
    old = store.add(Claim(subject=LIA, predicate=mem.displayName, object="Lia", asserted_by=m))
    old_quads = set(store.quads(old, None, None))
    new = store.supersede(old, Claim(subject=LIA, predicate=mem.displayName, object="Amelia", asserted_by=m)).claim
    assert values(store, new, mem.supersedes) == [old]
    assert set(store.quads(old, None, None)) == old_quads  # nothing overwritten
    current = [r["claim"] for r in store.view("current")]
    assert current == [new]


def test_supersede_and_retract_refuse_unknown_claims(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        store.supersede(EX + "nope", Claim(subject=LIA, predicate=EX + "p", object=TEA, asserted_by=EX + "m"))
    with pytest.raises(NotFoundError):
        store.retract(EX + "nope")


def test_retract_withdraws_a_claim_from_current_knowledge(store: MemoryStore) -> None:
    c = store.add(Claim(subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m"))
    assert [r["claim"] for r in store.view("current")] == [c]
    r = store.retract(c, reason="the user corrected it")
    assert values(store, r, mem.retracts) == [c]
    assert values(store, r, mem.reason) == [Literal("the user corrected it")]
    assert list(store.view("current")) == []
    assert list(store.quads(c, None, None))  # the claim itself stays, for history


def test_a_retraction_without_a_tenant_goes_to_the_one_graph_holding_the_claim(store: MemoryStore) -> None:
    # Other tenants' data (and the shared default graph) must not make the claim's graph ambiguous.
    other = "http://example.org/tenants/noor"
    store.add(Claim(subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m"), graph=other)
    c = store.add(Claim(subject=LIA, predicate=EX + "prefers", object=TEA, asserted_by=EX + "m"), graph=TENANT)
    r = store.retract(c)
    assert [q.graph_name for q in store.quads(r, mem.retracts, c, graph=None)] == [NamedNode(TENANT)]


def test_superseding_a_claim_of_another_tenant_is_refused_and_writes_nothing(store: MemoryStore) -> None:
    other = "http://example.org/tenants/noor"
    old = store.add(Claim(subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m"), graph=other)
    before = set(store.quads(None, None, None, graph=None))
    with pytest.raises(NotFoundError, match=f"no claim by that IRI in graph <{TENANT}>"):
        store.supersede(old, Claim(subject=LIA, predicate=EX + "prefers", object=TEA, asserted_by=EX + "m"),
                        graph=TENANT)
    assert set(store.quads(None, None, None, graph=None)) == before


# -- who, when and where: a message's episode, turn, addressees and attachments --------------------


def test_a_message_keeps_its_episode_addressees_and_attachments(store: MemoryStore) -> None:
    from memkg.core.model import Attachment

    episode = NamedNode(EX + "session-1")
    m = store.add(Message(content="Look at my mug", sender=LIA, recipients=[AURORA], episode=episode, event_time=T0,
                          attachments=[Attachment(url="https://example.org/mug.jpg", caption="a blue mug",
                                                  media_type="image/jpeg")]), graph=TENANT)
    assert values(store, m, mem.recipient) == [AURORA]
    assert values(store, m, NamedNode("http://www.w3.org/ns/prov#wasGeneratedBy")) == [episode]
    assert values(store, m, NamedNode("http://www.w3.org/ns/prov#wasAttributedTo")) == [LIA]
    assert mem.Episode in values(store, episode, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"))
    (attachment,) = values(store, m, mem.attachment)
    assert values(store, attachment, mem.url) == [Literal("https://example.org/mug.jpg",
                                                          datatype=NamedNode("http://www.w3.org/2001/XMLSchema#anyURI"))]
    assert values(store, attachment, mem.caption) == [Literal("a blue mug")]


def test_turns_count_per_episode_in_the_order_messages_are_added(store: MemoryStore) -> None:
    s1, s2 = NamedNode(EX + "s1"), NamedNode(EX + "s2")
    a = store.add(Message(content="one", episode=s1), graph=TENANT)
    b, c = store.add_all([Message(content="two", episode=s1), Message(content="other", episode=s2)], graph=TENANT)
    d = store.add(Message(content="three", episode=s1, event_time=T0 - timedelta(days=1)), graph=TENANT)
    turns = {n: int(values(store, n, mem.turn)[0].value) for n in (a, b, c, d)}
    assert turns == {a: 1, b: 2, c: 1, d: 3}  # arrival order, whatever the event time


def test_a_retried_message_takes_no_new_turn(store: MemoryStore) -> None:
    s1 = NamedNode(EX + "s1")
    store.add(Message(content="one", episode=s1, event_id="e1"), graph=TENANT)
    store.add(Message(content="one", episode=s1, event_id="e1"), graph=TENANT)
    later = store.add(Message(content="two", episode=s1, event_id="e2"), graph=TENANT)
    assert values(store, later, mem.turn) == [Literal("2", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))]


def test_a_turn_counts_from_one_within_an_episode() -> None:
    with pytest.raises(ValueError, match="counts from 1"):
        Message(content="x", episode=EX + "s1", turn=0)
    with pytest.raises(ValueError, match="give the episode"):
        Message(content="x", turn=2)


def test_an_untyped_recipient_is_refused_naming_it(store: MemoryStore) -> None:
    stranger = NamedNode(EX + "stranger")
    with pytest.raises(ValidationError, match="stranger"):
        store.add(Message(content="hi", recipients=[stranger]), graph=TENANT)


def test_a_recipient_must_be_a_person_or_agent(store: MemoryStore) -> None:
    with pytest.raises(ValidationError, match="RoleTypesShape"):
        store.add(Message(content="hi", recipients=[TEA]))


HEAD = """PREFIX ex: <http://example.org/>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


@pytest.mark.parametrize(("data", "shape"), [
    ('ex:m1 a mem:Message ; mem:attachment ex:a1 . ex:a1 a mem:Attachment .', "AttachmentShape"),  # no url
    ('ex:a1 a mem:Attachment ; mem:url "https://e.org/a.jpg"^^xsd:anyURI .', "AttachmentShape"),  # no message
    ('ex:m1 a mem:Message ; mem:attachment ex:a1 . ex:a1 a mem:Attachment ; mem:url "https://e.org/a.jpg" .',
     "AttachmentShape"),  # a plain string, not xsd:anyURI
    ('ex:m1 a mem:Message ; mem:attachment ex:a1 . ex:a1 a mem:Entity ; mem:url "https://e.org/a.jpg"^^xsd:anyURI .',
     "AttachmentShape"),  # not an attachment
    ('ex:s1 a mem:Episode . ex:m1 a mem:Message ; prov:wasGeneratedBy ex:s1 ; mem:turn 0 .', "TurnShape"),
    ('ex:m1 a mem:Message ; mem:turn 1 .', "TurnShape"),  # a turn of no episode
    ('ex:s1 a mem:Episode . ex:m1 a mem:Message ; prov:wasGeneratedBy ex:s1 ; mem:turn 1, 2 .', "TurnShape"),
    ('ex:s1 a mem:Episode ; mem:turn 1 ; prov:wasGeneratedBy ex:s1 .', "TurnShape"),  # not a message
])
def test_attachments_and_turns_are_checked_when_written(data: str, shape: str) -> None:
    with pytest.raises(ValidationError, match=shape):
        MemoryStore().load_data(HEAD + data, format="turtle")


def test_a_well_formed_conversation_loads() -> None:
    MemoryStore().load_data(HEAD + """
        ex:lia a mem:Person . ex:aurora a mem:Agent . ex:s1 a mem:Episode ; mem:participant ex:lia, ex:aurora .
        ex:m1 a mem:Message ; mem:content "Look!" ; prov:wasGeneratedBy ex:s1 ; mem:turn 1 ;
            prov:wasAttributedTo ex:lia ; mem:recipient ex:aurora ; mem:attachment ex:a1 .
        ex:a1 a mem:Attachment ; mem:url "https://e.org/a.jpg"^^xsd:anyURI ; mem:caption "a mug" .
    """, format="turtle")
