"""Provenance and support: why a claim may be believed, where it came from, what breaks.

Two relations, never confused:

* **support** (why we may believe a claim): ``mem:supportedBy X`` is a
  one-member group; ``mem:supportGroup G`` with ``G mem:member X, Y`` is a group
  whose members only jointly license the claim. AND inside a group, OR across a
  claim's groups. Support through ``mem:echoOf`` rests on what is echoed.
* **lineage** (where information came from): ``prov:wasDerivedFrom`` (and its
  sub-property ``mem:assertedBy``), ``prov:wasGeneratedBy`` / ``prov:used``,
  ``mem:echoOf``. Lineage is reported, followed by erasure and by the
  independence test of :mod:`memkg.evidence`, but never counts as support.

**Standing.** A node *stands* when nothing it rests on has been withdrawn. It is
the least fixpoint of::

    stands(n) = not withdrawn(n)                       # no mem:retracts, no mem:supersedes
            and all(stands(e) for e in echoes(n))      # an echo rests on what it echoes
            and (no groups(n) or any(all(stands(m) for m in g) for g in groups(n)))

A node with no support groups (a raw source, or a claim whose provenance is
lineage only) stands unless withdrawn: it never had support to lose. Circular
support grounds nothing (least fixpoint). ``mem:refutes`` is recorded evidence
*against* and does not change standing: it is reported, not resolved. Standing
is about transaction time (what has been withdrawn), not valid time.

**Why a fixpoint in Python.** "Loses *all* support" is an AND/OR recursion
(claims supporting claims, with cycles): SPARQL property paths cannot express
it. The templates ``queries/dependents.rq`` and ``queries/support.rq`` answer
the direct case in SPARQL (one level of support, echo chains, direct
withdrawals); the functions here load the relevant part of the support graph
(the source's downstream cone and the upstream closure of what it touches) and
compute the fixpoint over it. The cone comes from the store's in-memory support
index when it keeps one (``MemoryStore(support_index=True)``,
:mod:`memkg.support_index`: dictionary lookups), else from a few SPARQL queries
and direct index reads (see ``SupportGraph.downstream_of``).

>>> store = MemoryStore()
>>> _ = store.load_data('''
... PREFIX mem: <https://w3id.org/memkg#>
... PREFIX ex: <https://example.org/>
... ex:knows a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> .
... ex:a a mem:Person . ex:b a mem:Person .
... ex:m1 a mem:Message . ex:m2 a mem:Message .
... ex:c a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:a ex:knows ex:b )>> ;
...     mem:supportedBy ex:m1 .
... ''', format="turtle")
>>> [str(c) for c in dependents(store, "https://example.org/m1")]
['<https://example.org/c>']
>>> dependents(store, "https://example.org/m2")
[]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import compress
from typing import Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    Quad,
    QueryResultsFormat,
    QuerySolutions,
    RdfFormat,
    Store,
    Triple,
    parse,
)

from . import views
from .errors import NotFoundError
from .model import IRI as _IRI
from .model import Retraction, iri, new_id
from .ontology import ONTOLOGY_GRAPH
from .store import MemoryStore, _gc_paused
from .support_index import SupportIndex, graph_key
from .vocab import mem, memx, prov, rdf

#: A node of the support graph: claims and sources are IRIs; groups may be blank nodes.
Node = NamedNode | BlankNode
IRI = str | NamedNode

__all__ = [
    "EchoProposal",
    "Erasure",
    "Group",
    "Impact",
    "Lineage",
    "Link",
    "Support",
    "SupportGraph",
    "Withdrawal",
    "accept_echoes",
    "dependents",
    "echo_score",
    "erase",
    "impact",
    "lineage",
    "minimal_support",
    "propose_echoes",
    "support",
    "withdraw",
]


# -- datasets -----------------------------------------------------------------------


def _node(value: IRI, what: str = "IRI") -> NamedNode:
    if isinstance(value, NamedNode):
        return value
    if not isinstance(value, str) or ":" not in value:
        raise ValueError(f"{what} must be a full IRI, got {value!r}")
    return iri(value)


def _tenant(tenant: IRI | None) -> NamedNode | None:
    return None if tenant is None else _node(tenant, "tenant")


def dataset(tenant: IRI | None) -> dict[str, Any]:
    """Query options for one tenant (its graph, the shared default graph, the ontology), or all graphs."""
    return views.dataset_for(_tenant(tenant), ONTOLOGY_GRAPH)


def select(store: MemoryStore, query: str, options: dict[str, Any]) -> QuerySolutions:
    """Run a SELECT query (memkg prefixes predeclared) with dataset ``options``."""
    result = store.query(query, **options)
    if not isinstance(result, QuerySolutions):
        raise TypeError("expected a SELECT query")
    return result


def _values(nodes: Iterable[Node]) -> str:
    """IRIs serialized as SPARQL terms for a VALUES block (blank nodes cannot be named in a query)."""
    return " ".join(str(n) for n in nodes if isinstance(n, NamedNode))


_CHUNK = 4000


def _chunks(nodes: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for i in range(0, len(nodes), _CHUNK):
        yield nodes[i : i + _CHUNK]


# -- the support graph ---------------------------------------------------------------

#: Marks an echo row in the structure queries (a group node can never be this IRI).
_ECHO = str(mem.echoOf)

#: What the fixpoint needs to know about ?x: each support alternative (?g the
#: group, unbound for a mem:supportedBy leg; ?g = mem:echoOf for what ?x echoes)
#: with its member ?m, and ?w, whatever withdraws ?x (mem:retracts, mem:supersedes).
_ALTERNATIVES = """
  OPTIONAL {
    { ?x mem:supportedBy ?m }
    UNION { ?x mem:supportGroup ?g OPTIONAL { ?g mem:member ?m } }
    UNION { ?x mem:echoOf ?m BIND(mem:echoOf AS ?g) }
  }
