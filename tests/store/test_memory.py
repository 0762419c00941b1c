"""The store: loading (atomic, idempotent, every format), export round trips, persistence."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

import memkg.store.loads as store_module
from memkg import MemoryStore, ParseError, UnknownFormatError, ValidationError
from memkg.core.errors import Violation
from memkg.store.literals import RewrittenLiteralsError
from memkg.core.vocab import ONTOLOGY_GRAPH
from memkg.core.vocab import MEMX

from tests.support.examples import EX, LIA, LIA_GRAPH, data_quads

GOOD_TTL = """VERSION "1.2"
PREFIX ex: <http://example.org/>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
ex:a a mem:Person . ex:b a mem:Entity . ex:p a rdf:Property .
ex:m a mem:Message ; mem:content "a p b" .
ex:c1 a mem:Claim ; rdf:reifies <<( ex:a ex:p ex:b )>> ; mem:assertedBy ex:m .
ex:a ex:knows ex:b ~ ex:o1 {| a mem:Occurrence |} .
"""
GOOD_QUADS = 11
BAD_TTL = """PREFIX ex: <http://example.org/>
ex:a ex:p ex:b .
ex:a ex:p "unterminated .
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_example_claim_is_found_by_its_triple_term(lia_store: MemoryStore) -> None:
    rows = list(
        lia_store.query(
            f"SELECT ?c WHERE {{ GRAPH ?g {{ ?c rdf:reifies <<( <{EX}Lia> <{EX}prefers> <{EX}teaWithoutSugar> )>> }} }}"
        )
    )
    assert [r["c"] for r in rows] == [NamedNode(EX + "c0")]


def test_parallel_recommendations_are_two_occurrences_of_one_asserted_triple(lia_store: MemoryStore) -> None:
    rows = list(
        lia_store.query(
            f"""SELECT ?e ?conf WHERE {{ GRAPH ?g {{
                ?e a mem:Occurrence ; rdf:reifies <<( <{EX}Aurora> <{EX}recommends> <{EX}tea> )>> ;
                   mem:confidence ?conf }} }} ORDER BY ?e"""
        )
    )
    assert [r["e"].value for r in rows] == [EX + "e6", EX + "e7"]
    assert [float(r["conf"].value) for r in rows] == [0.96, 0.72]
    asserted = list(lia_store.quads(NamedNode(EX + "Aurora"), NamedNode(EX + "recommends"), NamedNode(EX + "tea")))
    assert len(asserted) == 1


def test_reloading_the_same_file_adds_nothing(lia_store: MemoryStore) -> None:
    before = len(lia_store)
    report = lia_store.load(LIA)
    assert report.added == 0
    assert len(lia_store) == before


@pytest.mark.parametrize(
    "fmt,suffix",
    [("turtle", "ttl"), ("trig", "trig"), ("ntriples", "nt"), ("nquads", "nq")],
)
def test_every_format_loads_triple_terms(tmp_path: Path, fmt: str, suffix: str) -> None:
    source = MemoryStore()
    source.load(write(tmp_path, "good.ttl", GOOD_TTL))
    serialized = source.export(format=fmt)
    target = MemoryStore()
    target.load(write(tmp_path, f"copy.{suffix}", serialized.decode()))
    assert data_quads(target) == data_quads(source)


def test_a_parse_error_names_file_line_and_column_and_writes_nothing(tmp_path: Path, lia_store: MemoryStore) -> None:
    before = set(lia_store.quads(with_index=True))
    good = write(tmp_path, "good.ttl", GOOD_TTL)
    bad = write(tmp_path, "bad.ttl", BAD_TTL)
    with pytest.raises(ParseError) as info:
        lia_store.load(good, bad)  # the good file must not be half-committed
    err = info.value
    assert err.file == str(bad)
    assert err.line == 3
    assert err.column is not None
    assert f"{bad}:3:" in str(err)
    assert set(lia_store.quads(with_index=True)) == before


