"""From a question to ranked hits: the signals, their fusion, the graph around strong hits,
version status, and diversification.

Five signals each rank candidates on their own:

* **lexical** — BM25 (FTS5, Porter stemming) over every document's words;
* **vector** — cosine similarity of the question's embedding with each document's;
* **entity** — the documents linked to a vertex the question names (by display name or
  alias): what a person said or was told, the claims about a thing;
* **time** — the documents whose time falls in a period the question names; documents
  outside it are demoted, so "in May" keeps to May;
* **graph** — the neighbours of the strongest hits: the turns before and after in the
  same episode, the claims a message asserted, the message behind a claim.

The ranked lists are fused by weighted reciprocal-rank fusion (each list adds
``weight / (k + rank)``), which needs no calibration between BM25 scores and
cosines. Superseded, retracted and no-longer-valid claims are then demoted below
their successors (pulled in if absent) and say so; near-duplicates (the same words,
or embeddings closer than a threshold) fold into the better-ranked hit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np
from pyoxigraph import BlankNode, Literal, NamedNode, Store

from ..core.terms import GraphName, Subject
from ..core.vocab import mem
from .documents import GraphKey, graph_term, seconds
from .embedder import embed_question
from .hits import Hit, Hits
from .index import RecallIndex, normalise_name
from .vectors import Vectors
from .timeexpr import Period, find_periods, strip_periods

__all__ = ["RecallConfig", "rank"]


@dataclass(frozen=True)
class RecallConfig:
    """How recall weighs its signals; the defaults suit conversational memory in general."""

    #: Candidates each signal contributes before fusion (at least k).
    candidates: int = 100
    #: Matches the lexical signal scores at most (the most frequent words give way; see RecallIndex.lexical).
    lexical_budget: int = 2000
    #: Documents whose vectors are compared exactly (the rest by their sign bits only).
    exact_vectors: int = 2000
    #: Reciprocal-rank fusion constant: larger flattens the difference between ranks.
    rrf_k: int = 20
    #: Each signal's weight in the fusion (benchmarks/README.md: how they were chosen, and how
    #: much recall moves with each).
    weights: dict[str, float] = field(default_factory=lambda: {
        "lexical": 1.4, "vector": 1.0, "entity": 0.8, "time": 0.4, "graph": 0.7,
    })
    #: How many of the best hits pull in their neighbours (the graph signal).
    expand: int = 8
    #: The graph signal's factor for the turn after a hit that asks something ("?"): its reply.
    reply: float = 3.0
    #: How many of the best hits lend their sender to a question that names nobody (0: none).
    speakers: int = 0
    #: Score factor for a hit outside every period the question names (one without a time: ``untimed``).
    outside_period: float = 0.1
    outside_anchored: float = 0.5  #: the same for a period dated by the memory ("before the move")
    untimed: float = 0.5
    #: Score factors for claims that are no longer current.
    superseded: float = 0.3
    retracted: float = 0.2
    not_valid: float = 0.5
    #: Score factor for the very vertex the question names (it asks about Lia; Lia's node is no answer).
    named_vertex: float = 0.1
    #: Two hits of one kind whose embeddings are at least this similar are one hit.
    duplicate_similarity: float = 0.97
    #: Folded duplicates a hit names at most (a sentence said in a thousand conversations is one
    #: hit; naming every copy would cost a store lookup each).
    duplicates_listed: int = 10
    #: The share of the lexical score the entity and time lists add to the cosine they rank by.
    focus_lexical: float = 0.5
    #: Whether the names the entity signal matched are also looked up as words (in a dialogue
    #: the other speaker says the name: "thanks, Lia!").
    names_in_text: bool = False
    #: The strongest hits whose episodes are read again (0: none), and the weight of that pass.
    episodes: int = 3
    episode_weight: float = 0.0
    #: The best candidates whose episodes are counted, and the score factor ``1 + session_focus × share``
    #: for every candidate of an episode holding that share of them (0: off).
    focus_hits: int = 10
    session_focus: float = 0.25
    #: The cosine below which a best hit found by the vector signal alone is no match (``Hits.matched``).
    vector_floor: float = 0.5
    #: Whether the question is also embedded without the names the entity signal matched: each
    #: document is then as near as the nearer of the two vectors. A turn rarely says its speaker's
    #: name, so what the question asks is nearer without it; a claim says its subject's.
    unnamed_vector: bool = True


_STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both but by
can could did do does doing down during each few for from further had has have having he her here hers herself him
himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself yourselves tell told say said ever anything something thing things kind
know think get got also much many one ones like really
""".split())
_POSSESSIVE = re.compile(r"'s$")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def query_terms(text: str) -> list[str]:
    """The text's content words, as the lexical signal looks them up (stop words left out).

    >>> query_terms("What does Lia's cat eat?")
    ['lia', 'cat', 'eat']
    """
    terms = [w for w in (_POSSESSIVE.sub("", w).replace("'", "") for w in words(text)) if w not in _STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(terms))


