"""Recall (docs/contract.md section 7): an oracle per signal, versions, tenants, erasure, and every write path."""

from __future__ import annotations

import json
import socket
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from memkg import Claim, Episode, Message, MemoryStore, Predicate, Vertex, erase
from memkg.adapters.cli import main
from memkg.recall import (
    INDEX_FILE,
    RECALL_INDEX,
    HashingEmbedder,
    Hit,
    RecallConfig,
    WordLlamaEmbedder,
    check_recall_index,
    find_periods,
    recall,
    recall_index,
)
from memkg.core.vocab import RDF_TYPE, mem

EX = "https://example.org/"
A = EX + "tenants/a"
B = EX + "tenants/b"
UTC = timezone.utc


def at(month: int, day: int, hour: int = 12) -> datetime:
    return datetime(2023, month, day, hour, tzinfo=UTC)


def conversation(store: MemoryStore, graph: str | None = None) -> dict[str, NamedNode]:
    """Lia, Bob and the agent Aurora talk over three months; returns the nodes by name."""
    people = [
        Vertex(id=EX + "lia", cls=mem.Person, display_name="Lia Chen", extra=[(mem.alias, "Li")]),
        Vertex(id=EX + "bob", cls=mem.Person, display_name="Bob"),
        Vertex(id=EX + "aurora", cls=mem.Agent, display_name="Aurora"),
        Predicate(id=EX + "drinks", label="drinks"),
        Vertex(id=EX + "tea", display_name="green tea"),
        Vertex(id=EX + "coffee", display_name="coffee"),
    ]
    store.add_all(people, graph=graph)
    episode = store.add(Episode(id=EX + "e1", participants=[EX + "lia", EX + "aurora"], event_time=at(5, 2)), graph=graph)
    said = [
        ("m-apr", EX + "bob", "I drink a lot of tea in the evening, usually green tea", at(4, 10)),
        ("m-lia", EX + "lia", "In the evening I drink a cup of green tea before bed", at(5, 2, 20)),
        ("m-bob", EX + "bob", "Honestly I drink tea in the evening too, chamomile mostly", at(5, 3)),
        ("m-jun", EX + "bob", "We talked about evening tea again, and I still drink it", at(6, 20)),
        ("m-build", EX + "aurora", "The build server is down again, I restarted the runner", at(5, 20)),
        ("m-move", EX + "lia", "We finally moved to Berlin, the flat is great", at(5, 25)),
    ]
    nodes = {}
    for name, sender, text, when in said:
        nodes[name] = store.add(Message(id=EX + name, content=text, sender=sender, event_time=when,
                                        extra=[("http://www.w3.org/ns/prov#wasGeneratedBy", NamedNode(EX + "e1"))]
                                        if name == "m-lia" else []), graph=graph)
    nodes["episode"] = episode
    return nodes


@pytest.fixture(scope="module")
def memory() -> tuple[MemoryStore, dict[str, NamedNode]]:
    store = MemoryStore()
    return store, conversation(store)


# -- signals ------------------------------------------------------------------------------


def test_a_question_naming_a_person_ranks_what_that_person_said_first(memory) -> None:
    store, nodes = memory
    hits = store.recall("What does Lia drink in the evening?", k=5)
    assert hits[0].node == nodes["m-lia"].value
    assert "entity" in hits[0].signals and any("sender" in why for why in hits[0].why)
    # by alias too, and by the other person
    assert store.recall("what does Li drink?", k=3)[0].node == nodes["m-lia"].value
    assert store.recall("What does Bob drink in the evening?", k=1)[0].node in {
        nodes["m-apr"].value, nodes["m-bob"].value, nodes["m-jun"].value}


def test_in_may_keeps_to_may(memory) -> None:
    store, nodes = memory
    hits = store.recall("What did anyone say about evening tea in May 2023?", k=6)
    may = [h for h in hits if h.time and h.time.startswith("2023-05")]
    assert {h.node for h in may[:2]} == {nodes["m-lia"].value, nodes["m-bob"].value}
    timed = [h for h in hits if h.time]
    first_outside = next((i for i, h in enumerate(timed) if not h.time.startswith("2023-05")), len(timed))
    assert all(h.time.startswith("2023-05") for h in timed[:first_outside])
    assert all(not h.time.startswith("2023-05") for h in timed[first_outside:])  # May first, then the rest
    assert all("time" in h.signals for h in may if "tea" in h.text)