"""
_WITHDRAWERS = "  OPTIONAL { ?w mem:retracts|mem:supersedes ?x }\n"
_STRUCTURE = _ALTERNATIVES + _WITHDRAWERS

#: The downstream cone of a source (what may fall with it), with the alternatives of
#: each node; its withdrawals are read apart (see SupportGraph._read_withdrawals). The
#: source is written into the pattern as a serialized term (pyoxigraph's own
#: serialization of a validated IRI): a VALUES block here makes Oxigraph plan the
#: structure before the path, several times slower.
_CONE_PATH = "%s (^mem:supportedBy|^mem:member/^mem:supportGroup|^mem:echoOf)* ?x .\n"
_CONE = "SELECT ?x ?g ?m ?w WHERE {\n  " + _CONE_PATH + _ALTERNATIVES + "}"

#: The structure of given nodes; the loader repeats it upward until closed.
_UP = "SELECT ?x ?g ?m ?w WHERE {\n  VALUES ?x { %s }\n" + _STRUCTURE + "}"
_UP_ALTERNATIVES = "SELECT ?x ?g ?m ?w WHERE {\n  VALUES ?x { %s }\n" + _ALTERNATIVES + "}"

#: Every withdrawal in the dataset, up to a limit: when there are fewer than nodes to
#: ask about, one scan of them replaces a lookup per node (a quarter of dependents()
#: at 10k claims, mostly spent walking the incoming links of much-cited sources).
_ALL_WITHDRAWALS = "SELECT ?x ?w WHERE { ?w mem:retracts|mem:supersedes ?x } LIMIT %d"
#: The withdrawals of given nodes, and of the blank nodes in a cone (which cannot be named).
_WITHDRAWALS_OF = "SELECT ?x ?w WHERE {\n  VALUES ?x { %s }\n  ?w mem:retracts|mem:supersedes ?x }"
_BLANK_CONE_WITHDRAWALS = "SELECT ?x ?w WHERE {\n  " + _CONE_PATH + "  FILTER(isBLANK(?x))\n" + _WITHDRAWERS + "}"

#: The support vocabulary: if the shared default graph holds none of it, a tenant's
#: structure is read from the tenant's graph alone (the same answer, faster).
_SUPPORTED_BY = mem.supportedBy
_SUPPORT_PREDICATES = (mem.supportedBy, mem.supportGroup, mem.member, mem.echoOf, mem.retracts, mem.supersedes)


#: The cone read fast, on a local store (SupportGraph._read_cone): rounds of one path
#: query along mem:supportedBy alone, each node with its legs (one index read per node
#: each way, where the path over every support link costs three); the group and echo
#: links, far fewer in a memory than legs, come from one scan instead, which also takes
#: each round's cone across them to the roots of the next round.
_ROUND = "SELECT ?x ?m WHERE {\n  %s (^mem:supportedBy)* ?x .\n  OPTIONAL { ?x mem:supportedBy ?m }\n}"
_ROUND_FROM = "SELECT ?x ?m WHERE {\n  VALUES ?r { %s }\n  ?r (^mem:supportedBy)* ?x .\n  OPTIONAL { ?x mem:supportedBy ?m }\n}"
_LINKS = (
    "SELECT ?k ?a ?b WHERE {\n  { ?a mem:member ?b BIND(1 AS ?k) }\n  UNION { ?a mem:supportGroup ?b BIND(2 AS ?k) }\n"
    "  UNION { ?a mem:echoOf ?b BIND(3 AS ?k) }\n} LIMIT %d"
)
#: The scan of group and echo links is used while they are at most this many per node of
#: the first round's cone (plus a floor); beyond, the generic cone query costs less.
_LINKS_PER_NODE = 4
_LINKS_FLOOR = 1000
#: Whether downstream_of may read a local store's cone fast (tests turn it off to check
#: that both ways read the same graph).
FAST_CONE = True


def _structure_options(store: MemoryStore, tenant: IRI | None) -> dict[str, Any]:
    node = _tenant(tenant)
    if node is None:
        return {"use_default_graph_as_union": True}
    raw = store.raw
    if any(any(raw.quads_for_pattern(None, p, None, DefaultGraph())) for p in _SUPPORT_PREDICATES):
        return {"default_graph": [node, DefaultGraph()]}
    return {"default_graph": [node]}


# The support graph keys its nodes by their serialized form (N-Triples, as SPARQL
# TSV results write them): a query's rows are read as text in one call and split,
# instead of becoming four Python term objects each, which cost about a fifth of
# dependents() on 10k claims. Terms are made only for what a caller asks about.
# IRIs ("<…>") and blank nodes ("_:…") are their own keys; anything else (a literal
# or triple term where a member should be) gets a "~" key and is kept as a term.


def _rows(store: MemoryStore, query: str, options: dict[str, Any]) -> list[list[str]]:
    """The rows of a SELECT query as serialized terms ('' for unbound), in one TSV read."""
    data = select(store, query, options).serialize(format=QueryResultsFormat.TSV)
    lines = (data or b"").decode().split("\n")  # bytes, as no output file is given
    return [line.split("\t") for line in lines[1:] if line]


def _columns(store: MemoryStore, query: str, options: dict[str, Any], width: int) -> list[list[str]]:
    """The columns of a SELECT query of ``width`` variables, as serialized terms ('' for unbound).

    One TSV read split in one call: no cell holds a tab or a newline (TSV escapes them).
    """
    data = select(store, query, options).serialize(format=QueryResultsFormat.TSV) or b""
    cells = data.decode().replace("\n", "\t").split("\t")
    body = cells[width:-1]  # the header, then every row, then the empty cell after the last newline
    return [body[k::width] for k in range(width)]


def _key(node: Node) -> str:
    return str(node) if isinstance(node, (NamedNode, BlankNode)) else "~" + str(node)


def _is_iri_key(key: str) -> bool:
    return key[0] == "<"


def _is_key(field: str) -> bool:
    """Whether a TSV field is already a key: an IRI or a blank node (not "<<( … )>>", a triple term)."""
    return field[0] == "_" or (field[0] == "<" and field[1] != "<")


def _iri_keys(keys: Iterable[str]) -> str:
    """The IRI keys, already SPARQL terms, for a VALUES block (blank nodes cannot be named)."""
    return " ".join(k for k in keys if k[0] == "<")


class _Links:
    """The group and echo links of a dataset, read in one scan, both ways (keys of nodes)."""

    def __init__(self) -> None:
        self.members: dict[str, list[str]] = {}  # group -> members
        self.member_of: dict[str, list[str]] = {}  # member -> groups
        self.groups: dict[str, list[str]] = {}  # claim -> groups
        self.claims: dict[str, list[str]] = {}  # group -> claims
        self.echoes: dict[str, list[str]] = {}  # echo -> what it echoes
        self.echoed_by: dict[str, list[str]] = {}  # source -> its echoes

    @classmethod
    def of(cls, index: SupportIndex, graphs: list[str]) -> "_Links":
        """The links of ``graphs`` in a support index (its own tables when one graph holds them)."""
        links = cls()
        for forward, backward, name in (("members", "member_of", "member"), ("groups", "claims", "group"),
                                        ("echoes", "echoed_by", "echo")):
            setattr(links, forward, _merged(index.forward[name], graphs))
            setattr(links, backward, _merged(index.backward[name], graphs))
        return links

    @classmethod
    def scan(cls, store: MemoryStore, options: dict[str, Any], budget: int, graph: "SupportGraph") -> "_Links | None":
        """The links, or None if there are more than ``budget``."""
        kinds, heads, tails = _columns(store, _LINKS % (budget + 1), options, 3)
        if len(kinds) > budget:
            return None
        links = cls()
        ways = {"1": (links.members, links.member_of), "2": (links.groups, links.claims),
                "3": (links.echoes, links.echoed_by)}
        for k, a, b in zip(kinds, heads, graph._keys_of(tails)):
            forward, backward = ways[k]
            forward.setdefault(a, []).append(b)
            backward.setdefault(b, []).append(a)
        return links

    def below(self, nodes: set[str]) -> set[str]:
        """The claims with a group that has a member in ``nodes``, and the echoes of ``nodes``."""
        out = {c for n in nodes & self.member_of.keys() for g in self.member_of[n] for c in self.claims.get(g, ())}
        out.update(e for n in nodes & self.echoed_by.keys() for e in self.echoed_by[n])
        return out


def _merged(table: dict[str, dict[str, dict[str, None]]], graphs: list[str]) -> dict[str, Any]:
    """One graph's adjacency of a support index, or the union of several (a copy, then)."""
    held = [table[g] for g in graphs if table.get(g)]
    if len(held) == 1:
        return held[0]
    out: dict[str, dict[str, None]] = {}
    for adjacency in held:
        for a, ends in adjacency.items():
            out.setdefault(a, {}).update(ends)
    return out


def _index_graphs(index: SupportIndex, options: dict[str, Any]) -> list[str]:
    """The graphs of a support index that query ``options`` (see _structure_options) read."""
    if options.get("use_default_graph_as_union"):
        return index.graphs()
    return [graph_key(g) for g in options["default_graph"]]


@dataclass(frozen=True)
class Group:
    """One way a claim is licensed: all ``members`` are needed (AND).

    ``node`` is the ``mem:SupportGroup`` (IRI or blank node), or None for a
    ``mem:supportedBy`` leg, which is a one-member group without a node of its own.
    """

    node: Node | None
    members: tuple[Node, ...]


