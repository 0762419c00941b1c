"""An independent model of memkg's time semantics (docs/contract.md section 3 and 4), in plain Python.

No SPARQL and no store: the views of ``queries/`` are computed here from a list
of records, so that tests can compare the templates with this model on random
histories. The rules, in one place:

* **Claims.** A record is a claim when one of its classes is ``mem:Claim`` or a
  subclass of it (the caller passes the set of claim classes visible in the
  dataset asked about). Other reifiers (``mem:Occurrence``) are never claims.
* **Valid time** is the half-open interval ``[valid_from, valid_until)``; a
  missing bound is open. A claim valid until T is not valid at T.
* **Transaction time.** A claim is known from its ``recorded_at`` until the
  ``recorded_at`` of the first record that supersedes it or the first
  retraction that retracts it. "Known at T" therefore means: recorded at or
  before T, and nothing that ends it recorded at or before T.
* **Several values** of ``validFrom``, ``validUntil`` or ``recordedAt`` on one
  record (``more_times``): each of them must hold. A claim with two
  ``recordedAt`` is known once both have passed; a superseder or retraction
  with two ends the claim at the earlier (it is "recorded by T" once either is).
* **A missing recorded_at means "since ever"**, wherever it is missing: a claim
  without one is known from the beginning of time, and a superseder or
  retraction without one ends the claim from the beginning of time (so that
  claim is never known). Anything that has ``mem:supersedes`` is a superseder
  (the property's domain makes it a claim), claim class or not.
* **Views.** ``current`` = known now and valid now; ``historical(v)`` = known now
  and valid at v; ``audit(k, v=k)`` = known at k and valid at v; ``history(c)`` =
  c, everything it supersedes (transitively) and everything that supersedes it
  (transitively), claims only, oldest first (missing recorded_at first, then
  by recorded_at; ties: fewer transitive predecessors first, then IRI);
  ``contradictions(v=now)`` = unordered pairs of distinct claims that are both
  known now and valid at v, and either linked by ``mem:contradicts`` (either
  direction: kind "explicit") or with the same subject and the same predicate,
  that predicate functional, objects different as values, and the same set of
  contexts (kind "functional"; "explicit" wins when both hold). Each pair is
  reported once as (smaller IRI, larger IRI).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

MEM = "https://w3id.org/memkg#"
XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {XSD + "integer", XSD + "decimal", XSD + "int", XSD + "long"}


@dataclass(frozen=True)
class Term:
    """An RDF term, enough for claim objects: an IRI or a literal (lexical form, datatype)."""

    value: str
    datatype: str | None = None  # None: an IRI

    @property
    def is_iri(self) -> bool:
        return self.datatype is None

    def key(self) -> tuple:
        """Equality as values: "1"^^xsd:integer and "1.0"^^xsd:decimal are the same value."""
        if self.datatype is None:
            return ("iri", self.value)
        if self.datatype in NUMERIC:
            return ("number", Decimal(self.value))
        return ("literal", self.value, self.datatype)


@dataclass(frozen=True)
class Record:
    """A reifier: a claim (or another reifier, e.g. an occurrence) with its time facts."""

    id: str
    subject: str
    predicate: str
    object: Term
    classes: frozenset[str] = frozenset({MEM + "Claim"})
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    recorded_at: datetime | None = None
    supersedes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    context: frozenset[str] = frozenset()
    #: Further values of a time property: ("validFrom" | "validUntil" | "recordedAt", time).
    more_times: tuple[tuple[str, datetime], ...] = ()

    def times(self, name: str) -> list[datetime]:
        """Every value of ``mem:<name>`` (validFrom, validUntil, recordedAt) the record states."""
        first = {"validFrom": self.valid_from, "validUntil": self.valid_until, "recordedAt": self.recorded_at}[name]
        return ([] if first is None else [first]) + [t for n, t in self.more_times if n == name]


@dataclass(frozen=True)
class Retraction:
    id: str
    targets: tuple[str, ...]
    recorded_at: datetime | None = None


@dataclass
class Memory:
    """What one dataset (a tenant's graph plus the shared graphs, or all graphs) holds."""

    records: list[Record] = field(default_factory=list)
    retractions: list[Retraction] = field(default_factory=list)
    #: Classes that are mem:Claim or a subclass of it, as visible in this dataset.
    claim_classes: frozenset[str] = frozenset({MEM + "Claim", MEM + "IdentityCandidate"})
    #: Predicates declared owl:FunctionalProperty in this dataset.
    functional: frozenset[str] = frozenset()

    def merged(self, other: "Memory") -> "Memory":
        return Memory(
            self.records + other.records,
            self.retractions + other.retractions,
            self.claim_classes | other.claim_classes,
            self.functional | other.functional,
        )

    # -- the building blocks -----------------------------------------------------------

    def by_id(self) -> dict[str, Record]:
        return {r.id: r for r in self.records}

    def is_claim(self, r: Record) -> bool:
        return bool(r.classes & self.claim_classes)

    def claims(self) -> list[Record]:
        return [r for r in self.records if self.is_claim(r)]

    def endings(self, claim_id: str) -> list[datetime | None]:
        """When each superseder or retraction of the claim was recorded (None: since ever)."""
        out: list[datetime | None] = []
        for r in self.records:
            if claim_id in r.supersedes:
                out += r.times("recordedAt") or [None]
        out += [x.recorded_at for x in self.retractions if claim_id in x.targets]
        return out

    def known(self, r: Record, t: datetime) -> bool:
        if any(recorded > t for recorded in r.times("recordedAt")):
            return False
        return all(end is not None and end > t for end in self.endings(r.id))

    @staticmethod
    def valid(r: Record, t: datetime) -> bool:
        return all(t >= start for start in r.times("validFrom")) and all(t < end for end in r.times("validUntil"))

    # -- the views ---------------------------------------------------------------------

    def audit(self, known_at: datetime, valid_at: datetime | None = None, subject: str | None = None) -> set[str]:
        valid_at = known_at if valid_at is None else valid_at
        return {
            r.id
            for r in self.claims()
            if (subject is None or r.subject == subject) and self.known(r, known_at) and self.valid(r, valid_at)
        }

    def historical(self, valid_at: datetime, now: datetime, subject: str | None = None) -> set[str]:
        return self.audit(now, valid_at, subject)

    def current(self, now: datetime, subject: str | None = None) -> set[str]:
        return self.audit(now, now, subject)

    def _reach(self, start: str, edges: dict[str, set[str]]) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def history(self, claim_id: str) -> list[Record]:
        older: dict[str, set[str]] = {}
        newer: dict[str, set[str]] = {}
        for r in self.records:
            for o in r.supersedes:
                older.setdefault(r.id, set()).add(o)
                newer.setdefault(o, set()).add(r.id)
        chain = {claim_id} | self._reach(claim_id, older) | self._reach(claim_id, newer)
        records = self.by_id()
        versions = [records[c] for c in chain if c in records and self.is_claim(records[c])]

        def key(r: Record) -> tuple:
            rec = (0, datetime.min) if r.recorded_at is None else (1, r.recorded_at)
            return (rec[0], rec[1].timestamp() if rec[0] else 0.0, len(self._reach(r.id, older)), r.id)

        return sorted(versions, key=key)

    def contradictions(self, valid_at: datetime, now: datetime) -> set[tuple[str, str, str]]:
        """{(claim, other, kind)} with claim < other."""
        standing = [r for r in self.claims() if self.known(r, now) and self.valid(r, valid_at)]
        ids = {r.id for r in standing}
        explicit = {
            frozenset((r.id, o)) for r in self.records for o in r.contradicts if r.id != o
        }
        pairs: dict[tuple[str, str], str] = {}
        for a in standing:
            for o in a.contradicts:
                if o in ids and o != a.id:
                    pairs[tuple(sorted((a.id, o)))] = "explicit"  # type: ignore[index]
        for i, a in enumerate(standing):
            for b in standing[i + 1 :]:
                if a.id == b.id:
                    continue
                if (
                    a.subject == b.subject
                    and a.predicate == b.predicate
                    and a.predicate in self.functional
                    and a.object.key() != b.object.key()
                    and a.context == b.context
                ):
                    pair = tuple(sorted((a.id, b.id)))
                    kind = "explicit" if frozenset(pair) in explicit else "functional"
                    pairs[pair] = kind  # type: ignore[index]
        return {(a, b, kind) for (a, b), kind in pairs.items()}


def ids(records: Iterable[Record]) -> list[str]:
    return [r.id for r in records]
