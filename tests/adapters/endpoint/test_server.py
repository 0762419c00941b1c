"""``memkg serve`` over HTTP: the SPARQL 1.1 Protocol, negotiation, views, the Graph Store, errors.

One real server (a subprocess) on a store holding both examples serves most
tests; each test that writes uses its own graph. Lifecycle tests (time limit,
read-only, SIGTERM, a locked store) start their own.
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import io
import json
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from pyoxigraph import NamedNode, Quad, RdfFormat, Triple, parse

from memkg import MemoryStore

from tests.support.examples import EX, LIA_GRAPH
from tests.support.endpoint_server import Server, documented_health, make_store, pid_alive, wait_until

pytestmark = pytest.mark.slow

CLAIM_OF_TEA = f"SELECT ?c WHERE {{ GRAPH ?g {{ ?c rdf:reifies <<( <{EX}Lia> <{EX}prefers> <{EX}teaWithoutSugar> )>> }} }}"
COUNT_CLAIMS = "SELECT (COUNT(?c) AS ?n) WHERE { GRAPH ?g { ?c a mem:Claim } }"


def graph_quads(body: bytes, fmt: RdfFormat) -> set[Quad]:
    return set(parse(body, fmt))


# -- queries -------------------------------------------------------------------------------


def test_get_query_answers_sparql_json(server: Server) -> None:
    r = server.query(CLAIM_OF_TEA)
    assert r.status == 200
    assert r.content_type == "application/sparql-results+json"
    assert [b["c"]["value"] for b in r.json()["results"]["bindings"]] == [EX + "c0"]
    assert r.headers["access-control-allow-origin"] == "*"


def test_post_form_and_post_sparql_query_body_give_the_same_answer(server: Server) -> None:
    form = server.request(
        "POST", "/sparql", urlencode({"query": CLAIM_OF_TEA}),
        {"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/csv"},
    )
    direct = server.request(
        "POST", "/sparql", CLAIM_OF_TEA, {"Content-Type": "application/sparql-query", "Accept": "text/csv"}
    )
    assert form.status == direct.status == 200
    assert form.text.split() == direct.text.split() == ["c", EX + "c0"]


@pytest.mark.parametrize(
    "accept, media_type",
    [
        ("application/sparql-results+json", "application/sparql-results+json"),
        ("application/json", "application/sparql-results+json"),
        ("application/sparql-results+xml", "application/sparql-results+xml"),
        ("text/csv", "text/csv"),
        ("text/tab-separated-values", "text/tab-separated-values"),
        ("*/*", "application/sparql-results+json"),
        ("text/csv;q=0.5, application/sparql-results+xml;q=0.9", "application/sparql-results+xml"),
        ("application/sparql-results+json;q=0, */*;q=0.1", "application/sparql-results+xml"),
    ],
)
def test_select_results_follow_the_accept_header(server: Server, accept: str, media_type: str) -> None:
    r = server.query(CLAIM_OF_TEA, accept)
    assert r.status == 200, r.text
    assert r.content_type.split(";")[0] == media_type
    if media_type.endswith("json"):
        rows = [b["c"]["value"] for b in r.json()["results"]["bindings"]]
    elif media_type.endswith("xml"):
        ns = {"r": "http://www.w3.org/2005/sparql-results#"}
        rows = [u.text for u in ET.fromstring(r.body).iterfind(".//r:uri", ns)]
    elif media_type == "text/csv":
        rows = [row["c"] for row in csv.DictReader(io.StringIO(r.text))]
    else:
        rows = [line.strip("<>") for line in r.text.splitlines()[1:]]
    assert rows == [EX + "c0"]


def test_ask_answers_a_boolean(server: Server) -> None:
    r = server.query(f"ASK {{ GRAPH ?g {{ <{EX}c0> a mem:Claim }} }}")
    assert r.status == 200 and r.json()["boolean"] is True


@pytest.mark.parametrize(
    "accept, fmt",
    [
        ("text/turtle", RdfFormat.TURTLE),
        ("application/n-triples", RdfFormat.N_TRIPLES),
        ("application/trig", RdfFormat.TRIG),
        ("application/n-quads", RdfFormat.N_QUADS),
        ("application/rdf+xml", RdfFormat.RDF_XML),
        ("*/*", RdfFormat.TURTLE),
    ],
)
def test_construct_results_are_graphs_in_the_accepted_format(server: Server, accept: str, fmt: RdfFormat) -> None:
    r = server.query(
        f"CONSTRUCT {{ ?c rdf:reifies ?t }} WHERE {{ GRAPH ?g {{ ?c rdf:reifies ?t FILTER(?c = <{EX}c0>) }} }}", accept
    )
    assert r.status == 200, r.text
    assert r.content_type.split(";")[0] == fmt.media_type
    (quad,) = graph_quads(r.body, fmt)
    assert quad.subject == NamedNode(EX + "c0")
    assert quad.object == Triple(NamedNode(EX + "Lia"), NamedNode(EX + "prefers"), NamedNode(EX + "teaWithoutSugar"))


def test_format_parameter_overrides_accept(server: Server) -> None:
    r = server.query(CLAIM_OF_TEA, "application/sparql-results+json", format="tsv")
    assert r.status == 200 and r.content_type.startswith("text/tab-separated-values")


def test_nothing_acceptable_is_406(server: Server) -> None:
    r = server.query(CLAIM_OF_TEA, "image/png")
    assert r.status == 406
    # A table cannot be Turtle, and a graph cannot be CSV.
    assert server.query(CLAIM_OF_TEA, "text/turtle").status == 406
    assert server.query("CONSTRUCT WHERE { ?s ?p ?o }", "text/csv").status == 406


def test_malformed_query_is_400_with_line_and_column(server: Server) -> None:
    r = server.query("SELECT ?s WHERE {\n  ?s ?p \n}")
    assert r.status == 400
    assert r.text.startswith("<query>:3:")  # line 3, where the triple pattern is cut short
    as_json = server.query("SELECT ?s WHERE {\n  ?s ?p \n}", "application/json")
    error = as_json.json()["error"]
    assert (error["status"], error["line"]) == (400, 3) and error["column"] >= 1


def test_protocol_dataset_parameters_choose_the_graphs(server: Server) -> None:
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?c a mem:Claim }"
    assert server.query(query, "text/csv").text.split()[1] == "0"  # the default graph holds no claims
    in_lia = server.query(query, "text/csv", **{"default-graph-uri": LIA_GRAPH})
    assert int(in_lia.text.split()[1]) > 0
    named = server.query(
        "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", "text/csv", **{"named-graph-uri": LIA_GRAPH}
    )
    assert named.text.split() == ["g", LIA_GRAPH]


def test_missing_query_parameter_is_400(server: Server) -> None:
    assert server.request("GET", "/sparql").status == 400


def test_wrong_method_is_405_with_allow(server: Server) -> None:
    r = server.request("DELETE", "/sparql")
    assert r.status == 405 and r.headers["allow"] == "GET, POST"


def test_cors_preflight(server: Server) -> None:
    r = server.request(
        "OPTIONS", "/sparql",
        headers={"Origin": "http://example.org", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type, authorization"},
    )
    assert r.status == 204
    assert r.headers["access-control-allow-origin"] == "*"
    assert "POST" in r.headers["access-control-allow-methods"]
    assert r.headers["access-control-allow-headers"] == "content-type, authorization"


# -- views, page, health -----------------------------------------------------------------------


def test_view_with_parameters(server: Server) -> None:
    r = server.request("GET", f"/views/current?tenant={quote(LIA_GRAPH)}", headers={"Accept": "application/json"})
    assert r.status == 200
    claims = {b["claim"]["value"] for b in r.json()["results"]["bindings"]}
    assert EX + "c0" in claims and EX + "cName1" in claims and EX + "cName0" not in claims  # superseded
    before = server.request(
        "GET", f"/views/historical?valid_at=2026-01-02T00:00:00Z&tenant={quote(LIA_GRAPH)}",
        headers={"Accept": "application/json"},
    )
    assert before.status == 200
    then = {b["claim"]["value"] for b in before.json()["results"]["bindings"]}
    assert EX + "c0" in then and EX + "c1" not in then  # c1 is valid from day 52


@pytest.mark.parametrize(
    "path, status, message",
    [
        ("/views/historical?valid_at=yesterday", 400, "not a valid datetime"),
        ("/views/current?colour=blue", 400, "no parameter 'colour'"),
        ("/views/history", 400, "needs parameter 'claim'"),
        ("/views/nonsense", 404, "no view named 'nonsense'"),
        ("/recall?q=tea&known_at=yesterday", 400, "known_at: not a date-time: 'yesterday'"),
        ("/recall?q=tea&valid_at=2026-01-01T00:00:00", 400, "valid_at: '2026-01-01T00:00:00' has no timezone"),
    ],
)
def test_bad_view_requests(server: Server, path: str, status: int, message: str) -> None:
    r = server.request("GET", path)
    assert r.status == status and message in r.text


def test_a_view_s_query_text_is_what_the_view_runs(server: Server) -> None:
    r = server.request("GET", f"/views/current/query?tenant={quote(LIA_GRAPH)}&subject=ex:Lia")
    assert r.status == 200 and r.content_type.startswith("application/sparql-query")
    first, _, rest = r.text.partition("\n")
    assert first == f"# view current (tenant={LIA_GRAPH}, subject=ex:Lia): the claims the store knows now and that are valid now."
    assert f"VALUES (?subject ?standing) {{ (<{EX}Lia> UNDEF) }}" in rest and "#+" not in rest and "# How:" not in rest
    # run as a query over the tenant's graph, it gives the view's rows
    rows = server.query(rest.replace(" WHERE {", f" FROM <{LIA_GRAPH}> FROM <https://w3id.org/memkg> WHERE {{", 1),
                        accept="application/json").json()["results"]["bindings"]
    view = server.request("GET", f"/views/current?tenant={quote(LIA_GRAPH)}&subject=ex:Lia",
                          headers={"Accept": "application/json"}).json()["results"]["bindings"]
    assert rows and sorted(b["claim"]["value"] for b in rows) == sorted(b["claim"]["value"] for b in view)
    assert server.request("GET", "/views/nonsense/query").status == 404


def test_recall_for_a_period_the_memory_does_not_have_says_nothing_matched(server: Server) -> None:
    found = server.request("GET", "/recall?" + urlencode({"q": "what changed in May 2023?"})).json()
    assert found["matched"] is False and found["hits"]


def test_view_list_and_query_page(server: Server) -> None:
    listed = {v["name"]: v for v in server.request("GET", "/views").json()}
    assert {"current", "historical", "audit", "history", "lineage", "dependents"} <= set(listed)
    assert [p["name"] for p in listed["historical"]["params"] if p["required"]] == ["valid_at"]
    page = server.request("GET", "/")
    assert page.status == 200 and page.content_type.startswith("text/html")
    html = page.text
    assert "<textarea" in html and "fetch(" in html
    assert "http://" not in html and "https://" not in html  # nothing loaded from elsewhere


def test_connections_are_kept_alive(server: Server) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("GET", "/health")
        conn.getresponse().read()
        sock = conn.sock
        conn.request("GET", "/sparql?" + urlencode({"query": CLAIM_OF_TEA}))
        assert conn.getresponse().read()
        assert conn.sock is sock and sock is not None  # one connection, two requests
    finally:
        conn.close()


def test_health(server: Server) -> None:
    health = server.health()
    assert health["status"] == "ok" and health["read_only"] is False and len(health["workers"]) >= 2
    shown = documented_health()[-1]  # the guide's answer of a server without tokens: the same fields, of the same types
    assert {k: type(v) for k, v in health.items()} == {k: type(v) for k, v in shown.items()}
    assert health["timeout"] == 20.0 and all(isinstance(pid, int) for pid in health["workers"])


# -- Graph Store Protocol -------------------------------------------------------------------------


def test_graph_store_round_trip_keeps_triple_terms(server: Server) -> None:
    lia = server.request("GET", f"/store?graph={quote(LIA_GRAPH)}", headers={"Accept": "application/n-triples"})
    assert lia.status == 200
    original = {q.triple for q in parse(lia.body, RdfFormat.N_TRIPLES)}
    assert any(isinstance(t.object, Triple) for t in original)  # the claims' RDF 1.2 triple terms
    assert not any("memkg/index#" in str(t.predicate) for t in original)  # index triples stay inside

    copy = "https://example.org/tenants/lia-copy"
    put = server.request("PUT", f"/store?graph={quote(copy)}", lia.body, {"Content-Type": "application/n-triples"})
    assert put.status == 201, put.text
    for accept, fmt in [("application/trig", RdfFormat.TRIG), ("application/n-quads", RdfFormat.N_QUADS),
                        ("text/turtle", RdfFormat.TURTLE)]:
        back = server.request("GET", f"/store?graph={quote(copy)}", headers={"Accept": accept})
        assert back.status == 200 and back.content_type.split(";")[0] == accept
        assert {q.triple for q in parse(back.body, fmt)} == original
    # The copy is queryable at once, through the claim index too (a view uses it).
    current = server.request("GET", f"/views/current?tenant={quote(copy)}", headers={"Accept": "text/csv"})
    assert EX + "c0" in current.text

    again = server.request("PUT", f"/store?graph={quote(copy)}", lia.body, {"Content-Type": "application/n-triples"})
    assert again.status == 204  # replaced, not created
    assert server.request("DELETE", f"/store?graph={quote(copy)}").status == 204
    assert server.request("GET", f"/store?graph={quote(copy)}").status == 404
    assert server.request("DELETE", f"/store?graph={quote(copy)}").status == 404


def test_graph_store_post_merges_and_head_answers_headers(server: Server) -> None:
    graph = "urn:test:post"
    for n in (1, 2):
        body = f"<urn:test:s> <urn:test:p> {n} ."
        r = server.request("POST", f"/store?graph={graph}", body, {"Content-Type": "text/turtle"})
        assert r.status == (201 if n == 1 else 204), r.text
    got = server.request("GET", f"/store?graph={graph}", headers={"Accept": "application/n-triples"})
    assert len(graph_quads(got.body, RdfFormat.N_TRIPLES)) == 2
    head = server.request("HEAD", f"/store?graph={graph}", headers={"Accept": "text/turtle"})
    assert head.status == 200 and head.body == b"" and head.content_type.startswith("text/turtle")
    assert server.request("HEAD", "/store?graph=urn:test:none").status == 404


def test_graph_store_default_graph_and_whole_store(server: Server) -> None:
    r = server.request("POST", "/store?default", "<urn:test:d> <urn:test:p> 1 .", {"Content-Type": "text/turtle"})
    assert r.status == 204, r.text
    default = server.request("GET", "/store?default", headers={"Accept": "application/n-triples"})
    assert "<urn:test:d> <urn:test:p>" in default.text
    everything = server.request("GET", "/store", headers={"Accept": "application/n-quads"})
    graphs = {str(q.graph_name) for q in parse(everything.body, RdfFormat.N_QUADS)}
    assert f"<{LIA_GRAPH}>" in graphs and "<https://w3id.org/memkg>" not in graphs  # the ontology stays out
    assert server.request("GET", "/store", headers={"Accept": "text/turtle"}).status == 406  # one graph only


def test_graph_store_post_of_a_dataset_writes_each_graph(server: Server) -> None:
    trig = "<urn:test:ds> <urn:test:p> 0 . GRAPH <urn:test:ds1> { <urn:test:ds> <urn:test:p> 1 } " \
           "GRAPH <urn:test:ds2> { <urn:test:ds> <urn:test:p> 2 }"
    r = server.request("POST", "/store", trig, {"Content-Type": "application/trig"})
    assert r.status == 204, r.text
    rows = server.query("SELECT ?g ?o WHERE { { <urn:test:ds> <urn:test:p> ?o } UNION "
                        "{ GRAPH ?g { <urn:test:ds> <urn:test:p> ?o } } } ORDER BY ?o", "text/csv")
    assert rows.text.split() == ["g,o", ",0", "urn:test:ds1,1", "urn:test:ds2,2"]


def test_a_browser_at_the_endpoint_url_gets_the_page(server: Server) -> None:
    r = server.request("GET", "/sparql", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert r.status == 200 and "<textarea" in r.text


def test_malformed_graph_store_payload_is_400_with_position(server: Server) -> None:
    r = server.request("PUT", "/store?graph=urn:test:bad", "<urn:a> <urn:b> .\n", {"Content-Type": "text/turtle"})
    assert r.status == 400
    assert r.text.startswith("<request body>:1:")
    assert server.request("GET", "/store?graph=urn:test:bad").status == 404


def test_graph_store_refuses_payloads_naming_other_graphs_and_unknown_types(server: Server) -> None:
    trig = f"GRAPH <{LIA_GRAPH}> {{ <urn:a> <urn:b> <urn:c> }}"
    r = server.request("PUT", "/store?graph=urn:test:other", trig, {"Content-Type": "application/trig"})
    assert r.status == 400 and LIA_GRAPH in r.text
    assert server.request("PUT", "/store?graph=urn:test:x", "{}", {"Content-Type": "application/json"}).status == 415
    assert server.request("PUT", "/store", "", {"Content-Type": "text/turtle"}).status == 400


def test_invalid_write_is_refused_with_the_shape_and_nothing_changes(server: Server) -> None:
    before = server.query(COUNT_CLAIMS, "text/csv").text
    bad = f"""PREFIX mem: <https://w3id.org/memkg#>
    PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
    <{EX}cBad> a mem:Claim ; rdf:reifies <<( <{EX}Lia> <{EX}prefers> <{EX}coffee> )>> ."""
    r = server.request("POST", f"/store?graph={quote(LIA_GRAPH)}", bad, {"Content-Type": "text/turtle"})
    assert r.status == 400
    assert "ClaimProvenanceShape" in r.text and f"{EX}cBad" in r.text and "nothing was written" in r.text
    assert server.query(COUNT_CLAIMS, "text/csv").text == before


def test_ontology_graph_is_not_writable(server: Server) -> None:
    r = server.request("DELETE", f"/store?graph={quote('https://w3id.org/memkg')}")
    assert r.status == 403 and "ontology" in r.text


# -- SPARQL Update ------------------------------------------------------------------------------------


def test_update_by_post_then_query_sees_it(server: Server) -> None:
    update = "INSERT DATA { GRAPH <urn:test:upd> { <urn:test:u> <urn:test:p> 'hello' } }"
    r = server.request("POST", "/update", update, {"Content-Type": "application/sparql-update"})
    assert r.status == 204, r.text
    form = urlencode({"update": "INSERT DATA { GRAPH <urn:test:upd> { <urn:test:u> <urn:test:p> 'again' } }"})
    assert server.request("POST", "/update", form, {"Content-Type": "application/x-www-form-urlencoded"}).status == 204
    r = server.query("SELECT ?o WHERE { GRAPH <urn:test:upd> { <urn:test:u> <urn:test:p> ?o } } ORDER BY ?o", "text/csv")
    assert r.text.split() == ["o", "again", "hello"]


def test_an_invalid_update_is_refused_and_changes_nothing(server: Server) -> None:
    before = server.query(COUNT_CLAIMS, "text/csv").text
    update = f"""INSERT DATA {{ GRAPH <{LIA_GRAPH}> {{
        <{EX}cBad> a mem:Claim ; rdf:reifies <<( <{EX}Lia> <{EX}prefers> <{EX}coffee> )>> }} }}"""
    r = server.request("POST", "/update", update, {"Content-Type": "application/sparql-update"})
    assert r.status == 400 and "ClaimProvenanceShape" in r.text
    assert server.query(COUNT_CLAIMS, "text/csv").text == before


def test_malformed_update_is_400(server: Server) -> None:
    r = server.request("POST", "/update", "INSERT DATA { <urn:a> }", {"Content-Type": "application/sparql-update"})
    assert r.status == 400 and r.text.startswith("<update>:1:")
    assert server.request("GET", "/update").status == 405


# -- lifecycle ------------------------------------------------------------------------------------------


def test_read_only_refuses_every_write_and_sigterm_exits_0(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store")
    server = Server(store, "--read-only")
    try:
        assert server.query(CLAIM_OF_TEA).status == 200
        writes = [
            ("POST", "/update", "INSERT DATA { <urn:a> <urn:b> <urn:c> }", "application/sparql-update"),
            ("PUT", "/store?graph=urn:test:ro", "<urn:a> <urn:b> <urn:c> .", "text/turtle"),
            ("POST", "/store?default", "<urn:a> <urn:b> <urn:c> .", "text/turtle"),
            ("DELETE", f"/store?graph={quote(LIA_GRAPH)}", "", "text/turtle"),
        ]
        for method, path, body, kind in writes:
            r = server.request(method, path, body, {"Content-Type": kind})
            assert r.status == 403 and "--read-only" in r.text, (method, path, r.status)
        snapshots = store.parent / ".store.serve"
        assert snapshots.is_dir()
        workers = server.health()["workers"]
    finally:
        code = server.terminate()
    assert code == 0
    assert "stopped, store closed" in "".join(server.log)
    assert not snapshots.exists()  # every snapshot deleted
    assert not any(pid_alive(pid) for pid in workers)
    with MemoryStore(store) as reopened:  # closed cleanly: the lock is free and the data there
        assert bool(reopened.query(f"ASK {{ GRAPH ?g {{ <{EX}c0> a mem:Claim }} }}"))


def test_serve_on_a_locked_store_fails_with_exit_2(server: Server) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "memkg", "--store", str(server.store), "serve", "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert "open for writing in another process" in run.stderr
    assert server.health()["status"] == "ok"  # the running server is unaffected


def test_serve_help_documents_the_endpoints() -> None:
    run = subprocess.run([sys.executable, "-m", "memkg", "serve", "--help"], capture_output=True, text=True)
    assert run.returncode == 0
    for word in ("--host", "--port", "--tokens", "--read-only", "--timeout", "--workers", "/sparql", "/update",
                 "/store", "/views", "/recall", "/pictures", "/health", "SIGTERM"):
        assert word in run.stdout


def test_an_unknown_route_is_404_listing_every_route(server: Server) -> None:
    r = server.request("GET", "/nowhere")
    assert r.status == 404
    for route in ("/sparql", "/update", "/store", "/views", "/recall", "/pictures", "/health"):
        assert route in r.text


def test_json_error_for_a_client_taking_only_json(server: Server) -> None:
    r = server.request("GET", "/views/nonsense", headers={"Accept": "application/json"})
    assert r.status == 404 and json.loads(r.body)["error"]["status"] == 404


# -- the time limit and concurrency ---------------------------------------------------------------------

#: A cross join over every graph: ~10^11 rows to count on the examples, far past any limit.
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?a ?b ?c . ?d ?e ?f . ?h ?i ?j . ?k ?l ?m } }"


def test_a_query_past_the_time_limit_is_killed_and_the_server_keeps_serving(tmp_path: Path) -> None:
    server = Server(make_store(tmp_path / "store"), "--timeout", "1", "--workers", "2")
    try:
        before = set(server.health()["workers"])
        started = time.monotonic()
        r = server.query(SLOW)
        took = time.monotonic() - started
        assert r.status == 503
        assert "exceeded the server's time limit of 1 s" in r.text
        assert took < 1 + 5, took  # one second, plus slack for a busy machine
        killed = before - set(server.health()["workers"])
        assert len(killed) == 1 and not pid_alive(killed.pop())
        assert server.query(CLAIM_OF_TEA).status == 200  # the next query runs
        # The pool fills up again: a new worker replaces the killed one.
        assert wait_until(lambda: len(server.health()["workers"]) == 2)
        assert server.query(CLAIM_OF_TEA).status == 200

        # SIGTERM with a query in flight: it gets the time limit as grace, then is aborted.
        answers: list[int] = []
        slow = threading.Thread(target=lambda: answers.append(server.query(SLOW).status))
        slow.start()
        time.sleep(0.3)
        stopping = time.monotonic()
    finally:
        assert server.terminate() == 0
    slow.join(10)
    assert answers == [503]
    assert time.monotonic() - stopping < 1 + 5


def test_workers_end_when_the_server_is_killed_outright(tmp_path: Path) -> None:
    server = Server(make_store(tmp_path / "store"), "--timeout", "60", "--workers", "2")
    workers = server.health()["workers"]
    def long_query() -> None:
        with contextlib.suppress(OSError):  # the server dies under it: no answer comes
            server.query(SLOW)

    busy = threading.Thread(target=long_query, daemon=True)  # one worker in a long query
    busy.start()
    time.sleep(0.5)
    server.process.kill()
    server.process.wait(10)
    assert wait_until(lambda: not any(pid_alive(pid) for pid in workers), timeout=10)


def test_concurrent_readers_never_see_half_a_write(server: Server) -> None:
    """A writer adds pairs of triples, one pair per write; readers must always count as many a's as b's."""
    graph = "urn:test:pairs"
    count = f"""SELECT (COUNT(?a) AS ?na) (COUNT(?b) AS ?nb) WHERE {{ GRAPH <{graph}> {{
        {{ ?s <urn:test:a> ?a }} UNION {{ ?s <urn:test:b> ?b }} }} }}"""
    stop = threading.Event()
    problems: list[str] = []
    seen: list[int] = []

    def write() -> None:
        for i in range(40):
            pair = f"<urn:test:pair{i}> <urn:test:a> {i} . <urn:test:pair{i}> <urn:test:b> {i} ."
            if i % 2:  # alternately through the Graph Store and SPARQL Update
                r = server.request("POST", f"/store?graph={graph}", pair, {"Content-Type": "text/turtle"})
            else:
                r = server.request(
                    "POST", "/update", f"INSERT DATA {{ GRAPH <{graph}> {{ {pair} }} }}",
                    {"Content-Type": "application/sparql-update"},
                )
            if r.status not in (201, 204):
                problems.append(f"write {i}: {r.status} {r.text}")
        stop.set()

    def read() -> None:
        last = 0
        while not stop.is_set():
            r = server.query(count, "text/csv")
            if r.status != 200:
                problems.append(f"read: {r.status} {r.text}")
                continue
            na, nb = (int(x) for x in r.text.split()[1].split(","))
            if na != nb:
                problems.append(f"torn read: {na} a's, {nb} b's")
            if na < last:
                problems.append(f"went back in time: {last} then {na}")
            last = na
            seen.append(na)

    threads = [threading.Thread(target=read) for _ in range(4)] + [threading.Thread(target=write)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not problems, problems[:5]
    assert len(seen) > 10 and len(set(seen)) > 2  # the readers did overlap the writes
    final = server.query(count, "text/csv").text.split()[1]
    assert final == "40,40"
    # 40 writes, 40 snapshots published: only the current one is left on disk.
    assert [p.name for p in (server.store.parent / ".store.serve").iterdir()] == [f"gen-{server.health()['snapshot']:06d}"]


def test_a_body_over_max_body_is_refused_with_413_before_it_is_read(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store")
    server = Server(store, "--max-body", "1000")
    try:
        small = "<urn:a> <urn:b> <urn:c> ."
        assert server.request("POST", "/store?graph=urn:test:small", small, {"Content-Type": "text/turtle"}).status in (200, 201, 204)
        big = small + "\n" + "# padding\n" * 200
        r = server.request("POST", "/store?graph=urn:test:big", big, {"Content-Type": "text/turtle"})
        assert r.status == 413 and "1,000" in r.text and "--max-body" in r.text
        assert r.headers.get("connection") == "close"  # the unread rest of the body must not be taken for a request
        # A chunked body is counted as it arrives: declared nowhere, refused all the same.
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        try:
            conn.request("POST", "/store?graph=urn:test:chunked", body=iter([big.encode()[:600], big.encode()[600:]]),
                         headers={"Content-Type": "text/turtle"}, encode_chunked=True)
            assert conn.getresponse().status == 413
        finally:
            conn.close()
        # Nothing of either was written, and the server serves on.
        ask = "ASK { GRAPH ?g { <urn:a> <urn:b> <urn:c> } FILTER(?g != <urn:test:small>) }"
        assert server.query(ask, accept="application/sparql-results+json").json()["boolean"] is False
    finally:
        server.close()
