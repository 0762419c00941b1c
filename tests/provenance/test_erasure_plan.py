"""Erasure previewed: ``erasure_plan`` (``memkg erase --dry-run``) is the traversal ``erase`` carries
out, writes nothing, and names the claims a source would take with it."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore, erase, erasure_plan
from memkg.core.errors import NotFoundError
from memkg.core.vocab import mem
from memkg.provenance import erasure_plans

from tests.support.examples import EX, EXAMPLES, LIA, LIA_GRAPH, data_quads

ACME = "https://example.org/acme/"
ACME_GRAPH = "https://example.org/tenants/acme"


def _sources(store: MemoryStore, graph: str) -> list[NamedNode]:
    """Every message and claim of ``graph``: each a source someone may ask to erase."""
    found = {q.subject for kind in (mem.Message, mem.Claim)
             for q in store.quads(None, None, kind, NamedNode(graph)) if isinstance(q.subject, NamedNode)}
    return sorted(found, key=str)


@pytest.mark.parametrize(("example", "graph"), [(LIA, LIA_GRAPH), (EXAMPLES / "postgres-migration.trig", ACME_GRAPH)])
def test_the_plan_is_exactly_what_erase_then_removes_and_writes_nothing(example, graph) -> None:
    with MemoryStore() as probe:
        probe.load(example)
        sources = _sources(probe, graph)
    assert len(sources) > 5
    for source in sources:
        with MemoryStore() as store:
            store.load(example)
            before = data_quads(store)
            plan = erasure_plan(store, source, graph=graph)
            assert data_quads(store) == before, f"planning the erasure of {source} wrote"
            done = erase(store, source, reason="consent revoked", graph=graph)
            after = data_quads(store)
            assert (done.removed, done.kept) == (plan.removed, plan.kept), source
            assert set(plan.quads) == before - after and done.quads_removed == len(plan.quads), source
            assert done.plan == plan


def test_the_plan_names_the_claims_a_source_takes_with_it() -> None:
    with MemoryStore() as store:
        store.load(LIA)
        plan = erasure_plan(store, EX + "m52", graph=LIA_GRAPH)
        # c1 and c2 rest only on what m52 asserted: withdrawing m52 takes no support, erasing it takes them.
        assert [c.value for c in plan.claims] == [EX + "c1", EX + "c2"]
        assert plan.to_dict()["claims"] == [EX + "c1", EX + "c2"]
        assert [p.graph for p in erasure_plans(store, EX + "m52")] == [NamedNode(LIA_GRAPH)]
        assert erasure_plans(store, EX + "m52", tenant=ACME_GRAPH) == []
        with pytest.raises(NotFoundError, match="m52"):
            erasure_plan(store, EX + "m52")  # the default graph holds nothing about it
