"""The memory store: an Oxigraph store on disk (or in memory) that memkg writes atomically.

Every write goes through the store's commit path (:mod:`memkg.store.commit`): the quads are
completed with their index triples (:mod:`memkg.store.claim_index`), judged by the
plugged-in judge (memkg's validator) and committed in one step, the followers (the recall
and support indexes) told before and brought up to it after (:mod:`memkg.store.plugins`).
Nothing reaches the store half-done. Loads (:mod:`memkg.store.loads`) and remembered items
(:mod:`memkg.store.items`) take the same path.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Unpack

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    Quad,
    QueryBoolean,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    Triple,
    Variable,
)

from ..core import names
from ..core import prefixes as prefix_names
from ..core.errors import ParseError
from ..core.hits import Hits
from ..core.model import Claim, Item, Supersession
from ..core.terms import Graph, Term
from ..core.vocab import ONTOLOGY_GRAPH
from ..guard.access import dataset_for
from ..guard.limits import Limits
from . import claim_index, exports, loads, scope, views
from . import items as item_writes
from .backends.base import Backend, Capabilities, QuadStore
from .backends.embedded import EmbeddedBackend
from .clock import Clock
from .commit import CommitPath
from .plugins import RECALL, F, Follower, FollowerKind, Judge, NotPluggedIn, plugged_in
from .report import LoadReport, Progress
from .stats import StoreStats, count_store

if TYPE_CHECKING:
    from .backends.sparql import ServerOptions

class MemoryStore:
    """An agent's memory in an Oxigraph store: atomic, validated, indexed writes.

    ``path`` is a directory holding a store; with ``create`` (the default) a folder that
    does not exist yet or is empty gets a new one, and any other folder is refused
    (:class:`~memkg.core.errors.NotAStoreError`, nothing written). ``None`` keeps everything
    in memory, for tests and scratch work. Every write is validated against
    memkg's invariants by the ``validation`` engine (``"native"`` or
    ``"pyshacl"``) and refused whole if it breaks one.

    >>> store = MemoryStore()
    >>> store.load_data('<urn:ex:a> <urn:ex:p> "1" .', format="ntriples").parsed
    1
    >>> [str(row["o"]) for row in store.query("SELECT ?o WHERE { <urn:ex:a> ?p ?o }")]
    ['"1"']

    Raises :class:`~memkg.core.errors.StoreLockedError` when another process has the
    directory open for writing.

    The quads live in a ``backend`` (:mod:`memkg.store.backends`): by default the embedded
    Oxigraph store at ``path``; :meth:`connect` opens a SPARQL server instead. The store
    asks the backend's :attr:`capabilities`, never its type.

    ``followers``: kinds of index to keep with every write, for this store only
    (:class:`memkg.store.plugins.FollowerKind`), beside those plugged in for every store; a kind
    replaces the one plugged in under its name. A feature's options go to its kind:
    ``MemoryStore(path, followers=[recall_index(embedder=…)])`` recalls with another embedder
    (:func:`memkg.recall.recall_index`), ``MemoryStore(path, followers=[SUPPORT_INDEX])`` keeps
    the support links in memory (:mod:`memkg.provenance.support_index`).
    """

    _prefixes: dict[str, str] | None = None

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        backend: Backend | None = None,
        read_only: bool = False,
        clock: Clock | None = None,
        validation: str | None = "native",
        followers: Sequence[FollowerKind[Follower]] = (),
        create: bool = True,
    ) -> None:
        if backend is not None and path is not None:
            raise ValueError("give a store path or a backend, not both")
        #: Where the quads live (:mod:`memkg.store.backends`).
        self.backend: Backend = (backend if backend is not None
                                 else EmbeddedBackend(path, read_only=read_only, create=create))
        self.path = self.backend.path
        self.read_only = read_only or self.backend.read_only
        self.clock = clock or Clock()
        plugins = plugged_in()
        judge = plugins.judge_for(validation) if validation is not None and not self.read_only else None
        self._commits = CommitPath(self.backend, judge=judge, plugins=plugins, read_only=self.read_only,
                                   followers=followers)

    @classmethod
    def connect(cls, endpoint: str, *, clock: Clock | None = None, validation: str | None = "native",
                **server: Unpack[ServerOptions]) -> MemoryStore:
        """The memory on a SPARQL server: a store over a :class:`memkg.store.backends.sparql.SparqlBackend`,
        ``server`` its options (``update_url``, ``dialect``, ``token``, ``timeout``, ``read_only``,
        ``view_evaluation``). Every method works as on the embedded store; nothing is asked of
        the server before the first read or write.

        >>> MemoryStore.connect("http://127.0.0.1:9/sparql", dialect="rdf12", read_only=True).capabilities.in_process
        False
        """
        from .backends.sparql import SparqlBackend  # here: an embedded store never loads the HTTP client

        return cls(backend=SparqlBackend(endpoint, **server), clock=clock, validation=validation)

    @property
    def validator(self) -> Judge | None:
        """Judges every write before it is committed (see :mod:`memkg.validation`); None writes
        unchecked, for scratch stores that collect invalid data on purpose."""
        return self._commits.judge

    @validator.setter
    def validator(self, judge: Judge | None) -> None:
        self._commits.judge = judge

    @property
    def capabilities(self) -> Capabilities:
        """What the backend can do (:class:`memkg.store.backends.base.Capabilities`)."""
        return self.backend.capabilities

    @property
    def prefixes(self) -> dict[str, str]:
        """memkg's prefixes plus those the files loaded here declared (see :mod:`memkg.core.prefixes`)."""
        if self._prefixes is None:
            self._prefixes = {**prefix_names.BUILT_IN, **self.backend.declared_prefixes()}
        return self._prefixes

    def read_iri(self, text: str | NamedNode, *, what: str = "",
                 graphs: Collection[NamedNode | DefaultGraph] | None = None) -> NamedNode:
        """The IRI ``text`` names, read as every surface reads names (:func:`memkg.core.names.read_iri`):
        ``prefix:name`` with this store's prefixes, ``<iri>``, a bare ``https://…`` or ``‹iri›``.
        A compact IRI naming nothing under its prefix's first namespace but a node held here under a
        namespace a load renamed (``ex2:``) is refused, naming both; only ``graphs`` are looked at
        when given (a caller's readable graphs: a refusal never tells of another tenant's nodes)."""
        return names.read_iri(text, self.prefixes, what=what, exists=partial(self.mentions, graphs=graphs))

    def read_term(self, text: str, *, what: str = "",
                  graphs: Collection[NamedNode | DefaultGraph] | None = None) -> NamedNode | Literal | Triple:
        """A term as written for a claim (an IRI as :meth:`read_iri` reads it, or a Turtle literal)."""
        return names.read_term(text, self.prefixes, what=what, exists=partial(self.mentions, graphs=graphs))

    def mentions(self, iri: str, *, graphs: Collection[NamedNode | DefaultGraph] | None = None) -> bool:
        """Whether any quad (of ``graphs``, else of any graph) holds ``iri`` as its subject, predicate
        or object (a claim's terms included, through the claim index)."""
        node = NamedNode(iri)
        raw = self.raw
        for graph in graphs if graphs is not None else [None]:
            for found in (raw.quads_for_pattern(node, None, None, graph), raw.quads_for_pattern(None, node, None, graph),
                          raw.quads_for_pattern(None, None, node, graph)):
                if next(iter(found), None) is not None:
                    return True
        return False

    def lock(self) -> threading.RLock:
        """The (reentrant) write lock: hold it to read, then write, atomically."""
        return self._commits.lock()

    # -- plug-ins: the indexes derived from the data (memkg.store.plugins) ----------------

    def follower(self, kind: FollowerKind[F], *, create: bool = False) -> F | None:
        """This store's follower of ``kind`` (its own kind of that name, else the one plugged
        in): the one open, else the one the store keeps, else (with ``create``) a new one
        built from the data; None when there is none and none is wanted.

        >>> from memkg.recall import RECALL_INDEX
        >>> store = MemoryStore()
        >>> store.follower(RECALL_INDEX) is None, store.follower(RECALL_INDEX, create=True).built
        (True, True)
        """
        return self._commits.follower(kind, create=create)

    def recall(
        self,
        query: str,
        *,
        tenant: str | NamedNode | None = None,
        k: int = 10,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Hits:
        """The memory's nodes that answer ``query``, best first: :class:`~memkg.core.hits.Hits`, a
        list of :class:`~memkg.core.hits.Hit` whose ``matched`` is False when nothing in memory
        matched.

        Messages, claims, episodes and vertices, ranked by lexical, vector, entity, time
        and graph signals, each hit saying which (docs/contract.md section 7). ``tenant``
        keeps to one tenant's graph (plus the shared default graph); without it every graph
        is searched. Never returns a node the store does not hold. The recall plugged in
        answers (:func:`memkg.recall.recall`, which takes more options).
        """
        recaller = self.follower(RECALL, create=True)
        if recaller is None:
            raise NotPluggedIn("no recall is plugged in: import memkg")
        return recaller.recall(query, tenant=tenant, k=k, valid_at=valid_at, known_at=known_at)

    # -- reading ---------------------------------------------------------------------

    @property
    def raw(self) -> QuadStore:
        """The quads, for reads the API does not cover: the pyoxigraph Store of an embedded
        store, a :class:`~memkg.store.backends.sparql.ServerStore` for a server. Do not write to it."""
        return self.backend.store

    def __len__(self) -> int:
        return len(self.raw)

    def __contains__(self, quad: Quad) -> bool:
        return quad in self.raw

    def query(
        self,
        sparql: str,
        *,
        substitutions: dict[Variable, Term] | None = None,
        default_graph: NamedNode | BlankNode | DefaultGraph | list[NamedNode | BlankNode | DefaultGraph] | None = None,
        named_graphs: list[NamedNode | BlankNode] | None = None,
        use_default_graph_as_union: bool = False,
    ) -> QuerySolutions | QueryBoolean | QueryTriples:
        """Run a SPARQL 1.2 query; the store's prefixes (memkg's mem:, prov:, rdf:, … and those its
        files declared, such as ex:) are predeclared, so a name a table prints can be written back.

        The dataset arguments are ``Store.query``'s; :func:`memkg.guard.access.query_options`
        computes them for a request's grant. Raises :class:`~memkg.core.errors.ParseError` for a
        query that does not parse.

        :raises ~memkg.core.errors.ParseError: the query does not parse (its line and column named).
        """
        try:
            return self.raw.query(
                sparql,
                prefixes=self.prefixes,
                substitutions=substitutions,
                default_graph=default_graph,
                named_graphs=named_graphs,
                use_default_graph_as_union=use_default_graph_as_union,
            )
        except SyntaxError as err:
            raise ParseError.from_syntax_error(err, file="<query>", sparql=sparql) from None

    def quads(
        self,
        subject: NamedNode | BlankNode | Triple | None = None,
        predicate: NamedNode | None = None,
        object: Term | None = None,
        graph: NamedNode | DefaultGraph | None = None,
        *,
        with_index: bool = False,
    ) -> Iterator[Quad]:
        """The quads matching a pattern (None matches anything); index triples only if asked."""
        for q in self.raw.quads_for_pattern(subject, predicate, object, graph):
            if with_index or not claim_index.is_index_quad(q):
                yield q

    def named_graphs(self) -> list[NamedNode]:
        """The tenants' graphs (the ontology graph, memkg's own, left out)."""
        return exports.named_graphs(self.raw)

    def stats(self) -> StoreStats:
        """What the store holds, counted: its quads, its default graph's triples, and the nodes
        of each class in each named graph (:class:`memkg.store.stats.StoreStats`)."""
        return count_store(self.raw)

    def view(
        self, name: str, params: dict[str, str] | None = None
    ) -> QuerySolutions | QueryBoolean | QueryTriples:
        """Run the template ``queries/NAME.rq`` with its parameters given as text.

        >>> store = MemoryStore()
        >>> list(store.view("current"))
        []

        :raises ~memkg.core.errors.NotFoundError: no view has that name, or the ``tenant`` parameter names no graph.
        :raises ~memkg.core.errors.UnknownIRIError: an IRI parameter (``claim``, ``subject``, …) that
            no graph of the view's scope holds (:mod:`memkg.store.scope`): never an empty answer.
        :raises ValueError: a parameter is unknown, missing or not of its type.
        """
        bound = views.bind(views.get_view(name), dict(params or {}), prefixes=self.prefixes, exists=self.mentions)
        if bound.tenant is not None and not self.raw.contains_named_graph(bound.tenant):
            views.require_graph(bound.tenant, self.named_graphs())
        scope.require_all(self.raw, bound.iris, tenant=bound.tenant)  # an unknown IRI is an error, not no rows
        site = self.backend.view_site
        if site == "server":
            return self.backend.server_view(name, dict(params or {}))
        if site == "copy":
            graphs = None if bound.tenant is None else [bound.tenant, ONTOLOGY_GRAPH]
            return self.snapshot(graphs=graphs).view(name, params)
        return self.query(bound.text, **dataset_for(bound.tenant))

    def snapshot(self, *, with_index: bool = True, graphs: Sequence[NamedNode] | None = None) -> MemoryStore:
        """The memory copied into an in-memory store (unvalidated), for whole-store work such
        as export and validation on a server: every graph, or the shared graph plus ``graphs``.
        A server is read in one query."""
        return MemoryStore(backend=exports.copy(self.backend, with_index=with_index, graphs=graphs), validation=None)

    # -- writing ---------------------------------------------------------------------

    def write(self, quads: Iterable[Quad], *, source: str | None = None, visible: Collection[Graph] | None = None) -> int:
        """Write ``quads`` atomically, with their index triples, after validation.

        Returns how many quads were new. Raises
        :class:`~memkg.core.errors.ValidationError` (nothing written) when the
        validator refuses the write. ``visible``: judge it against these graphs only
        (a tenant's write, see :meth:`memkg.validation.WriteValidator.__call__`).

        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises PermissionError: the store is open read-only.
        """
        return self._commits.write(quads, source=source, visible=visible)

    def change(
        self, *, remove: Iterable[Quad] = (), add: Iterable[Quad] = (), source: str | None = None,
        visible: Collection[Graph] | None = None,
    ) -> int:
        """Remove and add quads in one atomic step; returns how many were removed.

        For erasure (consent revoked), the one deletion the contract allows, and
        for SPARQL Update (:mod:`memkg.history.updates`). Index triples follow the
        removed and added ``rdf:reifies`` quads (index quads given directly are
        ignored); the validator judges the state after the change, so a removal
        that leaves a claim pointing at an untyped vertex is refused like an
        addition that does. Quads with blank nodes keep their identity. ``visible``: as in :meth:`write`.

        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises PermissionError: the store is open read-only.
        """
        return self._commits.change(remove=remove, add=add, source=source, visible=visible)

    def add(self, item: Item, *, graph: str | NamedNode | DefaultGraph | None = None) -> NamedNode:
        """Remember one item (and the items nested in it) in one atomic write.

        Mints the item's IRI if it has none, stamps ``mem:recordedAt`` from the
        store clock, and returns the IRI. A message or occurrence whose
        ``event_id`` the graph already holds is a retry: nothing is written and
        the IRI already stored is returned.

        >>> from memkg.core.model import Message
        >>> store = MemoryStore()
        >>> first = store.add(Message(content="I prefer tea", event_id="chat-1"))
        >>> store.add(Message(content="I prefer tea", event_id="chat-1")) == first
        True

        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises ValueError: the item does not describe a valid memory (a field out of range, an unknown graph).
        :raises PermissionError: the store is open read-only.
        """
        return item_writes.add_all(self, [item], graph)[0]

    def add_all(
        self, items: Sequence[Item], *, graph: str | NamedNode | DefaultGraph | None = None
    ) -> list[NamedNode]:
        """Remember several items in one atomic write; returns their IRIs in order.

        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises PermissionError: the store is open read-only.
        """
        return item_writes.add_all(self, items, graph)

    def supersede(
        self, old: str | NamedNode, new: Claim, *, graph: str | NamedNode | DefaultGraph | None = None,
        by: str | NamedNode | None = None, interface: str = "api",
    ) -> Supersession:
        """Record ``new`` as the next version of claim ``old``: nothing is overwritten; the new
        claim carries ``mem:supersedes old``. Returns what was recorded, a
        :class:`~memkg.core.model.Supersession`: a ``"change"`` in the world (``new`` has
        another valid-from time) or a ``"correction"`` (the same valid time, recorded later).

        A claim's versions form a chain: a version already superseded is refused
        (:class:`~memkg.core.errors.ValidationError`, invariant 12), naming the chain's current
        version, the one to supersede. The new version states its own source and inherits
        none (build it with :func:`~memkg.core.model.revision`); without one, the change is
        recorded as a :class:`~memkg.core.model.Correction` made by ``by`` (default: memkg's
        ``interface``, as a software agent) through ``interface`` (``"api"``, ``"cli"``,
        ``"mcp"`` or ``"endpoint"``). A new version that would state what ``old`` states,
        from no other source, writes nothing (``kind`` ``"unchanged"``). Without ``graph``, the new
        version goes where ``old`` is (:func:`memkg.store.scope.locate`).

        :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds ``old``.
        :raises ~memkg.core.errors.AmbiguousIRIError: without ``graph``, several tenants' graphs hold ``old``.
        :raises ~memkg.core.errors.NotFoundError: ``old`` names no claim (in ``graph``, when given).
        :raises ~memkg.core.errors.ValidationError: ``old`` is already superseded, or the judge
            refuses the write (nothing is written).
        :raises PermissionError: the store is open read-only.

        >>> from memkg.core.model import Message, revision
        >>> store = MemoryStore(validation=None)
        >>> m = store.add(Message(content="I drink tea"))
        >>> c0 = store.add(Claim(subject="https://example.org/lia", predicate="https://example.org/drinks",
        ...                      object="tea", asserted_by=m))
        >>> old, _ = store.get_claim(c0)
        >>> store.supersede(c0, revision(old)).written
        False
        >>> store.supersede(c0, revision(old, object="coffee")).kind
        'correction'
        >>> store.supersede(c0, revision(old, object="water"))
        Traceback (most recent call last):
          ...
        memkg.core.errors.ValidationError: ...
        """
        return item_writes.supersede(self, old, new, graph, by=by, interface=interface)

    def get_claim(self, claim: str | NamedNode, *,
                  graph: str | NamedNode | DefaultGraph | None = None) -> tuple[Claim, Graph]:
        """Read a claim back as a :class:`~memkg.core.model.Claim`, with the graph it lives in.

        Without ``graph``, the graph is the tenant's whose graph holds the claim, or the shared
        graph when only it does (:func:`memkg.store.scope.locate`).

        :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI.
        :raises ~memkg.core.errors.AmbiguousIRIError: without ``graph``, several tenants' graphs hold it.
        :raises ~memkg.core.errors.NotFoundError: the IRI is no claim (in ``graph``, when given).
        """
        return item_writes.get_claim(self, claim, graph)

    def retract(
        self,
        *targets: str | NamedNode,
        reason: str | None = None,
        graph: str | NamedNode | None = None,
    ) -> NamedNode:
        """Withdraw claims (or sources) from current knowledge, without a successor.
        Returns the IRI of the recorded ``mem:Retraction``. Without ``graph``, the
        retraction goes where the targets are (as :meth:`get_claim` finds a claim's graph).

        :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds a target.
        :raises ~memkg.core.errors.AmbiguousIRIError: without ``graph``, the targets are in several tenants' graphs.
        :raises ~memkg.core.errors.NotFoundError: a target names nothing in ``graph``.
        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises PermissionError: the store is open read-only.
        """
        return item_writes.retract(self, targets, reason, graph)

    def load(
        self,
        *paths: str | os.PathLike[str],
        graph: str | NamedNode | None = None,
        format: str | RdfFormat | None = None,
        base_iri: str | None = None,
        progress: Progress | None = None,
        strict_literals: bool = False,
        limits: Limits | None = None,
    ) -> LoadReport:
        """Load RDF 1.2 files (Turtle, TriG, N-Triples, N-Quads) in one atomic write.

        ``graph`` receives the triples each file puts in its default graph (named
        graphs in TriG/N-Quads stay where they are). Every file is parsed and the
        whole batch validated before anything is written: a
        :class:`~memkg.core.errors.ParseError` (with file, line and column) or a
        :class:`~memkg.core.errors.ValidationError` leaves the store as it was, and so
        does a :class:`~memkg.guard.limits.LimitExceeded` (nesting, literal size; ``limits``).
        Loading the same files again adds nothing (blank nodes excepted: each
        load mints new ones, which is why reifiers should be IRIs).

        The store keeps typed literals in canonical form (``"01"^^xsd:integer`` as
        ``"1"``): ``report.rewrites`` counts the literals stored otherwise than written
        and names the first ones with file and line; with ``strict_literals`` such a
        load raises :class:`~memkg.store.literals.RewrittenLiteralsError` and writes nothing.

        :raises ~memkg.core.errors.ParseError: a file does not parse (file, line and column named).
        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises ~memkg.guard.limits.LimitExceeded: a file breaks a limit of ``limits``.
        :raises ~memkg.store.literals.RewrittenLiteralsError: ``strict_literals`` is set and a literal would be stored otherwise than written.
        :raises FileNotFoundError: a file does not exist.
        :raises ~memkg.core.errors.UnknownFormatError: a file's format cannot be told from its name and ``format`` is not given.
        :raises PermissionError: the store is open read-only.
        """
        return loads.load_files(self._commits, paths, declare=self._remember_prefixes, graph=graph, format=format,
                                base_iri=base_iri, progress=progress, strict_literals=strict_literals, limits=limits)

    def _remember_prefixes(self, declared: Sequence[tuple[str, str]]) -> list[prefix_names.Renamed]:
        return prefix_names.remember(self.path, declared, self.prefixes)

    def load_data(
        self,
        data: str | bytes,
        *,
        format: str | RdfFormat,
        graph: str | NamedNode | None = None,
        base_iri: str | None = None,
        strict_literals: bool = False,
    ) -> LoadReport:
        """Load RDF given as text rather than a file; same guarantees as :meth:`load`.

        :raises ~memkg.core.errors.ParseError: the text does not parse (line and column named).
        :raises ~memkg.core.errors.ValidationError: the judge refuses the write (nothing is written).
        :raises PermissionError: the store is open read-only.
        """
        return loads.load_text(self._commits, data, format=format, graph=graph, base_iri=base_iri,
                               strict_literals=strict_literals)

    # -- export and maintenance --------------------------------------------------------

    def export(
        self,
        output: str | os.PathLike[str] | IO[bytes] | None = None,
        *,
        format: str | RdfFormat = "trig",
        graph: str | NamedNode | None = None,
        with_index: bool = False,
        with_ontology: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> bytes | None:
        """Serialize the store (or one ``graph``); returns bytes when ``output`` is None.

        Index triples and the ontology graph stay out unless asked for. Turtle and N-Triples hold one
        graph: name it with ``graph`` when the store has named graphs. Turtle and TriG declare the
        store's prefixes (memkg's and those its files declared), so the file is as compact as the
        one loaded. ``progress`` is told how many quads are written so far, every 100,000 and at
        the end.

        :raises ValueError: Turtle or N-Triples is asked for a store with named graphs and no ``graph`` is named.
        :raises ~memkg.core.errors.UnknownFormatError: ``format`` names no RDF format.
        """
        return exports.export(self.backend, output, format=format, graph=graph, with_index=with_index,
                              with_ontology=with_ontology, prefixes=self.prefixes, progress=progress)

    def check_index(self) -> claim_index.IndexReport:
        """Prove the claim index matches the data (see :func:`memkg.store.claim_index.check`)."""
        return claim_index.check(self.backend.local_store())

    def rebuild_index(self) -> None:
        """Derive the claim index again from the data, atomically.

        :raises PermissionError: the store is open read-only.
        """
        self._commits.check_writable()
        with self.lock():
            self.backend.rebuild_index()

    def compact(self) -> None:
        """Compact the store on disk: reads get faster after large loads, at a cost that
        follows the store's size, not the last write's (a large first load is compacted
        by :meth:`load` itself; a load smaller than the store it joins is not)."""
        self._commits.compact()

    def flush(self) -> None:
        self._commits.flush()

    def close(self) -> None:
        """Flush and release the store (the directory can then be opened elsewhere)."""
        self._commits.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

