"""Validating a write: the write plus the part of the store it needs, judged in a scratch store."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    Quad,
    QuerySolutions,
    Store,
    Triple,
)
from pyoxigraph import Literal as OxLiteral

from ..core.errors import MemkgError, Violation
from ..core.terms import GraphName, Subject, Term
from ..core.vocab import MEMX, ONTOLOGY_GRAPH, SH, mem, prov, rdf, rdfs, sh
from ..store.ontology import ontology_quads
from .shapes import ValidationEngine, builtin_shapes, make_engine, validate_graphs

if TYPE_CHECKING:
    from ..store import MemoryStore
    from ..store.backends.base import QuadStore
    from ..store.plugins import Host

# -- validation of writes ------------------------------------------------------------

class WriteTimeout(MemkgError, TimeoutError):
    """A write's validation ran past its :func:`time_limit` and was stopped; nothing was written."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the write's validation exceeded the time limit of {seconds:g} s and was stopped; "
                         "nothing was written")
        self.seconds = seconds


_time_limit: ContextVar[tuple[float, float] | None] = ContextVar("memkg_write_time_limit", default=None)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Writes validated inside this block (in this thread) stop with :class:`WriteTimeout` once
    ``seconds`` have passed since it began, checked between validation queries; None: no limit.
    Validation comes before the commit, so a stopped write has written nothing. The endpoint
    holds its writes to ``--timeout`` so: one slow write never holds other tenants' writes
    past it.

    >>> from memkg import MemoryStore, Vertex, mem
    >>> store = MemoryStore()
    >>> with time_limit(0):
    ...     store.add(Vertex(id="https://example.org/lia", cls=mem.Person))
    Traceback (most recent call last):
    memkg.validation.writes.WriteTimeout: the write's validation exceeded the time limit of 0 s and was stopped; nothing was written
    >>> [q for q in store.quads() if q.subject.value == "https://example.org/lia"]
    []
    """
    token = _time_limit.set(None if seconds is None else (time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _time_limit.reset(token)


def _within_time_limit(_step: str = "") -> None:
    limit = _time_limit.get()
    if limit is not None and time.monotonic() >= limit[0]:
        raise WriteTimeout(limit[1])


class WriteValidator:
    """Checks a write before it is committed: refuses it whole if it breaks an invariant.

    The store's judge (:class:`memkg.store.plugins.Judge`), installed on a
    :class:`~memkg.store.MemoryStore` as its ``validator``.
    """

    #: It takes a write as any iterable, and holds none of a first load (into a store
    #: with no data) in Python: the store streams inputs too big for a list (memkg.store).
    streams = True

    def __init__(self, engine: str = "native") -> None:
        self.engine_name = engine
        self._engine: ValidationEngine | None = None

    @property
    def engine(self) -> ValidationEngine:
        if self._engine is None:
            self._engine = make_engine(self.engine_name, builtin_shapes())
        return self._engine

    def __call__(
        self, store: Host, batch: Iterable[Quad], *, removed: Sequence[Quad] = (),
        visible: Collection[GraphName] | None = None,
    ) -> list[Violation]:
        """The violations the store would have after adding ``batch`` and removing ``removed``.

        ``visible``: judge the write as if the store held only these graphs (the ontology
        always stays). A tenant's write is judged so, against what it can read: whether it
        is refused then never depends on another tenant's data (no one-bit oracle), and
        tenant isolation (invariant 7) across tenants is left to ``memkg validate`` and to
        writes made without a token.
        """
        _within_time_limit()
        scratch, focus, graphs = self.stage(store.raw, batch, removed=removed, in_process=store.capabilities.in_process)
        _within_time_limit()
        if visible is not None:
            seen = {*visible, ONTOLOGY_GRAPH, DefaultGraph()}
            for g in list(scratch.named_graphs()):
                if g not in seen:
                    scratch.remove_graph(g)
            graphs = [g for g in graphs if g in seen] or [DefaultGraph()]
        return _violations(self.judge(scratch, focus, graphs))

    def first_load_judge(self) -> FirstLoadValidator:
        """What judges a first load for this validator (:class:`memkg.store.plugins.FirstLoadJudge`):
        it needs no context from the store (see :meth:`stage`), so another process judges it."""
        return FirstLoadValidator(self.engine_name)

    def judge_first_load(self, scratch: Store, *, progress: Callable[[str], None] | None = None) -> list[Violation]:
        """The violations of a first load (into a store with no data), held alone in ``scratch``.

        Such a write needs no context from the store (see :meth:`stage`): ``scratch``
        gets the ontology and is validated whole, in place, graph by graph (each told to
        ``progress``). :meth:`memkg.store.MemoryStore.load` fills it while it writes the
        same files to the store (:mod:`memkg.loading.first_load`).
        """
        graphs: list[GraphName] = [g for g in scratch.named_graphs() if isinstance(g, NamedNode) and g != ONTOLOGY_GRAPH]
        if next(iter(scratch.quads_for_pattern(None, None, None, DefaultGraph())), None) is not None:
            graphs.append(DefaultGraph())
        scratch.extend(_ontology_quads())
        graphs = sorted(graphs, key=str) or [DefaultGraph()]
        return _violations(validate_graphs(self.engine, scratch, graphs, None, progress=progress))

    def judge(self, scratch: Store, focus: list[Term] | None, graphs: list[GraphName]) -> list[Violation]:
        """The results for the focus nodes of a staged write (see :meth:`stage`).

        Many focus nodes are judged by validating the whole scratch store and keeping
        theirs, when it holds little but the write and its context: set-at-a-time
        queries then beat node-by-node ones (a 5k-claim load into a 20k-claim store:
        9.0 s node by node, 1.4 s so). Measured there, a node costs ~0.3 ms node by
        node and a quad of the scratch store ~4 µs in a scan, hence the ratio.
        """
        scan = (
            focus is not None
            and len(focus) > SCAN_FOCUS_LIMIT
            and len(scratch) < SCAN_QUADS_PER_FOCUS_NODE * len(focus)
        )
        timed = _within_time_limit if _time_limit.get() is not None else None  # told before every query
        return validate_graphs(self.engine, scratch, graphs, focus, scan=scan, progress=timed)

    def stage(
        self, main: QuadStore, batch: Iterable[Quad], *, removed: Sequence[Quad] = (), in_process: bool = True,
    ) -> tuple[Store, list[Term] | None, list[GraphName]]:
        """A scratch store holding the write and the context needed to judge it.

        Returns the store, the focus nodes (None: validate everything in it, when
        no context had to be copied) and the graphs to validate. ``removed``
        quads are taken out of the scratch store after the context is copied;
        their subjects, and whatever refers to a node that loses a type, are
        judged too (see :func:`_touched_by_removal`). ``in_process``: whether ``main`` answers
        lookups in this process (:class:`memkg.store.backends.base.Capabilities`); else each lookup is
        a request, and they are batched into queries.
        """
        # On a server, asking whether it holds data costs a request, and the general path is exact.
        if not removed and in_process and holds_no_data(main):
            # Nothing to read context from (a first load): the write is the whole data.
            # Skipping the look-ups saves ~6 s of a 100k-claim load (bench_load.py).
            scratch = Store()
            noted: set[GraphName] = set()
            scratch.extend(_noting_graphs(batch, noted))  # streamed: an iterator is never listed
            scratch.extend(_ontology_quads())
            noted.discard(ONTOLOGY_GRAPH)
            return scratch, None, sorted(noted, key=str) or [DefaultGraph()]
        batch = batch if isinstance(batch, Sequence) else list(batch)
        touched, touched_graphs = _touched_by_removal(main, removed)
        groups, group_graphs = _groups_above(main, batch)
        touched += [g for g in groups if g not in touched]
        touched_graphs |= group_graphs
        # Invariant 12 is judged at the version superseded, by its successors (which _referrers
        # copies): the write need not describe it.
        touched += [q.object for q in batch if q.predicate == mem.supersedes and isinstance(q.object, NamedNode)
                    and q.graph_name != ONTOLOGY_GRAPH and q.object not in touched]
        # Invariant 9 for every node judged, not only the event ids the write names: a node the
        # write describes (a focus node, typed by the write or not), or that a removal touched,
        # meets the other holders of its event id too.
        judged_nodes = dict.fromkeys([*(q.subject for q in batch), *touched])
        judged = [n for n in judged_nodes if isinstance(n, NamedNode)]
        if in_process:
            judged_ids = [q for n in judged for q in main.quads_for_pattern(n, mem.eventId, None, None)
                          if q.graph_name != ONTOLOGY_GRAPH]
            holders, holder_graphs = _event_id_holders(main, [*batch, *judged_ids])
        else:  # on a server, a few queries instead of a request per node and per event id
            judged_ids = _in_every_graph(main, "s", judged, mem.eventId)
            holders, holder_graphs = _event_id_holders_read_at_once(main, [*batch, *judged_ids])
        touched_graphs |= holder_graphs
        graphs = sorted(
            {q.graph_name for q in [*batch, *removed] if q.graph_name != ONTOLOGY_GRAPH} | touched_graphs, key=str
        )
        subjects = list({q.subject: None for q in batch if isinstance(q.subject, NamedNode)})
        subjects += [n for n in touched if isinstance(n, NamedNode) and n not in subjects]
        objects = list({q.object: None for q in batch if isinstance(q.object, NamedNode)})
        context: set[Quad] = set()
        # Direct look-ups, not "is the store empty?" first: on an empty store they are as
        # cheap as that question, and on a full one it would be asked for nothing.
        known = _read_subjects(main, subjects) if in_process else {}
        described = _describe(main, subjects, graphs, known, in_process=in_process)
        for node in touched:  # blank nodes too, which the SPARQL lookups of _describe cannot name
            if not isinstance(node, NamedNode):
                for g in [DefaultGraph(), *graphs]:
                    described.update(main.quads_for_pattern(node, None, None, g))
        context |= described
        objects += [q.object for q in described if isinstance(q.object, NamedNode)]
        # Shapes that look backwards (sh:inversePath) judge a node by what points at it.
        pointing = _referrers(main, subjects, graphs, in_process=in_process)
        context |= pointing
        objects += [q.subject for q in pointing if isinstance(q.subject, NamedNode)]
        # Chains matter to cycles through a touched node and to support-group members:
        # they start at the touched nodes and at what those point to through a chain.
        links = [q.object for q in (*batch, *described) if q.predicate in _CHAIN_STARTS and isinstance(q.object, NamedNode)]
        context |= _chains(main, [*subjects, *links], known, in_process=in_process)
        context |= holders
        # Types in every graph: typing (invariant 2) and tenant isolation (7) read them.
        nodes = list(dict.fromkeys([*subjects, *objects]))
        context |= _types(main, nodes, known)
        context |= _incompleteness(main, nodes, in_process=in_process)
        # A class the data declares (ex:PersonKind rdfs:subClassOf mem:Person) brings its superclasses.
        classes = [q.object for q in (*batch, *context) if q.predicate == _RDF_TYPE]
        context |= _hierarchy(main, classes)
        scratch = Store()
        scratch.extend(batch)
        scratch.extend(context)
        for q in removed:
            scratch.remove(q)
        if not context:
            scratch.extend(_ontology_quads())
            return scratch, None, graphs or [DefaultGraph()]
        # The predicates' types too: the closed vocabulary (invariant 13) asks whether each is defined.
        predicates = list(dict.fromkeys(q.predicate for q in (*batch, *context)))
        scratch.extend(_ontology_context(subjects, [*nodes, *predicates]))
        focus: list[Term] = list({q.subject: None for q in batch if not isinstance(q.subject, Triple)})
        focus += [n for n in touched if n not in focus]
        return scratch, focus, graphs or [DefaultGraph()]


@dataclass(frozen=True)
class FirstLoadValidator:
    """A first load judged by a :class:`WriteValidator` of ``engine``, wherever it runs (it pickles)."""

    engine: str

    def __call__(self, scratch: Store, *, progress: Callable[[str], None] | None = None) -> list[Violation]:
        return WriteValidator(self.engine).judge_first_load(scratch, progress=progress)


def _violations(results: Iterable[Violation]) -> list[Violation]:
    return [r for r in results if r.severity == sh.Violation]


_CHUNK = 2000
#: Beyond this many focus nodes a write is judged by scanning its scratch store
#: (:meth:`WriteValidator.judge`), unless the store holds more than this many quads
#: per focus node (a write touching a hub brings the hub's every edge); below, node
#: by node, with the Python shortcuts. Scanning won from ~150 nodes on (bench data).
SCAN_FOCUS_LIMIT = 256
SCAN_QUADS_PER_FOCUS_NODE = 50
#: Up to this many nodes, context is read with direct index look-ups: a SPARQL query
#: costs a parse and a plan (~0.1 ms) before it reads anything.
_LOOKUP_LIMIT = 64


def _noting_graphs(quads: Iterable[Quad], graphs: set[GraphName]) -> Iterator[Quad]:
    for q in quads:
        graphs.add(q.graph_name)
        yield q


def holds_no_data(main: QuadStore) -> bool:
    """Whether the store holds nothing but (perhaps) the ontology: two index seeks."""
    if next(iter(main.quads_for_pattern(None, None, None, DefaultGraph())), None) is not None:
        return False
    return all(g == ONTOLOGY_GRAPH for g in main.named_graphs())


def _touched_by_removal(main: QuadStore, removed: Sequence[Quad]) -> tuple[list[Subject], set[GraphName]]:
    """The nodes a removal can make invalid, and the graphs they are described in.

    The subject of every removed quad (it may lose a required property), and,
    when a node loses an ``rdf:type``, every node referring to it, index
    triples included: a claim whose triple term names it (invariant 2), a role
    property pointing at it (3), a claim whose predicate it declared (4).
    """
    nodes: dict[Subject, None] = {}
    graphs: set[GraphName] = set()
    for q in removed:
        if q.predicate.value.startswith(MEMX) or q.graph_name == ONTOLOGY_GRAPH:
            continue
        nodes[q.subject] = None
        if q.predicate == rdf.type:
            for ref in main.quads_for_pattern(None, None, q.subject, None):
                if ref.graph_name != ONTOLOGY_GRAPH and not isinstance(ref.subject, Triple):
                    nodes[ref.subject] = None
                    if ref.graph_name != ONTOLOGY_GRAPH:
                        graphs.add(ref.graph_name)
    return list(nodes), graphs


#: The links along which one support-group member can rest on another (invariant 11).
_LEG_LINKS = (prov.wasDerivedFrom, mem.echoOf)


def _groups_above(main: QuadStore, batch: Sequence[Quad]) -> tuple[list[Subject], set[GraphName]]:
    """The support groups a new derivation or echo link can make invalid, and their graphs.

    Invariant 11 is judged at the group: a link ``a -> b`` makes a member rest on another
    when some member reaches ``a`` along such links (in the store or in the write) and
    another is reached from ``b``. The group is in neither end of the link, so without
    this it would not be re-checked. Walks up from each link's start, then asks who
    holds what it found as a member.
    """
    links = [q for q in batch if q.predicate in _LEG_LINKS and q.graph_name != ONTOLOGY_GRAPH]
    if not links:
        return [], set()
    above_in_write: dict[Term, list[Term]] = {}
    for q in links:
        above_in_write.setdefault(q.object, []).append(q.subject)
    seen: set[Term] = {q.subject for q in links}
    frontier = list(seen)
    while frontier:
        following = []
        for node in frontier:
            above = list(above_in_write.get(node, ()))
            if isinstance(node, (NamedNode, BlankNode)):
                above += [q.subject for p in _LEG_LINKS for q in main.quads_for_pattern(None, p, node, None)
                          if q.graph_name != ONTOLOGY_GRAPH]
            for a in above:
                if a not in seen:
                    seen.add(a)
                    following.append(a)
        frontier = following
    groups: dict[Subject, None] = {}
    graphs: set[GraphName] = set()
    for node in seen:
        if isinstance(node, (NamedNode, BlankNode)):
            for q in main.quads_for_pattern(None, mem.member, node, None):
                if q.graph_name != ONTOLOGY_GRAPH:
                    groups[q.subject] = None
                    graphs.add(q.graph_name)
    return list(groups), graphs


def _solutions(main: QuadStore, select: str) -> QuerySolutions:
    """The rows of a SELECT."""
    result = main.query(select)
    assert isinstance(result, QuerySolutions)
    return result


def _chunks(nodes: Sequence[Term]) -> Iterable[str]:
    """``VALUES`` rows of serialized IRIs, a chunk at a time (terms, never pasted strings)."""
    for i in range(0, len(nodes), _CHUNK):
        yield " ".join(str(n) for n in nodes[i : i + _CHUNK])


#: What the store holds about a write's subjects in every graph: {subject: quads}.
Known = dict[Term, list[Quad]]


def _read_subjects(main: QuadStore, subjects: Sequence[NamedNode]) -> Known:
    """Every quad about each of a small write's subjects, in every graph, in one look-up.

    Their descriptions, types and chain links are all read from this: one index seek
    per subject instead of one per graph and per predicate (a new claim's IRI is random,
    so each seek reads cold index blocks, ~0.1 ms at 1M claims). Read for this write
    only, never kept: the next write may have changed them.
    """
    if len(subjects) > _LOOKUP_LIMIT:
        return {}
    return {node: list(main.quads_for_pattern(node, None, None, None)) for node in subjects}


def _describe(main: QuadStore, nodes: Sequence[NamedNode], graphs: Sequence[GraphName], known: Known | None = None, *,
              in_process: bool = True) -> set[Quad]:
    """Every quad about ``nodes`` in the written graphs and the shared default graph."""
    out: set[Quad] = set()
    named = [g for g in graphs if isinstance(g, NamedNode)]
    # A local store answers direct look-ups for any number of nodes (they are index seeks);
    # a remote one gets a query per graph and chunk, since each look-up would be a request.
    if len(nodes) <= _LOOKUP_LIMIT or in_process:
        read: list[NamedNode | DefaultGraph] = [DefaultGraph(), *named]
        wanted = set(read)
        for node in nodes:
            if known is not None and node in known:
                out.update(q for q in known[node] if q.graph_name in wanted)
                continue
            for g in read:
                out.update(main.quads_for_pattern(node, None, None, g))
        return out
    for rows in _chunks(nodes):
        for r in _solutions(main, f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {rows} }} ?s ?p ?o }}"):
            out.add(Quad(r["s"], r["p"], r["o"], DefaultGraph()))
        for g in named:
            # One graph at a time, named in the text: Oxigraph joins "VALUES ?g {…} GRAPH ?g"
            # by scanning every graph (1.9 s against 2 ms for 200 nodes at 20k claims).
            for r in _solutions(main, f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {rows} }} GRAPH {g} {{ ?s ?p ?o }} }}"):
                out.add(Quad(r["s"], r["p"], r["o"], g))
    return out


@cache
def _inverse_path_predicates() -> tuple[NamedNode, ...]:
    """The predicates memkg's shapes follow backwards: ``sh:inversePath p``, and ``mem:supersedes``,
    by which invariant 12 counts a version's successors (in SPARQL)."""
    inverse = NamedNode(SH + "inversePath")
    return tuple(sorted({mem.supersedes, *(q.object for q in builtin_shapes()
                                           if q.predicate == inverse and isinstance(q.object, NamedNode))}, key=str))


