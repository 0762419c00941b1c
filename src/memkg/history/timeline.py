"""History for people: a claim's versions with blame, what changed between two
transaction times, and when an answer flipped.

All three read the bitemporal views (``queries/history.rq`` and
``queries/audit.rq``), so they follow the time semantics of docs/contract.md section 3:
"current knowledge at transaction time T" is the ``audit`` view with
``known_at = valid_at = T``: what the store believed then about then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Store

from ..core.errors import NotFoundError, ParseError
from ..core.json_terms import term_json, terms_json
from ..core.terms import IRI, Term, datetime_literal, datetime_of, tenant_iri
from ..core.vocab import PREFIXES, mem, prov
from ..store import MemoryStore, scope, views


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
        """As JSON (:mod:`memkg.core.json_terms`)."""
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


def history(store: MemoryStore, claim: str | NamedNode, *, tenant: IRI | None = None) -> list[Version]:
    """Every version in ``claim``'s supersession chain, oldest first, with blame.

    Raises :class:`~memkg.core.errors.UnknownIRIError` when no graph of the scope holds
    ``claim``, :class:`~memkg.core.errors.NotFoundError` when it is no claim.
    """
    params = {"claim": claim.value if isinstance(claim, NamedNode) else claim}
    scope.locate(store.raw, store.read_iri(claim, what="claim"), tenant=tenant)
    # Blame is read where the view reads: the tenant's graph and the shared one, never another tenant's.
    graphs: list[NamedNode | DefaultGraph] | None = None
    node = tenant_iri(tenant)
    if node is not None:
        params["tenant"] = node.value
        graphs = [node, DefaultGraph()]
    versions = []

    def objects(subject: NamedNode, predicate: NamedNode) -> list[NamedNode]:
        return _objects(store, subject, predicate, graphs)

    for row in views.solutions(store.view("history", params)):
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


def known_at(store: MemoryStore, t: datetime, *, tenant: IRI | None = None) -> set[Row]:
    """Current knowledge as the store had it at transaction time ``t``."""
    stamp = datetime_literal(t).value
    params = {"known_at": stamp, "valid_at": stamp}
    node = tenant_iri(tenant)
    if node is not None:
        params["tenant"] = node.value
    return {(r["claim"], r["subject"], r["predicate"], r["object"]) for r in views.solutions(store.view("audit", params))}


@dataclass(frozen=True)
class Diff:
    """Claims that entered and left current knowledge between two transaction times."""

    added: list[Row]
    removed: list[Row]


def diff(store: MemoryStore, t1: datetime, t2: datetime, *, tenant: IRI | None = None) -> Diff:
    """What current knowledge gained and lost from ``t1`` to ``t2``."""
    before, after = known_at(store, t1, tenant=tenant), known_at(store, t2, tenant=tenant)
    return Diff(added=_in_order(after - before), removed=_in_order(before - after))


def _in_order(rows: set[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: tuple(str(x) for x in r))


def transaction_times(store: MemoryStore, *, tenant: IRI | None = None) -> list[datetime]:
    """Every distinct ``mem:recordedAt`` in the store (or one tenant), in order."""
    return _times(store, (mem.recordedAt,), tenant)


def change_times(store: MemoryStore, *, tenant: IRI | None = None) -> list[datetime]:
    """Every time at which current knowledge (``known_at = valid_at = T``) can change, in order:
    each ``mem:recordedAt`` (a claim learned, superseded or retracted) and each
    ``mem:validFrom`` and ``mem:validUntil`` (a claim starting or ceasing to hold). Between
    two consecutive ones, every question has one answer."""
    return _times(store, (mem.recordedAt, mem.validFrom, mem.validUntil), tenant)


def _times(store: MemoryStore, predicates: Sequence[NamedNode], tenant: IRI | None) -> list[datetime]:
    # A tenant's view also reads the shared default graph, so its times count too.
    node = tenant_iri(tenant)
    graphs: list[NamedNode | DefaultGraph | None] = [node, DefaultGraph()] if node is not None else [None]
    stamps = set()
    for graph in graphs:
        for predicate in predicates:
            for q in store.quads(None, predicate, None, graph):
                t = datetime_of(q.object)
                if t is not None:  # an ill-typed time is the validator's business, not bisect's
                    stamps.add(t)
    return sorted(stamps)


def ask_at(store: MemoryStore, ask: str, t: datetime, *, tenant: IRI | None = None) -> bool:
    """Answer ``ask`` over current knowledge at ``t``: the claims then known and
    valid, asserted as plain triples in the default graph of a scratch store."""
    scratch = Store()
    scratch.extend(Quad(s, p, o, DefaultGraph()) for _, s, p, o in known_at(store, t, tenant=tenant)
                   if not isinstance(s, Literal))  # a claim's subject is never a literal
    try:
        answer = scratch.query(ask, prefixes=PREFIXES)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<ask>", sparql=ask) from None
    if not isinstance(answer, bool) and type(answer).__name__ != "QueryBoolean":
        raise ValueError("bisect needs an ASK query")
    return bool(answer)


@dataclass(frozen=True)
class Flip:
    """The answer changed: from ``at`` on (until the next flip) it is ``answer``."""

    at: datetime
    answer: bool


#: How many times bisect asks at most, by default, before it samples instead of asking at every one.
MAX_QUESTIONS = 256


@dataclass(frozen=True)
class Bisection:
    """Where an ASK over current knowledge changed its answer: every flip, or those found
    when the question could not be asked at every time (``complete`` False)."""

    first: datetime | None  #: the first flip's time (None: no flip found)
    before: bool  #: the answer at the earliest time
    after: bool  #: the answer at the latest
    steps: int  #: how many times the question was asked
    flips: tuple[Flip, ...] = ()  #: every flip found, in time order
    #: whether the question was asked at every time the answer can change (else an even
    #: number of flips between two sampled times, the answer flipping and back, goes unseen)
    complete: bool = True
    times: int = 0  #: how many times the answer can change at (``change_times``)


def bisect(store: MemoryStore, ask: str, *, tenant: IRI | None = None,
           max_questions: int = MAX_QUESTIONS) -> Bisection:
    """Every time at which ``ask`` (over current knowledge, the audit view) flips.

    The answer can only change at a :func:`change_times` time. With at most
    ``max_questions`` of them, it is asked at each, so every flip is found
    (``complete``). With more, it is asked at ``max_questions`` times spread
    evenly, and each pair of neighbours with different answers is bisected to the
    flip between them, as ``git bisect`` does; where neighbours agree, the answer
    may have flipped and flipped back unseen, so the result says it is not
    ``complete`` and never claims the answer held throughout.
    """
    if max_questions < 2:
        raise ValueError(f"max_questions must be at least 2, not {max_questions}")
    times: Sequence[datetime] = change_times(store, tenant=tenant)
    if not times:
        raise NotFoundError("the store records no times (mem:recordedAt, mem:validFrom, mem:validUntil): "
                            "nothing to bisect")
    answers: dict[int, bool] = {}

    def answer(i: int) -> bool:
        if i not in answers:
            answers[i] = ask_at(store, ask, times[i], tenant=tenant)
        return answers[i]

    last = len(times) - 1
    complete = len(times) <= max_questions
    sampled = list(range(len(times))) if complete else sorted(
        {round(k * last / (max_questions - 1)) for k in range(max_questions)}
    )
    flips = []
    for lo, hi in zip(sampled, sampled[1:]):
        if answer(lo) == answer(hi):
            continue
        while hi - lo > 1:  # one flip at least between lo and hi: find one
            mid = (lo + hi) // 2
            if answer(mid) == answer(lo):
                lo = mid
            else:
                hi = mid
        flips.append(Flip(times[hi], answer(hi)))
    if len(sampled) == 1:
        answer(0)
    return Bisection(
        first=flips[0].at if flips else None, before=answer(0), after=answer(last), steps=len(answers),
        flips=tuple(flips), complete=complete, times=len(times),
    )


__all__ = ["Bisection", "Diff", "Flip", "change_times", "Version", "ask_at", "bisect", "diff", "history", "known_at", "transaction_times"]
