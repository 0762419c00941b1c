"""The embedded backend: the memory in a pyoxigraph ``Store`` in this process, on disk or in memory."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pyoxigraph import (
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    QueryBoolean,
    QuerySolutions,
    QueryTriples,
    Store,
)

from ...core import prefixes as prefix_names
from ...core.errors import NotAStoreError, StoreLockedError
from ...core.terms import has_blank, sparql_data_term
from .. import claim_index, ontology
from .base import Capabilities


#: Where the command line keeps the store when ``--store`` is not given.
DEFAULT_STORE_PATH = Path("memkg-store")

#: The file that marks a folder as a store: RocksDB, Oxigraph's storage, keeps it in every
#: database folder (it names the live manifest), from the first open on.
STORE_MARK = "CURRENT"


def check_folder(path: Path, *, create: bool) -> None:
    """Refuse ``path`` unless it holds a store, or (``create``) is a folder a new store may go
    in: one that does not exist yet or is empty. Nothing is written either way.

    Raises :class:`~memkg.core.errors.NotAStoreError` naming the folder and what it holds.
    """
    if path.is_dir() and (path / STORE_MARK).is_file():
        return
    if path.exists() and not path.is_dir():
        raise NotAStoreError(f"{path} is a file, not a store folder")
    held = sorted(p.name for p in path.iterdir()) if path.is_dir() else None
    if held:
        shown = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
        raise NotAStoreError(f"{path} is not a memkg store: the folder holds other files ({shown}); "
                             "give a new or empty folder for a new store")
    if not create:
        state = "does not exist" if held is None else "is empty"
        raise NotAStoreError(f"no store at {path}: the folder {state}, and a read never creates a store "
                             "(a write, such as a load, does)")


#: The file a ``memkg serve`` writes into the directory of the store it holds while it runs
#: (its URL, process id and whether it wants a token): a process that finds the store locked
#: reads it to say how to reach the store through that server.
SERVER_NOTICE = "memkg-serve.json"


@contextlib.contextmanager
def announce_server(path: Path, url: str, *, tokens: bool) -> Iterator[None]:
    """While the block runs, the store at ``path`` says it is served at ``url`` (``http://HOST:PORT/``)."""
    notice = path / SERVER_NOTICE
    notice.write_text(json.dumps({"url": url, "pid": os.getpid(), "tokens": tokens}) + "\n", encoding="utf-8")
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            notice.unlink()


def announced_server(path: Path) -> tuple[str, bool] | None:
    """The URL of the running ``memkg serve`` that holds the store at ``path`` and whether it
    wants a token; None when none says so (a notice left by a server that died is ignored)."""
    try:
        notice = json.loads((path / SERVER_NOTICE).read_text(encoding="utf-8"))
        url, pid, tokens = str(notice["url"]), int(notice["pid"]), bool(notice["tokens"])
        os.kill(pid, 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url, tokens


def locked(path: Path) -> StoreLockedError:
    """The error for a store directory another process holds, saying how to reach it through the
    ``memkg serve`` that holds it, when one does."""
    served = announced_server(path)
    if served is None:
        return StoreLockedError(
            f"{path}: the store is open for writing in another process (a running `memkg serve`?); stop it, "
            f"or reach the store through that server: memkg --endpoint http://HOST:PORT/sparql "
            f"--update-endpoint http://HOST:PORT/update COMMAND …"
        )
    url, tokens = served
    token = " --token TOKEN" if tokens else ""
    return StoreLockedError(
        f"{path}: the store is open for writing in another process, the `memkg serve` at {url}; stop it, or "
        f"reach the store through that server: memkg --endpoint {url}sparql --update-endpoint {url}update{token} "
        f"COMMAND … (from Python: MemoryStore.connect(\"{url}sparql\", update_url=\"{url}update\"))",
        server=url, tokens=tokens,
    )


class EmbeddedBackend:
    """An Oxigraph store in this process: a directory, or memory (``path`` None, for tests and
    scratch work), or a ``store`` already open. The ontology graph is brought up to date on
    opening, unless ``read_only``.

    A directory must hold a store (:data:`STORE_MARK`), or, with ``create`` (and not
    ``read_only``), not exist yet or be empty: a new store is made there. Anything else
    raises :class:`~memkg.core.errors.NotAStoreError` before a file is written. Raises
    :class:`~memkg.core.errors.StoreLockedError` when another process has the directory open
    for writing.

    >>> backend = EmbeddedBackend()
    >>> backend.extend([Quad(NamedNode("urn:ex:a"), NamedNode("urn:ex:p"), Literal("1"))])
    >>> Quad(NamedNode("urn:ex:a"), NamedNode("urn:ex:p"), Literal("1")) in backend.store
    True
    """

    capabilities = Capabilities(in_process=True, bulk_load=True, sole_writer=True)
    #: Views run as queries on the store itself.
    view_site = "here"
    written_by = ""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                 store: Store | None = None, create: bool = True) -> None:
        self.path = Path(path) if path is not None else None
        self.read_only = read_only
        if store is None and self.path is not None:
            check_folder(self.path, create=create and not read_only)
        try:
            if store is not None:
                self.store = store
            elif self.path is None:
                self.store = Store()
            elif read_only:
                self.store = Store.read_only(str(self.path))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self.store = Store(str(self.path))
            if not read_only:
                ontology.install(self.store)
        except OSError as err:
            if "lock" in str(err).lower() and self.path is not None:
                raise locked(self.path) from err
            raise

    def extend(self, quads: Iterable[Quad]) -> None:
        self.store.extend(quads)

    def bulk_extend(self, quads: Iterable[Quad]) -> None:
        self.store.bulk_extend(quads)

    def change(self, *, remove: Sequence[Quad], add: Sequence[Quad]) -> None:
        """One SPARQL update (so one transaction); a named graph left empty goes too."""
        update, functions = _change_update(remove, add)
        self.store.update(update, custom_functions=functions)
        # Oxigraph keeps a named graph once emptied; memkg's graphs exist while they hold quads.
        for g in {q.graph_name for q in remove if isinstance(q.graph_name, NamedNode)}:
            if not any(self.store.quads_for_pattern(None, None, None, g)):
                self.store.remove_graph(g)

    def rebuild_index(self) -> None:
        claim_index.rebuild(self.store)

    def optimize(self) -> None:
        self.store.optimize()

    def flush(self) -> None:
        if self.path is not None and not self.read_only:
            self.store.flush()

    def close(self) -> None:
        if "store" in vars(self):  # closing twice is harmless
            self.flush()
            del self.store  # pyoxigraph closes on drop

    def copy(self, *, with_index: bool = True, graphs: Sequence[NamedNode] | None = None) -> list[Quad]:
        chosen: list[NamedNode | DefaultGraph | None] = [None] if graphs is None else [DefaultGraph(), *graphs]
        return [q for g in chosen for q in self.store.quads_for_pattern(None, None, None, g)
                if with_index or not claim_index.is_index_quad(q)]

    def local_store(self) -> Store:
        return self.store

    def remove_graph(self, graph: NamedNode) -> None:
        self.store.remove_graph(graph)

    def backup(self, directory: str) -> None:
        self.store.backup(directory)

    def server_view(self, name: str, params: dict[str, str]) -> QuerySolutions | QueryBoolean | QueryTriples:
        raise NotImplementedError("the embedded store has no server: its views run here (view_site)")

    def around(self, seeds: Iterable[NamedNode], graphs: Sequence[NamedNode], *, backward: Collection[NamedNode],
               first_backward: Collection[NamedNode] = (), follow: Collection[NamedNode]) -> list[Quad]:
        raise NotImplementedError("the embedded store's views run on the whole store (view_site)")

    def claims(self, graphs: Sequence[NamedNode]) -> list[NamedNode]:
        raise NotImplementedError("the embedded store's views run on the whole store (view_site)")

    def declared_prefixes(self) -> dict[str, str]:
        return prefix_names.read(self.path)

    def fetch_json(self, route: str, params: Sequence[tuple[str, str]] = ()) -> object:
        raise NotImplementedError("the embedded store has no server: what it derives it keeps itself (sole_writer)")


def _data_block(quads: Iterable[Quad]) -> str:
    """Quads as the body of INSERT/DELETE DATA, each term serialized by pyoxigraph (never pasted text)."""
    parts = []
    for q in quads:
        triple = f"{sparql_data_term(q.subject)} {q.predicate} {sparql_data_term(q.object)} ."
        parts.append(triple if isinstance(q.graph_name, DefaultGraph) else f"GRAPH {q.graph_name} {{ {triple} }}")
    return "\n".join(parts)


_CHANGE = "urn:memkg:change:"


def _change_update(remove: Sequence[Quad], add: Sequence[Quad]) -> tuple[str, dict[NamedNode, Callable[..., Any]]]:
    """One SPARQL update (so one transaction) that removes, then adds, these quads.

    Quads without blank nodes go as DELETE DATA / INSERT DATA. A blank node
    written in update text would be a new node (and DELETE DATA refuses them), so
    quads holding one are looked up by row number through custom functions that
    hand Oxigraph the very terms, identity included.
    """
    table: list[Quad] = []
    operations: list[str] = []

    def by_reference(verb: str, quads: list[Quad]) -> None:
        for in_default in (True, False):
            rows = [q for q in quads if isinstance(q.graph_name, DefaultGraph) == in_default]
            if not rows:
                continue
            first = len(table)
            table.extend(rows)
            numbers = " ".join(str(n) for n in range(first, len(table)))
            pattern = "?s ?p ?o" if in_default else "GRAPH ?g { ?s ?p ?o }"
            binds = " ".join(f"BIND(<{_CHANGE}{v}>(?i) AS ?{v})" for v in ("spog" if not in_default else "spo"))
            operations.append(f"{verb} {{ {pattern} }} WHERE {{ VALUES ?i {{ {numbers} }} {binds} }}")

    for verb, quads in (("DELETE", remove), ("INSERT", add)):
        plain = [q for q in quads if not has_blank(q)]
        if plain:
            operations.append(f"{verb} DATA {{ {_data_block(plain)} }}")
        by_reference(verb, [q for q in quads if has_blank(q)])

    def component(index: int) -> Callable[[Literal], Any]:
        return lambda i: (table[int(i.value)].subject, table[int(i.value)].predicate,
                          table[int(i.value)].object, table[int(i.value)].graph_name)[index]

    functions = {NamedNode(f"{_CHANGE}{v}"): component(k) for k, v in enumerate("spog")}
    return " ;\n".join(operations), functions