def test_a_relative_period_counts_back_from_the_time_asked_about(memory) -> None:
    store, nodes = memory
    hits = recall(store, "what did we say about tea last week?", now=at(6, 26), k=2)
    assert hits[0].node == nodes["m-jun"].value


def test_before_an_event_the_memory_dates(memory) -> None:
    store, nodes = memory
    hits = recall(store, "what did we say about tea before the move to Berlin?", k=3)
    assert nodes["m-jun"].value not in {h.node for h in hits[:3]}
    assert all(h.time is None or h.time < "2023-05-25" for h in hits[:3])


def test_the_graph_signal_pulls_in_the_episode_around_a_hit(memory) -> None:
    store, nodes = memory
    hits = store.recall("green tea before bed", k=10)
    assert hits[0].node == nodes["m-lia"].value
    episode = [h for h in hits if h.node == nodes["episode"].value]
    assert not episode or "graph" in episode[0].signals


def test_every_hit_says_which_signals_ranked_it(memory) -> None:
    store, _ = memory
    for hit in store.recall("Lia tea", k=10):
        assert hit.signals and set(hit.signals) <= {"lexical", "vector", "entity", "time", "graph"}
        assert hit.score == pytest.approx(sum(hit.signals.values()), rel=1e-6)


# -- versions -----------------------------------------------------------------------------


def test_a_superseded_claim_ranks_below_its_successor_and_says_so() -> None:
    store = MemoryStore()
    nodes = conversation(store)
    old = store.add(Claim(subject=EX + "lia", predicate=EX + "drinks", object=NamedNode(EX + "coffee"),
                          asserted_by=nodes["m-apr"]))
    new = store.supersede(old, Claim(subject=EX + "lia", predicate=EX + "drinks", object=NamedNode(EX + "tea"),
                                     asserted_by=nodes["m-lia"])).claim
    hits = store.recall("Lia drinks coffee", k=20)
    order = [h.node for h in hits]
    assert new.value in order and old.value in order
    assert order.index(new.value) < order.index(old.value)
    stale = hits[order.index(old.value)]
    assert stale.status == "superseded" and stale.successor == new.value
    assert hits[order.index(new.value)].status == "current"
    # what the store knew before the supersession: the old claim was current then
    before = store.recall("Lia drinks coffee", k=20, known_at=_recorded(store, old))
    assert [h.status for h in before if h.node == old.value] == ["current"]
    assert new.value not in {h.node for h in before}


def test_a_retracted_claim_says_so_and_ranks_low() -> None:
    store = MemoryStore()
    nodes = conversation(store)
    claim = store.add(Claim(subject=EX + "lia", predicate=EX + "drinks", object=NamedNode(EX + "coffee"),
                            asserted_by=nodes["m-apr"]))
    retraction = store.retract(claim, reason="misheard")
    hit = next(h for h in store.recall("Lia drinks coffee", k=20) if h.node == claim.value)
    assert hit.status == "retracted" and hit.retracted_by == retraction.value


def _recorded(store: MemoryStore, node: NamedNode) -> datetime:
    (q,) = store.quads(node, mem.recordedAt)
    return datetime.fromisoformat(q.object.value.replace("Z", "+00:00"))


# -- tenants and the store's truth ----------------------------------------------------------


def test_other_tenants_never() -> None:
    store = MemoryStore()
    a, b = conversation(store, A), None
    store.add(Vertex(id=EX + "bob", cls=mem.Person, display_name="Bob"), graph=B)
    store.add(Message(id=EX + "b-secret", content="Lia drinks green tea in the evening, says tenant B",
                      sender=EX + "bob"), graph=B)
    for question in ("What does Lia drink in the evening?", "tenant B", "Bob"):
        hits = store.recall(question, tenant=A, k=50)
        assert hits and all(h.graph in (A, None) for h in hits)
        assert EX + "b-secret" not in {h.node for h in hits}
        assert all(h.graph in (B, None) for h in store.recall(question, tenant=B, k=50))
    assert a and b is None


def test_a_hit_never_names_a_node_the_store_does_not_hold(memory) -> None:
    store = MemoryStore()
    nodes = conversation(store)
    store.recall("tea")  # the index exists from here on
    store.raw.remove_graph  # (reads only) — remove behind the index's back, as a crash could:
    for q in list(store.raw.quads_for_pattern(nodes["m-lia"], None, None, None)):
        store.raw.remove(q)
    assert nodes["m-lia"].value not in {h.node for h in store.recall("green tea before bed", k=20)}
    assert not check_recall_index(store).consistent


# -- derived data on every write path -------------------------------------------------------


