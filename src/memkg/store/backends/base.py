"""What a storage backend is: the quads it reads (:class:`QuadStore`), the writes it applies
(:class:`Backend`) and what it can do (:class:`Capabilities`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    QueryBoolean,
    QuerySolutions,
    QueryTriples,
    Store,
    Triple,
)


class QuadStore(Protocol):
    """The part of pyoxigraph's ``Store`` API memkg reads with: a pyoxigraph ``Store`` is one,
    and so is a SPARQL server seen through :class:`memkg.store.backends.sparql.ServerStore`."""

    def quads_for_pattern(
        self,
        subject: NamedNode | BlankNode | Triple | None,
        predicate: NamedNode | None,
        object: NamedNode | BlankNode | Literal | Triple | None,
        graph_name: NamedNode | BlankNode | DefaultGraph | None = None,
    ) -> Iterator[Quad]: ...

    def query(self, query: str, *, prefixes: dict[str, str] | None = None,
              use_default_graph_as_union: bool = False, default_graph: Any = None, named_graphs: Any = None,
              substitutions: Any = None, base_iri: str | None = None) -> QuerySolutions | QueryBoolean | QueryTriples: ...

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]: ...

    def contains_named_graph(self, graph_name: NamedNode | BlankNode | DefaultGraph) -> bool: ...

    def __len__(self) -> int: ...

    def __contains__(self, quad: Any) -> bool: ...

    def __iter__(self) -> Any: ...


class UpdatableQuadStore(QuadStore, Protocol):
    """A :class:`QuadStore` that also takes SPARQL updates as text (the ontology's install)."""

    def update(self, update: str, /) -> None: ...


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do. The store and the modules over it ask these, never the
    backend's type (the embedded store and a SPARQL server differ in exactly these ways).

    >>> from memkg.store.backends.embedded import EmbeddedBackend
    >>> EmbeddedBackend.capabilities.in_process
    True
    """

    #: The quads are in this process: a pattern lookup is an index seek, not a request, so
    #: memkg reads node by node where that is quicker, and whole-store work (validation of
    #: every graph, the claim-index check, export, the support cone) runs on the store itself.
    #: Else lookups are batched into few queries and whole-store work runs on a copy.
    in_process: bool
    #: Large loads may go through a bulk loader (faster, not transactional) and be compacted.
    bulk_load: bool
    #: No one else writes: the indexes this process derives from the data (the store's
    #: followers, :mod:`memkg.store.plugins`, in memory or in files beside the store) stay
    #: current. Else a store opens none, and a feature that needs one asks the server.
    sole_writer: bool


class Backend(Protocol):
    """Where a :class:`~memkg.store.MemoryStore`'s quads live, and how they are written.

    The store does everything memkg means by a write (index triples, validation, the
    store clock, idempotency) and hands the backend finished quads. Each write method
    is atomic: it is applied whole or not at all.
    """

    capabilities: Capabilities
    #: The store directory (None: in memory, or not on this machine).
    path: Path | None
    read_only: bool

    @property
    def written_by(self) -> str:
        """How the last write reached a server, for a load's report ("" for a store in process)."""
        ...

    @property
    def store(self) -> QuadStore:
        """The quads, to read (``MemoryStore.raw``)."""
        ...

    def extend(self, quads: Iterable[Quad]) -> None:
        """Add ``quads`` in one transaction."""
        ...

    def bulk_extend(self, quads: Iterable[Quad]) -> None:
        """Add ``quads`` fast, not transactionally (``capabilities.bulk_load``; else as extend)."""
        ...

    def change(self, *, remove: Sequence[Quad], add: Sequence[Quad]) -> None:
        """Remove, then add, quads in one transaction (blank nodes keep their identity)."""
        ...

    def rebuild_index(self) -> None:
        """Derive the claim index again from the data, in one transaction."""
        ...

    def optimize(self) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...

    def copy(self, *, with_index: bool = True, graphs: Sequence[NamedNode] | None = None) -> list[Quad]:
        """Every quad (or the shared graph's and ``graphs``'), read at once."""
        ...

    def local_store(self) -> Store:
        """A pyoxigraph Store holding the memory, for whole-store work (validation, the index
        check): the store itself when ``capabilities.in_process``, else a copy read at once."""
        ...

    def remove_graph(self, graph: NamedNode) -> None:
        """Forget the name of an empty graph."""
        ...

    def backup(self, directory: str) -> None:
        """A consistent copy of the store in ``directory`` (the embedded store only)."""
        ...

    @property
    def view_site(self) -> str:
        """Where views are evaluated: ``here`` (their query on :attr:`store`), ``server``
        (:meth:`server_view`), ``around`` (here, on the view's neighbourhood: :meth:`around`) or
        ``copy`` (on a copy of the view's dataset)."""
        ...

    def server_view(self, name: str, params: dict[str, str]) -> QuerySolutions | QueryBoolean | QueryTriples:
        """The view as the server answers it (only when :attr:`view_site` is ``server``)."""
        ...

    def around(self, seeds: Iterable[NamedNode], graphs: Sequence[NamedNode], *, backward: Collection[NamedNode],
               first_backward: Collection[NamedNode] = (), follow: Collection[NamedNode]) -> list[Quad]:
        """The quads around ``seeds`` on the server (only when :attr:`view_site` is ``around``:
        :meth:`memkg.store.backends.sparql.ServerStore.around`)."""
        ...

    def claims(self, graphs: Sequence[NamedNode]) -> list[NamedNode]:
        """Every claim of the shared graph and ``graphs`` (only when :attr:`view_site` is ``around``)."""
        ...

    def declared_prefixes(self) -> dict[str, str]:
        """The prefixes the loaded files declared (:mod:`memkg.core.prefixes`)."""
        ...

    def fetch_json(self, route: str, params: Sequence[tuple[str, str]] = ()) -> object:
        """What the memkg server beside the SPARQL endpoint answers, as JSON, on ``GET route``
        with ``params``, under this backend's credentials (a feature the server keeps the
        index of asks it so). Raises :class:`~memkg.store.backends.sparql.RemoteError` when the
        server refuses (status 404 or 405: it has no such route); NotImplementedError on a
        backend with no server."""
        ...
