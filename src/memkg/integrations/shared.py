"""What the framework adapters share: the store they open, the names they mint, the JSON
they keep, the refusals they raise, and conversations kept as episodes of messages.

Nothing here imports a framework. Every call goes through memkg's public API
(:class:`~memkg.MemoryStore` and the model items), so each adapter's writes are
validated, atomic and indexed for recall like any other write.

>>> from memkg import MemoryStore
>>> memory = MemoryStore()
>>> talk = Conversation(memory, tenant="https://example.org/tenants/lia",
...                     episode=episode_iri("langchain", "s-1"), event_prefix="langchain:s-1:")
>>> _ = talk.add([Entry("user", "I prefer tea", "m-1", {"text": "I prefer tea"})])
>>> _ = talk.add([Entry("user", "I prefer tea", "m-1", {"text": "I prefer tea"})])   # a retry
>>> [turn.payload for turn in talk.turns()]
[{'text': 'I prefer tea'}]
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

from pyoxigraph import DefaultGraph, Literal, NamedNode

from memkg import MEM, MemoryStore, Message, ValidationError, Vertex, mem, prov
from memkg.core.vocab import RDF_TYPE, memi, rdf

__all__ = [
    "JSON_DATATYPE",
    "PAYLOAD",
    "Conversation",
    "Entry",
    "Turn",
    "episode_iri",
    "json_literal",
    "json_value",
    "open_store",
    "refused",
    "segment",
]

#: ``payload``: a node's framework record (an item kept verbatim beside memkg's reading of it),
#: an ``rdf:JSON`` literal.
PAYLOAD = memi.payload
#: RDF 1.1's datatype for JSON text.
JSON_DATATYPE = rdf.JSON

StoreArg = MemoryStore | str | os.PathLike[str]


def open_store(store: StoreArg) -> MemoryStore:
    """The :class:`~memkg.MemoryStore` an adapter works on: the one given, or the one at a path."""
    if isinstance(store, MemoryStore):
        return store
    if isinstance(store, (str, os.PathLike)):
        return MemoryStore(store)
    raise TypeError(f"expected a MemoryStore or a store path, got {type(store).__name__}")


def segment(text: str) -> str:
    """``text`` as one IRI segment: every character outside ``A-Z a-z 0-9 _ . - ~`` percent-encoded,
    so that ``/``, ``#`` and ``:`` in a name never read as structure.

    >>> segment("prefs/2026#a b")
    'prefs%2F2026%23a%20b'
    """
    return quote(_utf8(text, "a name"), safe="")


def episode_iri(framework: str, session_id: str) -> NamedNode:
    """The episode that a framework's session ``session_id`` is: the same IRI on every run.

    >>> episode_iri("openai-agents", "user 42").value
    'urn:memkg:openai-agents:session:user%2042'
    """
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    return NamedNode(f"urn:memkg:{framework}:session:{segment(session_id)}")


def _utf8(text: str, what: str) -> str:
    """``text``, refused with a ValueError if it cannot be written as UTF-8 (a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{what} holds a character that is not valid text ({err.reason} at "
                         f"position {err.start}): {text[max(0, err.start - 20):err.start + 20]!r}") from None
    return text


def json_literal(value: Any, what: str = "the value") -> Literal:
    """``value`` as an ``rdf:JSON`` literal, kept exactly (key order included); a value JSON cannot
    hold (a set, NaN, an object) is refused with a ValueError naming it."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} is not JSON: {err}") from None
    return Literal(_utf8(text, what), datatype=JSON_DATATYPE)


def json_value(term: object) -> Any:
    """The value a :func:`json_literal` holds (None for anything else)."""
    if isinstance(term, Literal) and term.datatype == JSON_DATATYPE:
        return json.loads(term.value)
    return None


E = TypeVar("E", bound=BaseException)


def refused(kind: type[E], err: ValidationError) -> E:
    """A write memkg refused, as the framework's error ``kind``: the rule broken (the shape),
    the node, and what the rule says; the memkg error is its ``__cause__`` and its
    ``violations`` are kept. Nothing was written."""
    lines = [f"memkg refused the write, nothing was written ({len(err.violations)} rule(s) broken):"]
    for v in err.violations[:10]:
        rule = str(v.shape).strip("<>").replace(MEM, "mem:")
        lines.append(f"- rule {rule} on {v.focus}: {v.message}")
    if len(err.violations) > 10:
        lines.append(f"- … and {len(err.violations) - 10} more")
    out = kind("\n".join(lines))
    setattr(out, "violations", err.violations)  # kept for callers that act on each rule
    out.__cause__ = err
    return out


# -- conversations ---------------------------------------------------------------------------

#: The speakers a conversation names when the caller names none: role → (IRI, class).
DEFAULT_SPEAKERS: dict[str, tuple[str, NamedNode]] = {
    "user": ("urn:memkg:speaker:user", mem.Person),
    "assistant": ("urn:memkg:speaker:assistant", mem.Agent),
    "system": ("urn:memkg:speaker:system", mem.Agent),
    "tool": ("urn:memkg:speaker:tool", mem.Agent),
}
ROLES = tuple(DEFAULT_SPEAKERS)


@dataclass(frozen=True)
class Entry:
    """One thing said in a conversation, as an adapter hands it over.

    ``role`` is one of :data:`ROLES`; ``text`` is what recall reads; ``event_id`` (None:
    none) makes a retry collapse; ``payload`` is the framework's own record, kept verbatim."""

    role: str
    text: str
    event_id: str | None
    payload: Any


@dataclass(frozen=True)
class Turn:
    """One message of a conversation read back: its IRI, its place, the framework's record."""

    node: NamedNode
    turn: int
    payload: Any


class Conversation:
    """One session kept as a memkg episode: each entry a ``mem:Message`` generated by the
    episode (``prov:wasGeneratedBy``), numbered in turn, with its sender and recipient
    and, when it has one, an event id under which a retry collapses. Popping or clearing
    records a ``mem:Retraction``: the messages stay in the memory's history.

    ``speakers`` maps roles (``user``, ``assistant``, ``system``, ``tool``) to the IRIs of
    vertices the caller has declared in the tenant; a role left out is a speaker memkg
    declares itself (``urn:memkg:speaker:ROLE``)."""

    def __init__(
        self,
        memory: MemoryStore,
        *,
        tenant: str | NamedNode | None,
        episode: NamedNode,
        event_prefix: str,
        speakers: Mapping[str, str | NamedNode] | None = None,
    ) -> None:
        self.memory = memory
        named = None if tenant is None else _tenant(tenant)
        self.graph: NamedNode | DefaultGraph = DefaultGraph() if named is None else named
        self.tenant: str | None = None if named is None else named.value
        self.episode = episode
        self.event_prefix = event_prefix
        unknown = sorted(set(speakers or {}) - set(ROLES))
        if unknown:
            raise ValueError(f"speakers: unknown role(s) {', '.join(unknown)}; the roles are {', '.join(ROLES)}")
        given = {role: _iri(v, f"speaker for {role}") for role, v in (speakers or {}).items()}
        self.speakers = {role: given.get(role, NamedNode(DEFAULT_SPEAKERS[role][0])) for role in ROLES}
        self._own = {role: Vertex(id=NamedNode(iri), cls=cls, display_name=role)
                     for role, (iri, cls) in DEFAULT_SPEAKERS.items() if role not in given}
        self._declared: set[str] = set()  # roles whose speaker this conversation has declared

    # -- writing ----------------------------------------------------------------------

    def add(self, entries: Sequence[Entry]) -> list[NamedNode]:
        """Keep ``entries`` in order, in one atomic write; returns their messages' IRIs (a retried
        entry's is the one already stored). Raises :class:`~memkg.ValidationError` when memkg
        refuses the write (nothing is written)."""
        messages = [self._message(e) for e in entries]
        if not messages:
            return []
        roles = {r for e in entries for r in (e.role, _listener(e.role))}
        items: list[Any] = [*self._declarations(roles), *messages]
        nodes = self.memory.add_all(items, graph=self.graph)
        self._declared |= roles
        return nodes[len(items) - len(messages):]

    def _message(self, entry: Entry) -> Message:
        if entry.role not in self.speakers:
            raise ValueError(f"unknown role {entry.role!r}; the roles are {', '.join(ROLES)}")
        listener = _listener(entry.role)
        return Message(
            content=_utf8(entry.text, "the message"),
            event_id=None if entry.event_id is None else self.event_prefix + entry.event_id,
            sender=self.speakers[entry.role],
            recipients=[self.speakers[listener]],
            episode=self.episode,
            extra=[(PAYLOAD, json_literal(entry.payload, "the message"))],
        )

    def _declarations(self, roles: set[str]) -> list[Vertex]:
        """memkg's own speakers for ``roles``, declared in the tenant by the first write that needs them."""
        return [v for role, v in self._own.items() if role in roles and role not in self._declared
                and not any(self.memory.quads(v.node(), RDF_TYPE, None, self.graph))]

    def pop(self, reason: str) -> Turn | None:
        """Retract the latest message still current and return it (None when there is none)."""
        with self.memory.lock():  # read the latest and retract it as one step
            turns = self.turns()
            if not turns:
                return None
            self.memory.retract(turns[-1].node, reason=reason, graph=self.tenant)
        return turns[-1]

    def clear(self, reason: str) -> NamedNode | None:
        """Retract every message still current, in one ``mem:Retraction`` (returned; None if none)."""
        with self.memory.lock():
            turns = self.turns()
            if not turns:
                return None
            return self.memory.retract(*(t.node for t in turns), reason=reason, graph=self.tenant)

    # -- reading ----------------------------------------------------------------------

    def turns(self, limit: int | None = None) -> list[Turn]:
        """The messages still current (not retracted, not erased), oldest first; the latest
        ``limit`` of them when given."""
        memory, graph = self.memory, self.graph
        found: list[Turn] = []
        for q in memory.quads(None, prov.wasGeneratedBy, self.episode, graph):
            node = q.subject
            if not isinstance(node, NamedNode) or _first(memory.quads(None, mem.retracts, node, graph)):
                continue
            payload = _first(memory.quads(node, PAYLOAD, None, graph))
            turn = _first(memory.quads(node, mem.turn, None, graph))
            if payload is None or turn is None:
                continue  # not written by an adapter, or erased
            found.append(Turn(node, int(turn.object.value), json_value(payload.object)))
        found.sort(key=lambda t: t.turn)
        if limit is not None:
            found = found[-limit:] if limit > 0 else []
        return found


def _listener(role: str) -> str:
    """Whom a role speaks to: the assistant answers the user, everyone else speaks to the assistant."""
    return "user" if role == "assistant" else "assistant"


def _first(quads: Iterable[Any]) -> Any:
    return next(iter(quads), None)


def _iri(value: str | NamedNode, what: str) -> NamedNode:
    if isinstance(value, NamedNode):
        return value
    if not isinstance(value, str) or ":" not in value:
        raise ValueError(f"{what} must be a full IRI, got {value!r}")
    try:
        return NamedNode(value)
    except ValueError as err:
        raise ValueError(f"{what} {value!r} is not a valid IRI ({err})") from None


def _tenant(value: str | NamedNode) -> NamedNode:
    return _iri(value, "tenant")
