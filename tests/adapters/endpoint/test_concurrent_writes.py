"""Writers at once on a real ``memkg serve``: no update lost, no quad written twice.

An update is planned on a snapshot without the write lock and applied only if no write
committed meanwhile (else planned again). So the test makes writes land while others plan:
several clients increment one counter by read-modify-write updates, while others append
graphs by POST; every increment must be counted once, and the counter must keep one value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.endpoint_server import Server

pytestmark = pytest.mark.slow  # a server and a few hundred writes

GRAPH = "urn:test:counter"
INCREMENT = (f"DELETE {{ GRAPH <{GRAPH}> {{ <urn:test:c> <urn:test:n> ?n }} }} "
             f"INSERT {{ GRAPH <{GRAPH}> {{ <urn:test:c> <urn:test:n> ?m }} }} "
             f"WHERE {{ GRAPH <{GRAPH}> {{ <urn:test:c> <urn:test:n> ?n }} BIND(?n + 1 AS ?m) }}")
WRITERS, INCREMENTS, APPENDS = 6, 15, 10


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("concurrent") / "store", "--timeout", "60")
    yield running
    running.close()


def update(server: Server, text: str) -> int:
    return server.request("POST", "/update", text, {"Content-Type": "application/sparql-update"}, timeout=120).status


def counter_values(server: Server) -> list[int]:
    answer = server.query(f"SELECT ?n WHERE {{ GRAPH <{GRAPH}> {{ <urn:test:c> <urn:test:n> ?n }} }}",
                          accept="application/sparql-results+json")
    rows = json.loads(answer.text)["results"]["bindings"]
    return sorted(int(row["n"]["value"]) for row in rows)


def test_concurrent_read_modify_write_updates_lose_no_increment(server: Server) -> None:
    assert update(server, f"INSERT DATA {{ GRAPH <{GRAPH}> {{ <urn:test:c> <urn:test:n> 0 }} }}") == 204

    def increments(_: int) -> list[int]:
        return [update(server, INCREMENT) for _ in range(INCREMENTS)]

    def appends(writer: int) -> list[int]:
        return [server.request("POST", f"/store?graph=urn:test:append{writer}",
                               f"<urn:test:s{writer}-{i}> <urn:test:p> {i} .",
                               {"Content-Type": "text/turtle"}, timeout=120).status for i in range(APPENDS)]

    with ThreadPoolExecutor(max_workers=2 * WRITERS) as pool:
        counted = pool.map(increments, range(WRITERS))
        appended = pool.map(appends, range(WRITERS))
        statuses = [s for batch in counted for s in batch] + [s for batch in appended for s in batch]
    assert set(statuses) <= {201, 204}, sorted(set(statuses))
    assert counter_values(server) == [WRITERS * INCREMENTS]  # none lost, and one value, never two


def test_a_graph_posted_again_by_a_retrying_client_is_written_once(server: Server, tmp_path: Path) -> None:
    body = "<urn:test:r> <urn:test:p> <<( <urn:test:a> <urn:test:b> <urn:test:c> )>> ."

    def post(_: int) -> int:
        return server.request("POST", "/store?graph=urn:test:retry", body, {"Content-Type": "text/turtle"},
                              timeout=120).status

    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        assert set(pool.map(post, range(3 * WRITERS))) <= {201, 204}
    answer = server.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:test:retry> { ?s ?p ?o } }",
                          accept="application/sparql-results+json")
    assert json.loads(answer.text)["results"]["bindings"][0]["n"]["value"] == "1"
