"""The support graph: the part of the memory a support question needs, read from the store or the support index, and standing computed over it as a least fixpoint."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress
from typing import Any

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    QueryResultsFormat,
    RdfFormat,
    parse,
)

from ..core.terms import Resource, tenant_iri
from ..core.vocab import mem
from ..store import MemoryStore
from .datasets import IRI, Node, as_node, chunks, node_arg, select
from .support_index import SUPPORT_INDEX, SupportIndex, graph_key

# -- the support graph ---------------------------------------------------------------

#: Marks an echo row in the structure queries (a group node can never be this IRI).
_ECHO = str(mem.echoOf)

#: What the fixpoint needs to know about ?x: each support alternative (?g the
#: group, unbound for a mem:supportedBy leg; ?g = mem:echoOf for what ?x echoes)
#: with its member ?m, and ?w, whatever withdraws ?x (mem:retracts, mem:supersedes).
_ALTERNATIVE_BRANCHES = """
    { ?x mem:supportedBy ?m }
    UNION { ?x mem:supportGroup ?g OPTIONAL { ?g mem:member ?m } }
    UNION { ?x mem:echoOf ?m BIND(mem:echoOf AS ?g) }"""
_WITHDRAWERS = "  OPTIONAL { ?w mem:retracts|mem:supersedes ?x }\n"
_ALTERNATIVES = "\n  OPTIONAL {" + _ALTERNATIVE_BRANCHES + "\n  }\n"
#: The withdrawers are one more branch of the alternatives' UNION, not an OPTIONAL of their
#: own after it: Virtuoso 7 drops the binding of an OPTIONAL that follows an unmatched
#: OPTIONAL over a UNION (a superseded claim with no recorded support read as standing).
#: A row is then an alternative or a withdrawer, never their product.
_STRUCTURE = ("\n  OPTIONAL {" + _ALTERNATIVE_BRANCHES
              + "\n    UNION { ?w mem:retracts|mem:supersedes ?x }\n  }\n")

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
    node = tenant_iri(tenant)
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


def node_key(node: Node) -> str:
    return str(node) if isinstance(node, (NamedNode, BlankNode)) else "~" + str(node)


def iri_key(node: Resource) -> str:
    return node.value if isinstance(node, NamedNode) else "_:" + node.value


def key_order(key: str) -> str:
    """The order of :func:`iri_key`, from a support graph key."""
    return key[1:-1] if key[0] == "<" else key


def is_iri_key(key: str) -> bool:
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
class WithdrawalEffect:
    """What withdrawing some nodes does inside one support graph (see :meth:`SupportGraph.withdrawal_effect`)."""

    fallen: tuple[NamedNode, ...]
    fallen_sources: tuple[Node, ...]
    weakened: tuple[NamedNode, ...]


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
        key = node_key(term)
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
            named = [self._keys[j] for j in todo if is_iri_key(self._keys[j])]
            mentioned: list[int] = []
            for chunk in chunks(named):
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
            named = [keys[i] for i in asked if is_iri_key(keys[i])]
            rows = [row for chunk in chunks(named) for row in _rows(store, _WITHDRAWALS_OF % _iri_keys(chunk), options)]
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
            self._odd[k] = index.terms[k]
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
                keys[k] = node_key(m)
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
        for owner, g, ms in zip(self._intern(owners), names, members):
            self._grp.setdefault((owner, g), []).extend(ids[k : k + len(ms)])
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
        start = [graph._id(node_key(node_arg(n))) for n in nodes]
        graph._close(store, _structure_options(store, tenant), start)
        return graph

    @classmethod
    def downstream_of(
        cls, store: MemoryStore, sources: Iterable[IRI], *, tenant: IRI | None = None
    ) -> "SupportGraph":
        """The downstream cone of ``sources`` (what may fall with them), closed upward."""
        options = _structure_options(store, tenant)
        roots = [node_key(as_node(s, "source")) for s in sources]
        index = store.follower(SUPPORT_INDEX, create=True)
        if index is not None:
            graph = cls()
            with store.lock():  # every write updates the index in place
                graph._read_indexed(index, options, roots)
            return graph
        if FAST_CONE and store.capabilities.in_process:
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
        return self._ids.get(node_key(node))

    def node(self, i: int) -> Node:
        return self._term(self._keys[i])

    def groups(self, node: Node) -> list[Group]:
        """The support alternatives of ``node``: legs first (by member), then groups (by node), each
        group's members by IRI (the order a server returns them in is its own)."""
        i = self.node_id(node)
        if i is None:
            return []
        term, keys = self._term, self._keys
        out = [
            Group(None if g is None else term(g), tuple(term(keys[j]) for j in sorted(ms, key=lambda j: keys[j])))
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

    # -- what a withdrawal does --

    def withdrawal_effect(self, roots: Iterable[Node], *, with_weakened: bool = True) -> WithdrawalEffect:
        """What withdrawing ``roots`` together does to the nodes of this graph.

        ``fallen``: claims (IRIs) that stand now and would lose all support;
        ``fallen_sources``: other nodes that would stop standing (echoes of a
        source); ``weakened`` (with ``with_weakened``): claims that would lose
        at least one standing group and still stand.
        """
        keys = self._keys
        root_ids = {self._ids[node_key(r)] for r in roots}
        before, after = self._fixpoint(root_ids)
        has_alt = self._prepare()[4]

        def in_order(ids: Iterable[int]) -> list[Any]:
            return [self.node(i) for i in sorted(ids, key=lambda i: key_order(keys[i]))]

        fallen_ids = [i for i in self.downstream if before[i] and not after[i] and i not in root_ids]
        # the fallen claims are IRIs: ordered by value as text, then made terms in one pass
        fallen = list(map(NamedNode, sorted(keys[i][1:-1] for i in fallen_ids if has_alt[i] and keys[i][0] == "<")))
        fallen_sources = in_order(i for i in fallen_ids if not has_alt[i])
        weakened: list[NamedNode] = []
        if with_weakened:
            alts = self._alternatives()
            weakened = in_order(
                i
                for i in self.downstream
                if after[i] and i not in root_ids and is_iri_key(keys[i]) and any(
                    members and all(before[j] for j in members) and not all(after[j] for j in members)
                    for _g, members in alts[i]
                )
            )
        return WithdrawalEffect(tuple(fallen), tuple(fallen_sources), tuple(weakened))

    # -- standing --

    def _prepare(self) -> Any:
        """The fixpoint's arrays: who rests on each node by a leg, the groups (owner, size) and
        who watches them, which nodes have alternatives, and the echo counters."""
        if self._plan is None:
            n = len(self._keys)
            # A leg is a one-member alternative: the node resting on it is satisfied as soon as
            # the member stands, no counter needed. A repeated leg is watched twice: harmless.
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
