"""SPARQL 1.2 Update as one validated, confined, atomic change.

``Store.update`` would apply a request directly, unvalidated and over every
graph. memkg instead *plans* the request (:func:`plan_update`): it splits it into
operations with :mod:`memkg.core.sparql` and works out, operation by
operation, which quads leave and which arrive, then applies the net result in
one :meth:`MemoryStore.change <memkg.store.MemoryStore.change>`, which the
write validator checks (removals included) before anything is written
(:func:`apply_update`). So a request is refused whole, naming shape and focus
node, if its outcome breaks an invariant; and under a restricted grant every
quad read or written is confined to the grant's graphs.

How each operation is planned:

* ``INSERT DATA`` / ``DELETE DATA``: the block is TriG (the SPARQL prologue
  becomes TriG directives), parsed by pyoxigraph, so triple terms, reifiers and
  annotations mean exactly what they mean in Turtle 1.2.
* ``DELETE``/``INSERT … WHERE`` (with ``WITH``, ``USING``, ``USING NAMED``) and
  ``DELETE WHERE``: the WHERE group runs as ``SELECT *`` over the operation's
  dataset (confined by the grant, as in :func:`memkg.guard.access.query_options`); the
  templates are parsed as TriG with each variable replaced by a placeholder IRI,
  then instantiated per solution (fresh blank nodes per solution; a quad with an
  unbound variable, a literal subject, a triple-term subject or a non-IRI graph
  is skipped, as SPARQL says).
* ``CLEAR``/``DROP``/``CREATE``/``ADD``/``MOVE``/``COPY``: read from the state.
* ``LOAD``: :class:`UnsupportedUpdate` (it would fetch a URL from the server).

Later operations see earlier ones (SPARQL's sequential semantics). While no
change is pending a WHERE runs on the store itself; after one, if the pending
change touches a graph the WHERE reads, the WHERE runs on an in-memory copy of
its dataset with the pending change applied (index triples adjusted). That
costs a copy of the graphs it reads: the default graph (or the WITH/USING
graphs) when the WHERE has no ``GRAPH``, every graph it may read otherwise;
about 5 µs a quad, so 2-3 s for a 400k-quad graph (``benchmarks/bench_updates.py``).
On a large store, put such operations first or in their own request.

memkg's own triples are not user data: index triples (``memx:``) and the
ontology graph are never changed by an update. Naming them (a ``memx:``
predicate or the ontology graph written in a DATA block, a template or as an
operation's target) is :class:`~memkg.guard.access.Forbidden`; reaching them through
a variable (``DELETE WHERE { ?s ?p ?o }``, ``COPY``) skips them, and the store
keeps the index consistent with the ``rdf:reifies`` triples that change.

memkg graphs exist while they hold quads: ``CREATE GRAPH`` records nothing, and
``DROP`` of a graph that is empty is an error only when the store has never
known it (as in Oxigraph).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    Quad,
    QuerySolutions,
    RdfFormat,
    Store,
    Triple,
    parse,
)

from ..core.errors import MemkgError, ParseError
from ..core.sparql import Prologue, Token, hides_keyword, matching, one_reading
from ..core.terms import Graph, GraphName, Term
from ..core.vocab import ONTOLOGY_GRAPH, PREFIXES
from ..guard.access import Forbidden, Grant, can_write_graph, require_write, scan_query
from ..guard.limits import Limits
from ..store import MemoryStore, claim_index
from ..store.backends.base import QuadStore

#: What a library caller's update is held to by default: the nesting the parsers survive, any size.
NESTING_ONLY = Limits(max_query=None, max_update=None, max_body=None)


class UnsupportedUpdate(MemkgError, ValueError):
    """An update operation memkg does not perform (``LOAD``)."""


class UpdateError(MemkgError, ValueError):
    """An update that cannot be carried out: a graph to drop that does not exist, conflicting datasets."""


@dataclass
class Change:
    """What an update does: the quads it removes and adds (net, index triples left to the store)."""

    remove: list[Quad] = field(default_factory=list)
    add: list[Quad] = field(default_factory=list)


@dataclass(frozen=True)
class UpdateReport:
    """What :func:`apply_update` did."""

    removed: int
    added: int


def apply_update(
    store: MemoryStore,
    update_text: str,
    *,
    grant: Grant,
    using_graphs: Iterable[str | NamedNode] = (),
    using_named_graphs: Iterable[str | NamedNode] = (),
    base_iri: str | None = None,
) -> UpdateReport:
    """Apply a SPARQL 1.2 Update request atomically, validated, within ``grant``'s rights.

    ``using_graphs``/``using_named_graphs`` are the protocol's
    ``using-graph-uri``/``using-named-graph-uri``. Raises
    :class:`~memkg.core.errors.ParseError` (line, column),
    :class:`~memkg.guard.access.Forbidden`, :class:`UnsupportedUpdate`,
    :class:`UpdateError` or :class:`~memkg.core.errors.ValidationError`; in every
    case nothing is written.

    >>> from memkg.guard.access import OPEN
    >>> store = MemoryStore(validation=None)
    >>> apply_update(store, "INSERT DATA { <urn:a> <urn:b> <urn:c> }", grant=OPEN)
    UpdateReport(removed=0, added=1)
    >>> apply_update(store, "DELETE WHERE { <urn:a> ?p ?o }", grant=OPEN)
    UpdateReport(removed=1, added=0)
    """
    with store.lock():
        change = plan_update(
            store, update_text, grant=grant, using_graphs=using_graphs,
            using_named_graphs=using_named_graphs, base_iri=base_iri,
        )
        removed = store.change(remove=change.remove, add=change.add, source="<update>")
        return UpdateReport(removed=removed, added=len(change.add))


def plan_update(
    store: MemoryStore | Store,
    update_text: str,
    *,
    grant: Grant,
    using_graphs: Iterable[str | NamedNode] = (),
    using_named_graphs: Iterable[str | NamedNode] = (),
    base_iri: str | None = None,
    limits: Limits | None = NESTING_ONLY,
) -> Change:
    """The net change ``update_text`` would make, without making it (same arguments and errors).

    ``store`` may be a plain pyoxigraph store holding the same data (the endpoint plans on a
    read-only snapshot, in a sandboxed worker, and applies the plan itself). ``limits``: the
    nesting (and size) the text may have, :class:`~memkg.guard.limits.LimitExceeded` beyond; None
    when the caller checked already.
    """
    require_write(grant)
    if limits is not None:
        limits.check_update(update_text)
    tokens = _split_glued(one_reading(update_text, source="<update>"))
    for tok in tokens:
        if grant.restricted and hides_keyword(tok, "SERVICE"):
            raise Forbidden(f"line {tok.line}, column {tok.column}: SERVICE is not allowed for this token")
        if hides_keyword(tok, "LOAD"):  # also LOAD:x and LOADSILENT<…>, which Oxigraph reads as LOAD
            raise UnsupportedUpdate(f"line {tok.line}, column {tok.column}: LOAD is not supported (it would make "
                                    f"the server fetch a URL; {tok.text!r} reads as LOAD); use `memkg load`")
    if not any(hides_keyword(t, "SERVICE") for t in tokens):
        _check_syntax(update_text, base_iri)
    using = [_iri(u) for u in using_graphs]
    using_named = [_iri(u) for u in using_named_graphs]
    state = _State(store.raw if isinstance(store, MemoryStore) else store, grant)
    for op in _operations(update_text, tokens, base_iri):
        op.plan(state, using, using_named)
    return state.change()


# -- syntax ----------------------------------------------------------------------------


def _check_syntax(text: str, base_iri: str | None) -> None:
    """Let Oxigraph's own parser judge the request, on an empty scratch store (LOAD and SERVICE excluded)."""
    try:
        Store().update(text, base_iri=base_iri, prefixes=PREFIXES)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<update>", sparql=text, update=True) from None
    except (RuntimeError, OSError):
        pass  # an error of the empty store (e.g. DROP of a missing graph), judged later on the real one


