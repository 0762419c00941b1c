"""The recall index: text (SQLite FTS5, BM25 with Porter stemming), vectors and links, as derived data.

Like the claim index (:mod:`memkg.store.claim_index`), everything here is computed from the
store's quads (:func:`memkg.recall.documents.derive`) and kept consistent by the
store's write paths: :meth:`RecallIndex.apply` runs after every committed write
with the nodes it touched, re-derives their documents and replaces what changed,
so a write is searchable when its call returns. :meth:`RecallIndex.check` compares
the index with a fresh derivation; :meth:`RecallIndex.rebuild` derives it all again.

The store and this index commit separately. So that a crash between the two
commits cannot leave the index silently behind, :meth:`RecallIndex.begin` records
the nodes a write touches (a ``pending`` table, committed before the store
commits) and :meth:`RecallIndex.apply` clears them in the transaction that
brings the index up to the write. Opening an index that still holds pending
rows re-derives those nodes from the store (or rebuilds, after an interrupted
bulk load), and says so in the log; a read-only index reports the gap in
:meth:`RecallIndex.check`.

Storage: one SQLite database (``recall.sqlite`` inside an on-disk store's
directory, ``:memory:`` for an in-memory store) holding the documents, their
FTS5 text index (:mod:`memkg.recall.fulltext`), their vectors (float16) and their
links to vertices. The vectors and links are also held in memory (:mod:`memkg.recall.vectors`),
mapped on the first search from a file beside the database (:mod:`memkg.recall.vector_file`,
a copy the database's state is checked against), or read from the database when there is none. Removing a document (an erasure) leaves no trace of its
text: ``secure_delete`` zeroes freed pages, the FTS index is merged so no old
segment keeps its terms, and the write-ahead log is truncated.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import re
import sqlite3
import threading
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pyoxigraph import NamedNode, Quad, Store

from ..core.terms import GraphName
from ..core.vocab import MEMX, ONTOLOGY_GRAPH, RDF_TYPE, mem
from .documents import (
    LABEL_PREDICATES,
    Document,
    GraphKey,
    Labeller,
    affected,
    derive,
    graph_key,
    graph_term,
)
from . import vector_file
from .embedder import Embedder
from .fulltext import FTS_SCHEMA, FTS_TABLES, FullText, scope_token
from .vector_file import VECTORS_FILE
from .vectors import Vectors

__all__ = ["IndexFault", "RecallIndex", "RecallIndexReport", "INDEX_FILE"]

#: The index file inside an on-disk store's directory.
INDEX_FILE = "recall.sqlite"
SCHEMA_VERSION = "4"
_TABLES = (*FTS_TABLES, "names", "links", "docs", "meta", "pending")
#: A pending row standing for "every node" (a bulk load: its quads stream past).
EVERYTHING = ("*", "*")
#: Above this many nodes, a write's pending record is EVERYTHING (repaired by a rebuild).
PENDING_LIMIT = 10_000
log = logging.getLogger("memkg.recall")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node TEXT NOT NULL, graph TEXT NOT NULL, scope TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
    t0 REAL, t1 REAL, recorded REAL, episode TEXT, turn INTEGER, said0 REAL, said1 REAL, source TEXT, vec BLOB,
    UNIQUE(node, graph));
CREATE INDEX IF NOT EXISTS docs_episode ON docs(episode, t0);
CREATE INDEX IF NOT EXISTS docs_episode_turn ON docs(episode, turn);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source);
CREATE TABLE IF NOT EXISTS links(doc INTEGER NOT NULL, entity TEXT NOT NULL, role TEXT NOT NULL);
DROP INDEX IF EXISTS links_entity;
CREATE INDEX IF NOT EXISTS links_entity_doc ON links(entity, doc);
CREATE INDEX IF NOT EXISTS links_doc ON links(doc);
CREATE TABLE IF NOT EXISTS names(doc INTEGER NOT NULL, entity TEXT NOT NULL, graph TEXT NOT NULL,
                                 name TEXT NOT NULL, whole INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS names_name ON names(name);
CREATE INDEX IF NOT EXISTS names_doc ON names(doc);
CREATE TABLE IF NOT EXISTS pending(node TEXT NOT NULL, graph TEXT NOT NULL);
""" + FTS_SCHEMA


CAPTION = mem.caption
_NOT_WORD = re.compile(r"[\W_]+")