def test_a_write_is_searchable_when_it_returns_on_every_path(tmp_path: Path) -> None:
    from memkg.guard.access import OPEN
    from memkg.loading.ingest import ingest_lines
    from memkg.history.updates import apply_update

    store = MemoryStore(tmp_path / "store")
    conversation(store)
    assert store.recall("tea")  # builds the index
    store.add(Message(id=EX + "w1", content="zebra crossing near the office"))
    assert store.recall("zebra", k=1)[0].node == EX + "w1"
    store.add_all([Message(id=EX + "w2", content="a quokka smiled at me")])
    assert store.recall("quokka", k=1)[0].node == EX + "w2"
    store.load_data(f'<{EX}w3> <{RDF_TYPE.value}> <{mem.Message.value}> .\n'
                    f'<{EX}w3> <{mem.content.value}> "the narwhal documentary" .', format="ntriples")
    assert store.recall("narwhal", k=1)[0].node == EX + "w3"
    file = tmp_path / "w4.ttl"
    file.write_text(f'<{EX}w4> a <{mem.Message.value}> ; <{mem.content.value}> "an axolotl in the tank" .\n')
    store.load(file)
    assert store.recall("axolotl", k=1)[0].node == EX + "w4"
    apply_update(store, f'INSERT DATA {{ <{EX}w5> a mem:Message ; mem:content "the platypus exhibit" }}', grant=OPEN)
    assert store.recall("platypus", k=1)[0].node == EX + "w5"
    apply_update(store, f'DELETE DATA {{ <{EX}w5> mem:content "the platypus exhibit" }}', grant=OPEN)
    assert EX + "w5" not in {h.node for h in store.recall("platypus", k=5)}
    ingest_lines(store, [json.dumps({"id": "capybara-1", "content": "a capybara in the hot spring"})])
    assert "capybara" in store.recall("capybara", k=1)[0].text
    assert check_recall_index(store).consistent
    store.close()
    reopened = MemoryStore(tmp_path / "store")  # the index file persists beside the data
    assert reopened.recall("axolotl", k=1)[0].node == EX + "w4"
    reopened.close()


def test_a_frequent_word_gives_way_to_rarer_ones_within_the_lexical_budget() -> None:
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    index = store.follower(RECALL_INDEX, create=True)  # kept by each write below: document ids in the order written
    common = [store.add(Message(content=f"coffee break number {i}")) for i in range(30)]
    rare = store.add(Message(content="coffee with the okapi keeper"))

    def found(terms: list[str], budget: int) -> list[str]:
        return [str(index.documents([d])[d]["node"]) for d, _ in index.lexical(terms, 50, budget=budget)]

    assert len(found(["coffee", "okapi"], budget=100)) == 31  # within the budget: every match scored
    assert found(["coffee", "okapi"], budget=10) == [rare.value]  # coffee (31 matches) gives way to okapi
    newest = found(["coffee"], budget=10)  # one word alone past the budget: its newest matches
    assert sorted(newest) == sorted([rare.value, *(c.value for c in common[-9:])])
    # through recall: the rare word still finds its message first
    assert recall(store, "coffee with the okapi", config=RecallConfig(lexical_budget=10), k=1)[0].node == rare.value


def test_k_distinct_hits_even_when_one_sentence_was_said_many_times() -> None:
    # docs/contract.md section 7: ten hits are not ten restatements, and k hits are k distinct pieces of evidence while
    # the memory holds them: a sentence repeated in sixty conversations folds into one hit (naming
    # some of its copies), and the other evidence still fills the list.
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    said = [f"conversations/{i}" for i in range(60)]
    for graph in said:
        store.add(Message(content="I can't start my day without a black coffee"), graph=EX + graph)
    others = ["coffee with oat milk at the station", "the coffee machine at work is broken",
              "decaf coffee after lunch", "coffee beans from the market", "cold brew coffee in summer"]
    distinct = {store.add(Message(content=text), graph=EX + "elsewhere").value for text in others}
    hits = store.recall("black coffee", k=5)
    assert len(hits) == 5
    assert len({h.text for h in hits}) == 5
    repeated = next(h for h in hits if "black coffee" in h.text)
    assert 0 < len(repeated.duplicates) <= RecallConfig().duplicates_listed
    assert {h.node for h in hits if h is not repeated} <= distinct
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_k_beyond_each_signals_list_still_gets_k_hits() -> None:
    # docs/contract.md section 7: recall returns the k best; each signal's list is as deep as k when k is larger.
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    names = [f"{a}{b}{c}" for a in "bdfgklmprt" for b in "aeiou" for c in ("zon", "vik")][:40]
    for name in names:
        store.add(Message(content=f"tea with {name}, the {name[::-1]} keeper"))
    hits = recall(store, "tea", k=30, config=RecallConfig(candidates=5))
    assert len(hits) == 30