_KEYWORDS = ("INSERT", "DELETE", "DATA", "WHERE", "WITH", "USING", "NAMED", "CLEAR", "DROP", "CREATE", "ADD",
             "MOVE", "COPY", "TO", "SILENT", "GRAPH", "DEFAULT", "ALL", "LOAD", "INTO")


def _split_glued(tokens: list[Token]) -> list[Token]:
    """Split bare words Oxigraph reads as several keywords (``INSERTDATA``, ``DROPSILENT``)."""
    out: list[Token] = []
    for tok in tokens:
        parts = _keyword_parts(tok.text.upper()) if tok.kind == "WORD" else None
        if not parts or len(parts) == 1:
            out.append(tok)
            continue
        at = tok.start
        for part in parts:
            out.append(Token("WORD", tok.text[at - tok.start : at - tok.start + len(part)], at, at + len(part),
                             tok.line, tok.column + at - tok.start))
            at += len(part)
    return out


def _keyword_parts(word: str) -> list[str] | None:
    """``word`` split into keywords (the first keyword that leads to a full split wins), or None.

    Iterative, from the end of the word: a word of thousands of keywords (``TOTOTO…``) must not
    recurse once per keyword.
    """
    # split[i]: the first keyword of a split of word[i:], or None when word[i:] has none.
    split: list[str | None] = [None] * (len(word) + 1)
    for i in range(len(word) - 1, -1, -1):
        for k in _KEYWORDS:
            end = i + len(k)
            if word.startswith(k, i) and (end == len(word) or split[end] is not None):
                split[i] = k
                break
    if not word:
        return []
    if split[0] is None:
        return None
    parts: list[str] = []
    i = 0
    while i < len(word):
        part = split[i]
        assert part is not None
        parts.append(part)
        i += len(part)
    return parts