@dataclass
class _Candidate:
    doc: int
    contributions: dict[str, float] = field(default_factory=dict)
    why: list[str] = field(default_factory=list)
    factor: float = 1.0

    @property
    def score(self) -> float:
        return sum(self.contributions.values()) * self.factor


def rank(
    index: RecallIndex,
    store: Store,
    query: str,
    *,
    graphs: Sequence[GraphKey] | None,
    k: int = 10,
    now: datetime | None = None,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    config: RecallConfig | None = None,
) -> Hits:
    """The ``k`` best hits for ``query`` among the documents of ``graphs`` (None: every graph)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    cfg = config or RecallConfig()
    reference = (now or known_at or valid_at or datetime.now(timezone.utc)).astimezone(timezone.utc)
    ranking = _Ranking(index, store, cfg, graphs, k, known_at)
    ranking.read_question(query, reference)
    ranking.rank_signals()
    ranking.fuse()
    ranking.expand_graph()
    ranking.lend_speakers()
    ranking.second_pass()
    ranking.focus_sessions()
    hits = ranking.choose((valid_at or reference).timestamp())
    return Hits(hits, query=query, matched=ranking.matched(hits))


class _Ranking:
    """One recall's state, step by step: the scope, the question read, each signal's list, the
    fused candidates, then the graph around them, and the hits chosen."""

    def __init__(self, index: RecallIndex, store: Store, cfg: RecallConfig, graphs: Sequence[GraphKey] | None,
                 k: int, known_at: datetime | None) -> None:
        self.index, self.store, self.cfg, self.graphs, self.k, self.known_at = index, store, cfg, graphs, k, known_at
        self.depth = max(cfg.candidates, k)  # each signal's list: k hits need at least k candidates
        self.vectors = vectors = index.vectors()
        n = vectors.size
        scope = vectors.alive[:n].copy()
        if graphs is not None:
            codes = [vectors.graph_codes[g] for g in graphs if g in vectors.graph_codes]
            scope &= np.isin(vectors.graphs[:n], codes)
        self.held = int(np.count_nonzero(scope))  # the documents the text search may match
        if known_at is not None:
            recorded = vectors.recorded[:n]
            scope &= ~(recorded > known_at.timestamp())  # unrecorded (nan) documents stay
        self.scope = scope
        self.lists: dict[str, list[int]] = {}
        self.candidates: dict[int, _Candidate] = {}
        self.position: dict[int, int] = {}

    def in_scope(self, hits: list[tuple[int, float]]) -> list[tuple[int, int, float]]:
        """(position, document id, score) of the scoped documents among ``hits``."""
        if not hits:
            return []
        pos = self.vectors.positions(d for d, _ in hits)
        keep = {int(self.vectors.ids[p]): int(p) for p in pos if self.scope[p]}
        return [(keep[d], d, s) for d, s in hits if d in keep]

    def read_question(self, query: str, reference: datetime) -> None:
        """The question's vertices, periods (anchors resolved in the memory), words and vector."""
        cfg, vectors = self.cfg, self.vectors
        self.entities = _entities(self.index, query, self.graphs)
        self.linked = np.zeros(vectors.size, dtype=bool)
        self.linked_rows = vectors.linked(self.entities) if self.entities else None
        if self.linked_rows is not None:
            self.linked[self.linked_rows] = True
        self.periods = _periods(self.index, query, reference, self.in_scope, vectors, self.graphs, self.linked,
                                cfg.lexical_budget, self.held)
        text = strip_periods(query, self.periods) or query
        terms = query_terms(text)
        if not cfg.names_in_text and self.entities:  # the entity signal reads the names
            named = {w for name in self.entities.values() for w in name.split()}
            terms = [t for t in terms if t not in named] or terms
        self.lexical = self.in_scope(self.index.lexical(terms, self.depth * 2, self.graphs,
                                                        budget=cfg.lexical_budget, documents=self.held))
        self.question_vector = embed_question(self.index.embedder, text)
        #: The question's meaning without the names it says (None: not asked for, or none said).
        self.unnamed_vector = None
        if cfg.unnamed_vector and self.entities:
            unnamed = _without_names(text, self.entities.values())
            if unnamed != text:
                self.unnamed_vector = embed_question(self.index.embedder, unnamed)
        self.in_period = vectors.during((p.start.timestamp(), p.end.timestamp()) for p in self.periods) \
            if self.periods else None

    def rank_signals(self) -> None:
        """Each signal's ranked list of document ids."""
        cfg, vectors, depth = self.cfg, self.vectors, self.depth
        focus: dict[str, np.ndarray] = {}  # the rows the entity and time lists choose among
        if self.linked_rows is not None:
            focus["entity"] = self.linked & self.scope
        if self.in_period is not None:
            focus["time"] = self.in_period & self.scope
        # Exact cosines where the lists are decided: the best by sign bits, and the documents the
        # entity and time lists choose among (when they are few).
        few = [np.flatnonzero(m) for m in focus.values() if 0 < np.count_nonzero(m) <= cfg.exact_vectors]
        also = np.concatenate(few) if few else None
        similarity, exact, ceiling = vectors.nearest(self.question_vector, self.scope, cfg.exact_vectors, also)
        if self.unnamed_vector is not None:  # each document as near as the nearer of the two
            other, exact_other, ceiling_other = vectors.nearest(self.unnamed_vector, self.scope, cfg.exact_vectors, also)
            np.maximum(similarity, other, out=similarity)
            exact, ceiling = np.union1d(exact, exact_other), max(ceiling, ceiling_other)
            similarity[exact] = np.maximum(vectors.cosines(exact, self.question_vector.astype(np.float32)),
                                           vectors.cosines(exact, self.unnamed_vector.astype(np.float32)))
        self.similarity = similarity
        lex_score = np.zeros(vectors.size, dtype=np.float32)
        if self.lexical:
            best = max(score for _, _, score in self.lexical) or 1.0
            for row, _, score in self.lexical:
                lex_score[row] = score / best
        # Every row scored above the ceiling is among these: the others' estimates are lower.
        likely = np.union1d(exact, np.array([row for row, _, _ in self.lexical], dtype=np.int64))

        def best_of(mask: np.ndarray, lexical_share: float) -> list[int]:
            """Document ids of the best rows where ``mask`` holds, by cosine (plus ``lexical_share``
            of the lexical score): found among the likely rows, unless a row outside could rank."""
            rows = likely[mask[likely]]
            values = similarity[rows] + np.float32(lexical_share) * lex_score[rows]
            top = _top(values, depth)
            complete = top.size == depth and values[top[-1]] > ceiling
            if not complete and ceiling > -np.inf and rows.size < np.count_nonzero(mask):
                rows = np.flatnonzero(mask)
                values = similarity[rows] + np.float32(lexical_share) * lex_score[rows]
                top = _top(values, depth)
            return [int(vectors.ids[rows[at]]) for at in top]

        self.lists["lexical"] = [d for _, d, _ in self.lexical[:depth]]
        # The vector list ranks the cosines computed, not the sign bits' estimates of the rest.
        self.lists["vector"] = [int(vectors.ids[exact[at]]) for at in _top(similarity[exact], depth)]
        # Entity and time rank their documents by how well they match the question too.
        for signal, mask in focus.items():
            self.lists[signal] = best_of(mask, cfg.focus_lexical)

    def weight(self, signal: str) -> float:
        return self.cfg.weights.get(signal, 0.0)

    def fuse(self) -> None:
        """Weighted reciprocal-rank fusion of the lists; then the named vertices and the periods."""
        cfg, candidates = self.cfg, self.candidates
        for signal, ranked in self.lists.items():
            weight = self.weight(signal)
            for r, d in enumerate(ranked):
                c = candidates.setdefault(d, _Candidate(d))
                c.contributions[signal] = weight / (cfg.rrf_k + r + 1)
        vectors = self.vectors
        self.position = {int(vectors.ids[row]): int(row) for row in vectors.positions(sorted(candidates))}
        if self.entities:
            linked_candidates = [d for d, row in self.position.items() if self.linked[row]]
            for d, (entity, role) in self.index.roles(linked_candidates, sorted(self.entities)).items():
                candidates[d].why.append(f"{role}: {self.entities[entity]}")
            # The vertex a question names is its subject, rarely its answer.
            for d in self.index.documents_of(sorted(self.entities)):
                if d in candidates:
                    candidates[d].factor *= cfg.named_vertex
        # A period dated by the memory ("before the move") is less certain than one the question dates.
        self.outside = cfg.outside_period if any(not x.dated_by_memory for x in self.periods) else cfg.outside_anchored
        if self.in_period is not None and cfg.weights.get("time", 0.0) > 0:  # the time signal also keeps to the period
            timed_all = vectors.timed
            for d, c in candidates.items():
                at_row = self.position.get(d)
                if at_row is None:
                    continue
                if self.in_period[at_row]:
                    c.why.append("in " + ", ".join(x.phrase for x in self.periods))
                elif timed_all[at_row]:
                    c.factor *= self.outside
                else:
                    c.factor *= cfg.untimed

    def strongest(self, count: int) -> list[_Candidate]:
        return sorted(self.candidates.values(), key=lambda c: -c.score)[:count]

    def lend(self, doc: int, signal: str, gain: float, why: str, row: int | None = None) -> None:
        """Give ``doc`` (a candidate, or one joining) ``gain`` for ``signal`` unless it has more."""
        c = self.candidates.get(doc)
        joining = c is None
        if c is None:
            c = self.candidates[doc] = _Candidate(doc)
        if c.contributions.get(signal, 0.0) < gain:
            c.contributions[signal] = gain
            c.why.append(why)
        if joining and row is not None and self.in_period is not None and self.cfg.weights.get("time", 0.0) > 0:
            c.factor *= 1.0 if self.in_period[row] else self.outside

    def expand_graph(self) -> None:
        """The graph around the strongest hits: the turns before and after, the claims a message
        asserted, the message behind a claim."""
        strong = self.strongest(self.cfg.expand)
        docs = self.index.documents([c.doc for c in strong])
        weight = self.weight("graph")
        for r, c in enumerate(strong):
            doc = docs.get(c.doc)
            if doc is None:
                continue
            # The turn after a question is its answer more often than any other neighbour.
            asks = "?" in str(doc["text"])
            for neighbour, link in self.index.neighbours(doc, str(doc["graph"])):
                rows = self.vectors.positions([neighbour])
                if rows.size and self.scope[rows[0]]:
                    gain = weight / (self.cfg.rrf_k + r + 1) * (self.cfg.reply if asks and link == "turn after" else 1.0)
                    self.lend(neighbour, "graph", gain, f"{link} {doc['node']}", int(rows[0]))

    def lend_speakers(self) -> None:
        """A question that names nobody ("the person who works at Halden Labs") is often about
        whoever said the best hits: their other candidate turns gain (pseudo-relevance feedback)."""
        cfg = self.cfg
        if self.entities or not cfg.speakers:
            return
        speakers = self.index.senders([c.doc for c in self.strongest(cfg.speakers)])
        weight = self.weight("graph")
        for d, speaker in self.index.said_by(list(speakers), list(self.candidates)):
            self.lend(d, "graph", weight / (cfg.rrf_k + speakers[speaker] + 1), f"said by {speaker}, as a top hit")

    def second_pass(self) -> None:
        """The episodes of the strongest hits are read again: their other candidates gain (an
        answer often sits a few turns from the words that match it)."""
        cfg = self.cfg
        if not cfg.episodes or cfg.episode_weight <= 0:
            return
        strong = self.strongest(cfg.episodes)
        episodes = {str(doc["episode"]): r for r, doc in enumerate(
            self.index.documents([c.doc for c in strong]).get(c.doc, {}) for c in strong) if doc.get("episode")}
        if not episodes:
            return
        others = [d for d in self.candidates if d not in {c.doc for c in strong}]
        for d, doc in self.index.documents(others).items():
            r = episodes.get(str(doc.get("episode")))
            if r is not None:
                self.lend(d, "graph", cfg.episode_weight / (cfg.rrf_k + r + 1), f"in the episode of a top hit")

    def focus_sessions(self) -> None:
        """Candidates of the episodes where the best hits gather gain: a conversation about one
        topic (music, a trip) holds the turns an inference question needs even where they share
        none of its words. An episode gathers what its share of the best hits has beyond its share
        of all candidates (a long session holds many candidates without being about the question);
        the factor multiplies, so a turn's own score still orders it among its episode's."""
        cfg = self.cfg
        if cfg.session_focus <= 0 or cfg.focus_hits < 1:
            return
        docs = self.index.documents(list(self.candidates))
        episode_of = {d: str(doc["episode"]) for d, doc in docs.items() if doc.get("episode")}
        strong = self.strongest(cfg.focus_hits)
        best: dict[str, int] = defaultdict(int)
        for c in strong:
            if c.doc in episode_of:
                best[episode_of[c.doc]] += 1
        held: dict[str, int] = defaultdict(int)
        for episode in episode_of.values():
            held[episode] += 1
        excess = {e: n / len(strong) - held[e] / len(self.candidates) for e, n in best.items()
                  if n > 1}  # one hit alone is no gathering
        for d, episode in episode_of.items():
            share = excess.get(episode, 0.0)
            if share > 0:
                c = self.candidates[d]
                c.factor *= 1.0 + cfg.session_focus * share
                c.why.append(f"in an episode holding {best[episode]} of the {len(strong)} best hits")

    def choose(self, at: float) -> list[Hit]:
        """Versions and diversity, a pool of the best candidates at a time: a pool whose
        candidates fold into fewer than k hits (one sentence said in many conversations) is
        followed by the next."""
        by_score = sorted(self.candidates.values(), key=lambda c: -c.score)
        pool_size = max(4 * self.k, 40)
        chosen = _Chosen(self.k, self.vectors.dim)
        index, store, cfg = self.index, self.store, self.cfg
        for first in range(0, len(by_score), pool_size):
            pool = by_score[first: first + pool_size]
            docs = index.documents([c.doc for c in pool])
            # A candidate saying what a hit already says folds into it whatever its version; one an
            # earlier pool took in (a successor) is not judged twice.
            pool = [c for c in pool if c.doc not in chosen.seen and not chosen.fold(c.doc, docs.get(c.doc), store, cfg)]
            statuses = _versions(index, store, pool, self.candidates, docs, self.vectors, self.scope, self.known_at,
                                 at, cfg)
            pool.sort(key=lambda c: -c.score)
            chosen.add(pool, docs, statuses, self.vectors, store, cfg)
            if chosen.full:
                break
        return chosen.hits()

    def matched(self, hits: Sequence[Hit]) -> bool:
        """Whether anything in memory matched: a hit was found by its words, a vertex or a period
        the question names (the graph signal only follows other hits), or the best hit's cosine
        with the question reaches ``RecallConfig.vector_floor``."""
        if not hits:
            return False
        if any(set(h.signals) & MATCHING for h in hits):
            return True
        doc = self.index.find(hits[0].node, hits[0].graph or "")
        rows = self.vectors.positions([doc]) if doc is not None else np.zeros(0, dtype=np.int64)
        return bool(rows.size) and float(self.similarity[rows[0]]) >= self.cfg.vector_floor


