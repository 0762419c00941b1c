"""The endpoint's parameters read an IRI in every form the command line takes (``prefix:name``
with the store's prefixes, ``<iri>``, a bare ``https://…``, ``‹iri›``); text that names none,
or a compact IRI that could mean several namespaces, is a 400 naming it.

The server (conftest) holds both examples, so acme's ``ex:`` reads as ``ex2:``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from tests.support.endpoint_server import Server, make_store
from tests.support.examples import EX, LIA_GRAPH

pytestmark = pytest.mark.slow

SPELLINGS = ["ex:Lia", f"<{EX}Lia>", f"{EX}Lia", f"‹{EX}Lia›"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """conftest's server, with room for several recalls in a row on a loaded machine."""
    running = Server(make_store(tmp_path_factory.mktemp("names") / "store"), "--timeout", "120")
    yield running
    running.close()


def _get(server: Server, path: str, **params: str) -> tuple[int, str]:
    answer = server.request("GET", f"{path}?{urlencode(params)}", headers={"Accept": "application/json"})
    return answer.status, answer.text


def _rows(server: Server, view: str, **params: str) -> frozenset[str]:
    status, body = _get(server, f"/views/{view}", **params)
    assert status == 200, body
    return frozenset(json.dumps(row, sort_keys=True) for row in json.loads(body)["results"]["bindings"])


def test_a_view_parameter_reads_every_spelling_as_the_same_iri(server: Server) -> None:
    answers = {_rows(server, "current", subject=s, tenant=t) for s in SPELLINGS for t in (LIA_GRAPH, f"<{LIA_GRAPH}>")}
    assert len(answers) == 1
    assert EX + "c0" in "".join(answers.pop())


def test_recall_and_pictures_read_every_spelling(server: Server) -> None:
    recalled = [_get(server, "/recall", q="tea", tenant=t, k="3") for t in (LIA_GRAPH, f"<{LIA_GRAPH}>", f"‹{LIA_GRAPH}›")]
    assert {status for status, _ in recalled} == {200}
    assert len({json.dumps(json.loads(body)["hits"], sort_keys=True) for _, body in recalled}) == 1
    drawn = {_get(server, "/pictures/history", claim=c, format="json") for c in ("ex:c0", f"<{EX}c0>", f"‹{EX}c0›")}
    assert len(drawn) == 1 and drawn.pop()[0] == 200, drawn


@pytest.mark.parametrize(("path", "params", "text"), [
    ("/views/current", {"subject": "zz:Lia"}, "unknown prefix zz:"),
    ("/views/current", {"subject": "Lia"}, "names no IRI"),
    ("/recall", {"q": "tea", "tenant": "zz:lia"}, "unknown prefix zz:"),
    ("/pictures/history", {"claim": "_:b0"}, "blank node"),
])
def test_a_parameter_that_names_no_iri_is_a_400_naming_it(server: Server, path: str, params: dict[str, str],
                                                          text: str) -> None:
    status, body = _get(server, path, **params)
    assert status == 400 and text in body and "prefix:name, <iri>" in body


def test_a_compact_iri_that_could_mean_two_namespaces_is_a_400_naming_both(server: Server) -> None:
    status, body = _get(server, "/views/current", subject="ex:ledger")
    assert status == 400 and "(ex:ledger)" in body and "(ex2:ledger)" in body
    status, body = _get(server, "/views/current", subject="ex2:ledger")
    assert status == 200 and "migratesTo" in body
