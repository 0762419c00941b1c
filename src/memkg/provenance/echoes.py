"""Echoes: proposals of mem:echoOf between sources that restate each other, and accepting them."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pyoxigraph import (
    DefaultGraph,
    NamedNode,
    Quad,
)

from ..core.terms import datetime_of
from ..core.vocab import mem
from ..store import MemoryStore
from .datasets import IRI, as_node, dataset, select

# -- echoes ----------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:[.,'’][^\W_]+)*", re.UNICODE)
#: Words too common to say two texts restate each other.
STOPWORDS = frozenset(
    """a an and are as at be been but by for from had has have i if in into is it its of on or our so
    that the their them then there these they this to was we were which will with you your""".split()
)


def tokens(text: str) -> frozenset[str]:
    """The content words of ``text``, lower-cased (numbers kept: "14%" → "14").

    >>> sorted(tokens("The benchmark: Postgres 1.4x faster than MySQL."))
    ['1.4x', 'benchmark', 'faster', 'mysql', 'postgres', 'than']
    """
    return frozenset(w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS)


def echo_score(a: str, b: str) -> float:
    """Token overlap of two texts: Jaccard similarity of their content words, in [0, 1].

    >>> echo_score("We move to Postgres.", "We move to Postgres!")
    1.0
    >>> echo_score("tea", "coffee")
    0.0
    """
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


@dataclass(frozen=True)
class EchoProposal:
    """A proposed ``echo mem:echoOf original`` with its score. A proposal, not a fact:
    nothing is written unless :func:`accept_echoes` is called with it."""

    echo: NamedNode
    original: NamedNode
    score: float

    def quad(self, graph: IRI | None = None) -> Quad:
        g = DefaultGraph() if graph is None else as_node(graph, "graph")
        return Quad(self.echo, mem.echoOf, self.original, g)


_CONTENTS = """
SELECT ?x ?content ?t ?r WHERE {
  ?x mem:content ?content .
  FILTER(isIRI(?x))
  OPTIONAL { ?x mem:eventTime ?t }
  OPTIONAL { ?x mem:recordedAt ?r }
}"""

_LINKED = """
SELECT ?a ?b WHERE {
  ?a mem:content [] .
  ?a (mem:echoOf|prov:wasDerivedFrom|mem:assertedBy|prov:wasQuotedFrom)+ ?b .
}"""


def _when(row: Any) -> tuple[int, str, str]:
    t = row["t"] or row["r"]
    if t is None:
        return (1, "", str(row["x"]))
    when = datetime_of(t)
    return (0, when.isoformat() if when else t.value, str(row["x"]))


def propose_echoes(
    store: MemoryStore, *, tenant: IRI | None = None, threshold: float = 0.55
) -> list[EchoProposal]:
    """Propose ``mem:echoOf`` between near-duplicate sources (those with ``mem:content``).

    Two sources whose :func:`echo_score` is at least ``threshold`` are near
    duplicates; the later one (by ``mem:eventTime``, else ``mem:recordedAt``,
    else IRI) is proposed as an echo of the earlier one it overlaps most. Pairs
    already linked by echo or derivation (either way) are not proposed. Nothing
    is written: see :func:`accept_echoes`.
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    options = dataset(tenant)
    rows = sorted(select(store, _CONTENTS, options), key=_when)
    docs: list[tuple[NamedNode, frozenset[str]]] = []
    seen: set[NamedNode] = set()
    for row in rows:
        if row["x"] not in seen:
            seen.add(row["x"])
            docs.append((row["x"], tokens(row["content"].value)))
    linked = {(r["a"], r["b"]) for r in select(store, _LINKED, options)}
    index: dict[str, list[int]] = defaultdict(list)
    proposals: list[EchoProposal] = []
    for j, (node, words) in enumerate(docs):
        shared: dict[int, int] = defaultdict(int)
        for w in words:
            for i in index[w]:
                shared[i] += 1
        best: tuple[float, int] | None = None
        for i, k in shared.items():
            other, other_words = docs[i]
            score = k / len(words | other_words)
            if score < threshold or (node, other) in linked or (other, node) in linked:
                continue
            if best is None or score > best[0] or (score == best[0] and i < best[1]):
                best = (score, i)
        if best is not None:
            proposals.append(EchoProposal(node, docs[best[1]][0], round(best[0], 4)))
        for w in words:
            index[w].append(j)
    return proposals


def accept_echoes(
    store: MemoryStore, proposals: Iterable[EchoProposal], *, graph: IRI | None = None
) -> int:
    """Record accepted proposals as ``mem:echoOf`` facts (one validated write); returns quads written.

    :raises ~memkg.core.errors.ValidationError: the write breaks an invariant (nothing is written).
    """
    return store.write([p.quad(graph) for p in proposals], source="accepted echo proposals")