def _referrers(main: QuadStore, nodes: Sequence[Term], graphs: Collection[GraphName], *, in_process: bool = True) -> set[Quad]:
    """The quads pointing at ``nodes`` by a predicate a shape follows backwards, in the written
    graphs and the shared default graph (an attachment is judged with its message)."""
    out: set[Quad] = set()
    predicates = _inverse_path_predicates()
    if not predicates or not nodes:
        return out
    named = [g for g in graphs if isinstance(g, NamedNode)]
    scopes: list[GraphName] = [DefaultGraph(), *named]
    if len(nodes) <= _LOOKUP_LIMIT or in_process:
        for node in nodes:
            for p in predicates:
                for g in scopes:
                    out.update(main.quads_for_pattern(None, p, node, g))
        return out
    for rows in _chunks(nodes):
        for p in predicates:
            for r in _solutions(main, f"SELECT ?s ?o WHERE {{ VALUES ?o {{ {rows} }} ?s <{p.value}> ?o }}"):
                out.add(Quad(r["s"], p, r["o"], DefaultGraph()))
            for g in named:
                for r in _solutions(main, f"SELECT ?s ?o WHERE {{ VALUES ?o {{ {rows} }} GRAPH {g} {{ ?s <{p.value}> ?o }} }}"):
                    out.add(Quad(r["s"], p, r["o"], g))
    return out


