"""Every write command through a server holds what it holds on the embedded store.

The same writes (``load``, ``supersede``, ``retract``, ``withdraw``, ``erase``, ``ingest``,
``extract``, ``echoes --accept``, every ``tags`` write, and ``MemoryStore.add`` from Python) run
against an embedded store and, through ``--endpoint``, against a real ``memkg serve`` (with and
without tokens) and a real Oxigraph server; after each write both stores must hold the same
quads, claim index included (tests/support/write_targets.py: exports compared as sets, minted
IRIs and blank nodes labelled canonically). A ``memkg serve`` derives the claim index of what a
client writes itself; on Oxigraph's server the client writes it. Random sequences of these
writes (a hypothesis state machine) run the same way through a ``memkg serve``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from memkg import MemoryStore, Message
from memkg.adapters.cli import main
from memkg.core.vocab import MEMX
from memkg.store.backends.sparql import RemoteError

from tests.support.endpoint_server import Server, make_store
from tests.support.examples import EXAMPLES, LIA, LIA_GRAPH
from tests.support.write_targets import (
    ACME_GRAPH,
    SERVER_KINDS,
    TOKEN,
    Target,
    difference,
    embedded,
    held,
    replayable,
    start,
)

pytestmark = pytest.mark.slow

L = "https://example.org/lia/"
A = "https://example.org/acme/"
START = datetime(2026, 6, 1, tzinfo=timezone.utc)
LIA_TENANT = ["--tenant", LIA_GRAPH]

FIRST_LINES = [
    {"content_kind": "message", "event_id": "w-1", "episode": "s9", "sender": "lia",
     "recipients": [{"id": "aurora", "type": "agent", "name": "Aurora"}], "event_time": "2026-05-02T19:04:00+02:00",
     "content": "Coffee in the evenings now."},
    {"id": "lia-move", "content": "Lia moves to Lisbon in June.", "event_id": "w-2", "episode": "s9",
     "sender": "aurora"},
    {"id": "pref-drink", "content_kind": "claim", "event_id": "w-3", "episode": "s9", "sender": "aurora",
     "content": {"subject": "lia", "predicate": "prefers", "value": "coffee", "confidence": 0.8,
                 "evidence": ["Coffee in the evenings now."]}},
]
LATER_LINES = [
    {"id": "lia-move", "content": "Lia moves to Porto in July.", "event_id": "w-4", "episode": "s9", "sender": "aurora"},
    {"id": "pref-drink", "content_kind": "claim", "event_id": "w-5", "episode": "s9", "sender": "aurora",
     "content": {"subject": "lia", "predicate": "prefers", "value": "tea", "confidence": 0.9}},
    {"id": "pref-drink", "content_kind": "claim", "event_id": "w-5", "episode": "s9", "sender": "aurora",
     "content": {"subject": "lia", "predicate": "prefers", "value": "tea", "confidence": 0.9}},  # a retry
]


def remember(store: MemoryStore) -> None:
    store.add(Message(content="Green tea after lunch, please.", id=L + "m60", event_id="chat-lia-0060",
                      sender=L + "Lia", event_time=datetime(2026, 3, 1, 13, tzinfo=timezone.utc)), graph=LIA_GRAPH)


def writes(lines: Path) -> list[tuple[str, list[str] | Callable[[MemoryStore], None]]]:
    """Each write, named, as a command line or a Python call on the store."""
    first, later = lines / "first.jsonl", lines / "later.jsonl"
    first.write_text("".join(json.dumps(line) + "\n" for line in FIRST_LINES))
    later.write_text("".join(json.dumps(line) + "\n" for line in LATER_LINES))
    lia, acme = LIA_TENANT, ["--tenant", ACME_GRAPH]
    return [
        ("load", ["load", str(LIA), str(EXAMPLES / "postgres-migration.trig")]),
        ("supersede, a correction", ["supersede", L + "c0", "--confidence", "0.5", *lia]),
        ("supersede, a new object and source", ["supersede", L + "c2", "--object", f"<{L}tea>",
                                                 "--asserted-by", f"<{L}m52>", "--valid-from", "2026-03-01T00:00:00Z",
                                                 *lia]),
        ("retract", ["retract", L + "c1", "--reason", "Lia corrected it", *lia]),
        ("ingest", ["ingest", str(first), *lia]),
        ("ingest, new versions and a retry", ["ingest", str(later), *lia]),
        ("add from Python", remember),
        ("tags add", ["tags", "add", L + "m0", "topic:tea", "person:Lia", *lia]),
        ("tags update", ["tags", "update", L + "m0", "topic:coffee", *lia]),
        ("tags remove", ["tags", "remove", L + "m0", "person", *lia]),
        ("tags connect", ["tags", "connect", L + "m0", L + "m2", *lia]),
        ("tags disconnect", ["tags", "disconnect", L + "m0", L + "m2", *lia]),
        ("tags group", ["tags", "group", L + "m0", L + "m2", L + "m40", *lia]),
        ("tags ungroup", ["tags", "ungroup", L + "m40", *lia]),
        ("tags adjusts", ["tags", "adjusts", L + "m52", L + "m2", *lia]),
        ("tags unadjust", ["tags", "unadjust", L + "m52", *lia]),
        ("extract", ["extract", L + "m52", *lia]),
        ("echoes --accept", ["echoes", "--accept", *acme]),
        ("withdraw", ["withdraw", A + "adr", "--reason", "the ADR was replaced", *acme]),
        ("erase", ["erase", A + "benchmark", "--reason", "consent revoked", *acme]),
        ("erase an ingested message", ["erase", "urn:memkg:memory:lia-move/v1/message", "--reason", "consent revoked",
                                       *lia]),
    ]


def run(target: Target, write: list[str] | Callable[[MemoryStore], None]) -> int:
    if callable(write):
        with target.open() as store:
            write(store)
        return 0
    return target.run(*write)


@pytest.fixture(params=SERVER_KINDS)
def server(request, tmp_path: Path) -> Iterator[Target]:
    target = start(request.param, tmp_path / "server")
    yield target
    target.stop()


def test_every_write_through_a_server_leaves_what_it_leaves_in_the_embedded_store(
    server: Target, tmp_path: Path, capsys
) -> None:
    local = embedded(tmp_path / "embedded")
    for step, (name, write) in enumerate(writes(tmp_path)):
        for target in (local, server):
            with replayable(START + timedelta(hours=step)):
                code = run(target, write)
            assert code == 0, f"{name} on {target.name}: {capsys.readouterr().err}"
        capsys.readouterr()
        expected, found = held(local, tmp_path), held(server, tmp_path)
        assert found == expected, f"after {name}, {server.name} holds other quads:\n{difference(expected, found)}"


# -- the lock message -------------------------------------------------------------------------


def test_a_store_a_server_holds_names_the_flags_that_reach_it_and_they_work(tmp_path: Path, capsys) -> None:
    store = make_store(tmp_path / "store")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({TOKEN: {"tenants": [LIA_GRAPH], "write": True}}))
    served = Server(store, "--tokens", str(tokens))
    try:
        assert main(["--store", str(store), "retract", L + "c1", "--tenant", LIA_GRAPH]) == 2
        message = capsys.readouterr().err
        url = served.url + "/"
        assert f"the store is open for writing in another process, the `memkg serve` at {url}; stop it" in message
        suggested = message.splitlines()[-1].split()
        assert suggested == ["memkg", "--endpoint", f"{url}sparql", "--update-endpoint", f"{url}update",
                             "--token", "TOKEN", "retract", L + "c1", "--tenant", LIA_GRAPH]
        flags = [TOKEN if word == "TOKEN" else word for word in suggested[1:]]
        assert main(flags) == 0, capsys.readouterr().err
        capsys.readouterr()
    finally:
        served.close()
    with MemoryStore(store) as closed:  # the server gone, its notice went with it
        assert not (store / "memkg-serve.json").exists()
        assert closed.query(f"ASK {{ GRAPH ?g {{ ?r mem:retracts <{L}c1> }} }}")


# -- sequences of writes ----------------------------------------------------------------------

SNIPPETS = [
    f"""PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <{L}>
