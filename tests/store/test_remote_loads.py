"""Loads through ``--endpoint`` at the server's own speed, on Oxigraph's server and Virtuoso 7.

A large load goes by the server's Graph Store Protocol (Oxigraph's ``/store``, Virtuoso's
``/sparql-graph-crud``); an update past the server's body limit is sent in parts once the
server's refusal told the limit; validation reads the event ids of a write in a few queries,
never a request per message. Each server is started fresh here and stopped after; a missing
binary skips with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from memkg import MemoryStore
from memkg.adapters.cli import main
from memkg.store import loads
from memkg.store.backends.sparql import RemoteError
from memkg.store.backends.sparql.server_store import _size_limit

from tests.support.examples import EXAMPLES
from tests.support.remote_servers import Server, start_oxigraph, start_virtuoso
from tests.support.write_targets import canonical

pytestmark = pytest.mark.slow

FILES = [EXAMPLES / "lia-tea.trig", EXAMPLES / "postgres-migration.trig"]


@pytest.fixture(scope="module", params=["oxigraph", "virtuoso"])
def server(request, tmp_path_factory) -> Iterator[Server]:
    starter = {"oxigraph": start_oxigraph, "virtuoso": start_virtuoso}[request.param]
    started = starter(tmp_path_factory.mktemp(request.param))
    if isinstance(started, str):
        pytest.skip(started)
    yield started
    started.stop()


def messages(path: Path, tenant: str, count: int, *, first: int = 0) -> Path:
    """A TriG file of ``count`` messages in ``tenant``, each with its own event id."""
    lines = ["PREFIX mem: <https://w3id.org/memkg#>", f"GRAPH <{tenant}> {{"]
    lines += [f'  <{tenant}/m{i}> a mem:Message ; mem:content "message {i}" ; mem:eventId "event-{i}" .'
              for i in range(first, first + count)]
    path.write_text("\n".join(lines + ["}"]) + "\n")
    return path


def test_a_large_load_goes_by_the_graph_store_protocol(server: Server, monkeypatch, capsys) -> None:
    monkeypatch.setattr(loads, "BULK_THRESHOLD", 10)
    assert main(["--endpoint", server.endpoint, "load", *map(str, FILES)]) == 0
    assert "written by the Graph Store Protocol" in capsys.readouterr().out
    embedded = MemoryStore()
    embedded.load(*FILES)
    remote = MemoryStore.connect(server.endpoint)
    assert canonical(remote.quads()) == canonical(embedded.quads())
    assert main(["--endpoint", server.endpoint, "index", "check"]) == 0


def test_validation_reads_the_event_ids_of_a_write_in_a_few_requests(server: Server, tmp_path: Path, capsys) -> None:
    tenant = "https://example.org/tenants/events"
    remote = MemoryStore.connect(server.endpoint)
    remote.load(messages(tmp_path / "first.trig", tenant, 300))
    client = remote.backend.client
    before = client.requests
    remote.load(messages(tmp_path / "more.trig", tenant, 300, first=300))
    assert client.requests - before < 40, client.requests - before  # it was over 600
    # a message that reuses a stored event id is still refused, naming the invariant
    reused = tmp_path / "reused.trig"
    reused.write_text(f'PREFIX mem: <https://w3id.org/memkg#>\nGRAPH <{tenant}> {{ <{tenant}/again> a mem:Message ;'
                      f' mem:content "again" ; mem:eventId "event-7" . }}\n')
    assert main(["--endpoint", server.endpoint, "load", str(reused)]) == 1
    assert "UniqueEventId" in capsys.readouterr().err


def test_an_update_past_the_servers_limit_is_sent_in_parts(server: Server, tmp_path: Path, capsys) -> None:
    tenant = "https://example.org/tenants/parts"
    remote = MemoryStore.connect(server.endpoint)
    remote.backend.client.body_limit = 8_000  # as if the server had refused a larger body
    report = remote.load(messages(tmp_path / "parts.trig", tenant, 200))
    assert report.written_by.endswith("updates (the server takes at most 8,000 bytes a request)"), report.written_by
    assert int(report.written_by.split()[0]) > 5
    held = {q.subject for q in remote.quads(graph=NamedNode(tenant))}
    assert len(held) == 200


def test_the_servers_refusal_of_a_large_update_teaches_its_limit(server: Server) -> None:
    remote = MemoryStore.connect(server.endpoint)
    raw = remote.backend.store
    if server.name == "oxigraph":  # its limit is 128 MiB: too much for a test; its refusal is read
        refusal = RemoteError("HTTP 400 Bad Request: SPARQL body payloads are limited to 134217728 bytes, "
                              "found 140588931 bytes", status=400)
        assert _size_limit(refusal, 140588931) == 134217728 * 9 // 10
        return
    graph = NamedNode("https://example.org/tenants/big")
    quads = [Quad(NamedNode(f"{graph.value}/x{i}"), NamedNode("https://example.org/p"), Literal("v" * 60 + str(i)),
                  graph) for i in range(130_000)]  # about 12 MB as one update, over Virtuoso's 10 MB
    raw.apply(insert=quads)
    assert "updates (the server takes at most" in raw.written_by, raw.written_by
    assert raw.client.body_limit is not None and raw.client.body_limit < 12_000_000
    count = raw.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }}")
    assert int(next(iter(count))["n"].value) == len(quads)
    assert isinstance(remote.backend.client.body_limit, int)
