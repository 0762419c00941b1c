"""Write validation judges a write as validating the whole store would.

:class:`memkg.validation.WriteValidator` does not validate the store: it copies the
write and the context it believes the shapes read (descriptions, types, chains,
event-id holders, part of the ontology) into a scratch store and validates the
touched nodes there. That belief is tested here against the truth: the randomized
memories of ``test_engines_differential`` are written case by case into one store,
each case in three writes, each quad in a random one (so that later writes lean on
earlier ones), and each write is judged twice, by the write validator and by the native
engine over the real store (the store as it is plus the write: everything it could
read), restricted to the same focus nodes. The two must give the same results.
"""

from __future__ import annotations

import random

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Triple, parse

from memkg import MemoryStore
from memkg.store import claim_index
from memkg.core.vocab import ONTOLOGY_GRAPH
from memkg.core.terms import has_blank
from memkg import validation
from memkg.validation import WriteValidator, validate_graphs, builtin_shapes, make_engine, tenant_graphs

from .test_engines_differential import PRELUDE, TENANTS, document

pytestmark = pytest.mark.slow

DOCUMENTS = 4
CASES = 30


def _in_graph(text: str, graph: str) -> str:
    return PRELUDE + (text if graph == "default" else f"GRAPH <{TENANTS[graph]}> {{\n{text}}}\n")


@pytest.mark.parametrize("scan", [False, True], ids=["as-configured", "always-scan"])
@pytest.mark.parametrize("index", range(DOCUMENTS))
def test_a_write_is_judged_as_the_whole_store_would_judge_it(index: int, scan: bool, monkeypatch) -> None:
    # Writes here are small, so they are judged node by node; "always-scan" makes every one
    # take the other road (WriteValidator.judge: scan the scratch store, keep the focus nodes').
    if scan:
        monkeypatch.setattr(validation.writes, "SCAN_FOCUS_LIMIT", 0)
        monkeypatch.setattr(validation.writes, "SCAN_QUADS_PER_FOCUS_NODE", 10**9)
    doc = document(index, n_cases=CASES)
    store = MemoryStore(validation=None)
    # What every case may lean on: the shared people (default graph), one entity per tenant.
    store.write(parse(doc.text.encode(), RdfFormat.TRIG))
    shared = [q for q in store.raw if not any(c.owns(q.subject) for c in doc.cases)]
    store = MemoryStore(validation=None)
    store.write(shared)
    validator, reference = WriteValidator("native"), make_engine("native", builtin_shapes())
    judged = 0
    rng = random.Random(index)
    for case in doc.cases:
        quads = list(parse(_in_graph(case.trig(), case.graph).encode(), RdfFormat.TRIG))
        # In three writes, each quad in a random one: later writes lean on earlier ones
        # (descriptions, types, chains, event ids), which only the context brings to the scratch store.
        # A blank node stays within one write: the write path takes a blank node it is given
        # as new (as a parser would make it), so a case with blank nodes is written whole.
        blank = any(has_blank(t) for q in quads for t in (q.subject, q.object))
        parts: list[list[Quad]] = [[], [], []]
        for q in quads:
            parts[0 if blank else rng.randrange(3)].append(q)
        for part, raw in enumerate(parts):
            batch = list(claim_index.with_index(raw))
            if not batch:
                continue
            focus = list({q.subject: None for q in batch if not isinstance(q.subject, Triple)})
            scratch, staged_focus, graphs = validator.stage(store.raw, batch)
            staged = {r.key() for r in validator.judge(scratch, staged_focus, graphs) if r.focus in focus}
            store.write(batch)
            truth = {r.key() for r in validate_graphs(reference, store.raw, graphs, focus)}
            assert staged == truth, (
                f"document {index}, case {case.index} ({', '.join(case.breaks) or 'clean'}) in {case.graph}, "
                f"write {part + 1} of 3:\nonly on the write path: {sorted(staged - truth)}\n"
                f"only on the whole store: {sorted(truth - staged)}"
            )
            judged += bool(truth)
    assert judged >= CASES // 4, "too few writes broke an invariant for the comparison to mean much"


