"""The server seen as a pyoxigraph-like Store: the reads memkg makes, as few requests."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Collection, Iterable, Iterator, Sequence
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
    serialize,
)

from ....core import sparql as sparql_lexer
from ....core.terms import Term, sparql_data_term
from ....core.vocab import ONTOLOGY_GRAPH, RDF_TYPE, memx
from ... import claim_index, ontology
from .. import rdf11
from ...views import rows_as_solutions
from .client import (
    DIALECTS,
    FIRST_PAGE,
    GRAPH_CLASS,
    PROLOGUE,
    REGISTRY_GRAPH,
    SHARED_GRAPH,
    RemoteError,
    RemoteUnsupported,
    SparqlClient,
    is_memkg_server,
    route_url,
)


class ServerStore:
    """The server seen as a :class:`~memkg.store.backends.base.QuadStore` (the part of pyoxigraph's
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
        #: how the last write reached the server, for a load's report
        self.written_by = ""

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
            if not self._native_default:  # a memkg server keeps its ontology graph itself
                ontology.install(self)
        return self._native_default

    def graphs(self) -> list[NamedNode]:
        """memkg's named graphs on the server (tenants and the ontology), from the registry."""
        if self._graphs is None and self.native_default:
            rows = self._select("SELECT DISTINCT ?g WHERE { GRAPH ?g { } }", dataset=[])
            self._graphs = sorted({row["g"] for row in rows if isinstance(row["g"], NamedNode)}
                                  | {ONTOLOGY_GRAPH}, key=str)
        if self._graphs is None:
            rows = self._select(
                f"SELECT DISTINCT ?g WHERE {{ GRAPH {REGISTRY_GRAPH} {{ ?g a {GRAPH_CLASS} }} }}", dataset=[]
            )
            found = {row["g"] for row in rows if isinstance(row["g"], NamedNode)}
            self._graphs = sorted(found | {ONTOLOGY_GRAPH}, key=str)
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
        return rows_as_solutions(names, decoded)

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

        first = self._select(text + f" LIMIT {FIRST_PAGE}", dataset)
        seen = set()
        for q in as_quads(first):
            seen.add(q)
            yield q
        if len(first) == FIRST_PAGE:  # quads are a set: read everything, skip what was given
            for q in as_quads(self._select(text, dataset)):
                if q not in seen:
                    yield q

    def _encode_term(self, term: Term) -> str:
        if isinstance(term, Triple):
            if self.dialect == "rdf11":
                return str(rdf11.term_iri(rdf11.normalise([term])[0]))
            return sparql_data_term(term)
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

        A memkg server keeps its claim index itself, as every write it commits adds and
        removes the index triples of the ``rdf:reifies`` triples it changes, and refuses index
        triples from clients: they are left out, and the server derives the same ones. On
        any other server this client is the one that keeps them, so they are sent.
        """
        delete, insert = list(delete), list(insert)
        if self.native_default:
            delete = [q for q in delete if not claim_index.is_index_quad(q)]
            insert = [q for q in insert if not claim_index.is_index_quad(q)]
        if self.dialect == "rdf11":
            delete = [q for q in rdf11.encode_quads(delete) if not rdf11.is_encoded(q.subject)]
            insert = rdf11.encode_quads(insert)
        graphs = {q.graph_name for q in insert if isinstance(q.graph_name, NamedNode)}
        registry = [] if self.native_default else [
            Quad(g, RDF_TYPE, GRAPH_CLASS, REGISTRY_GRAPH) for g in sorted(graphs, key=str)
        ]
        operations = []
        if delete:
            operations.append(f"DELETE DATA {{ {self._data_block(delete)} }}")
        if insert:
            operations.append(f"INSERT DATA {{ {self._data_block(insert + registry)} }}")
        if operations:
            self._send(" ;\n".join(operations), delete, insert + registry)
        if graphs - set(self.graphs()):
            self.forget_graphs()

    def bulk_insert(self, quads: Iterable[Quad]) -> None:
        """Add quads by the server's Graph Store Protocol, the way its own bulk loads go: the
        whole dataset as N-Quads to ``/store`` (Oxigraph), or each graph as N-Triples to
        ``/sparql-graph-crud`` (Virtuoso, rdf11), :data:`BULK_PART` quads a request. A server without it (a refusal: 404, 405, 415)
        gets updates (:meth:`apply`); :attr:`written_by` says which way the quads went.
        Not atomic: a failure midway leaves the graphs sent so far."""
        given = list(quads)
        if self.native_default:  # a memkg server judges and indexes what it is sent: through /update
            return self.apply(insert=given)
        insert = rdf11.encode_quads(given) if self.dialect == "rdf11" else list(given)
        graphs = {q.graph_name for q in insert if isinstance(q.graph_name, NamedNode)}
        insert += [Quad(g, RDF_TYPE, GRAPH_CLASS, REGISTRY_GRAPH) for g in sorted(graphs, key=str)]
        on_server = [Quad(q.subject, q.predicate, q.object, self._server_graph(q.graph_name)) for q in insert]
        parts = 0
        try:
            if self.dialect == "rdf11":
                by_graph: dict[NamedNode, list[Quad]] = {}
                for q in on_server:
                    assert isinstance(q.graph_name, NamedNode)  # every memkg graph is named on such a server
                    by_graph.setdefault(q.graph_name, []).append(q)
                url = route_url(self.client.endpoint, "sparql-graph-crud")
                for g, held in by_graph.items():
                    target = f"{url}?{urllib.parse.urlencode({'graph-uri': g.value})}"
                    for start in range(0, len(held), BULK_PART):
                        triples = [q.triple for q in held[start:start + BULK_PART]]
                        self.client.post(target, serialize(triples, format=RdfFormat.N_TRIPLES) or b"", "text/turtle")
                        parts += 1
            else:
                url = route_url(self.client.endpoint, "store")
                for start in range(0, len(on_server), BULK_PART):
                    quads_part = on_server[start:start + BULK_PART]
                    self.client.post(url, serialize(quads_part, format=RdfFormat.N_QUADS) or b"", "application/n-quads")
                    parts += 1
            self.written_by = f"the Graph Store Protocol ({url}, {parts} requests)"
        except RemoteError as err:
            if err.status not in (404, 405, 415):
                raise
            self.apply(insert=given)
        self.forget_graphs()

    def _send(self, text: str, delete: list[Quad], insert: list[Quad]) -> None:
        """One update request; or, when the server refuses a body this large (its limit then
        learned, :attr:`SparqlClient.body_limit`), the deletions and then the insertions in parts
        under the limit (:attr:`written_by` says so: the write is then no longer atomic)."""
        size = len(text.encode("utf-8"))
        limit = self.client.body_limit
        if limit is None or size <= limit:
            try:
                self.client.update(text)
                self.written_by = "one update"
                return
            except RemoteError as err:
                if not self._learn_limit(err, size):
                    raise
        parts = self._send_cut("DELETE", delete) + self._send_cut("INSERT", insert)
        self.written_by = f"{parts} updates (the server takes at most {self.client.body_limit:,} bytes a request)"

    def _send_cut(self, operation: str, quads: list[Quad]) -> int:
        """``quads`` in ``operation DATA`` requests under the server's limit, halved again at each
        refusal for size; how many requests took them."""
        if not quads:
            return 0
        text = f"{operation} DATA {{ {self._data_block(quads)} }}"
        size = len(text.encode("utf-8"))
        limit = self.client.body_limit
        if len(quads) == 1 or limit is None or size <= limit:
            try:
                self.client.update(text)
                return 1
            except RemoteError as err:
                if len(quads) == 1 or not self._learn_limit(err, size):
                    raise
        half = len(quads) // 2
        return self._send_cut(operation, quads[:half]) + self._send_cut(operation, quads[half:])

    def _learn_limit(self, err: RemoteError, size: int) -> bool:
        """Whether ``err`` refused ``size`` bytes for their size; if so the limit it tells is kept."""
        learned = _size_limit(err, size)
        if learned is None:
            return False
        known = self.client.body_limit
        self.client.body_limit = learned if known is None else min(known, learned)
        return True

    def _data_block(self, quads: Sequence[Quad]) -> str:
        by_graph: dict[NamedNode | DefaultGraph, list[str]] = {}
        for q in quads:
            g = self._server_graph(q.graph_name)
            by_graph.setdefault(g, []).append(f"{sparql_data_term(q.subject)} {q.predicate} {sparql_data_term(q.object)} .")
        return "\n".join(
            "\n".join(lines) if isinstance(g, DefaultGraph) else f"GRAPH {g} {{\n" + "\n".join(lines) + "\n}"
            for g, lines in by_graph.items()
        )

    def update(self, text: str) -> None:
        """Send an update as written (memkg's own maintenance updates name their graphs)."""
        if self.dialect == "rdf11" and "<<(" in text:
            raise RemoteUnsupported("an update with triple terms cannot be sent as text to an rdf11 server")
        self.client.update(PROLOGUE + text)
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


    def around(self, seeds: Iterable[NamedNode], graphs: Sequence[NamedNode], *,
               backward: Collection[NamedNode], first_backward: Collection[NamedNode] = (),
               follow: Collection[NamedNode]) -> list[Quad]:
        """The quads around ``seeds`` in the shared graph and ``graphs``, decoded: every quad of
        each node reached (its own), the quads that point at it by a ``backward`` predicate (and,
        from the seeds only, by a ``first_backward`` one), and so on from the nodes reached along
        ``follow`` (forwards) and ``backward`` links, until no new node is reached; and every
        ``rdfs:subClassOf`` of those graphs but the ontology graph (the ontology is memkg's).
        Blank nodes are read through the node that names them (one level: a support group
        written ``[ … ]``).

        A view evaluated over them answers as over the whole dataset when its template reads no
        further than that (see :mod:`memkg.store.views`). One request per level of links, each
        naming at most :data:`AROUND_CHUNK` nodes.
        """
        dataset = self._pattern_dataset([DefaultGraph(), *graphs])
        follow = set(follow)
        found: dict[Quad, None] = {}
        seen: set[NamedNode] = set()
        frontier = list(dict.fromkeys(seeds))
        incoming = sorted({*backward, *first_backward}, key=str)
        schema = _SUBCLASSES.format(ontology=ONTOLOGY_GRAPH)
        while frontier:
            seen.update(frontier)
            reached: list[NamedNode] = []
            back = " ".join(str(p) for p in incoming)
            for start in range(0, len(frontier), AROUND_CHUNK):
                nodes = " ".join(str(n) for n in frontier[start:start + AROUND_CHUNK])
                branches = [_OWN % nodes, _BLANK_OWN % nodes, _POINTING % (nodes, back), *([schema] if schema else [])]
                schema = ""
                for row in self._select(_AROUND % " UNION ".join(branches), dataset, decode=False):
                    found[self._quad_of(row)] = None
                    s, p, o = row["s"], row["p"], row["o"]
                    if p in follow and isinstance(o, NamedNode):
                        reached.append(o)
                    if p in incoming and isinstance(s, NamedNode):
                        reached.append(s)
            incoming = sorted(set(backward), key=str)
            frontier = [n for n in dict.fromkeys(reached) if n not in seen and not rdf11.is_encoded(n)]
        quads = list(found)
        if self.dialect == "rdf11":
            quads = list(rdf11.decode_quads(quads, self.decoder))
        return quads

    def claims(self, graphs: Sequence[NamedNode]) -> list[NamedNode]:
        """Every claim (a node with a claim-index triple) of the shared graph and ``graphs``."""
        rows = self._select(_CLAIMS, self._pattern_dataset([DefaultGraph(), *graphs]), decode=False)
        return sorted({row["c"] for row in rows if isinstance(row["c"], NamedNode)}, key=str)


_CLAIMS = f"SELECT DISTINCT ?c WHERE {{ GRAPH ?g {{ ?c {memx.subject} ?x }} }}"
#: :meth:`ServerStore.around`: in one query, the quads of some nodes, of the blank nodes they
#: name, the quads pointing at them by some predicates, and (once) the data's subclasses.
AROUND_CHUNK = 500
_AROUND = "SELECT ?s ?p ?o ?g WHERE { %s }"
_OWN = "{ VALUES ?s { %s } GRAPH ?g { ?s ?p ?o } }"
_BLANK_OWN = "{ VALUES ?x { %s } GRAPH ?g { ?x ?via ?s FILTER(isBLANK(?s)) ?s ?p ?o } }"
_POINTING = "{ VALUES ?o { %s } VALUES ?p { %s } GRAPH ?g { ?s ?p ?o } }"
_SUBCLASSES = ("{{ VALUES ?p {{ <http://www.w3.org/2000/01/rdf-schema#subClassOf> }} GRAPH ?g {{ ?s ?p ?o }} "
               "FILTER(?g != {ontology}) }}")


#: Quads per Graph Store Protocol request of a bulk insert (~10 MB of N-Quads: under Virtuoso's
#: limits, and answered within the client's timeout on a busy server).
BULK_PART = 50_000
#: How servers word a refusal of a body past their limit: Oxigraph's ("limited to N bytes",
#: 128 MiB) and Virtuoso's (about 10 MB: SR578 "string concatenation is too large", or HT057
#: "the STRING session … is long", as the body is read; and "memory exhausted" from its
#: SPARQL parser, past about 5,000 triples in one block).
_LIMITED_TO = re.compile(r"limited to (\d+) bytes")
_TOO_LARGE = ("SR578", "HT057", "memory exhausted", "too large", "Payload Too Large")


def _size_limit(err: RemoteError, size: int) -> int | None:
    """The most a server takes in one request, learned from its refusal of ``size`` bytes (None:
    not a refusal for size). A server that says it is taken with some room; one that does not,
    half what it refused."""
    said = f"{err} {err.detail}"
    stated = _LIMITED_TO.search(said)
    if stated:
        return int(stated.group(1)) * 9 // 10
    if err.status == 413 or any(word in said for word in _TOO_LARGE):
        return size // 2
    return None


def _names_dataset(sparql: str) -> bool:
    """Whether the query text has its own FROM / FROM NAMED clause."""
    return any(t.is_word("FROM") for t in sparql_lexer.tokenize(sparql, source="<query>"))


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
