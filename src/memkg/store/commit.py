"""The commit path: the one way quads reach a store's backend.

Every write, small or bulk, takes the same steps (:meth:`CommitPath.commit`), under the
store's write lock and shielded from a time limit (:func:`memkg.guard.cancellation.shielded`):

1. the judge (:class:`memkg.store.plugins.Judge`) has seen the write, its claim index
   quads included, and not refused it (:meth:`CommitPath.check`);
2. the followers the store keeps are told of it (:meth:`Follower.begin`);
3. the backend applies it in one transaction (the bulk loader for a large load, which is
   not transactional, and so runs only after the whole input was judged);
4. the followers are brought up to it (:meth:`Follower.apply`);
5. a bulk write into a smaller store is compacted; a change or a load on disk is flushed.

:meth:`~CommitPath.write` (additions) and :meth:`~CommitPath.change` (removals too) do the
judging themselves; a load (:mod:`memkg.store.loads`) judges its input as it reads it, then
commits. The commit path is also what a plug-in is given of the store
(:class:`memkg.store.plugins.Host`): the backend, the lock and the followers.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import TypedDict, cast

from pyoxigraph import Quad

from ..core.errors import ValidationError
from ..core.terms import Graph
from ..guard.cancellation import shielded
from . import claim_index
from .backends.base import Backend, Capabilities, QuadStore
from .plugins import BuiltAfterLoads, F, FirstLoad, FirstLoadJudge, Follower, FollowerKind, Judge, Plugins
from .report import LoadReport


class _JudgeOptions(TypedDict, total=False):
    removed: Sequence[Quad]
    visible: Collection[Graph]


class CommitPath:
    """Commits one store's writes to ``backend``: judged by ``judge`` (None: unchecked), the
    followers opened by the kinds ``plugins`` holds and the store's own ``followers`` kept up.

    >>> from memkg.store.backends.embedded import EmbeddedBackend
    >>> from pyoxigraph import NamedNode, Quad
    >>> path = CommitPath(EmbeddedBackend(), judge=None, plugins=Plugins())
    >>> quad = Quad(NamedNode("urn:ex:a"), NamedNode("urn:ex:p"), NamedNode("urn:ex:b"))
    >>> path.write([quad, quad]), path.write([quad])
    (1, 0)
    """

    def __init__(self, backend: Backend, *, judge: Judge | None, plugins: Plugins, read_only: bool = False,
                 followers: Sequence[FollowerKind[Follower]] = ()) -> None:
        self.backend = backend
        self.read_only = read_only or backend.read_only
        #: Judges every write before it is committed; None writes unchecked.
        self.judge = judge
        #: Takes over a large load into a store with no data (memkg.loading.first_load), if plugged in.
        self.first_load: FirstLoad | None = plugins.first_load
        self._lock = threading.RLock()
        #: The kinds plugged in for every store, and this store's own (which replace them by name).
        self._kinds = {**plugins.followers, **{kind.name: kind for kind in followers}}
        self._open: dict[str, Follower] = {}

    # -- what a plug-in is given (memkg.store.plugins.Host) -----------------------------------

    @property
    def raw(self) -> QuadStore:
        return self.backend.store

    @property
    def capabilities(self) -> Capabilities:
        return self.backend.capabilities

    def lock(self) -> threading.RLock:
        """The (reentrant) write lock: hold it to read, then write, atomically."""
        return self._lock

    def follower(self, kind: FollowerKind[F], *, create: bool = False) -> F | None:
        """The follower of ``kind``'s name: the one open, else the one the store keeps, else (with
        ``create``) a new one built from the data; None when the store has no kind of that name
        or there is none and none is wanted."""
        found = self._open.get(kind.name)
        chosen = self._kinds.get(kind.name)
        if found is None and chosen is not None:
            with self._lock:
                found = self._open.get(kind.name)
                if found is None:
                    found = chosen.open(self, create=create)
                    if found is not None:
                        self._open[kind.name] = found
        # Kinds of one name open followers of one type: the one asked for is the one kept.
        return cast("F | None", found)

    def build_followers(self, report: LoadReport) -> None:
        """After a bulk load: build the followers whose kinds build after loads
        (:class:`memkg.store.plugins.BuiltAfterLoads`), as the load's phase ``build``."""
        kinds = [k for k in self._kinds.values() if k.name not in self._open and getattr(k, "build", None)]
        if not kinds:  # each one kept already (it followed the write)
            return
        with report.phase("build"), self._lock:
            for kind in kinds:
                built = cast(BuiltAfterLoads, kind).build(self, progress=report.progress)
                if built is not None:
                    self._open[kind.name] = built

    def open_followers(self) -> list[Follower]:
        """Every follower this store keeps, opened (a write must keep each one up)."""
        return [f for f in (self.follower(kind) for kind in list(self._kinds.values())) if f is not None]

    # -- writing --------------------------------------------------------------------------------

    def check_writable(self) -> None:
        if self.read_only:
            raise PermissionError(f"{self.backend.path}: the store is open read-only")

    def check(self, batch: Iterable[Quad], source: str | None, *, removed: Sequence[Quad] = (),
              visible: Collection[Graph] | None = None) -> None:
        """Refuse ``batch`` (and the removal of ``removed``) with a :class:`~memkg.core.errors.ValidationError`
        if the judge finds it breaks an invariant; nothing is written either way."""
        if self.judge is None:
            return
        options: _JudgeOptions = {}  # only those given: a judge of additions alone takes two arguments
        if removed:
            options["removed"] = removed
        if visible is not None:
            options["visible"] = visible
        violations = self.judge(self, batch, **options)
        if violations:
            raise ValidationError(violations, source=source)

    def streams(self) -> bool:
        """Whether the judge takes a write as a one-pass stream (else it is given a list)."""
        return bool(getattr(self.judge, "streams", False))  # a bare function does not

    def first_load_judge(self) -> FirstLoadJudge | None:
        """What judges a first load, as the judge offers it; None: the judge offers none."""
        offer = getattr(self.judge, "first_load_judge", None)  # a bare function offers none
        return None if offer is None else cast("FirstLoadJudge | None", offer())

    def write(self, quads: Iterable[Quad], *, source: str | None = None,
              visible: Collection[Graph] | None = None) -> int:
        """Add ``quads`` with their index quads, judged, in one transaction; how many were new."""
        self.check_writable()
        batch = list(claim_index.with_index(quads))
        with self._lock:
            self.check(batch, source, visible=visible)
            if not self.capabilities.in_process:  # a lookup per quad would be a request per quad
                if not batch:
                    return 0
                before = len(self.raw)
                self.commit(list(dict.fromkeys(batch)), flush=False)
                return len(self.raw) - before
            raw = self.raw
            new = [q for q in dict.fromkeys(batch) if q not in raw]
            if new:
                self.commit(new, flush=False)
            return len(new)

    def change(self, *, remove: Iterable[Quad] = (), add: Iterable[Quad] = (), source: str | None = None,
               visible: Collection[Graph] | None = None) -> int:
        """Remove and add quads in one transaction, judged as the state after it; how many were
        removed. Index quads follow the ``rdf:reifies`` quads removed and added (index quads
        given directly are ignored)."""
        self.check_writable()
        removing = [q for q in dict.fromkeys(remove) if not claim_index.is_index_quad(q)]
        adding = list(claim_index.with_index(q for q in add if not claim_index.is_index_quad(q)))
        with self._lock:
            raw = self.raw
            gone = [q for q in removing if q in raw]
            stale = claim_index.stale_index_quads(set(gone), raw)
            if adding or gone:
                self.check(adding, source, removed=[*gone, *stale], visible=visible)
            if gone or stale or adding:
                self.commit(adding, removed=gone, stale=stale)
            return len(gone)

    def commit(self, added: Iterable[Quad], *, removed: Sequence[Quad] | None = None, stale: Sequence[Quad] = (),
               streamed: bool = False, bulk: bool = False, compact: bool = False, flush: bool = True,
               report: LoadReport | None = None) -> None:
        """Commit a write already judged, the followers kept up.

        ``removed`` given, a change: one transaction removes it (and the index quads ``stale``
        with it) and adds ``added``. Else ``added`` is added in one transaction or, with
        ``bulk``, by the bulk loader if the backend has one (compacted after when ``compact``).
        ``streamed``: ``added`` is read once, as it is written, and the followers are told of
        it as it passes (a load's). ``flush``: a store on disk is flushed after. ``report``
        times the steps.
        """
        report = report or LoadReport()
        known = None if streamed else added if isinstance(added, list) else list(added)
        with self._lock, shielded():  # a call stopped at its time limit stops before this, never inside it
            begun = [(f, f.begin(known, removed or ())) for f in self.open_followers()]
            quads, kept = (known, None) if known is not None else _tee(begun, added)
            bulk = bulk and self.capabilities.bulk_load
            with report.phase("write"):
                if removed is not None:
                    self.backend.change(remove=[*removed, *stale], add=list(quads))
                elif bulk:
                    self.backend.bulk_extend(quads)
                else:
                    self.backend.extend(quads)
            report.written_by = self.backend.written_by
            with report.phase("followers"):
                self._follow(begun, known or (), removed or (), kept)
            if bulk and compact:
                with report.phase("optimize"):
                    # The bulk loader leaves many overlapping files, which slow subject-selective
                    # views (benchmarks/bench_views.py). Compaction rewrites the whole store, so
                    # after a write smaller than the store (an append) it is left to RocksDB and
                    # `memkg compact`.
                    self.backend.optimize()
            if flush and self.backend.path is not None:
                with report.phase("flush"):
                    self.backend.flush()

    def _follow(self, begun: list[tuple[Follower, object]], added: Sequence[Quad], removed: Sequence[Quad],
                streamed: dict[int, list[Quad]] | None) -> None:
        """Bring every follower told of the write up to it."""
        for follower, token in begun:
            try:
                follower.apply(added=added if streamed is None else streamed[id(follower)], removed=removed,
                               begun=token)
            except BaseException:
                self._drop(follower)  # half applied (a bug, or an interrupt): opened again on next use
                raise

    def _drop(self, follower: Follower) -> None:
        for name, held in list(self._open.items()):
            if held is follower:
                del self._open[name]
                follower.close()

    # -- maintenance ----------------------------------------------------------------------------

    def compact(self) -> None:
        """Compact the store on disk (reads get faster after large loads)."""
        self.check_writable()
        with self._lock:
            self.backend.optimize()
            self.flush()

    def flush(self) -> None:
        if not self.read_only:
            self.backend.flush()

    def close(self) -> None:
        """Close the followers and release the backend."""
        followers, self._open = list(self._open.values()), {}
        for follower in followers:
            follower.close()
        self.backend.close()


def _tee(begun: list[tuple[Follower, object]], quads: Iterable[Quad]) -> tuple[Iterable[Quad], dict[int, list[Quad]]]:
    """A streamed write's quads, each follower keeping those it follows as they pass."""
    streamed: dict[int, list[Quad]] = {id(f): [] for f, _ in begun}
    wanted = [(f.follows, streamed[id(f)]) for f, _ in begun if f.follows is None or f.follows]
    if not wanted:
        return quads, streamed

    def passing() -> Iterator[Quad]:
        for q in quads:
            for predicates, kept in wanted:
                if predicates is None or q.predicate in predicates:
                    kept.append(q)
            yield q

    return passing(), streamed
