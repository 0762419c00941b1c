"""Recall over a dialogue between two people: whose fact a question asks about, the answer in the
turn after the question, dates said relative to the session, and saying when nothing matched.

The dialogue is written as an agent writes one: a person per speaker, an episode per session, each
turn a message with its sender and episode, every turn of a session carrying the session's time.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from pyoxigraph import NamedNode

from memkg import Episode, MemoryStore, Message, Vertex
from memkg.adapters.cli import main
from memkg.recall import RECALL_INDEX, HashingEmbedder, Hits, RecallAnswer, answer, recall_index
from memkg.recall.documents import mentioned_span
from memkg.core.vocab import mem

EX = "https://example.org/"
TENANT = EX + "tenants/dialogue"
LIA, BEN = EX + "lia", EX + "ben"
MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
JUNE_20 = datetime(2023, 6, 20, 18, tzinfo=timezone.utc)

SESSIONS = [
    (MAY_8, [
        (LIA, "Hey Ben! Good to see you, how have you been?"),
        (BEN, "Thanks Lia! I bought a red kayak for the lake, paddling every weekend."),
        (LIA, "I went to a pottery class yesterday and made two bowls."),
        (BEN, "So which music do you love the most these days?"),
        (LIA, "Jazz, without a doubt: saxophone records every evening."),
        (BEN, "Nice. The weather has been grey all week."),
    ]),
    (JUNE_20, [
        (LIA, "I finally repaired the garden fence."),
        (BEN, "My sister visited and we cooked dumplings together."),
        (LIA, "The neighbours are loud again tonight."),
    ]),
]


def write_dialogue(store: MemoryStore) -> dict[str, NamedNode]:
    """The dialogue, one write per turn; its messages by their first words."""
    store.add_all([Vertex(id=LIA, cls=mem.Person, display_name="Lia"),
                   Vertex(id=BEN, cls=mem.Person, display_name="Ben")], graph=TENANT)
    turns: dict[str, NamedNode] = {}
    for number, (when, said) in enumerate(SESSIONS, 1):
        episode = EX + f"session-{number}"
        store.add(Episode(id=episode, participants=[LIA, BEN], event_time=when), graph=TENANT)
        for at, (sender, text) in enumerate(said, 1):
            turns[" ".join(text.split()[:2])] = store.add(
                Message(content=text, sender=sender, event_time=when, event_id=f"s{number}-{at}", episode=episode),
                graph=TENANT)
    return turns


@pytest.fixture(scope="module")
def dialogue() -> tuple[MemoryStore, dict[str, NamedNode]]:
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    turns = write_dialogue(store)
    yield store, turns
    store.close()


def nodes(hits: Hits) -> list[str]:
    return [h.node for h in hits]


def test_a_question_about_one_speaker_ranks_their_turn_above_the_other_one_naming_them(dialogue) -> None:
    store, turns = dialogue
    hits = store.recall("What did Lia buy for the lake?", tenant=TENANT, k=5)
    # Ben's turn says "Lia" (he thanks her) and has the words; it is still his kayak. Asked
    # about Ben, his turn comes first; asked about Lia, none of her turns is outranked by a
    # turn that only names her.
    about_ben = store.recall("What did Ben buy for the lake?", tenant=TENANT, k=5)
    assert about_ben[0].node == turns["Thanks Lia!"].value
    assert "sender: ben" in about_ben[0].why
    assert hits.matched


def test_the_answer_in_the_turn_after_the_question_is_found_through_it(dialogue) -> None:
    store, turns = dialogue
    # Ben's question shares the words ("music", "love"); Lia's answer shares none of them.
    hits = store.recall("Which music does Lia love the most?", tenant=TENANT, k=3)
    answer_turn = turns["Jazz, without"].value
    assert answer_turn in nodes(hits)
    found = next(h for h in hits if h.node == answer_turn)
    assert "graph" in found.signals
    assert f"turn after {turns['So which'].value}" in found.why


def test_turns_of_one_session_are_neighbours_by_their_place_even_with_one_shared_time(dialogue) -> None:
    store, turns = dialogue
    index = store.follower(RECALL_INDEX, create=True)
    doc = index.documents([index.find(turns["So which"].value, TENANT)])
    (row,) = doc.values()
    near = {link: d for d, link in index.neighbours(row, TENANT)}
    found = index.documents(list(near.values()))
    assert {link: str(found[d]["node"]) for link, d in near.items()} == {
        "turn before": turns["I went"].value, "turn after": turns["Jazz, without"].value}


def test_a_date_said_relative_to_the_session_is_read_against_the_session_time(dialogue) -> None:
    store, turns = dialogue
    # "yesterday", said on 8 May 2023, is 7 May 2023.
    hits = store.recall("What did Lia do on 7 May 2023?", tenant=TENANT, k=3)
    assert hits[0].node == turns["I went"].value
    assert any(w.startswith("in ") and "7 May 2023" in w for w in hits[0].why)
    start, end = mentioned_span("I went to a pottery class yesterday", MAY_8.timestamp())
    assert (datetime.fromtimestamp(start, timezone.utc).date().isoformat(),
            datetime.fromtimestamp(end, timezone.utc).date().isoformat()) == ("2023-05-07", "2023-05-08")
    assert mentioned_span("no date here", MAY_8.timestamp()) is None
    assert mentioned_span("yesterday", None) is None


def test_a_question_nothing_in_memory_matches_says_so(dialogue) -> None:
    store, _ = dialogue
    hits = store.recall("Quantum chromodynamics lecture notes?", tenant=TENANT, k=3)
    assert isinstance(hits, Hits) and isinstance(hits, list)
    assert hits and not hits.matched
    assert all(set(h.signals) <= {"vector", "graph"} for h in hits)
    found = answer(store, "Quantum chromodynamics lecture notes?", tenant=TENANT, k=3)
    assert found.matched is False and found.to_dict()["matched"] is False
    assert "nothing in memory matched" in found.to_text()
    assert answer(store, "Who repaired the garden fence?", tenant=TENANT, k=3).to_dict()["matched"] is True


def test_hits_still_behave_as_the_list_callers_use() -> None:
    hits = Hits([], query="q", matched=False)
    assert hits == [] and len(hits) == 0 and not hits.matched
    assert RecallAnswer("q", (), matched=False).to_text().strip() == "no hits"


def test_the_command_line_says_when_nothing_matched(tmp_path, capsys) -> None:
    store = MemoryStore(tmp_path / "memory")
    write_dialogue(store)
    store.close()
    assert main(["recall", "Quantum chromodynamics lecture notes?", "--store", str(tmp_path / "memory"),
                 "--tenant", TENANT, "--k", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] is False
    assert main(["recall", "Quantum chromodynamics lecture notes?", "--store", str(tmp_path / "memory"),
                 "--tenant", TENANT, "--k", "2"]) == 0
    assert "nothing in memory matched" in capsys.readouterr().out
    assert main(["recall", "Who repaired the garden fence?", "--store", str(tmp_path / "memory"),
                 "--tenant", TENANT, "--k", "2"]) == 0
    assert "nothing in memory matched" not in capsys.readouterr().out


def test_a_period_the_example_memory_does_not_have_is_no_match(tmp_path, capsys) -> None:
    """The examples hold January to March 2026: "May 2023" matches nothing, whatever the vector signal finds."""
    from tests.support.examples import LIA as LIA_FILE
    from tests.support.endpoint_server import POSTGRES

    store = str(tmp_path / "examples")
    assert main(["load", str(LIA_FILE), str(POSTGRES), "--store", store]) == 0
    capsys.readouterr()
    assert main(["recall", "what changed in May 2023?", "--store", store, "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["matched"] is False and found["hits"]
    assert all(set(h["signals"]) == {"vector"} for h in found["hits"])
    assert main(["recall", "what changed in May 2023?", "--store", store]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "nothing in memory matched: the hits are only the nearest by meaning (vector signal alone)")
    assert main(["recall", "what changed in February 2026?", "--store", store, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] is True  # a period it has
