"""support(), dependents(), withdraw() and erase() answer the same on every backend.

The examples are loaded into the embedded store, Oxigraph's server (RDF 1.2 native) and
Virtuoso 7 (RDF 1.1: memkg's encoding of triple terms). The support questions read their
structure on the server with SPARQL, so a server that evaluates one of those queries
differently gives a different answer: these tests compare every answer, before and after a
sequence of withdrawals and an erasure, and what each store holds at the end. The servers are
started and stopped here; a missing binary skips with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pyoxigraph import NamedNode, Quad

from memkg import MemoryStore
from memkg import provenance as P

from tests.support.examples import EXAMPLES, LIA_GRAPH
from tests.support.remote_servers import Server, start_oxigraph, start_virtuoso
from tests.support.write_targets import ACME_GRAPH, canonical, difference, replayable

pytestmark = pytest.mark.slow

FILES = [EXAMPLES / "lia-tea.trig", EXAMPLES / "postgres-migration.trig"]
AX = "https://example.org/acme/"
LX = "https://example.org/lia/"
TENANTS = (None, ACME_GRAPH, LIA_GRAPH)
RECORDED_AT = NamedNode("https://w3id.org/memkg#recordedAt")
START = datetime(2026, 5, 1, tzinfo=timezone.utc)


def _server(starter, tmp: Path) -> Server:
    started = starter(tmp)
    if isinstance(started, str):
        pytest.skip(started)
    return started


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> Iterator[dict[str, MemoryStore]]:
    """The three backends, each holding the examples."""
    servers = [_server(start_oxigraph, tmp_path_factory.mktemp("oxigraph"))]
    try:
        servers.append(_server(start_virtuoso, tmp_path_factory.mktemp("virtuoso")))
        opened = {"embedded": MemoryStore(tmp_path_factory.mktemp("embedded") / "store")}
        opened.update((s.name, MemoryStore.connect(s.endpoint)) for s in servers)
        for store in opened.values():
            store.load(*FILES)
        yield opened
    finally:
        for s in servers:
            s.stop()


def claims(store: MemoryStore, tenant: str | None) -> list[str]:
    graph = f"GRAPH <{tenant}>" if tenant else "GRAPH ?g"
    return sorted(r["c"].value for r in store.query(f"SELECT DISTINCT ?c WHERE {{ {graph} {{ ?c a mem:Claim }} }}"))


def sources(store: MemoryStore, tenant: str | None) -> list[str]:
    graph = f"GRAPH <{tenant}>" if tenant else "GRAPH ?g"
    text = (f"SELECT DISTINCT ?s WHERE {{ {graph} {{ ?c mem:supportedBy|mem:member|mem:echoOf|mem:assertedBy ?s }}"
            " FILTER(isIRI(?s)) }")
    return sorted(r["s"].value for r in store.query(text))


def answers(store: MemoryStore) -> dict[tuple[str, ...], Any]:
    """Every claim's support and every source's dependents, in every scope."""
    out: dict[tuple[str, ...], Any] = {}
    for tenant in TENANTS:
        scope = tenant or "every graph"
        for claim in claims(store, tenant):
            out[("support", scope, claim)] = _or_error(lambda: P.support(store, claim, tenant=tenant).to_dict())
        for source in sources(store, tenant):
            out[("dependents", scope, source)] = _or_error(
                lambda: [n.value for n in P.dependents(store, source, tenant=tenant)])
    return out


def _or_error(call) -> Any:
    try:
        return call()
    except (ValueError, LookupError) as err:  # an IRI of several tenants, asked without one
        return ("error", type(err).__name__)


def compare(found: dict[str, Any]) -> list[str]:
    expected = found["embedded"]
    differ = []
    for name, answer in found.items():
        for key in expected:
            if answer.get(key) != expected[key]:
                differ.append(f"{name} {key}: {answer.get(key)} != embedded {expected[key]}")
    return differ


def test_support_and_dependents_are_the_same_on_every_backend(stores: dict[str, MemoryStore]) -> None:
    found = {name: answers(store) for name, store in stores.items()}
    assert len(found["embedded"]) > 30
    statuses = {a["status"] for k, a in found["embedded"].items() if k[0] == "support" and isinstance(a, dict)}
    assert {"withdrawn", "supported"} <= statuses  # the superseded name, the supported migration
    assert not compare(found), "\n".join(compare(found)[:10])


def test_a_superseded_claim_is_withdrawn_on_every_backend(stores: dict[str, MemoryStore]) -> None:
    for name, store in stores.items():
        answer = P.support(store, LX + "cName0", tenant=LIA_GRAPH)
        assert (answer.status, answer.stands) == ("withdrawn", False), name
        assert [w.value for w in answer.withdrawn_by] == [LX + "cName1"], name


def test_withdrawals_then_an_erasure_leave_the_same_memory_on_every_backend(
        stores: dict[str, MemoryStore], tmp_path: Path) -> None:
    steps: dict[str, list[Any]] = {}
    for name, store in stores.items():
        with replayable(START):
            done = [P.withdraw(store, AX + "benchmark", reason="the benchmark was rerun").to_dict(),
                    P.withdraw(store, AX + "adr", reason="superseded by ADR-018").to_dict(),
                    P.erase(store, AX + "rerun", reason="consent revoked").to_dict()]
        steps[name] = [_unminted(d) for d in done]
    for name, done in steps.items():
        assert done == steps["embedded"], f"{name}: {done} != embedded {steps['embedded']}"
    found = {name: answers(store) for name, store in stores.items()}
    assert not compare(found), "\n".join(compare(found)[:10])
    held = {name: canonical(_untimed(store.quads())) for name, store in stores.items()}
    for name, quads in held.items():
        assert quads == held["embedded"], f"{name}:\n{difference(held['embedded'], quads)}"


def _untimed(quads: Iterable[Quad]) -> list[Quad]:
    """The quads less the recordedAt of the records the test wrote (each store's clock runs on)."""
    return [q for q in quads if not (q.predicate == RECORDED_AT and q.subject.value.startswith("urn:memkg:"))]


def _unminted(value: Any) -> Any:
    """An answer with the IRIs memkg mints (urn:memkg:KIND:HEX) replaced by their kind."""
    if isinstance(value, dict):
        return {k: _unminted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unminted(v) for v in value]
    if isinstance(value, str) and value.startswith("urn:memkg:"):
        return value.rsplit(":", 1)[0]
    return value