class SupportGraph:
    """The part of the support graph some question needs, with standing by least fixpoint.

    Built by :meth:`around` (upward from claims) or :meth:`downstream_of` (the
    cone below sources); always closed upward (every node it mentions has its
    own structure loaded), so the standing it computes is exact. Nodes are
    numbered and keyed by their serialized form internally; :meth:`groups`,
    :meth:`echoes` and :meth:`standing` speak in nodes.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._keys: list[str] = []
        self._odd: dict[str, Node] = {}  # the terms of "~" keys
        self._loaded: list[bool] = []
        # Legs and echo links as parallel id arrays (owner, member): filled in bulk from
        # query results, turned into per-node lists only when asked (groups(), echoes()).
        self._leg_x: list[int] = []
        self._leg_m: list[int] = []
        self._echo_x: list[int] = []
        self._echo_m: list[int] = []
        self._grp: dict[tuple[int, str], list[int]] = {}
        self._withdrawers: dict[int, set[str]] = {}
        self._alts: list[list[tuple[str | None, tuple[int, ...]]]] | None = None
        self._echo_lists: list[list[int]] | None = None
        self._plan: Any = None
        self.downstream: list[int] = []  #: the cone (ids), when built by downstream_of

    # -- building --

    def _id(self, key: str) -> int:
        i = self._ids.get(key)
        if i is None:
            i = self._ids[key] = len(self._keys)
            self._keys.append(key)
            self._loaded.append(False)
        return i

    def _intern(self, keys: list[str]) -> list[int]:
        """The ids of ``keys`` (all keys already: IRIs or blank nodes), numbering new ones in bulk."""
        ids = self._ids
        new = [k for k in dict.fromkeys(keys) if k not in ids]
        if new:
            first = len(self._keys)
            ids.update(zip(new, range(first, first + len(new))))
            self._keys += new
            self._loaded += [False] * len(new)
        return list(map(ids.__getitem__, keys))

    def _canonical(self, field: str) -> str:
        """The key of a TSV field that is neither an IRI nor a blank node."""
        term = next(parse(f"<urn:memkg:t> <urn:memkg:t> {field} .", format=RdfFormat.TURTLE)).object
        key = _key(term)
        self._odd[key] = term
        return key

    def _ingest(self, rows: Iterable[list[str]]) -> list[int]:
        """Take structure rows (?x ?g ?m ?w, serialized); returns the ids of the members they mention."""
        ids, new_id, loaded, grp = self._ids, self._id, self._loaded, self._grp
        mentioned: list[int] = []
        for x, g, m, w in rows:
            i = ids.get(x)
            if i is None:
                i = new_id(x)
            loaded[i] = True
            if w:
                self._withdrawers.setdefault(i, set()).add(w if _is_key(w) else self._canonical(w))
            if g and not _is_key(g):
                g = self._canonical(g)
            if not m:
                if g and g != _ECHO:
                    grp.setdefault((i, g), [])  # an empty group: licenses nothing
                continue
            j = ids.get(m)
            if j is None:
                j = new_id(m if _is_key(m) else self._canonical(m))
            mentioned.append(j)
            if not g:
                self._leg_x.append(i)
                self._leg_m.append(j)
            elif g == _ECHO:
                self._echo_x.append(i)
                self._echo_m.append(j)
            else:
                members = grp.get((i, g))
                if members is None:
                    grp[(i, g)] = [j]
                else:
                    members.append(j)
        return mentioned

    def _close(self, store: MemoryStore, options: dict[str, Any], pending: Iterable[int], query: str = _UP) -> None:
        todo = [j for j in dict.fromkeys(pending) if not self._loaded[j]]
        while todo:
            for j in todo:
                self._loaded[j] = True  # blank nodes cannot be named in a query: known as is
            named = [self._keys[j] for j in todo if _is_iri_key(self._keys[j])]
            mentioned: list[int] = []
            for chunk in _chunks(named):
                mentioned += self._ingest(_rows(store, query % _iri_keys(chunk), options))
            todo = [j for j in dict.fromkeys(mentioned) if not self._loaded[j]]

    def _read_withdrawals(self, store: MemoryStore, options: dict[str, Any], roots: list[str]) -> None:
        """The withdrawers of the cone and of every named node loaded, as the structure queries would.

        One scan of every withdrawal in the dataset when they are no more than the
        nodes asked about; otherwise a lookup per node, as the structure queries do.
        """
        cone = set(self.downstream)
        keys = self._keys
        asked = cone.union(compress(range(len(keys)), [k[0] == "<" and done for k, done in zip(keys, self._loaded)]))
        rows = _rows(store, _ALL_WITHDRAWALS % (len(asked) + 1), options)
        if len(rows) > len(asked):
            named = [keys[i] for i in asked if _is_iri_key(keys[i])]
            rows = [row for chunk in _chunks(named) for row in _rows(store, _WITHDRAWALS_OF % _iri_keys(chunk), options)]
            if any(keys[i][0] == "_" for i in cone):
                rows += [row for r in roots for row in _rows(store, _BLANK_CONE_WITHDRAWALS % r, options)]
        ids, withdrawers = self._ids, self._withdrawers
        for x, w in rows:
            i = ids.get(x)
            if i is not None and w and i in asked:
                withdrawers.setdefault(i, set()).add(w)

    def _keys_of(self, cells: list[str]) -> list[str]:
        """TSV cells as keys: the few that are literals or triple terms get a "~" key ('' stays)."""
        joined = "\t" + "\t".join(cells)
        keys = joined.count("\t<") + joined.count("\t_") - joined.count("\t<<") + cells.count("")
        if keys != len(cells):
            return [c if not c or _is_key(c) else self._canonical(c) for c in cells]
        return cells

    def _add_legs(self, xs: list[str], ms: list[str]) -> None:
        """Legs from rows (?x ?m), ?m a key; rows with ?m unbound ('': no leg) are skipped."""
        self._leg_x += self._intern(list(compress(xs, ms)))
        self._leg_m += self._intern(list(filter(None, ms)))

    def _read_cone(self, store: MemoryStore, options: dict[str, Any], roots: list[str]) -> bool:
        """Read the cone below ``roots`` and its upward closure, the fast way (see _ROUND).

        The first round is one path query; its cone crosses group and echo links (from
        the scan) to the roots of the next, which index reads walk (they are few, and a
        query naming them costs more than the walk). Returns False, with only part read,
        when the store has more group and echo links than the budget. Withdrawals are
        left to _read_withdrawals.
        """
        raw = store.raw
        graphs = [None] if options.get("use_default_graph_as_union") else options["default_graph"]
        query = _ROUND % roots[0] if len(roots) == 1 else _ROUND_FROM % " ".join(roots)
        xs, ms = _columns(store, query, options, 2)
        if len(roots) > 1:  # a node below two roots comes once per root
            xs, ms = map(list, zip(*dict.fromkeys(zip(xs, ms)))) if xs else ([], [])
        links = _Links.scan(store, options, _LINKS_PER_NODE * len(xs) + _LINKS_FLOOR, self)
        if links is None:
            return False
        ms = self._keys_of(ms)
        cone: set[str] = set()
        mentioned: list[int] = []
        while True:
            fresh = set(xs) - cone
            cone |= fresh
            self._add_legs(xs, ms)
            self._take_links(fresh, links, mentioned)
            nxt = links.below(fresh) - cone
            if not nxt:
                break
            xs, ms = self._walk(raw, graphs, nxt, cone)
        ids, loaded = self._ids, self._loaded
        for r in roots:
            self._id(r)
        cone.update(roots)  # a root is in its own cone (zero-length path), structure or not
        self.downstream = [ids[k] for k in cone]
        for i in self.downstream:
            loaded[i] = True
        mentioned += self._leg_m
        self._close_local(raw, graphs, mentioned, links)
        return True

    def _read_indexed(self, index: SupportIndex, options: dict[str, Any], roots: list[str]) -> None:
        """Read the cone below ``roots``, its upward closure and withdrawals from a support index."""
        graphs = _index_graphs(index, options)
        legs, legs_in = _merged(index.forward["leg"], graphs), _merged(index.backward["leg"], graphs)
        links = _Links.of(index, graphs)
        cone = set(roots)
        frontier = set(roots)
        while frontier:  # breadth first, along every support link at once
            below = {x for n in frontier & legs_in.keys() for x in legs_in[n]}
            frontier = (below | links.below(frontier)) - cone
            cone |= frontier
        ids, loaded = self._ids, self._loaded
        self.downstream = self._intern(list(cone))
        asked = set(cone)  # whose withdrawals count: the cone, and every IRI loaded
        named = cone
        while named:
            for k in named:
                loaded[ids[k]] = True
            held = legs.keys() & named
            ends = [legs[x] for x in held]
            self._leg_x += [ids[x] for x, e in zip(held, ends) for _m in e]  # numbered already
            mentioned = self._intern([m for e in ends for m in e])
            self._leg_m += mentioned
            self._take_links(named, links, mentioned)
            todo = {self._keys[j] for j in mentioned if not loaded[j]}
            for k in todo:
                loaded[ids[k]] = True  # blank nodes cannot be named in a query: known as is (as _close)
            named = {k for k in todo if k[0] == "<"}
            asked |= named
        for k in [k for k in self._keys if k[0] == "~"]:  # a literal or triple term as a member
            self._odd[k] = index.terms[k]  # type: ignore[assignment]
        for name in ("retracts", "supersedes"):
            by = _merged(index.backward[name], graphs)
            for x in asked & by.keys():
                self._withdrawers.setdefault(ids[x], set()).update(by[x])

    def _read_legs(self, raw: Any, graphs: list[Any], nodes: list[tuple[str, Node]]) -> tuple[list[str], list[str]]:
        """The legs of ``nodes`` (key, term) by direct index reads in each graph, as rows (?x ?m)."""
        xs: list[str] = []
        ms: list[Any] = []
        read = raw.quads_for_pattern
        for key, node in nodes:
            n = len(ms)
            for g in graphs:
                ms += [q.object for q in read(node, _SUPPORTED_BY, None, g)]
            xs += [key] * (len(ms) - n)
        keys = list(map(str, ms))
        for k, m in enumerate(ms):  # a literal or triple term as a leg: keyed and kept as a term
            if not isinstance(m, (NamedNode, BlankNode)):
                keys[k] = _key(m)
                self._odd[keys[k]] = m
        return xs, keys

    def _walk(self, raw: Any, graphs: list[Any], roots: set[str], cone: set[str]) -> tuple[list[str], list[str]]:
        """What a round query answers (rows ?x ?m) below ``roots``, less the ``cone`` already read."""
        seen = set(roots)
        todo = list(roots)
        walked: list[tuple[str, Node]] = []
        read, term = raw.quads_for_pattern, self._term
        while todo:
            key = todo.pop()
            node = term(key)
            walked.append((key, node))
            for g in graphs:
                for x in map(str, [q.subject for q in read(None, _SUPPORTED_BY, node, g)]):
                    if x not in seen and x not in cone:
                        seen.add(x)
                        todo.append(x)
        xs, ms = self._read_legs(raw, graphs, walked)
        bare = seen.difference(xs)  # the nodes without legs: one row each, ?m unbound
        return xs + list(bare), ms + [""] * len(bare)

    def _take_links(self, nodes: set[str], links: "_Links", mentioned: list[int]) -> None:
        """The groups (with their members) and echo links of ``nodes``, from the scanned links."""
        owners: list[str] = []
        names: list[str] = []
        members: list[list[str]] = []
        for x in nodes & links.groups.keys():
            for g in links.groups[x]:
                owners.append(x)
                names.append(g)
                members.append(links.members.get(g, []))  # an empty group licenses nothing
        ids = self._intern([m for ms in members for m in ms])
        mentioned += ids
        k = 0
        for x, g, ms in zip(self._intern(owners), names, members):
            self._grp.setdefault((x, g), []).extend(ids[k : k + len(ms)])
            k += len(ms)
        echoes = [(x, e) for x in nodes & links.echoes.keys() for e in links.echoes[x]]
        if echoes:
            self._echo_x += self._intern([x for x, _e in echoes])
            targets = self._intern([e for _x, e in echoes])
            self._echo_m += targets
            mentioned += targets

    def _close_local(self, raw: Any, graphs: list[Any], pending: list[int], links: "_Links") -> None:
        """The upward closure, by direct index reads of each node's legs (groups and echoes: scanned)."""
        keys, loaded = self._keys, self._loaded
        todo = [j for j in dict.fromkeys(pending) if not loaded[j]]
        while todo:
            for j in todo:
                loaded[j] = True  # blank nodes cannot be named in a query: known as is (as _close)
            named = [keys[j] for j in todo if keys[j][0] == "<"]
            before = len(self._leg_m)
            self._add_legs(*self._read_legs(raw, graphs, [(k, NamedNode(k[1:-1])) for k in named]))
            mentioned = self._leg_m[before:]
            self._take_links(set(named), links, mentioned)
            todo = [j for j in dict.fromkeys(mentioned) if not loaded[j]]

    @classmethod
    def around(cls, store: MemoryStore, nodes: Iterable[IRI | Node], *, tenant: IRI | None = None) -> "SupportGraph":
        """The upward closure of ``nodes``: everything their standing rests on."""
        graph = cls()
        start = [graph._id(_key(n if isinstance(n, BlankNode) else _node(n))) for n in nodes]
        graph._close(store, _structure_options(store, tenant), start)
        return graph

    @classmethod
    def downstream_of(
        cls, store: MemoryStore, sources: Iterable[IRI], *, tenant: IRI | None = None
    ) -> "SupportGraph":
        """The downstream cone of ``sources`` (what may fall with them), closed upward."""
        options = _structure_options(store, tenant)
        roots = [_key(_node(s, "source")) for s in sources]
        index = store.support_index()
        if index is not None:
            graph = cls()
            with store.lock():  # every write updates the index in place
                graph._read_indexed(index, options, roots)
            return graph
        if FAST_CONE and isinstance(store.raw, Store):
            graph = cls()
            if graph._read_cone(store, options, roots):
                graph._read_withdrawals(store, options, roots)
                return graph
        graph = cls()
        for r in roots:
            graph._id(r)
        mentioned: list[int] = []
        for r in roots:
            mentioned += graph._ingest(_rows(store, _CONE % r, options))
        loaded = graph._loaded
        for r in roots:  # a root is in its own cone (zero-length path), structure or not
            loaded[graph._ids[r]] = True
        graph.downstream = [i for i, done in enumerate(loaded) if done]
        graph._close(store, options, mentioned, _UP_ALTERNATIVES)
        graph._read_withdrawals(store, options, roots)
        return graph

    # -- reading --

    def _alternatives(self) -> list[list[tuple[str | None, tuple[int, ...]]]]:
        if self._alts is None:
            legs: list[dict[int, None]] = [{} for _ in self._keys]
            for i, j in zip(self._leg_x, self._leg_m):
                legs[i][j] = None
            alts: list[list[tuple[str | None, tuple[int, ...]]]] = [[(None, (j,)) for j in ls] for ls in legs]
            for (i, g), members in self._grp.items():
                alts[i].append((g, tuple(dict.fromkeys(members))))
            self._alts = alts
        return self._alts

    def _term(self, key: str) -> Node:
        if key[0] == "<":
            return NamedNode(key[1:-1])
        if key[0] == "_":
            return BlankNode(key[2:])
        return self._odd[key]

    def node_id(self, node: Node) -> int | None:
        return self._ids.get(_key(node))

    def node(self, i: int) -> Node:
        return self._term(self._keys[i])

    def groups(self, node: Node) -> list[Group]:
        """The support alternatives of ``node``: legs first (by member), then groups (by node)."""
        i = self.node_id(node)
        if i is None:
            return []
        term, keys = self._term, self._keys
        out = [
            Group(None if g is None else term(g), tuple(term(keys[j]) for j in ms))
            for g, ms in self._alternatives()[i]
        ]
        out.sort(key=lambda grp: (grp.node is not None, str(grp.node or ""), [str(m) for m in grp.members]))
        return out

    def echoes(self, node: Node) -> list[Node]:
        """What ``node`` echoes (``mem:echoOf``)."""
        i = self.node_id(node)
        if i is None:
            return []
        if self._echo_lists is None:
            self._echo_lists = [[] for _ in self._keys]
            for x, j in zip(self._echo_x, self._echo_m):
                self._echo_lists[x].append(j)
        return [self.node(j) for j in dict.fromkeys(self._echo_lists[i])]

    def withdrawn_by(self, node: Node) -> list[Node]:
        """The retractions and superseding claims that withdraw ``node``."""
        i = self.node_id(node)
        found = () if i is None else self._withdrawers.get(i, ())
        return sorted((self._term(w) for w in found), key=str)

    def withdrawn(self) -> set[Node]:
        """The nodes withdrawn directly (retracted or superseded)."""
        return {self.node(i) for i in self._withdrawers}

    def nodes(self) -> list[Node]:
        return [self._term(k) for k in self._keys]

    # -- standing --

    def _prepare(self) -> Any:
        """The fixpoint's arrays: who rests on each node by a leg, the groups (owner, size) and
        who watches them, which nodes have alternatives, and the echo counters."""
        if self._plan is None:
            n = len(self._keys)
            # A leg is a one-member alternative: the node resting on it is satisfied as soon as
            # the member stands, no counter needed. A repeated leg (a node's rows repeat once per
            # withdrawer in the generic structure query) is watched twice: harmless.
            leg_watch: list[list[int]] = [[] for _ in range(n)]
            for x, j in zip(self._leg_x, self._leg_m):
                leg_watch[j].append(x)
            has_alt = bytearray(n)
            for i in self._leg_x:
                has_alt[i] = 1
            alt_owner: list[int] = []
            alt_size: list[int] = []
            watch: list[list[int]] = [[] for _ in range(n)]
            for (i, _g), members in self._grp.items():
                has_alt[i] = 1
                unique = set(members)
                if not unique:
                    continue  # an empty group licenses nothing
                a = len(alt_owner)
                alt_owner.append(i)
                alt_size.append(len(unique))
                for j in unique:
                    watch[j].append(a)
            echo_count = [0] * n
            echo_watch: list[list[int]] = [[] for _ in range(n)]
            for i, j in set(zip(self._echo_x, self._echo_m)):
                echo_count[i] += 1
                echo_watch[j].append(i)
            self._plan = (leg_watch, alt_owner, alt_size, watch, has_alt, echo_count, echo_watch)
        return self._plan

    def _fixpoint(self, extra: Iterable[int] = ()) -> tuple[bytearray, bytearray]:
        """Standing with ``extra`` also withdrawn, then without: ``(before, after)``.

        Horn propagation (a counter per group and per echo); the second fixpoint
        continues the first with ``extra`` unblocked (standing is monotone), so the
        two cost about one pass.
        """
        leg_watch, alt_owner, alt_size, watch, has_alt, echo_count, echo_watch = self._prepare()
        n = len(self._keys)
        blocked = bytearray(n)
        for i in self._withdrawers:
            blocked[i] = 1
        extra = [i for i in extra if not blocked[i]]
        for i in extra:
            blocked[i] = 1
        left = alt_size.copy()
        eleft = echo_count.copy()
        sat = bytearray(n)
        stand = bytearray(n)
        queue = [i for i in range(n) if not blocked[i] and not eleft[i] and not has_alt[i]]
        for i in queue:
            stand[i] = 1

        def run() -> None:
            pop, push = queue.pop, queue.append
            while queue:
                j = pop()
                for c in leg_watch[j]:
                    if not sat[c]:
                        sat[c] = 1
                        if not stand[c] and not blocked[c] and not eleft[c]:
                            stand[c] = 1
                            push(c)
                for a in watch[j]:
                    left[a] -= 1
                    if not left[a]:
                        c = alt_owner[a]
                        if not sat[c]:
                            sat[c] = 1
                            if not stand[c] and not blocked[c] and not eleft[c]:
                                stand[c] = 1
                                push(c)
                for c in echo_watch[j]:
                    eleft[c] -= 1
                    if not eleft[c] and not stand[c] and not blocked[c] and (sat[c] or not has_alt[c]):
                        stand[c] = 1
                        push(c)

        run()
        after = bytearray(stand)
        for i in extra:
            blocked[i] = 0
            if not eleft[i] and (sat[i] or not has_alt[i]):
                stand[i] = 1
                queue.append(i)
        run()
        return stand, after

    def standing(self, withdraw: Iterable[Node] = ()) -> set[Node]:
        """The nodes that stand (least fixpoint), as if ``withdraw`` were also withdrawn."""
        ids = (self.node_id(n) for n in withdraw)
        stand = self._fixpoint([i for i in ids if i is not None])[1]
        return {self._term(key) for key, s in zip(self._keys, stand) if s}

    def group_stands(self, group: Group, stand: set[Node]) -> bool:
        return bool(group.members) and all(m in stand for m in group.members)