#: The signals that say the memory holds what the question names (vector: only the nearest
#: meaning; graph: only a neighbour of another hit).
MATCHING = frozenset({"lexical", "entity", "time"})


def _versions(index: RecallIndex, store: Store, pool: list[_Candidate], candidates: dict[int, _Candidate],
              docs: dict[int, dict[str, object]], vectors: Vectors, scope: np.ndarray, known_at: datetime | None,
              at: float, cfg: RecallConfig) -> dict[int, tuple[str, str | None, str | None]]:
    """Superseded, retracted and no-longer-valid claims in ``pool`` go below their successors (each
    successor joins the pool); the status of every candidate in it, by document id."""
    statuses: dict[int, tuple[str, str | None, str | None]] = {}
    for c in list(pool):
        doc = docs.get(c.doc)
        if doc is None:
            continue
        status, successor, retracted_by = _status(store, doc, known_at, at)
        statuses[c.doc] = (status, successor, retracted_by)
        if status == "superseded":
            c.factor *= cfg.superseded
            if successor is not None:
                succ_id = index.find(successor, str(doc["graph"]))
                if succ_id is not None and succ_id not in docs:
                    rows = vectors.positions([succ_id])
                    if rows.size and scope[rows[0]]:
                        succ = candidates.setdefault(succ_id, _Candidate(succ_id))
                        succ.contributions["graph"] = max(succ.contributions.get("graph", 0.0), c.score / cfg.superseded)
                        succ.why.append(f"successor of {doc['node']}")
                        pool.append(succ)
        elif status in ("retracted", "withdrawn"):
            c.factor *= cfg.retracted
        elif status == "not-valid":
            c.factor *= cfg.not_valid
    more = [c.doc for c in pool if c.doc not in docs]
    if more:
        docs.update(index.documents(more))
        for d in more:
            statuses[d] = _status(store, docs[d], known_at, at) if d in docs else ("current", None, None)
    return statuses


