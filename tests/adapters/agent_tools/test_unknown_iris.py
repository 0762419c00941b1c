"""The agent tools refuse to explain, list or forget what the caller's memory does not hold, naming
the IRI, the scope and the nearest IRIs the caller may read; without a tenant, one rule finds the
node's graph."""

from __future__ import annotations

import pytest

from memkg import MemoryStore
from memkg.adapters.agent_tools.tools import MemoryTools, refusal
from memkg.guard.access import OPEN, Grant
from pyoxigraph import NamedNode

from tests.support.examples import EX, LIA, LIA_GRAPH

ACME, ACME_NS = "https://example.org/tenants/acme", "https://example.org/acme/"


@pytest.fixture
def tools() -> MemoryTools:
    store = MemoryStore()
    store.load(LIA, LIA.with_name("postgres-migration.trig"))
    return MemoryTools(store)


def refused(call) -> str:
    with pytest.raises(Exception) as caught:
        call()
    return str(refusal(caught.value))


def test_explaining_an_unknown_claim_names_it_the_scope_and_the_nearest(tools: MemoryTools) -> None:
    text = refused(lambda: tools.explain(OPEN, claim=ACME_NS + "cMigraton"))
    assert text == (f"not found in your memory: {ACME_NS}cMigraton is in no graph of the scope "
                    f"(every graph you may read); nearest known: {ACME_NS}cMigration")
    lia_only = Grant(frozenset({NamedNode(LIA_GRAPH)}), write=True)
    text = refused(lambda: tools.explain(lia_only, claim=ACME_NS + "cMigraton"))
    assert f"(tenant {LIA_GRAPH} and the shared default graph)" in text and "nearest" not in text


def test_listing_the_claims_about_an_unknown_subject_is_refused(tools: MemoryTools) -> None:
    text = refused(lambda: tools.claims(OPEN, "current", subject=EX + "Lai"))
    assert f"{EX}Lai is in no graph of the scope" in text and f"nearest known: {EX}Lia" in text
    assert tools.claims(OPEN, "current", subject=EX + "Lia")["claims"]


def test_forgetting_without_a_tenant_acts_in_the_source_s_tenant(tools: MemoryTools) -> None:
    done = tools.forget(OPEN, target=ACME_NS + "adr", reason="revisited")
    assert ACME_NS + "cMigration" in done["fallen"]
    assert any(tools.store.quads(None, None, NamedNode(ACME_NS + "adr"), NamedNode(ACME)))
    text = refused(lambda: tools.forget(OPEN, target=ACME_NS + "nothing", erase=True, reason="consent revoked"))
    assert text.startswith(f"not found in your memory: {ACME_NS}nothing is in no graph of the scope")