def _names_of(v: Vectors) -> list[GraphKey]:
    """Each row's graph, by name."""
    names = {code: g for g, code in v.graph_codes.items()}
    return [names[int(c)] for c in v.graphs[: v.size]]


def normalise_name(name: str) -> str:
    """A name as looked up: lower case, words separated by single spaces.

    >>> normalise_name("  Lia-Chen's  ")
    'lia chen s'
    """
    return _NOT_WORD.sub(" ", name.lower()).strip()


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


class RecallIndex:
    """The derived text, vector and link index of one store (see the module doc); the
    store's follower (:class:`memkg.store.plugins.Follower`), kept by every write."""

    #: A streamed write (a bulk load) hands over every quad it adds.
    follows: Collection[NamedNode] | None = None

    def __init__(self, store: Store, path: Path | None, embedder: Embedder, *, read_only: bool = False) -> None:
        self.store = store
        self.path = path
        self.embedder = embedder
        self.read_only = read_only
        self._lock = threading.RLock()
        self._vectors: Vectors | None = None
        self._rebuilt: str | None = None  #: the rebuild mark the vectors were loaded under
        #: Whether the vectors' file may lag behind this process's (it wrote, or read no file of this state).
        self._changed = False
        self.labels = Labeller(store)
        #: The vectors' file beside the database (:mod:`memkg.recall.vector_file`); None in memory.
        self.vector_path = None if path is None else path.with_name(VECTORS_FILE)
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
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "meta" in tables and self.meta("schema") != SCHEMA_VERSION:
                self._drop()  # an index from another version of memkg: derived data, built again
            self.db.executescript(_SCHEMA)
        self.db.execute("PRAGMA cache_size=-65536")
        self.text = FullText(self.db, self._lock)
        #: What opening repaired: None, the number of nodes derived again, or "rebuilt".
        self.recovered: int | str | None = None
        if not read_only and self.built:
            self._recover()

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
        return (self.meta("built") == "1" and self.meta("embedder") == self.embedder.name
                and self.meta("schema") == SCHEMA_VERSION)

    def _drop(self) -> None:
        for table in _TABLES:
            self.db.execute(f"DROP TABLE IF EXISTS {table}")

    def close(self) -> None:
        """Close the database and let go of the store (so its directory can be opened again);
        save the vectors to their file first if it lags far behind the database."""
        with self._lock:
            try:
                if self._vector_file_lags():
                    self._save_vectors()
            except (OSError, sqlite3.Error) as err:  # derived data: the next search reads the database
                log.warning("recall index %s: vectors not saved: %s", self.vector_path, err)
            self.db.close()
            self._vectors = None
            del self.store, self.labels

    # -- writing -----------------------------------------------------------------------

    def rebuild(self, progress: Callable[[int], None] | None = None) -> int:
        """Derive every document again from the store, in one transaction; returns how many.
        ``progress`` is told how many documents are derived so far, every few thousand.

        One pass over the store: its quads come grouped by graph and subject, so each node's
        document is derived from its group as it passes (a node whose quads came in two runs
        is read back whole), and written in chunks, so memory stays bounded at any size. The
        vectors are kept in memory as they are written, and saved to their file after the commit.
        """
        with self._lock:
            self.labels.forget()
            self._vectors = Vectors(self.embedder.dim)
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self._drop()
                for statement in _SCHEMA.split(";"):  # not executescript: it would commit first
                    if statement.strip():
                        self.db.execute(statement)
                count = 0
                chunk: list[Document] = []
                split: dict[tuple[NamedNode, GraphName], None] = {}
                for doc in self._derive_all(split):
                    chunk.append(doc)
                    if len(chunk) >= 4096:
                        self._insert(chunk)
                        count += len(chunk)
                        chunk = []
                        if progress is not None:
                            progress(count)
                self._insert(chunk)
                count += len(chunk)
                if split:  # nodes whose quads came in two runs: derived again from the store, whole
                    count -= len(self._delete([(n.value, graph_key(g)) for n, g in split]))
                    whole = [d for n, g in split for d in [derive(self.store, n, g, self.labels)] if d is not None]
                    self._insert(whole)
                    count += len(whole)
                rebuilt = uuid.uuid4().hex  # ids start again: a reader that follows (follow()) reloads
                for key, value in (("schema", SCHEMA_VERSION), ("embedder", self.embedder.name), ("built", "1"),
                                   ("rebuilt", rebuilt)):
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                self._vectors = None
                raise
            self._rebuilt = rebuilt
            self._scrub()
            self._save_vectors()
            if progress is not None:
                progress(count)
            return count

    def _derive_all(self, split: dict[tuple[NamedNode, GraphName], None]) -> Iterator[Document]:
        """Every document the store derives, from one scan of its quads; a node met in a second
        run of quads goes into ``split`` instead (its first document was partial)."""
        done: set[tuple[NamedNode, GraphName]] = set()
        key: tuple[NamedNode, GraphName] | None = None
        group: list[Quad] = []
        for q in itertools.chain(self.store.quads_for_pattern(None, None, None, None), [None]):
            subject = None if q is None else q.subject
            if q is not None and (not isinstance(subject, NamedNode) or q.graph_name == ONTOLOGY_GRAPH):
                continue
            if q is None or key is None or subject != key[0] or q.graph_name != key[1]:
                if key is not None:
                    if key in done:
                        split[key] = None
                    else:
                        done.add(key)
                        doc = derive(self.store, key[0], key[1], self.labels, group)
                        if doc is not None:
                            yield doc
                if q is None:
                    return
                assert isinstance(subject, NamedNode)
                key, group = (subject, q.graph_name), []
            group.append(q)

    def begin(self, added: Iterable[Quad] | None, removed: Iterable[Quad] = ()) -> set[tuple[NamedNode, GraphName]]:
        """Record, before the store commits a write, the nodes it touches (``added`` None: a bulk
        write whose quads are not known yet), so that a crash before :meth:`apply` is repaired on
        the next open. Returns the write's new nodes (see :meth:`unseen`)."""
        added = None if added is None else list(added)
        created = set() if added is None else self.unseen(added)
        if self.read_only or self.path is None:  # nothing of an in-memory store survives a crash
            return created
        keys: set[tuple[str, GraphKey]] | None = None
        if added is not None:
            keys = {(q.subject.value, graph_key(q.graph_name)) for q in (*added, *removed)
                    if isinstance(q.subject, NamedNode) and q.graph_name != ONTOLOGY_GRAPH}
        rows = [EVERYTHING] if keys is None or len(keys) > PENDING_LIMIT else sorted(keys)
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.executemany("INSERT INTO pending VALUES (?, ?)", rows)
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return created

    def pending(self) -> list[tuple[str, GraphKey]]:
        """The nodes of writes the store may have committed and this index not (see :meth:`begin`)."""
        with self._lock:
            return [(r[0], r[1]) for r in self.db.execute("SELECT DISTINCT node, graph FROM pending")]

    def _recover(self) -> None:
        gap = self.pending()
        if not gap:
            return
        if EVERYTHING in gap:
            log.warning("recall index %s: a bulk write was interrupted before the index had it; rebuilding", self.path)
            self.rebuild()
            self.recovered = "rebuilt"
            return
        log.warning("recall index %s: %d node(s) of an interrupted write derived again", self.path, len(gap))
        keys = {(NamedNode(node), graph_term(graph)) for node, graph in gap}
        self._refresh(dict.fromkeys(keys), dict.fromkeys(keys), {}, removing=True, captioned=keys)
        self.recovered = len(gap)

    def unseen(self, quads: Iterable[Quad]) -> set[tuple[NamedNode, GraphName]]:
        """The typed subjects of ``quads`` the store holds nothing about yet, in their graphs.

        Asked before the store writes ``quads``: after the write, all such a node's quads
        are the written ones, so :meth:`apply` derives its document from them instead of
        reading it back (the bulk of the index's cost per message on disk).
        """
        seen: set[tuple[NamedNode, GraphName]] = set()
        out: set[tuple[NamedNode, GraphName]] = set()
        for q in quads:
            if q.predicate == RDF_TYPE and isinstance(q.subject, NamedNode) and q.graph_name != ONTOLOGY_GRAPH:
                key = (q.subject, q.graph_name)
                if key not in seen:
                    seen.add(key)
                    if next(iter(self.store.quads_for_pattern(q.subject, None, None, q.graph_name)), None) is None:
                        out.add(key)
        return out

    def apply(self, *, added: Iterable[Quad] = (), removed: Iterable[Quad] = (), begun: object = None) -> None:
        """Bring the index up to a write just committed to the store.

        Every node the write touched has its document derived again; documents
        that changed are replaced, those that are gone removed (and scrubbed).
        ``begun``: what :meth:`begin` returned, the nodes the store held nothing about
        before this write (see :meth:`unseen`), derived from ``added`` alone.
        """
        created: Collection[tuple[NamedNode, GraphName]] = begun if isinstance(begun, set) else ()
        touched: dict[tuple[NamedNode, GraphName], None] = {}
        renamed: dict[tuple[NamedNode, GraphName], None] = {}
        written: dict[tuple[NamedNode, GraphName], list[Quad]] = {}
        captioned: dict[tuple[NamedNode, GraphName], None] = {}
        removing = False
        for quads, is_removal in ((added, False), (removed, True)):
            for q in quads:
                if not isinstance(q.subject, NamedNode) or q.graph_name == ONTOLOGY_GRAPH \
                        or q.predicate.value.startswith(MEMX):
                    continue
                key = (q.subject, q.graph_name)
                touched[key] = None
                removing = removing or is_removal
                if q.predicate in LABEL_PREDICATES:
                    renamed[key] = None
                elif q.predicate == CAPTION and key not in created:  # a new attachment comes with its message
                    captioned[key] = None
                if not is_removal and key in created:
                    written.setdefault(key, []).append(q)
        self._refresh(touched, renamed, written, removing=removing, captioned=captioned)

    def _refresh(self, touched: dict[tuple[NamedNode, GraphName], None], renamed: dict[tuple[NamedNode, GraphName], None],
                 written: dict[tuple[NamedNode, GraphName], list[Quad]], *, removing: bool,
                 captioned: Collection[tuple[NamedNode, GraphName]] = ()) -> None:
        """Derive ``touched`` (and the claims naming ``renamed`` vertices) again, in one
        transaction that also clears the pending record of the write."""
        with self._lock:
            if renamed:
                self.labels.forget()
            nodes = affected(self.store, touched, renamed, captioned) if touched else set()
            docs: list[Document] = []
            gone: list[tuple[str, GraphKey]] = []
            for n, g in nodes:
                d = derive(self.store, n, g, self.labels, written.get((n, g)))
                if d is None:
                    gone.append((n.value, graph_key(g)))
                else:
                    docs.append(d)
            self.db.execute("BEGIN IMMEDIATE")
            try:
                dropped = self._delete([*gone, *((d.node, d.graph) for d in docs)])
                self._insert(docs)
                self.db.execute("DELETE FROM pending")
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                self._vectors = None  # rebuilt from the database on the next search
                raise
            self._changed = self._changed or bool(docs or dropped)
            if removing and dropped:
                self._scrub()
                if self.vector_path is not None:
                    vector_file.erase(self.vector_path, dropped)

    def _delete(self, keys: Sequence[tuple[str, GraphKey]]) -> list[int]:
        wanted = set(keys)
        rows: list[tuple[int, str, str]] = []
        nodes = list(dict.fromkeys(node for node, _ in keys))
        for at in range(0, len(nodes), 500):
            chunk = nodes[at: at + 500]
            rows += [(r[0], r[1], r[2]) for r in self.db.execute(
                f"SELECT id, text, scope, node, graph FROM docs WHERE node IN ({','.join('?' * len(chunk))})", chunk)
                if (r[3], r[4]) in wanted]
        if not rows:
            return []
        ids = [r[0] for r in rows]
        self.db.execute("INSERT INTO meta VALUES ('removed', ?) ON CONFLICT(key) DO UPDATE "
                        "SET value = CAST(value AS INTEGER) + excluded.value", (len(ids),))
        self.text.remove(rows)
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
        # Ids assigned here, after the highest ever given (AUTOINCREMENT's counter), so the rows
        # go in with one executemany and the in-memory vectors stay sorted by id.
        row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'docs'").fetchone()
        first = (row[0] if row else 0) + 1
        ids = list(range(first, first + len(docs)))
        scopes = [scope_token(d.graph) for d in docs]
        self.db.executemany(
            "INSERT INTO docs(id, node, graph, scope, kind, text, t0, t1, recorded, episode, turn, said0, said1, source, "
            "vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(i, d.node, d.graph, scope, d.kind, d.text, d.start, d.end, d.recorded, d.episode, d.turn,
              *(d.mentions or (None, None)), d.source, v.tobytes())
             for i, d, scope, v in zip(ids, docs, scopes, packed)])
        self.text.add([(i, d.text, scope) for i, d, scope in zip(ids, docs, scopes)])
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
        if self._vectors is not None:  # as stored (float16): the same rows a process reading them gets
            self._vectors.append(ids, packed, [d.graph for d in docs], [d.start for d in docs],
                                 [d.end for d in docs], [d.recorded for d in docs], [d.mentions for d in docs])
            self._vectors.link([(i, e) for i, d in zip(ids, docs) for e, _ in d.links])

    #: New or removed documents, per 32,768 the vectors' file holds, past which it is written again
    #: (at close): a search reads what the file lacks from the database.
    FILE_LAG = 4096

    def _vector_file_lags(self) -> bool:
        """Whether this process changed the documents and left the vectors' file missing, of
        another rebuild, or far behind the database (counted from the file's header and the
        index's count of removed documents, without reading either)."""
        if not self._changed or self.read_only or self.vector_path is None or not self.built:
            return False
        held = vector_file.state(self.vector_path)
        if held is None or held.get("rebuilt") != self.meta("rebuilt"):
            return True
        (newer,) = self.db.execute("SELECT count(*) FROM docs WHERE id > ?", (int(held["newest"]),)).fetchone()
        lag: int = newer + self.removed() - int(held["removed"])
        return lag > self.FILE_LAG * max(1, int(held["rows"]) // 32768)

    def removed(self) -> int:
        """How many documents the index has removed since it was built (kept in ``meta``)."""
        return int(self.meta("removed") or 0)

    def _save_vectors(self) -> None:
        """Write the vectors, as the database holds them now, to their file (on disk only)."""
        if self.vector_path is None or self.read_only:
            return
        v = self.vectors()
        vector_file.write(self.vector_path, v, rebuilt=self._rebuilt or "", removed=self.removed())

    def _vector_file_faults(self) -> list[str]:
        """What is wrong with the vectors' file: rows that differ from the database's, or ids up to
        its newest that it lacks. (Rows the database dropped since are the lag a search follows;
        a file of an earlier rebuild is ignored by searches and written again at close.)"""
        if self.vector_path is None or not self.vector_path.exists():
            return []
        held = vector_file.read(self.vector_path, self.embedder.dim)
        if held is None:
            return [f"{self.vector_path.name} is not a vectors file of this index: searches read the database "
                    "instead (`memkg index rebuild` writes it again)"]
        if held.rebuilt != self.meta("rebuilt"):
            return []
        saved = held.vectors
        fresh = Vectors(self.embedder.dim)
        self._append(fresh, self.db.execute("SELECT id, graph, t0, t1, recorded, vec, said0, said1 FROM docs "
                                            "WHERE id <= ? ORDER BY id", (held.newest,)).fetchall())
        ids = fresh.ids[: fresh.size]
        at = saved.positions(ids)
        problems = []
        if at.size < ids.size:
            problems.append(f"{ids.size - at.size} document(s) missing from {self.vector_path.name}")
        there = np.isin(ids, saved.ids[at])
        graphs = _names_of(saved)
        same = (np.array_equal(saved.matrix[at], fresh.matrix[: fresh.size][there])
                and np.array_equal(saved.scale[at], fresh.scale[: fresh.size][there])
                and [graphs[p] for p in at] == [g for g, keep in zip(_names_of(fresh), there) if keep])
        for column in ("start", "end", "recorded", "said_low", "said_high"):
            same = same and np.array_equal(getattr(saved, column)[at], getattr(fresh, column)[: fresh.size][there],
                                           equal_nan=True)
        if not same:
            problems.append(f"{self.vector_path.name} differs from the database")
        return problems

    def _scrub(self) -> None:
        """Leave no trace of removed text: merge the FTS segments (old ones hold the removed
        terms), and truncate the write-ahead log (secure_delete has zeroed freed pages)."""
        self.text.merge()
        if self.path is not None:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reading -----------------------------------------------------------------------

    def vectors(self) -> Vectors:
        """The vectors, on first use mapped from their file and brought up to the database
        (:meth:`follow`), or, without a file of this state, read from the database whole."""
        with self._lock:
            if self._vectors is None and self.vector_path is not None:
                held = vector_file.read(self.vector_path, self.embedder.dim)
                if held is not None:
                    self._vectors, self._rebuilt = held.vectors, held.rebuilt
                    self.follow()  # drops them if the file is of another rebuild
            if self._vectors is None:
                v = Vectors(self.embedder.dim)
                with self._reading():
                    self._rebuilt = self.meta("rebuilt")
                    rows = self.db.execute("SELECT id, graph, t0, t1, recorded, vec, said0, said1 FROM docs ORDER BY id").fetchall()
                    links = self.db.execute("SELECT doc, entity FROM links").fetchall()
                self._append(v, rows)
                v.link(links)
                self._vectors = v
                self._changed = True  # no file of this state: written at close, for the next process
            return self._vectors

    def follow(self) -> None:
        """Bring the in-memory vectors of an index another process writes (``read_only``) up to
        its database, reading only what changed, as a query worker does before each recall.

        A write replaces a changed document by a new row (ids only grow), so the rows past
        the newest one held are new, and held ids the database no longer has are gone (looked
        for only when the counts say some are). A rebuild starts the ids again: its mark
        (meta ``rebuilt``) changes, and the vectors are loaded whole on the next search.
        """
        with self._lock:
            v = self._vectors
            if v is None:
                return
            live = v.ids[: v.size][v.alive[: v.size]]
            newest = int(v.ids[v.size - 1]) if v.size else 0
            with self._reading():
                if self.meta("rebuilt") != self._rebuilt:
                    self._vectors = None
                    return
                rows = self.db.execute("SELECT id, graph, t0, t1, recorded, vec, said0, said1 FROM docs WHERE id > ? ORDER BY id",
                                       (newest,)).fetchall()
                links = self.db.execute("SELECT doc, entity FROM links WHERE doc > ?", (newest,)).fetchall()
                (count,) = self.db.execute("SELECT count(*) FROM docs").fetchone()
                held = None
                if count != len(live) + len(rows):
                    held = np.fromiter((r[0] for r in self.db.execute("SELECT id FROM docs WHERE id <= ?", (newest,))),
                                       dtype=np.int64)
            if held is not None:
                v.remove(np.setdiff1d(live, held, assume_unique=True))
            self._append(v, rows)
            v.link(links)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """One read transaction: every statement in it sees the same committed state."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    @staticmethod
    def _append(v: Vectors, rows: Sequence[tuple[Any, ...]]) -> None:
        if rows:
            matrix = np.frombuffer(b"".join(r[5] for r in rows), dtype=np.float16).reshape(len(rows), -1)
            v.append([r[0] for r in rows], matrix, [r[1] for r in rows], [r[2] for r in rows],
                     [r[3] for r in rows], [r[4] for r in rows],
                     [None if r[6] is None else (r[6], r[7]) for r in rows])

    def lexical(self, terms: Sequence[str], limit: int, graphs: Sequence[GraphKey] | None = None, *,
                budget: int = 2000, documents: int | None = None) -> list[tuple[int, float]]:
        """BM25 over the documents' text in ``graphs`` (None: all), each word weighed by how rare
        it is there (:meth:`memkg.recall.fulltext.FullText.search`)."""
        v = self.vectors()
        with self._lock:
            total = int(np.count_nonzero(v.alive[: v.size]))
        return self.text.search(terms, limit, graphs, budget=budget, documents=documents, total=total)

    def documents(self, ids: Sequence[int]) -> dict[int, dict[str, object]]:
        out: dict[int, dict[str, object]] = {}
        with self._lock:
            for at in range(0, len(ids), 500):
                chunk = list(ids[at: at + 500])
                marks = ",".join("?" * len(chunk))
                for row in self.db.execute(
                    f"SELECT id, node, graph, kind, text, t0, t1, recorded, episode, turn, source FROM docs "
                    f"WHERE id IN ({marks})", chunk,
                ):
                    out[row[0]] = dict(zip(("id", "node", "graph", "kind", "text", "start", "end", "recorded",
                                            "episode", "turn", "source"), row))
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

    def roles(self, docs: Sequence[int], entities: Sequence[str]) -> dict[int, tuple[str, str]]:
        """How each of ``docs`` is linked to one of ``entities``: document id → (vertex, role)."""
        out: dict[int, tuple[str, str]] = {}
        if not docs or not entities:
            return out
        wanted = set(entities)
        with self._lock:
            for at in range(0, len(docs), 500):
                chunk = list(docs[at: at + 500])
                rows = self.db.execute(
                    f"SELECT doc, entity, role FROM links WHERE doc IN ({','.join('?' * len(chunk))}) ORDER BY rowid", chunk)
                for d, entity, role in rows:
                    if entity in wanted:
                        out.setdefault(int(d), (entity, role))
        return out

    def senders(self, docs: Sequence[int]) -> dict[str, int]:
        """The senders of ``docs`` (vertex → rank of the first document it sent)."""
        out: dict[str, int] = {}
        with self._lock:
            for rank, d in enumerate(docs):
                for (entity,) in self.db.execute("SELECT entity FROM links WHERE doc = ? AND role = 'sender'", (d,)):
                    out.setdefault(entity, rank)
        return out

    def said_by(self, senders: Sequence[str], docs: Sequence[int]) -> list[tuple[int, str]]:
        """Which of ``docs`` one of ``senders`` sent: (document id, sender)."""
        if not senders or not docs:
            return []
        wanted = set(docs)
        marks = ",".join("?" * len(senders))
        with self._lock:
            rows = self.db.execute(f"SELECT doc, entity FROM links WHERE role = 'sender' AND entity IN ({marks})",
                                   list(senders)).fetchall()
        return [(int(d), e) for d, e in rows if d in wanted]

    def neighbours(self, doc: dict[str, object], graph: GraphKey) -> list[tuple[int, str]]:
        """Documents next to ``doc`` in the memory's graph: the turns before and after it in its
        episode, the claims it asserted, the message that asserted it. (document id, link)."""
        out: list[tuple[int, str]] = []
        with self._lock:
            episode, t, turn = doc.get("episode"), doc.get("start"), doc.get("turn")
            if episode and turn is not None:  # its place in the episode (turns of one session may share a time)
                for step, link in ((-1, "turn before"), (1, "turn after")):
                    out += [(r[0], link) for r in self.db.execute(
                        "SELECT id FROM docs WHERE episode = ? AND graph = ? AND turn = ? LIMIT 1",
                        (episode, graph, int(str(turn)) + step))]
            elif episode and t is not None:
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
            expected: dict[tuple[str, GraphKey], Document | None] = {}
            for q in self.store.quads_for_pattern(None, None, None, None):
                if isinstance(q.subject, NamedNode) and q.graph_name != ONTOLOGY_GRAPH \
                        and not q.predicate.value.startswith(MEMX):
                    key = (q.subject.value, graph_key(q.graph_name))
                    if key not in expected:
                        expected[key] = derive(self.store, q.subject, q.graph_name, labels)
            held = {(r[1], r[2]): r for r in self.db.execute(
                "SELECT id, node, graph, kind, text, t0, t1, recorded, episode, turn, source, vec IS NOT NULL, "
                "said0, said1 FROM docs")}
            for key, d in expected.items():
                if d is None:
                    continue
                row = held.get(key)
                if row is None:
                    faults.append(IndexFault(key[0], key[1], "missing"))
                elif (*row[3:11], *row[12:14]) != (d.kind, d.text, d.start, d.end, d.recorded, d.episode, d.turn, d.source,
                                                  *(d.mentions or (None, None))):
                    faults.append(IndexFault(key[0], key[1], "stale"))
                elif not row[11]:
                    faults.append(IndexFault(key[0], key[1], "no-vector"))
                if len(faults) >= limit:
                    break
            for key in held:
                if expected.get(key) is None and len(faults) < limit:
                    faults.append(IndexFault(key[0], key[1], "orphaned"))
            faults += [IndexFault("", "", problem) for problem in self.text.faults(len(held))]
            faults += [IndexFault("", "", problem) for problem in self._vector_file_faults()]
            if self.db.execute("SELECT 1 FROM pending LIMIT 1").fetchone():
                faults.append(IndexFault("", "", "a write was interrupted between the store's commit and the index's: "
                                                 "opening the store writable repairs it"))
            if self.meta("embedder") not in (None, self.embedder.name):
                faults.append(IndexFault("", "", f"vectors made by {self.meta('embedder')}, not {self.embedder.name}"))
        return RecallIndexReport(documents=len(held), faults=faults)

