"""History for people: a claim's versions with blame, what changed between two
transaction times, and when an answer flipped.

All three read the bitemporal views (``queries/history.rq`` and
``queries/audit.rq``), so they follow the time semantics of SPEC section 3:
"current knowledge at transaction time T" is the ``audit`` view with
``known_at = valid_at = T``: what the store believed then about then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from .errors import NotFoundError, ParseError
from .model import datetime_literal
from .results import term_json, terms_json
from .store import MemoryStore
from .vocab import PREFIXES, mem, prov

Term = NamedNode | Literal | Triple


@dataclass(frozen=True)
class Version:
    """One version of a claim, with who and what recorded it (blame)."""

    claim: NamedNode
    subject: Term
    predicate: NamedNode
    object: Term
    recorded_at: Literal | None
    valid_from: Literal | None = None
    valid_until: Literal | None = None
    asserted_by: list[NamedNode] = field(default_factory=list)  #: the messages that asserted it
    attributed_to: list[NamedNode] = field(default_factory=list)  #: who sent those messages
    generated_by: list[NamedNode] = field(default_factory=list)  #: the extraction or tool call
    agents: list[NamedNode] = field(default_factory=list)  #: who ran that activity

    def to_dict(self) -> dict[str, Any]:
        """As JSON (:mod:`memkg.results`)."""
        return {
            "claim": self.claim.value, "subject": term_json(self.subject), "predicate": self.predicate.value,
            "object": term_json(self.object), "recordedAt": term_json(self.recorded_at),
            "validFrom": term_json(self.valid_from), "validUntil": term_json(self.valid_until),
            "assertedBy": terms_json(self.asserted_by), "attributedTo": terms_json(self.attributed_to),
            "generatedBy": terms_json(self.generated_by), "agents": terms_json(self.agents),
        }


def _objects(
    store: MemoryStore, subject: NamedNode, predicate: NamedNode, graphs: Sequence[NamedNode | DefaultGraph] | None
) -> list[NamedNode]:
    """The IRIs ``subject`` links to by ``predicate``, in ``graphs`` (None: every graph)."""
    quads = (q for g in graphs for q in store.quads(subject, predicate, graph=g)) if graphs is not None \
        else store.quads(subject, predicate)
    return sorted({q.object for q in quads if isinstance(q.object, NamedNode)}, key=str)


def history(store: MemoryStore, claim: str | NamedNode, *, tenant: str | None = None) -> list[Version]:
    """Every version in ``claim``'s supersession chain, oldest first, with blame.

    Raises :class:`~memkg.errors.NotFoundError` when ``claim`` is no claim.
    """
    params = {"claim": claim.value if isinstance(claim, NamedNode) else claim}
    # Blame is read where the view reads: the tenant's graph and the shared one, never another tenant's.
    graphs: list[NamedNode | DefaultGraph] | None = None
    if tenant:
        params["tenant"] = tenant
        graphs = [NamedNode(tenant), DefaultGraph()]
    versions = []

    def objects(subject: NamedNode, predicate: NamedNode) -> list[NamedNode]:
        return _objects(store, subject, predicate, graphs)

    for row in store.view("history", params):
        node = row["claim"]
        messages = objects(node, mem.assertedBy)
        activities = objects(node, prov.wasGeneratedBy)
        versions.append(
            Version(
                claim=node,
                subject=row["subject"],
                predicate=row["predicate"],
                object=row["object"],
                recorded_at=row["recordedAt"],
                valid_from=row["validFrom"],
                valid_until=row["validUntil"],
                asserted_by=messages,
                attributed_to=sorted({a for m in messages for a in objects(m, prov.wasAttributedTo)}, key=str),
                generated_by=activities,
                agents=sorted({a for x in activities for a in objects(x, prov.wasAssociatedWith)}, key=str),
            )
        )
    if not versions:
        raise NotFoundError(f"{params['claim']}: no claim by that IRI")
    return versions


Row = tuple[NamedNode, Term, NamedNode, Term]


def known_at(store: MemoryStore, t: datetime, *, tenant: str | None = None) -> set[Row]:
    """Current knowledge as the store had it at transaction time ``t``."""
    stamp = datetime_literal(t).value
    params = {"known_at": stamp, "valid_at": stamp}
    if tenant:
        params["tenant"] = tenant
    return {(r["claim"], r["subject"], r["predicate"], r["object"]) for r in store.view("audit", params)}


@dataclass(frozen=True)
class Diff:
    """Claims that entered and left current knowledge between two transaction times."""

    added: list[Row]
    removed: list[Row]


def diff(store: MemoryStore, t1: datetime, t2: datetime, *, tenant: str | None = None) -> Diff:
    """What current knowledge gained and lost from ``t1`` to ``t2``."""
    before, after = known_at(store, t1, tenant=tenant), known_at(store, t2, tenant=tenant)
    order = lambda rows: sorted(rows, key=lambda r: tuple(str(x) for x in r))  # noqa: E731
    return Diff(added=order(after - before), removed=order(before - after))


def transaction_times(store: MemoryStore, *, tenant: str | None = None) -> list[datetime]:
    """Every distinct ``mem:recordedAt`` in the store (or one tenant), in order."""
    graph = NamedNode(tenant) if tenant else None
    stamps = set()
    for q in store.quads(None, mem.recordedAt, None, graph):
        if isinstance(q.object, Literal):
            try:
                stamps.add(datetime.fromisoformat(q.object.value.replace("Z", "+00:00")))
            except ValueError:
                continue  # an ill-typed time is the validator's business, not bisect's
    return sorted(stamps)


def ask_at(store: MemoryStore, ask: str, t: datetime, *, tenant: str | None = None) -> bool:
    """Answer ``ask`` over current knowledge at ``t``: the claims then known and
    valid, asserted as plain triples in the default graph of a scratch store."""
    scratch = Store()
    scratch.extend(Quad(s, p, o, DefaultGraph()) for _, s, p, o in known_at(store, t, tenant=tenant))
    try:
        answer = scratch.query(ask, prefixes=PREFIXES)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<ask>") from None
    if not isinstance(answer, bool) and type(answer).__name__ != "QueryBoolean":
        raise ValueError("bisect needs an ASK query")
    return bool(answer)


@dataclass(frozen=True)
class Bisection:
    """Where an ASK over current knowledge changed its answer."""

    first: datetime | None  #: the first transaction time with the new answer (None: it never flips)
    before: bool  #: the answer at the earliest transaction time
    after: bool  #: the answer at the latest
    steps: int  #: how many times the question was asked


def bisect(store: MemoryStore, ask: str, *, tenant: str | None = None) -> Bisection:
    """The first transaction time at which ``ask`` (over the audit view) flips.

    Like ``git bisect``, it assumes one flip between the earliest and the latest
    transaction time and finds it in O(log n) questions; with several flips it
    finds one of them.
    """
    times: Sequence[datetime] = transaction_times(store, tenant=tenant)
    if not times:
        raise NotFoundError("the store records no transaction times (mem:recordedAt): nothing to bisect")
    steps = 2
    first, last = ask_at(store, ask, times[0], tenant=tenant), ask_at(store, ask, times[-1], tenant=tenant)
    if first == last:
        return Bisection(None, first, last, steps)
    lo, hi = 0, len(times) - 1  # answer at lo is `first`, at hi is not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        steps += 1
        if ask_at(store, ask, times[mid], tenant=tenant) == first:
            lo = mid
        else:
            hi = mid
    return Bisection(times[hi], first, last, steps)


__all__ = ["Bisection", "Diff", "Version", "ask_at", "bisect", "diff", "history", "known_at", "transaction_times"]
