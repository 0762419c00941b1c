"""The SPARQL backend: the memory in a running SPARQL 1.1 (or 1.2) server instead of an embedded store.

:class:`SparqlBackend` is a :class:`~memkg.backends.base.Backend` whose quads are on a
server reached over the SPARQL 1.1 Protocol (queries by GET/POST, updates by POST).
A :class:`~memkg.store.MemoryStore` over it (``MemoryStore.connect(endpoint)``) runs every
command and view; what memkg does with the quads is the same code as on the embedded store:

* writes are completed with their index triples (:mod:`memkg.index`) and validated
  *client side* by the same :class:`~memkg.validation.WriteValidator`, which reads the
  context it needs from the server with a few queries; a refused write sends nothing. An
  accepted write is sent as ONE update request, which a SPARQL server applies atomically;
* results come back as pyoxigraph objects (``QuerySolutions``, ``QueryBoolean``,
  ``QueryTriples``), so callers format them unchanged.

Layout on the server. The SPARQL 1.1 Protocol cannot name the default graph in
``default-graph-uri``, and Virtuoso has no separate default graph at all, so a
remote store keeps every memkg graph as a named graph:

* memkg's shared default graph is the named graph ``<urn:memkg:default-graph>``;
* each tenant graph and the ontology graph keep their IRIs;
* the graphs memkg wrote are listed in ``<https://w3id.org/memkg/index#graphs>``
  (``GRAPH-IRI a memx:Graph``), written in the same update as the data, so memkg
  never mistakes a server's own graphs (Virtuoso's system graphs) for memory.

A ``memkg serve`` (told by its ``Server: memkg`` header) is the exception: it
serves a store laid out as the embedded one, so there the shared graph is the
server's default graph and every named graph is memory. Views are run by the
server itself (``/views/NAME``, the embedded code), and a query over a dataset the
protocol cannot name (the union of every graph, ``--union``) is evaluated here
over a copy, so every command answers as on the embedded store.

Every query is sent with its dataset spelled out in protocol parameters: a plain
query sees the shared graph as its default graph and the memkg graphs as named
graphs, exactly as on an embedded store; a view for one tenant sees that tenant,
the shared graph and the ontology; ``--union`` sees all of them. A query that
names its own dataset (``FROM``) is sent as written.

Dialects: ``rdf12`` servers (Oxigraph) store triple terms natively; ``rdf11``
servers (Virtuoso 7) store the documented encoding of :mod:`memkg.rdf11`, with
queries rewritten to SPARQL 1.1 and results decoded back to triple terms. On
``rdf11`` servers the *views* are evaluated by memkg over the view's dataset read
from the server in one query (see :attr:`SparqlBackend.view_site`: Virtuoso 7.2
answers the view templates wrongly); plain queries still run on the server.
``auto`` asks the server an ``ASK`` with a triple term and picks ``rdf12`` if it
answers. Nothing is asked of the server before the first read or write:

>>> SparqlBackend("http://127.0.0.1:9/sparql", dialect="rdf12", read_only=True).endpoint
'http://127.0.0.1:9/sparql'
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    Quad,
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    Store,
    Triple,
    parse,
    parse_query_results,
)

from .. import index as claim_index
from .. import ontology, rdf11, sparql_lexer
from ..errors import MemkgError
from ..results import sparql_term_json
from ..terms import Term
from ..vocab import MEMX, PREFIXES
from .base import Capabilities
from .embedded import sparql_term

DIALECTS = ("auto", "rdf12", "rdf11")
SHARED_GRAPH = NamedNode("urn:memkg:default-graph")
REGISTRY_GRAPH = NamedNode(MEMX + "graphs")
_GRAPH_CLASS = NamedNode(MEMX + "Graph")
_RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
#: quads_for_pattern reads this many rows first (enough for "is there any?"), then the rest.
_FIRST_PAGE = 1000
_PROLOGUE = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())



class RemoteError(MemkgError, OSError):
    """The server refused or failed a request (HTTP status and the server's message)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RemoteUnsupported(MemkgError, ValueError):
    """An operation a SPARQL backend cannot carry out (it needs the embedded store)."""


# -- HTTP ---------------------------------------------------------------------------------


class SparqlClient:
    """The SPARQL 1.1 Protocol over HTTP (stdlib only): queries and updates, with errors
    turned into :class:`RemoteError` carrying the status and the server's message."""

    def __init__(self, endpoint: str, *, update_url: str | None = None, token: str | None = None,
                 timeout: float = 60.0) -> None:
        parsed = urllib.parse.urlsplit(endpoint)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"not an HTTP(S) endpoint URL: {endpoint!r}")
        self.endpoint = endpoint
        self.update_url = update_url or _default_update_url(endpoint)
        self.timeout = timeout
        self._headers: dict[str, str] = {"User-Agent": "memkg"}
        handlers: list[urllib.request.BaseHandler] = []
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        elif parsed.username:
            # http://user:password@host/… : answered to the server's challenge, digest
            # (Virtuoso's /sparql-auth) or basic.
            netloc = (parsed.hostname or "") + (f":{parsed.port}" if parsed.port else "")
            self.endpoint = urllib.parse.urlunsplit(parsed._replace(netloc=netloc))
            if update_url is None:
                self.update_url = _default_update_url(self.endpoint)
            passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
            passwords.add_password(None, f"{parsed.scheme}://{netloc}/",
                                   urllib.parse.unquote(parsed.username), urllib.parse.unquote(parsed.password or ""))
            handlers += [urllib.request.HTTPDigestAuthHandler(passwords), urllib.request.HTTPBasicAuthHandler(passwords)]
        self._opener = urllib.request.build_opener(*handlers)
        self.requests = 0  #: how many requests this client sent (for tests and diagnostics)
        self.server: str | None = None  #: the last answer's ``Server`` header ("" when it had none)

    def query(self, text: str, *, accept: str, dataset: Sequence[tuple[str, str]] = ()) -> tuple[bytes, dict[str, str]]:
        """POST a query (form-encoded, so long queries fit); returns the body and headers."""
        form = urllib.parse.urlencode([("query", text), *dataset]).encode()
        return self._send(self.endpoint, form, "application/x-www-form-urlencoded", accept)

    def update(self, text: str) -> None:
        self._send(self.update_url, text.encode("utf-8"), "application/sparql-update", "*/*")

    def get(self, url: str, *, accept: str) -> tuple[bytes, dict[str, str]]:
        """GET ``url`` (absolute, or relative to the endpoint: a memkg server's ``/recall``,
        ``views/NAME``, ``pictures``) with this client's credentials; returns the body and headers."""
        return self._send(urllib.parse.urljoin(self.endpoint, url), None, None, accept)

    def _send(self, url: str, body: bytes | None, content_type: str | None, accept: str) -> tuple[bytes, dict[str, str]]:
        headers = {**self._headers, "Accept": accept, **({"Content-Type": content_type} if content_type else {})}
        request = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET", headers=headers)
        self.requests += 1
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                self.server = response.headers.get("Server") or ""
                return response.read(), {k.lower(): v for k, v in response.headers.items()}
        except urllib.error.HTTPError as err:
            detail = err.read().decode("utf-8", "replace").strip()
            raise RemoteError(
                f"{url}: HTTP {err.code} {err.reason}" + (f": {_first_lines(detail)}" if detail else ""),
                status=err.code,
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
            reason = getattr(err, "reason", err)
            raise RemoteError(f"{url}: cannot reach the server ({reason})") from None


def recall_url(endpoint: str) -> str:
    """A memkg server's ``/recall`` beside its query URL (``…/sparql`` or ``…/query``)."""
    base = endpoint.split("?")[0].rstrip("/")
    for tail in ("/sparql", "/query"):
        if base.endswith(tail):
            return base[: -len(tail)] + "/recall"
    return base + "/recall"


def _default_update_url(endpoint: str) -> str:
    """Oxigraph answers queries at /query and updates at /update; most servers (Virtuoso,
    Fuseki's /sparql) take both at one URL."""
    if endpoint.rstrip("/").endswith("/query"):
        return endpoint.rstrip("/")[: -len("query")] + "update"
    return endpoint


def _first_lines(text: str, limit: int = 6) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:limit]) + (" …" if len(lines) > limit else "")