# -- support ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupStatus:
    """A support group and whether it stands; ``failing`` are the members that do not."""

    node: Node | None
    members: tuple[Node, ...]
    stands: bool
    failing: tuple[Node, ...]


@dataclass(frozen=True)
class Support:
    """A claim's support: its groups, whether each stands, and the claim's standing.

    ``status`` is one of ``"supported"`` (a group stands), ``"unsupported"``
    (groups recorded, none stands), ``"unrecorded"`` (no support recorded: its
    provenance is lineage only; it stands unless withdrawn) or ``"withdrawn"``
    (retracted or superseded). ``refuted_by`` lists recorded evidence against it
    (``mem:refutes``), unresolved.
    """

    claim: NamedNode
    groups: tuple[GroupStatus, ...]
    stands: bool
    status: str
    withdrawn_by: tuple[Node, ...] = ()
    refuted_by: tuple[Node, ...] = ()


_REFUTERS = "SELECT ?e WHERE { VALUES ?c { %s } ?e mem:refutes ?c }"


def _refuters(store: MemoryStore, claim: NamedNode, options: dict[str, Any]) -> tuple[Node, ...]:
    rows = select(store, _REFUTERS % _values([claim]), options)
    return tuple(sorted({r[0] for r in rows}, key=str))


def support(store: MemoryStore, claim: IRI, *, tenant: IRI | None = None) -> Support:
    """A claim's support groups, whether each still stands (recursively), and its status.

    >>> store = MemoryStore()
    >>> s = support(store, "https://example.org/nothing")
    >>> s.status, s.stands, s.groups
    ('unrecorded', True, ())
    """
    node = _node(claim, "claim")
    graph = SupportGraph.around(store, [node], tenant=tenant)
    stand = graph.standing()
    statuses = tuple(
        GroupStatus(
            grp.node, grp.members, graph.group_stands(grp, stand), tuple(m for m in grp.members if m not in stand)
        )
        for grp in graph.groups(node)
    )
    withdrawn_by = tuple(graph.withdrawn_by(node))
    if withdrawn_by:
        status = "withdrawn"
    elif not statuses:
        status = "unrecorded"
    elif any(g.stands for g in statuses):
        status = "supported"
    else:
        status = "unsupported"
    return Support(node, statuses, node in stand, status, withdrawn_by, _refuters(store, node, dataset(tenant)))