def _iri(value: str | NamedNode) -> NamedNode:
    try:
        return value if isinstance(value, NamedNode) else NamedNode(value)
    except ValueError:
        raise ValueError(f"using-graph-uri {value!r} is not an absolute IRI") from None


# -- the state a request works on --------------------------------------------------------


class _State:
    """The store as the request has changed it so far: the store plus pending removals and additions."""

    def __init__(self, base: QuadStore, grant: Grant) -> None:
        self.base = base
        self.grant = grant
        self.removed: dict[Quad, None] = {}
        self.added: dict[GraphName, dict[Quad, None]] = {}
        self.known = {g for g in base.named_graphs() if isinstance(g, NamedNode)}

    def change(self) -> Change:
        return Change(list(self.removed), [q for quads in self.added.values() for q in quads])

    def pending_graphs(self) -> set[GraphName]:
        return {q.graph_name for q in self.removed} | {g for g, qs in self.added.items() if qs}

    def quads(self, graph: GraphName) -> list[Quad]:
        """The data quads of ``graph`` now (index triples left out)."""
        out = [q for q in self.base.quads_for_pattern(None, None, None, graph)
               if q not in self.removed and not claim_index.is_index_quad(q)]
        return out + list(self.added.get(graph, ()))

    def named_graphs(self) -> list[NamedNode]:
        """The user's named graphs that hold quads now (the ontology graph left out)."""
        names = {g for g in self.base.named_graphs() if isinstance(g, NamedNode)}
        names |= {g for g, qs in self.added.items() if qs and isinstance(g, NamedNode)}
        return sorted((g for g in names if g != ONTOLOGY_GRAPH and self.quads(g)), key=str)

    def guard(self, quad: Quad, *, named: bool) -> bool:
        """Whether ``quad`` may change; Forbidden if it may not and the request named it.

        Quads reached through a variable that are memkg's own (index triples,
        ontology graph) are skipped (False); anything else the grant may not write is Forbidden.
        """
        own = claim_index.is_index_quad(quad) or quad.graph_name == ONTOLOGY_GRAPH
        if own and named:
            raise Forbidden(f"{quad} is memkg's own (index triples and the ontology graph are maintained by memkg)")
        if own:
            return False
        if not can_write_graph(self.grant, quad.graph_name):
            raise Forbidden(f"this token may not write graph {_graph_name(quad.graph_name)}")
        return True

    def remove(self, quad: Quad, *, named: bool = False) -> None:
        if not self.guard(quad, named=named):
            return
        pending = self.added.get(quad.graph_name)
        if pending is not None and quad in pending:
            del pending[quad]
        elif quad in self.base:
            self.removed[quad] = None

    def add(self, quad: Quad, *, named: bool = False) -> None:
        if not self.guard(quad, named=named):
            return
        if quad in self.removed:
            del self.removed[quad]
        elif quad not in self.base:
            self.added.setdefault(quad.graph_name, {})[quad] = None

    def reader(self, dataset: Mapping[str, Any], *, reads_named: bool = True) -> QuadStore:
        """A store to evaluate a WHERE over ``dataset``: the store itself, or a copy with the pending change.

        ``reads_named`` False (the WHERE has no ``GRAPH``) limits the copy to the default graph(s).
        """
        reads = _dataset_graphs(dataset, reads_named=reads_named)
        pending = self.pending_graphs()
        if not pending or (reads is not None and not (pending & reads)):
            return self.base
        scratch = Store()
        graphs = reads if reads is not None else {DefaultGraph(), *self.base.named_graphs(), *pending}
        stale = set(claim_index.stale_index_quads(self.removed, self.base))
        for g in graphs:
            scratch.extend(q for q in self.base.quads_for_pattern(None, None, None, g)
                           if q not in self.removed and q not in stale)
            scratch.extend(claim_index.with_index(self.added.get(g, ())))
        return scratch



