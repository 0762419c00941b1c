"""The write protocol: what the features above the store plug into it.

The store commits writes (:mod:`memkg.store.commit`); what happens around a write belongs
to features it never imports (SQLAlchemy's events are the model):

- a :class:`Judge` sees every write before the commit and may refuse it (memkg's
  :class:`memkg.validation.WriteValidator`, chosen by ``MemoryStore(validation=…)``). It may
  offer a :class:`FirstLoadJudge`: a large load into a store with no data may then take the
  first load;
- :class:`Follower` s are indexes derived from the data (the recall index, the support
  index): each is told of a write before the commit, so that a crash between the two is
  repaired when it is next opened, and brought up to the write after it. A
  :class:`FollowerKind` opens one store's follower, and the store hands it back by that kind,
  typed by what the kind opens: ``store.follower(RECALL_INDEX)`` is a ``RecallIndex | None``;
- a :class:`FirstLoad` may take over a large load into a store with no data
  (:mod:`memkg.loading.first_load`).

A plug-in is given a :class:`Host`, the part of the store it may use (the store's commit
path, :class:`memkg.store.commit.CommitPath`), never the store itself.

The one feature the store names is recall, because the contract makes it a method of the
store (:meth:`MemoryStore.recall`, docs/contract.md section 7): the store asks the follower
plugged in under :data:`RECALL`'s name, a :class:`Recaller`, and returns its
:class:`~memkg.core.hits.Hits`.

``memkg/__init__.py`` plugs memkg's own in, once, when the package is imported (it is the
composition root: importing any part of memkg imports it first), as :class:`Deferred` kinds,
first load and judge: each names the module that defines it, which is imported when a store
first uses it, so that a command that only reads never imports validation or recall. A store reads what is
plugged in when it opens, through :func:`plugged_in` alone. A program can plug in others for
every store with :func:`plug_in`, or give one store kinds of its own
(``MemoryStore(followers=[…])``, which replace those of the same name).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, Protocol, TypeVar, cast

from pyoxigraph import NamedNode, Quad, Store

from ..core.errors import MemkgError, Violation
from ..core.hits import Hits
from ..core.terms import Graph
from .backends.base import Backend, Capabilities, QuadStore
from .reading import FileReader
from .report import LoadReport, Progress


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


F = TypeVar("F", bound=Follower)
F_co = TypeVar("F_co", bound=Follower, covariant=True)


class FollowerKind(Protocol[F_co]):
    """Opens a store's :class:`Follower` of one kind; typed by the follower it opens.

    A kind is known by its :attr:`name`: a store given a kind of the name of one plugged in
    for every store keeps its own instead (``MemoryStore(followers=[recall_index(embedder=…)])``).
    """

    @property
    def name(self) -> str: ...

    def open(self, host: Host, *, create: bool) -> F_co | None:
        """The store's follower: the one it keeps (on disk, say), else with ``create`` a new
        one built from the data; None when there is none and none is wanted."""
        ...


class BuiltAfterLoads(Protocol):
    """A :class:`FollowerKind` may also build its follower right after a bulk load into a store on
    disk (``load`` then does it as a phase of its own, ``"build"``), so that the first read
    after the load does not start with a long, silent build."""

    def build(self, host: Host, *, progress: Progress | None) -> Follower | None:
        """The store's follower, built from the data if it is not yet (telling ``progress``)."""
        ...


class Host(Protocol):
    """What a plug-in may use of the store it serves: its backend and what the backend can do,
    the write lock, its other followers. The store's commit path is one, and so is the store."""

    @property
    def backend(self) -> Backend: ...

    @property
    def raw(self) -> QuadStore:
        """The quads as they are before the write (``backend.store``)."""
        ...

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def read_only(self) -> bool: ...

    def lock(self) -> threading.RLock: ...

    def follower(self, kind: FollowerKind[F], *, create: bool = False) -> F | None: ...


class FirstLoadJudge(Protocol):
    """Judges a first load: the files alone in a scratch store (into a store with no data, a
    write needs nothing of the store). It is pickled to judge in another process."""

    def __call__(self, scratch: Store, /, *, progress: Progress | None = None) -> list[Violation]: ...


class Judge(Protocol):
    """Judges a write before it is committed: the violations it would leave (none: commit it).

    A judge may also declare ``streams = True`` (it takes a write as a one-pass iterable, so
    the store streams loads too big for a list) and offer ``first_load_judge()`` (a
    :class:`FirstLoadJudge`, or None). A bare function is a judge that does neither.
    """

    def __call__(
        self, host: Host, batch: Iterable[Quad], /, *, removed: Sequence[Quad] = (),
        visible: Collection[Graph] | None = None,
    ) -> list[Violation]: ...


