"""The recall index: text (SQLite FTS5, BM25 with Porter stemming), vectors and links, as derived data.

Like the claim index (:mod:`memkg.index`), everything here is computed from the
store's quads (:func:`memkg.recall.documents.derive`) and kept consistent by the
store's write paths: :meth:`RecallIndex.apply` runs after every committed write
with the nodes it touched, re-derives their documents and replaces what changed,
so a write is searchable when its call returns. :meth:`RecallIndex.check` compares
the index with a fresh derivation; :meth:`RecallIndex.rebuild` derives it all again.

Storage: one SQLite database (``recall.sqlite`` inside an on-disk store's
directory, ``:memory:`` for an in-memory store) holding the documents, their
FTS5 text index, their vectors (float16) and their links to vertices. The
vectors are also held in memory as one float32 matrix, loaded on the first
search, for brute-force cosine similarity with numpy (see benchmarks/README.md
for why brute force). Removing a document (an erasure) leaves no trace of its
text: ``secure_delete`` zeroes freed pages, the FTS index is merged so no old
segment keeps its terms, and the write-ahead log is truncated.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pyoxigraph import DefaultGraph, NamedNode, Quad, Store

from ..ontology import ONTOLOGY_GRAPH
from ..vocab import MEMX, RDF_TYPE
from .documents import LABEL_PREDICATES, Document, GraphKey, Labeller, affected, derive, graph_key
from .embedder import Embedder

__all__ = ["IndexFault", "RecallIndex", "RecallIndexReport", "INDEX_FILE"]

#: The index file inside an on-disk store's directory.
INDEX_FILE = "recall.sqlite"
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node TEXT NOT NULL, graph TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
    t0 REAL, t1 REAL, recorded REAL, episode TEXT, source TEXT, vec BLOB,
    UNIQUE(node, graph));
CREATE INDEX IF NOT EXISTS docs_episode ON docs(episode, t0);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source);
CREATE TABLE IF NOT EXISTS links(doc INTEGER NOT NULL, entity TEXT NOT NULL, role TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_entity ON links(entity);
CREATE INDEX IF NOT EXISTS links_doc ON links(doc);
CREATE TABLE IF NOT EXISTS names(doc INTEGER NOT NULL, entity TEXT NOT NULL, graph TEXT NOT NULL,
                                 name TEXT NOT NULL, whole INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS names_name ON names(name);
CREATE INDEX IF NOT EXISTS names_doc ON names(doc);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text, content='docs', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
"""


def normalise_name(name: str) -> str:
    """A name as looked up: lower case, words separated by single spaces."""
    return " ".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


@dataclass(frozen=True)
class IndexFault:
    node: str
    graph: GraphKey
    problem: str  #: missing, stale, orphaned, no-vector


@dataclass(frozen=True)
class RecallIndexReport:
    """What :meth:`RecallIndex.check` found; empty means the index is exactly what the data derives."""

    documents: int
    faults: list[IndexFault] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not self.faults