def _dataset_graphs(dataset: Mapping[str, Any], *, reads_named: bool = True) -> set[GraphName] | None:
    """The graphs a query with these options reads; None for every graph."""
    default = set(dataset.get("default_graph", [DefaultGraph()]))
    if not reads_named:
        return default
    if "default_graph" not in dataset or "named_graphs" not in dataset:
        return None
    return {*default, *dataset["named_graphs"]}


def _graph_name(graph: GraphName) -> str:
    return "DEFAULT (the shared default graph)" if isinstance(graph, DefaultGraph) else str(graph)


# -- operations ------------------------------------------------------------------------


@dataclass
class _Op:
    """One operation of the request, with the prologue in force where it stands."""

    kind: str
    first: Token
    prologue: Prologue
    base_iri: str | None
    text: str
    silent: bool = False
    targets: list[Any] = field(default_factory=list)  # graph operands: NamedNode, "DEFAULT", "NAMED", "ALL"
    with_graph: NamedNode | None = None
    using: list[NamedNode] = field(default_factory=list)
    using_named: list[NamedNode] = field(default_factory=list)
    delete: list[Token] | None = None  # the tokens inside a template's braces
    insert: list[Token] | None = None
    where: tuple[int, int] | None = None  # text span of the WHERE group, braces included
    data: list[Token] | None = None

    def reads_named_graphs(self) -> bool:
        """Whether the WHERE group can read named graphs at all (it has a ``GRAPH``, however spelled)."""
        assert self.where is not None
        return any(hides_keyword(t, "GRAPH") for t in one_reading(self.where_text(), source="<update WHERE>"))

    def where_text(self) -> str:
        assert self.where is not None
        return self.text[self.where[0] : self.where[1]]

    def fail(self, message: str) -> ParseError:
        return ParseError(message, file="<update>", line=self.first.line, column=self.first.column)

    def plan(self, state: _State, using: list[NamedNode], using_named: list[NamedNode]) -> None:
        getattr(self, f"_plan_{self.kind.lower()}")(state, using, using_named)

    # DATA blocks

    def _plan_insert_data(self, state: _State, *_: Any) -> None:
        for q in _parse_block(self, self.data or [], fresh_blank_nodes=True):
            state.add(q, named=True)

    def _plan_delete_data(self, state: _State, *_: Any) -> None:
        for q in _parse_block(self, self.data or [], fresh_blank_nodes=False):
            state.remove(q, named=True)

    # templates and WHERE

    def _plan_modify(self, state: _State, using: list[NamedNode], using_named: list[NamedNode]) -> None:
        if (using or using_named) and (self.using or self.using_named or self.with_graph is not None):
            raise UpdateError("using-graph-uri/using-named-graph-uri cannot be combined with USING, USING NAMED "
                              "or WITH in the request (SPARQL 1.1 Protocol)")
        delete = _Template(self, self.delete, state) if self.delete is not None else None
        insert = _Template(self, self.insert, state) if self.insert is not None else None
        dataset = _where_dataset(state.grant, self.with_graph, self.using or using, self.using_named or using_named)
        self._require_visible_patterns(state.grant)
        solutions = _solutions(self, state.reader(dataset, reads_named=self.reads_named_graphs()), dataset)
        removals = [q for t in ([delete] if delete else []) for q in t.instances(solutions)]
        additions = [q for t in ([insert] if insert else []) for q in t.instances(solutions)]
        for q in removals:
            state.remove(q)
        for q in additions:
            state.add(q)

    def _require_visible_patterns(self, grant: Grant) -> None:
        """Forbidden naming the graph if the WHERE group's constant ``GRAPH <g>`` names one
        ``grant`` may not read: a refusal, never an empty match (docs/contract.md section 6)."""
        if not grant.restricted:
            return
        where = scan_query(f"SELECT * WHERE {self.where_text()}", prefixes=self.prologue.prefixes,
                           base_iri=self.prologue.base)
        for g in where.patterns:
            if not grant.can_see(g):
                raise Forbidden(f"GRAPH names graph {g}, which this token may not read")

    def _plan_delete_where(self, state: _State, using: list[NamedNode], using_named: list[NamedNode]) -> None:
        self.delete = self.data
        self._plan_modify(state, using, using_named)

    # graph management

    def _graphs(self, state: _State, operand: Any, *, write: bool) -> list[Graph]:
        if isinstance(operand, NamedNode):
            if write and not can_write_graph(state.grant, operand):
                if operand == ONTOLOGY_GRAPH:
                    raise Forbidden(f"{operand} is the ontology graph, maintained by memkg")
                raise Forbidden(f"this token may not write graph {operand}")
            if not write and not state.grant.can_see(operand):
                raise Forbidden(f"this token may not read graph {operand}")
            return [operand]
        named: list[Graph] = list(state.named_graphs())
        if state.grant.restricted:
            named = sorted((state.grant.tenants or ()), key=str) if write else [g for g in named if state.grant.can_see(g)]
        choices: dict[str, list[Graph]] = {"DEFAULT": [DefaultGraph()], "NAMED": named, "ALL": [DefaultGraph(), *named]}
        chosen = choices[operand]
        if write:
            for g in chosen:
                if not can_write_graph(state.grant, g):
                    raise Forbidden(f"{self.kind} {operand} would change {_graph_name(g)}, which this token may not write")
        return chosen

    def _exists(self, state: _State, graph: Graph) -> bool:
        return graph in state.known or bool(state.quads(graph))

    def _plan_clear(self, state: _State, *_: Any) -> None:
        for g in self._graphs(state, self.targets[0], write=True):
            named_explicitly = isinstance(self.targets[0], NamedNode)
            if named_explicitly and not self.silent and not self._exists(state, g):
                raise UpdateError(f"{self.kind} GRAPH {g}: the graph does not exist")
            for q in state.quads(g):
                state.remove(q)
            if self.kind == "DROP" and isinstance(g, NamedNode):
                state.known.discard(g)

    _plan_drop = _plan_clear

    def _plan_create(self, state: _State, *_: Any) -> None:
        (g,) = self._graphs(state, self.targets[0], write=True)
        assert isinstance(g, NamedNode)
        if self._exists(state, g) and not self.silent:
            raise UpdateError(f"CREATE GRAPH {g}: the graph already exists")
        state.known.add(g)

    def _plan_add(self, state: _State, *_: Any) -> None:
        (source,) = self._graphs(state, self.targets[0], write=self.kind == "MOVE")
        (target,) = self._graphs(state, self.targets[1], write=True)
        if source == target:
            return
        if self.kind == "MOVE" and isinstance(source, NamedNode) and not self.silent and not self._exists(state, source):
            raise UpdateError(f"MOVE {source}: the graph does not exist")  # MOVE ends with a DROP of its source
        quads = state.quads(source)
        if self.kind in ("MOVE", "COPY"):
            for q in state.quads(target):
                state.remove(q)
        for q in quads:
            state.add(Quad(q.subject, q.predicate, q.object, target))
        if self.kind == "MOVE":
            for q in quads:
                state.remove(q)
            if isinstance(source, NamedNode):
                state.known.discard(source)
        if isinstance(target, NamedNode) and quads:
            state.known.add(target)

    _plan_move = _plan_add
    _plan_copy = _plan_add


