"""``GET /recall`` on ``memkg serve`` under tokens, and recall through ``--endpoint`` (a store over a SPARQL backend)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

from memkg import MemoryStore, Message, Vertex
from memkg.adapters.cli import main
from memkg.store.backends.sparql import RemoteError, route_url
from memkg.core.vocab import mem

from tests.support.endpoint_server import Server

pytestmark = pytest.mark.slow

EX = "https://example.org/"
A, B = EX + "tenants/a", EX + "tenants/b"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("recall")
    with MemoryStore(folder / "store") as store:
        for graph, who, text in ((A, "lia", "Lia drinks green tea in the evening"),
                                 (B, "bob", "Bob drinks green tea in the evening, a secret of tenant B")):
            store.add(Vertex(id=EX + who, cls=mem.Person, display_name=who.title()), graph=graph)
            store.add(Message(id=f"{EX}{who}-said", content=text, sender=EX + who), graph=graph)
        store.add(Message(id=EX + "shared", content="Everyone drinks tea at the office"))
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({
        "token-a": {"tenants": [A], "write": True},
        "token-b": {"tenants": [B], "write": False},
        "token-all": {"tenants": [A, B], "write": False},
    }))
    running = Server(folder / "store", "--tokens", str(tokens))
    yield running
    running.close()


def ask(server: Server, token: str | None, **params: str):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return server.request("GET", "/recall?" + urlencode(params), headers=headers)


def test_a_token_only_ever_gets_its_tenants_hits(server: Server) -> None:
    answer = ask(server, "token-a", q="who drinks green tea in the evening?", k="50")
    assert answer.status == 200, answer.text
    body = answer.json()
    assert body["query"] == "who drinks green tea in the evening?"
    nodes = {h["node"] for h in body["hits"]}
    assert EX + "lia-said" in nodes and EX + "shared" in nodes
    assert not any("bob" in n for n in nodes)
    assert all(h["graph"] in (A, None) for h in body["hits"])
    b = ask(server, "token-b", q="Lia green tea", k="50").json()
    assert all(h["graph"] in (B, None) for h in b["hits"]) and EX + "lia-said" not in {h["node"] for h in b["hits"]}


def test_a_tenant_beyond_the_token_is_forbidden_and_no_token_is_unauthorized(server: Server) -> None:
    assert ask(server, "token-a", q="tea", tenant=B).status == 403
    assert ask(server, None, q="tea").status == 401
    assert ask(server, "nonsense", q="tea").status == 401
    both = ask(server, "token-all", q="green tea", tenant=B, k="50").json()
    assert all(h["graph"] in (B, None) for h in both["hits"])


def test_bad_parameters_are_400(server: Server) -> None:
    for params in ({"q": "tea", "k": "zero"}, {"q": "tea", "k": "0"}, {"k": "3"},
                   {"q": "tea", "valid_at": "2023-01-01"}, {"q": "tea", "packet": "maybe"}, {"q": "  "}):
        assert ask(server, "token-a", **params).status == 400, params


def test_the_packet_comes_with_the_hits(server: Server) -> None:
    body = ask(server, "token-a", q="green tea", k="2", packet="true").json()
    assert set(body["packet"]["seeds"]) == {h["node"] for h in body["hits"]}
    assert ask(server, "token-all", q="green tea", packet="true").status == 400  # which tenant's packet?


def test_recall_through_a_remote_store_asks_the_server(server: Server) -> None:
    remote = MemoryStore.connect(server.url + "/sparql", token="token-a")
    hits = remote.recall("who drinks green tea?", k=5)
    assert hits and hits[0].node in (EX + "lia-said", EX + "shared")
    assert all(h.graph in (A, None) for h in hits)


def test_recall_with_endpoint_from_the_command_line(server: Server, capsys, monkeypatch) -> None:
    monkeypatch.setenv("MEMKG_TOKEN", "token-a")
    assert main(["--endpoint", server.url + "/sparql", "recall", "green tea", "--format", "json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and all(h["graph"] in (A, None) for h in hits)


def test_a_plain_sparql_server_answers_no_recall(tmp_path: Path) -> None:
    from tests.support.remote_servers import start_oxigraph

    started = start_oxigraph(tmp_path)
    if isinstance(started, str):
        pytest.skip(f"no Oxigraph server to try: {started}")
    try:
        with pytest.raises(RemoteError, match="only `memkg serve` keeps"):
            MemoryStore.connect(started.endpoint).recall("tea")
    finally:
        started.stop()


def test_a_memkg_servers_routes_sit_beside_its_query_url() -> None:
    assert route_url("http://h:1/sparql", "recall") == "http://h:1/recall"
    assert route_url("http://h:1/query", "recall") == "http://h:1/recall"
    assert route_url("http://h:1/x/", "recall") == "http://h:1/x/recall"
