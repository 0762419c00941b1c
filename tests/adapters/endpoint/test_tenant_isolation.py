"""Tenant isolation over HTTP: 10,000 hostile queries and updates at a real ``memkg serve``, zero leaks.

The library decides rights (:mod:`memkg.guard.access`, tested on its own in tests/guard/test_access.py and
tests/history/test_updates.py); this test throws the same generated attacks (:mod:`tests.support.leakgen`) at the
server as any client would: queries by GET and POST with the protocol's dataset parameters,
updates by POST, with a writing token of one tenant. Three tenants' data and a shared
default graph sit in one store; the attacker's token is the ``OWN`` tenant's.

A leak is any of:

* an answer showing another tenant's marker;
* an answer that differs from the same request's answer on a second server whose other
  tenants hold *different* data (non-interference: this catches a leak through COUNT,
  EXISTS or a hash, where no marker shows);
* a server error (5xx) on a hostile request;
* after the updates: a marker of another tenant in ``OWN``'s graph, or any change to the
  other tenants' graphs or to the shared default graph (read back with their own tokens).
"""

from __future__ import annotations

import http.client
import json
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

import pytest
from pyoxigraph import DefaultGraph, NamedNode

from memkg import MemoryStore

from tests.support import leakgen
from tests.support.endpoint_server import Server

pytestmark = pytest.mark.slow

#: Requests in the whole test; MEMKG_LEAK_REQUESTS raises it for a soak run.
TOTAL = int(os.environ.get("MEMKG_LEAK_REQUESTS", "10000"))
UPDATES = TOTAL // 20  # every applied update publishes a snapshot (~0.1 s): keep them a share
QUERIES = TOTAL - UPDATES
#: Queries also sent to the variant server (non-interference costs a second request each).
COMPARED = min(QUERIES, 3000)
CLIENTS = 4

TOKENS = {
    "own-writer": {"tenants": [leakgen.OWN], "write": True},
    "other-reader": {"tenants": [leakgen.OTHER], "write": False},
    "third-reader": {"tenants": [leakgen.THIRD], "write": False},
}


def _server(folder: Path, *, other_variant: bool) -> Server:
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    with MemoryStore(folder / "store", validation=None) as store:
        store.write(leakgen.dataset(other_variant=other_variant))
    return Server(folder / "store", "--tokens", str(tokens), "--timeout", "20")


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> tuple[Server, Server]:
    full = _server(tmp_path_factory.mktemp("full"), other_variant=False)
    variant = _server(tmp_path_factory.mktemp("variant"), other_variant=True)
    yield full, variant
    full.close()
    variant.close()


class Client:
    """One keep-alive connection per thread, with a tenant's token."""

    def __init__(self, server: Server, token: str) -> None:
        self.conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        self.auth = {"Authorization": f"Bearer {token}"}

    def send(self, method: str, path: str, body: str | None = None, headers: dict[str, str] | None = None) -> tuple[int, str]:
        self.conn.request(method, path, body=body.encode() if body is not None else None, headers={**self.auth, **(headers or {})})
        resp = self.conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")

    def query(self, case: leakgen.Case, how: str) -> tuple[int, str]:
        accept = {"Accept": "text/tab-separated-values, application/n-triples;q=0.9"}
        if how == "GET":
            return self.send("GET", "/sparql?" + urlencode(case.http_params()), headers=accept)
        form = {"Content-Type": "application/x-www-form-urlencoded", **accept}
        return self.send("POST", "/sparql", urlencode(case.http_params()), form)


def _canonical(status: int, text: str) -> str:
    """An answer independent of row order (and of the server's temporary file names in errors)."""
    if status != 200:
        return str(status)
    lines = text.splitlines()
    return "\n".join(lines[:1] + sorted(lines[1:]))


def test_hostile_queries_over_http_read_nothing_of_other_tenants(servers: tuple[Server, Server]) -> None:
    full, variant = servers
    cases = list(leakgen.cases(QUERIES, seed=20261130))

    def run(chunk: list[tuple[int, leakgen.Case]]) -> tuple[Counter, list]:
        seen: Counter = Counter()
        leaks: list = []
        a, b = Client(full, "own-writer"), Client(variant, "own-writer")
        for i, case in chunk:
            how = "GET" if i % 2 else "POST"
            status, text = a.query(case, how)
            seen[status] += 1
            if status >= 500 or leakgen.leaks(text):
                leaks.append((case, status, text[:200]))
            elif i < COMPARED:
                other = b.query(case, how)
                if _canonical(status, text) != _canonical(*other):
                    leaks.append((case, "differs on the variant", text[:200], other[1][:200]))
        return seen, leaks

    numbered = list(enumerate(cases))
    chunks = [numbered[k::CLIENTS] for k in range(CLIENTS)]
    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(run, chunks))
    statuses = sum((r[0] for r in results), Counter())
    leaks = [leak for r in results for leak in r[1]]
    print(f"hostile queries over HTTP: {QUERIES} sent, statuses {dict(statuses)}, {len(leaks)} leak(s)")
    assert not leaks, f"{len(leaks)} leak(s), first: {leaks[:3]}"
    # Meaningful only if many hostile queries ran and many were refused.
    assert statuses[200] > QUERIES * 0.3 and statuses[403] > QUERIES * 0.2, statuses


def _graph_text(server: Server, token: str, graph: NamedNode | DefaultGraph) -> list[str]:
    path = "/store?default" if isinstance(graph, DefaultGraph) else "/store?" + urlencode({"graph": graph.value})
    status, text = Client(server, token).send("GET", path, headers={"Accept": "application/n-triples"})
    assert status == 200, text
    return sorted(text.splitlines())


def test_hostile_updates_over_http_stay_in_the_tenant(servers: tuple[Server, Server]) -> None:
    full, _ = servers
    before = {
        "other": _graph_text(full, "other-reader", NamedNode(leakgen.OTHER)),
        "third": _graph_text(full, "third-reader", NamedNode(leakgen.THIRD)),
        "shared": _graph_text(full, "other-reader", DefaultGraph()),
    }
    assert all(before.values())
    client = Client(full, "own-writer")
    statuses: Counter = Counter()
    errors = []
    for update in leakgen.update_cases(UPDATES, seed=20261130):
        status, text = client.send("POST", "/update", update, {"Content-Type": "application/sparql-update"})
        statuses[status] += 1
        if status >= 500:
            errors.append((update, status, text[:200]))
    mine = _graph_text(full, "own-writer", NamedNode(leakgen.OWN))
    after = {
        "other": _graph_text(full, "other-reader", NamedNode(leakgen.OTHER)),
        "third": _graph_text(full, "third-reader", NamedNode(leakgen.THIRD)),
        "shared": _graph_text(full, "other-reader", DefaultGraph()),
    }
    print(f"hostile updates over HTTP: {UPDATES} sent, statuses {dict(statuses)}")
    assert not errors, errors[:3]
    assert not leakgen.leaks("\n".join(mine)), "another tenant's data was copied into OWN's graph"
    assert after == before, "a hostile update changed another tenant's graph or the shared graph"
    assert statuses[204] > UPDATES * 0.1 and statuses[403] > UPDATES * 0.3, statuses