def _where_dataset(
    grant: Grant, with_graph: NamedNode | None, using: Sequence[NamedNode], using_named: Sequence[NamedNode]
) -> dict[str, Any]:
    """``Store.query`` options for a WHERE clause: USING beats WITH beats the store's dataset; confined by ``grant``."""
    for g in [*using, *using_named, *([with_graph] if with_graph is not None else [])]:
        if not grant.can_see(g):
            raise Forbidden(f"this token may not read graph {g}")
    if using or using_named:
        return {"default_graph": list(using), "named_graphs": list(using_named)}
    default: list[Graph] = [with_graph] if with_graph is not None else [DefaultGraph()]
    if grant.restricted:
        return {"default_graph": default, "named_graphs": grant.visible_named_graphs()}
    return {"default_graph": default} if with_graph is not None else {}


def _solutions(op: _Op, reader: QuadStore, dataset: Mapping[str, Any]) -> list[dict[str, Term]]:
    query = f"SELECT * WHERE {op.where_text()}"
    try:
        result = reader.query(query, base_iri=op.prologue.base, prefixes=op.prologue.prefixes, **dataset)
        assert isinstance(result, QuerySolutions)  # a SELECT answers with solutions
        names = [v.value for v in result.variables]
        return [{n: row[n] for n in names if row[n] is not None} for row in result]
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<update WHERE>") from None


