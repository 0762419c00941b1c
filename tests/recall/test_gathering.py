"""Recall reads the sessions where its best hits gather: a question that needs an inference ("would
Mel enjoy Vivaldi?") lifts the turns of the conversation about its topic, the one sharing none of its
words included, above equally matched turns of other conversations."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memkg import Episode, MemoryStore, Message, Vertex
from memkg.recall import HashingEmbedder, RecallConfig, recall, recall_index
from memkg.core.vocab import mem

EX = "https://example.org/"
TENANT = EX + "tenants/sessions"
MEL, CARA = EX + "mel", EX + "cara"

# The first conversation (the MUSIC turns) is about songs; its last turn says what Mel listens to
# in words the question lacks.
# The second conversation is about other things (its last turn shares a word of the question, "enjoy").
MUSIC = [
    (CARA, "Which songs do you play on a long drive?"),
    (MEL, "Loud songs, always loud songs on a long drive."),
    (CARA, "Songs help me relax after work too."),
    (MEL, "Same here."),
    (CARA, "Anything else on your shelf?"),
    (MEL, "Honestly I am a fan of classical records: Bach and Mozart."),
]
GARDEN = [
    (CARA, "How is the garden doing?"),
    (MEL, "The tomatoes are finally red."),
    (CARA, "The weather was grey all week."),
    (MEL, "Same here."),
    (CARA, "Anything new on your porch?"),
    (MEL, "Honestly I enjoy clay planters: terracotta and stone."),
]
QUESTION = "Would Mel enjoy the songs of Vivaldi?"


@pytest.fixture(scope="module")
def store() -> MemoryStore:
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    store.add_all([Vertex(id=MEL, cls=mem.Person, display_name="Mel"),
                   Vertex(id=CARA, cls=mem.Person, display_name="Cara")], graph=TENANT)
    for number, said in enumerate((MUSIC, GARDEN), 1):
        when = datetime(2023, 5, number * 10, 12, tzinfo=timezone.utc)
        episode = EX + f"session-{number}"
        store.add(Episode(id=episode, participants=[MEL, CARA], event_time=when), graph=TENANT)
        for at, (sender, text) in enumerate(said, 1):
            store.add(Message(id=f"{EX}s{number}-{at}", content=text, sender=sender, event_time=when,
                              event_id=f"s{number}-{at}", episode=episode), graph=TENANT)
    yield store
    store.close()


def place(hits, node: str) -> int:
    return [h.node for h in hits].index(node)


MUSIC_FAN, TOMATOES = EX + "s1-6", EX + "s2-2"  # Mel's turns that share no word of the question
FOCUSED = RecallConfig(session_focus=1.0, focus_hits=4)
NOTE = "in an episode holding "


def test_the_session_of_the_best_hits_lifts_its_turns_above_equal_turns_of_other_sessions(store) -> None:
    plain = recall(store, QUESTION, tenant=TENANT, k=12, config=RecallConfig(session_focus=0.0))
    focused = recall(store, QUESTION, tenant=TENANT, k=12, config=FOCUSED)
    # Both turns are Mel's and match only by sender and vector; the songs session holds the best hits.
    assert set(next(h for h in plain if h.node == MUSIC_FAN).signals) == \
        set(next(h for h in plain if h.node == TOMATOES).signals)
    assert place(plain, MUSIC_FAN) > place(plain, TOMATOES)
    assert place(focused, MUSIC_FAN) < place(focused, TOMATOES)
    assert any(w.startswith(NOTE) for w in next(h for h in focused if h.node == MUSIC_FAN).why)
    assert not any(w.startswith(NOTE) for h in focused if h.node.startswith(EX + "s2-") for w in h.why)


def test_session_focus_multiplies_so_a_session_keeps_its_own_order(store) -> None:
    plain = recall(store, QUESTION, tenant=TENANT, k=12, config=RecallConfig(session_focus=0.0))
    focused = recall(store, QUESTION, tenant=TENANT, k=12, config=FOCUSED)
    assert not any(w.startswith(NOTE) for h in plain for w in h.why)
    songs = [h.node for h in plain if h.node.startswith(EX + "s1-")]
    assert [h.node for h in focused if h.node.startswith(EX + "s1-")] == songs
    before = {h.node: h.score for h in plain}
    assert all(h.score > before[h.node] for h in focused if h.node.startswith(EX + "s1-"))
    assert all(h.score == pytest.approx(before[h.node]) for h in focused if h.node.startswith(EX + "s2-"))


def test_one_best_hit_alone_in_its_session_is_no_gathering(store) -> None:
    plain = recall(store, "tomatoes", tenant=TENANT, k=10, config=RecallConfig(session_focus=0.0))
    focused = recall(store, "tomatoes", tenant=TENANT, k=10, config=RecallConfig(session_focus=1.0, focus_hits=1))
    assert [h.node for h in focused] == [h.node for h in plain]
    assert not any(w.startswith(NOTE) for h in focused for w in h.why)
