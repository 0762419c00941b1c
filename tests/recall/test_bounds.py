"""Recall at its bounds: ``k`` of one, and a claim's validity half-open, [validFrom, validUntil)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from pyoxigraph import NamedNode

from memkg import Claim, MemoryStore, Message, Predicate, Vertex, mem
from tests.support.valid_time import A, END_IDS, ENDS, EX, lia_likes_tea

UTC = timezone.utc


def test_recall_k_of_one_is_one_hit_and_zero_is_refused() -> None:
    store = MemoryStore()
    store.add_all([Message(id=EX + f"m{i}", content=f"tea time number {i}", event_id=str(i)) for i in range(3)])
    assert len(store.recall("tea time", k=1)) == 1
    with pytest.raises(ValueError, match="k must be at least 1"):
        store.recall("tea time", k=0)


@pytest.mark.parametrize("at, inside", ENDS, ids=END_IDS)
def test_valid_time_is_half_open_in_recall(dated, at: datetime, inside: bool) -> None:
    store, claim = dated
    (hit,) = [h for h in store.recall("Lia drinks tea", tenant=A, k=20, valid_at=at) if h.node == claim.value]
    assert (hit.status == "current") is inside, hit.status


def test_recall_a_claim_at_exactly_its_valid_until_is_no_longer_current() -> None:
    ex = "https://example.org/planted/"
    store = MemoryStore()
    until = datetime(2023, 6, 1, tzinfo=UTC)
    store.add_all([Vertex(id=ex + "lia", cls=mem.Person, display_name="Lia"), Predicate(id=ex + "drinks", label="drinks"),
                   Vertex(id=ex + "coffee", display_name="coffee"),
                   Message(id=ex + "m", content="Lia drinks coffee", event_id="1")])
    claim = store.add(Claim(subject=ex + "lia", predicate=ex + "drinks", object=NamedNode(ex + "coffee"),
                            asserted_by=ex + "m", valid_until=until))

    def status(valid_at: datetime) -> str:
        (hit,) = [h for h in store.recall("Lia drinks coffee", k=20, valid_at=valid_at) if h.node == claim.value]
        return hit.status

    assert status(datetime(2023, 5, 31, 23, 59, 59, tzinfo=UTC)) == "current"
    assert status(until) == "not-valid", "validity is [from, until): the until instant is outside"


def test_recall_status_of_a_claim_at_its_valid_from_and_valid_until() -> None:
    start, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    store, claim = lia_likes_tea(start, end)

    def status(at: datetime) -> str:
        (hit,) = [h for h in store.recall("Lia likes tea", k=20, valid_at=at) if h.node == claim.value]
        return hit.status

    second = timedelta(seconds=1)
    assert status(start - second) == "not-valid"
    assert status(start) == "current"
    assert status(end - second) == "current"
    assert status(end) == "not-valid"