def _types(main: QuadStore, nodes: Sequence[NamedNode], known: Known | None = None) -> set[Quad]:
    """The ``rdf:type`` quads of ``nodes`` in every graph."""
    out: set[Quad] = set()
    if len(nodes) <= _LOOKUP_LIMIT:
        for node in nodes:
            found = known[node] if known is not None and node in known else main.quads_for_pattern(node, _RDF_TYPE, None, None)
            out.update(q for q in found if q.predicate == _RDF_TYPE and q.graph_name != ONTOLOGY_GRAPH)
        return out
    for rows in _chunks(nodes):
        query = (
            f"SELECT ?x ?t ?g WHERE {{ VALUES ?x {{ {rows} }} "
            f"{{ ?x a ?t }} UNION {{ GRAPH ?g {{ ?x a ?t }} FILTER(?g != <{ONTOLOGY_GRAPH.value}>) }} }}"
        )
        for r in _solutions(main, query):
            out.add(Quad(r["x"], rdf.type, r["t"], r["g"] if r["g"] is not None else DefaultGraph()))
    return out


_INCOMPLETE, _INCOMPLETE_URI_START = NamedNode(SH + "incomplete"), NamedNode(SH + "incompleteURIStart")


def _incompleteness(main: QuadStore, nodes: Sequence[Term], *, in_process: bool = True) -> set[Quad]:
    """SHACL 1.2 incomplete nodes (:mod:`memkg.shacl.incomplete`) change what a shape may
    report about a node: every ``sh:incompleteURIStart`` quad, and the ``sh:incomplete``
    quads of ``nodes`` in every graph. Nothing, after two index seeks (one query on a
    server), from a store that states neither, as memkg's own data never does."""
    if in_process:
        starts = set(main.quads_for_pattern(None, _INCOMPLETE_URI_START, None, None))
        if not starts and next(iter(main.quads_for_pattern(None, _INCOMPLETE, None, None)), None) is None:
            return set()
    else:
        ask = main.query(f"ASK {{ VALUES ?p {{ <{_INCOMPLETE.value}> <{_INCOMPLETE_URI_START.value}> }} "
                         "{ ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }")
        if not ask:
            return set()
        starts = set(main.quads_for_pattern(None, _INCOMPLETE_URI_START, None, None))
    out = {q for q in starts if q.graph_name != ONTOLOGY_GRAPH}
    for node in nodes:
        if isinstance(node, (NamedNode, BlankNode)):
            out.update(main.quads_for_pattern(node, _INCOMPLETE, None, None))
    return out


