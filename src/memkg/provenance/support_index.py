"""The support links of a local store, held in memory both ways and kept current by its writes.

:func:`memkg.provenance.dependents` needs the structure of a whole cone: every
``mem:supportedBy``, ``mem:supportGroup``, ``mem:member`` and ``mem:echoOf`` link
into and out of thousands of nodes, and their withdrawals (``mem:retracts``,
``mem:supersedes``). Read from Oxigraph that is an index read or more per node
(~90 ms for a cone of 10k claims in memory, ~240 ms on disk, at 100k claims); held
here, it is dictionary lookups.

The index is opt-in (``MemoryStore(path, followers=[SUPPORT_INDEX])``), as it costs memory
(about 430 bytes a link: 50 MB for the 116k links of 100k claims) and a build on
first use (one scan of the six predicates: ~0.3 s in memory, ~0.9 s on disk for
those), which a one-off command would pay for one answer. It is then maintained, not
invalidated, by every write the store makes (:meth:`MemoryStore.write`,
``change``, ``load`` and ``load_data``), after the write succeeded and under the
write lock (an update that fails half way drops it: the next use builds it
again). Writes that bypass the store (``store.raw``) are not seen: the raw store is
documented as read-only for that reason. Remote stores never have one (other
clients write to the server). A store that keeps one hands it back by its kind:
``store.follower(SUPPORT_INDEX, create=True)``.

Nodes are keyed by their serialized form (``str()`` of an IRI or blank node, the
keys of :class:`memkg.provenance.SupportGraph`); a literal or triple term in object
position gets a ``"~"`` key and is kept in :attr:`SupportIndex.terms`. Each
adjacency is a dict used as an ordered set, so repeated quads are one link.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pyoxigraph import BlankNode, NamedNode, Quad

from ..core.terms import Term
from ..core.vocab import mem
from ..store.backends.base import QuadStore
from ..store.plugins import Host

#: The predicates held, by the name the index uses for them.
LINKS = {
    mem.supportedBy: "leg",
    mem.supportGroup: "group",
    mem.member: "member",
    mem.echoOf: "echo",
    mem.retracts: "retracts",
    mem.supersedes: "supersedes",
}

#: graph key -> subject key -> object keys (or object key -> subject keys, the reverse way)
Adjacency = dict[str, dict[str, dict[str, None]]]


def node_key(term: object) -> str:
    """The key of a node: its serialization; anything else (a literal, a triple term) gets a "~"."""
    return str(term) if isinstance(term, (NamedNode, BlankNode)) else "~" + str(term)


def graph_key(graph: object) -> str:
    """The key of a graph: its IRI serialized, or "" for the default graph."""
    return str(graph) if isinstance(graph, NamedNode) else ""


class SupportIndex:
    """``forward[name][graph][subject]`` → objects and ``backward[name][graph][object]`` → subjects.

    A store's follower (:class:`memkg.store.plugins.Follower`): every write the store makes
    is applied to it, under the write lock."""

    #: On a streamed write (a bulk load), the quads it is handed: its links.
    follows = frozenset(LINKS)

    def __init__(self) -> None:
        names = set(LINKS.values())
        self.forward: dict[str, Adjacency] = {n: {} for n in names}
        self.backward: dict[str, Adjacency] = {n: {} for n in names}
        self.terms: dict[str, Term] = {}  # the terms of "~" keys

    @classmethod
    def build(cls, raw: QuadStore) -> "SupportIndex":
        """The index of every support link in ``raw`` (all graphs)."""
        index = cls()
        for predicate in LINKS:
            index.apply(added=raw.quads_for_pattern(None, predicate, None, None))
        return index

    def begin(self, added: Sequence[Quad] | None, removed: Sequence[Quad]) -> None:
        """Nothing to note before a commit: the index lives in memory, and a crash loses it whole."""
        return None

    def apply(self, *, added: Iterable[Quad] = (), removed: Iterable[Quad] = (), begun: object = None) -> None:
        """Take a committed write into account: ``removed`` quads first, then ``added`` (as a change does)."""
        for q in removed:
            name = LINKS.get(q.predicate)
            if name is not None:
                self._unlink(name, graph_key(q.graph_name), str(q.subject), node_key(q.object))
        for q in added:
            name = LINKS.get(q.predicate)
            if name is not None:
                o = node_key(q.object)
                if o[0] == "~":
                    self.terms[o] = q.object
                g = graph_key(q.graph_name)
                s = str(q.subject)
                self.forward[name].setdefault(g, {}).setdefault(s, {})[o] = None
                self.backward[name].setdefault(g, {}).setdefault(o, {})[s] = None

    def _unlink(self, name: str, g: str, s: str, o: str) -> None:
        for table, a, b in ((self.forward[name], s, o), (self.backward[name], o, s)):
            ends = table.get(g, {}).get(a)
            if ends is not None:
                ends.pop(b, None)
                if not ends:
                    del table[g][a]

    def graphs(self) -> list[str]:
        """The keys of every graph holding a support link."""
        return sorted({g for table in self.forward.values() for g in table})

    def snapshot(self) -> dict[str, dict[str, dict[str, set[str]]]]:
        """The forward links as plain sets (for comparing two indexes in tests)."""
        return {
            name: {g: {s: set(os) for s, os in table.items() if os} for g, table in by_graph.items() if table}
            for name, by_graph in self.forward.items()
        }


    def close(self) -> None:
        pass


class SupportIndexKind:
    """Opens the support index of a store that is given this kind
    (``MemoryStore(path, followers=[SUPPORT_INDEX])``) and keeps followers
    (``capabilities.sole_writer``): built on first use, from the store's links."""

    name = "support index"

    def open(self, host: Host, *, create: bool) -> SupportIndex | None:
        if not (create and host.capabilities.sole_writer):
            return None
        return SupportIndex.build(host.raw)


#: The support index's kind: give it to a store to keep the support links in memory.
SUPPORT_INDEX = SupportIndexKind()
