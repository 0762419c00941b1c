"""What recall answers (the contract's section 7): hits, each naming its node and saying why it
ranked where it did.

The answer of :meth:`memkg.MemoryStore.recall` and :func:`memkg.recall.recall`, defined here,
below the store, because the store's recall returns it while the ranking
(:mod:`memkg.recall`) is a feature plugged in above it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["Hit", "Hits"]


@dataclass(frozen=True)
class Hit:
    """One node the question led to.

    * ``node`` — its IRI; ``graph`` — the tenant graph holding it (None: the default graph);
    * ``kind`` — ``Message``, ``Claim``, ``Occurrence``, ``Episode``, ``Outcome``, ``Action`` or a
      vertex class (``Person``, ``Agent``, ``Entity``, …);
    * ``score`` — the fused score (higher is better; comparable within one answer only);
    * ``text`` — the words it matched: a message's content, a claim's subject, predicate and
      object, a vertex's names;
    * ``signals`` — each signal's contribution to the score (lexical, vector, entity, time, graph);
    * ``status`` — ``current``; for claims ``superseded`` (with ``successor``), ``retracted``
      (with ``retracted_by``), ``fallen`` (every support group lost a member to a withdrawal:
      ranked as a superseded claim) or ``not-valid`` (its validity excludes the time asked about);
      ``withdrawn`` for a retracted source;
    * ``time`` — its event time or start of validity (ISO 8601), when it has one;
    * ``why`` — short notes: the entity or period it matched, the hit it neighbours;
    * ``duplicates`` — lower-ranked nodes saying the same thing, folded into this hit (the first
      ``RecallConfig.duplicates_listed``).
    """

    node: str
    kind: str
    score: float
    text: str
    signals: dict[str, float]
    status: str = "current"
    graph: str | None = None
    time: str | None = None
    successor: str | None = None
    retracted_by: str | None = None
    why: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = field(default=())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Hit":
        """A hit read back from :meth:`to_dict`'s JSON (keys it does not know are left out)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["why"] = tuple(values.get("why", ()))
        values["duplicates"] = tuple(values.get("duplicates", ()))
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON-ready values (docs/contract.md section 7: node, kind, score, text, signals; and the rest)."""
        out: dict[str, Any] = {
            "node": self.node,
            "kind": self.kind,
            "score": round(self.score, 6),
            "text": self.text,
            "signals": {k: round(v, 6) for k, v in self.signals.items()},
            "status": self.status,
            "graph": self.graph,
        }
        for key in ("time", "successor", "retracted_by"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.why:
            out["why"] = list(self.why)
        if self.duplicates:
            out["duplicates"] = list(self.duplicates)
        return out


class Hits(list[Hit]):
    """A recall's hits, best first: a list of :class:`Hit` (``hits[0].node``, ``len(hits)``,
    slices and iteration as before), that also says whether anything in memory matched.

    ``matched`` is False when no hit was found by its words, a vertex or a period the question
    names (only by the vector signal, and the graph around such hits) and the best hit's cosine
    is below ``RecallConfig.vector_floor`` (docs/contract.md section 7): the hits are the memory's nearest
    meaning, not an answer (a person, period or thing the memory does not have).
    """

    def __init__(self, hits: Iterable[Hit] = (), *, query: str = "", matched: bool = True) -> None:
        super().__init__(hits)
        self.query = query
        self.matched = matched

    def __repr__(self) -> str:
        return f"Hits({list.__repr__(self)}, matched={self.matched})"
