"""What recall returns: hits, each naming its node and saying why it ranked where it did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Hit", "SIGNALS"]

#: The signals that can rank a hit, in the order they are reported.
SIGNALS = ("lexical", "vector", "entity", "time", "graph")


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
      (with ``retracted_by``) or ``not-valid`` (its validity excludes the time asked about);
      ``withdrawn`` for a retracted source;
    * ``time`` — its event time or start of validity (ISO 8601), when it has one;
    * ``why`` — short notes: the entity or period it matched, the hit it neighbours;
    * ``duplicates`` — lower-ranked nodes saying the same thing, folded into this hit.
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

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON-ready values (SPEC section 7: node, kind, score, text, signals; and the rest)."""
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