def _hierarchy(main: QuadStore, classes: Sequence[Term]) -> set[Quad]:
    """The ``rdfs:subClassOf`` quads above ``classes`` in the data (the ontology's are copied whole)."""
    out: set[Quad] = set()
    seen = set(classes)
    todo = list(seen)
    while todo:
        cls = todo.pop()
        if not isinstance(cls, (NamedNode, BlankNode)):
            continue
        for q in main.quads_for_pattern(cls, _SUBCLASS_OF, None, None):
            if q.graph_name != ONTOLOGY_GRAPH:
                out.add(q)
                if q.object not in seen:
                    seen.add(q.object)
                    todo.append(q.object)
    return out


_CHAIN = "<{}>|<{}>|<{}>".format(*(p.value for p in (mem.supersedes, prov.wasDerivedFrom, mem.echoOf)))


_CHAIN_PREDICATES = (mem.supersedes, prov.wasDerivedFrom, mem.echoOf)
_CHAIN_PREDICATE_SET = frozenset(_CHAIN_PREDICATES)
#: Links whose far end starts a chain a shape walks: the chains themselves (invariant 8)
#: and support-group members (invariant 11).
_CHAIN_STARTS = frozenset((*_CHAIN_PREDICATES, mem.member))
#: Up to this many start nodes the chains are walked with direct index lookups: the
#: SPARQL path below is evaluated over the whole store (300 ms per write at 1M claims).
_WALK_LIMIT = 500