# -- templates and DATA blocks as TriG ----------------------------------------------------

_PLACEHOLDER = "urn:memkg:update-variable:"


def _trig(op: _Op, body: list[Token], variables: Mapping[str, str] | None) -> str:
    """A template or DATA block as a TriG document: prologue directives, then the body.

    Variables become placeholder IRIs; a top-level triple before ``GRAPH`` (or at the
    end) gets the ``.`` TriG needs and SPARQL does not, and the ``.`` SPARQL allows
    after a ``GRAPH`` block (TriG does not) is dropped.
    """
    head = "".join(f"PREFIX {p}: {NamedNode(iri)} " for p, iri in (op.prologue.prefixes or {}).items())
    if op.prologue.base:
        head = f"BASE {NamedNode(op.prologue.base)} " + head
    parts: list[str] = []
    depth = 0
    last_top: str | None = None  # the last token seen at the top level, outside GRAPH blocks
    at = body[0].start if body else 0
    for tok in body:
        parts.append(op.text[at : tok.start])
        at = tok.end
        if depth == 0 and tok.is_word("GRAPH") and last_top not in (None, ".", "}"):
            parts.append(" . ")
        if depth == 0 and tok.kind == "PUNCT" and tok.text == "." and last_top == "}":
            continue  # SPARQL allows "GRAPH <g> { … } ." where TriG does not
        parts.append(f"<{variables[tok.text[1:]]}>" if tok.kind == "VAR" and variables is not None else tok.text)
        if tok.kind == "PUNCT" and tok.text in ("{", "{|"):
            depth += 1
        elif tok.kind == "PUNCT" and tok.text in ("}", "|}"):
            depth -= 1
        if depth == 0:
            last_top = tok.text if tok.kind == "PUNCT" else "term"
    if last_top not in (None, ".", "}"):
        parts.append(" .")
    return head + "\n" + "".join(parts)