class _Chosen:
    """The hits chosen so far: at most ``k``, no two alike (the same text, or embeddings at least
    ``duplicate_similarity`` alike, of one kind); each names the first candidates folded into it
    (at most ``duplicates_listed``)."""

    def __init__(self, k: int, dim: int) -> None:
        self.k = k
        self.found: list[Hit] = []
        self.kinds: list[str] = []  # each hit's kind
        self.by_text: dict[tuple[str, str], int] = {}  # (kind, normalised text) → hit
        self.units = np.zeros((k, dim), dtype=np.float32)  # each hit's embedding (zeros when it has none)
        self.folded: dict[int, list[str]] = defaultdict(list)
        self.seen: set[int] = set()  # a successor may join two pools

    @property
    def full(self) -> bool:
        return len(self.found) >= self.k

    def fold(self, doc_id: int, doc: dict[str, object] | None, store: Store, cfg: RecallConfig) -> bool:
        """Fold the document into the hit with its kind and text, if there is one; whether it was."""
        if doc is None or not self.by_text:
            return False
        twin = self.by_text.get((str(doc["kind"]), normalise_name(str(doc["text"]))))
        if twin is None:
            return False
        if doc_id not in self.seen:
            self.seen.add(doc_id)
            self._fold_into(twin, doc, store, cfg)
        return True

    def _fold_into(self, twin: int, doc: dict[str, object], store: Store, cfg: RecallConfig) -> None:
        if len(self.folded[twin]) < cfg.duplicates_listed and _held(store, doc):
            self.folded[twin].append(str(doc["node"]))

    def add(self, pool: list[_Candidate], docs: dict[int, dict[str, object]],
            statuses: dict[int, tuple[str, str | None, str | None]], vectors: Vectors, store: Store,
            cfg: RecallConfig) -> None:
        rows = vectors.positions(c.doc for c in pool)
        unit_of = dict(zip((int(vectors.ids[r]) for r in rows), vectors.rows(rows)))
        for c in pool:
            doc = docs.get(c.doc)
            if doc is None or c.doc in self.seen:
                continue
            self.seen.add(c.doc)
            kind, unit = str(doc["kind"]), unit_of.get(c.doc)
            text_key = (kind, normalise_name(str(doc["text"])))
            twin = self.by_text.get(text_key)
            if twin is None and unit is not None:
                alike = np.flatnonzero(self.units[: len(self.kinds)] @ unit >= cfg.duplicate_similarity)
                twin = next((int(i) for i in alike if self.kinds[i] == kind), None)
            if twin is not None:
                self._fold_into(twin, doc, store, cfg)
                continue
            if self.full or not _held(store, doc):
                continue
            status, successor, retracted_by = statuses.get(c.doc, ("current", None, None))
            if unit is not None:
                self.units[len(self.kinds)] = unit
            self.by_text.setdefault(text_key, len(self.kinds))
            self.kinds.append(kind)
            self.found.append(Hit(
                node=str(doc["node"]), kind=str(doc["kind"]), score=c.score, text=str(doc["text"]),
                signals={s: v * c.factor for s, v in c.contributions.items()}, status=status,
                graph=str(doc["graph"]) or None, time=_iso(doc.get("start")), successor=successor,
                retracted_by=retracted_by, why=tuple(dict.fromkeys(c.why)),
            ))

    def hits(self) -> list[Hit]:
        """Best first (a later pool's hit may outscore a demoted one of an earlier pool)."""
        out = [Hit(**{**h.__dict__, "duplicates": tuple(self.folded[i])}) if self.folded.get(i) else h
               for i, h in enumerate(self.found)]
        out.sort(key=lambda h: -h.score)
        return out


