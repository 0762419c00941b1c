"""The recall index's full-text part: SQLite FTS5 (Porter stemming), searched with BM25 whose word
weights come from the documents in scope.

FTS5's own ``bm25()`` weighs a word by how rare it is in the whole table, that is across every
tenant's documents. One tenant's ranking would then move with what other tenants wrote (a word
rare in this memory but common elsewhere counts for little), and a word's weight would say
something about other tenants' data. So each word is searched on its own, inside the scope, and
its FTS5 score is divided by FTS5's inverse document frequency and multiplied by the one of the
scope (Lucene's ``ln(1 + (N - n + 0.5) / (n + 0.5))``, N documents in scope, n holding the word).
The term-frequency part (saturation and length normalisation) stays FTS5's. Over every graph the
table is the scope, and one FTS5 query with its own weights ranks all the words at once.
"""

from __future__ import annotations

import functools
import hashlib
import math
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Sequence

from .documents import GraphKey

__all__ = ["FTS_SCHEMA", "FullText", "scope_token"]

TOKENIZER = "porter unicode61 remove_diacritics 2"
FTS_SCHEMA = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text, scope, content='docs', content_rowid='id', tokenize='{TOKENIZER}');
CREATE VIRTUAL TABLE IF NOT EXISTS fts_terms USING fts5vocab(fts, row);
"""
FTS_TABLES = ("fts_terms", "fts")


@functools.lru_cache(maxsize=4096)
def scope_token(graph: GraphKey) -> str:
    """The word standing for a graph in the text index, so a search keeps to its tenants inside
    FTS5 (``scope : (…) AND (…)``) instead of ranking every tenant's documents first."""
    return "g" + hashlib.blake2b(graph.encode(), digest_size=8).hexdigest()


def fts5_idf(rows: int, holding: int) -> float:
    """The inverse document frequency FTS5's ``bm25()`` gives a phrase (floored as it floors it)."""
    idf = math.log((rows - holding + 0.5) / (holding + 0.5)) if rows > 0 else 0.0
    return idf if idf > 0 else 1e-6


def scope_idf(documents: int, holding: int) -> float:
    """A word's weight inside the scope: rarer words weigh more, and none weighs nothing."""
    return math.log(1.0 + (documents - holding + 0.5) / (holding + 0.5))