def test_the_entity_signal_follows_writes_in_this_process_and_in_a_reader(tmp_path: Path) -> None:
    from pyoxigraph import Store

    from memkg.recall import RecallIndex

    embedder = HashingEmbedder(dim=32)
    store = MemoryStore(tmp_path / "store", followers=[recall_index(embedder=embedder)])
    conversation(store)
    store.follower(RECALL_INDEX, create=True)
    reader = RecallIndex(Store(), tmp_path / "store" / INDEX_FILE, embedder, read_only=True)
    reader.vectors()
    assert store.recall("What does Bob say about tea?", k=3)  # the writer's vectors and links loaded
    zoe = store.add(Vertex(id=EX + "zoe", cls=mem.Person, display_name="Zoe Okafor"))
    said = store.add(Message(id=EX + "m-zoe", content="I keep bees on the roof", sender=zoe, event_time=at(7, 1)))
    hit = store.recall("What does Zoe do?", k=1)[0]
    assert hit.node == said.value and "entity" in hit.signals and "sender: zoe" in hit.why
    reader.follow()
    v = reader.vectors()
    assert [int(v.ids[row]) for row in v.linked([zoe.value])] == [reader.find(said.value, "")]
    store.close()


def test_an_attachment_caption_is_part_of_its_message(tmp_path: Path) -> None:
    from memkg import Attachment

    store = MemoryStore(tmp_path / "store")
    conversation(store)
    assert store.recall("tea")  # builds the index
    photo = Attachment(id=EX + "photo", url="https://example.org/kayak.jpg", caption="a red kayak on the lake")
    shared = store.add(Message(id=EX + "look", content="Look what I bought!", sender=EX + "lia", attachments=[photo]))
    hit = store.recall("kayak", k=1)[0]
    assert (hit.node, hit.kind) == (shared.value, "Message")
    assert "red kayak" in hit.text
    store.change(remove=[next(store.quads(NamedNode(EX + "photo"), mem.caption))],
                 add=[Quad(NamedNode(EX + "photo"), mem.caption, Literal("a yellow canoe"))])
    assert store.recall("canoe", k=1)[0].node == shared.value  # the caption's change reaches the message
    assert all("kayak" not in h.text for h in store.recall("kayak", k=5))
    assert check_recall_index(store).consistent
    store.close()


def test_after_erase_no_hit_and_no_trace_in_any_index_file(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "store")
    conversation(store)
    secret = store.add(Message(id=EX + "secret", content="my pin is zanzibarquokka 4471", sender=EX + "lia"))
    assert store.recall("zanzibarquokka", k=1)[0].node == secret.value
    erase(store, secret, reason="consent revoked")
    assert secret.value not in {h.node for h in store.recall("zanzibarquokka pin", k=20)}
    assert check_recall_index(store).consistent
    store.close()
    files = [p for p in (tmp_path / "store").iterdir() if p.name.startswith(INDEX_FILE)]
    assert files
    for p in files:
        data = p.read_bytes()
        for needle in (b"zanzibarquokka", b"ZANZIBARQUOKKA"[::-1].lower()[::-1], b"4471", EX.encode() + b"secret"):
            assert needle not in data, (p.name, needle)


def test_index_check_and_rebuild_from_the_command_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "store"
    with MemoryStore(path) as store:
        conversation(store)
    assert main(["--store", str(path), "index", "check"]) == 0
    assert "recall index: none yet" in capsys.readouterr().out
    assert main(["--store", str(path), "index", "rebuild"]) == 0
    assert "recall index rebuilt" in capsys.readouterr().out
    assert main(["--store", str(path), "index", "check"]) == 0
    db = sqlite3.connect(path / INDEX_FILE)
    db.execute("DELETE FROM docs WHERE node = ?", (EX + "m-lia",))
    db.commit()
    db.close()
    assert main(["--store", str(path), "index", "check"]) == 1
    assert f"{EX}m-lia in the default graph: missing" in capsys.readouterr().out
    assert main(["--store", str(path), "index", "rebuild"]) == 0
    assert main(["--store", str(path), "index", "check"]) == 0


