"""Claim extraction baselines (memkg.loading.extraction): splitting, flags, abstention, PROV records."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, Message, NotFoundError
from memkg.loading import extraction as X
from memkg import provenance as P
from memkg.validation import validate_store
from memkg.core.vocab import mem, prov, rdf

T = "https://example.org/tenants/acme"


def texts(pieces) -> list[str]:
    return [p.text for p in pieces]


def test_sentences_respect_abbreviations_and_decimals() -> None:
    text = "Dr. Smith ran it, e.g. on Postgres 16.2 at 1.4x speed. It helped! Did it? yes."
    pieces = X.SENTENCES.split(text)
    assert texts(pieces) == ["Dr. Smith ran it, e.g. on Postgres 16.2 at 1.4x speed", "It helped", "Did it? yes"]
    assert all(text[p.start : p.end] == p.text for p in pieces)


def test_constrained_splits_clauses_not_noun_phrases() -> None:
    assert texts(X.CONSTRAINED.split("Postgres is faster, but the import lost rows.")) == [
        "Postgres is faster", "the import lost rows",
    ]
    assert texts(X.CONSTRAINED.split("The team benchmarked Postgres and the importer dropped rows.")) == [
        "The team benchmarked Postgres", "the importer dropped rows",
    ]
    assert texts(X.CONSTRAINED.split("Lia likes tea and coffee.")) == ["Lia likes tea and coffee"]
    assert texts(X.CONSTRAINED.split("Rollback is scripted; the runbook is done.")) == [
        "Rollback is scripted", "the runbook is done",
    ]


def test_constrained_splits_causal_joints_and_flags_them() -> None:
    pieces = X.CONSTRAINED.split("We chose Postgres because the benchmark showed higher throughput.")
    assert [(p.text, p.flags) for p in pieces] == [
        ("We chose Postgres", frozenset({"causal"})),
        ("the benchmark showed higher throughput", frozenset({"causal"})),
    ]
    # "so that" is purpose, not cause
    assert len(X.CONSTRAINED.split("We added an index so that reads are fast.")) == 1


def test_constrained_keeps_conditionals_and_attributions_whole() -> None:
    [cond] = X.CONSTRAINED.split("If the import fails, we roll back and page the on-call.")
    assert cond.flags == {"conditional"} and cond.text.startswith("If the import fails")
    [attr] = X.CONSTRAINED.split("Sam said MySQL is fine and the importer can be fixed.")
    assert attr.flags == {"attribution"}
    [acc] = X.CONSTRAINED.split("According to the wiki, the cutover is on Friday.")
    assert acc.flags == {"attribution"}


def test_negation_is_flagged() -> None:
    pieces = X.CONSTRAINED.split("The importer didn't lose data, but the index is not rebuilt.")
    assert [p.flags for p in pieces] == [frozenset({"negation"}), frozenset({"negation"})]
    assert X.CONSTRAINED.split("Tea without sugar is fine.")[0].flags == frozenset()


def test_abstaining_refuses_unresolved_references_instead_of_inventing() -> None:
    pieces = X.ABSTAINING.split("Postgres is faster. Its behaviour changed. This needs a rerun.")
    assert texts(p for p in pieces if isinstance(p, X.Span)) == ["Postgres is faster"]
    refused = [p for p in pieces if isinstance(p, X.Abstention)]
    assert texts(refused) == ["Its behaviour changed", "This needs a rerun"]
    assert refused[0].reason == "unresolved reference: 'Its'"
    # The non-abstaining splitters would have made a claim of it.
    assert "Its behaviour changed" in texts(X.CONSTRAINED.split("Its behaviour changed."))


def test_splitting_is_deterministic() -> None:
    text = "We moved because the importer lost rows; the rerun agreed. If it fails, we roll back."
    for extractor in (X.SENTENCES, X.CONSTRAINED, X.ABSTAINING):
        assert extractor.split(text) == extractor.split(text)


@pytest.fixture
def store_with_message() -> tuple[MemoryStore, NamedNode]:
    store = MemoryStore()
    m = store.add(
        Message(content="We chose Postgres because the benchmark was faster. Its behaviour changed.", event_id="m1"),
        graph=T,
    )
    return store, m


def test_extract_records_prov_with_extractor_name_and_version(store_with_message) -> None:
    store, m = store_with_message
    result = X.extract(store, m, extractor=X.ABSTAINING, graph=T)
    assert len(result.claims) == 2 and len(result.abstentions) == 1  # the abstention writes nothing
    g = NamedNode(T)
    assert any(store.quads(result.extractor, rdf.type, mem.Extractor, g))
    assert next(store.quads(result.extractor, mem.version, None, g)).object == Literal("1.0.0")
    assert {q.object for q in store.quads(result.extraction, prov.used, None, g)} == {m}
    assert {q.object for q in store.quads(result.extraction, prov.wasAssociatedWith, None, g)} == {result.extractor}
    for claim, span in zip(result.claims, result.spans):
        triple = next(store.quads(claim, rdf.reifies, None, g)).object
        assert (triple.subject, triple.predicate, triple.object) == (m, X.STATES, Literal(span.text))
        assert {q.object for q in store.quads(claim, prov.wasGeneratedBy, None, g)} == {result.extraction}
        assert {q.object for q in store.quads(claim, mem.supportedBy, None, g)} == {m}
        assert {q.object for q in store.quads(claim, mem.assertedBy, None, g)} == {m}
        assert next(store.quads(claim, mem.extractionConfidence, None, g)).object.value == "0.7"
        assert not any(store.quads(claim, mem.confidence, None, g))  # extraction never sets belief
    assert validate_store(store).conforms


def test_extracted_claims_fall_when_their_message_is_withdrawn(store_with_message) -> None:
    store, m = store_with_message
    result = X.extract(store, m, graph=T)
    assert set(P.dependents(store, m, tenant=T)) == set(result.claims)


def test_flags_are_returned_only_while_the_ontology_lacks_the_term(store_with_message) -> None:
    store, m = store_with_message
    result = X.extract(store, m, graph=T)
    assert any(span.flags for span in result.spans)
    recorded = any(store.quads(None, X.EXTRACTION_FLAG, None))
    assert recorded == X._declared(store, X.EXTRACTION_FLAG, NamedNode(T))


def test_flags_are_recorded_once_the_ontology_has_the_term(store_with_message, monkeypatch) -> None:
    store, m = store_with_message
    declared = X._declared
    monkeypatch.setattr(X, "_declared", lambda s, p, g: p == X.EXTRACTION_FLAG or declared(s, p, g))
    result = X.extract(store, m, graph=T)
    flags = {(q.subject, q.object.value) for q in store.quads(None, X.EXTRACTION_FLAG, None)}
    assert flags == {(c, f) for c, span in zip(result.claims, result.spans) for f in span.flags}
    assert flags  # the causal split is flagged


def test_extract_needs_content(store_with_message) -> None:
    store, _m = store_with_message
    with pytest.raises(NotFoundError):
        X.extract(store, "https://example.org/none", graph=T)
