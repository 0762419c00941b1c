"""``memkg serve --tokens``: 401 without a known token, 403 beyond its rights, one tenant never sees another.

The endpoint only carries the Authorization header to :mod:`memkg.guard.access`, which decides.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest


from tests.support.examples import LIA_GRAPH
from tests.support.endpoint_server import Server, documented_health, make_store

pytestmark = pytest.mark.slow

ACME_GRAPH = "https://example.org/tenants/acme"
TENANTS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?c a mem:Claim } } ORDER BY ?g"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Server:
    folder = tmp_path_factory.mktemp("tokens")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({
        "lia-reader": {"tenants": [LIA_GRAPH], "write": False},
        "acme-writer": {"tenants": [ACME_GRAPH], "write": True},
    }))
    running = Server(make_store(folder / "store"), "--tokens", str(tokens))
    yield running
    running.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Accept": "text/csv"}


def test_no_token_or_an_unknown_one_is_401(server: Server) -> None:
    for headers in ({}, {"Authorization": "Bearer nope"}):
        r = server.request("GET", "/sparql?" + urlencode({"query": TENANTS}), headers=headers)
        assert r.status == 401
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_a_token_sees_only_its_tenant(server: Server) -> None:
    r = server.request("GET", "/sparql?" + urlencode({"query": TENANTS}), headers=bearer("lia-reader"))
    assert r.status == 200 and r.text.split() == ["g", LIA_GRAPH]
    r = server.request("GET", "/sparql?" + urlencode({"query": TENANTS}), headers=bearer("acme-writer"))
    assert r.status == 200 and r.text.split() == ["g", ACME_GRAPH]


def test_a_view_s_query_text_is_given_for_the_token_s_tenants_only(server: Server) -> None:
    mine = server.request("GET", f"/views/current/query?tenant={quote(LIA_GRAPH)}", headers=bearer("lia-reader"))
    assert mine.status == 200 and mine.text.startswith(f"# view current (tenant={LIA_GRAPH})")
    other = server.request("GET", f"/views/current/query?tenant={quote(ACME_GRAPH)}", headers=bearer("lia-reader"))
    assert other.status == 403 and "not one of this token's tenants" in other.text
    assert server.request("GET", f"/views/current/query?tenant={quote(LIA_GRAPH)}").status == 401


def test_a_token_cannot_read_or_write_another_tenants_graph(server: Server) -> None:
    assert server.request("GET", f"/store?graph={quote(ACME_GRAPH)}", headers=bearer("lia-reader")).status == 403
    assert server.request("GET", f"/views/current?tenant={quote(ACME_GRAPH)}", headers=bearer("lia-reader")).status == 403
    put = server.request(
        "PUT", f"/store?graph={quote(LIA_GRAPH)}", "<urn:a> <urn:b> <urn:c> .",
        {**bearer("acme-writer"), "Content-Type": "text/turtle"},
    )
    assert put.status == 403
    own = server.request("GET", f"/store?graph={quote(LIA_GRAPH)}", headers={**bearer("lia-reader"), "Accept": "text/turtle"})
    assert own.status == 200


def test_a_from_hidden_by_quote_pairing_is_403_naming_the_graph(server: Server) -> None:
    # a greedy lexer reads `<2&&'>` as an IRI and the quotes then hide the FROM
    hidden = f"SELECT (1<2&&'>'!='' AS ?x) ?o FROM <{ACME_GRAPH}> WHERE {{ ?s ?p ?o BIND('' AS ?z) }} #'"
    r = server.request("GET", "/sparql?" + urlencode({"query": hidden}), headers=bearer("lia-reader"))
    assert r.status == 403 and ACME_GRAPH in r.text
    own = hidden.replace(ACME_GRAPH, LIA_GRAPH)
    r = server.request("GET", "/sparql?" + urlencode({"query": own}), headers=bearer("lia-reader"))
    assert r.status == 200 and len(r.text.splitlines()) > 1


def test_a_read_only_token_cannot_write(server: Server) -> None:
    r = server.request(
        "POST", f"/store?graph={quote(LIA_GRAPH)}", "<urn:a> <urn:b> <urn:c> .",
        {**bearer("lia-reader"), "Content-Type": "text/turtle"},
    )
    assert r.status == 403
    # named as the tokens file's first entry, once: not "token token #1"
    assert "token #1 may not write" in r.text and "token token" not in r.text


def test_a_bad_tokens_file_stops_the_server_with_exit_2(tmp_path: Path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "tokens.json"
    bad.write_text("{not json")
    run = subprocess.run(
        [sys.executable, "-m", "memkg", "--store", str(tmp_path / "store"), "serve", "--port", "0", "--tokens", str(bad)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2 and str(bad) in run.stderr


def test_health_answers_what_the_guide_shows(server: Server) -> None:
    without, with_token, _ = documented_health()
    assert server.request("GET", "/health").json() == without
    assert server.request("GET", "/health", headers=bearer("lia-reader")).json() == with_token  # default settings