def _top(values: np.ndarray, limit: int) -> np.ndarray:
    """The indices of the ``limit`` best ``values``, best first (ties: the lower index first)."""
    where = np.arange(values.size)
    if values.size > limit:
        where = np.sort(np.argpartition(-values, limit - 1)[:limit])
    order: np.ndarray = where[np.argsort(-values[where], kind="stable")]
    return order


def _periods(index: RecallIndex, query: str, reference: datetime,
             in_scope: Callable[[list[tuple[int, float]]], list[tuple[int, int, float]]],
             vectors: Vectors, graphs: Sequence[GraphKey] | None, linked: np.ndarray, budget: int,
             held: int) -> list[Period]:
    """The question's periods. An anchor ("before the move") is dated by its best lexical match
    that has a time, preferring one linked to a vertex the question names (Lia's move, not her
    cousin's)."""
    out: list[Period] = []
    for p in find_periods(query, reference):
        when = None
        if p.anchor is not None:
            found = [pos for pos, _, _ in in_scope(index.lexical(query_terms(p.anchor), 20, graphs, budget=budget, documents=held))
                     if not np.isnan(vectors.start[pos])]
            best = next((pos for pos in found if linked[pos]), found[0] if found else None)
            if best is not None:
                when = datetime.fromtimestamp(float(vectors.start[best]), timezone.utc)
        resolved = p.resolved(when)
        if resolved is not None:
            out.append(resolved)
    return out


