"""Recall ranks a claim whose support fell as it ranks a superseded one, and says why."""

from __future__ import annotations

from memkg import MemoryStore
from memkg.provenance import withdraw
from tests.support.examples import EXAMPLES

ACME = "https://example.org/tenants/acme"
EX = "https://example.org/acme/"
QUESTION = "is the ledger migrating to postgres?"


def test_a_fallen_claim_is_ranked_as_superseded_and_says_its_support_fell() -> None:
    store = MemoryStore()
    store.load(EXAMPLES / "postgres-migration.trig")
    before = {h.node: h for h in store.recall(QUESTION, tenant=ACME, k=20)}
    withdraw(store, EX + "adr", reason="the decision record was withdrawn", graph=ACME)
    after = {h.node: h for h in store.recall(QUESTION, tenant=ACME, k=20)}
    migration = EX + "cMigration"
    assert before[migration].status == "current"
    fallen = after[migration]
    assert fallen.status == "fallen"
    assert any("support fell" in note for note in fallen.why)
    assert fallen.score < before[migration].score
    assert all(after[n].status != "fallen" for n in after if n not in {migration, EX + "cCutover", EX + "cSelection"})