def _chains(main: QuadStore, nodes: Sequence[Term], known: Known | None = None, *,
            in_process: bool = True) -> set[Quad]:
    """The version, lineage and echo chains that start at ``nodes`` (invariants 8 and 11)."""
    starts = list(dict.fromkeys(nodes))
    if len(starts) <= _WALK_LIMIT:
        if not in_process:
            return _walk_chains_by_query(main, starts)
        return _walk_chains(main, starts, known or {})
    out: set[Quad] = set()
    for rows in _chunks(starts):
        body = f"?x ({_CHAIN})* ?a . ?a ?p ?b . FILTER(?p IN ({_CHAIN.replace('|', ', ')}))"
        query = (
            f"SELECT ?a ?p ?b ?g WHERE {{ VALUES ?x {{ {rows} }} "
            f"{{ {body} }} UNION {{ GRAPH ?g {{ {body} }} }} }}"
        )
        for r in _solutions(main, query):
            out.add(Quad(r["a"], r["p"], r["b"], r["g"] if r["g"] is not None else DefaultGraph()))
    return out


def _walk_chains(main: QuadStore, starts: Sequence[Term], known: Known) -> set[Quad]:
    out: set[Quad] = set()
    seen = set(starts)
    frontier = list(starts)
    while frontier:
        following = []
        for node in frontier:
            if node in known:
                links: Iterable[Quad] = (q for q in known[node] if q.predicate in _CHAIN_PREDICATE_SET)
            elif isinstance(node, OxLiteral):
                continue  # a chain ends at a literal: it has no edges to follow
            else:
                links = (q for p in _CHAIN_PREDICATES for q in main.quads_for_pattern(node, p, None, None))
            for q in links:
                if q.graph_name == ONTOLOGY_GRAPH:
                    continue
                out.add(q)
                if q.object not in seen:
                    seen.add(q.object)
                    following.append(q.object)
        frontier = following
    return out