def minimal_support(
    store: MemoryStore,
    claim: IRI,
    *,
    tenant: IRI | None = None,
    grounds_only: bool = True,
    limit: int = 256,
) -> list[frozenset[Node]]:
    """The claim's minimal support sets: each is enough on its own, none contains another.

    Support is unfolded recursively (a member claim's own groups, an echo's
    original) and multiplied out (AND inside a group, OR across groups), then
    minimised. With ``grounds_only`` (the default) a set lists only the grounds
    its support rests on: nodes that have no support groups and echo nothing
    (raw sources, and claims whose provenance is lineage only). Without it, a set
    lists every node that must stand for that way of support (intermediate
    claims and echoes too): withdrawing any one breaks it. Withdrawn nodes and
    circular support contribute nothing. The empty list means no standing support;
    a claim with no recorded support has one set, ``{claim}`` itself.

    Raises :class:`ValueError` if there are more than ``limit`` sets.

    >>> minimal_support(MemoryStore(), "https://example.org/c")
    [frozenset({<NamedNode value=https://example.org/c>})]
    """
    node = _node(claim, "claim")
    graph = SupportGraph.around(store, [node], tenant=tenant)
    blocked = graph.withdrawn()
    sets = _unfold(graph, node, frozenset(), blocked, limit)
    if grounds_only:
        grounds = [
            frozenset(n for n in s if not graph.groups(n) and not graph.echoes(n)) for s in sets
        ]
        sets = _minimise(grounds)
    elif graph.groups(node) or graph.echoes(node):
        sets = _minimise([s - {node} for s in sets])
    return sorted(sets, key=lambda s: (len(s), sorted(str(n) for n in s)))


