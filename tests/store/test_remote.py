"""Remote stores (memkg --endpoint): the same commands and views on real SPARQL servers.

The examples are loaded into the embedded store, into an Oxigraph server (RDF 1.2
native) and into Virtuoso 7 (RDF 1.1: memkg's encoding of triple terms) through
``memkg --endpoint … load``; every view with the parameter sets of
tests/store/test_views.py (and the provenance views over the acme example) must
return the same rows from all three. The servers are started and stopped here, on
free ports in temp dirs (tests/support/remote_servers.py); a missing binary skips with
the reason.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, RdfFormat, Store, Triple, parse

from memkg import MemoryStore, UnknownIRIError
from memkg.store.backends import rdf11
from memkg.adapters.cli import main
from memkg.store.backends.sparql import ServerStore, SparqlClient

from tests.support.examples import EXAMPLES
from tests.support.remote_servers import Server, start_oxigraph, start_virtuoso
from .test_views import LIA_CASES, LIA_GRAPH

pytestmark = pytest.mark.slow

FILES = [EXAMPLES / "lia-tea.trig", EXAMPLES / "postgres-migration.trig"]
ACME = "https://example.org/tenants/acme"
AX = "https://example.org/acme/"
LX = "https://example.org/lia/"


def _view_cases() -> list[tuple[str, dict[str, str]]]:
    cases = [(v, {"tenant": LIA_GRAPH, **p}) for v, p, _ in LIA_CASES] + [(v, dict(p)) for v, p, _ in LIA_CASES]
    for tenant in ({"tenant": ACME}, {}):
        cases += [("current", tenant), ("contradictions", tenant),
                  ("contradictions", {**tenant, "valid_at": "2026-01-02T00:00:00Z"}),
                  ("history", {**tenant, "claim": LX + "cName0"})]
        for claim in ("cMigration", "cCutover", "cSelection", "cAnswerLoss", "cThroughput"):
            cases += [(view, {**tenant, "claim": AX + claim}) for view in ("history", "lineage", "support")]
        cases += [("dependents", {**tenant, "source": AX + s}) for s in ("benchmark", "adr", "rerun")]
    return cases


VIEW_CASES = _view_cases()


# -- servers -----------------------------------------------------------------------------


def _serve(starter, tmp_path_factory) -> Iterator[Server]:
    started = starter(tmp_path_factory.mktemp(starter.__name__))
    if isinstance(started, str):
        pytest.skip(started)
    assert main(["--endpoint", started.endpoint, "load", *map(str, FILES)]) == 0
    yield started
    started.stop()


@pytest.fixture(scope="module")
def oxigraph(tmp_path_factory) -> Iterator[Server]:
    yield from _serve(start_oxigraph, tmp_path_factory)


@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory) -> Iterator[Server]:
    yield from _serve(start_virtuoso, tmp_path_factory)


@pytest.fixture(scope="module", params=["oxigraph", "virtuoso"])
def server(request) -> Server:
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="module")
def embedded() -> MemoryStore:
    store = MemoryStore()
    store.load(*FILES)
    return store


def rows(results) -> set[tuple[str, ...]]:
    """Rows as sets of term tuples, literals compared by value (servers normalise them)."""
    names = [v.value for v in results.variables]
    return {tuple(_by_value(row[n]) for n in names) for row in results}


def _by_value(term) -> str:
    if isinstance(term, Literal):
        return repr(_literal_value(term))
    if isinstance(term, Triple):
        return f"<<( {_by_value(term.subject)} {term.predicate} {_by_value(term.object)} )>>"
    return str(term)


def _literal_value(term: Literal) -> object:
    dt = term.datatype.value.rsplit("#", 1)[-1]
    if dt in ("decimal", "double", "float", "integer"):
        return float(term.value)
    if dt == "dateTime":
        from datetime import datetime

        return datetime.fromisoformat(term.value.replace("Z", "+00:00"))
    return (term.value, term.language)


# -- the views ---------------------------------------------------------------------------


def test_every_view_returns_the_same_rows_on_every_store(embedded: MemoryStore, server: Server) -> None:
    remote = MemoryStore.connect(server.endpoint, read_only=True)
    differ = []
    for view, params in VIEW_CASES:
        expected, found = outcome(embedded, view, params), outcome(remote, view, params)
        if expected != found:
            differ.append((view, params, sorted(expected - found)[:3], sorted(found - expected)[:3]))
    assert not differ, f"{server.name}: {len(differ)} of {len(VIEW_CASES)} view calls differ: {differ[:3]}"
    answered = [outcome(embedded, v, p) for v, p in VIEW_CASES]
    assert sum(1 for a in answered if a and ("error",) != next(iter(a))[:1]) > len(VIEW_CASES) // 2  # not all empty


@pytest.mark.parametrize("evaluation", ["copy", "around"])
def test_every_way_of_evaluating_a_view_gives_the_same_rows(embedded: MemoryStore, virtuoso: Server,
                                                             evaluation: str) -> None:
    remote = MemoryStore.connect(virtuoso.endpoint, read_only=True, view_evaluation=evaluation)
    differ = [(v, p) for v, p in VIEW_CASES if outcome(embedded, v, p) != outcome(remote, v, p)]
    assert not differ, f"{evaluation}: {len(differ)} of {len(VIEW_CASES)} view calls differ: {differ[:3]}"


def test_a_view_about_one_subject_reads_its_neighbourhood_not_the_store(virtuoso: Server, monkeypatch) -> None:
    remote = MemoryStore.connect(virtuoso.endpoint, read_only=True)
    assert remote.backend.view_site == "around"
    held = len(remote)
    read: list[int] = []
    real = ServerStore._select
    monkeypatch.setattr(ServerStore, "_select", lambda self, *a, **k: (rows := real(self, *a, **k), read.append(len(rows)))[0])
    found = list(remote.view("current", {"tenant": LIA_GRAPH, "subject": LX + "Lia"}))
    assert found and sum(read) < held / 4, (sum(read), held)


def outcome(store: MemoryStore, view: str, params: dict[str, str]) -> set:
    """A view's rows, or the error naming an IRI its scope does not hold (one of the cases asks
    acme's scope about a claim of lia's): the same on every store."""
    try:
        return rows(store.view(view, params))
    except UnknownIRIError as err:
        return {("error", str(err))}


def test_the_dialect_is_detected(oxigraph: Server, virtuoso: Server) -> None:
    assert MemoryStore.connect(oxigraph.endpoint, read_only=True).backend.dialect == "rdf12"
    assert MemoryStore.connect(virtuoso.endpoint, read_only=True).backend.dialect == "rdf11"


def test_a_triple_term_query_reads_the_same_on_every_store(embedded: MemoryStore, server: Server) -> None:
    query = "SELECT ?c ?t ?s WHERE { GRAPH ?g { ?c rdf:reifies ?t . ?c rdf:reifies <<( ?s ?p ?o )>> FILTER(isTRIPLE(?t)) } }"
    remote = MemoryStore.connect(server.endpoint, read_only=True)
    expected = rows(embedded.query(query))
    assert len(expected) > 10
    assert rows(remote.query(query)) == expected
    one = next(iter(remote.query("SELECT ?t WHERE { GRAPH ?g { <https://example.org/lia/c0> rdf:reifies ?t } }")))
    assert one["t"] == Triple(NamedNode(LX + "Lia"), NamedNode(LX + "prefers"), NamedNode(LX + "teaWithoutSugar"))


# -- the command line --------------------------------------------------------------------


def test_query_export_and_stats_through_the_command_line(embedded: MemoryStore, server: Server, capsysbinary) -> None:
    capsysbinary.readouterr()
    q = "SELECT ?c WHERE { GRAPH <https://example.org/tenants/lia> { ?c a mem:Claim } }"
    assert main(["--endpoint", server.endpoint, "query", q, "--format", "json"]) == 0
    found = {b["c"]["value"] for b in json.loads(capsysbinary.readouterr().out)["results"]["bindings"]}
    assert found == {row["c"].value for row in embedded.query(q)}

    assert main(["--endpoint", server.endpoint, "stats"]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert f"store {server.endpoint}:" in out and "graph <https://example.org/tenants/lia>:" in out

    assert main(["--endpoint", server.endpoint, "export", "--format", "nquads"]) == 0
    assert _by_value_quads(capsysbinary.readouterr().out) == _by_value_quads(embedded.export(format="nquads"))


def _by_value_quads(nquads: bytes) -> set[tuple[str, ...]]:
    # Through a store, so typed literals are normalised the same way on both sides.
    scratch = Store()
    scratch.extend(parse(nquads, RdfFormat.N_QUADS))
    return {(str(q.subject), str(q.predicate), _by_value(q.object), str(q.graph_name)) for q in scratch}


def test_an_export_from_virtuoso_is_the_rdf12_data_loaded(virtuoso: Server, tmp_path: Path) -> None:
    out = tmp_path / "back.trig"
    assert main(["--endpoint", virtuoso.endpoint, "export", "-o", str(out)]) == 0
    original = MemoryStore(validation=None)
    original.load(*FILES)
    back = MemoryStore(validation=None)
    back.load(out)
    assert _by_value_quads(back.export(format="nquads")) == _by_value_quads(original.export(format="nquads"))
    triples = [q for q in back.quads() if isinstance(q.object, Triple)]
    assert len(triples) > 10  # the triple terms came back as triple terms
    assert not any(rdf11.is_encoded(t) for q in back.quads() for t in (q.subject, q.object))


def test_the_claim_index_on_the_server_is_consistent(server: Server, capsys) -> None:
    assert main(["--endpoint", server.endpoint, "index", "check"]) == 0
    assert "claim index consistent" in capsys.readouterr().out


def test_a_write_through_the_endpoint_is_validated_and_atomic(server: Server, tmp_path: Path, monkeypatch, capsys) -> None:
    store = MemoryStore.connect(server.endpoint)
    before = len(store)
    sent: list[str] = []
    real_update = SparqlClient.update
    monkeypatch.setattr(SparqlClient, "update", lambda self, text: (sent.append(text), real_update(self, text))[1])
    bad = tmp_path / "bad.trig"
    bad.write_text(  # a claim with no provenance (invariant 5) and a confidence above 1 (10)
        "PREFIX mem: <https://w3id.org/memkg#>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
        f"GRAPH <{LIA_GRAPH}> {{ <{LX}cBad> a mem:Claim ; rdf:reifies <<( <{LX}Lia> <{LX}prefers> <{LX}tea> )>> ;"
        " mem:confidence 1.5 . }\n"
    )
    assert main(["--endpoint", server.endpoint, "load", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "mem:" in err and str(LX + "cBad") in err, err
    assert sent == [], "a refused write must not reach the server"
    assert len(store) == before

    good = tmp_path / "good.trig"
    good.write_text(
        "PREFIX mem: <https://w3id.org/memkg#>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
        f"GRAPH <{LIA_GRAPH}> {{ <{LX}cGood> a mem:Claim ; rdf:reifies <<( <{LX}Lia> <{LX}prefers> <{LX}teaWithoutSugar> )>> ;"
        f" mem:assertedBy <{LX}m0> ; mem:confidence 0.5 . }}\n"
    )
    assert main(["--endpoint", server.endpoint, "load", str(good)]) == 0
    assert len(sent) == 1, "one write is one update request"
    assert len(store) == before + 7  # 4 triples, 3 index triples
    assert Quad(NamedNode(LX + "cGood"), NamedNode("https://w3id.org/memkg/index#subject"), NamedNode(LX + "Lia"),
                NamedNode(LIA_GRAPH)) in store
    # leave the server as the other tests expect it: erase is the one deletion
    store.change(remove=[q for q in store.quads(NamedNode(LX + "cGood"))])
    assert len(store) == before


def test_the_shared_default_graph_lives_in_its_own_named_graph(embedded: MemoryStore, server: Server) -> None:
    store = MemoryStore.connect(server.endpoint)
    shared = Quad(NamedNode(LX + "sharedTea"), NamedNode(rdf11.RDF + "type"), NamedNode("https://w3id.org/memkg#Entity"))
    store.write([shared])
    try:
        assert list(store.quads(graph=DefaultGraph())) == [shared]
        assert shared in store
        # on the server it is a quad of <urn:memkg:default-graph>, which a plain query sees as its default graph
        on_server = f"ASK {{ GRAPH <urn:memkg:default-graph> {{ <{LX}sharedTea> a <https://w3id.org/memkg#Entity> }} }}"
        assert bool(store.raw.run(on_server, [("named-graph-uri", "urn:memkg:default-graph")]))
        ask = f"SELECT ?t WHERE {{ <{LX}sharedTea> a ?t }}"
        assert [r["t"] for r in store.query(ask)] == [NamedNode("https://w3id.org/memkg#Entity")]
        # a tenant's dataset includes the shared graph; union queries see everything, as embedded
        union = "SELECT (COUNT(*) AS ?n) WHERE { ?c a mem:Claim }"
        assert rows(store.query(union, use_default_graph_as_union=True)) == rows(
            embedded.query(union, use_default_graph_as_union=True))
        assert b"sharedTea" in (store.export(format="nquads") or b"")
    finally:
        store.change(remove=[shared])
    assert list(store.quads(graph=DefaultGraph())) == []


def test_server_errors_are_clear_messages_with_exit_code_2(server: Server, capsys) -> None:
    assert main(["--endpoint", server.endpoint, "query", "SELECT * WHERE { ?s ?p }"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memkg: ") and ("HTTP 400" in err or "HTTP 500" in err), err
    assert main(["--endpoint", server.endpoint, "index", "rebuild"]) == 2
    assert "index rebuild runs inside the embedded store" in capsys.readouterr().err


def test_unreachable_server_and_refused_token(capsys, monkeypatch) -> None:
    seen: list[str | None] = []

    class Refuse(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            seen.append(self.headers.get("Authorization"))
            body = b"token not known"
            self.send_response(401)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_port}/sparql"
        monkeypatch.setenv("MEMKG_TOKEN", "s3cret")
        assert main(["--endpoint", url, "--endpoint-dialect", "rdf12", "query", "ASK {}"]) == 2
        err = capsys.readouterr().err
        assert "HTTP 401" in err and "token not known" in err, err
        assert seen == ["Bearer s3cret"]
    finally:
        httpd.shutdown()
        httpd.server_close()
    port = httpd.server_port
    assert main(["--endpoint", f"http://127.0.0.1:{port}/sparql", "--endpoint-dialect", "rdf12", "query", "ASK {}"]) == 2
    assert "cannot reach the server" in capsys.readouterr().err


def test_credentials_in_the_url_answer_virtuoso_digest_challenge(virtuoso: Server, capsys) -> None:
    authenticated = virtuoso.endpoint.replace("http://", "http://dba:dba@").replace("/sparql", "/sparql-auth")
    assert main(["--endpoint", authenticated, "stats"]) == 0
    out = capsys.readouterr().out
    assert "graph <https://example.org/tenants/lia>:" in out and "dba:dba" not in out
    wrong = authenticated.replace("dba:dba", "dba:wrong")
    assert main(["--endpoint", wrong, "stats"]) == 2
    assert "HTTP 401" in capsys.readouterr().err


def test_store_and_endpoint_are_exclusive(capsys) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--store", "x", "--endpoint", "http://127.0.0.1:1/sparql", "stats"])
    assert exit.value.code == 2


# -- the RDF 1.1 encoding, without a server ------------------------------------------------


def test_the_encoding_round_trips_nested_triple_terms_exactly() -> None:
    a, p, g = NamedNode("urn:ex:a"), NamedNode("urn:ex:p"), NamedNode("urn:ex:g")
    inner = Triple(a, p, Literal("01", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
    outer = Triple(a, p, inner)
    data = [Quad(NamedNode("urn:ex:r"), p, outer, g), Quad(NamedNode("urn:ex:r2"), p, inner, DefaultGraph())]
    encoded = rdf11.encode_quads(data)
    assert not any(isinstance(t, Triple) for q in encoded for t in (q.subject, q.object))
    assert sum(1 for q in encoded if q.object == rdf11.RDF_STATEMENT) == 3  # inner in two graphs, outer once
    normalised = Store()
    normalised.extend(data)
    assert set(rdf11.decode_quads(encoded)) == set(normalised)
    # one term, one IRI, whatever lexical form its literal had
    same = Triple(a, p, Literal("1", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
    assert rdf11.term_iri(rdf11.normalise([inner])[0]) == rdf11.term_iri(rdf11.normalise([same])[0])


def test_reserved_iris_are_refused() -> None:
    with pytest.raises(ValueError, match="reserved"):
        rdf11.encode_quads([Quad(NamedNode("urn:ex:a"), NamedNode("urn:ex:p"), NamedNode(rdf11.TRIPLE_NS + "x"))])


@pytest.mark.parametrize("query", [
    "SELECT (SUBJECT(?t) AS ?s) WHERE { ?c rdf:reifies ?t }",
    "SELECT * WHERE { ?a ?b ?c ~ ?r }",
    "SELECT * WHERE { ?r rdf:reifies ?t FILTER(?t = <<( ?s ?p ?o )>>) }",
    "CONSTRUCT { ?c ?p <<( ?s ?p ?o )>> } WHERE { ?c ?p ?s }",
    "SELECT * WHERE { ?r rdf:reifies ?t FILTER(isTRIPLE(<<( ?s <urn:ex:p> ?o )>>)) }",  # was always false
])
def test_what_sparql_11_cannot_express_is_refused(query: str) -> None:
    with pytest.raises(rdf11.Rdf11Unsupported):
        rdf11.rewrite_query(query, prologue="PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n")


def test_the_rewrite_is_sparql_11_over_the_encoding() -> None:
    store = Store()
    data = [
        Quad(NamedNode("urn:ex:c"), NamedNode(rdf11.RDF + "reifies"),
             Triple(NamedNode("urn:ex:s"), NamedNode("urn:ex:p"), Triple(NamedNode("urn:ex:a"), NamedNode("urn:ex:b"), Literal("x"))),
             NamedNode("urn:ex:g")),
    ]
    store.extend(rdf11.encode_quads(data))
    prologue = "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
    q = "SELECT ?c ?s ?x WHERE { GRAPH ?g { ?c rdf:reifies <<( ?s ?p <<( ?a ?b ?x )>> )>> FILTER(isTRIPLE(<<( <urn:ex:a> <urn:ex:b> \"x\" )>>)) } }"
    (row,) = list(store.query(prologue + rdf11.rewrite_query(q, prologue=prologue)))
    assert (row["c"], row["s"], row["x"]) == (NamedNode("urn:ex:c"), NamedNode("urn:ex:s"), Literal("x"))


def test_a_language_tagged_literal_in_a_triple_term_is_one_term() -> None:
    store = Store()
    said = Triple(NamedNode("urn:ex:s"), NamedNode("urn:ex:p"), Literal("thé", language="fr"))
    store.extend(rdf11.encode_quads([Quad(NamedNode("urn:ex:c"), NamedNode(rdf11.RDF + "reifies"), said,
                                          NamedNode("urn:ex:g"))]))
    prologue = "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
    for q in ('SELECT ?c WHERE { GRAPH ?g { ?c rdf:reifies <<( ?s <urn:ex:p> "thé"@fr )>> } }',
              'SELECT ?c WHERE { GRAPH ?g { ?c rdf:reifies <<( <urn:ex:s> <urn:ex:p> "thé"@fr )>> } }'):
        assert [row["c"] for row in store.query(prologue + rdf11.rewrite_query(q, prologue=prologue))] == [
            NamedNode("urn:ex:c")]