GRAPH <{LIA_GRAPH}> {{
  ex:m70 a mem:Message ; mem:content "I switched to green tea." ;
      mem:recordedAt "2026-03-10T09:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
  ex:c70 a mem:Claim ; rdf:reifies <<( ex:Lia ex:prefers ex:tea )>> ; mem:confidence 0.7 ; mem:assertedBy ex:m70 ;
      mem:recordedAt "2026-03-10T09:00:01Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
}}""",
    f"""PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <{L}>
GRAPH <{LIA_GRAPH}> {{
  ex:c71 a mem:Claim ; rdf:reifies <<( ex:Lia ex:drinks ex:coffee )>> ; mem:confidence 0.4 ; mem:supportedBy ex:m52 ;
      mem:supersedes ex:c2 ;
      mem:recordedAt "2026-03-11T09:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
}}""",
]
LINES = st.fixed_dictionaries({
    "content_kind": st.sampled_from(["message", "note", "claim"]),
    "event_id": st.sampled_from(["s-1", "s-2", "s-3", "s-4"]),
    "id": st.sampled_from(["n1", "n2"]),
    "episode": st.just("s9"),
    "sender": st.sampled_from(["lia", "aurora"]),
    "said": st.sampled_from(["tea", "coffee", "water"]),
    "confidence": st.sampled_from([0.3, 0.9]),
})


def jsonl(line: dict) -> str:
    """A drawn line as ingest takes it: a claim's content is a proposition, a message has no id."""
    said = line.pop("said")
    confidence = line.pop("confidence")
    if line["content_kind"] == "claim":
        line["content"] = {"subject": "lia", "predicate": "prefers", "value": said, "confidence": confidence}
    else:
        line["content"] = f"Lia drinks {said}."
    if line["content_kind"] == "message":
        del line["id"]
    return json.dumps(line)