def _parse_block(op: _Op, body: list[Token], *, fresh_blank_nodes: bool,
                 variables: Mapping[str, str] | None = None) -> list[Quad]:
    text = _trig(op, body, variables)
    try:
        quads = list(parse(text, RdfFormat.TRIG, base_iri=op.prologue.base, rename_blank_nodes=fresh_blank_nodes))
    except SyntaxError as err:
        raise op.fail(f"cannot read this block as RDF: {err}") from None
    if op.with_graph is not None:
        quads = [Quad(q.subject, q.predicate, q.object, op.with_graph) if isinstance(q.graph_name, DefaultGraph) else q
                 for q in quads]
    return quads


class _Template:
    """A DELETE or INSERT template, instantiated per solution."""

    def __init__(self, op: _Op, body: list[Token], state: _State) -> None:
        nonce = secrets.token_hex(8)
        names = {t.text[1:] for t in body if t.kind == "VAR"}
        self.variables = {n: f"{_PLACEHOLDER}{nonce}:{n}" for n in names}
        self.names = {iri: n for n, iri in self.variables.items()}
        self.quads = _parse_block(op, body, fresh_blank_nodes=False, variables=self.variables)
        for q in self.quads:  # what the text names must be writable, whatever the solutions
            if claim_index.is_index_quad(q):
                raise Forbidden(f"{q.predicate} is one of memkg's index predicates, maintained by memkg")
            if _is_constant(q.graph_name, self.names):
                if q.graph_name == ONTOLOGY_GRAPH:
                    raise Forbidden(f"{q.graph_name} is the ontology graph, maintained by memkg")
                if not can_write_graph(state.grant, q.graph_name):
                    raise Forbidden(f"this token may not write graph {_graph_name(q.graph_name)}")

    def instances(self, solutions: Sequence[Mapping[str, Term]]) -> Iterator[Quad]:
        for solution in solutions:
            blanks: dict[BlankNode, BlankNode] = {}
            for q in self.quads:
                quad = self._instance(q, solution, blanks)
                if quad is not None:
                    yield quad

    def _instance(self, q: Quad, solution: Mapping[str, Term], blanks: dict[BlankNode, BlankNode]) -> Quad | None:
        s, p, o = (self._term(t, solution, blanks) for t in (q.subject, q.predicate, q.object))
        g = self._term(q.graph_name, solution, blanks) if isinstance(q.graph_name, NamedNode) else q.graph_name
        if not isinstance(s, (NamedNode, BlankNode)) or not isinstance(p, NamedNode) or o is None:
            return None
        if not isinstance(g, (NamedNode, DefaultGraph)):
            return None
        return Quad(s, p, o, g)

    def _term(self, term: Any, solution: Mapping[str, Term], blanks: dict[BlankNode, BlankNode]) -> Any:
        if isinstance(term, NamedNode) and term.value in self.names:
            return solution.get(self.names[term.value])
        if isinstance(term, BlankNode):
            return blanks.setdefault(term, BlankNode())
        if isinstance(term, Triple):
            s, p, o = (self._term(t, solution, blanks) for t in (term.subject, term.predicate, term.object))
            if not isinstance(s, (NamedNode, BlankNode)) or not isinstance(p, NamedNode) or o is None:
                return None
            return Triple(s, p, o)
        return term


def _is_constant(term: Any, names: Mapping[str, str]) -> bool:
    return not (isinstance(term, NamedNode) and term.value in names)


# -- splitting the request into operations ---------------------------------------------------