# -- the server as a pyoxigraph-like Store ---------------------------------------------------


class ServerStore:
    """The server seen as a :class:`~memkg.backends.base.QuadStore` (the part of pyoxigraph's
    ``Store`` API memkg reads with: ``query``, ``quads_for_pattern``, ``named_graphs``, ``len``,
    ``in``) plus whole-quad writes (:meth:`apply`), so the modules that read ``store.raw``
    work on a server unchanged.

    Terms go in and come out as RDF 1.2 (triple terms decoded in the ``rdf11`` dialect);
    the shared graph's quads come out in the default graph. The server is first asked
    (its dialect, whether it is a ``memkg serve``; then, with ``install_ontology``, the
    ontology graph brought up to date) when a read or write first needs it.
    """

    def __init__(self, client: SparqlClient, dialect: str = "auto", *, native_default: bool | None = None,
                 install_ontology: bool = False) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown endpoint dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")
        self.client = client
        self._dialect = dialect
        self._native_default = native_default
        self._install_ontology = install_ontology
        self.decoder = rdf11.Decoder(lookup=self._describe)
        self._graphs: list[NamedNode] | None = None

    @property
    def dialect(self) -> str:
        """``rdf12`` or ``rdf11`` (asked of the server on first use when ``auto``)."""
        self._connect()
        return self._dialect

    @property
    def native_default(self) -> bool:
        """Whether the server's default graph is memkg's shared graph and every named graph is
        memory (a ``memkg serve``); else the layout of the module doc."""
        return self._connect()

    def _connect(self) -> bool:
        """Ask the server what it is, once: its dialect, then (one cheap question, unless an
        answer was seen) whether it is a memkg server; then bring the ontology graph up to date."""
        if self._native_default is None:
            if self._dialect == "auto":
                self._dialect = detect_dialect(self.client)
            if self.client.server is None:
                self.client.query("ASK {}", accept="application/sparql-results+json, application/sparql-results+xml")
            self._native_default = is_memkg_server(self.client)
        if self._install_ontology:
            self._install_ontology = False
            ontology.install(self)
        return self._native_default

    def graphs(self) -> list[NamedNode]:
        """memkg's named graphs on the server (tenants and the ontology), from the registry."""
        if self._graphs is None and self.native_default:
            rows = self._select("SELECT DISTINCT ?g WHERE { GRAPH ?g { } }", dataset=[])
            self._graphs = sorted({row["g"] for row in rows if isinstance(row["g"], NamedNode)}
                                  | {ontology.ONTOLOGY_GRAPH}, key=str)
        if self._graphs is None:
            rows = self._select(
                f"SELECT DISTINCT ?g WHERE {{ GRAPH {REGISTRY_GRAPH} {{ ?g a {_GRAPH_CLASS} }} }}", dataset=[]
            )
            found = {row["g"] for row in rows if isinstance(row["g"], NamedNode)}
            self._graphs = sorted(found | {ontology.ONTOLOGY_GRAPH}, key=str)
        return self._graphs

    def forget_graphs(self) -> None:
        self._graphs = None

    def _server_graph(self, g: NamedNode | BlankNode | DefaultGraph | None) -> NamedNode | DefaultGraph:
        """Where memkg's graph ``g`` is on the server (None: the shared graph)."""
        if g is None or isinstance(g, DefaultGraph):
            return DefaultGraph() if self.native_default else SHARED_GRAPH
        if isinstance(g, BlankNode):
            raise ValueError(f"a graph named by a blank node ({g}) cannot be written to a server")
        return g

    def _server_name(self, g: NamedNode | DefaultGraph | None) -> NamedNode:
        """The name of memkg's graph ``g`` in a request's dataset (the layout of the module doc)."""
        return SHARED_GRAPH if g is None or isinstance(g, DefaultGraph) else g

    def _where(self, pattern: str, graph: Any = None) -> str:
        """A group matching ``pattern`` in ``graph`` (None: every memkg graph), binding ``?g``
        to the graph's server name (unbound for a native default graph)."""
        if not self.native_default:
            return f"{{ GRAPH ?g {{ {pattern} }} }}"  # the request's dataset picks the graphs
        if graph is None:
            return f"{{ {{ {pattern} }} UNION {{ GRAPH ?g {{ {pattern} }} }} }}"
        if isinstance(graph, DefaultGraph):
            return f"{{ {pattern} }}"
        return f"{{ VALUES ?g {{ {graph} }} GRAPH ?g {{ {pattern} }} }}"

    def _pattern_dataset(self, graphs: Sequence[Any] | None = None) -> list[tuple[str, str]]:
        """The protocol dataset a :meth:`_where` group reads: every memkg graph, or ``graphs``."""
        if self.native_default:
            return []  # the server's own dataset: its default graph and every named graph
        named = [SHARED_GRAPH, *self.graphs()] if graphs is None else [self._server_name(g) for g in graphs]
        return [("named-graph-uri", g.value) for g in named]

    def _quad_of(self, row: dict[str, Any], s: Any = None, p: Any = None, o: Any = None) -> Quad:
        g = row.get("g")
        return Quad(s if s is not None else row["s"], p if p is not None else row["p"],
                    o if o is not None else row["o"], DefaultGraph() if g is None or g == SHARED_GRAPH else g)

    def dataset(self, *, default_graph: Any = None, named_graphs: Any = None, union: bool = False) -> list[tuple[str, str]]:
        """Protocol parameters giving a query the dataset pyoxigraph's options would."""
        if self.native_default:
            if union or (default_graph is not None and any(
                    isinstance(g, DefaultGraph) for g in (default_graph if isinstance(default_graph, (list, tuple))
                                                          else [default_graph]))):
                raise RemoteUnsupported("a memkg server's default graph cannot be named in a request's dataset")
            if default_graph is None and named_graphs is None:
                return []
        if union:
            defaults = [SHARED_GRAPH, *self.graphs()]
        elif default_graph is None:
            defaults = [SHARED_GRAPH]
        else:
            given = default_graph if isinstance(default_graph, (list, tuple)) else [default_graph]
            defaults = [self._server_name(g) for g in given]
        named = self.graphs() if named_graphs is None else [self._server_name(g) for g in named_graphs]
        return [("default-graph-uri", g.value) for g in defaults] + [("named-graph-uri", g.value) for g in named]

    # -- reading --

    def query(
        self,
        sparql: str,
        *,
        prefixes: dict[str, str] | None = None,
        substitutions: Any = None,
        default_graph: Any = None,
        named_graphs: Any = None,
        use_default_graph_as_union: bool = False,
        base_iri: str | None = None,
    ) -> QuerySolutions | QueryBoolean | QueryTriples:
        if substitutions:
            raise RemoteUnsupported("query substitutions are not sent to remote stores; bind with VALUES")
        prologue = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in (prefixes or {}).items())
        if base_iri:
            prologue = f"BASE <{base_iri}>\n" + prologue
        text = sparql
        if self.dialect == "rdf11":
            text = rdf11.rewrite_query(sparql, prologue=prologue)
        own_dataset = _names_dataset(sparql) and default_graph is None and not use_default_graph_as_union
        try:
            dataset = [] if own_dataset else self.dataset(
                default_graph=default_graph, named_graphs=named_graphs, union=use_default_graph_as_union
            )
        except RemoteUnsupported:
            # A memkg server's default graph cannot be named in a request: evaluate over a copy.
            copy = Store()
            copy.extend(self.copy())
            return copy.query(sparql, prefixes=prefixes, default_graph=default_graph, named_graphs=named_graphs,
                              use_default_graph_as_union=use_default_graph_as_union, base_iri=base_iri)
        return self.run(prologue + text, dataset)

    def run(self, text: str, dataset: Sequence[tuple[str, str]], *,
            decode: bool = True) -> QuerySolutions | QueryBoolean | QueryTriples:
        """Send ``text`` as written with the protocol ``dataset`` (``default-graph-uri``,
        ``named-graph-uri`` pairs); ``decode=False`` leaves encoded triple terms as IRIs."""
        accept = (
            "application/sparql-results+xml, application/n-triples;q=0.9"
            if self.dialect == "rdf11"
            else "application/sparql-results+json, application/n-triples;q=0.9"
        )
        body, headers = self.client.query(text, accept=accept, dataset=dataset)
        if "x-sparql-maxrows" in headers:
            raise RemoteError(
                f"{self.client.endpoint}: the server cut the result at {headers['x-sparql-maxrows']} rows "
                f"(Virtuoso's [SPARQL] ResultSetMaxRows); raise that limit, memkg needs every row"
            )
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind in ("application/n-triples", "text/plain", "text/turtle", "application/rdf+xml"):
            return self._graph_result(body, kind)
        fmt = QueryResultsFormat.XML if "xml" in kind else QueryResultsFormat.JSON
        try:
            results = parse_query_results(body, fmt)
        except SyntaxError as err:
            raise RemoteError(f"{self.client.endpoint}: unreadable results ({kind or 'no content type'}): {err}") from None
        if decode and self.dialect == "rdf11" and isinstance(results, QuerySolutions):
            return self._decode_solutions(results)
        return results

    def _graph_result(self, body: bytes, kind: str) -> QueryTriples:
        """A CONSTRUCT/DESCRIBE answer as pyoxigraph's QueryTriples (replayed from a scratch store)."""
        fmt = {"text/turtle": RdfFormat.TURTLE, "application/rdf+xml": RdfFormat.RDF_XML}.get(kind, RdfFormat.N_TRIPLES)
        try:
            quads = list(parse(body, fmt))
        except SyntaxError as err:
            raise RemoteError(f"{self.client.endpoint}: unreadable graph result: {err}") from None
        if self.dialect == "rdf11":
            quads = list(rdf11.decode_quads(quads, self.decoder))
        scratch = Store()
        scratch.extend(quads)
        result = scratch.query("CONSTRUCT WHERE { ?s ?p ?o }")
        assert isinstance(result, QueryTriples)
        return result

    def _decode_solutions(self, results: QuerySolutions) -> QuerySolutions:
        names = [v.value for v in results.variables if not v.value.startswith("__memkg_")]
        rows = [[row[n] for n in names] for row in results]
        self.decoder.resolve(t for row in rows for t in row)
        decoded = [[self.decoder.term(t) for t in row] for row in rows]
        return _solutions(names, decoded)

    def _select(self, text: str, dataset: Sequence[tuple[str, str]] | None = None, *,
                decode: bool = True) -> list[dict[str, Any]]:
        """Rows as dicts; ``decode=False`` leaves encoded triple terms as their IRIs."""
        results = self.run(text, self.dataset() if dataset is None else dataset, decode=decode)
        assert isinstance(results, QuerySolutions)
        names = [v.value for v in results.variables]
        return [{n: row[n] for n in names} for row in results]

    def _describe(self, nodes: list[NamedNode]) -> Iterator[tuple[NamedNode, NamedNode, Term]]:
        """The descriptions of encoded triple terms, in whichever memkg graph they are."""
        values = " ".join(str(n) for n in nodes)
        text = (
            f"SELECT DISTINCT ?t ?part ?v WHERE {{ VALUES ?t {{ {values} }} "
            f"VALUES ?part {{ {rdf11.RDF_SUBJECT} {rdf11.RDF_PREDICATE} {rdf11.RDF_OBJECT} }} "
            f"GRAPH ?g {{ ?t ?part ?v }} }}"
        )
        named = [SHARED_GRAPH, *self.graphs()]
        for row in self._select(text, dataset=[("named-graph-uri", g.value) for g in named], decode=False):
            yield row["t"], row["part"], row["v"]

    def quads_for_pattern(self, subject: Any = None, predicate: Any = None, object: Any = None,
                          graph_name: Any = None) -> Iterator[Quad]:
        """The quads matching a pattern (None matches anything), read a page at a time."""
        slots = []
        for name, term in (("s", subject), ("p", predicate), ("o", object)):
            slots.append(f"?{name}" if term is None else self._encode_term(term))
        s, p, o = slots
        filters = f"FILTER(!STRSTARTS(STR(?s), \"{rdf11.TRIPLE_NS}\"))" if self.dialect == "rdf11" and subject is None else ""
        text = f"SELECT ?s ?p ?o ?g WHERE {self._where(f'{s} {p} {o} {filters}', graph_name)}"
        dataset = self._pattern_dataset(None if graph_name is None else [graph_name])

        def as_quads(rows: list[dict[str, Any]]) -> Iterator[Quad]:
            for row in rows:
                yield self._quad_of(row, subject, predicate, object)

        first = self._select(text + f" LIMIT {_FIRST_PAGE}", dataset)
        seen = set()
        for q in as_quads(first):
            seen.add(q)
            yield q
        if len(first) == _FIRST_PAGE:  # quads are a set: read everything, skip what was given
            for q in as_quads(self._select(text, dataset)):
                if q not in seen:
                    yield q

    def _encode_term(self, term: Term) -> str:
        if isinstance(term, Triple):
            if self.dialect == "rdf11":
                return str(rdf11.term_iri(rdf11.normalise([term])[0]))
            return sparql_term(term)
        return str(term)

    def named_graphs(self) -> Iterator[NamedNode]:
        return iter(self.graphs())

    def contains_named_graph(self, graph_name: NamedNode | BlankNode | DefaultGraph) -> bool:
        return graph_name in self.graphs()

    def __len__(self) -> int:
        skip = f"FILTER(!STRSTARTS(STR(?s), \"{rdf11.TRIPLE_NS}\"))" if self.dialect == "rdf11" else ""
        rows = self._select(f"SELECT (COUNT(*) AS ?n) WHERE {self._where(f'?s ?p ?o {skip}')}", self._pattern_dataset())
        return int(rows[0]["n"].value)

    def __contains__(self, quad: Quad) -> bool:
        return any(True for _ in self.quads_for_pattern(quad.subject, quad.predicate, quad.object, quad.graph_name))

    def __iter__(self) -> Iterator[Quad]:
        return self.quads_for_pattern()

    # -- writing --

    def apply(self, *, delete: Iterable[Quad] = (), insert: Iterable[Quad] = ()) -> None:
        """Delete then insert quads in ONE update request (atomic on the server).

        The graphs written are registered in the same request. In the ``rdf11``
        dialect triple terms are encoded; deleting leaves their descriptions (they are
        shared with every other use of the term, and decoding ignores unused ones).
        """
        delete, insert = list(delete), list(insert)
        if self.dialect == "rdf11":
            delete = [q for q in rdf11.encode_quads(delete) if not rdf11.is_encoded(q.subject)]
            insert = rdf11.encode_quads(insert)
        graphs = {q.graph_name for q in insert if isinstance(q.graph_name, NamedNode)}
        registry = [] if self.native_default else [
            Quad(g, _RDF_TYPE, _GRAPH_CLASS, REGISTRY_GRAPH) for g in sorted(graphs, key=str)
        ]
        operations = []
        if delete:
            operations.append(f"DELETE DATA {{ {self._data_block(delete)} }}")
        if insert:
            operations.append(f"INSERT DATA {{ {self._data_block(insert + registry)} }}")
        if operations:
            self.client.update(" ;\n".join(operations))
        if graphs - set(self.graphs()):
            self.forget_graphs()

    def _data_block(self, quads: Sequence[Quad]) -> str:
        by_graph: dict[NamedNode | DefaultGraph, list[str]] = {}
        for q in quads:
            g = self._server_graph(q.graph_name)
            by_graph.setdefault(g, []).append(f"{sparql_term(q.subject)} {q.predicate} {sparql_term(q.object)} .")
        return "\n".join(
            "\n".join(lines) if isinstance(g, DefaultGraph) else f"GRAPH {g} {{\n" + "\n".join(lines) + "\n}"
            for g, lines in by_graph.items()
        )

    def update(self, text: str) -> None:
        """Send an update as written (memkg's own maintenance updates name their graphs)."""
        if self.dialect == "rdf11" and "<<(" in text:
            raise RemoteUnsupported("an update with triple terms cannot be sent as text to an rdf11 server")
        self.client.update(_PROLOGUE + text)
        self.forget_graphs()

    def copy(self, *, with_index: bool = True, graphs: Sequence[NamedNode] | None = None) -> list[Quad]:
        """The memory's quads read in one query, decoded: every graph, or the shared graph
        plus ``graphs``; index triples only ``with_index``."""
        chosen = None if graphs is None else [DefaultGraph(), *graphs]
        if chosen is None:
            text = f"SELECT ?s ?p ?o ?g WHERE {self._where('?s ?p ?o')}"
        else:
            text = "SELECT ?s ?p ?o ?g WHERE { " + " UNION ".join(self._where("?s ?p ?o", g) for g in chosen) + " }"
        rows = self._select(text, self._pattern_dataset(chosen), decode=False)
        quads = [self._quad_of(r) for r in rows]
        if self.dialect == "rdf11":
            quads = list(rdf11.decode_quads(quads, self.decoder))
        if not with_index:
            quads = [q for q in quads if not claim_index.is_index_quad(q)]
        return quads