def _walk_chains_by_query(main: QuadStore, starts: Sequence[Term]) -> set[Quad]:
    """The same walk, one query per step for a whole frontier: a server
    (:class:`memkg.store.backends.sparql.ServerStore`) answers each lookup with a request."""
    out: set[Quad] = set()
    seen = set(starts)
    frontier = list(starts)
    predicates = " ".join(str(p) for p in _CHAIN_PREDICATES)
    while frontier:
        following: list[Term] = []
        for rows in _chunks(frontier):
            query = (
                f"SELECT ?a ?p ?b ?g WHERE {{ VALUES ?a {{ {rows} }} VALUES ?p {{ {predicates} }} "
                f"{{ ?a ?p ?b }} UNION {{ GRAPH ?g {{ ?a ?p ?b }} FILTER(?g != <{ONTOLOGY_GRAPH.value}>) }} }}"
            )
            for r in _solutions(main, query):
                out.add(Quad(r["a"], r["p"], r["b"], r["g"] if r["g"] is not None else DefaultGraph()))
                # a server's blank nodes cannot be named in the next request's VALUES
                if isinstance(r["b"], NamedNode) and r["b"] not in seen:
                    seen.add(r["b"])
                    following.append(r["b"])
        frontier = following
    return out


def _event_id_holders(main: QuadStore, batch: Sequence[Quad]) -> tuple[set[Quad], set[GraphName]]:
    """Other holders of the write's event ids, with their types, and the graphs they are in (invariant 9).

    A tenant's graph is validated together with the shared default graph
    (:func:`~memkg.validation.dataset.data_graph_for`), as ``memkg validate`` does: an event id
    written to a tenant meets the default graph's holders, and one written to the default graph
    meets every tenant's, whose graphs must then be judged too.
    """
    out: set[Quad] = set()
    graphs: set[GraphName] = set()
    for q in batch:
        if q.predicate == mem.eventId:
            scopes = [None] if isinstance(q.graph_name, DefaultGraph) else [q.graph_name, DefaultGraph()]
            for scope in scopes:
                for other in main.quads_for_pattern(None, mem.eventId, q.object, scope):
                    graph = other.graph_name
                    if graph == ONTOLOGY_GRAPH or isinstance(graph, BlankNode):
                        continue
                    out.add(other)
                    out.update(main.quads_for_pattern(other.subject, rdf.type, None, graph))
                    graphs.add(graph)
    return out, graphs


