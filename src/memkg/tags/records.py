"""The records of one graph and their edge properties: writes, versions, and set questions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING
from typing import Literal as Mode

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Triple

from ..core.errors import NotFoundError
from ..core.terms import Term, datetime_literal, datetime_of, iri, new_id
from ..core.vocab import RDF_TYPE, mem
from ..store import as_graph, scope
from ..store.views import solutions

if TYPE_CHECKING:
    from ..store import MemoryStore
    from ..store.backends.base import QuadStore
    from .policy import Policy

from .properties import (
    _RESERVED_VALUE,
    ADJUSTMENT,
    CONNECT,
    DEFAULT_LANE,
    GROUP,
    RESERVED_PREFIX,
    Change,
    Declared,
    EdgeProperty,
    LabelCount,
    LaneError,
    Link,
    Properties,
    PropertyLike,
    Record,
    Rejected,
    ReservedLabelError,
    Step,
    Version,
    as_properties,
    check_name,
    connect_value,
    minted_value,
    normalize_label,
)
from .queries import (
    PROBE_CAP,
    PROBE_MAX,
    checked_known_at,
    iri_order,
    live_pattern,
    version_order,
)


class Tags:
    """Edge properties of the records in one graph of a :class:`~memkg.store.MemoryStore`.

    ``graph`` is the tenant's graph (None: the shared default graph). With a
    ``policy`` (:class:`~memkg.tags.policy.Policy`), every write is checked against
    the lanes and source types it declares and refused whole, with a
    :class:`~memkg.tags.policy.PolicyError`, if it breaks them.

    Writes: :meth:`add`, :meth:`update`, :meth:`remove`; the reserved
    hyperedges :meth:`connect`/:meth:`disconnect`, :meth:`group`/:meth:`ungroup`,
    :meth:`adjusts`/:meth:`unadjust`. Reads (each takes ``known_at``, a transaction
    time): :meth:`properties`, :meth:`version`, :meth:`history`, :meth:`labels`,
    :meth:`values`, :meth:`intersect`, :meth:`union`, :meth:`count`,
    :meth:`timeline`, :meth:`traverse`, :meth:`chain`.
    """

    def __init__(
        self,
        store: MemoryStore,
        *,
        graph: str | NamedNode | None = None,
        policy: Policy | None = None,
    ) -> None:
        self.store = store
        self.graph: NamedNode | DefaultGraph = as_graph(graph)
        self.policy = policy
        # Read-modify-write must not interleave with another writer of the same
        # store: share the store's own (reentrant) write lock.
        self._lock = store.lock()

    @property
    def _raw(self) -> QuadStore:
        return self.store.raw

    # -- reading versions -------------------------------------------------------------

    @property
    def _scope_name(self) -> str:
        return scope.graph_scope(self.graph)[1]

    def _known(self, record: Record) -> NamedNode:
        """``record`` as an IRI that the scope (this graph and the shared default graph) holds
        statements about, or that has versions in this graph; else an
        :class:`~memkg.core.errors.UnknownIRIError` naming the IRI, the scope and the nearest IRIs
        it holds."""
        node = iri(record, kind="record")
        graphs, name = scope.graph_scope(self.graph)
        raw = self._raw
        if not (any(next(iter(raw.quads_for_pattern(node, None, None, g)), None) is not None for g in graphs)
                or next(iter(raw.quads_for_pattern(None, mem.versionOf, node, self.graph)), None) is not None):
            raise scope.unknown_iri(raw, node, graphs, name)
        return node

    def _versions_of(self, record: NamedNode) -> list[NamedNode]:
        return [q.subject for q in self._raw.quads_for_pattern(None, mem.versionOf, record, self.graph)
                if isinstance(q.subject, NamedNode)]

    def _revisers(self, version: NamedNode) -> Iterator[NamedNode | BlankNode | Triple]:
        for q in self._raw.quads_for_pattern(None, mem.revises, version, self.graph):
            yield q.subject

    def _recorded(self, node: NamedNode | BlankNode | Triple) -> datetime | None:
        for q in self._raw.quads_for_pattern(node, mem.recordedAt, None, self.graph):
            return datetime_of(q.object)
        return None

    def _live(self, version: NamedNode, known_at: datetime | None) -> bool:
        """Whether ``version`` is the record's version at ``known_at`` (None: now)."""
        if known_at is None:
            return next(self._revisers(version), None) is None
        t = self._recorded(version)
        if t is None or t > known_at:
            return False
        return not any((rt := self._recorded(r)) is not None and rt <= known_at for r in self._revisers(version))

    def _read(self, node: NamedNode) -> Version:
        record: NamedNode | None = None
        recorded: datetime | None = None
        props: list[EdgeProperty] = []
        lane, source = DEFAULT_LANE, None
        revises: NamedNode | None = None
        for q in self._raw.quads_for_pattern(node, None, None, self.graph):
            p, o = q.predicate, q.object
            if p == mem.hasEdgeProperty:
                prop = EdgeProperty.from_iri(o) if isinstance(o, NamedNode) else None
                props.append(prop if prop is not None else self._describe_edge(o))
            elif p == mem.versionOf and isinstance(o, NamedNode):
                record = o
            elif p == mem.recordedAt:
                recorded = datetime_of(o)
            elif p == mem.lane and isinstance(o, Literal):
                lane = o.value
            elif p == mem.sourceType and isinstance(o, Literal):
                source = o.value
            elif p == mem.revises and isinstance(o, NamedNode):
                revises = o
        if record is None:
            raise NotFoundError(f"{node}: not a record version in {self._scope_name}")
        return Version(node, record, recorded, frozenset(props), lane, source, revises)

    def _describe_edge(self, node: Term) -> EdgeProperty:
        """An edge property whose IRI memkg did not mint: read its label and value."""
        label = self._edge_text(node, mem.edgeLabel)
        value = self._edge_text(node, mem.edgeValue)
        if label is None or value is None:
            raise NotFoundError(f"{node}: an edge property without mem:edgeLabel and mem:edgeValue in {self._scope_name}")
        return EdgeProperty(label, value)

    def _edge_text(self, node: Term, predicate: NamedNode) -> str | None:
        """The text of ``node``'s first ``predicate`` value (None when it has none, or is a literal)."""
        if isinstance(node, Literal):
            return None
        q = next(self._raw.quads_for_pattern(node, predicate, None, self.graph), None)
        return None if q is None or isinstance(q.object, Triple) else q.object.value

    def version(self, record: Record, *, known_at: datetime | None = None) -> Version | None:
        """The record's version now (or at transaction time ``known_at``); None if it had none then.

        :raises ~memkg.core.errors.UnknownIRIError: the record is in no graph of the scope."""
        return self._version(self._known(record), checked_known_at(known_at))

    def _version(self, node: NamedNode, known_at: datetime | None = None) -> Version | None:
        live = [v for v in self._versions_of(node) if self._live(v, known_at)]
        if not live:
            return None
        return max((self._read(v) for v in live), key=version_order)

    def history(self, record: Record) -> list[Version]:
        """Every version of the record's edge properties, oldest first (by ``recordedAt``, then IRI).

        :raises ~memkg.core.errors.UnknownIRIError: the record is in no graph of the scope."""
        node = self._known(record)
        return sorted((self._read(v) for v in self._versions_of(node)), key=version_order)

    def properties(self, record: Record, *, known_at: datetime | None = None) -> list[Declared]:
        """The properties the record carries now (or at ``known_at``), each with its stable id."""
        v = self.version(record, known_at=known_at)
        return v.declared() if v is not None else []

    # -- writing ----------------------------------------------------------------------

    def _require_record(self, node: NamedNode) -> None:
        raw = self._raw
        for kind in (mem.RecordVersion, mem.EdgeProperty):
            if Quad(node, RDF_TYPE, kind, self.graph) in raw:
                raise ValueError(f"{node} is a {kind.value.rsplit('#', 1)[-1]}, memkg's own bookkeeping, not a record")
        self._known(node)

    def _lane(self, head: Version | None, lane: str | None, source_type: str | None) -> tuple[str, str | None]:
        if lane is not None:
            check_name("lane", lane)
        if source_type is not None:
            check_name("source type", source_type)
        if head is None:
            return lane or DEFAULT_LANE, source_type
        if lane is not None and lane != head.lane:
            raise LaneError(f"{head.record}: its lane is {head.lane!r}, fixed at its first version; not {lane!r}")
        if source_type is not None and source_type != head.source_type:
            raise LaneError(
                f"{head.record}: its source type is {head.source_type!r}, fixed at its first version; "
                f"not {source_type!r}"
            )
        return head.lane, head.source_type

    def _version_quads(
        self,
        node: NamedNode,
        record: NamedNode,
        props: Iterable[EdgeProperty],
        lane: str,
        source_type: str | None,
        revises: NamedNode | None,
        recorded_at: datetime,
    ) -> list[Quad]:
        g = self.graph
        out = [
            Quad(node, RDF_TYPE, mem.RecordVersion, g),
            Quad(node, mem.versionOf, record, g),
            Quad(node, mem.recordedAt, datetime_literal(recorded_at), g),
        ]
        if lane != DEFAULT_LANE:
            out.append(Quad(node, mem.lane, Literal(lane), g))
        if source_type is not None:
            out.append(Quad(node, mem.sourceType, Literal(source_type), g))
        if revises is not None:
            out.append(Quad(node, mem.revises, revises, g))
        for p in sorted(props):
            edge = p.iri
            out += [
                Quad(node, mem.hasEdgeProperty, edge, g),
                Quad(edge, RDF_TYPE, mem.EdgeProperty, g),
                Quad(edge, mem.edgeLabel, Literal(p.label), g),
                Quad(edge, mem.edgeValue, Literal(p.value), g),
            ]
        return out

    def _commit(self, plans: Sequence["_Plan"]) -> list[Change]:
        """Write a new version for every plan that changes something, in one atomic write."""
        writing = [p for p in plans if p.changes_anything]
        if not writing:
            return [p.change(None) for p in plans]
        if self.policy is not None:
            # A write that only removes cannot break the policy further, so it is never refused;
            # one that adds must leave the record's whole set within the policy.
            for p in writing:
                if not set(p.new) <= p.old:
                    self.policy.check(p.lane, p.source_type, p.new, record=p.record)
        recorded_at = self.store.clock.tick()
        quads: list[Quad] = []
        nodes: dict[NamedNode, NamedNode] = {}
        for p in writing:
            node = new_id("version")
            nodes[p.record] = node
            quads += self._version_quads(
                node, p.record, p.new, p.lane, p.source_type, p.head.iri if p.head else None, recorded_at
            )
        self.store.write(quads, source=", ".join(str(p.record) for p in writing))
        return [p.change(nodes.get(p.record)) for p in plans]

    def _plan(self, record: Record, lane: str | None = None, source_type: str | None = None) -> "_Plan":
        node = iri(record, kind="record")
        self._require_record(node)
        head = self._version(node)
        resolved_lane, resolved_source = self._lane(head, lane, source_type)
        return _Plan(node, head, resolved_lane, resolved_source)

    def add(
        self,
        record: Record,
        properties: Properties,
        *,
        lane: str | None = None,
        source_type: str | None = None,
    ) -> Change:
        """Add properties to a record (add-only): a new version with the union of old and new.

        Properties already held are reported in ``already_held``, not repeated;
        reserved (``e_``) labels are skipped and reported in ``rejected``. A
        record's ``lane`` and ``source_type`` are fixed by its first version.
        Raises :class:`~memkg.tags.policy.PolicyError` when the result breaks the
        policy, :class:`NotFoundError` for an unknown record (nothing written).
        """
        with self._lock:
            plan = self._plan(record, lane, source_type)
            for p in _raw_properties(properties):
                try:
                    prop = EdgeProperty.of(p)
                except ValueError as err:
                    if isinstance(p, str) and p.partition(":")[0].strip().startswith(RESERVED_PREFIX):
                        plan.rejected.append(Rejected(p, str(err)))
                        continue
                    raise
                if prop.reserved:
                    plan.rejected.append(Rejected(str(prop), f"{prop.label}: labels starting "
                                                  f"{RESERVED_PREFIX!r} are reserved; only memkg mints them"))
                elif prop in plan.old:
                    if prop not in plan.already_held:
                        plan.already_held.append(prop)
                else:
                    plan.new.add(prop)
            return self._commit([plan])[0]

    def update(
        self,
        record: Record,
        properties: Properties,
        *,
        lane: str | None = None,
        source_type: str | None = None,
    ) -> Change:
        """Merge by label: each label named has all its values replaced by the ones given; others stay.

        An update that changes nothing writes nothing (``version`` is None).
        Raises :class:`ReservedLabelError` for an ``e_`` label (nothing written).
        """
        props = as_properties(properties)
        _refuse_reserved(props, "update")
        with self._lock:
            plan = self._plan(record, lane, source_type)
            labels = {p.label for p in props}
            plan.new = {p for p in plan.new if p.label not in labels} | set(props)
            return self._commit([plan])[0]

    def remove(self, record: Record, label: str, values: Iterable[str] | str | None = None) -> Change:
        """Remove a label (every value of it) or, with ``values``, only those values.

        Values the record does not carry are reported in ``not_held``; removing
        nothing writes nothing. Raises :class:`ReservedLabelError` for an ``e_``
        label: the engine's hyperedges go with disconnect, ungroup, unadjust.
        """
        name = normalize_label(label)
        if name.startswith(RESERVED_PREFIX):
            raise ReservedLabelError(f"{name}: labels starting {RESERVED_PREFIX!r} are reserved; "
                                     f"use disconnect, ungroup or unadjust")
        with self._lock:
            plan = self._plan(record)
            if values is None:
                plan.new = {p for p in plan.new if p.label != name}
            else:
                drop = [EdgeProperty(name, v) for v in ([values] if isinstance(values, str) else values)]
                plan.not_held += [p for p in drop if p not in plan.new]
                plan.new -= set(drop)
            return self._commit([plan])[0]

    # -- reserved hyperedges --------------------------------------------------------------

    def _reserved_write(self, edits: dict[NamedNode, tuple[set[EdgeProperty], set[EdgeProperty]]]) -> list[Change]:
        plans = []
        for record, (plus, minus) in edits.items():
            plan = self._plan(record)
            plan.new = (plan.new - minus) | plus
            plans.append(plan)
        return self._commit(plans)

    def _reserved_of(self, record: NamedNode, label: str) -> list[EdgeProperty]:
        v = self._version(record)
        return sorted(p for p in (v.properties if v else ()) if p.label == label)

    def connect(self, a: Record, b: Record) -> Link:
        """Join two records with an ``e_connect`` hyperedge (exactly two records). Connecting twice is a no-op."""
        x, y = iri(a, kind="record"), iri(b, kind="record")
        if x == y:
            raise ValueError(f"{x}: a record cannot be connected to itself")
        prop = EdgeProperty(CONNECT, connect_value(x, y))
        with self._lock:
            return Link(prop, tuple(self._reserved_write({x: ({prop}, set()), y: ({prop}, set())})))

    def disconnect(self, a: Record, b: Record) -> Link:
        """Remove the ``e_connect`` hyperedge between two records (a no-op if they are not connected)."""
        x, y = iri(a, kind="record"), iri(b, kind="record")
        prop = EdgeProperty(CONNECT, connect_value(x, y))
        with self._lock:
            return Link(prop, tuple(self._reserved_write({x: (set(), {prop}), y: (set(), {prop})})))

    def connections(self, record: Record, *, known_at: datetime | None = None) -> list[NamedNode]:
        """The records ``record`` is connected to.

        :raises ~memkg.core.errors.UnknownIRIError: the record is in no graph of the scope."""
        node = self._known(record)
        v = self._version(node, checked_known_at(known_at))
        props = [p for p in (v.properties if v else ()) if p.label == CONNECT]
        return sorted({r for p in props for r in self._carriers(p, known_at) if r != node}, key=iri_order)

    def group(self, records: Iterable[Record], *, into: str | None = None) -> Link:
        """Join records with an ``e_group`` hyperedge (two or more); ``into`` names an existing group to extend."""
        nodes = list(dict.fromkeys(iri(r, kind="record") for r in records))
        with self._lock:
            if into is None:
                if len(nodes) < 2:
                    raise ValueError("a group joins two or more records")
                prop = EdgeProperty(GROUP, minted_value(GROUP))
            else:
                prop = EdgeProperty(GROUP, into)
                if not _RESERVED_VALUE.match(prop.value) or not prop.value.startswith(GROUP + "_"):
                    raise ReservedLabelError(f"{into!r} is not an e_group value memkg minted")
                members = set(self._carriers(prop, None))
                if not members:
                    raise NotFoundError(f"{into}: no current group by that value in {self._scope_name}")
                if len(members | set(nodes)) < 2:
                    raise ValueError("a group joins two or more records")
            return Link(prop, tuple(self._reserved_write({n: ({prop}, set()) for n in nodes})))

    def ungroup(self, value: str, records: Iterable[Record] | None = None) -> Link:
        """Take records out of a group (all of them without ``records``).

        A group left with fewer than two records is dissolved: the last one leaves too.
        """
        prop = EdgeProperty(GROUP, value)
        with self._lock:
            members = self._carriers(prop, None)
            leaving = set(members) if records is None else {iri(r, kind="record") for r in records} & set(members)
            if len(set(members) - leaving) < 2:
                leaving = set(members)
            return Link(prop, tuple(self._reserved_write({n: (set(), {prop}) for n in sorted(leaving, key=iri_order)})))

    def adjusts(self, new: Record, old: Record) -> Link:
        """Record that ``new`` adjusts ``old``: both join ``old``'s ``e_adjustment`` chain (minted if it has none).

        The chain is ordered by the records' time (see :meth:`timeline`). A
        record is in at most one chain.
        """
        n, o = iri(new, kind="record"), iri(old, kind="record")
        if n == o:
            raise ValueError(f"{n}: a record cannot adjust itself")
        with self._lock:
            old_chain = self._reserved_of(o, ADJUSTMENT)
            new_chain = self._reserved_of(n, ADJUSTMENT)
            prop = old_chain[0] if old_chain else (new_chain[0] if new_chain else EdgeProperty(ADJUSTMENT, minted_value(ADJUSTMENT)))
            if new_chain and new_chain[0] != prop:
                raise ValueError(f"{n} already belongs to another adjustment chain ({new_chain[0].value})")
            return Link(prop, tuple(self._reserved_write({o: ({prop}, set()), n: ({prop}, set())})))

    def unadjust(self, record: Record) -> Link:
        """Take a record out of its adjustment chain; a chain left with one record is dissolved."""
        node = iri(record, kind="record")
        with self._lock:
            chain = self._reserved_of(node, ADJUSTMENT)
            if not chain:
                return Link(None, ())
            prop = chain[0]
            members = set(self._carriers(prop, None))
            leaving = {node} if len(members) > 2 else members
            return Link(prop, tuple(self._reserved_write({m: (set(), {prop}) for m in sorted(leaving, key=iri_order)})))

    def chain(self, record: Record, *, known_at: datetime | None = None) -> list[NamedNode]:
        """The adjustment chain ``record`` belongs to, in time order (empty if none).

        :raises ~memkg.core.errors.UnknownIRIError: the record is in no graph of the scope."""
        node = self._known(record)
        v = self._version(node, checked_known_at(known_at))
        props = [p for p in (v.properties if v else ()) if p.label == ADJUSTMENT]
        members = {r for p in props for r in self._carriers(p, known_at)}
        return [r for r, _ in self._ordered(members)]

    # -- gathering -------------------------------------------------------------------------

    def _carriers(self, prop: EdgeProperty, known_at: datetime | None) -> list[NamedNode]:
        """The records whose version (now, or at ``known_at``) carries ``prop``, in IRI order."""
        return self._records(f"?v mem:hasEdgeProperty {prop.iri} .", known_at)

    def _in_graph(self, body: str) -> str:
        return body if isinstance(self.graph, DefaultGraph) else f"GRAPH {self.graph} {{ {body} }}"

    def _records(self, patterns: str, known_at: datetime | None) -> list[NamedNode]:
        """The records of the versions ``?v`` matching ``patterns`` that are live now (or at ``known_at``).

        The join runs inside Oxigraph, on its ids: terms are decoded for the result rows only.
        Every term in ``patterns`` is serialized by pyoxigraph (never pasted text).
        """
        body = f"{patterns} {live_pattern(known_at)} ?v mem:versionOf ?r ."
        rows = solutions(self.store.query(f"SELECT DISTINCT ?r WHERE {{ {self._in_graph(body)} }}"))
        return sorted((row["r"] for row in rows), key=iri_order)

    def _size(self, prop: EdgeProperty, cap: int) -> int:
        """How many versions carry ``prop``, counted up to ``cap`` (a cheap, bounded scan)."""
        body = self._in_graph(f"?v mem:hasEdgeProperty {prop.iri} .")
        q = f"SELECT (COUNT(*) AS ?n) WHERE {{ SELECT ?v WHERE {{ {body} }} LIMIT {int(cap)} }}"
        return int(next(solutions(self.store.query(q)))["n"].value)

    def _smallest_first(self, props: list[EdgeProperty]) -> list[EdgeProperty]:
        """``props`` ordered by how many versions carry each, smallest first.

        Sizes are counted up to a cap that grows tenfold only while two or more
        properties reach it, so the cost follows the second-smallest hyperedge.
        """
        if len(props) < 2:
            return props
        cap = PROBE_CAP
        sizes = {p: self._size(p, cap) for p in props}
        while cap < PROBE_MAX and sum(1 for n in sizes.values() if n >= cap) > 1:
            cap *= 10
            for p in [p for p, n in sizes.items() if n >= cap // 10]:
                sizes[p] = self._size(p, cap)
        return sorted(props, key=lambda p: sizes[p])

    def _gather_props(self, properties: Properties) -> list[EdgeProperty]:
        props = as_properties(properties)
        if not props:
            raise ValueError("name at least one edge property")
        for p in props:
            if p.label == ADJUSTMENT:
                raise ReservedLabelError(
                    f"{p}: adjustment chains stay out of intersect and union; walk them with traverse() or chain()"
                )
        return props

    def intersect(
        self,
        properties: Properties,
        *,
        known_at: datetime | None = None,
    ) -> list[NamedNode]:
        """The records carrying every one of ``properties`` (now, or at ``known_at``), in IRI order.

        The properties are joined smallest hyperedge first (sizes counted up to a
        cap), so the cost follows the smallest, not the largest.
        """
        props = self._smallest_first(self._gather_props(properties))
        known_at = checked_known_at(known_at)
        return self._records(" ".join(f"?v mem:hasEdgeProperty {p.iri} ." for p in props), known_at)

    def union(
        self,
        properties: Properties,
        *,
        known_at: datetime | None = None,
    ) -> list[NamedNode]:
        """The records carrying any of ``properties`` (now, or at ``known_at``), in IRI order."""
        props = self._gather_props(properties)
        known_at = checked_known_at(known_at)
        return self._records(" UNION ".join(f"{{ ?v mem:hasEdgeProperty {p.iri} }}" for p in props), known_at)

    def count(
        self,
        properties: Properties,
        *,
        mode: Mode["all", "any"] = "all",
        known_at: datetime | None = None,
    ) -> int:
        """How many records carry every (``mode="all"``) or any (``"any"``) of ``properties``."""
        return len(self._gather(properties, mode, known_at))

    def _gather(self, properties: Properties, mode: str, known_at: datetime | None) -> list[NamedNode]:
        if mode == "all":
            return self.intersect(properties, known_at=known_at)
        if mode == "any":
            return self.union(properties, known_at=known_at)
        raise ValueError(f"mode must be 'all' (intersect) or 'any' (union), not {mode!r}")

    def record_time(self, record: Record) -> datetime | None:
        """A record's time: its ``mem:eventTime``, else its ``mem:recordedAt``, else its first version's."""
        node = iri(record, kind="record")
        graphs: list[NamedNode | DefaultGraph] = [self.graph]
        if not isinstance(self.graph, DefaultGraph):
            graphs.append(DefaultGraph())
        for p in (mem.eventTime, mem.recordedAt):
            for g in graphs:
                for q in self._raw.quads_for_pattern(node, p, None, g):
                    t = datetime_of(q.object)
                    if t is not None:
                        return t
        times = [t for v in self._versions_of(node) if (t := self._recorded(v)) is not None]
        return min(times) if times else None

    def _ordered(self, records: Iterable[NamedNode]) -> list[tuple[NamedNode, datetime | None]]:
        timed = [(r, self.record_time(r)) for r in records]
        return sorted(timed, key=lambda rt: (rt[1] is None, rt[1] or datetime.min, rt[0].value))

    def timeline(
        self,
        properties: Properties,
        *,
        mode: Mode["all", "any"] = "all",
        known_at: datetime | None = None,
    ) -> list[tuple[NamedNode, datetime | None]]:
        """The records of :meth:`intersect` (``mode="all"``) or :meth:`union` (``"any"``), oldest first.

        Each row is ``(record, time)``, the time from :meth:`record_time`;
        records without a time come last.
        """
        return self._ordered(self._gather(properties, mode, known_at))

    def traverse(
        self,
        record: Record,
        *,
        depth: int = 1,
        labels: Iterable[str] | None = None,
        limit: int | None = None,
        known_at: datetime | None = None,
    ) -> list[Step]:
        """From ``record`` along its shared properties to other records, breadth first, ``depth`` hops at most.

        Every property is walked, adjustment chains, connections and groups
        included; ``labels`` restricts the walk to those labels. Each record is
        reached once, at its smallest depth; ``limit`` stops after that many.
        """
        if depth < 0:
            raise ValueError(f"depth must be >= 0, not {depth}")
        known_at = checked_known_at(known_at)
        allowed = {normalize_label(label) for label in labels} if labels is not None else None
        start = self._known(record)
        seen = {start}
        frontier = [start]
        steps: list[Step] = []
        for d in range(1, depth + 1):
            nxt: list[NamedNode] = []
            for source in frontier:
                v = self._version(source, known_at)
                for prop in sorted(v.properties if v else ()):
                    if allowed is not None and prop.label not in allowed:
                        continue
                    for other in self._carriers(prop, known_at):
                        if other in seen:
                            continue
                        seen.add(other)
                        steps.append(Step(other, d, prop, source))
                        nxt.append(other)
                        if limit is not None and len(steps) >= limit:
                            return steps
            frontier = nxt
        return steps

    # -- listings ----------------------------------------------------------------------------

    def _where(self, known_at: datetime | None) -> str:
        return self._in_graph(f"?v mem:versionOf ?r ; mem:hasEdgeProperty ?p . {live_pattern(known_at)} "
                              f"?p mem:edgeLabel ?label ; mem:edgeValue ?value .")

    def labels(self, *, known_at: datetime | None = None) -> list[LabelCount]:
        """Every label in use, with how many records carry it and how many distinct values it has."""
        q = (f"SELECT ?label (COUNT(DISTINCT ?r) AS ?n) (COUNT(DISTINCT ?p) AS ?k) "
             f"WHERE {{ {self._where(checked_known_at(known_at))} }} GROUP BY ?label ORDER BY ?label")
        return [LabelCount(row["label"].value, int(row["n"].value), int(row["k"].value))
                for row in solutions(self.store.query(q))]

    def values(self, label: str, *, known_at: datetime | None = None) -> list[tuple[str, int]]:
        """The values of ``label`` in use, each with how many records carry it, most used first."""
        name = Literal(normalize_label(label))
        q = (f"SELECT ?value (COUNT(DISTINCT ?r) AS ?n) WHERE {{ {self._where(checked_known_at(known_at))} "
             f"FILTER(?label = {name}) }} GROUP BY ?value ORDER BY DESC(?n) ?value")
        return [(row["value"].value, int(row["n"].value)) for row in solutions(self.store.query(q))]


def _raw_properties(props: Properties) -> list[PropertyLike]:
    if isinstance(props, (str, EdgeProperty)):
        return [props]
    return list(props)


def _refuse_reserved(props: Iterable[EdgeProperty], operation: str) -> None:
    bad = [str(p) for p in props if p.reserved]
    if bad:
        raise ReservedLabelError(
            f"{operation} refused: {', '.join(bad)}: labels starting {RESERVED_PREFIX!r} are reserved; "
            f"only connect, group and adjusts write them"
        )


@dataclass
class _Plan:
    """One record's pending change: its current version and the set it will carry."""

    record: NamedNode
    head: Version | None
    lane: str
    source_type: str | None
    new: set[EdgeProperty] = field(default_factory=set)
    already_held: list[EdgeProperty] = field(default_factory=list)
    not_held: list[EdgeProperty] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.new = set(self.old)

    @property
    def old(self) -> frozenset[EdgeProperty]:
        return self.head.properties if self.head is not None else frozenset()

    @property
    def changes_anything(self) -> bool:
        return set(self.new) != set(self.old)

    def change(self, version: NamedNode | None) -> Change:
        return Change(
            record=self.record,
            version=version,
            added=tuple(sorted(set(self.new) - self.old)) if version else (),
            removed=tuple(sorted(self.old - set(self.new))) if version else (),
            already_held=tuple(self.already_held),
            not_held=tuple(self.not_held),
            rejected=tuple(self.rejected),
        )
