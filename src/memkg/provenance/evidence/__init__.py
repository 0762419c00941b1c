"""Evidence: how strong a claim's support is, where unsupported content entered, and packets for a reader.

Three questions about recorded evidence, answered from the support and lineage
links of :mod:`memkg.provenance`:

* :func:`assess` — how much independent evidence supports a claim, without
  double counting: legs that share an ancestor (through derivation, echo,
  generation or support) are one piece of evidence, not two. The quantities
  stay apart: the claim's recorded ``mem:confidence``, each source's
  ``mem:sourceReliability``, the ``mem:extractionConfidence`` of the reading,
  and the combined evidence strength are reported side by side, never mixed.
* :func:`verify` — walk a derivation chain (source → extraction → relation →
  summary → answer) backwards from its end, give each stage a verdict from
  recorded support, and name the stage where unsupported content entered.
* :func:`packet` — the evidence a reader needs about some claims, within
  budgets of vertices and hops, saying so when the mandatory part does not fit.

>>> from memkg import MemoryStore
>>> store = MemoryStore()
>>> _ = store.load_data('<https://example.org/c> a <https://w3id.org/memkg#Entity> .', format="turtle")
>>> a = assess(store, "https://example.org/c")
>>> a.evidence is None, a.independent
(True, 0)
"""

from __future__ import annotations

from .assessment import Assessment, Cluster, assess
from .packets import BudgetError, EvidencePacket, PacketItem, packet
from .verification import Stage, Verification, verify

__all__ = [
    "Assessment",
    "BudgetError",
    "Cluster",
    "EvidencePacket",
    "PacketItem",
    "Stage",
    "Verification",
    "assess",
    "packet",
    "verify",
]