def _entities(index: RecallIndex, query: str, graphs: Sequence[GraphKey] | None) -> dict[str, str]:
    """The vertices the question names (vertex → the name used): whole names (1-4 words)
    first; a single word that is only part of a name ("Lia" for "Lia Chen") when no whole
    name matched it."""
    tokens = normalise_name(query).split()
    grams = {" ".join(tokens[i:i + size]) for size in range(1, 5) for i in range(len(tokens) - size + 1)}
    grams = {g for g in grams if g not in _STOPWORDS and len(g) > 1}
    found = index.entities_named(sorted(grams), graphs)
    whole = {(name, entity) for name, entity, _, is_whole in found if is_whole}
    covered = {w for name, _ in whole for w in name.split()}
    entities = {entity: name for name, entity in whole}
    for name, entity, _, is_whole in found:
        if not is_whole and name not in covered:
            entities.setdefault(entity, name)
    return entities


def _without_names(text: str, names: Iterable[str]) -> str:
    """``text`` without the words of ``names`` (normalised names: lower case, single spaces), a
    possessive with them; the text itself when nothing else would be left.

    >>> _without_names("What car is Hugo Novak's?", ["hugo novak"])
    'What car is ?'
    """
    words = sorted({w for name in names for w in name.split()}, key=len, reverse=True)
    if not words:
        return text
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")(?:'s)?\b", re.IGNORECASE)
    left = re.sub(r"\s{2,}", " ", pattern.sub("", text)).strip()
    return left if query_terms(left) else text