def test_the_bulk_path_is_equally_atomic_and_gives_the_same_store(tmp_path: Path, monkeypatch) -> None:
    good = write(tmp_path, "good.ttl", GOOD_TTL)
    bad = write(tmp_path, "bad.ttl", BAD_TTL)
    normal = MemoryStore()
    normal.load(good, LIA)
    monkeypatch.setattr(store_module, "BULK_THRESHOLD", 0)
    bulk = MemoryStore()
    report = bulk.load(good, LIA)
    assert report.bulk
    assert set(bulk.quads(with_index=True)) == set(normal.quads(with_index=True))
    with pytest.raises(ParseError):
        MemoryStore().load(good, bad)


def test_the_streaming_path_checks_everything_before_writing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(store_module, "STREAM_THRESHOLD_BYTES", 0)
    good = write(tmp_path, "good.ttl", GOOD_TTL)
    bad = write(tmp_path, "bad.ttl", BAD_TTL)
    store = MemoryStore()
    before = set(store.quads(with_index=True))
    with pytest.raises(ParseError):
        store.load(good, bad)
    assert set(store.quads(with_index=True)) == before
    report = store.load(good)
    assert report.bulk and report.parsed == GOOD_QUADS
    assert store.check_index().consistent


def test_graph_option_moves_default_graph_triples_into_the_tenant(tmp_path: Path, store: MemoryStore) -> None:
    store.load(write(tmp_path, "g.ttl", GOOD_TTL), graph="http://example.org/tenant")
    graphs = {q.graph_name for q in data_quads(store)}
    assert graphs == {NamedNode("http://example.org/tenant")}


def test_unknown_extension_is_refused_with_a_hint(tmp_path: Path, store: MemoryStore) -> None:
    with pytest.raises(UnknownFormatError, match=r"name the format \(turtle\|trig\|ntriples\|nquads\)"):
        store.load(write(tmp_path, "data.txt", GOOD_TTL))
    report = store.load(write(tmp_path, "data.txt", GOOD_TTL), format="turtle")
    assert report.parsed == GOOD_QUADS


def test_missing_file_is_an_error_before_anything_is_written(tmp_path: Path, store: MemoryStore) -> None:
    before = len(store)
    with pytest.raises(FileNotFoundError):
        store.load(write(tmp_path, "ok.ttl", GOOD_TTL), tmp_path / "missing.ttl")
    assert len(store) == before


def test_export_then_load_into_a_fresh_store_gives_back_every_quad(tmp_path: Path, lia_store: MemoryStore) -> None:
    for fmt, suffix in (("trig", "trig"), ("nquads", "nq")):
        dump = tmp_path / f"dump.{suffix}"
        lia_store.export(dump, format=fmt)
        fresh = MemoryStore()
        fresh.load(dump)
        assert data_quads(fresh) == data_quads(lia_store)
        assert set(fresh.quads(with_index=True)) == set(lia_store.quads(with_index=True))


def test_export_leaves_index_and_ontology_out_unless_asked(lia_store: MemoryStore) -> None:
    plain = lia_store.export(format="nquads").decode()
    assert MEMX not in plain and "<https://w3id.org/memkg> ." not in plain
    full = lia_store.export(format="nquads", with_index=True, with_ontology=True).decode()
    assert MEMX in full and "<https://w3id.org/memkg> ." in full


def test_export_declares_the_prefixes_the_loaded_files_declared_and_stays_as_small(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "store")
    store.load(LIA)
    text = store.export(format="trig").decode()
    assert f"@prefix ex: <{EX}> ." in text and f"<{EX}c0>" not in text
    assert len(text.encode()) <= 1.2 * LIA.stat().st_size


def test_export_tells_its_progress_how_many_quads_it_wrote(lia_store: MemoryStore) -> None:
    counts: list[int] = []
    nquads = lia_store.export(format="nquads", progress=counts.append).decode()
    assert counts == [len(nquads.splitlines())]


