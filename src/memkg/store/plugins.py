"""The write protocol: what the features above the store plug into it.

The store commits writes; what happens around a write belongs to features it never
imports (SQLAlchemy's events are the model):

- a :class:`Judge` sees every write before the commit and may refuse it (memkg's
  :class:`memkg.validation.WriteValidator`, chosen by ``MemoryStore(validation=…)``);
- :class:`Follower` s are indexes derived from the data (the recall index, the support
  index): each is told of a write before the commit, so that a crash between the two is
  repaired when it is next opened, and brought up to the write after it;
- a :class:`FirstLoad` may take over a large load into a store with no data
  (:mod:`memkg.loading.first_load`);
- a :data:`Recaller` answers :meth:`MemoryStore.recall` (:func:`memkg.recall.recall`).

``memkg/__init__.py`` plugs memkg's own in, once, when the package is imported (it is the
composition root: importing any part of memkg imports it first). A program can plug in
others with :func:`plug_in`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pyoxigraph import NamedNode, Quad

from ..core.errors import MemkgError, Violation
from ..core.terms import Graph

if TYPE_CHECKING:
    from .memory import MemoryStore
    from .reading import FileReader
    from .report import LoadReport


class Judge(Protocol):
    """Judges a write before it is committed: the violations it would leave (none: commit it)."""

    def __call__(
        self, store: MemoryStore, batch: Iterable[Quad], *, removed: Sequence[Quad] = (),
        visible: Collection[Graph] | None = None,
    ) -> list[Violation]: ...


class Follower(Protocol):
    """An index derived from the store's data and kept by every write."""

    @property
    def follows(self) -> Collection[NamedNode] | None:
        """On a write the store streams (a bulk load), the added quads handed to :meth:`apply`
        are those with one of these predicates; None: every quad."""
        ...

    def begin(self, added: Sequence[Quad] | None, removed: Sequence[Quad]) -> object:
        """Before the commit (``added`` None: a streamed write, its quads not known yet);
        what it returns is handed to :meth:`apply`."""
        ...

    def apply(self, *, added: Sequence[Quad], removed: Sequence[Quad], begun: object) -> None:
        """After the commit: catch up with the write."""
        ...

    def close(self) -> None: ...


class FollowerKind(Protocol):
    """Opens a store's :class:`Follower` of one kind."""

    #: The name the store knows the follower by (``store.follower(name)``).
    name: str

    def open(self, store: MemoryStore, *, create: bool) -> Follower | None:
        """The store's follower: the one it keeps (on disk, say), else with ``create`` a new
        one built from the data; None when there is none and none is wanted."""
        ...


class FirstLoad(Protocol):
    """A large load into a store with no data, written where it lands while a copy is judged."""

    def applies(self, store: MemoryStore, size: int) -> bool: ...

    def load(self, store: MemoryStore, reader: FileReader, report: LoadReport, *,
             strict_literals: bool) -> list[tuple[str, str]]:
        """Load ``reader``'s files; returns the prefixes they declare."""
        ...


#: ``recaller(store, query, *, tenant, k, valid_at, known_at)``: the hits, best first.
Recaller = Callable[..., Any]


@dataclass
class Plugins:
    """What is plugged into every store opened from now on."""

    #: Makes the judge of an engine name (``MemoryStore(validation="native")``).
    judge: Callable[[str], Judge] | None = None
    followers: dict[str, FollowerKind] = field(default_factory=dict)
    first_load: FirstLoad | None = None
    recaller: Recaller | None = None


PLUGGED_IN = Plugins()


class NotPluggedIn(MemkgError, LookupError):
    """A store was asked for something no feature has plugged in (import memkg first)."""


class Followers:
    """The followers one store has opened, and what a write does with them."""

    def __init__(self, lock: threading.RLock, extra: Sequence[FollowerKind] = ()) -> None:
        self._lock = lock
        self._open: dict[str, Follower] = {}
        #: The kinds plugged in for every store, and this store's own.
        self._kinds = {**PLUGGED_IN.followers, **{kind.name: kind for kind in extra}}

    def get(self, store: MemoryStore, name: str, *, create: bool = False) -> Follower | None:
        found = self._open.get(name)
        kind = self._kinds.get(name)
        if found is not None or kind is None:
            return found
        with self._lock:
            found = self._open.get(name)
            if found is None:
                found = kind.open(store, create=create)
                if found is not None:
                    self._open[name] = found
            return found

    def open_all(self, store: MemoryStore) -> list[Follower]:
        return [f for f in (self.get(store, name) for name in list(self._kinds)) if f is not None]

    def begin(self, store: MemoryStore, added: Sequence[Quad] | None,
              removed: Sequence[Quad] = ()) -> list[tuple[Follower, object]]:
        """Tell every follower the store keeps of a write about to commit."""
        return [(f, f.begin(added, removed)) for f in self.open_all(store)]

    @staticmethod
    def tee(begun: list[tuple[Follower, object]], quads: Iterable[Quad]) -> tuple[Iterable[Quad], dict[int, list[Quad]]]:
        """A streamed write's quads, each follower keeping those it follows as they pass."""
        streamed: dict[int, list[Quad]] = {id(f): [] for f, _ in begun}
        if not begun:
            return quads, streamed
        wanted = [(f.follows, streamed[id(f)]) for f, _ in begun]

        def passing() -> Iterator[Quad]:
            for q in quads:
                for predicates, kept in wanted:
                    if predicates is None or q.predicate in predicates:
                        kept.append(q)
                yield q

        return passing(), streamed

    def follow(self, begun: list[tuple[Follower, object]], added: Sequence[Quad], removed: Sequence[Quad] = (),
               streamed: dict[int, list[Quad]] | None = None) -> None:
        """Bring every follower told by :meth:`begin` up to the committed write."""
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

    def close(self) -> None:
        followers, self._open = list(self._open.values()), {}
        for follower in followers:
            follower.close()


def plug_in(
    *,
    judge: Callable[[str], Judge] | None = None,
    followers: Sequence[FollowerKind] = (),
    first_load: FirstLoad | None = None,
    recaller: Recaller | None = None,
) -> None:
    """Plug features into the stores opened from now on (each argument replaces the former one;
    followers are added by name)."""
    if judge is not None:
        PLUGGED_IN.judge = judge
    for kind in followers:
        PLUGGED_IN.followers[kind.name] = kind
    if first_load is not None:
        PLUGGED_IN.first_load = first_load
    if recaller is not None:
        PLUGGED_IN.recaller = recaller


def judge_for(engine: str) -> Judge:
    """The judge of ``engine``, from the validation plugged in."""
    if PLUGGED_IN.judge is None:
        raise NotPluggedIn(f"no validation is plugged in to judge writes with {engine!r}: import memkg")
    return PLUGGED_IN.judge(engine)


def recaller() -> Recaller:
    if PLUGGED_IN.recaller is None:
        raise NotPluggedIn("no recall is plugged in: import memkg")
    return PLUGGED_IN.recaller


__all__ = [
    "FirstLoad",
    "Follower",
    "Followers",
    "FollowerKind",
    "Judge",
    "NotPluggedIn",
    "PLUGGED_IN",
    "Plugins",
    "Recaller",
    "judge_for",
    "plug_in",
    "recaller",
]