def _event_id_holders_read_at_once(main: QuadStore, batch: Sequence[Quad]) -> tuple[set[Quad], set[GraphName]]:
    """:func:`_event_id_holders`, read in a few queries (a chunk of event ids each), not a
    request per event id and holder."""
    anywhere: set[Term] = set()  # the event ids written to the shared graph meet every tenant's
    scoped: dict[Term, set[GraphName]] = {}  # the others, their tenant's and the shared graph's
    for q in batch:
        if q.predicate == mem.eventId:
            if isinstance(q.graph_name, DefaultGraph):
                anywhere.add(q.object)
            else:
                scoped.setdefault(q.object, set()).update((q.graph_name, DefaultGraph()))
    found = [q for q in _in_every_graph(main, "o", list({*anywhere, *scoped}), mem.eventId)
             if not isinstance(q.graph_name, BlankNode)
             and (q.object in anywhere or q.graph_name in scoped.get(q.object, ()))]
    out = set(found)
    where = {(q.subject, q.graph_name) for q in found}
    out.update(q for q in _in_every_graph(main, "s", list(dict.fromkeys(q.subject for q in found)), rdf.type)
               if (q.subject, q.graph_name) in where)
    return out, {q.graph_name for q in found}


def _in_every_graph(main: QuadStore, given: str, terms: Sequence[Term], predicate: NamedNode) -> list[Quad]:
    """The ``predicate`` quads whose subject (``given`` "s") or object ("o") is one of ``terms``, in
    every graph but the ontology's: a query per chunk of terms."""
    out: list[Quad] = []
    pattern = f"?s {predicate} ?o"
    for rows in _chunks(terms):
        text = f"SELECT ?s ?o ?g WHERE {{ VALUES ?{given} {{ {rows} }} {{ {pattern} }} UNION {{ GRAPH ?g {{ {pattern} }} }} }}"
        for r in _solutions(main, text):
            graph = r["g"] or DefaultGraph()
            if graph != ONTOLOGY_GRAPH:
                out.append(Quad(r["s"], predicate, r["o"], graph))
    return out


