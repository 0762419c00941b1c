"""Stores to write into by every path: the embedded store, a real ``memkg serve`` (with and without
tokens) and Oxigraph's server, each started and stopped by the test, and what each then holds.

A :class:`Target` is reached through the command line (:attr:`Target.flags` go before the
command) and from Python (:meth:`Target.open`). :func:`held` reads back what a target holds,
through ``memkg export --with-index`` (the claim index included: on a ``memkg serve`` the server
derives it, on Oxigraph's server the client writes it, and both must equal the embedded store's),
with the IRIs memkg mints (``urn:memkg:KIND:HEX``) turned into blank nodes and every blank node
labelled canonically, so two stores that did the same writes compare equal as sets.

Writes take times from the store clock and mint IRIs and values: :func:`replayable` makes each the
same on every store, so the same writes record the same quads everywhere.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from pyoxigraph import (
    BlankNode,
    CanonicalizationAlgorithm,
    Dataset,
    NamedNode,
    Quad,
    RdfFormat,
    Triple,
    parse,
)

from memkg import MemoryStore
from memkg.adapters.cli import main
from memkg.store import Clock
from memkg.store.backends.sparql import SparqlClient

from .endpoint_server import Server as MemkgServer
from .examples import LIA_GRAPH
from .remote_servers import start_oxigraph

ACME_GRAPH = "https://example.org/tenants/acme"
TOKEN = "s3cret-writer"

#: The kinds of server a write can go through, as the tests name them.
SERVER_KINDS = ("memkg serve", "memkg serve --tokens", "oxigraph serve")

_MINTED = re.compile(r"^urn:memkg:[a-z]+:[0-9a-f]{32}$")


@dataclass
class Target:
    """A store reached one way: ``flags`` before a command, :meth:`open` from Python."""

    name: str
    flags: list[str]
    connect: Callable[[], MemoryStore]
    stop: Callable[[], None] = field(default=lambda: None)
    #: Empties the store (memkg serve keeps its ontology graph)
    empty: Callable[[], None] = field(default=lambda: None)

    def run(self, *command: str) -> int:
        """``memkg FLAGS… COMMAND…`` in this process; its exit code."""
        try:
            return main([*self.flags, *command])
        except SystemExit as exit:
            return int(exit.code or 0)

    @contextlib.contextmanager
    def open(self) -> Iterator[MemoryStore]:
        store = self.connect()
        try:
            yield store
        finally:
            store.close()


def embedded(directory: Path) -> Target:
    return Target("embedded", ["--store", str(directory)], lambda: MemoryStore(directory))


def start(kind: str, tmp: Path) -> Target:
    """A fresh, empty server of ``kind`` (one of :data:`SERVER_KINDS`); skips with the reason
    when it cannot run here. Its files go in ``tmp``."""
    tmp.mkdir(parents=True, exist_ok=True)
    if kind == "oxigraph serve":
        started = start_oxigraph(tmp)
        if isinstance(started, str):
            pytest.skip(started)
        url = started.endpoint
        return Target(kind, ["--endpoint", url], lambda: MemoryStore.connect(url), started.stop,
                      lambda: SparqlClient(url).update("DROP ALL"))
    args: list[str] = []
    token = None
    if kind == "memkg serve --tokens":
        tokens = tmp / "tokens.json"
        tokens.write_text(json.dumps({TOKEN: {"tenants": [LIA_GRAPH, ACME_GRAPH], "write": True}}))
        args, token = ["--tokens", str(tokens)], TOKEN
    server = MemkgServer(tmp / "store", *args)
    query, update = f"{server.url}/sparql", f"{server.url}/update"
    flags = ["--endpoint", query, "--update-endpoint", update] + (["--token", token] if token else [])
    return Target(kind, flags, lambda: MemoryStore.connect(query, update_url=update, token=token), server.close,
                  lambda: SparqlClient(query, update_url=update, token=token).update("DROP ALL"))


@contextlib.contextmanager
def replayable(start: datetime) -> Iterator[None]:
    """In the block, writes mint what they mint the same way everywhere: every store opened ticks
    its clock from ``start``, a second a tick, on one counter; the IRIs memkg mints
    (``urn:memkg:KIND:HEX``) carry ``start`` and a count from 0; so do the values minted for
    hyperedges (``e_group_HEX``). The same writes, replayed from the same ``start`` on another
    store, then write the same quads."""
    ticks, ids, values = itertools.count(), itertools.count(), itertools.count()

    def from_start() -> datetime:
        return start + timedelta(seconds=next(ticks))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memkg.store.memory.Clock", lambda now=None: Clock(now or from_start))
        patch.setattr("memkg.core.terms.time", SimpleNamespace(time=start.timestamp))
        patch.setattr("memkg.core.terms.os", SimpleNamespace(urandom=lambda n: next(ids).to_bytes(n, "big")))
        patch.setattr("memkg.tags.records.minted_value", lambda label: f"{label}_{next(values):032x}")
        yield


def held(target: Target, out: Path) -> set[Quad]:
    """What ``target`` holds (every graph but the ontology's, index triples included), minted IRIs
    as blank nodes, blank nodes labelled canonically."""
    exported = out / f"{re.sub(r'[^a-z]+', '-', target.name)}.nq"
    assert target.run("export", "--format", "nquads", "--with-index", "-o", str(exported)) == 0
    return canonical(parse(exported.read_bytes(), RdfFormat.N_QUADS))


def canonical(quads: Iterator[Quad] | list[Quad]) -> set[Quad]:
    minted: dict[str, BlankNode] = {}

    def term(t):  # type: ignore[no-untyped-def]
        if isinstance(t, NamedNode) and _MINTED.match(t.value):
            return minted.setdefault(t.value, BlankNode())
        if isinstance(t, Triple):
            return Triple(term(t.subject), term(t.predicate), term(t.object))
        return t

    dataset = Dataset(Quad(term(q.subject), q.predicate, term(q.object), term(q.graph_name)) for q in quads)
    dataset.canonicalize(CanonicalizationAlgorithm.UNSTABLE)
    return set(dataset)


def difference(expected: set[Quad], found: set[Quad], *, shown: int = 12) -> str:
    """The quads one set holds and the other does not, for an assertion message."""
    lines = [f"  only embedded: {q}" for q in sorted(expected - found, key=str)[:shown]]
    lines += [f"  only server:   {q}" for q in sorted(found - expected, key=str)[:shown]]
    return "\n".join(lines)


__all__ = ["ACME_GRAPH", "SERVER_KINDS", "TOKEN", "Target", "canonical", "difference", "embedded",
           "held", "replayable", "start"]