def _operations(text: str, tokens: list[Token], base_iri: str | None) -> Iterator[_Op]:
    prologue = Prologue(base=base_iri, prefixes=dict(PREFIXES))
    i = 0
    while i < len(tokens):
        after = prologue.declare(tokens, i)
        if after != i:
            i = after
            continue
        if tokens[i].kind == "PUNCT" and tokens[i].text == ";":
            i += 1
            continue
        snapshot = Prologue(base=prologue.base, prefixes=dict(prologue.prefixes or {}))
        op, i = _operation(text, tokens, i, snapshot, base_iri)
        yield op


def _operation(text: str, tokens: list[Token], i: int, prologue: Prologue, base_iri: str | None) -> tuple[_Op, int]:
    first = tokens[i]
    op = _Op("", first, prologue, base_iri, text)

    def word(*keywords: str) -> bool:
        return i < len(tokens) and tokens[i].is_word(*keywords)

    def block() -> tuple[list[Token], tuple[int, int]]:
        nonlocal i
        if i >= len(tokens) or tokens[i].text != "{":
            raise op.fail("expected '{'")
        end = matching(tokens, i)
        inner, span = tokens[i + 1 : end], (tokens[i].start, tokens[end].end)
        i = end + 1
        return inner, span

    def iri() -> NamedNode:
        nonlocal i
        if i >= len(tokens) or tokens[i].kind not in ("IRI", "PNAME"):
            raise op.fail("expected a graph IRI")
        try:
            node = NamedNode(prologue.resolve(tokens[i]))
        except ValueError as err:
            raise op.fail(str(err)) from None
        i += 1
        return node

    def graph_ref(*, allow: tuple[str, ...]) -> Any:
        nonlocal i
        for k in allow:
            if word(k):
                i += 1
                return k
        if word("GRAPH"):
            i += 1
        return iri()

    if word("INSERT", "DELETE") and i + 1 < len(tokens) and tokens[i + 1].is_word("DATA"):
        op.kind = f"{tokens[i].text.upper()}_DATA"
        i += 2
        op.data, _ = block()
    elif word("DELETE") and i + 1 < len(tokens) and tokens[i + 1].is_word("WHERE"):
        op.kind = "DELETE_WHERE"
        i += 2
        op.data, op.where = block()
    elif word("WITH", "DELETE", "INSERT"):
        op.kind = "MODIFY"
        if word("WITH"):
            i += 1
            op.with_graph = iri()
        if word("DELETE"):
            i += 1
            op.delete, _ = block()
        if word("INSERT"):
            i += 1
            op.insert, _ = block()
        while word("USING"):
            i += 1
            if word("NAMED"):
                i += 1
                op.using_named.append(iri())
            else:
                op.using.append(iri())
        if not word("WHERE"):
            raise op.fail("expected WHERE")
        i += 1
        _, op.where = block()
    elif word("CLEAR", "DROP", "CREATE"):
        op.kind = tokens[i].text.upper()
        i += 1
        if word("SILENT"):
            op.silent, i = True, i + 1
        if op.kind == "CREATE":
            if not word("GRAPH"):
                raise op.fail("expected GRAPH")
            i += 1
            op.targets = [iri()]
        else:
            op.targets = [graph_ref(allow=("DEFAULT", "NAMED", "ALL"))]
    elif word("ADD", "MOVE", "COPY"):
        op.kind = tokens[i].text.upper()
        i += 1
        if word("SILENT"):
            op.silent, i = True, i + 1
        source = graph_ref(allow=("DEFAULT",))
        if not word("TO"):
            raise op.fail("expected TO")
        i += 1
        op.targets = [source, graph_ref(allow=("DEFAULT",))]
    else:
        raise op.fail(f"expected an update operation, found {first.text!r}")
    if i < len(tokens) and tokens[i].text != ";":
        tok = tokens[i]
        raise ParseError(f"expected ';' or the end of the request, found {tok.text!r}", file="<update>",
                         line=tok.line, column=tok.column)
    return op, i
