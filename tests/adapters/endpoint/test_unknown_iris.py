"""The endpoint answers 404 about an IRI that no graph in the caller's scope holds, with the text the
command line prints, and suggests only IRIs the caller may read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.endpoint_server import Server, make_store
from tests.support.examples import EX, LIA_GRAPH

pytestmark = pytest.mark.slow

ACME_NS = "https://example.org/acme/"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("unknown-iris")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({"all": {"tenants": [LIA_GRAPH, "https://example.org/tenants/acme"], "write": False},
                                  "lia": {"tenants": [LIA_GRAPH], "write": False}}), encoding="utf-8")
    running = Server(make_store(Path(folder) / "store"), "--tokens", str(tokens))
    yield running
    running.close()


def get(server: Server, path: str, token: str) -> tuple[int, str]:
    r = server.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    return r.status, json.loads(r.body)["error"]["message"] if r.status >= 400 else ""


def test_a_view_of_an_unknown_iri_is_404_naming_it_the_scope_and_the_nearest(server: Server) -> None:
    status, message = get(server, f"/views/lineage?claim={quote(ACME_NS + 'cMigraton')}", "all")
    assert status == 404
    assert message == (f"{ACME_NS}cMigraton is in no graph of the scope (every graph you may read); "
                       f"nearest known: {ACME_NS}cMigration")
    status, message = get(server, f"/pictures/support?claim={quote(EX + 'nope')}", "lia")
    assert status == 404 and message.startswith(f"{EX}nope is in no graph of the scope (tenant {LIA_GRAPH} ")


def test_no_other_tenant_s_iri_is_suggested(server: Server) -> None:
    status, message = get(server, f"/views/history?claim={quote(ACME_NS + 'cMigraton')}", "lia")
    assert status == 404 and "acme" not in message.removeprefix(ACME_NS + "cMigraton"), message
    status, message = get(server, f"/views/current?subject={quote(ACME_NS + 'ledger')}", "lia")
    assert status == 404 and message.endswith("(every graph you may read)"), message