@cache
def _ontology_quads() -> tuple[Quad, ...]:
    return tuple(ontology_quads())


@cache
def _ontology_index() -> tuple[tuple[Quad, ...], dict[Term, tuple[Quad, ...]]]:
    """The ontology's ``rdfs:subClassOf`` quads, and all its quads by subject."""
    hierarchy = tuple(q for q in _ontology_quads() if q.predicate == rdfs.subClassOf)
    by_subject: dict[Term, list[Quad]] = {}
    for q in _ontology_quads():
        by_subject.setdefault(q.subject, []).append(q)
    return hierarchy, {s: tuple(qs) for s, qs in by_subject.items()}


def _ontology_context(subjects: Sequence[Term], nodes: Sequence[Term]) -> list[Quad]:
    """The part of the ontology memkg's shapes read when judging ``subjects``.

    Like the store's context: the class hierarchy (``rdfs:subClassOf*`` in class
    targets, typed vertices, declared predicates, role types), the types of the
    touched ``nodes`` (a predicate the ontology declares, a class used as a value)
    and the description of a touched node that is an ontology term. Not the
    labels, comments, domains and ranges of the rest (nine tenths of the ontology).
    """
    hierarchy, by_subject = _ontology_index()
    out = list(hierarchy)
    for s in subjects:
        out += by_subject.get(s, ())
    described = set(subjects)
    for n in nodes:
        if n not in described:
            out += (q for q in by_subject.get(n, ()) if q.predicate == _RDF_TYPE)
    return out


_RDF_TYPE = rdf.type
_SUBCLASS_OF = rdfs.subClassOf


def install(store: MemoryStore, engine: str = "native") -> MemoryStore:
    """Make ``store`` validate every write (returns it, for chaining)."""
    store.validator = WriteValidator(engine)
    return store