def _and(left: list[frozenset[Node]], right: list[frozenset[Node]], limit: int) -> list[frozenset[Node]]:
    out = _minimise([a | b for a in left for b in right])
    if len(out) > limit:
        raise ValueError(f"more than {limit} minimal support sets; pass a larger limit")
    return out


def _minimise(sets: Iterable[frozenset[Node]]) -> list[frozenset[Node]]:
    unique = sorted(set(sets), key=len)
    kept: list[frozenset[Node]] = []
    for s in unique:
        if not any(k <= s for k in kept):
            kept.append(s)
    return kept


def _unfold(
    graph: SupportGraph, n: Node, path: frozenset[Node], blocked: set[Node], limit: int
) -> list[frozenset[Node]]:
    if n in blocked or n in path:
        return []
    inner = path | {n}
    acc = [frozenset({n})]
    for e in graph.echoes(n):
        acc = _and(acc, _unfold(graph, e, inner, blocked, limit), limit)
        if not acc:
            return []
    groups = graph.groups(n)
    if groups:
        alternatives: list[frozenset[Node]] = []
        for grp in groups:
            if not grp.members:
                continue
            part: list[frozenset[Node]] = [frozenset()]
            for m in grp.members:
                part = _and(part, _unfold(graph, m, inner, blocked, limit), limit)
                if not part:
                    break
            alternatives += part
        acc = _and(acc, _minimise(alternatives), limit)
    return acc


# -- dependents, impact and withdrawal -------------------------------------------------


@dataclass(frozen=True)
class Impact:
    """What withdrawing ``sources`` would do to what rests on them.

    ``fallen``: claims that stand now and would lose all support.
    ``weakened``: claims that would lose at least one standing group but still stand.
    ``fallen_sources``: other nodes that would stop standing (echoes of a source).
    ``downstream``: the other claims downstream of a source through lineage
    (derivation, assertion, generation, echo) or through fallen or weakened
    support: their own support still stands, but what they were drawn from, or
    rest on, changed.
    """

    sources: tuple[NamedNode, ...]
    fallen: tuple[NamedNode, ...]
    weakened: tuple[NamedNode, ...]
    fallen_sources: tuple[Node, ...]
    downstream: tuple[NamedNode, ...]

    @property
    def review(self) -> tuple[NamedNode, ...]:
        """Every claim that needs re-evaluation: fallen, weakened or downstream."""
        return tuple(sorted({*self.fallen, *self.weakened, *self.downstream}, key=str))


def dependents(store: MemoryStore, source: IRI, *, tenant: IRI | None = None) -> list[NamedNode]:
    """The claims that lose all support if ``source`` is withdrawn (recursively).

    A claim stands while any one of its support groups stands; a claim that
    supports another stands only while it stands itself. Only claims that stand
    now are listed (one already without support has nothing left to lose).
    ``queries/dependents.rq`` is the direct case of the same question, in SPARQL.
    """
    return list(impact(store, source, tenant=tenant, with_downstream=False).fallen)


#: Claims downstream of the sources through lineage or support links.
_DOWNSTREAM = (
    "SELECT DISTINCT ?x WHERE { VALUES ?source { %s } "
    "?source (^prov:wasDerivedFrom|^mem:assertedBy|^mem:echoOf|^prov:used|^prov:wasGeneratedBy"
    "|^mem:supportedBy|^mem:member/^mem:supportGroup)+ ?x . "
    "?x a ?class . FILTER EXISTS { ?class rdfs:subClassOf* mem:Claim } }"
)


def impact(
    store: MemoryStore, *sources: IRI, tenant: IRI | None = None, with_downstream: bool = True
) -> Impact:
    """What withdrawing ``sources`` (together) would do; nothing is written.

    ``with_downstream=False`` skips the lineage search (``Impact.downstream``
    and ``weakened`` are then empty), which is all :func:`dependents` needs.
    """
    if not sources:
        raise ValueError("impact needs at least one source")
    roots = tuple(_node(s, "source") for s in sources)
    with _gc_paused():  # tens of thousands of small acyclic objects: no collection can free any
        graph = SupportGraph.downstream_of(store, roots, tenant=tenant)
        root_ids = {graph._ids[_key(r)] for r in roots}
        before, after = graph._fixpoint(root_ids)
    has_alt = graph._prepare()[4]
    keys = graph._keys

    def in_order(ids: Iterable[int]) -> list[Any]:
        return [graph.node(i) for i in sorted(ids, key=lambda i: _key_order(keys[i]))]

    fallen_ids = [i for i in graph.downstream if before[i] and not after[i] and i not in root_ids]
    # the fallen claims are IRIs: ordered by value as text, then made terms in one pass
    fallen = list(map(NamedNode, sorted(keys[i][1:-1] for i in fallen_ids if has_alt[i] and keys[i][0] == "<")))
    fallen_sources = in_order(i for i in fallen_ids if not has_alt[i])
    weakened: list[NamedNode] = []
    downstream: list[NamedNode] = []
    if with_downstream:
        alts = graph._alternatives()
        weakened = in_order(
            i
            for i in graph.downstream
            if after[i] and i not in root_ids and _is_iri_key(keys[i]) and any(
                members and all(before[j] for j in members) and not all(after[j] for j in members)
                for _g, members in alts[i]
            )
        )
        reached = {r[0] for r in select(store, _DOWNSTREAM % _values(roots), dataset(tenant))}
        skip = {*fallen, *weakened, *roots}
        downstream = sorted((n for n in reached if n not in skip), key=_iri_key)
    return Impact(roots, tuple(fallen), tuple(weakened), tuple(fallen_sources), tuple(downstream))  # type: ignore[arg-type]


def _iri_key(node: Node) -> str:
    return node.value if isinstance(node, NamedNode) else "_:" + node.value


def _key_order(key: str) -> str:
    """The order of :func:`_iri_key`, from a support graph key."""
    return key[1:-1] if key[0] == "<" else key


@dataclass(frozen=True)
class Withdrawal:
    """A recorded withdrawal: the ``mem:Retraction`` written, and the claims to re-evaluate."""

    retraction: NamedNode
    impact: Impact

    @property
    def fallen(self) -> tuple[NamedNode, ...]:
        return self.impact.fallen

    @property
    def weakened(self) -> tuple[NamedNode, ...]:
        return self.impact.weakened

    @property
    def review(self) -> tuple[NamedNode, ...]:
        return self.impact.review


#: Proposed terms, used only once the ontology declares them: a withdrawal's
#: ``mem:needsReview`` (Retraction → Claim) names the claims to re-evaluate; an
#: erasure record is also typed ``mem:Erasure`` (⊑ mem:Retraction).
NEEDS_REVIEW = mem.needsReview
ERASURE = mem.Erasure


