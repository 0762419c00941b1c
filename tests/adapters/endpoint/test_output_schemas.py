"""The endpoint's JSON against its schemas, every documented field exercised, on a real ``memkg serve``.

SPARQL 1.1 Query Results JSON (``/sparql``, ``/views/NAME``), ``/views``, ``/recall``, the three
answers of ``/health`` (no token, a tenant's token, a server without tokens), errors as JSON,
``/pictures`` and each picture as JSON. Schemas: ``tests/fixtures/schemas``. The JSON routes are
read from the handler's route table: a new one fails here until it has a schema and calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.support.endpoint_server import Server
from tests.support.examples import LIA_GRAPH
from tests.support.schemas import ACME, ACME_GRAPH, EX, Coverage, varied_store

pytestmark = pytest.mark.slow

TOKEN = "lia-reads"
JSON = {"Accept": "application/json"}
RESULTS = {"Accept": "application/sparql-results+json"}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """An open server, and one with tokens (a read-only token for Lia's tenant), each on its own
    store where every field shows (:func:`tests.support.schemas.varied_store`)."""
    folder = tmp_path_factory.mktemp("schemas")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({TOKEN: {"tenants": [LIA_GRAPH], "write": False}}))
    running: dict[str, Server] = {}
    try:
        running["open"] = Server(varied_store(folder / "open"), "--timeout", "30")
        running["tokens"] = Server(varied_store(folder / "tokens"), "--timeout", "30", "--tokens", str(tokens))
        yield running
    finally:
        for server in running.values():
            server.close()


def _get(server: Server, target: str, headers: dict[str, str] | None = None, status: int = 200) -> Any:
    answer = server.request("GET", target, headers=headers or JSON)
    assert answer.status == status, f"GET {target}: {answer.status} {answer.text[:500]}"
    assert answer.content_type.startswith("application/"), f"GET {target}: {answer.content_type}"
    return answer.json()


def _q(path: str, **params: str | list[str]) -> str:
    return path + "?" + urlencode(params, doseq=True)


TRIPLE_TERMS = ("SELECT ?iri ?blank ?tagged ?number ?said WHERE { VALUES (?iri ?tagged ?number) "
                "{ (<urn:x:a> 'thé'@fr 42) } BIND(BNODE() AS ?blank) BIND(<<( <urn:x:a> <urn:x:p> 'o' )>> AS ?said) }")

#: Each JSON route: its schema, and the requests (server, target, headers, status) that show every field.
CALLS: dict[str, tuple[str, list[tuple[str, str, dict[str, str], int]]]] = {
    "/sparql": ("sparql-results.json", [
        ("open", _q("/sparql", query=TRIPLE_TERMS), RESULTS, 200),
        ("open", _q("/sparql", query="ASK { GRAPH ?g { ?c a mem:Claim } }"), RESULTS, 200),
        ("open", _q("/sparql", query="SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", format="json"), {}, 200),
    ]),
    "/views/NAME": ("sparql-results.json", [
        ("open", _q("/views/current", tenant=LIA_GRAPH), RESULTS, 200),
        ("open", _q("/sparql", query=TRIPLE_TERMS), RESULTS, 200),
        ("open", _q("/sparql", query="ASK { }"), RESULTS, 200),
    ]),
    "/views": ("views.json", [("open", "/views", JSON, 200)]),
    "/recall": ("recall.json", [
        ("open", _q("/recall", q="What is Lia called, Amelia?", tenant=LIA_GRAPH, k="30"), JSON, 200),
        ("open", _q("/recall", q="coffee night caffeine", tenant=LIA_GRAPH, k="20", valid_at="2026-01-05T00:00:00Z"), JSON, 200),
        ("open", _q("/recall", q="what did Lia say in February 2026", tenant=LIA_GRAPH, k="5", packet="true"), JSON, 200),
        ("tokens", _q("/recall", q="tea without sugar", k="5"), {**JSON, "Authorization": f"Bearer {TOKEN}"}, 200),
        ("open", _q("/recall", q="zebra quantum chromodynamics", tenant=LIA_GRAPH, k="2"), JSON, 200),
        ("open", _q("/recall", q="okapi sanctuary", tenant=LIA_GRAPH, k="40"), JSON, 200),
        ("open", _q("/recall", q="when does the ledger cut over?", tenant=ACME_GRAPH, k="10"), JSON, 200),  # fallen
    ]),
    "/health": ("health.json", [
        ("tokens", "/health", JSON, 200),
        ("tokens", "/health", {**JSON, "Authorization": f"Bearer {TOKEN}"}, 200),
        ("open", "/health", JSON, 200),
    ]),
    "/pictures": ("pictures.json", [("open", "/pictures", JSON, 200)]),
    "/pictures/KIND": ("picture.json", [
        ("open", _q("/pictures/history", claim=EX + "cName1", format="json"), {}, 200),
        ("open", _q("/pictures/history", claim=ACME + "cUptime", format="json"), {}, 200),
        ("open", _q("/pictures/lineage", claim=ACME + "cMigration", format="json"), {}, 200),
        ("open", _q("/pictures/support", claim=ACME + "cMigration", format="json"), {}, 200),
        ("open", _q("/pictures/packet", claim=[ACME + "cSelection", ACME + "cAnswerLoss"], format="json"), {}, 200),
    ]),
}

#: Errors as JSON (for a client that accepts only JSON): a parse error with its line and column,
#: a token refused, a route not found, a method not allowed, nothing acceptable, a body of the wrong type.
ERRORS = [
    ("open", "GET", _q("/sparql", query="SELECT * WHERE {\n  ?s ?p }"), None, {}, 400),
    ("tokens", "GET", _q("/sparql", query="SELECT * WHERE { ?s ?p ?o }"), None, {}, 401),
    ("tokens", "GET", _q("/sparql", query="SELECT * WHERE { GRAPH <urn:x:other> { ?s ?p ?o } }"), None,
     {"Authorization": f"Bearer {TOKEN}"}, 403),
    ("open", "GET", "/nothing-here", None, {}, 404),
    ("open", "DELETE", "/views", None, {}, 405),
    ("open", "POST", "/update", b"INSERT DATA { <urn:x:s> <urn:x:p> <urn:x:o> }", {"Content-Type": "text/plain"}, 415),
]

#: JSON routes of the route table whose JSON is a standard's, checked above under another route.
SAME_AS = {"/query": "/sparql", "/store": "graphs are RDF, not JSON (Turtle, N-Triples, TriG, N-Quads)",
           "/": "the query page (HTML)", "/update": "answers 204 without a body, or an error (checked below)",
           "/views/NAME/query": "the SPARQL text a view runs (application/sparql-query)"}


def test_every_route_has_a_schema_or_says_why_not() -> None:
    from tests.adapters.test_tenant_scope import _routes

    paths = {path for _, path in _routes()}
    assert paths <= set(CALLS) | set(SAME_AS), f"routes without a schema here: {sorted(paths - set(CALLS) - set(SAME_AS))}"


@pytest.mark.parametrize("route", sorted(CALLS))
def test_each_routes_json_follows_its_schema_and_shows_every_field(servers: dict[str, Server], route: str) -> None:
    name, calls = CALLS[route]
    coverage = Coverage(name)
    for which, target, headers, status in calls:
        coverage.add(_get(servers[which], target, headers, status), f"GET {target} on the {which} server")
    coverage.assert_complete()


def test_errors_as_json_follow_their_schema_with_the_place_of_a_parse_error(servers: dict[str, Server]) -> None:
    coverage = Coverage("error.json")
    for which, method, target, body, headers, status in ERRORS:
        answer = servers[which].request(method, target, body, {**headers, "Accept": "application/json"})
        assert answer.status == status, f"{method} {target}: {answer.status} {answer.text[:300]}"
        error = coverage.add(answer.json(), f"{method} {target}")["error"]
        assert error["status"] == status
    coverage.assert_complete()