def _names_dataset(sparql: str) -> bool:
    """Whether the query text has its own FROM / FROM NAMED clause."""
    return any(t.is_word("FROM") for t in sparql_lexer.tokenize(sparql, source="<query>"))


def _solutions(names: list[str], rows: list[list[Term | None]]) -> QuerySolutions:
    """Rows of terms as pyoxigraph QuerySolutions (through SPARQL JSON results)."""
    import json

    bindings = [{n: sparql_term_json(t) for n, t in zip(names, row) if t is not None} for row in rows]
    body = json.dumps({"head": {"vars": names}, "results": {"bindings": bindings}}).encode()
    results = parse_query_results(body, QueryResultsFormat.JSON)
    assert isinstance(results, QuerySolutions)
    return results


def detect_dialect(client: SparqlClient) -> str:
    """``rdf12`` if the server understands a triple term, else ``rdf11``."""
    probe = "ASK { FILTER(isTRIPLE(<<( <urn:memkg:probe> <urn:memkg:probe> <urn:memkg:probe> )>>)) }"
    try:
        body, headers = client.query(probe, accept="application/sparql-results+json, application/sparql-results+xml")
    except RemoteError as err:
        if err.status is not None and 400 <= err.status < 500 and err.status not in (401, 403):
            return "rdf11"  # the server could not parse SPARQL 1.2
        raise
    kind = headers.get("content-type", "")
    try:
        answer = parse_query_results(body, QueryResultsFormat.XML if "xml" in kind else QueryResultsFormat.JSON)
    except SyntaxError:
        return "rdf11"
    return "rdf12" if isinstance(answer, QueryBoolean) and bool(answer) else "rdf11"


