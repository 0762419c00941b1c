"""The recall index's vectors and filter columns, held in memory (see :mod:`memkg.recall.index`).

Every document's embedding is kept as an int8 row with a scale, and as one sign bit per
dimension. A search compares the question's bits with every row's (Hamming distance, numpy
``bitwise_count``: 32 bytes a row, no BLAS), then scores the nearest by their rows: at least
2,000 and 0.4 % of the scope (:meth:`Vectors.nearest`; benchmarks/README.md has the
measurements behind it). Beside the vectors: each document's graph, times, record time and
liveness, and its links to vertices (the entity signal), all by document id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .documents import GraphKey

__all__ = ["Vectors"]


class Vectors:
    """The documents' vectors and filter columns in memory, by document id (sorted ascending)."""

    #: The share of the scoped rows scored exactly after the sign-bit pre-scan (see nearest).
    EXACT_SHARE = 0.004

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids = np.zeros(0, dtype=np.int64)
        #: The rows as int8, each with its scale (``row * scale`` is the vector; an error of at most
        #: half a step, ~1e-3 a component): half float16's memory, and converted for arithmetic
        #: several times faster (numpy converts float16 element by element).
        self.matrix = np.zeros((0, dim), dtype=np.int8)
        self.scale = np.zeros(0, dtype=np.float32)
        self.words = (dim + 63) // 64  #: 64-bit words of sign bits per row
        #: Sign bits, word-major (``words`` rows of one 64-bit word per document): a search reads
        #: each word's column contiguously, a cache-sized chunk at a time.
        self.bits = np.zeros((self.words, 0), dtype=np.uint64)
        self.graphs = np.zeros(0, dtype=np.int32)
        self.start = np.zeros(0, dtype=np.float64)
        self.end = np.zeros(0, dtype=np.float64)
        #: A document's time as an interval for period tests (see during): open ends at -inf and
        #: +inf, a moment (end == start) a millisecond long, untimed documents marked.
        self.low = np.zeros(0, dtype=np.float64)
        self.high = np.zeros(0, dtype=np.float64)
        self.timed = np.zeros(0, dtype=bool)
        #: The span of the dates a document's words name (NaN: none; see Document.mentions).
        self.said_low = np.zeros(0, dtype=np.float64)
        self.said_high = np.zeros(0, dtype=np.float64)
        self.recorded = np.zeros(0, dtype=np.float64)
        self.alive = np.zeros(0, dtype=bool)
        self.size = 0
        self.graph_codes: dict[GraphKey, int] = {}
        self._distance = np.zeros(0, dtype=np.uint16)  #: scratch kept between searches (no page faults)
        #: The documents' links to vertices (the entity signal): the document's position, the
        #: vertex (a code in ``entity_codes``).
        self.link_rows = np.zeros(0, dtype=np.int64)
        self.link_entities = np.zeros(0, dtype=np.int32)
        self.links = 0
        self.entity_codes: dict[str, int] = {}
        #: The links sorted by vertex (positions among the links), their vertex codes in that
        #: order, and how many links that covers (the later ones are scanned); one tuple,
        #: replaced whole, so a reader never mixes two versions.
        self._by_entity: tuple[np.ndarray, np.ndarray, int] = (np.zeros(0, np.int64), np.zeros(0, np.int32), 0)

    def code(self, graph: GraphKey) -> int:
        return self.graph_codes.setdefault(graph, len(self.graph_codes))

    def append(self, ids: Sequence[int], vectors: np.ndarray, graphs: Sequence[GraphKey],
               start: Sequence[float | None], end: Sequence[float | None], recorded: Sequence[float | None],
               mentions: Sequence[tuple[float, float] | None] | None = None) -> None:
        n = len(ids)
        if n == 0:
            return
        need = self.size + n
        if need > len(self.ids):
            cap = max(need, 2 * len(self.ids), 1024)
            self.ids = _grow(self.ids, cap)
            self.matrix = _grow(self.matrix, cap)
            self.scale = _grow(self.scale, cap)
            self.bits = _grow(self.bits.T, cap).T.copy()
            self.graphs = _grow(self.graphs, cap)
            self.start = _grow(self.start, cap)
            self.end = _grow(self.end, cap)
            self.low = _grow(self.low, cap)
            self.high = _grow(self.high, cap)
            self.timed = _grow(self.timed, cap)
            self.said_low = _grow(self.said_low, cap)
            self.said_high = _grow(self.said_high, cap)
            self.recorded = _grow(self.recorded, cap)
            self.alive = _grow(self.alive, cap)
        s = slice(self.size, need)
        self.ids[s] = ids
        for at in range(0, n, self.CHUNK):  # a chunk at a time: no float32 copy of a million rows
            rows = np.asarray(vectors[at: at + self.CHUNK], dtype=np.float32)
            part = slice(self.size + at, self.size + at + len(rows))
            peak = np.abs(rows).max(axis=1)
            scale = np.where(peak > 0, peak / np.float32(127.0), np.float32(1.0)).astype(np.float32)
            self.matrix[part] = np.rint(rows / scale[:, None])
            self.scale[part] = scale
            self.bits[:, part] = self.pack(rows).T
        codes = self.graph_codes
        self.graphs[s] = [codes[g] if g in codes else self.code(g) for g in graphs]
        self.start[s] = [np.nan if t is None else t for t in start]
        self.end[s] = [np.nan if t is None else t for t in end]
        first, last = self.start[s], self.end[s]
        self.low[s] = np.where(np.isnan(first), -np.inf, first)
        self.high[s] = np.where(np.isnan(last), np.inf, np.where(last == first, last + 1e-3, last))
        self.timed[s] = ~(np.isnan(first) & np.isnan(last))
        spans = mentions if mentions is not None else [None] * n
        self.said_low[s] = [np.nan if m is None else m[0] for m in spans]
        self.said_high[s] = [np.nan if m is None else m[1] for m in spans]
        self.recorded[s] = [np.nan if t is None else t for t in recorded]
        self.alive[s] = True
        self.size = need

    def link(self, links: Sequence[tuple[int, str]]) -> None:
        """Record links (document id, vertex IRI) of documents appended last."""
        need = self.links + len(links)
        if need > len(self.link_rows):
            cap = max(need, 2 * len(self.link_rows), 1024)
            self.link_rows = _grow(self.link_rows, cap)
            self.link_entities = _grow(self.link_entities, cap)
        codes = self.entity_codes
        docs = np.fromiter((d for d, _ in links), dtype=np.int64, count=len(links))
        self.link_rows[self.links: need] = np.searchsorted(self.ids[: self.size], docs)
        self.link_entities[self.links: need] = [
            codes[e] if e in codes else codes.setdefault(e, len(codes)) for _, e in links]
        self.links = need

    def sorted_links(self, order: np.ndarray, codes: np.ndarray) -> None:
        """Take the links sorted by vertex (``order``: positions among the links; ``codes``: their
        vertex codes in that order), as a file of vectors holds them, instead of sorting again."""
        self._by_entity = (order, codes, len(order))

    def linked(self, entities: Iterable[str]) -> np.ndarray:
        """Positions of the live documents linked to any of ``entities`` (ascending), read from
        the links in memory sorted by vertex: the cost follows the documents found."""
        codes = [self.entity_codes[e] for e in entities if e in self.entity_codes]
        if not codes:
            return np.zeros(0, dtype=np.int64)
        links = self.links
        order, ordered_codes, done = self._by_entity
        if links - done > max(4096, done // 8):  # sorted again now and then
            order = np.argsort(self.link_entities[:links], kind="stable")
            ordered_codes, done = self.link_entities[order], links
            self._by_entity = (order, ordered_codes, done)
        wanted = np.array(sorted(codes), dtype=np.int32)
        starts = np.searchsorted(ordered_codes, wanted, side="left")
        ends = np.searchsorted(ordered_codes, wanted, side="right")
        parts = [order[a:b] for a, b in zip(starts, ends) if b > a]
        parts.append(np.flatnonzero(np.isin(self.link_entities[done:links], wanted)) + done)
        rows = np.sort(self.link_rows[np.concatenate(parts)])
        if rows.size > 1:  # a document linked to two of the vertices (np.unique hashes: slower)
            rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
        live: np.ndarray = rows[self.alive[rows]]
        return live

    def during(self, periods: Iterable[tuple[float, float]]) -> np.ndarray:
        """Which rows have a time overlapping one of ``periods`` (POSIX seconds, end exclusive), or
        name a date that does (a turn saying "yesterday")."""
        n = self.size
        out = np.zeros(n, dtype=bool)
        for start, end in periods:
            out |= (self.low[:n] < end) & (self.high[:n] > start)
            out |= (self.said_low[:n] < end) & (self.said_high[:n] > start)  # NaN (none named) compares False
        out &= self.timed[:n]
        return out

    def positions(self, ids: Iterable[int] | np.ndarray) -> np.ndarray:
        """Positions of the live documents among ``ids`` (unknown ids dropped); ids are sorted."""
        wanted = ids.astype(np.int64, copy=False) if isinstance(ids, np.ndarray) else np.fromiter(ids, dtype=np.int64)
        if wanted.size == 0 or self.size == 0:
            return np.zeros(0, dtype=np.int64)
        held = self.ids[: self.size]
        pos = np.minimum(np.searchsorted(held, wanted), self.size - 1)
        pos = pos[held[pos] == wanted]
        live: np.ndarray = pos[self.alive[pos]]
        return live

    def remove(self, ids: Iterable[int]) -> None:
        pos = self.positions(ids)
        self.alive[pos] = False
        self.matrix[pos] = 0
        self.scale[pos] = 0.0
        self.bits[:, pos] = 0

    def pack(self, vectors: np.ndarray) -> np.ndarray:
        """Sign bits of ``vectors`` (rows), as 64-bit words."""
        rows = np.atleast_2d(vectors)
        packed = np.zeros((len(rows), self.words * 8), dtype=np.uint8)
        packed[:, : (self.dim + 7) // 8] = np.packbits(rows > 0, axis=1)
        words: np.ndarray = packed.view(np.uint64)
        return words

    def nearest(self, question: np.ndarray, scope: np.ndarray, exact: int,
                also: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
        """Cosine similarity of ``question`` with every row in ``scope`` (-inf elsewhere); the rows
        scored exactly (ascending); the highest estimate among the others.

        Every scoped row gets the estimate its sign bits give (``1 - 2 * hamming / dim``);
        the rows nearest by Hamming distance (at least ``exact``, and one in
        :attr:`EXACT_SHARE` of the scope: the sign bits' ranking blurs as rows grow), and the
        rows in ``also``, get the exact cosine (:meth:`cosines`).
        """
        n = self.size
        out = np.full(n, -np.inf, dtype=np.float32)
        whole = bool(scope[:n].all())
        where = None if whole else np.flatnonzero(scope[:n])
        count = n if where is None else where.size
        if count == 0:
            return out, np.zeros(0, dtype=np.int64), -np.inf
        distance = self.hamming(self.pack(question)[0], where)
        # 1 - 2h/d: monotone in the Hamming distance, as cos(pi h / d) is, at a fraction of the cost.
        step = np.float32(-2.0 / self.dim)
        if where is None:
            np.multiply(distance, step, out=out)
            out += np.float32(1.0)
        else:
            out[where] = distance * step + np.float32(1.0)
        wanted = max(exact, int(count * self.EXACT_SHARE))
        ceiling = -np.inf
        if count > wanted:
            near, cut = self._closest(distance, wanted)
            best = near if where is None else where[near]
            ceiling = float(np.float32(1.0) + step * np.float32(cut))  # no row left out is nearer
        else:
            best = np.arange(n) if where is None else where
        if also is not None and also.size:
            best = np.union1d(best, also[scope[also]])
        q = question.astype(np.float32)
        out[best] = self.cosines(best, q)
        return out, best, ceiling

    def rows(self, at: np.ndarray) -> np.ndarray:
        """The vectors at positions ``at``, as float32 rows."""
        out: np.ndarray = self.matrix[at].astype(np.float32) * self.scale[at, None]
        return out

    def cosines(self, at: np.ndarray, question: np.ndarray) -> np.ndarray:
        """Cosine similarity of ``question`` (float32) with the rows at ``at`` (einsum: no
        multi-threaded BLAS call, which costs more than it saves on a busy machine at these sizes)."""
        out: np.ndarray = np.einsum("ij,j->i", self.matrix[at].astype(np.float32), question) * self.scale[at]
        return out

    def _closest(self, distance: np.ndarray, wanted: int) -> tuple[np.ndarray, int]:
        """The positions of the ``wanted`` smallest ``distance``s (ascending; ties at the cut-off
        broken by position), and that cut-off distance.

        The distances are small integers: a histogram gives the cut-off without sorting. It is
        first read from every ``stride``-th row (a histogram of every row costs more than the
        Hamming distances did), with room to spare; the rows within it are then cut exactly.
        """
        stride = max(1, wanted // 256)
        histogram = np.bincount(distance[::stride], minlength=self.dim + 1)
        cut = int(np.searchsorted(np.cumsum(histogram), 2 * wanted // stride))
        near = np.flatnonzero(distance <= cut)
        if near.size < wanted:  # the sample misjudged: every row's histogram
            cut = int(np.searchsorted(np.cumsum(np.bincount(distance, minlength=self.dim + 1)), wanted))
            near = np.flatnonzero(distance <= cut)
        held = distance[near]
        cut = int(np.searchsorted(np.cumsum(np.bincount(held, minlength=self.dim + 1)), wanted))
        below = near[held < cut]
        return np.sort(np.concatenate([below, near[held == cut][: wanted - below.size]])), cut

    #: Documents whose bits are compared per step: the step's buffers stay in the CPU's cache.
    CHUNK = 32768

    def hamming(self, qbits: np.ndarray, where: np.ndarray | None) -> np.ndarray:
        """Hamming distances of the question's sign bits to the rows at ``where`` (None: every row)."""
        count = self.size if where is None else where.size
        if len(self._distance) < count:
            self._distance = np.empty(len(self.ids), dtype=np.uint16)
        distance = self._distance[:count]
        xor = np.empty(min(count, self.CHUNK), dtype=np.uint64)
        ones = np.empty(len(xor), dtype=np.uint8)
        for at in range(0, count, self.CHUNK):
            end = min(count, at + self.CHUNK)
            x, c, part = xor[: end - at], ones[: end - at], distance[at:end]
            for w in range(self.words):
                column = self.bits[w, at:end] if where is None else self.bits[w, where[at:end]]
                np.bitwise_xor(column, qbits[w], out=x)
                np.bitwise_count(x, out=c)
                if w:
                    np.add(part, c, out=part)
                else:
                    np.copyto(part, c)
        return distance


def _grow(a: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((cap, *a.shape[1:]), dtype=a.dtype)
    out[: len(a)] = a
    return out
