"""The historical and audit views at the ends of a claim's times: valid time is half-open,
[validFrom, validUntil), and a claim is known from the instant it was recorded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memkg import mem
from tests.support.valid_time import A, END_IDS, ENDS, FROM, TENANT_A, iso, lia_likes_tea


@pytest.mark.parametrize("at, inside", ENDS, ids=END_IDS)
def test_valid_time_is_half_open_in_the_historical_view(dated, at: datetime, inside: bool) -> None:
    store, claim = dated
    rows = store.view("historical", {"tenant": A, "valid_at": iso(at)})
    assert (claim in [r["claim"] for r in rows]) is inside


def test_transaction_time_a_claim_is_known_from_the_instant_it_was_recorded(dated) -> None:
    store, claim = dated
    (q,) = store.quads(claim, mem.recordedAt)
    recorded = datetime.fromisoformat(q.object.value.replace("Z", "+00:00"))
    def known(at: datetime) -> bool:
        return claim in [r["claim"] for r in store.view("audit", {"tenant": A, "known_at": iso(at),
                                                                       "valid_at": iso(FROM)})]
    step = timedelta(microseconds=1)
    assert known(recorded) and known(recorded + step)
    assert not known(recorded - step)


def test_the_historical_view_holds_a_claim_from_its_valid_from_until_just_before_its_valid_until() -> None:
    start, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    store, claim = lia_likes_tea(start, end)

    def holds(at: datetime) -> bool:
        return claim in [r["claim"] for r in store.view("historical", {"tenant": TENANT_A, "valid_at": at.isoformat()})]

    second = timedelta(seconds=1)
    assert [holds(start - second), holds(start), holds(end - second), holds(end)] == [False, True, True, False]