def test_export_to_a_single_graph_format_needs_a_graph(lia_store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="named graphs"):
        lia_store.export(format="turtle")
    text = lia_store.export(format="turtle", graph=LIA_GRAPH).decode()
    assert "teaWithoutSugar" in text


def test_blank_nodes_get_fresh_labels_per_load(tmp_path: Path, store: MemoryStore) -> None:
    # Two files using the same label must not merge their nodes.
    a = write(tmp_path, "a.ttl", '_:x <http://example.org/p> "a" .')
    b = write(tmp_path, "b.ttl", '_:x <http://example.org/p> "b" .')
    store.load(a, b)
    subjects = {q.subject for q in data_quads(store)}
    assert len(subjects) == 2


def test_the_store_persists_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with MemoryStore(path) as s:
        s.load(LIA)
        expected = set(s.quads(with_index=True))
    reopened = MemoryStore(path, read_only=True)
    assert set(reopened.quads(with_index=True)) == expected
    with pytest.raises(PermissionError):
        reopened.load(LIA)


def test_a_second_writer_process_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "store"
    holder = MemoryStore(path)
    code = (
        "import sys; from memkg import MemoryStore, StoreLockedError\n"
        f"try:\n    MemoryStore({str(path)!r})\nexcept StoreLockedError as e:\n    print(e); sys.exit(3)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    assert "another process" in result.stdout
    holder.close()


def test_load_data_accepts_text(store: MemoryStore) -> None:
    report = store.load_data(GOOD_TTL, format="turtle", graph="http://example.org/g")
    assert report.parsed == GOOD_QUADS
    with pytest.raises(ParseError) as info:
        store.load_data(BAD_TTL, format="turtle")
    assert info.value.line == 3


@pytest.mark.parametrize(
    ("query", "line", "column"),
    [
        ("SELECT ?x WHERE { ?x ?y ?z }\nLIMIT oops", 2, 7),
        ("PREFIX ex: <http://e/>\nSELECT ?x WHERE {\n\t?x ex:p ?z }\nLIMIT 10 OFFSET -1", 4, 17),
        ("SELECT ?x WHERE { ?x ?y ?z }\n  LIMIT \u00e9t\u00e9", 2, 9),  # columns count characters, not bytes
    ],
)
def test_query_syntax_errors_are_parse_errors_at_the_faulty_token(
    store: MemoryStore, query: str, line: int, column: int
) -> None:
    with pytest.raises(ParseError) as info:
        store.query(query)
    assert (info.value.line, info.value.column) == (line, column)
    assert str(info.value).startswith(f"<query>:{line}:{column}: ")


def test_literals_compare_by_value_after_normalisation(store: MemoryStore) -> None:
    # Oxigraph normalises "0.50" to "0.5": compare as numbers, never as text.
    store.write([Quad(NamedNode("http://e/a"), NamedNode("http://e/p"),
                      Literal("0.50", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal")))])
    rows = list(store.query("SELECT ?o WHERE { <http://e/a> <http://e/p> ?o FILTER(?o = 0.5) }"))
    assert len(rows) == 1


def test_change_removes_and_records_in_one_step_keeping_the_index_right(lia_store: MemoryStore) -> None:
    g = NamedNode(LIA_GRAPH)
    c0 = NamedNode(EX + "c0")
    removed = list(lia_store.quads(c0, None, None, g))
    record = Quad(NamedNode(EX + "erasure1"), NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                  NamedNode("https://w3id.org/memkg#Retraction"), g)
    assert lia_store.change(remove=removed, add=[record]) == len(removed)
    assert not list(lia_store.quads(c0, None, None, g, with_index=True))  # index triples went too
    assert record in lia_store
    assert lia_store.check_index().consistent


@pytest.mark.parametrize("bulk", [False, True])
def test_blank_reifiers_keep_a_consistent_index_through_the_write(tmp_path: Path, monkeypatch, bulk: bool) -> None:
    # Blank nodes get fresh labels on every load: the index triples must carry the
    # reifier's and the triple term's new labels, on either write path.
    if bulk:
        monkeypatch.setattr(store_module, "BULK_THRESHOLD", 0)
    store = MemoryStore(tmp_path / "store", validation=None)  # invariant 1 refuses blank reifiers
    report = store.load(write(tmp_path, "blank.ttl", 'VERSION "1.2"\n_:r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> '
                                                    '<<( <http://e/s> <http://e/p> _:o )>> ; <http://e/note> "n" .\n'))
    assert report.bulk == bulk and report.parsed == 2 and report.added == 5
    assert store.check_index().consistent
    (reifies,) = list(store.quads(None, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"), None))
    (indexed_object,) = [q.object for q in store.quads(reifies.subject, NamedNode(MEMX + "object"), None, with_index=True)]
    assert indexed_object == reifies.object.object  # the same blank node inside and outside the triple term


def test_a_refused_bulk_load_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(store_module, "BULK_THRESHOLD", 0)
    store = MemoryStore(tmp_path / "store")
    before = set(store.quads(with_index=True, graph=None))
    blank_claim = write(tmp_path, "blank-claim.ttl", GOOD_TTL.replace("ex:c1 a mem:Claim", "_:c1 a mem:Claim"))
    with pytest.raises(ValidationError) as info:
        store.load(blank_claim)
    assert "IriIdentityShape" in str(info.value)
    assert set(store.quads(with_index=True, graph=None)) == before
    assert store.load(write(tmp_path, "good.ttl", GOOD_TTL)).bulk


def test_the_streaming_path_validates_triple_terms_through_the_claim_index(tmp_path: Path, monkeypatch) -> None:
    # The shapes reach inside triple terms through the claim index: the streaming path must
    # judge the input with its index, or an untyped vertex inside a claim would slip through.
    monkeypatch.setattr(store_module, "STREAM_THRESHOLD_BYTES", 0)
    untyped = write(tmp_path, "untyped.ttl", """VERSION "1.2"
        PREFIX ex: <http://example.org/> PREFIX mem: <https://w3id.org/memkg#>
        PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        ex:likes a rdf:Property . ex:tea a mem:Entity . ex:m a mem:Message ; mem:content "hi" .
        ex:c a mem:Claim ; rdf:reifies <<( ex:nobody ex:likes ex:tea )>> ; mem:assertedBy ex:m .""")
    store = MemoryStore(validation="native")
    with pytest.raises(ValidationError) as info:
        store.load(untyped)
    assert any(str(v.shape).endswith("TypedVertexShape>") and str(v.value) == "<http://example.org/nobody>"
               for v in info.value.violations), info.value
    assert not any(True for _ in store.quads(with_index=True) if _.graph_name != ONTOLOGY_GRAPH)


def test_a_validator_that_does_not_stream_sees_the_whole_input_on_the_streaming_path(tmp_path: Path, monkeypatch) -> None:
    # MemoryStore.validator is any ``validator(store, batch)``; only one that declares
    # ``streams`` takes the input as a one-pass stream: any other may read its batch twice.
    monkeypatch.setattr(store_module, "STREAM_THRESHOLD_BYTES", 0)
    judged: list[int] = []

    def no_secrets(store: MemoryStore, batch, **options) -> list[Violation]:
        judged.append(sum(1 for _ in batch))
        return [Violation("ex:NoSecretsShape", str(q.subject), "no secrets here") for q in batch
                if q.object == Literal("secret")]

    store = MemoryStore(validation=None)
    store.write([Quad(NamedNode(EX + "x"), NamedNode(EX + "p"), Literal("before"))])
    store.validator = no_secrets
    secret = write(tmp_path, "secret.ttl", "<http://example.org/a> <http://example.org/p> 'open' , 'secret' .")
    with pytest.raises(ValidationError, match="NoSecretsShape"):
        store.load(secret)
    assert judged == [2]
    assert not list(store.quads(NamedNode(EX + "a"), None, None, graph=None))


def test_a_bulk_load_compacts_only_when_it_is_at_least_the_size_of_the_store(tmp_path: Path, monkeypatch) -> None:
    # Compaction rewrites the whole store: worth it after a first load, not after an append.
    monkeypatch.setattr(store_module, "BULK_THRESHOLD", 0)
    store = MemoryStore(tmp_path / "store", validation=None)
    many = "".join(f'<http://example.org/s{i}> <http://example.org/p> "{i}" .\n' for i in range(1000))
    first = store.load(write(tmp_path, "first.nt", many))  # more than the store held (the ontology)
    assert first.bulk and "optimize" in first.seconds
    smaller = store.load(write(tmp_path, "one.nt", "<http://example.org/a> <http://example.org/p> <http://example.org/b> ."))
    assert smaller.bulk and smaller.added == 1 and "optimize" not in smaller.seconds
    store.compact()  # by hand, whenever wanted; the data stays
    assert len(data_quads(store)) == 1001
    store.close()
    with MemoryStore(tmp_path / "store", read_only=True) as reader, pytest.raises(PermissionError):
        reader.compact()


def test_loading_text_with_strict_literals_refuses_a_literal_the_store_would_rewrite_and_writes_nothing() -> None:
    # load_data has load's guarantees: "01"^^xsd:integer would be stored as "1", so a strict
    # load refuses it whole; a lenient one stores it and counts the rewrite.
    text = ('<http://example.org/a> <http://example.org/code> "01"^^<http://www.w3.org/2001/XMLSchema#integer> ;'
            ' <http://example.org/n> 1 .')
    store = MemoryStore(validation=None)
    with pytest.raises(RewrittenLiteralsError) as caught:
        store.load_data(text, format="turtle", strict_literals=True)
    assert caught.value.rewrites.count == 1 and "<data>" in str(caught.value)
    assert not data_quads(store)
    report = store.load_data(text, format="turtle")
    assert report.rewrites.count == 1 and report.added == 2



def test_a_load_resolves_relative_iris_against_the_base_given_and_remembers_the_files_prefixes(tmp_path: Path) -> None:
    store = MemoryStore(validation=None)
    store.load(write(tmp_path, "relative.ttl", "PREFIX zz: <http://example.org/zz#>\n<a> zz:p <b> .\n"),
               base_iri="http://example.org/base/")
    assert {(q.subject.value, q.predicate.value, q.object.value) for q in data_quads(store)} == {
        ("http://example.org/base/a", "http://example.org/zz#p", "http://example.org/base/b")}
    assert store.prefixes["zz"] == "http://example.org/zz#"  # usable in views' parameters from now on


def test_a_load_tells_each_phase_as_it_starts_and_times_it(tmp_path: Path) -> None:
    told: list[str] = []
    report = MemoryStore(validation="native").load(write(tmp_path, "good.ttl", GOOD_TTL), progress=told.append)
    assert told[:6] == ["parsing…", "checking literals…", "indexing claims…", "validating…", "counting…", "writing…"]
    assert {"parse", "literals", "index", "validate", "count", "write"} <= set(report.seconds)


def test_a_streamed_load_counts_what_it_added_and_times_its_write(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(store_module, "STREAM_THRESHOLD_BYTES", 0)
    many = "".join(f'<http://example.org/s{i}> <http://example.org/p> "{i}" .\n' for i in range(1000))
    report = MemoryStore(tmp_path / "store", validation=None).load(write(tmp_path, "many.nt", many))
    assert report.added == 1000 and report.bulk
    assert {"parse", "validate", "write", "optimize"} <= set(report.seconds)


def test_a_load_bigger_than_the_store_reports_how_many_quads_it_added() -> None:
    # The store (the ontology alone) holds fewer quads than the load: counted after the write.
    many = "".join(f'<http://example.org/s{i}> <http://example.org/p> "{i}" .\n' for i in range(1000))
    store = MemoryStore(validation=None)
    assert len(store) < 1000
    assert store.load_data(many, format="ntriples").added == 1000
    assert store.load_data(many, format="ntriples").added == 0  # the same again adds nothing
