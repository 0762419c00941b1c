"""What recall returns: hits, each naming its node and saying why it ranked where it did
(:mod:`memkg.core.hits`, defined below the store, whose own recall returns them), the signals
that rank them, and the answer the library and the adapters share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.hits import Hit, Hits

__all__ = ["Hit", "Hits", "RecallAnswer", "SIGNALS"]

#: The signals that can rank a hit, in the order they are reported.
SIGNALS = ("lexical", "vector", "entity", "time", "graph")


@dataclass(frozen=True)
class RecallAnswer:
    """A question and its hits (and, if asked, the evidence packet seeded by them): the one
    result type the library, the command line, the endpoint and the agent tools share."""

    query: str
    hits: tuple[Hit, ...]
    packet: Any = None  #: a memkg.provenance.evidence.EvidencePacket, or None
    matched: bool = True  #: whether anything in memory matched (see :class:`Hits`)

    def to_dict(self) -> dict[str, Any]:
        """``{"query": …, "matched": …, "hits": [hit.to_dict(), …]}``, plus ``"packet"`` when there is one."""
        out: dict[str, Any] = {"query": self.query, "matched": self.matched, "hits": [h.to_dict() for h in self.hits]}
        if self.packet is not None:
            out["packet"] = self.packet.to_dict()
        return out

    def to_text(self) -> str:
        """One block per hit: rank, score, kind, status, IRI; the text; the signals and reasons."""
        lines = []
        for n, h in enumerate(self.hits, 1):
            status = "" if h.status == "current" else f" [{h.status}" + (
                f" by {h.successor}" if h.successor else f" by {h.retracted_by}" if h.retracted_by else "") + "]"
            lines.append(f"{n:>2}. {h.score:.4f} {h.kind}{status} <{h.node}>" + (f" ({h.time})" if h.time else ""))
            text = h.text if len(h.text) <= 200 else h.text[:199] + "…"
            lines.append(f"    {text}")
            signals = ", ".join(f"{k} {v:.4f}" for k, v in h.signals.items())
            lines.append(f"    signals: {signals}" + (f"; {'; '.join(h.why)}" if h.why else ""))
        if not self.hits:
            lines.append("no hits")
        elif not self.matched:
            lines.append("nothing in memory matched: the hits are only the nearest by meaning (vector signal alone)")
        return "\n".join(lines) + "\n"