class FullText:
    """The FTS5 table of an index's documents (rowid = document id), on the index's connection."""

    def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
        self.db = db
        self.lock = lock
        self._stemmer_ready = False

    def add(self, rows: Sequence[tuple[int, str, str]]) -> None:
        """Index documents: (id, text, scope token)."""
        self.db.executemany("INSERT INTO fts(rowid, text, scope) VALUES (?, ?, ?)", rows)

    def remove(self, rows: Sequence[tuple[int, str, str]]) -> None:
        """Unindex documents: (id, text, scope token), as they were indexed."""
        self.db.executemany("INSERT INTO fts(fts, rowid, text, scope) VALUES('delete', ?, ?, ?)", rows)

    def merge(self) -> None:
        """Merge the index's segments (old ones still hold removed words)."""
        self.db.execute("INSERT INTO fts(fts) VALUES('optimize')")

    def faults(self, documents: int) -> list[str]:
        """What is wrong with the text index of ``documents`` documents (empty: nothing)."""
        out = []
        (rows,) = self.db.execute("SELECT count(*) FROM fts").fetchone()
        if rows != documents:
            out.append(f"text index holds {rows} rows for {documents} documents")
        try:
            self.db.execute("INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)")
        except sqlite3.DatabaseError as err:
            out.append(f"text index integrity: {err}")
        return out

    def search(self, terms: Sequence[str], limit: int, graphs: Sequence[GraphKey] | None, *, budget: int,
               documents: int | None, total: int) -> list[tuple[int, float]]:
        """BM25 over the documents' text (in ``graphs``; None: all), each word weighed by its
        rarity in scope: (document id, score, higher is better), best first, for documents
        holding any of ``terms`` (words, each matched as FTS5 matches a quoted phrase: stemmed).

        FTS5 scores every match it visits (each score reads the document's length), so a word
        held by a tenth of a large memory costs more than everything else recall does. ``budget``
        bounds the matches scored: the words' matches in scope are counted (each count stops
        past the budget), and the most frequent words are left out while rarer ones fill the
        budget. A frequent word weighs little in BM25 beside the rare words kept. When even the
        rarest word alone has more matches, only its ``budget`` latest indexed are scored (the
        highest document ids: the latest writes; after a rebuild, the store's order).
        ``documents``: how many documents the scope holds, when the caller knows (at most
        ``budget``: no match can be left out and none is counted); ``total``: how many the
        table holds (FTS5's own weights are computed over them).
        """
        quoted = list(dict.fromkeys(f'"{t}"' for t in terms if t))
        if not quoted or (graphs is not None and not graphs):
            return []
        scope = "" if graphs is None else f"scope : ({' OR '.join(scope_token(g) for g in graphs)}) AND "
        in_scope = total if documents is None else documents
        with self.lock:
            try:
                counted = documents is None or documents > budget
                counts = [self._count(f"{scope}text : {w}", budget) for w in quoted] if counted else [0] * len(quoted)
                kept: list[int] = []
                matched = 0
                for at in sorted(range(len(quoted)), key=counts.__getitem__):
                    if kept and matched + counts[at] > budget:
                        break
                    kept.append(at)
                    matched += counts[at]
                if graphs is None:  # the scope is the whole table: FTS5's own weights are the scope's
                    return self._whole(quoted, kept, matched > budget, limit, budget)
                held = [n if n is not None else self._count(f"text : {quoted[at]}", total)
                        for at, n in zip(kept, self._holding([terms_of(quoted[at]) for at in kept]))]
                scores: dict[int, float] = defaultdict(float)
                for at, holding in zip(kept, held):
                    rows = self.db.execute(
                        "SELECT rowid, -bm25(fts, 1.0, 0.0) FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ?",
                        (f"{scope}text : {quoted[at]}", budget)).fetchall()
                    here = counts[at] if counted and counts[at] <= budget else len(rows)
                    weight = scope_idf(in_scope, here) / fts5_idf(total, holding)
                    for rowid, score in rows:
                        scores[int(rowid)] += float(score) * weight
            except sqlite3.OperationalError:
                return []
        return sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:limit]

    def _whole(self, quoted: Sequence[str], kept: Sequence[int], over: bool, limit: int,
               budget: int) -> list[tuple[int, float]]:
        """One BM25 query over the whole table for the kept words (``over``: a lone word past the
        budget, whose latest ``budget`` matches are scored)."""
        match = f"text : ({' OR '.join(quoted[at] for at in sorted(kept))})"
        latest = ""
        if over:
            row = self.db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                                  (match, budget - 1)).fetchone()
            latest = f" AND rowid >= {int(row[0])}" if row else ""
        rows = self.db.execute(f"SELECT rowid, -bm25(fts, 1.0, 0.0) FROM fts WHERE fts MATCH ?{latest} "
                               "ORDER BY bm25(fts, 1.0, 0.0) LIMIT ?", (match, limit)).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def _count(self, expression: str, budget: int) -> int:
        row = self.db.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                              (expression, budget + 1)).fetchone()
        return int(row[0])

    def _holding(self, words: Sequence[str]) -> list[int | None]:
        """How many documents of the whole table hold each word (as FTS5 stems it); None for a
        text the tokenizer splits into several words (a phrase: its rows are counted instead)."""
        stems = self._stems(words)
        found = {}
        wanted = sorted({s for s in stems if s is not None})
        if wanted:
            marks = ",".join("?" * len(wanted))
            found = dict(self.db.execute(f"SELECT term, doc FROM fts_terms WHERE term IN ({marks})", wanted).fetchall())
        return [None if s is None else int(found.get(s, 0)) for s in stems]

    def _stems(self, words: Sequence[str]) -> list[str | None]:
        """Each text as the index's tokenizer reads it: its one token, or None if it has several
        (or none). A scratch FTS5 table in the connection's temporary schema does the reading."""
        if not self._stemmer_ready:
            self.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.stems USING fts5(word, tokenize='{TOKENIZER}')")
            self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem_tokens USING fts5vocab(temp, stems, instance)")
            self._stemmer_ready = True
        self.db.executemany("INSERT INTO temp.stems(rowid, word) VALUES (?, ?)", list(enumerate(words)))
        tokens: dict[int, list[str]] = defaultdict(list)
        for doc, term in self.db.execute("SELECT doc, term FROM temp.stem_tokens"):
            tokens[int(doc)].append(str(term))
        self.db.execute("DELETE FROM temp.stems")
        return [tokens[at][0] if len(tokens.get(at, ())) == 1 else None for at in range(len(words))]


def terms_of(quoted: str) -> str:
    """A quoted FTS5 phrase's text."""
    return quoted[1:-1]
