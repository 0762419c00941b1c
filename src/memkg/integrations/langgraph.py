"""LangGraph's long-term memory in memkg: :class:`MemkgStore`, a ``langgraph.store.base.BaseStore``.

A graph compiled with ``store=MemkgStore(memory)`` keeps what its nodes ``put`` as
memkg claims, so it remembers across threads, and every change is a version:

* a **namespace** is a tenant of its own: the named graph ``urn:memkg:langgraph:`` followed
  by its labels, percent-encoded and joined by ``/`` (:meth:`MemkgStore.tenant`); a search
  or a listing reads only the tenants its namespace prefix names;
* a **key** is a stable IRI in its namespace's tenant, ``TENANT#KEY`` (:meth:`MemkgStore.iri`):
  a ``mem:Entity`` whose display name is the key;
* each **put** is a new claim, ``<item> integrations:value "the value's text"``, keeping the
  value verbatim as JSON, that supersedes the item's current version (``mem:supersedes``);
  putting the current value again writes nothing. A **delete** is a ``mem:Retraction`` of the
  current version. Nothing is overwritten: :meth:`MemkgStore.history` (and memkg's
  ``history`` view) reads every version back;
* **search** with a ``query`` is memkg's recall over those tenants (lexical, vector, entity,
  time and graph signals), each hit's score the ``SearchItem``'s; what recall reads of a value
  is its text: every string in it, or, with ``index={"fields": [...]}`` (or a put's
  ``index=[...]``), the fields named, in LangGraph's path syntax (``index=False``: none; the
  item's key still names it). A search without a query lists the current items, latest first.
  ``filter`` keeps the values that match, as LangGraph's own stores do (``$eq``, ``$ne``,
  ``$gt``, ``$gte``, ``$lt``, ``$lte``).

``batch`` answers its reads from the memory as it was before the batch, then writes all of
its puts and deletes in one atomic, validated write (the last op for a key wins), as
LangGraph's in-memory store does; ``abatch`` runs the same on a worker thread. A write
memkg refuses raises :class:`StoreWriteRefused` (a ``langgraph.errors.InvalidUpdateError``
and a :class:`memkg.Refused`) naming the rule; nothing of the batch is written.

Needs ``pip install 'memkg[langgraph]'``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from typing import Literal as Only
from urllib.parse import unquote

# This module is the LangGraph extra (pip install 'memkg[langgraph]'): imported only when used.
from langgraph.errors import InvalidUpdateError
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
    tokenize_path,
    validate_op_namespace,
)
from pyoxigraph import Literal, NamedNode, Quad

from memkg import Claim, MemoryStore, Predicate, Refused, Retraction, ValidationError, Vertex, mem, prov
from memkg.core.vocab import RDF_TYPE, memi, xsd
from memkg.recall import recall

from .shared import PAYLOAD, StoreArg, json_literal, json_value, open_store, refused, segment

__all__ = ["DEFAULT_TENANT_BASE", "MemkgStore", "StoreWriteRefused", "Version"]

#: Where namespaces' tenant graphs are named, unless ``tenant_base`` says otherwise.
DEFAULT_TENANT_BASE = "urn:memkg:langgraph:"
#: The predicate of every version claim: the item's value, as words.
VALUE = memi.value
#: Version claim → the item it is a version of (a lookup, where the triple term needs a scan).
OF_ITEM = memi.item
#: Version claim → when the item's first version since its last delete was recorded.
CREATED = memi.createdAt
#: A search with a query reads at most this many recall hits (or ten per result asked for).
MAX_RECALL_HITS = 1000

_DELETED = "deleted through LangGraph"


class StoreWriteRefused(InvalidUpdateError, Refused):
    """A put or delete memkg refused (a broken invariant, named with its node); nothing of the
    batch was written. ``violations`` lists the rules broken."""


@dataclass(frozen=True)
class Version:
    """One version of an item: the claim that recorded it, its value, when the memory learned
    it, and its status now (``current``, ``superseded`` or ``deleted``)."""

    claim: str
    value: dict[str, Any]
    recorded_at: datetime
    status: str


@dataclass(frozen=True)
class _Current:
    claim: NamedNode
    payload: Literal
    text: str
    created: Literal
    recorded: Literal


class MemkgStore(BaseStore):
    """LangGraph's ``BaseStore`` over a memkg memory (see the module doc).

    ``store`` is a :class:`~memkg.MemoryStore` or the path of one. ``index`` is LangGraph's
    index configuration; memkg reads only its ``fields`` (the embedder is the memory's own,
    ``MemoryStore(path, followers=[recall_index(embedder=…)])``, so ``embed`` and ``dims`` are
    refused). ``tenant_base`` prefixes every namespace's tenant IRI.

    >>> from memkg import MemoryStore
    >>> from memkg.recall import HashingEmbedder, recall_index
    >>> lg = MemkgStore(MemoryStore(followers=[recall_index(embedder=HashingEmbedder())]))
    >>> lg.put(("lia", "prefs"), "drink", {"text": "coffee after dinner"})
    >>> lg.put(("lia", "prefs"), "drink", {"text": "chamomile tea after dinner"})
    >>> lg.get(("lia", "prefs"), "drink").value
    {'text': 'chamomile tea after dinner'}
    >>> [v.status for v in lg.history(("lia", "prefs"), "drink")]
    ['superseded', 'current']
    """

    supports_ttl = False
    __slots__ = ("memory", "fields", "tenant_base")

    def __init__(self, store: StoreArg, *, index: IndexConfig | None = None,
                 tenant_base: str = DEFAULT_TENANT_BASE) -> None:
        self.memory: MemoryStore = open_store(store)
        self.fields: list[str] | None = _index_fields(index)
        self.tenant_base = _tenant_base(tenant_base)

    # -- names ---------------------------------------------------------------------

    def tenant(self, namespace: tuple[str, ...]) -> str:
        """The IRI of the tenant graph that holds ``namespace``."""
        return self.tenant_base + "/".join(segment(label) for label in namespace)

    def iri(self, namespace: tuple[str, ...], key: str) -> str:
        """The stable IRI of the item ``key`` in ``namespace``."""
        return f"{self.tenant(namespace)}#{segment(str(key))}"

    def _namespace_of(self, graph: str) -> tuple[str, ...] | None:
        if not graph.startswith(self.tenant_base) or len(graph) == len(self.tenant_base):
            return None
        return tuple(unquote(label) for label in graph[len(self.tenant_base):].split("/"))

    # -- versions --------------------------------------------------------------------

    def version(self, namespace: tuple[str, ...], key: str) -> str | None:
        """The IRI of the claim holding the item's current value (None: absent or deleted), for
        memkg's own API: ``memory.view("history", {"claim": …, "tenant": …})``, provenance, …"""
        current = self._current(NamedNode(self.tenant(namespace)), NamedNode(self.iri(namespace, key)))
        return None if current is None else current.claim.value

    def history(self, namespace: tuple[str, ...], key: str) -> list[Version]:
        """Every version the item ever had, oldest first, deleted ones included."""
        graph, item = NamedNode(self.tenant(namespace)), NamedNode(self.iri(namespace, key))
        out = []
        for claim in self._versions(graph, item):
            recorded = _object(self.memory.quads(claim, mem.recordedAt, None, graph))
            if any(self.memory.quads(None, mem.retracts, claim, graph)):
                status = "deleted"
            elif any(self.memory.quads(None, mem.supersedes, claim, graph)):
                status = "superseded"
            else:
                status = "current"
            value = json_value(_object(self.memory.quads(claim, PAYLOAD, None, graph)))
            out.append(Version(claim.value, value, _datetime(recorded), status))
        return sorted(out, key=lambda v: v.recorded_at)

    def _versions(self, graph: NamedNode, item: NamedNode) -> list[NamedNode]:
        return [q.subject for q in self.memory.quads(None, OF_ITEM, item, graph) if isinstance(q.subject, NamedNode)]

    def _current(self, graph: NamedNode, item: NamedNode) -> _Current | None:
        """The item's version neither superseded nor retracted, if it has one."""
        memory = self.memory
        for claim in self._versions(graph, item):
            if not any(memory.quads(None, mem.supersedes, claim, graph)) and not any(
                    memory.quads(None, mem.retracts, claim, graph)):
                found = self._read(graph, claim)
                if found is not None:
                    return found
        return None

    def _read(self, graph: NamedNode, claim: NamedNode) -> _Current | None:
        """A version claim's value and times, read in one lookup (None: not a version claim)."""
        by = {q.predicate.value: q.object for q in self.memory.quads(claim, None, None, graph)}
        payload, created, recorded = by.get(PAYLOAD.value), by.get(CREATED.value), by.get(mem.recordedAt.value)
        if isinstance(payload, Literal) and isinstance(created, Literal) and isinstance(recorded, Literal):
            reified = by.get(_REIFIES)
            return _Current(claim, payload, getattr(getattr(reified, "object", None), "value", ""), created, recorded)
        return None

    def _found(self, namespace: tuple[str, ...], key: str, current: _Current, score: float | None = None) -> SearchItem:
        return SearchItem(namespace, key, json_value(current.payload), _datetime(current.created),
                          _datetime(current.recorded), score)

    # -- the batch -------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph's operations: reads against the memory before the batch, then every
        put and delete in one atomic write (see the module doc)."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        with self.memory.lock():  # the reads and the write see one state, and no other write between
            for op in ops:
                if isinstance(op, GetOp):
                    results.append(self._get(op.namespace, str(op.key)))
                elif isinstance(op, SearchOp):
                    results.append(self._search(op))
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list_namespaces(op))
                elif isinstance(op, PutOp):
                    puts[(tuple(op.namespace), str(op.key))] = op
                    results.append(None)
                else:
                    raise ValueError(f"unknown operation type: {type(op).__name__}")
            if puts:
                self._write(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread: memkg's calls are synchronous, the event loop is not held."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        if not namespace:
            return None
        current = self._current(NamedNode(self.tenant(namespace)), NamedNode(self.iri(namespace, key)))
        if current is None:
            return None
        return Item(value=json_value(current.payload), key=key, namespace=namespace,
                    created_at=_datetime(current.created), updated_at=_datetime(current.recorded))

    # -- writing ---------------------------------------------------------------------

    def _write(self, puts: Sequence[PutOp]) -> None:
        memory = self.memory
        recorded_at = memory.clock.tick()
        stamp = Literal(recorded_at.isoformat().replace("+00:00", "Z"), datatype=_XSD_DATETIME)
        quads: list[Quad] = []
        declared: set[str] = set()
        for op in puts:
            if not op.namespace:
                raise InvalidNamespaceError("Namespace cannot be empty.")  # as BaseStore.put says it
            graph = NamedNode(self.tenant(op.namespace))
            item = NamedNode(self.iri(op.namespace, op.key))
            current = self._current(graph, item)
            if op.value is None:
                if current is not None:
                    quads += Retraction(retracts=[current.claim], reason=_DELETED).quads(graph, recorded_at)
                continue
            if not isinstance(op.value, Mapping):
                raise TypeError(f"a value is a mapping (a dict), got {type(op.value).__name__} for key {op.key!r}")
            value = dict(op.value)
            payload = json_literal(value, f"the value of key {op.key!r}")
            text = self._text(value, op.index)
            if current is not None and current.payload == payload and current.text == text:
                continue  # the value it holds already: no new version
            if graph.value not in declared:
                declared.add(graph.value)
                quads += self._declarations(graph, recorded_at)
            if not any(memory.quads(item, RDF_TYPE, None, graph)):
                quads += Vertex(id=item, cls=mem.Entity, display_name=str(op.key)).quads(graph, recorded_at)
            extra: list[tuple[Any, Any]] = [(OF_ITEM, item), (PAYLOAD, payload),
                                            (CREATED, current.created if current is not None else stamp)]
            if current is not None:
                extra.append((mem.supersedes, current.claim))
            version = Claim(subject=item, predicate=VALUE, object=Literal(text), generated_by=_writer(graph), extra=extra)
            quads += version.quads(graph, recorded_at)
        if not quads:
            return
        try:
            memory.write(quads, source="LangGraph store")
        except ValidationError as err:
            raise refused(StoreWriteRefused, err) from err

    def _declarations(self, graph: NamedNode, recorded_at: datetime) -> list[Quad]:
        """The predicate of the version claims and the activity they come from, in a tenant
        that does not yet declare them (each is declared once, in every tenant it is used in)."""
        out: list[Quad] = []
        if not any(self.memory.quads(VALUE, RDF_TYPE, None, graph)):
            out += Predicate(id=VALUE, label="value").quads(graph, recorded_at)
        writer = _writer(graph)
        if not any(self.memory.quads(writer, RDF_TYPE, None, graph)):
            out += Vertex(id=writer, cls=prov.Activity).quads(graph, recorded_at)
        return out

    def _text(self, value: dict[str, Any], index: Only[False] | list[str] | None) -> str:
        """What recall reads of a value: its strings, or the fields ``index`` (else the store's
        ``fields``) names."""
        if index is False:
            return ""
        paths = index if index is not None else self.fields
        if paths is None:
            return "\n".join(_strings(value))
        texts: list[str] = []
        for path in paths:
            texts += list(_strings(value)) if path == "$" else get_text_at_path(value, tokenize_path(path))
        return "\n".join(t for t in texts if t)

    # -- searching -------------------------------------------------------------------

    def _tenants(self, prefix: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """The tenant graphs of the namespaces under ``prefix``: graph IRI → namespace."""
        found = {}
        for graph in self.memory.named_graphs():
            namespace = self._namespace_of(graph.value)
            if namespace is not None and namespace[:len(prefix)] == tuple(prefix):
                found[graph.value] = namespace
        return found

    def _items_in(self, graph: str, namespace: tuple[str, ...]) -> Iterator[SearchItem]:
        """Every current item of one namespace."""
        node = NamedNode(graph)
        items = dict.fromkeys(q.object for q in self.memory.quads(None, OF_ITEM, None, node)
                              if isinstance(q.object, NamedNode))
        for item in items:
            current = self._current(node, item)
            if current is not None:
                yield self._found(namespace, _key(item), current)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        tenants = self._tenants(op.namespace_prefix)
        if not tenants or op.limit <= 0:
            return []
        wanted = max(op.offset, 0) + op.limit
        if not op.query:
            listed = [i for g, ns in tenants.items() for i in self._items_in(g, ns) if _matches(i.value, op.filter)]
            listed.sort(key=lambda i: i.updated_at, reverse=True)
            return listed[max(op.offset, 0):wanted]
        cap = max(MAX_RECALL_HITS, 10 * wanted)
        k = min(cap, max(2 * wanted, 10))
        while True:
            hits = self._recall(op.query, list(tenants), k)
            found = self._hit_items(hits, tenants, op.filter, wanted)
            if len(found) >= wanted or len(hits) < k or k >= cap:
                return found[max(op.offset, 0):wanted]
            k = min(cap, 4 * k)

    def _recall(self, query: str, graphs: list[str], k: int) -> list[Any]:
        if len(graphs) == 1:
            return recall(self.memory, query, tenant=graphs[0], k=k)
        return recall(self.memory, query, tenants=graphs, k=k)

    def _hit_items(self, hits: Sequence[Any], tenants: Mapping[str, tuple[str, ...]],
                   filter: dict[str, Any] | None, wanted: int) -> list[SearchItem]:
        """The first ``wanted`` items recall's hits lead to, best first, each once: a current
        version claim's item, or an item named by its key; superseded and deleted versions are
        left out."""
        seen: set[str] = set()
        out: list[SearchItem] = []
        for hit in hits:
            namespace = tenants.get(hit.graph or "")
            if namespace is None or hit.status != "current":
                continue
            graph, node = NamedNode(hit.graph), NamedNode(hit.node)
            if hit.kind == "Claim":  # recall says it is current: the item's current version itself
                current = self._read(graph, node)
                item = _object(self.memory.quads(node, OF_ITEM, None, graph)) if current is not None else None
            else:  # the item named by its key: its current version, if it has one
                item, current = node, None
            if not isinstance(item, NamedNode) or not item.value.startswith(hit.graph + "#") or item.value in seen:
                continue
            seen.add(item.value)
            current = current or self._current(graph, item)
            if current is None:
                continue
            found = self._found(namespace, _key(item), current, hit.score)
            if _matches(found.value, filter):
                out.append(found)
                if len(out) == wanted:
                    break
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = [ns for g, ns in self._tenants(()).items()
                      if all(_condition(c, ns) for c in op.match_conditions or ())
                      and next(self._items_in(g, ns), None) is not None]
        if op.max_depth is not None:
            namespaces = list({ns[:op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset:op.offset + op.limit]


# -- helpers -------------------------------------------------------------------------------

_XSD_DATETIME = xsd.dateTime
_REIFIES = "http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"


def _writer(graph: NamedNode) -> NamedNode:
    """The activity every version in a tenant is generated by: LangGraph's writes there.
    (``#/`` cannot begin an item's IRI, whose key is percent-encoded.)"""
    return NamedNode(graph.value + "#/writes")


def _index_fields(index: IndexConfig | None) -> list[str] | None:
    if index is None:
        return None
    if not isinstance(index, Mapping):
        raise TypeError(f"index must be LangGraph's IndexConfig (a dict), got {type(index).__name__}")
    unused = sorted(set(index) & {"embed", "dims"})
    if unused:
        raise ValueError(f"index: memkg recalls with the memory's own embedder, so {' and '.join(unused)} "
                         "cannot be set here: give the embedder to the store's recall index, "
                         "MemoryStore(path, followers=[memkg.recall.recall_index(embedder=…)]), "
                         "and name the fields recall reads with index={'fields': [...]}")
    fields = index.get("fields")
    if fields is None:
        return None
    if not isinstance(fields, list) or not all(isinstance(f, str) and f for f in fields):
        raise ValueError(f"index fields must be a list of field paths, got {fields!r}")
    for f in fields:
        if f != "$":
            tokenize_path(f)
    return list(fields)


def _tenant_base(base: str) -> str:
    if not isinstance(base, str) or ":" not in base or "#" in base or "?" in base:
        raise ValueError(f"tenant_base must be the start of an absolute IRI with no '#' or '?', got {base!r}")
    try:
        NamedNode(base + "x")
    except ValueError as err:
        raise ValueError(f"tenant_base {base!r} does not begin a valid IRI ({err})") from None
    return base


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, in order (object keys left out)."""
    if isinstance(value, str):
        if value:
            yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _key(item: NamedNode) -> str:
    """The key an item's IRI encodes (after its tenant and ``#``)."""
    return unquote(item.value.split("#", 1)[1])


def _object(quads: Iterable[Quad]) -> Any:
    return next((q.object for q in quads), None)


def _datetime(term: object) -> datetime:
    if not isinstance(term, Literal):
        raise ValueError(f"expected an xsd:dateTime, got {term!r}")
    return datetime.fromisoformat(term.value.replace("Z", "+00:00"))


def _condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    labels = namespace[:len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path):]
    if condition.match_type not in ("prefix", "suffix"):
        raise ValueError(f"unknown namespace match type: {condition.match_type!r}")
    return all(p == "*" or p == label for p, label in zip(path, labels))


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: float(a) > float(b),
    "$gte": lambda a, b: float(a) >= float(b),
    "$lt": lambda a, b: float(a) < float(b),
    "$lte": lambda a, b: float(a) <= float(b),
}


def _matches(value: Any, filter: Mapping[str, Any] | None) -> bool:
    """Whether a value passes a LangGraph filter: each key's value equal, or compared by its
    operators; a nested mapping matches a nested object, a list matches element by element."""
    if not filter:
        return True
    if not isinstance(value, Mapping):
        return False
    return all(_compare(value.get(key), wanted) for key, wanted in filter.items())


def _compare(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            for op, operand in wanted.items():
                if op not in _OPERATORS:
                    raise ValueError(f"unknown filter operator {op!r}; memkg knows {', '.join(_OPERATORS)}")
                try:
                    if not _OPERATORS[op](value, operand):
                        return False
                except (TypeError, ValueError):
                    return False  # a value the operator cannot compare does not match
            return True
        return _matches(value, wanted)
    if isinstance(wanted, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(value) == len(wanted)
                and all(_compare(v, w) for v, w in zip(value, wanted)))
    return bool(value == wanted)