class WriteSequences(RuleBasedStateMachine):
    """Random sequences of write commands, each run on an embedded store and through a server
    (``WriteSequences.server``, emptied before each sequence); after every write, both stores
    hold the same quads and the command answered with the same exit code on both."""

    server: Target
    scratch: Path  #: where each sequence gets a folder (the test's tmp_path: pytest removes it)

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="sequence-", dir=self.scratch))
        self.local = embedded(self.folder / "store")
        self.server.empty()
        self.step = 0
        self.do(["load", str(LIA), str(EXAMPLES / "postgres-migration.trig")])

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def do(self, command: list[str]) -> None:
        codes = []
        for target in (self.local, self.server):
            with replayable(START + timedelta(hours=self.step)):
                codes.append(target.run(*command))
        self.step += 1
        assert codes[0] == codes[1], f"{command}: exit {codes[0]} on the embedded store, {codes[1]} on {self.server.name}"

    def nodes(self, kind: str, data: st.DataObject) -> str:
        """One of the nodes of ``kind`` (a class) the tenant's graph holds now, drawn."""
        with MemoryStore(self.folder / "store") as store:
            rows = store.query(f"SELECT DISTINCT ?n WHERE {{ GRAPH <{LIA_GRAPH}> {{ ?n a {kind} }} }} ORDER BY ?n")
            found = [row["n"].value for row in rows]
        assume(found)
        return data.draw(st.sampled_from(found))

    @rule(data=st.data(), confidence=st.sampled_from(["0.2", "0.95"]))
    def supersede(self, data: st.DataObject, confidence: str) -> None:
        self.do(["supersede", self.nodes("mem:Claim", data), "--confidence", confidence, *LIA_TENANT])

    @rule(data=st.data(), thing=st.sampled_from(["tea", "coffee", "caffeine"]))
    def supersede_the_object(self, data: st.DataObject, thing: str) -> None:
        self.do(["supersede", self.nodes("mem:Claim", data), "--object", f"<{L}{thing}>", *LIA_TENANT])

    @rule(data=st.data())
    def retract(self, data: st.DataObject) -> None:
        self.do(["retract", self.nodes("mem:Claim", data), "--reason", "wrong", *LIA_TENANT])

    @rule(data=st.data())
    def withdraw(self, data: st.DataObject) -> None:
        self.do(["withdraw", self.nodes("mem:Message", data), "--reason", "unreliable", *LIA_TENANT])

    @rule(data=st.data())
    def erase(self, data: st.DataObject) -> None:
        self.do(["erase", self.nodes("mem:Message", data), "--reason", "consent revoked", *LIA_TENANT])

    @rule(snippet=st.sampled_from(range(len(SNIPPETS))))
    def load(self, snippet: int) -> None:
        file = self.folder / f"snippet-{snippet}.trig"
        file.write_text(SNIPPETS[snippet])
        self.do(["load", str(file)])

    @rule(lines=st.lists(LINES, min_size=1, max_size=3))
    def ingest(self, lines: list[dict]) -> None:
        file = self.folder / f"lines-{self.step}.jsonl"
        file.write_text("".join(jsonl(dict(line)) + "\n" for line in lines))
        self.do(["ingest", str(file), *LIA_TENANT])

    @rule(data=st.data(), tag=st.sampled_from(["topic:tea", "topic:coffee", "person:Lia"]))
    def tag(self, data: st.DataObject, tag: str) -> None:
        self.do(["tags", "add", self.nodes("mem:Message", data), tag, *LIA_TENANT])

    @rule(data=st.data())
    def group(self, data: st.DataObject) -> None:
        self.do(["tags", "group", self.nodes("mem:Message", data), self.nodes("mem:Message", data), *LIA_TENANT])

    @invariant()
    def both_stores_hold_the_same_quads(self) -> None:
        expected, found = held(self.local, self.folder), held(self.server, self.folder)
        assert found == expected, f"{self.server.name} holds other quads:\n{difference(expected, found)}"


@pytest.fixture(scope="module")
def memkg_server(tmp_path_factory) -> Iterator[Target]:
    target = start("memkg serve", tmp_path_factory.mktemp("sequences"))
    yield target
    target.stop()


def test_sequences_of_writes_through_a_memkg_server_leave_what_they_leave_in_the_embedded_store(
    memkg_server: Target, tmp_path: Path
) -> None:
    WriteSequences.server, WriteSequences.scratch = memkg_server, tmp_path
    run_state_machine_as_test(WriteSequences, settings=settings(
        max_examples=int(os.environ.get("MEMKG_SEQUENCE_EXAMPLES", "8")), stateful_step_count=8, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))


def test_an_update_a_person_writes_still_may_not_name_index_triples(memkg_server: Target) -> None:
    with memkg_server.open() as store, pytest.raises(RemoteError) as refused:
        store.backend.client.update(f"INSERT DATA {{ GRAPH <{LIA_GRAPH}> {{ <{L}c0> <{MEMX}subject> <{L}Lia> }} }}")
    assert refused.value.status == 403 and "maintained by memkg" in str(refused.value)