def _iso(t: object) -> str | None:
    if not isinstance(t, (int, float)) or t != t:
        return None
    return datetime.fromtimestamp(float(t), timezone.utc).isoformat().replace("+00:00", "Z")


def _held(store: Store, doc: dict[str, object]) -> bool:
    """Whether the store still holds the node (a hit never names one it does not)."""
    for _ in store.quads_for_pattern(NamedNode(str(doc["node"])), None, None, graph_term(str(doc["graph"]))):
        return True
    return False


def _recorded(store: Store, node: Subject, graph: GraphName) -> float | None:
    for q in store.quads_for_pattern(node, mem.recordedAt, None, graph):
        return seconds(q.object)
    return None


def _status(store: Store, doc: dict[str, object], known_at: datetime | None, at: float) -> tuple[str, str | None, str | None]:
    """(status, successor, retracted by) of a hit's node, as the store knows it at ``known_at``."""
    node, graph = NamedNode(str(doc["node"])), graph_term(str(doc["graph"]))
    limit = known_at.timestamp() if known_at is not None else None

    def known(by: Subject) -> bool:
        if limit is None:
            return True
        t = _recorded(store, by, graph)
        return t is None or t <= limit

    for q in store.quads_for_pattern(None, mem.retracts, node, graph):
        if known(q.subject):
            by = q.subject.value if isinstance(q.subject, (NamedNode, BlankNode)) else str(q.subject)
            return ("retracted" if doc["kind"] in ("Claim", "Occurrence") else "withdrawn"), None, by
    if doc["kind"] not in ("Claim", "Occurrence"):
        return "current", None, None
    successors = [q.subject for q in store.quads_for_pattern(None, mem.supersedes, node, graph)
                  if isinstance(q.subject, NamedNode) and known(q.subject)]
    if successors:
        return "superseded", _latest(store, successors[0], graph, known).value, None
    start = _literal_seconds(store, node, mem.validFrom, graph)
    end = _literal_seconds(store, node, mem.validUntil, graph)
    if (start is not None and at < start) or (end is not None and at >= end):
        return "not-valid", None, None
    return "current", None, None


def _latest(store: Store, node: NamedNode, graph: GraphName, known: Callable[[Subject], bool]) -> NamedNode:
    """The end of a supersession chain from ``node`` (the current version), cycles refused by the shapes."""
    seen = {node}
    while True:
        nxt = [q.subject for q in store.quads_for_pattern(None, mem.supersedes, node, graph)
               if isinstance(q.subject, NamedNode) and known(q.subject) and q.subject not in seen]
        if not nxt:
            return node
        node = nxt[0]
        seen.add(node)


def _literal_seconds(store: Store, node: NamedNode, p: NamedNode, graph: GraphName) -> float | None:
    for q in store.quads_for_pattern(node, p, None, graph):
        if isinstance(q.object, Literal):
            return seconds(q.object)
    return None