def test_recall_command_json_shape(tmp_path: Path, capsys) -> None:
    path = tmp_path / "store"
    with MemoryStore(path) as store:
        nodes = conversation(store)
    assert main(["--store", str(path), "recall", "What does Lia drink?", "--k", "3", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == "What does Lia drink?" and len(out["hits"]) == 3 and "packet" not in out
    hit = out["hits"][0]
    assert {"node", "kind", "score", "text", "signals", "status"} <= set(hit)
    assert hit["node"] == nodes["m-lia"].value and hit["kind"] == "Message"
    assert main(["--store", str(path), "recall", "What does Lia drink?", "--k", "2", "--format", "json",
                 "--packet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["packet"]["seeds"]) == {h["node"] for h in out["hits"]}
    assert main(["--store", str(path), "recall", "tea", "--k", "0"]) == 2
    assert main(["--store", str(path), "recall", "tea", "--valid-at", "2023-01-01"]) == 2
    assert main(["--store", str(path), "recall", "What does Lia drink?", "--k", "1"]) == 0
    assert "signals:" in capsys.readouterr().out


# -- embedders and time expressions ---------------------------------------------------------


def test_the_default_embedder_never_touches_the_network(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the embedder tried to open a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    vectors = WordLlamaEmbedder().embed(["green tea in the evening", "herbal tea at night"])
    assert vectors.shape == (2, 256) and float(vectors[0] @ vectors[1]) > 0.3


def test_a_pluggable_embedder_is_used_and_recorded() -> None:
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder(dim=32))])
    nodes = conversation(store)
    assert store.recall("Lia green tea", k=1)[0].node == nodes["m-lia"].value
    assert store.follower(RECALL_INDEX, create=True).meta("embedder") == "hashing-32"


@pytest.mark.parametrize("question, start, end", [
    ("in May 2023", "2023-05-01", "2023-06-01"),
    ("what happened in May?", "2023-05-01", "2023-06-01"),
    ("last week", "2023-07-03", "2023-07-10"),
    ("yesterday", "2023-07-11", "2023-07-12"),
    ("on 2023-05-14", "2023-05-14", "2023-05-15"),
    ("2 days ago", "2023-07-10", "2023-07-11"),
    ("since March", "2023-03-01", "9999-12-31"),
    ("14 May 2022", "2022-05-14", "2022-05-15"),
    ("before June 2023", "0001-01-01", "2023-06-01"),
])
def test_time_expressions(question: str, start: str, end: str) -> None:
    (period,) = find_periods(question, datetime(2023, 7, 12, 12, tzinfo=UTC))
    assert (period.start.date().isoformat(), period.end.date().isoformat()) == (start, end)


@pytest.mark.parametrize("question", ["May I ask what Jan said?", "she may like tea", "two cats"])
def test_words_that_are_not_dates(question: str) -> None:
    assert find_periods(question, datetime(2023, 7, 12, tzinfo=UTC)) == []


def test_an_anchor_is_left_for_the_memory_to_date() -> None:
    (period,) = find_periods("what did we eat before the move?", datetime(2023, 7, 12, tzinfo=UTC))
    assert (period.anchor, period.relation) == ("the move", "before")
    assert period.resolved(None) is None
    assert period.resolved(at(5, 25)).end == at(5, 25)


def test_bad_arguments_are_refused() -> None:
    store = MemoryStore()
    with pytest.raises(ValueError, match="non-empty"):
        store.recall("  ")
    with pytest.raises(ValueError, match="at least 1"):
        store.recall("tea", k=0)
    with pytest.raises(ValueError, match="timezone"):
        store.recall("tea", valid_at=datetime(2023, 1, 1))
    with pytest.raises(ValueError, match="tenant"):
        store.recall("tea", tenant="not an iri")
    assert store.recall("tea") == []


def test_hit_to_dict_round_trips() -> None:
    hit = Hit(node=EX + "x", kind="Claim", score=0.5, text="t", signals={"lexical": 0.5}, status="superseded",
              successor=EX + "y", why=("subject: lia",))
    d = hit.to_dict()
    assert d["successor"] == EX + "y" and d["why"] == ["subject: lia"] and d["graph"] is None
    assert Hit.from_dict(d) == hit
    assert Hit.from_dict({**d, "something_new": 1}) == hit
    assert timedelta  # (imported for readers of the time tests)


@pytest.mark.parametrize("name", ["memkg.recall", "memkg.recall.embedder", "memkg.recall.timeexpr",
                                  "memkg.recall.index", "memkg.recall.ranking", "memkg.recall.documents",
                                  "memkg.recall.hits"])
def test_docstring_examples_of_the_recall_package(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
