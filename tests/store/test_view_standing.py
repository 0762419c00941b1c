"""The standing column of the current, historical and audit views, and the filter on it.

A claim's standing (docs/contract.md section 4) is what memkg.provenance.support() computes:
supported, fallen (every support group lost a member to a withdrawal, through echoes and through
claims that fell in turn) or unrecorded. Withdrawing a source leaves its claims known, so they stay
in the views, marked fallen.
"""

from __future__ import annotations

import pytest

from memkg import MemoryStore
from memkg.provenance import support, withdraw
from tests.support.examples import EXAMPLES, LIA as LIA_FILE

ACME_FILE = EXAMPLES / "postgres-migration.trig"

ACME = "https://example.org/tenants/acme"
EX = "https://example.org/acme/"
#: What withdrawing ADR-017 fells: both of cMigration's groups need it, cCutover's legs echo it,
#: and cSelection rests on cMigration.
FELLED = {EX + "cMigration", EX + "cCutover", EX + "cSelection"}
PAST = "2026-02-15T00:00:00Z"


@pytest.fixture(scope="module")
def memory() -> MemoryStore:
    store = MemoryStore()
    store.load(ACME_FILE)
    store.load(LIA_FILE)
    return store


@pytest.fixture(scope="module")
def withdrawn(memory: MemoryStore) -> MemoryStore:
    store = MemoryStore()
    store.load(ACME_FILE)
    store.load(LIA_FILE)
    withdraw(store, EX + "adr", reason="the decision record was withdrawn", graph=ACME)
    return store


def standings(store: MemoryStore, view: str, params: dict[str, str]) -> dict[str, str]:
    return {row["claim"].value: row["standing"].value for row in store.view(view, params)}


VIEWS = [("current", {}), ("historical", {"valid_at": PAST}), ("audit", {"known_at": "2100-01-01T00:00:00Z",
                                                                         "valid_at": PAST})]


@pytest.mark.parametrize(("view", "params"), VIEWS, ids=[v for v, _ in VIEWS])
def test_every_row_carries_the_standing_that_support_computes(memory: MemoryStore, withdrawn: MemoryStore,
                                                              view: str, params: dict[str, str]) -> None:
    wording = {"supported": "supported", "unsupported": "fallen", "unrecorded": "unrecorded"}
    for store in (memory, withdrawn):
        rows = standings(store, view, params)
        assert rows
        assert rows == {claim: wording[support(store, claim).status] for claim in rows}


@pytest.mark.parametrize(("view", "params"), VIEWS, ids=[v for v, _ in VIEWS])
def test_withdrawing_a_source_marks_the_claims_resting_on_it_fallen_and_keeps_them(
        memory: MemoryStore, withdrawn: MemoryStore, view: str, params: dict[str, str]) -> None:
    before, after = standings(memory, view, params), standings(withdrawn, view, params)
    assert before.keys() == after.keys()
    assert {c for c, s in after.items() if s == "fallen"} == FELLED
    assert all(before[c] == "supported" for c in FELLED)
    assert {c: s for c, s in after.items() if c not in FELLED} == {c: s for c, s in before.items() if c not in FELLED}


@pytest.mark.parametrize("subject", [None, EX + "ledger"], ids=["whole store", "one subject"])
@pytest.mark.parametrize("standing", ["supported", "fallen", "unrecorded"])
def test_the_standing_parameter_keeps_the_rows_of_that_standing(withdrawn: MemoryStore, standing: str,
                                                                subject: str | None) -> None:
    about = {"subject": subject} if subject else {}
    every = standings(withdrawn, "current", about)
    kept = standings(withdrawn, "current", {**about, "standing": standing})
    assert kept == {c: s for c, s in every.items() if s == standing}


def test_both_shapes_of_a_view_give_the_same_standings(withdrawn: MemoryStore) -> None:
    whole = standings(withdrawn, "current", {"tenant": ACME})
    for subject in (EX + "ledger", EX + "postgres", EX + "mysqlImporter"):
        assert standings(withdrawn, "current", {"tenant": ACME, "subject": subject}).items() <= whole.items()


def test_an_audit_before_the_withdrawal_was_recorded_sees_the_claims_supported(withdrawn: MemoryStore) -> None:
    rows = standings(withdrawn, "audit", {"known_at": "2026-03-01T00:00:00Z", "tenant": ACME})
    assert all(rows[c] == "supported" for c in FELLED)


def test_a_standing_the_contract_does_not_name_is_refused(withdrawn: MemoryStore) -> None:
    with pytest.raises(ValueError, match="standing='gone' is not one of supported, fallen, unrecorded"):
        withdrawn.view("current", {"standing": "gone"})
