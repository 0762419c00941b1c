"""Random sequences of writes keep the memory's model (hypothesis' rule-based state machine).

The machine adds claims, supersedes any version (old ones included: refused), retracts,
withdraws and erases sources, loads files and ingests lines, against one tenant of a store,
and keeps a model of what each step must leave: which versions exist, which one supersedes
which, which are retracted, what each states and on what source. After every step it checks:

* each claim's versions form a chain (a version is superseded at most once);
* ``history`` lists every version of the chain, oldest first;
* ``current`` holds exactly the versions neither superseded nor retracted;
* no claim-index triple lacks its data (``check_index``);
* exporting the store and loading the export into a fresh store gives the same quads.

The store comes from :attr:`WriteSequences.store_factory`, a context manager yielding a
:class:`~memkg.MemoryStore`, and every write goes through :meth:`WriteSequences.write`.
:class:`ServedWriteSequences` runs the same machine through a real ``memkg serve``
(``MemoryStore.connect``; every read the invariants make, the export included, goes through the
server too) beside an embedded store doing the same writes, minting the same IRIs and times:
after every step the two must also hold the same quads, claim index included.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Callable, ClassVar, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from pyoxigraph import Literal, NamedNode

from memkg import Claim, MemoryStore, Message, Predicate, ValidationError, Vertex, revision
from memkg.core.vocab import ONTOLOGY_GRAPH, mem
from memkg.history import timeline
from memkg.loading.ingest import ingest_lines
from memkg.provenance import erase, withdraw
from memkg.store import Clock
from tests.support.examples import data_quads
from tests.support.write_targets import Target, canonical, difference, replayable, start

pytestmark = pytest.mark.slow

T = TypeVar("T")

EX = "https://example.org/seq/"
TENANT = "https://example.org/tenants/seq"
LIA = NamedNode(EX + "Lia")
DRINKS = NamedNode(EX + "drinks")
DRINKS_TOKEN = NamedNode("urn:memkg:predicate:drinks")
DRINKS_SUBJECT = NamedNode("urn:memkg:entity:lia")
DRINKABLE = [NamedNode(EX + name) for name in ("tea", "coffee", "water")]
CONFIDENCES = [None, Decimal("0.5"), Decimal("0.9")]
#: Where the served machine's clock starts (a write per hour).
SEQUENCE_START = datetime(2026, 6, 1, tzinfo=timezone.utc)
#: The served machine's sequences in a run (MEMKG_SEQUENCE_EXAMPLES overrides).
SERVED_EXAMPLES = 20
VALID_FROM = [None, datetime(2026, 1, 1, tzinfo=timezone.utc), datetime(2026, 2, 1, tzinfo=timezone.utc)]


@contextmanager
def embedded_store() -> Iterator[MemoryStore]:
    """An embedded store in memory, judging every write with the native engine."""
    yield MemoryStore(validation="native")


@dataclass
class Version:
    """What the model knows of one claim version."""

    subject: NamedNode
    predicate: NamedNode
    object: Any
    confidence: Decimal | None
    valid_from: datetime | None
    sources: set[NamedNode]  #: the messages asserting it (none: a correction of its own)
    predecessor: NamedNode | None = None
    successor: NamedNode | None = None
    retracted: bool = False


class WriteSequences(RuleBasedStateMachine):
    """The machine; :attr:`store_factory` chooses the store it drives."""

    store_factory: ClassVar[Callable[[], AbstractContextManager[MemoryStore]]] = staticmethod(embedded_store)

    def __init__(self) -> None:
        super().__init__()
        self._opened = self.store_factory()
        self.store = self._opened.__enter__()
        self.write(lambda store: store.add_all([Vertex(id=LIA, cls=mem.Person), Predicate(id=DRINKS),
                                                *(Vertex(id=d, cls=mem.Entity) for d in DRINKABLE)], graph=TENANT))
        self.versions: dict[NamedNode, Version] = {}
        self.messages: list[NamedNode] = []
        self.files = 0
        self.lines = 0

    def teardown(self) -> None:
        self._opened.__exit__(None, None, None)

    # -- helpers ---------------------------------------------------------------------------------

    def write(self, action: Callable[[MemoryStore], T]) -> T:
        """Do one write (``action`` on a store) on the machine's store; a subclass may do it on
        others beside it."""
        return action(self.store)

    def head(self, claim: NamedNode) -> NamedNode:
        while (later := self.versions[claim].successor) is not None:
            claim = later
        return claim

    def chain(self, claim: NamedNode) -> list[NamedNode]:
        first = claim
        while (earlier := self.versions[first].predecessor) is not None and earlier in self.versions:
            first = earlier
        out = [first]
        while (later := self.versions[out[-1]].successor) is not None:
            out.append(later)
        return out

    def record(self, claim: NamedNode, version: Version) -> None:
        self.versions[claim] = version
        if version.predecessor is not None:
            self.versions[version.predecessor].successor = claim

    def refused_whole(self, write: Callable[[MemoryStore], object], old: NamedNode) -> None:
        """``write`` gives ``old`` a second successor: refused by invariant 12, nothing written."""
        before = data_quads(self.store)
        with pytest.raises(ValidationError) as info:
            self.write(write)
        assert any(v.shape == mem.VersionChainShape for v in info.value.violations), str(info.value)
        assert data_quads(self.store) == before

    def claims(self) -> st.SearchStrategy[NamedNode]:
        return st.sampled_from(sorted(self.versions, key=str))

    # -- the rules -------------------------------------------------------------------------------

    @rule(content=st.sampled_from(["I drink tea", "I drink coffee", "water, please"]))
    def add_message(self, content: str) -> None:
        self.messages.append(self.write(lambda store: store.add(Message(content=content, sender=LIA), graph=TENANT)))

    @precondition(lambda self: self.messages)
    @rule(data=st.data(), drink=st.sampled_from(DRINKABLE), confidence=st.sampled_from(CONFIDENCES))
    def add_claim(self, data: st.DataObject, drink: NamedNode, confidence: Decimal | None) -> None:
        source = data.draw(st.sampled_from(self.messages))
        claim = self.write(lambda store: store.add(Claim(subject=LIA, predicate=DRINKS, object=drink,
                                                         confidence=confidence, asserted_by=source), graph=TENANT))
        self.record(claim, Version(LIA, DRINKS, drink, confidence, None, {source}))

    @precondition(lambda self: self.versions)
    @rule(data=st.data(), drink=st.sampled_from([None, *DRINKABLE]), confidence=st.sampled_from(CONFIDENCES),
          valid_from=st.sampled_from(VALID_FROM), sourced=st.booleans())
    def supersede(self, data: st.DataObject, drink: NamedNode | None, confidence: Decimal | None,
                  valid_from: datetime | None, sourced: bool) -> None:
        old = data.draw(self.claims())
        source = data.draw(st.sampled_from(self.messages)) if sourced and self.messages else None
        self.supersede_with(old, drink, confidence, valid_from, source)

    @precondition(lambda self: self.versions)
    @rule(data=st.data())
    def restate(self, data: st.DataObject) -> None:
        """Supersede a version with nothing changed (and, half the time, its own source again)."""
        old = data.draw(self.claims())
        sources = sorted(self.versions[old].sources, key=str)
        self.supersede_with(old, None, None, None, sources[0] if len(sources) == 1 and data.draw(st.booleans()) else None)

    def supersede_with(self, old: NamedNode, drink: NamedNode | None, confidence: Decimal | None,
                       valid_from: datetime | None, source: NamedNode | None) -> None:
        changes: dict[str, Any] = {}
        if drink is not None:
            changes["object"] = drink
        if confidence is not None:
            changes["confidence"] = confidence
        if valid_from is not None:
            changes["valid_from"] = valid_from
        if source is not None:
            changes["asserted_by"] = source
        previous = self.versions[old]
        if previous.successor is not None:
            self.refused_whole(lambda store: store.supersede(old, revision(store.get_claim(old)[0], **changes),
                                                             graph=TENANT), old)
            return
        new = Version(previous.subject, previous.predicate, changes.get("object", previous.object),
                      changes.get("confidence", previous.confidence), changes.get("valid_from", previous.valid_from),
                      {source} if source else set(), predecessor=old)
        states_the_same = (new.object, new.confidence, new.valid_from) == (
            previous.object, previous.confidence, previous.valid_from)
        before = data_quads(self.store)
        recorded = self.write(lambda store: store.supersede(old, revision(store.get_claim(old)[0], **changes),
                                                            graph=TENANT))
        if states_the_same and (source is None or previous.sources == {source}):
            assert (recorded.kind, recorded.claim) == ("unchanged", old)
            assert data_quads(self.store) == before
            return
        assert recorded.kind == ("change" if new.valid_from != previous.valid_from else "correction")
        claim = recorded.claim
        asserted = [q.object for q in self.store.quads(claim, mem.assertedBy)]
        assert asserted == ([source] if source else [])  # never the old version's source
        assert not list(self.store.quads(claim, mem.supportedBy))
        if source is None:
            assert recorded.activity is not None
            assert any(self.store.quads(recorded.activity, NamedNode(
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), mem.Correction))
        self.record(claim, new)

    @precondition(lambda self: self.versions)
    @rule(data=st.data())
    def retract(self, data: st.DataObject) -> None:
        claim = data.draw(self.claims())
        self.write(lambda store: store.retract(claim, reason="wrong", graph=TENANT))
        self.versions[claim].retracted = True

    @precondition(lambda self: self.messages)
    @rule(data=st.data())
    def withdraw_source(self, data: st.DataObject) -> None:
        source = data.draw(st.sampled_from(self.messages))
        self.write(lambda store: withdraw(store, source, reason="sent by mistake", graph=TENANT))

    @precondition(lambda self: self.messages)
    @rule(data=st.data())
    def erase_message(self, data: st.DataObject) -> None:
        message = data.draw(st.sampled_from(self.messages))
        resting = {c for c, v in self.versions.items() if v.sources == {message}}
        removed = {NamedNode(n) if isinstance(n, str) else n for n in self.write(lambda store: erase(
            store, message, reason="consent revoked", graph=TENANT)).removed}
        assert resting <= removed, f"kept versions resting only on {message}: {resting - removed}"
        self.messages.remove(message)
        for version in self.versions.values():
            version.sources.discard(message)
        for claim in sorted(removed & set(self.versions), key=str):
            gone = self.versions.pop(claim)
            if gone.predecessor in self.versions:
                self.versions[gone.predecessor].successor = None  # it holds again

    @precondition(lambda self: self.messages)
    @rule(data=st.data(), drink=st.sampled_from(DRINKABLE), superseding=st.booleans())
    def load_file(self, data: st.DataObject, drink: NamedNode, superseding: bool) -> None:
        self.files += 1
        claim = NamedNode(f"{EX}file-claim-{self.files}")
        source = data.draw(st.sampled_from(self.messages))
        old = data.draw(self.claims()) if superseding and self.versions else None
        stamp = self.write(lambda store: store.clock.tick()).isoformat().replace("+00:00", "Z")
        text = (f'VERSION "1.2"\nPREFIX mem: <{mem.Claim.value[:-5]}>\n'
                f"<{claim.value}> a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> "
                f"<<( <{LIA.value}> <{DRINKS.value}> <{drink.value}> )>> ; mem:assertedBy <{source.value}> ; "
                f'mem:recordedAt "{stamp}"^^<http://www.w3.org/2001/XMLSchema#dateTime>'
                + (f" ; mem:supersedes <{old.value}>" if old is not None else "") + " .\n")
        if old is not None and self.versions[old].successor is not None:
            self.refused_whole(lambda store: store.load_data(text, format="turtle", graph=TENANT), old)
            return
        self.write(lambda store: store.load_data(text, format="turtle", graph=TENANT))
        self.record(claim, Version(LIA, DRINKS, drink, None, None, {source}, predecessor=old))

    @rule(node=st.sampled_from(["pref-a", "pref-b"]), drink=st.sampled_from(["tea", "coffee"]))
    def ingest(self, node: str, drink: str) -> None:
        self.lines += 1
        line = {"id": node, "content_kind": "claim", "event_id": f"line-{self.lines}",
                "content": {"subject": "lia", "predicate": "drinks", "value": drink}}
        report = self.write(lambda store: ingest_lines(store, [json.dumps(line)], graph=TENANT))
        self.messages += [m for m in report.messages if m not in self.messages]
        for message in report.messages:  # a line restating the current version asserts it again
            for q in self.store.quads(None, mem.assertedBy, message, graph=NamedNode(TENANT)):
                if q.subject in self.versions:
                    self.versions[q.subject].sources.add(message)  # type: ignore[index]
        for claim in report.versions:
            previous = next((q.object for q in self.store.quads(claim, mem.supersedes)), None)
            assert previous is None or self.versions[previous].successor is None, previous  # type: ignore[index]
            self.record(claim, Version(DRINKS_SUBJECT, DRINKS_TOKEN, Literal(drink), None, None,
                                       {NamedNode(claim.value + "/message")}, predecessor=previous))  # type: ignore[arg-type]

    # -- what every step leaves ------------------------------------------------------------------

    def per_version_store(self) -> MemoryStore:
        """The store the checks of each version read (a lookup or a view per version)."""
        return self.store

    @invariant()
    def versions_form_chains(self) -> None:
        store = self.per_version_store()
        for q in store.quads(None, mem.supersedes, None, graph=NamedNode(TENANT)):
            successors = {s.subject for s in store.quads(None, mem.supersedes, q.object, graph=NamedNode(TENANT))}
            assert len(successors) == 1, f"{q.object} is superseded by {sorted(map(str, successors))}"
        for claim, version in self.versions.items():
            found = {q.subject for q in store.quads(None, mem.supersedes, claim, graph=NamedNode(TENANT))}
            assert found == ({version.successor} if version.successor else set()), claim

    @invariant()
    def history_lists_every_version(self) -> None:
        for claim in self.versions:
            listed = [v.claim for v in timeline.history(self.per_version_store(), claim, tenant=TENANT)]
            assert listed == self.chain(claim), f"history of {claim}"

    @invariant()
    def current_holds_the_known_valid_versions(self) -> None:
        current = {r["claim"] for r in self.store.view("current", {"tenant": TENANT})}
        expected = {c for c, v in self.versions.items() if v.successor is None and not v.retracted}
        assert current == expected

    @invariant()
    def the_claim_index_is_complete(self) -> None:
        assert self.store.check_index().consistent

    @invariant()
    def an_export_loads_back_as_the_same_quads(self) -> None:
        fresh = MemoryStore(validation=None)
        fresh.load_data(self.export(), format="nquads")
        assert data_quads(fresh) == data_quads(self.store)

    def export(self) -> bytes:
        out = self.store.export(format="nquads")
        assert isinstance(out, bytes)
        return out


class ServedWriteSequences(WriteSequences):
    """The machine through a real ``memkg serve`` (``MemoryStore.connect``), beside an embedded
    store that does every write too. Both mint the same IRIs and times for the same write
    (:func:`tests.support.write_targets.replayable`, and one clock reading per step), so after every
    step they must hold the same quads, and a write refused on one is refused on the other."""

    #: The server, emptied before each sequence.
    server: ClassVar[Target]

    def __init__(self) -> None:
        self.server.empty()
        self.steps = 0
        self.ticks = itertools.count()
        self.embedded = MemoryStore(validation="native", clock=Clock(self.now))
        super().__init__()

    def now(self) -> datetime:
        """The clock of both stores: the step's hour, a second a tick."""
        return SEQUENCE_START + timedelta(hours=self.steps, seconds=next(self.ticks))

    @contextmanager
    def store_factory(self) -> Iterator[MemoryStore]:  # type: ignore[override]  # a method: it needs the clock
        with self.server.open() as store:
            store.clock = Clock(self.now)
            yield store

    def teardown(self) -> None:
        super().teardown()
        self.embedded.close()

    def per_version_store(self) -> MemoryStore:
        """The embedded store, which holds what the served one holds (checked after every step): a
        request per version would make the machine too slow for CI. ``current``, the claim index
        check and the export still go through the server."""
        return self.embedded

    def write(self, action: Callable[[MemoryStore], T]) -> T:
        """``action`` on the embedded store, then the same on the served one, each minting from the
        step's start; the served store's answer (or refusal), once both gave the same kind."""
        outcomes: list[tuple[Any, Exception | None]] = []
        for store in (self.embedded, self.store):
            self.ticks = itertools.count()
            with replayable(SEQUENCE_START + timedelta(hours=self.steps)):
                try:
                    outcomes.append((action(store), None))
                except Exception as err:  # compared below, then raised again
                    outcomes.append((None, err))
        self.steps += 1
        (_, embedded_error), (answer, served_error) = outcomes
        assert type(served_error) is type(embedded_error), \
            f"the embedded store answered {embedded_error!r}, the served one {served_error!r}"
        if served_error is not None:
            raise served_error
        return answer  # type: ignore[no-any-return]

    @invariant()
    def the_served_store_holds_what_the_embedded_one_holds(self) -> None:
        expected, found = (canonical(list(store.quads(with_index=True))) for store in (self.embedded, self.store))
        expected, found = ({q for q in quads if q.graph_name != ONTOLOGY_GRAPH} for quads in (expected, found))
        assert found == expected, f"the served store holds other quads:\n{difference(expected, found)}"


@pytest.fixture(scope="module")
def memkg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    target = start("memkg serve", tmp_path_factory.mktemp("served-sequences"))
    yield target
    target.stop()


def test_write_sequences_through_a_memkg_server_keep_the_model_and_hold_what_the_embedded_store_holds(
    memkg_server: Target,
) -> None:
    ServedWriteSequences.server = memkg_server
    run_state_machine_as_test(ServedWriteSequences, settings=settings(
        max_examples=int(os.environ.get("MEMKG_SEQUENCE_EXAMPLES", str(SERVED_EXAMPLES))), stateful_step_count=12,
        deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]))


WriteSequences.TestCase.settings = settings(
    max_examples=20, stateful_step_count=12, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TestWriteSequences = WriteSequences.TestCase