class _Vectors:
    """The documents' vectors and filter columns in memory, by document id (sorted ascending)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, dim), dtype=np.float32)
        self.graphs = np.zeros(0, dtype=np.int32)
        self.start = np.zeros(0, dtype=np.float64)
        self.end = np.zeros(0, dtype=np.float64)
        self.recorded = np.zeros(0, dtype=np.float64)
        self.alive = np.zeros(0, dtype=bool)
        self.size = 0
        self.graph_codes: dict[GraphKey, int] = {}

    def code(self, graph: GraphKey) -> int:
        return self.graph_codes.setdefault(graph, len(self.graph_codes))

    def append(self, ids: Sequence[int], vectors: np.ndarray, graphs: Sequence[GraphKey],
               start: Sequence[float | None], end: Sequence[float | None], recorded: Sequence[float | None]) -> None:
        n = len(ids)
        if n == 0:
            return
        need = self.size + n
        if need > len(self.ids):
            cap = max(need, 2 * len(self.ids), 1024)
            self.ids = _grow(self.ids, cap)
            self.matrix = _grow(self.matrix, cap)
            self.graphs = _grow(self.graphs, cap)
            self.start = _grow(self.start, cap)
            self.end = _grow(self.end, cap)
            self.recorded = _grow(self.recorded, cap)
            self.alive = _grow(self.alive, cap)
        s = slice(self.size, need)
        self.ids[s] = ids
        self.matrix[s] = vectors
        self.graphs[s] = [self.code(g) for g in graphs]
        self.start[s] = [np.nan if t is None else t for t in start]
        self.end[s] = [np.nan if t is None else t for t in end]
        self.recorded[s] = [np.nan if t is None else t for t in recorded]
        self.alive[s] = True
        self.size = need

    def positions(self, ids: Iterable[int]) -> np.ndarray:
        """Positions of the live documents among ``ids`` (unknown ids dropped); ids are sorted."""
        wanted = np.fromiter(ids, dtype=np.int64)
        if wanted.size == 0 or self.size == 0:
            return np.zeros(0, dtype=np.int64)
        held = self.ids[: self.size]
        pos = np.minimum(np.searchsorted(held, wanted), self.size - 1)
        pos = pos[held[pos] == wanted]
        return pos[self.alive[pos]]

    def remove(self, ids: Iterable[int]) -> None:
        pos = self.positions(ids)
        self.alive[pos] = False
        self.matrix[pos] = 0.0


def _grow(a: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((cap, *a.shape[1:]), dtype=a.dtype)
    out[: len(a)] = a
    return out


class RecallIndex:
    """The derived text, vector and link index of one store (see the module doc)."""

    def __init__(self, store: Store, path: Path | None, embedder: Embedder, *, read_only: bool = False) -> None:
        self.store = store
        self.path = path
        self.embedder = embedder
        self.read_only = read_only
        self._lock = threading.RLock()
        self._vectors: _Vectors | None = None
        self.labels = Labeller(store)
        if path is None:
            uri, flags = ":memory:", {}
        elif read_only:
            uri, flags = f"file:{path}?mode=ro", {"uri": True}
        else:
            uri, flags = str(path), {}
        self.db = sqlite3.connect(uri, check_same_thread=False, isolation_level=None, **flags)
        if not read_only:
            self.db.execute("PRAGMA secure_delete=ON")
            self.db.execute("PRAGMA journal_mode=WAL" if path is not None else "PRAGMA journal_mode=MEMORY")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        self.db.execute("PRAGMA cache_size=-65536")

    # -- lifecycle ---------------------------------------------------------------------

    @staticmethod
    def exists(path: Path | None) -> bool:
        return path is not None and path.exists()

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @property
    def built(self) -> bool:
        """Whether the index holds the whole store (a full build finished), with this embedder."""
        return self.meta("built") == "1" and self.meta("embedder") == self.embedder.name

    def close(self) -> None:
        with self._lock:
            self.db.close()
            self._vectors = None

    # -- writing -----------------------------------------------------------------------

    def rebuild(self) -> int:
        """Derive every document again from the store, in one transaction; returns how many."""
        with self._lock:
            self.labels.forget()
            nodes: dict[tuple[NamedNode, NamedNode | DefaultGraph], None] = {}
            for q in self.store.quads_for_pattern(None, None, None, None):
                if isinstance(q.subject, NamedNode) and q.graph_name != ONTOLOGY_GRAPH \
                        and not q.predicate.value.startswith(MEMX):
                    nodes[(q.subject, q.graph_name)] = None
            docs = [d for n, g in nodes for d in [derive(self.store, n, g, self.labels)] if d is not None]
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for table in ("docs", "links", "names"):
                    self.db.execute(f"DELETE FROM {table}")
                self.db.execute("INSERT INTO fts(fts) VALUES('delete-all')")
                self.db.execute("DELETE FROM sqlite_sequence WHERE name = 'docs'")
                self._insert(docs)
                for key, value in (("schema", SCHEMA_VERSION), ("embedder", self.embedder.name), ("built", "1")):
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self._scrub()
            self._vectors = None
            return len(docs)

    def apply(self, *, added: Iterable[Quad] = (), removed: Iterable[Quad] = ()) -> None:
        """Bring the index up to a write just committed to the store.

        Every node the write touched has its document derived again; documents
        that changed are replaced, those that are gone removed (and scrubbed).
        """
        touched: dict[tuple[NamedNode, NamedNode | DefaultGraph], None] = {}
        renamed: dict[tuple[NamedNode, NamedNode | DefaultGraph], None] = {}
        removing = False
        for quads, is_removal in ((added, False), (removed, True)):
            for q in quads:
                if not isinstance(q.subject, NamedNode) or q.graph_name == ONTOLOGY_GRAPH \
                        or q.predicate.value.startswith(MEMX):
                    continue
                touched[(q.subject, q.graph_name)] = None
                removing = removing or is_removal
                if q.predicate in LABEL_PREDICATES or q.predicate == RDF_TYPE:
                    renamed[(q.subject, q.graph_name)] = None
        if not touched:
            return
        with self._lock:
            if renamed:
                self.labels.forget()
            nodes = affected(self.store, touched, renamed)
            docs: list[Document] = []
            gone: list[tuple[str, GraphKey]] = []
            for n, g in nodes:
                d = derive(self.store, n, g, self.labels)
                if d is None:
                    gone.append((n.value, graph_key(g)))
                else:
                    docs.append(d)
            self.db.execute("BEGIN IMMEDIATE")
            try:
                dropped = self._delete([*gone, *((d.node, d.graph) for d in docs)])
                self._insert(docs)
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                self._vectors = None  # rebuilt from the database on the next search
                raise
            if removing and dropped:
                self._scrub()

    def _delete(self, keys: Sequence[tuple[str, GraphKey]]) -> list[int]:
        rows: list[tuple[int, str]] = []
        for node, graph in keys:
            rows += self.db.execute("SELECT id, text FROM docs WHERE node = ? AND graph = ?", (node, graph)).fetchall()
        if not rows:
            return []
        ids = [r[0] for r in rows]
        self.db.executemany("INSERT INTO fts(fts, rowid, text) VALUES('delete', ?, ?)", rows)
        for table, column in (("docs", "id"), ("links", "doc"), ("names", "doc")):
            self.db.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(i,) for i in ids])
        if self._vectors is not None:
            self._vectors.remove(ids)
        return ids

    def _insert(self, docs: Sequence[Document]) -> None:
        if not docs:
            return
        vectors = np.zeros((0, self.embedder.dim), dtype=np.float32)
        for at in range(0, len(docs), 4096):
            chunk = self.embedder.embed([d.text for d in docs[at: at + 4096]])
            vectors = np.concatenate([vectors, chunk]) if len(vectors) else chunk
        packed = vectors.astype(np.float16)
        ids: list[int] = []
        for d, v in zip(docs, packed):
            cur = self.db.execute(
                "INSERT INTO docs(node, graph, kind, text, t0, t1, recorded, episode, source, vec) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (d.node, d.graph, d.kind, d.text, d.start, d.end, d.recorded, d.episode, d.source, v.tobytes()),
            )
            ids.append(int(cur.lastrowid or 0))
        self.db.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", [(i, d.text) for i, d in zip(ids, docs)])
        self.db.executemany("INSERT INTO links VALUES (?, ?, ?)",
                            [(i, e, role) for i, d in zip(ids, docs) for e, role in d.links])
        names = []
        for i, d in zip(ids, docs):
            for entity, name in d.names:
                whole = normalise_name(name)
                if whole:
                    names.append((i, entity, d.graph, whole, 1))
                    names += [(i, entity, d.graph, part, 0) for part in whole.split() if part != whole and len(part) > 2]
        self.db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?)", names)
        if self._vectors is not None:
            self._vectors.append(ids, vectors, [d.graph for d in docs], [d.start for d in docs],
                                 [d.end for d in docs], [d.recorded for d in docs])

    def _scrub(self) -> None:
        """Leave no trace of removed text: merge the FTS segments (old ones hold the removed
        terms), and truncate the write-ahead log (secure_delete has zeroed freed pages)."""
        self.db.execute("INSERT INTO fts(fts) VALUES('optimize')")
        if self.path is not None:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reading -----------------------------------------------------------------------

    def vectors(self) -> _Vectors:
        """The in-memory vectors, loaded from the database on first use."""
        with self._lock:
            if self._vectors is None:
                v = _Vectors(self.embedder.dim)
                rows = self.db.execute("SELECT id, graph, t0, t1, recorded, vec FROM docs ORDER BY id").fetchall()
                if rows:
                    blob = b"".join(r[5] for r in rows)
                    matrix = np.frombuffer(blob, dtype=np.float16).reshape(len(rows), -1).astype(np.float32)
                    v.append([r[0] for r in rows], matrix, [r[1] for r in rows], [r[2] for r in rows],
                             [r[3] for r in rows], [r[4] for r in rows])
                self._vectors = v
            return self._vectors

    def lexical(self, match: str, limit: int) -> list[tuple[int, float]]:
        """BM25 over the documents' text: (document id, score, higher is better), best first."""
        if not match:
            return []
        with self._lock:
            try:
                rows = self.db.execute(
                    "SELECT rowid, -bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?", (match, limit)
                ).fetchall()
            except sqlite3.OperationalError:
                return []
        return [(int(r[0]), float(r[1])) for r in rows]

    def documents(self, ids: Sequence[int]) -> dict[int, dict[str, object]]:
        out: dict[int, dict[str, object]] = {}
        with self._lock:
            for at in range(0, len(ids), 500):
                chunk = list(ids[at: at + 500])
                marks = ",".join("?" * len(chunk))
                for row in self.db.execute(
                    f"SELECT id, node, graph, kind, text, t0, t1, recorded, episode, source FROM docs WHERE id IN ({marks})",
                    chunk,
                ):
                    out[row[0]] = dict(zip(("id", "node", "graph", "kind", "text", "start", "end", "recorded",
                                            "episode", "source"), row))
        return out

    def documents_of(self, nodes: Sequence[str]) -> list[int]:
        """The ids of the documents about ``nodes`` (in any graph)."""
        marks = ",".join("?" * len(nodes))
        with self._lock:
            return [r[0] for r in self.db.execute(f"SELECT id FROM docs WHERE node IN ({marks})", list(nodes))]

    def find(self, node: str, graph: GraphKey) -> int | None:
        with self._lock:
            row = self.db.execute("SELECT id FROM docs WHERE node = ? AND graph = ?", (node, graph)).fetchone()
        return row[0] if row else None

    def entities_named(self, names: Sequence[str], graphs: Sequence[GraphKey] | None) -> list[tuple[str, str, GraphKey, bool]]:
        """Vertices going by one of ``names`` (normalised): (name, vertex, graph, whole name?)."""
        if not names:
            return []
        marks = ",".join("?" * len(names))
        with self._lock:
            rows = self.db.execute(f"SELECT DISTINCT name, entity, graph, whole FROM names WHERE name IN ({marks})",
                                   list(names)).fetchall()
        return [(r[0], r[1], r[2], bool(r[3])) for r in rows if graphs is None or r[2] in graphs]

    def linked(self, entities: Sequence[str], limit: int = 20000) -> list[tuple[int, str, str]]:
        """Documents linked to any of ``entities``: (document id, vertex, role)."""
        if not entities:
            return []
        marks = ",".join("?" * len(entities))
        with self._lock:
            rows = self.db.execute(f"SELECT doc, entity, role FROM links WHERE entity IN ({marks}) LIMIT ?",
                                   [*entities, limit]).fetchall()
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def neighbours(self, doc: dict[str, object], graph: GraphKey) -> list[tuple[int, str]]:
        """Documents next to ``doc`` in the memory's graph: the turns before and after it in its
        episode, the claims it asserted, the message that asserted it. (document id, link)."""
        out: list[tuple[int, str]] = []
        with self._lock:
            episode, t = doc.get("episode"), doc.get("start")
            if episode and t is not None:
                for op, order, link in (("<", "DESC", "turn before"), (">", "ASC", "turn after")):
                    out += [(r[0], link) for r in self.db.execute(
                        f"SELECT id FROM docs WHERE episode = ? AND graph = ? AND t0 {op} ? ORDER BY t0 {order} LIMIT 1",
                        (episode, graph, t))]
            out += [(r[0], "claim asserted by") for r in self.db.execute(
                "SELECT id FROM docs WHERE source = ? AND graph = ? LIMIT 10", (doc["node"], graph))]
            if doc.get("source"):
                out += [(r[0], "message asserting") for r in self.db.execute(
                    "SELECT id FROM docs WHERE node = ? AND graph = ?", (doc["source"], graph))]
        return out

    def stats(self) -> dict[str, int]:
        with self._lock:
            docs = self.db.execute("SELECT count(*) FROM docs").fetchone()[0]
        size = 0
        if self.path is not None:
            for suffix in ("", "-wal", "-shm"):
                p = Path(str(self.path) + suffix)
                size += p.stat().st_size if p.exists() else 0
        return {"documents": int(docs), "bytes": size}

    def check(self, *, limit: int = 1000) -> RecallIndexReport:
        """Compare the index with the documents the store derives now."""
        faults: list[IndexFault] = []
        with self._lock:
            labels = Labeller(self.store)
            expected: dict[tuple[str, GraphKey], Document] = {}
            for q in self.store.quads_for_pattern(None, None, None, None):
                if isinstance(q.subject, NamedNode) and q.graph_name != ONTOLOGY_GRAPH \
                        and not q.predicate.value.startswith(MEMX):
                    key = (q.subject.value, graph_key(q.graph_name))
                    if key not in expected:
                        d = derive(self.store, q.subject, q.graph_name, labels)
                        expected[key] = d  # type: ignore[assignment]
            held = {(r[1], r[2]): r for r in self.db.execute(
                "SELECT id, node, graph, kind, text, t0, t1, recorded, episode, source, vec IS NOT NULL FROM docs")}
            for key, d in expected.items():
                if d is None:
                    continue
                row = held.get(key)
                if row is None:
                    faults.append(IndexFault(key[0], key[1], "missing"))
                elif (row[3], row[4], row[5], row[6], row[7], row[8], row[9]) != (
                        d.kind, d.text, d.start, d.end, d.recorded, d.episode, d.source):
                    faults.append(IndexFault(key[0], key[1], "stale"))
                elif not row[10]:
                    faults.append(IndexFault(key[0], key[1], "no-vector"))
                if len(faults) >= limit:
                    break
            for key in held:
                if expected.get(key) is None and len(faults) < limit:
                    faults.append(IndexFault(key[0], key[1], "orphaned"))
            (fts_ok,) = self.db.execute("SELECT count(*) FROM fts").fetchone()
            if fts_ok != len(held):
                faults.append(IndexFault("", "", f"text index holds {fts_ok} rows for {len(held)} documents"))
            try:
                self.db.execute("INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)")
            except sqlite3.DatabaseError as err:
                faults.append(IndexFault("", "", f"text index integrity: {err}"))
            if self.meta("embedder") not in (None, self.embedder.name):
                faults.append(IndexFault("", "", f"vectors made by {self.meta('embedder')}, not {self.embedder.name}"))
        return RecallIndexReport(documents=len(held), faults=faults)