def test_graphs_of_a_default_graph_write() -> None:
    # The reference above reads the graphs stage() chose; for a write into the default graph that is the default graph.
    _, _, graphs = WriteValidator("native").stage(MemoryStore(validation=None).raw, [
        Quad(NamedNode("https://example.org/x"), NamedNode("https://example.org/p"), NamedNode("https://example.org/y"))])
    assert graphs == [DefaultGraph()]


class _Recording:
    """A validator that judges every removal on the write path, records the verdict and refuses nothing."""

    streams = True

    def __init__(self) -> None:
        self.validator = WriteValidator("native")
        self.engine_name = "native"
        self.staged: tuple[set, list, list] | None = None

    def __call__(self, store: MemoryStore, batch, *, removed=()):  # type: ignore[no-untyped-def]
        if removed:
            scratch, focus, graphs = self.validator.stage(store.raw, list(batch), removed=removed)
            results = self.validator.judge(scratch, focus, graphs)
            self.staged = ({r.key() for r in results}, focus, graphs)
        return []


@pytest.mark.parametrize("index", range(2))
def test_a_removal_is_judged_as_the_whole_store_would_judge_it(index: int) -> None:
    """SPARQL DELETE and erasure remove quads: the write path must see every violation a removal
    creates (a vertex losing its type while a claim in another graph names it, a claim losing its
    only provenance, a group losing its last member), and report nothing the whole store would not."""
    doc = document(index, n_cases=CASES)
    store = MemoryStore(validation=None)
    store.write(parse(doc.text.encode(), RdfFormat.TRIG))
    recording = _Recording()
    store.validator = recording  # type: ignore[assignment]
    reference = make_engine("native", builtin_shapes())
    rng = random.Random(index)
    data = sorted((q for q in store.raw if not claim_index.is_index_quad(q) and q.graph_name != ONTOLOGY_GRAPH), key=str)
    typed = [q for q in data if q.predicate.value.endswith("#type")]
    linked = [q for q in data if q.predicate.value.rsplit("#", 1)[-1] in (
        "reifies", "assertedBy", "member", "supportedBy", "supportGroup", "wasDerivedFrom", "eventId", "validUntil")]
    # Shared vertices (typed in the default graph) that a tenant's triples name: their referrers live elsewhere.
    shared = [q for q in typed if q.graph_name == DefaultGraph()
              and any(r.graph_name != DefaultGraph() for r in store.raw.quads_for_pattern(None, None, q.subject, None))]
    assert shared
    created = 0
    for k in range(16):
        removed = rng.sample(typed, k=rng.randint(1, 2)) + rng.sample(linked, k=rng.randint(0, 2))
        if k % 2:
            removed = [rng.choice(shared), *removed[1:]]
        recording.staged = None
        graphs = tenant_graphs(store.raw)
        before = {r.key() for r in validate_graphs(reference, store.raw, graphs, None)}
        store.change(remove=removed)
        assert recording.staged is not None
        staged, focus, _graphs = recording.staged
        after = {r.key() for r in validate_graphs(reference, store.raw, tenant_graphs(store.raw), None)}
        new = after - before
        assert new <= staged, f"a removal of {removed} created violations the write path missed: {sorted(new - staged)}"
        judged = {str(n) for n in focus or ()}
        truth = {k for k in after if focus is None or k[0] in judged}  # the whole store's, on the judged nodes
        assert staged == truth, (
            f"removing {removed}, focus {sorted(judged)}:\nonly on the write path: {sorted(staged - truth)}\n"
            f"only on the whole store: {sorted(truth - staged)}"
        )
        created += bool(new)
        store.write(removed)  # back as it was, for the next removal
    assert created >= 3, "too few removals broke an invariant for the comparison to mean much"
