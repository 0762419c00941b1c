"""The claim index: written with the data, consistent, and its check catches drift."""

from __future__ import annotations

from pyoxigraph import DefaultGraph, NamedNode, Quad

from memkg import MemoryStore
from memkg.core.vocab import memx

from tests.support.examples import EX, LIA_GRAPH


def test_every_reifier_in_the_example_is_indexed(lia_store: MemoryStore) -> None:
    report = lia_store.check_index()
    assert report.consistent, report
    reifiers = {q.subject for q in lia_store.quads(None, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"), None)}
    indexed = {q.subject for q in lia_store.quads(None, memx.subject, None, with_index=True)}
    assert reifiers == indexed and len(reifiers) == 8  # 6 claims + 2 occurrences


def test_the_index_answers_claims_about_a_subject(lia_store: MemoryStore) -> None:
    rows = lia_store.query(
        f"SELECT ?c WHERE {{ GRAPH ?g {{ ?c <https://w3id.org/memkg/index#subject> <{EX}Lia> }} }}"
    )
    assert {r["c"].value for r in rows} == {EX + c for c in ("c0", "c1", "c2", "cName0", "cName1", "idc1")}


def test_check_reports_missing_and_orphaned_index_triples(lia_store: MemoryStore) -> None:
    g = NamedNode(LIA_GRAPH)
    c0 = NamedNode(EX + "c0")
    # Tamper below the API: drop one index triple, add a stray one.
    (subject_quad,) = list(lia_store.raw.quads_for_pattern(c0, memx.subject, None, g))
    lia_store.raw.remove(subject_quad)
    lia_store.raw.add(Quad(NamedNode(EX + "ghost"), memx.object, NamedNode(EX + "x"), g))
    report = lia_store.check_index()
    assert (LIA_GRAPH, EX + "c0", "subject") in [(gr.strip("<>"), r.strip("<>"), p) for gr, r, p in report.missing]
    assert (LIA_GRAPH, EX + "ghost", "object") in [(gr.strip("<>"), r.strip("<>"), p) for gr, r, p in report.orphaned]
    lia_store.rebuild_index()
    assert lia_store.check_index().consistent


def test_default_graph_reifiers_are_indexed_too(store: MemoryStore) -> None:
    store.load_data(
        'VERSION "1.2" <http://e/c> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <http://e/s> <http://e/p> "o" )>> .',
        format="turtle",
    )
    assert store.check_index().consistent
    default = DefaultGraph()
    assert len(list(store.quads(graph=default, with_index=True))) - len(list(store.quads(graph=default))) == 3
