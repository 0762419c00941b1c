"""The nearest words to a word by edit distance, over many candidates at once.

An error about a name that does not exist says which names do, nearest first:
``ex:cMigraton`` is one edit from ``ex:cMigration``. Edit distance is Levenshtein's
(insert, delete or replace one character). Candidates come by the hundred thousand (every
IRI of a tenant), so :func:`nearest` computes every distance in one pass of Myers'
bit-vector algorithm (G. Myers, *A fast bit-vector algorithm for approximate string
matching based on dynamic programming*, J. ACM 46(3), 1999; global distance as H. Hyyrö
gives it), vectorized over the candidates with numpy: a column of work per character
position, not per candidate. Words longer than :data:`MAX_WORD` characters are compared
on their last :data:`MAX_WORD` characters (an IRI differs from its neighbours at its end).

>>> nearest("cMigraton", ["cMigration", "cCutover", "cSelection"])
['cMigration']
>>> nearest("https://example.org/lia/cMigration", ["https://example.org/acme/cMigration", "urn:x:y"])
['https://example.org/acme/cMigration']
>>> nearest("nope", ["c0", "c1"])
[]
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np

#: Characters of a word compared (four 64-bit words of bits).
MAX_WORD = 256
_WORD_BITS = 64


def within(word: str) -> int:
    """The largest distance still worth suggesting for ``word``: half its last segment (the part
    after the last ``/``, ``#`` or ``:``), at least 2, so that a typo in a name or a namespace
    that differs from the one meant is offered, and ``…/nope`` is not offered ``…/c0``."""
    tail = max(word.rfind("/"), word.rfind("#"), word.rfind(":"))
    return max(2, len(word[tail + 1:]) // 2)


def nearest(word: str, candidates: Iterable[str], *, k: int = 3, most: int | None = None) -> list[str]:
    """Up to ``k`` of ``candidates`` nearest ``word`` by edit distance, nearest first (ties in
    the candidates' order), each at most ``most`` edits away (default: :func:`within`);
    ``word`` itself is never among them."""
    limit = within(word) if most is None else most
    listed = list(candidates)
    lengths = np.fromiter(map(len, listed), dtype=np.int64, count=len(listed))
    close = np.flatnonzero(np.abs(lengths - len(word)) <= limit)  # a distance is at least the lengths' gap
    pool = [listed[i] for i in close]
    if not pool or k <= 0:
        return []
    found = distances(word, pool)
    found[[c == word for c in pool]] = limit + 1
    order = np.argsort(found, kind="stable")[:k]
    return [pool[i] for i in order if found[i] <= limit]


def distances(word: str, candidates: list[str]) -> np.ndarray:
    """The edit distance from ``word`` to each candidate (both cut to their last :data:`MAX_WORD`
    characters), as an array in the candidates' order."""
    # A prefix every text shares with the pattern changes no distance (a namespace, mostly): cut it.
    shared = len(os.path.commonprefix([word, *candidates]))
    pattern = word[shared:][-MAX_WORD:]
    m = len(pattern)
    full_lengths = np.fromiter(map(len, candidates), dtype=np.int64, count=len(candidates))
    ends = np.cumsum(full_lengths)
    lengths = np.minimum(full_lengths - shared, MAX_WORD)
    if m == 0:
        return lengths
    joined = np.frombuffer("".join(candidates).encode("utf-32-le"), dtype=np.uint32)
    words = (m + _WORD_BITS - 1) // _WORD_BITS
    top_bits = m - (words - 1) * _WORD_BITS
    top_mask = np.uint64((1 << top_bits) - 1)
    high = np.uint64(1 << (top_bits - 1))
    one, full, shift_out = np.uint64(1), np.uint64(2**64 - 1), np.uint64(_WORD_BITS - 1)

    # Peq: for each character of the pattern, the bits of the positions holding it; every
    # other character (id 0) matches nowhere.
    alphabet = sorted(set(pattern))
    peq = np.zeros((len(alphabet) + 1, words), dtype=np.uint64)
    for position, ch in enumerate(pattern):
        peq[alphabet.index(ch) + 1, position // _WORD_BITS] |= np.uint64(1 << (position % _WORD_BITS))
    codes_of_alphabet = np.array([ord(c) for c in alphabet], dtype=np.uint32)

    # The texts longest first, so the texts still running at column j are a prefix of the rows.
    order = np.argsort(-lengths, kind="stable")
    running = lengths[order]
    starts = (ends - lengths)[order]
    n = len(candidates)
    pv = [np.full(n, full, dtype=np.uint64) for _ in range(words)]
    pv[-1] &= top_mask
    mv = [np.zeros(n, dtype=np.uint64) for _ in range(words)]
    score = np.full(n, m, dtype=np.int64)
    for column in range(int(running[0]) if n else 0):
        rows = int(np.searchsorted(-running, -column, side="left"))  # texts longer than column
        live = slice(0, rows)
        chars = joined[starts[:rows] + column]
        slot = np.searchsorted(codes_of_alphabet, chars)
        known = (slot < len(alphabet)) & (codes_of_alphabet[np.minimum(slot, len(alphabet) - 1)] == chars)
        ids = np.where(known, slot + 1, 0)
        eq = [peq[ids, w] for w in range(words)]
        p, mm = [x[live] for x in pv], [x[live] for x in mv]
        xv = [eq[w] | mm[w] for w in range(words)]
        # (Eq & Pv) + Pv over the words, the carry running upward
        total, carry = [], np.zeros(rows, dtype=np.uint64)
        for w in range(words):
            a = eq[w] & p[w]
            s = a + p[w]
            c1 = (s < a).astype(np.uint64)
            s2 = s + carry
            c2 = (s2 < s).astype(np.uint64)
            total.append(s2)
            carry = c1 | c2
        xh = [((total[w] ^ p[w]) | eq[w]) for w in range(words)]
        ph = [mm[w] | ~(xh[w] | p[w]) for w in range(words)]
        mh = [p[w] & xh[w] for w in range(words)]
        ph[-1] &= top_mask
        mh[-1] &= top_mask
        score[live] += ((ph[-1] & high) != 0).astype(np.int64) - ((mh[-1] & high) != 0).astype(np.int64)
        # shift left by one over the words; a 1 enters Ph (row 0 grows by one per column)
        ph_in, mh_in = np.full(rows, one, dtype=np.uint64), np.zeros(rows, dtype=np.uint64)
        for w in range(words):
            ph_out, mh_out = ph[w] >> shift_out, mh[w] >> shift_out
            ph[w], mh[w] = (ph[w] << one) | ph_in, (mh[w] << one) | mh_in
            ph_in, mh_in = ph_out, mh_out
        for w in range(words):
            new_pv = mh[w] | ~(xv[w] | ph[w])
            new_mv = ph[w] & xv[w]
            if w == words - 1:
                new_pv &= top_mask
                new_mv &= top_mask
            pv[w][live], mv[w][live] = new_pv, new_mv
    out = np.empty(n, dtype=np.int64)
    out[order] = score
    return out
