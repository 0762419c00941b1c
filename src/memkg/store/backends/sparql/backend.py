"""The backend over a SPARQL server: writes as updates, views where the server can run them."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypedDict

from pyoxigraph import (
    NamedNode,
    Quad,
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    Store,
    parse_query_results,
)

from ....core.vocab import RDF_TYPE
from ... import ontology
from ..base import Capabilities
from .client import GRAPH_CLASS, REGISTRY_GRAPH, RemoteError, RemoteUnsupported, SparqlClient, route_url
from .server_store import ServerStore


#: How views run on a server (:attr:`SparqlBackend.view_site`).
VIEW_EVALUATIONS = ("server", "around", "copy")


class ServerOptions(TypedDict, total=False):
    """The options of a :class:`SparqlBackend` besides its endpoint (``MemoryStore.connect(url, **options)``)."""

    update_url: str | None
    dialect: str
    token: str | None
    timeout: float
    read_only: bool
    view_evaluation: str | None


class SparqlBackend:
    """The memory on a SPARQL server, as a :class:`~memkg.store.backends.base.Backend`.

    ``endpoint`` answers queries; ``update_url`` takes updates (default: the same
    URL, or ``…/update`` for an endpoint ending in ``/query``, as Oxigraph's).
    ``dialect`` is ``rdf12``, ``rdf11`` or ``auto`` (see the module doc); ``token``
    is sent as ``Authorization: Bearer`` (a ``memkg serve`` with ``--tokens``).
    ``read_only`` leaves the ontology graph as the server has it. ``view_evaluation``:
    how views run, ``server``, ``around`` or ``copy`` (see :attr:`view_site`).
    """

    #: Every lookup is a request and other clients write too: memkg batches its reads, runs
    #: whole-store work on a copy, keeps no index of its own and asks the server for what it keeps;
    #: a large load goes by the server's Graph Store Protocol.
    capabilities = Capabilities(in_process=False, bulk_load=True, sole_writer=False)
    path: Path | None = None

    def __init__(
        self,
        endpoint: str,
        *,
        update_url: str | None = None,
        dialect: str = "auto",
        token: str | None = None,
        timeout: float = 60.0,
        read_only: bool = False,
        view_evaluation: str | None = None,
    ) -> None:
        if view_evaluation not in (None, *VIEW_EVALUATIONS):
            raise ValueError(f"view_evaluation is one of {', '.join(VIEW_EVALUATIONS)}, not {view_evaluation!r}")
        self._view_evaluation = view_evaluation
        self.client = SparqlClient(endpoint, update_url=update_url, token=token, timeout=timeout)
        #: where the data goes, for messages (credentials in the URL left out)
        self.endpoint = self.client.endpoint
        self.read_only = read_only
        self.store = ServerStore(self.client, dialect, install_ontology=not read_only)

    @property
    def dialect(self) -> str:
        """``rdf12`` or ``rdf11`` (asked of the server on first use when ``auto``)."""
        return self.store.dialect

    # -- writing --

    def extend(self, quads: Iterable[Quad]) -> None:
        self.store.apply(insert=quads)

    def bulk_extend(self, quads: Iterable[Quad]) -> None:
        """A large load by the server's Graph Store Protocol (:meth:`ServerStore.bulk_insert`)."""
        self.store.bulk_insert(quads)

    @property
    def written_by(self) -> str:
        """How the last write reached the server (a load's report says it)."""
        return self.store.written_by

    def change(self, *, remove: Sequence[Quad], add: Sequence[Quad]) -> None:
        self.store.apply(delete=remove, insert=add)

    def rebuild_index(self) -> None:
        raise RemoteUnsupported(
            "index rebuild runs inside the embedded store; on a server, export, rebuild locally "
            "(memkg --store DIR load …; memkg --store DIR index rebuild) and load the result"
        )

    def optimize(self) -> None:
        """Nothing to do: the server manages its own storage."""

    def flush(self) -> None:
        """Nothing to do: the server commits each request."""

    def close(self) -> None:
        """Nothing to release: each request stands alone."""

    # -- reading --

    def copy(self, *, with_index: bool = True, graphs: Sequence[NamedNode] | None = None) -> list[Quad]:
        return self.store.copy(with_index=with_index, graphs=graphs)

    def local_store(self) -> Store:
        copy = Store()
        ontology.install(copy)  # as an embedded store has it, whatever the server holds
        copy.extend(self.copy())
        return copy

    def remove_graph(self, graph: NamedNode) -> None:
        """Take an (empty) graph off the server's list of memkg graphs."""
        if not self.store.native_default:
            self.store.update(f"DELETE DATA {{ GRAPH {REGISTRY_GRAPH} {{ {graph} {RDF_TYPE} {GRAPH_CLASS} }} }}")

    def backup(self, directory: str) -> None:
        raise RemoteUnsupported("a server's store is backed up with the server's own tools")

    @property
    def view_evaluation(self) -> str:
        """How views run: ``server`` (rdf12 default), ``around`` (rdf11 default) or ``copy``
        (see :attr:`view_site`)."""
        return self._view_evaluation or ("around" if self.dialect == "rdf11" else "server")

    @property
    def view_site(self) -> str:
        """Where a view is evaluated: ``server`` (a memkg server's own ``/views/NAME``), ``here``
        (the view's query sent to the server), ``around`` (here, over the view's neighbourhood read
        from the server: :func:`memkg.store.views.around`) or ``copy`` (over its whole dataset read
        from the server: an explicit fallback, never the default).

        ``around`` is the default for ``rdf11`` servers because Virtuoso 7.2 answers most of
        memkg's views wrongly (a property path joined to other patterns loses its rows, so
        ``current`` misses claims and ``dependents`` finds none) or not at all (SQ200 "No column"
        on ``history``); a template marked ``#+ portable`` is still sent as written.
        """
        if self.view_evaluation in ("around", "copy"):
            return self.view_evaluation
        return "server" if self.store.native_default else "here"

    def around(self, seeds: Iterable[NamedNode], graphs: Sequence[NamedNode], *, backward: Collection[NamedNode],
               first_backward: Collection[NamedNode] = (), follow: Collection[NamedNode]) -> list[Quad]:
        """:meth:`ServerStore.around`."""
        return self.store.around(seeds, graphs, backward=backward, first_backward=first_backward, follow=follow)

    def claims(self, graphs: Sequence[NamedNode]) -> list[NamedNode]:
        """:meth:`ServerStore.claims`."""
        return self.store.claims(graphs)

    def server_view(self, name: str, params: dict[str, str]) -> QuerySolutions | QueryBoolean | QueryTriples:
        """A view run by a memkg server itself (``GET /views/NAME``): the embedded code's answer."""
        url = f"views/{urllib.parse.quote(name)}?{urllib.parse.urlencode(params)}"
        body, headers = self.client.get(url, accept="application/sparql-results+json")
        try:
            return parse_query_results(body, QueryResultsFormat.JSON)
        except SyntaxError as err:
            raise RemoteError(f"{self.client.endpoint}: unreadable view results: {err}") from None

    def declared_prefixes(self) -> dict[str, str]:
        """From a memkg server, the prefixes of the files loaded into its store (``GET /pictures``),
        so names read and print as they do on that store; none from another server."""
        if not self.store.native_default:
            return {}
        body, _ = self.client.get("pictures", accept="application/json")
        try:
            served = json.loads(body).get("prefixes", {})
        except (ValueError, AttributeError):
            served = {}  # an older memkg server: memkg's own prefixes
        return {str(k): str(v) for k, v in served.items()}

    def fetch_json(self, route: str, params: Sequence[tuple[str, str]] = ()) -> object:
        """``GET route`` on the memkg server beside the endpoint (``…/sparql`` → ``…/route``),
        under this client's token; its answer as JSON. Raises :class:`RemoteError` as the
        server refuses (404 or 405 from a server that is not a ``memkg serve``)."""
        url = route_url(self.client.endpoint, route) + ("?" + urllib.parse.urlencode(params) if params else "")
        body, _ = self.client.get(url, accept="application/json")
        try:
            answer: object = json.loads(body)
        except ValueError as err:
            raise RemoteError(f"{url}: the answer is not JSON ({err})") from None
        return answer
