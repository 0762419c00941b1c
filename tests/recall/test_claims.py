"""Claims in recall: found by what a question asks of their subject, and claims about different
people stay different hits."""

from __future__ import annotations

from pyoxigraph import NamedNode

from memkg import Claim, MemoryStore, Message, Predicate, Vertex, mem
from memkg.recall import HashingEmbedder, recall, recall_index

EX = "https://example.org/"


def _memory() -> tuple[MemoryStore, dict[str, NamedNode]]:
    store = MemoryStore(followers=[recall_index(embedder=HashingEmbedder(dim=64))])
    store.add_all([
        Vertex(id=EX + "sam", cls=mem.Person, display_name="Sam Okafor"),
        Vertex(id=EX + "lia", cls=mem.Person, display_name="Lia Chen"),
        Vertex(id=EX + "x1", display_name="ThinkPad X1"),
        Vertex(id=EX + "zoe", display_name="Renault Zoe"),
        Predicate(id=EX + "owns", label="owns"),
        Predicate(id=EX + "drives", label="drives"),
    ])
    said = store.add(Message(content="Finally set up my new laptop, the keyboard is lovely", sender=EX + "sam"))
    told = store.add(Message(content="Lia has one of those too, and Sam drives to work", sender=EX + "lia"))
    claims = {
        "sam-x1": store.add(Claim(subject=EX + "sam", predicate=EX + "owns", object=NamedNode(EX + "x1"),
                                  asserted_by=said)),
        "lia-x1": store.add(Claim(subject=EX + "lia", predicate=EX + "owns", object=NamedNode(EX + "x1"),
                                  asserted_by=told)),
        "sam-zoe": store.add(Claim(subject=EX + "sam", predicate=EX + "drives", object=NamedNode(EX + "zoe"),
                                   asserted_by=told)),
    }
    return store, claims


def test_two_people_holding_the_same_claim_are_two_hits() -> None:
    store, claims = _memory()
    hits = recall(store, "who owns a ThinkPad X1?", k=5)
    nodes = [h.node for h in hits]
    assert claims["sam-x1"].value in nodes and claims["lia-x1"].value in nodes


def test_a_question_naming_its_subject_reaches_the_claim_about_what_it_asks() -> None:
    store, claims = _memory()
    for question, answer in (("What does Sam drive?", "sam-zoe"), ("What does Sam own?", "sam-x1")):
        hits = recall(store, question, k=3)
        assert claims[answer].value in [h.node for h in hits]
        assert all(h.node != claims["lia-x1"].value for h in hits[:1])  # Lia's claim is no answer about Sam