def _declared(store: MemoryStore, term: NamedNode) -> bool:
    return any(store.raw.quads_for_pattern(term, rdf.type, None, ONTOLOGY_GRAPH))


def withdraw(
    store: MemoryStore, source: IRI, *, reason: str | None = None, graph: IRI | None = None
) -> Withdrawal:
    """Withdraw ``source``: record a ``mem:Retraction`` of it, and report what needs re-evaluation.

    The retraction goes through the store's validated write API, in ``graph``
    (a tenant; None for the default graph), whose data (with the shared graphs)
    is also what the impact is computed over. Nothing else is rewritten: the
    claims that fell or weakened are returned, not changed. If the ontology
    declares ``mem:needsReview``, the retraction also names each of them with it
    (on the retraction record itself, in the same write); otherwise nothing but
    the retraction is recorded.

    Raises :class:`~memkg.errors.NotFoundError` if ``graph`` says nothing about
    ``source``.
    """
    node = _node(source, "source")
    target = DefaultGraph() if graph is None else _node(graph, "graph")
    if not any(store.raw.quads_for_pattern(node, None, None, target)) and not any(
        store.raw.quads_for_pattern(None, None, node, target)
    ):
        raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")
    with store.lock():  # what is reported is what the retraction was recorded against
        found = impact(store, node, tenant=graph)
        extra: list[tuple[IRI, Any]] = []
        if _declared(store, NEEDS_REVIEW):
            extra = [(NEEDS_REVIEW, c) for c in found.review]
        record = store.add(Retraction(retracts=[node], reason=reason, extra=extra), graph=graph)
    return Withdrawal(record, found)


# -- lineage ---------------------------------------------------------------------------

#: Kinds of link in a lineage, and whether each counts as support.
LINK_KINDS = {
    "support": True,  # mem:supportedBy
    "group": True,  # mem:supportGroup / mem:member
    "echo": False,  # mem:echoOf: support through it rests on what it echoes
    "derivation": False,  # prov:wasDerivedFrom
    "assertion": False,  # mem:assertedBy (a kind of derivation)
    "generation": False,  # prov:wasGeneratedBy
    "usage": False,  # prov:used
}


@dataclass(frozen=True)
class Link:
    """One lineage link: ``source`` reached from ``node`` by a link of ``kind`` (through ``group``)."""

    node: Node
    kind: str
    source: Node
    group: Node | None = None

    @property
    def is_support(self) -> bool:
        return LINK_KINDS[self.kind]


@dataclass(frozen=True)
class Lineage:
    """Every source a claim reaches through support, derivation or echo links.

    ``links`` are all links reached (each with its kind); ``grounds`` the raw
    sources at the ends (messages, occurrences, outcomes with nothing further
    upstream); ``open_ends`` the ends that are not raw sources: branches that
    never reach one.
    """

    claim: NamedNode
    links: tuple[Link, ...]
    grounds: tuple[Node, ...]
    open_ends: tuple[Node, ...]

    def sources(self) -> tuple[Node, ...]:
        """Every node reached, in first-reached order."""
        return tuple(dict.fromkeys(link.source for link in self.links))


def lineage(store: MemoryStore, claim: IRI, *, tenant: IRI | None = None) -> Lineage:
    """The lineage of ``claim`` (the ``lineage`` view), as links, grounds and open ends.

    >>> lineage(MemoryStore(), "https://example.org/c").links
    ()
    """
    node = _node(claim, "claim")
    params = {"claim": node.value}
    if tenant is not None:
        params["tenant"] = _tenant(tenant).value  # type: ignore[union-attr]
    links: dict[tuple[Any, ...], Link] = {}
    ends: dict[Node, bool] = {}
    for row in store.view("lineage", params):  # type: ignore[union-attr]
        link = Link(row["from"], row["kind"].value, row["source"], row["group"])
        links[(link.node, link.kind, link.source, link.group)] = link
        if row["end"] is not None and row["end"].value == "true":
            ends[link.source] = row["raw"] is not None and row["raw"].value == "true"
    ordered = sorted(links.values(), key=lambda k: (str(k.node), k.kind, str(k.source), str(k.group or "")))
    return Lineage(
        node,
        tuple(ordered),
        tuple(sorted((n for n, raw in ends.items() if raw), key=str)),
        tuple(sorted((n for n, raw in ends.items() if not raw), key=str)),
    )


# -- echoes ----------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:[.,'’][^\W_]+)*", re.UNICODE)
#: Words too common to say two texts restate each other.
STOPWORDS = frozenset(
    """a an and are as at be been but by for from had has have i if in into is it its of on or our so
    that the their them then there these they this to was we were which will with you your""".split()
)


def tokens(text: str) -> frozenset[str]:
    """The content words of ``text``, lower-cased (numbers kept: "14%" → "14").

    >>> sorted(tokens("The benchmark: Postgres 1.4x faster than MySQL."))
    ['1.4x', 'benchmark', 'faster', 'mysql', 'postgres', 'than']
    """
    return frozenset(w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS)


def echo_score(a: str, b: str) -> float:
    """Token overlap of two texts: Jaccard similarity of their content words, in [0, 1].

    >>> echo_score("We move to Postgres.", "We move to Postgres!")
    1.0
    >>> echo_score("tea", "coffee")
    0.0
    """
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


@dataclass(frozen=True)
class EchoProposal:
    """A proposed ``echo mem:echoOf original`` with its score. A proposal, not a fact:
    nothing is written unless :func:`accept_echoes` is called with it."""

    echo: NamedNode
    original: NamedNode
    score: float

    def quad(self, graph: IRI | None = None) -> Quad:
        g = DefaultGraph() if graph is None else _node(graph, "graph")
        return Quad(self.echo, mem.echoOf, self.original, g)


_CONTENTS = """
SELECT ?x ?content ?t ?r WHERE {
  ?x mem:content ?content .
  FILTER(isIRI(?x))
  OPTIONAL { ?x mem:eventTime ?t }
  OPTIONAL { ?x mem:recordedAt ?r }
}"""

_LINKED = """
SELECT ?a ?b WHERE {
  ?a mem:content [] .
  ?a (mem:echoOf|prov:wasDerivedFrom|mem:assertedBy|prov:wasQuotedFrom)+ ?b .
}"""


def _when(row: Any) -> tuple[int, str, str]:
    t = row["t"] or row["r"]
    if t is None:
        return (1, "", str(row["x"]))
    try:
        key = datetime.fromisoformat(t.value.replace("Z", "+00:00")).isoformat()
    except ValueError:
        key = t.value
    return (0, key, str(row["x"]))