class FirstLoad(Protocol):
    """A large load into a store with no data, written where it lands while a copy is judged."""

    def applies(self, host: Host, size: int) -> bool:
        """Whether a load of ``size`` bytes into ``host`` (in process, bulk loading, with no
        follower open) goes this way."""
        ...

    def load(self, host: Host, reader: FileReader, report: LoadReport, *, judge: FirstLoadJudge | None,
             strict_literals: bool) -> list[tuple[str, str]]:
        """Load ``reader``'s files, judged by ``judge`` (None: unchecked); returns the prefixes
        they declare."""
        ...


class Recaller(Follower, Protocol):
    """The follower :meth:`MemoryStore.recall` asks (docs/contract.md section 7): the hits for a
    question in words, best first. It answers from other followers (an index) or from the
    server a store is on, and follows no write itself."""

    def recall(self, query: str, *, tenant: str | NamedNode | None = None, k: int = 10,
               valid_at: datetime | None = None, known_at: datetime | None = None) -> Hits: ...


class Named(Generic[F_co]):
    """A kind by its name alone, to ask a store for what a feature plugs in under that name: it
    opens nothing itself."""

    def __init__(self, name: str) -> None:
        self.name = name

    def open(self, host: Host, *, create: bool) -> F_co | None:
        return None


#: The follower :meth:`MemoryStore.recall` asks; :mod:`memkg.recall` plugs its kind in under this name.
RECALL: FollowerKind[Recaller] = Named("recall")


class NotPluggedIn(MemkgError, LookupError):
    """A store was asked for something no feature has plugged in (import memkg first)."""


@dataclass
class Plugins:
    """What is plugged into every store opened from now on."""

    #: Makes the judge of an engine name (``MemoryStore(validation="native")``).
    judge: Callable[[str], Judge] | None = None
    followers: dict[str, FollowerKind[Follower]] = field(default_factory=dict)
    first_load: FirstLoad | None = None

    def judge_for(self, engine: str) -> Judge:
        """The judge of ``engine``, from the validation plugged in."""
        if self.judge is None:
            raise NotPluggedIn(f"no validation is plugged in to judge writes with {engine!r}: import memkg")
        return self.judge(engine)


PLUGGED_IN = Plugins()


def imported(where: str) -> object:
    """The object ``"package.module:attribute"`` names, its module imported now."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


class Deferred:
    """A follower kind or a first load plugged in by where it lives (``"memkg.recall:RECALL_INDEX"``),
    imported when a store first opens a follower of its ``name`` or takes a first load.

    >>> kind = Deferred("recall-index", "memkg.recall:RECALL_INDEX")
    >>> kind.name
    'recall-index'
    """

    def __init__(self, name: str, where: str) -> None:
        self._name = name
        self.where = where
        self._target: object | None = None

    @property
    def name(self) -> str:
        return self._name

    def target(self) -> object:
        if self._target is None:
            self._target = imported(self.where)
        return self._target

    def open(self, host: Host, *, create: bool) -> Follower | None:
        return cast("FollowerKind[Follower]", self.target()).open(host, create=create)

    def applies(self, host: Host, size: int) -> bool:
        return cast(FirstLoad, self.target()).applies(host, size)

    def load(self, host: Host, reader: FileReader, report: LoadReport, *, judge: FirstLoadJudge | None,
             strict_literals: bool) -> list[tuple[str, str]]:
        return cast(FirstLoad, self.target()).load(host, reader, report, judge=judge, strict_literals=strict_literals)

    @property
    def build(self) -> Callable[..., Follower | None] | None:
        """The target kind's :meth:`BuiltAfterLoads.build`, if it has one."""
        return cast("Callable[..., Follower | None] | None", getattr(self.target(), "build", None))

    def __repr__(self) -> str:
        return f"Deferred({self._name!r}, {self.where!r})"


def deferred_judge(where: str) -> Callable[[str], Judge]:
    """A judge factory (``plug_in(judge=…)``) imported from ``where`` when a store that writes opens."""

    def judge_of(engine: str) -> Judge:
        return cast("Callable[[str], Judge]", imported(where))(engine)

    return judge_of


def plugged_in() -> Plugins:
    """What a store opening now is given: the one place a store reads what is plugged in (today
    what ``memkg/__init__.py`` plugged in when the package was imported)."""
    return PLUGGED_IN


def plug_in(
    *,
    judge: Callable[[str], Judge] | None = None,
    followers: Sequence[FollowerKind[Follower]] = (),
    first_load: FirstLoad | None = None,
) -> None:
    """Plug features into the stores opened from now on (each argument replaces the former one;
    followers are added by name)."""
    if judge is not None:
        PLUGGED_IN.judge = judge
    for kind in followers:
        PLUGGED_IN.followers[kind.name] = kind
    if first_load is not None:
        PLUGGED_IN.first_load = first_load



__all__ = [
    "RECALL",
    "BuiltAfterLoads",
    "Deferred",
    "FirstLoad",
    "FirstLoadJudge",
    "Follower",
    "FollowerKind",
    "Host",
    "Judge",
    "Named",
    "NotPluggedIn",
    "PLUGGED_IN",
    "Plugins",
    "Recaller",
    "deferred_judge",
    "imported",
    "plug_in",
    "plugged_in",
]