# -- the backend ------------------------------------------------------------------------------


class SparqlBackend:
    """The memory on a SPARQL server, as a :class:`~memkg.backends.base.Backend`.

    ``endpoint`` answers queries; ``update_url`` takes updates (default: the same
    URL, or ``…/update`` for an endpoint ending in ``/query``, as Oxigraph's).
    ``dialect`` is ``rdf12``, ``rdf11`` or ``auto`` (see the module doc); ``token``
    is sent as ``Authorization: Bearer`` (a ``memkg serve`` with ``--tokens``).
    ``read_only`` leaves the ontology graph as the server has it. ``view_evaluation``:
    where views run, ``server`` or ``local`` (see :attr:`view_site`).
    """

    #: Every lookup is a request and other clients write too: memkg batches its reads, runs
    #: whole-store work on a copy, keeps no index in memory and asks the server to recall.
    capabilities = Capabilities(in_process=False, bulk_load=False, memory_indexes=False, recall_index=False)
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
        if view_evaluation not in (None, "server", "local"):
            raise ValueError(f"view_evaluation is 'server' or 'local', not {view_evaluation!r}")
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

    bulk_extend = extend

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
            self.store.update(f"DELETE DATA {{ GRAPH {REGISTRY_GRAPH} {{ {graph} {_RDF_TYPE} {_GRAPH_CLASS} }} }}")

    def backup(self, directory: str) -> None:
        raise RemoteUnsupported("a server's store is backed up with the server's own tools")

    @property
    def view_evaluation(self) -> str:
        """Where views run: ``server`` (rdf12 default) or ``local`` (rdf11 default; see :attr:`view_site`)."""
        return self._view_evaluation or ("local" if self.dialect == "rdf11" else "server")

    @property
    def view_site(self) -> str:
        """Where a view is evaluated: ``server`` (a memkg server's own ``/views/NAME``), ``here``
        (the view's query sent to the server) or ``copy`` (over its dataset read from the server).

        ``copy`` is the default for ``rdf11`` servers because Virtuoso 7.2 answers memkg's
        views wrongly (an OPTIONAL over a sub-select with a property path binds for the
        first row only, so ``current`` comes back empty) or not at all (SQ200 "No column" on
        ``history``); the rows are then exactly the embedded store's.
        """
        if self.view_evaluation == "local":
            return "copy"
        return "server" if self.store.native_default else "here"

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

    def recall(
        self,
        query: str,
        *,
        tenant: str | NamedNode | None = None,
        k: int = 10,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
    ) -> list[Any]:
        """Recall on the server: a ``memkg serve`` answers ``GET /recall`` from the text and
        vector indexes it keeps beside its store, under this client's token. Another SPARQL
        server has no such indexes (and no copy here could be kept current as other clients
        write): :class:`RemoteError` says so."""
        from ..recall import Hit, Hits

        params = [("q", query), ("k", str(k))]
        params += [(name, value) for name, value in (
            ("tenant", tenant.value if isinstance(tenant, NamedNode) else tenant),
            ("valid_at", valid_at.isoformat() if valid_at else None),
            ("known_at", known_at.isoformat() if known_at else None)) if value is not None]
        url = recall_url(self.client.endpoint) + "?" + urllib.parse.urlencode(params)
        try:
            body, _ = self.client.get(url, accept="application/json")
        except RemoteError as err:
            if err.status in (404, 405):
                raise RemoteError(
                    f"{self.client.endpoint} answers no recall ({err}): recall needs memkg's text and vector "
                    f"indexes, which only `memkg serve` keeps beside its store; serve the store with memkg "
                    f"serve, or recall where the store is (--store)", status=err.status) from None
            raise
        found = json.loads(body)
        return Hits((Hit.from_dict(h) for h in found["hits"]), query=query, matched=bool(found.get("matched", True)))


def is_memkg_server(client: SparqlClient) -> bool:
    """Whether the server that last answered ``client`` is a ``memkg serve``."""
    return (client.server or "").startswith("memkg")


def wait_until_up(url: str, *, seconds: float = 30.0) -> float:
    """Poll ``url`` with an ``ASK {}`` until it answers; returns the seconds waited.
    Raises :class:`RemoteError` when it does not answer in time (for scripts and tests)."""
    client = SparqlClient(url, timeout=2.0)
    start = time.monotonic()
    while True:
        try:
            client.query("ASK {}", accept="application/sparql-results+json, application/sparql-results+xml")
            return time.monotonic() - start
        except RemoteError as err:
            if time.monotonic() - start > seconds:
                raise RemoteError(f"{url}: no answer after {seconds:.0f} s ({err})") from None
            time.sleep(0.1)


def token_from_env(explicit: str | None) -> str | None:
    """The bearer token: the one given, else ``$MEMKG_TOKEN``."""
    return explicit or os.environ.get("MEMKG_TOKEN") or None