def propose_echoes(
    store: MemoryStore, *, tenant: IRI | None = None, threshold: float = 0.55
) -> list[EchoProposal]:
    """Propose ``mem:echoOf`` between near-duplicate sources (those with ``mem:content``).

    Two sources whose :func:`echo_score` is at least ``threshold`` are near
    duplicates; the later one (by ``mem:eventTime``, else ``mem:recordedAt``,
    else IRI) is proposed as an echo of the earlier one it overlaps most. Pairs
    already linked by echo or derivation (either way) are not proposed. Nothing
    is written: see :func:`accept_echoes`.
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    options = dataset(tenant)
    rows = sorted(select(store, _CONTENTS, options), key=_when)
    docs: list[tuple[NamedNode, frozenset[str]]] = []
    seen: set[NamedNode] = set()
    for row in rows:
        if row["x"] not in seen:
            seen.add(row["x"])
            docs.append((row["x"], tokens(row["content"].value)))
    linked = {(r["a"], r["b"]) for r in select(store, _LINKED, options)}
    index: dict[str, list[int]] = defaultdict(list)
    proposals: list[EchoProposal] = []
    for j, (node, words) in enumerate(docs):
        shared: dict[int, int] = defaultdict(int)
        for w in words:
            for i in index[w]:
                shared[i] += 1
        best: tuple[float, int] | None = None
        for i, k in shared.items():
            other, other_words = docs[i]
            score = k / len(words | other_words)
            if score < threshold or (node, other) in linked or (other, node) in linked:
                continue
            if best is None or score > best[0] or (score == best[0] and i < best[1]):
                best = (score, i)
        if best is not None:
            proposals.append(EchoProposal(node, docs[best[1]][0], round(best[0], 4)))
        for w in words:
            index[w].append(j)
    return proposals


def accept_echoes(
    store: MemoryStore, proposals: Iterable[EchoProposal], *, graph: IRI | None = None
) -> int:
    """Record accepted proposals as ``mem:echoOf`` facts (one validated write); returns quads written."""
    return store.write([p.quad(graph) for p in proposals], source="accepted echo proposals")


# -- erasure ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Erasure:
    """A recorded erasure: the ``mem:Retraction`` written, what was removed and what was kept.

    ``removed`` are the identifiers whose content is gone (the source first);
    ``kept`` the claims downstream of it that another lawful source still
    supports (their links to removed nodes are cut); ``quads_removed`` counts data quads.
    """

    record: NamedNode
    removed: tuple[Node, ...]
    kept: tuple[NamedNode, ...]
    quads_removed: int


#: Links along which content flows downstream of a source (reverse direction: ?n LINK ?removed).
_FLOW = (
    mem.supportedBy, mem.member, mem.supportGroup, mem.echoOf, prov.wasDerivedFrom,
    mem.assertedBy, prov.wasGeneratedBy, prov.used, memx.subject, memx.object,
)
_SUPPORT = {mem.supportedBy, mem.supportGroup}
#: Lineage inputs of a node without support groups.
_LINEAGE_INPUTS = (prov.wasDerivedFrom, mem.assertedBy, mem.echoOf, prov.wasGeneratedBy, prov.used)
#: References to a removed identifier that are kept: decisions about identifiers, not content.
_KEEP_REFERENCES = {mem.retracts, mem.supersedes, mem.contradicts, mem.equivalentTo, mem.specializes}


def erase(
    store: MemoryStore, source: IRI, *, reason: str, graph: IRI | None = None
) -> Erasure:
    """Erase ``source`` (consent revoked) and what was derived only from it, in one atomic change.

    Follows support, derivation, assertion, generation/usage and echo links
    downstream from ``source`` inside ``graph`` (a tenant; None for the default
    graph). A downstream node is removed when it rests only on removed nodes:

    * a claim with support groups, when every group has a removed member — a
      claim that another lawful source still supports is kept (whether or not
      that source was withdrawn: erasure is about what may be held, not about
      belief);
    * any other node (a claim whose provenance is lineage only, an extraction,
      an echo, a derived document), when all its lineage inputs are removed;
    * a support group, when a member is removed; a claim whose proposition
      mentions a removed node;
    * a removed message's attachments (``mem:attachment``), parts of it.

    Removed: every quad about a removed node, the asserted triple of a removed
    occurrence (unless another reifier still asserts it), and kept nodes' links
    into removed ones (support, lineage, refutation). Kept: references by
    identifier in version and epistemic decisions (``mem:retracts``,
    ``mem:supersedes``, ``mem:contradicts``, …). Recorded in the same step: a
    ``mem:Retraction`` (also typed ``mem:Erasure`` once the ontology declares
    it) with ``mem:reason`` that ``mem:retracts`` every removed IRI, so they
    survive as identifiers only.

    Raises :class:`~memkg.errors.NotFoundError` if ``graph`` holds nothing about ``source``.
    """
    if not reason:
        raise ValueError("an erasure needs a reason")
    node = _node(source, "source")
    target: NamedNode | DefaultGraph = DefaultGraph() if graph is None else _node(graph, "graph")
    with store.lock():  # decide and remove in one step: no write may slip in between
        return _erase(store, node, reason, target)


def _erase(store: MemoryStore, node: NamedNode, reason: str, target: NamedNode | DefaultGraph) -> Erasure:
    raw = store.raw
    if not any(raw.quads_for_pattern(node, None, None, target)):
        raise NotFoundError(f"{node}: nothing by that IRI in graph {target}")

    def out(n: Node, p: NamedNode) -> list[Any]:
        return [q.object for q in raw.quads_for_pattern(n, p, None, target)]

    removed: dict[Node, None] = {node: None}
    considered: set[Node] = set()
    frontier: list[Node] = [node]
    while frontier:
        candidates: dict[Node, None] = {}
        for r in frontier:
            for p in _FLOW:
                for q in raw.quads_for_pattern(None, p, r, target):
                    if isinstance(q.subject, (NamedNode, BlankNode)) and q.subject not in removed:
                        candidates[q.subject] = None
        frontier = []
        for n in candidates:
            if _erased_with(n, removed, out, raw, target):
                removed[n] = None
                frontier.append(n)
        considered.update(candidates)
        # A kept node may fall later, when more of its inputs are removed: look again.
        if not frontier:
            again = [n for n in considered if n not in removed and _erased_with(n, removed, out, raw, target)]
            for n in again:
                removed[n] = None
            frontier = again
    # A message's attachments are parts of it (their captions are its content): they go with it.
    for n in list(removed):
        for part in out(n, mem.attachment):
            removed.setdefault(part, None)

    gone: set[Quad] = set()
    for n in removed:
        for q in raw.quads_for_pattern(n, None, None, target):
            gone.add(q)
            if q.predicate == rdf.reifies and isinstance(q.object, Triple) and _is_occurrence(raw, n, target):
                t = q.object
                others = [
                    o for o in raw.quads_for_pattern(None, rdf.reifies, t, target) if o.subject not in removed
                ]
                if not others:
                    gone.add(Quad(t.subject, t.predicate, t.object, target))
        for q in raw.quads_for_pattern(None, None, n, target):
            if q.subject not in removed and q.predicate not in _KEEP_REFERENCES and not q.predicate.value.startswith(
                "https://w3id.org/memkg/index#"
            ):
                gone.add(q)
    kept = sorted(
        (n for n in considered if n not in removed and isinstance(n, NamedNode) and out(n, rdf.reifies)), key=str
    )
    named = [n for n in removed if isinstance(n, NamedNode)]
    extra: list[tuple[_IRI, Any]] = [(rdf.type, ERASURE)] if _declared(store, ERASURE) else []
    record = Retraction(retracts=list[_IRI](named), reason=reason, id=new_id("erasure"), extra=extra)
    stamp = store.clock.tick()
    count = store.change(
        remove=sorted(gone, key=str), add=record.quads(target, stamp), source=f"erasure of {node}"
    )
    return Erasure(record.node(), tuple(removed), tuple(kept), count)


def _is_occurrence(raw: Any, n: Node, target: Any) -> bool:
    return any(raw.quads_for_pattern(n, rdf.type, mem.Occurrence, target))


def _erased_with(n: Node, removed: dict[Node, None], out: Any, raw: Any, target: Any) -> bool:
    """Whether ``n`` rests only on removed nodes (see :func:`erase`)."""
    # A claim whose proposition mentions a removed node.
    if any(o in removed for o in out(n, memx.subject)) or any(o in removed for o in out(n, memx.object)):
        return True
    members = out(n, mem.member)
    if members:  # a support group
        return any(m in removed for m in members)
    legs = out(n, mem.supportedBy)
    groups = out(n, mem.supportGroup)
    if legs or groups:
        if any(leg not in removed for leg in legs):
            return False
        for g in groups:
            if g in removed:
                continue
            ms = out(g, mem.member)
            if ms and not any(m in removed for m in ms):
                return False
        return True
    inputs = [o for p in _LINEAGE_INPUTS for o in out(n, p)]
    return bool(inputs) and all(i in removed for i in inputs)
