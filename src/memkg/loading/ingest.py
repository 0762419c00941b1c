"""JSON Lines ingestion for agent loops: messages with who, when and where, and memory
nodes versioned by id.

Each line is a JSON object; ``docs/ingest.md`` is the guide. Three kinds::

    {"content_kind": "message", "event_id": "chat-41", "episode": "session-3",
     "sender": "lia", "recipients": [{"id": "aurora", "type": "agent"}],
     "event_time": "2026-05-02T19:04:00+02:00", "content": "Switched to coffee in the evenings.",
     "attachments": [{"url": "https://example.org/mug.jpg", "caption": "my new mug", "media_type": "image/jpeg"}]}
    {"id": "lia-notes", "content": "Lia is moving to Lisbon in June."}
    {"id": "pref-drink", "content_kind": "claim", "event_id": "chat-41", "episode": "session-3",
     "content": {"subject": "lia", "predicate": "prefers", "value": "coffee", "confidence": 0.8,
                 "evidence": ["Switched to coffee in the evenings."]}}

Every line becomes a ``mem:Message`` that keeps ``content`` verbatim (a string
as it is; other JSON compactly re-serialized, key order kept, as an ``rdf:JSON``
literal) with its hash and, when given:

* ``event_id``: the idempotency key (``mem:eventId``). A line whose event id the
  graph already holds is a retry and writes nothing (with other content it is
  reported as a conflict, still writing nothing);
* ``sender`` (``prov:wasAttributedTo``) and ``recipients`` (``mem:recipient``):
  an IRI, a bare token (``urn:memkg:entity:<token>``, the same node a claim's
  subject token names) or ``{"id": …, "type": "person"|"agent", "name": …}``.
  A vertex that is not yet a person or an agent is typed so (``type``, default
  person) and named (``mem:displayName``) when it has no name;
* ``episode`` (``prov:wasGeneratedBy``; a token is ``urn:memkg:episode:<token>``),
  typed ``mem:Episode``, with sender and recipients as ``mem:participant``; the
  message gets the episode's next ``mem:turn`` (1, 2, … in the order lines
  arrive; see :mod:`memkg.store.turns`);
* ``event_time`` (``mem:eventTime``), ISO 8601 with a timezone: a time without
  one is refused unless ``assume_timezone`` names the zone it was written in;
* ``attachments`` (``mem:attachment`` → ``mem:Attachment`` with ``mem:url``,
  ``mem:caption``, ``mem:mediaType``);
* ``provenance``: the record kept verbatim (``mem:provenance``), its ``source``
  IRI as ``prov:wasDerivedFrom``.

A ``message`` line is that message and nothing more (``id``, optional, is its
IRI). A ``note`` (the default kind) or ``claim`` line is also a version of the
memory node its ``id`` names:

* the node ``id`` names a lineage, ``urn:memkg:memory:<id>`` (or ``id`` itself
  when it is an IRI); version *n* of it is the claim ``<node>/v<n>``, asserted
  by the message ``<node>/v<n>/message``;
* a note's claim reifies ``<<( <node> rdfs:comment content )>>``; a claim's
  reifies ``<<( subject predicate value )>>`` — subject and predicate are IRIs
  (a bare token becomes ``urn:memkg:entity:<token>`` /
  ``urn:memkg:predicate:<token>``), the value a literal unless written
  ``{"@id": "…"}``; vertices and predicates not yet typed are typed
  (``mem:Entity``, ``rdf:Property``) so the claim keeps the invariants; each
  ``evidence`` item supports the claim (``mem:supportedBy``): an IRI as is,
  text as a message of its own;
* a line whose id already has a version with the same content makes no new
  version; new content is a new version that ``mem:supersedes`` the current
  version of the chain (the previous one, unless another write superseded it;
  an erased version's number is never reused). The same content under a new ``event_id`` is a new event: its message is
  kept and asserts the current version again (``mem:assertedBy``).

A batch is all or nothing: every line is checked first, and any invalid line
(reported with its file and line number) refuses the whole batch.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Triple

from ..core.errors import MemkgError
from ..core.model import Attachment, Message, content_hash, decimal_literal
from ..core.terms import datetime_literal, iri, new_id, parse_datetime
from ..core.vocab import RDF, RDF_REIFIES, RDF_TYPE, mem, prov, rdfs, xsd
from ..store import MemoryStore, as_graph
from ..store.turns import TurnCounter
from .jsonlines import DEFAULT_LIMITS, JsonLimits, parse_lines, read_lines

RDF_JSON = NamedNode(RDF + "JSON")
KINDS = ("note", "claim", "message")
FIELDS = ("id", "content_kind", "content", "event_id", "event_time", "sender", "recipients", "episode",
          "attachments", "provenance")
CLAIM_FIELDS = ("subject", "predicate", "value", "confidence", "evidence")
PROVENANCE_KEYS = ("agent_step", "observation", "tool_call", "source", "note")
PARTY_TYPES = {"person": mem.Person, "agent": mem.Agent}
ATTACHMENT_KEYS = ("url", "caption", "media_type")
CLAIM_EXAMPLE = ('{"id": "pref-tea", "content_kind": "claim", '
                 '"content": {"subject": "lia", "predicate": "prefers", "value": "tea", "confidence": 0.9}}')


class IngestError(MemkgError, ValueError):
    """Invalid lines; the batch was refused whole and nothing was written."""

    def __init__(self, source: str, problems: list[tuple[int, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{source}:{n}: {message}" for n, message in problems[:50]]
        if len(problems) > 50:
            lines.append(f"… and {len(problems) - 50} more")
        super().__init__("\n".join([*lines, f"{source}: {len(problems)} invalid line(s); nothing was written"]))


@dataclass
class IngestReport:
    """What a batch wrote. Shared by the library, the command line and agent tools (:meth:`to_dict`)."""

    lines: int = 0
    versions: list[NamedNode] = field(default_factory=list)  #: the new claim versions
    unchanged: int = 0  #: note and claim lines whose content the node already had (no new version)
    messages: list[NamedNode] = field(default_factory=list)  #: the new messages
    retries: int = 0  #: lines whose event id (or message id) the graph already held: nothing written
    #: retries whose content differs from the message already held, as (line, event id)
    conflicts: list[tuple[int, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["versions"] = [v.value for v in self.versions]
        data["messages"] = [m.value for m in self.messages]
        data["conflicts"] = [{"line": n, "event_id": e} for n, e in self.conflicts]
        return data


@dataclass(frozen=True)
class _Party:
    """A sender or recipient: the vertex, the class it gets if it is neither person nor agent, a name."""

    node: NamedNode
    cls: NamedNode
    name: str | None


@dataclass
class _Line:
    number: int
    kind: str
    node: NamedNode | None  #: the lineage (note, claim) or the message's own IRI (message)
    content: Any
    proposition: Triple | None  #: a claim line's (subject, predicate, value)
    payload: str  #: the content as kept verbatim
    provenance: dict[str, Any]
    event_time: datetime | None
    event_id: str | None
    sender: _Party | None
    recipients: list[_Party]
    episode: NamedNode | None
    attachments: list[dict[str, str]]

    @property
    def verbatim(self) -> Literal:
        return Literal(self.payload) if isinstance(self.content, str) else Literal(self.payload, datatype=RDF_JSON)


class _Refused(ValueError):
    """One line's problem, raised by the field checks and caught per line."""


def _payload(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def timezone_named(name: str) -> tzinfo:
    """The zone ``--assume-timezone`` names: ``UTC`` (or ``Z``), an offset such as
    ``+02:00``, or an IANA name such as ``Europe/Lisbon``.

    >>> timezone_named("+02:00"), timezone_named("Z")
    (datetime.timezone(datetime.timedelta(seconds=7200)), datetime.timezone.utc)
    """
    text = name.strip()
    if text.upper() in ("Z", "UTC"):
        return timezone.utc
    offset = re.fullmatch(r"([+-])(\d\d):?(\d\d)", text)
    if offset:
        sign, hours, minutes = offset.groups()
        delta = timedelta(hours=int(hours), minutes=int(minutes))
        if delta >= timedelta(hours=24):
            raise ValueError(f"timezone offset {name!r} is not under 24 hours")
        return timezone(-delta if sign == "-" else delta)

    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder, a name too long
        raise ValueError(f"unknown timezone {name!r} (write UTC, an offset such as +02:00, "
                         "or an IANA name such as Europe/Lisbon)") from None


def _check(number: int, data: Any, assume: tzinfo | None) -> _Line:
    if not isinstance(data, dict):
        raise _Refused("a line must be a JSON object")
    misplaced = [k for k in CLAIM_FIELDS if k in data]
    if misplaced:
        raise _Refused(f"{', '.join(misplaced)} belong inside \"content\", on a line with \"content_kind\": "
                       f"\"claim\", e.g. {CLAIM_EXAMPLE}")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise _Refused(f"unknown field(s): {', '.join(unknown)} (a line has some of: {', '.join(FIELDS)})")
    kind = data.get("content_kind", "note")
    if kind not in KINDS:
        raise _Refused(f"'content_kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    node = _node_id(data.get("id"), kind)
    if "content" not in data:
        raise _Refused("'content' is missing")
    content = data["content"]
    proposition = _check_claim(content) if kind == "claim" else None
    provenance = data.get("provenance") or {}
    if not isinstance(provenance, dict) or set(provenance) - set(PROVENANCE_KEYS):
        raise _Refused(f"'provenance' must be an object with some of {', '.join(PROVENANCE_KEYS)}")
    recipients = data.get("recipients") or []
    if not isinstance(recipients, list):
        raise _Refused("'recipients' must be a list, e.g. [\"lia\"]")
    return _Line(
        number=number,
        kind=kind,
        node=node,
        content=content,
        proposition=proposition,
        payload=_payload(content),
        provenance=provenance,
        event_time=_event_time(data.get("event_time"), assume),
        event_id=_event_id(data.get("event_id")),
        sender=_party("sender", data["sender"]) if data.get("sender") is not None else None,
        recipients=[_party("recipients", r) for r in recipients],
        episode=_iri_field("episode", data["episode"], "episode") if data.get("episode") is not None else None,
        attachments=_attachments(data.get("attachments")),
    )


def _node_id(node_id: Any, kind: str) -> NamedNode | None:
    if node_id is None and kind == "message":
        return None
    if not isinstance(node_id, str) or not node_id.strip():
        if kind == "message":
            raise _Refused("'id', when given, must be a non-empty string (the message's IRI or a token)")
        raise _Refused(f"'id' must be a non-empty string: a {kind} is a version of the memory node its id names "
                       "(for a message that is no memory node, write \"content_kind\": \"message\")")
    return _iri_field("id", node_id, "message" if kind == "message" else "memory")


def _iri_field(name: str, value: Any, kind: str) -> NamedNode:
    if not isinstance(value, str) or not value.strip():
        raise _Refused(f"'{name}' must be a non-empty string (an IRI or a token)")
    try:
        return iri(value.strip(), kind=kind)
    except (TypeError, ValueError) as err:
        raise _Refused(f"'{name}' cannot name a node: {err}") from None


def _party(name: str, value: Any) -> _Party:
    if isinstance(value, str):
        return _Party(_iri_field(name, value, "entity"), mem.Person, None)
    if not isinstance(value, dict) or "id" not in value or set(value) - {"id", "type", "name"}:
        raise _Refused(f"'{name}' names a person or agent: an IRI, a token, or "
                       '{"id": …, "type": "person" or "agent", "name": …}')
    kind = value.get("type", "person")
    if not isinstance(kind, str) or kind.lower() not in PARTY_TYPES:
        raise _Refused(f"'{name}' type must be \"person\" or \"agent\", got {kind!r}")
    display = value.get("name")
    if display is not None and (not isinstance(display, str) or not display.strip()):
        raise _Refused(f"'{name}' name must be a non-empty string")
    return _Party(_iri_field(name, value["id"], "entity"), PARTY_TYPES[kind.lower()], display)


def _event_id(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value:
        raise _Refused(f"'event_id' must be a non-empty string (or an integer), got {value!r}")
    return value


def _event_time(value: Any, assume: tzinfo | None) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Refused(f"'event_time' must be an ISO 8601 date-time string, got {value!r}")
    try:
        t = parse_datetime(value)
    except ValueError:
        raise _Refused(f"'event_time' is not an ISO 8601 date-time: {value!r}") from None
    if t.tzinfo is None:
        if assume is None:
            raise _Refused(f"'event_time' {value!r} has no timezone: write it with one (…Z or …+02:00), "
                           "or name the zone it was written in (--assume-timezone ZONE)")
        t = t.replace(tzinfo=assume)
    return t


def _attachments(value: Any) -> list[dict[str, str]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Refused("'attachments' must be a list of {\"url\": …, \"caption\": …, \"media_type\": …}")
    out = []
    for item in value:
        if not isinstance(item, dict) or set(item) - set(ATTACHMENT_KEYS) or "url" not in item:
            raise _Refused("an attachment is {\"url\": …, \"caption\": …, \"media_type\": …} (url required)")
        if not all(isinstance(v, str) for v in item.values()):
            raise _Refused("an attachment's url, caption and media_type are strings")
        url = item["url"]
        if ":" not in url or re.search(r"[\s<>\"{}|\\^`\x00-\x1f]", url):
            raise _Refused(f"an attachment's url must be an absolute URL without spaces, got {url[:80]!r}")
        out.append(item)
    return out


def _check_claim(content: Any) -> Triple:
    """The proposition of a claim line's content (its terms checked), or :class:`_Refused`."""
    if not isinstance(content, dict):
        raise _Refused("a claim's content must be an object with subject, predicate and value")
    for key in ("subject", "predicate", "value"):
        if key not in content:
            raise _Refused(f"a claim's content needs {key!r}")
    for key in ("subject", "predicate"):
        if not isinstance(content[key], str) or not content[key].strip():
            raise _Refused(f"a claim's {key} must be a non-empty string (an IRI or a token)")
    confidence = content.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not math.isfinite(confidence)
        or not 0 <= confidence <= 1
    ):
        raise _Refused(f"a claim's confidence must be a number in [0, 1], got {confidence!r}")
    evidence = content.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) and e for e in evidence):
        raise _Refused("a claim's evidence must be a list of strings")
    value = content["value"]
    if isinstance(value, dict) and (set(value) != {"@id"} or not isinstance(value["@id"], str)):
        raise _Refused("a claim's value is a JSON scalar, or {\"@id\": IRI} for an IRI")
    for item in evidence:
        if _looks_like_iri(item):
            try:
                NamedNode(item)
            except ValueError as err:
                raise _Refused(f"a claim's evidence {item[:80]!r} is neither text nor a valid IRI: {err}") from None
    try:
        return Triple(iri(content["subject"].strip(), kind="entity"), iri(content["predicate"].strip(), kind="predicate"),
                      _value_term(value))
    except (TypeError, ValueError) as err:
        raise _Refused(f"a claim's subject, predicate or value cannot name a node: {err}") from None


def _looks_like_iri(text: str) -> bool:
    """An evidence item that names a source (an IRI), rather than quoting it."""
    return ":" in text and " " not in text


def _value_term(value: Any) -> NamedNode | Literal:
    if isinstance(value, dict):
        return iri(value["@id"], kind="entity")
    if isinstance(value, bool):
        return Literal("true" if value else "false", datatype=xsd.boolean)
    if isinstance(value, int):
        return Literal(str(value), datatype=xsd.integer)
    if isinstance(value, float):
        return decimal_literal(value)
    if isinstance(value, str):
        return Literal(value)
    return Literal(_payload(value), datatype=RDF_JSON)


def _latest(store: MemoryStore, node: NamedNode, graph: NamedNode | DefaultGraph) -> tuple[int, NamedNode | None, str | None]:
    """How many version numbers ``node`` has used (an erased version's included: its IRI stays
    retracted, never to be minted again), the current version of the chain its newest kept
    version belongs to (a version supersedes the chain's current one), and the content hash
    of that newest kept version."""
    n, kept = 0, None
    while True:
        version = NamedNode(f"{node.value}/v{n + 1}")
        if any(store.quads(version, RDF_REIFIES, None, graph)):
            kept = version
        elif not any(store.quads(None, mem.retracts, version, graph)):
            break
        n += 1
    if kept is None:
        return n, None, None
    digest = _content_hash_of(store, NamedNode(f"{kept.value}/message"), graph)
    seen = {kept}
    while (later := next((q.subject for q in store.quads(None, mem.supersedes, kept, graph)
                          if isinstance(q.subject, NamedNode)), None)) is not None and later not in seen:
        seen.add(later)
        kept = later
    return n, kept, digest


def _content_hash_of(store: MemoryStore, message: NamedNode, graph: NamedNode | DefaultGraph) -> str | None:
    for q in store.quads(message, mem.contentHash, None, graph):
        if isinstance(q.object, Literal):
            return q.object.value
    return None


class _Batch:
    """The quads of one ingest, and what it already typed, named and numbered."""

    def __init__(self, store: MemoryStore, target: NamedNode | DefaultGraph) -> None:
        self.store = store
        self.target = target
        self.quads: list[Quad] = []
        self.recorded = store.clock.tick()
        self.turns = TurnCounter(store.raw, target)
        self._types: dict[NamedNode, set[NamedNode]] = {}
        self._named: set[NamedNode] = set()
        #: event id (or message IRI) → (message, content hash), for retries within the batch
        self.events: dict[str, tuple[NamedNode, str | None]] = {}

    def add(self, s: Any, p: NamedNode, o: Any) -> None:
        self.quads.append(Quad(s, p, o, self.target))

    def types(self, node: NamedNode) -> set[NamedNode]:
        if node not in self._types:
            held = (q.object for q in self.store.quads(node, RDF_TYPE, None, self.target))
            self._types[node] = {o for o in held if isinstance(o, NamedNode)}
        return self._types[node]

    def ensure_type(self, node: NamedNode, cls: NamedNode, *, unless: Iterable[NamedNode] | None = None) -> None:
        """Type ``node`` ``cls`` unless it has any type (or, given ``unless``, one of those)."""
        types = self.types(node)
        if (types & set(unless)) if unless is not None else types:
            return
        types.add(cls)
        self.add(node, RDF_TYPE, cls)

    def ensure_party(self, party: _Party) -> None:
        self.ensure_type(party.node, party.cls, unless=PARTY_TYPES.values())
        if party.name and party.node not in self._named:
            self._named.add(party.node)
            if not any(self.store.quads(party.node, mem.displayName, None, self.target)):
                self.add(party.node, mem.displayName, Literal(party.name))

    def held(self, line: _Line) -> tuple[NamedNode, str | None] | None:
        """The message a retry of ``line`` would repeat (by event id, or by message IRI), if any."""
        keys = [k for k in (_event_key(line), _node_key(line)) if k]
        for key in keys:
            if key in self.events:
                return self.events[key]
        if line.event_id is not None:
            for q in self.store.quads(None, mem.eventId, Literal(line.event_id), self.target):
                if isinstance(q.subject, NamedNode):
                    return q.subject, _content_hash_of(self.store, q.subject, self.target)
        if line.kind == "message" and line.node is not None:
            if any(self.store.quads(line.node, RDF_TYPE, mem.Message, self.target)):
                return line.node, _content_hash_of(self.store, line.node, self.target)
        return None


    def message(self, node: NamedNode, line: _Line) -> NamedNode:
        """Write ``line``'s message as ``node``: content, who, when, where, what came with it."""
        if line.sender is not None:
            self.ensure_party(line.sender)
        for party in line.recipients:
            self.ensure_party(party)
        turn = None
        if line.episode is not None:
            turn = self.turns.next(line.episode)
            for party in ([line.sender] if line.sender else []) + line.recipients:
                self.add(line.episode, mem.participant, party.node)
        extra: list[tuple[Any, Any]] = []
        if line.provenance:
            extra.append((mem.provenance, Literal(_payload(line.provenance), datatype=RDF_JSON)))
            source = line.provenance.get("source")
            if isinstance(source, str) and ":" in source:
                try:
                    extra.append((prov.wasDerivedFrom, NamedNode(source)))
                except ValueError:
                    pass  # not an IRI: it stays in the verbatim provenance record
        message = Message(
            id=node,
            content=line.verbatim,
            event_id=line.event_id,
            sender=line.sender.node if line.sender else None,
            recipients=[p.node for p in line.recipients],
            episode=line.episode,
            turn=turn,
            event_time=line.event_time,
            attachments=[
                Attachment(id=NamedNode(f"{node.value}/attachment/{i}"), url=a["url"], caption=a.get("caption"),
                           media_type=a.get("media_type"))
                for i, a in enumerate(line.attachments, 1)
            ],
            extra=extra,
        )
        self.quads += message.quads(self.target, self.recorded)
        digest = content_hash(line.payload)
        for key in (_event_key(line), node.value):
            if key:
                self.events[key] = (node, digest)
        return node


def _event_key(line: _Line) -> str | None:
    return f"event:{line.event_id}" if line.event_id is not None else None


def _node_key(line: _Line) -> str | None:
    return line.node.value if line.kind == "message" and line.node is not None else None


def ingest_lines(
    store: MemoryStore,
    lines: Iterable[str],
    *,
    graph: str | NamedNode | None = None,
    source: str = "<jsonl>",
    assume_timezone: str | tzinfo | None = None,
    limits: JsonLimits = DEFAULT_LIMITS,
) -> IngestReport:
    """Ingest JSON Lines (one string per line) into ``store`` in one atomic write; see the module doc.

    Raises :class:`IngestError` (nothing written) for lines that break the format or
    ``limits``, :class:`~memkg.core.errors.ValidationError` (nothing written) for a write
    the invariants refuse, ``ValueError`` for an unknown ``assume_timezone``.

    :raises ~memkg.loading.ingest.IngestError: a line breaks the format or ``limits`` (nothing is written; the line is named).
    :raises ~memkg.core.errors.ValidationError: the write breaks an invariant (nothing is written).
    :raises ValueError: ``assume_timezone`` names no time zone.
    """
    return _ingest(store, parse_lines(lines, limits), graph=graph, source=source, assume_timezone=assume_timezone)


def ingest_file(
    store: MemoryStore,
    path: str | Path,
    *,
    graph: str | NamedNode | None = None,
    assume_timezone: str | tzinfo | None = None,
    limits: JsonLimits = DEFAULT_LIMITS,
) -> IngestReport:
    """Ingest a ``.jsonl`` file (read as bytes, strictly UTF-8, a bounded line at a time);
    errors name the file and line. ``"-"`` reads standard input.

    :raises ~memkg.loading.ingest.IngestError: a line breaks the format or ``limits`` (nothing is written; the file and line are named).
    :raises ~memkg.core.errors.ValidationError: the write breaks an invariant (nothing is written).
    :raises FileNotFoundError: ``path`` does not exist.
    """
    if str(path) == "-":
        return _ingest(store, read_lines(sys.stdin.buffer, limits), graph=graph, source="<stdin>",
                       assume_timezone=assume_timezone)
    with Path(path).open("rb") as f:
        return _ingest(store, read_lines(f, limits), graph=graph, source=str(path), assume_timezone=assume_timezone)


def _ingest(
    store: MemoryStore,
    parsed: Iterator[tuple[int, Any, str | None]],
    *,
    graph: str | NamedNode | None,
    source: str,
    assume_timezone: str | tzinfo | None,
) -> IngestReport:
    assume = timezone_named(assume_timezone) if isinstance(assume_timezone, str) else assume_timezone
    target = as_graph(graph)
    checked: list[_Line] = []
    problems: list[tuple[int, str]] = []
    total = 0
    for number, data, problem in parsed:
        total += 1
        if problem is None:
            try:
                checked.append(_check(number, data, assume))
            except _Refused as err:
                problem = str(err)
        if problem is not None:
            problems.append((number, problem))
    if problems:
        raise IngestError(source, problems)

    # Versions, turns and retries are decided from what the store holds: hold its write
    # lock from the first read to the write, so a concurrent writer cannot slip in between.
    with store.lock():
        return _write(store, checked, target, source, total)


def _write(store: MemoryStore, checked: list[_Line], target: NamedNode | DefaultGraph, source: str,
           total: int) -> IngestReport:
    report = IngestReport(lines=total)
    batch = _Batch(store, target)
    versions: dict[NamedNode, tuple[int, NamedNode | None, str | None]] = {}
    for line in checked:
        held = batch.held(line)
        if held is not None:
            report.retries += 1
            if held[1] is not None and held[1] != content_hash(line.payload):
                report.conflicts.append((line.number, line.event_id or held[0].value))
            continue
        if line.kind == "message":
            report.messages.append(batch.message(line.node or new_id("message"), line))
            continue
        assert line.node is not None  # a note's or claim's lineage (checked)
        count, current, latest_hash = versions.get(line.node) or _latest(store, line.node, target)
        digest = content_hash(line.payload)
        if digest == latest_hash and current is not None:
            report.unchanged += 1
            if line.event_id is not None:  # a new event restating the current version: it asserts it again
                message = batch.message(new_id("message"), line)
                batch.add(current, mem.assertedBy, message)
                report.messages.append(message)
            continue
        version = NamedNode(f"{line.node.value}/v{count + 1}")
        versions[line.node] = (count + 1, version, digest)
        report.messages.append(batch.message(NamedNode(f"{version.value}/message"), line))
        _describe_version(batch, line, version, current)
        report.versions.append(version)
    if batch.quads:
        store.write(batch.quads, source=source)
    return report


def _describe_version(batch: _Batch, line: _Line, version: NamedNode, previous: NamedNode | None) -> None:
    """A new version of ``line.node``, superseding ``previous``: the claim its message asserts."""
    assert line.node is not None
    add = batch.add
    if line.kind == "note":
        batch.ensure_type(line.node, mem.Entity)
        proposition = Triple(line.node, rdfs.comment, line.verbatim)
    else:
        assert line.proposition is not None
        c = line.content
        proposition = line.proposition
        for vertex in (proposition.subject, proposition.object):
            if isinstance(vertex, NamedNode):
                batch.ensure_type(vertex, mem.Entity)
        batch.ensure_type(proposition.predicate, NamedNode(RDF + "Property"))
        if c.get("confidence") is not None:
            add(version, mem.confidence, decimal_literal(float(c["confidence"])))
        for i, item in enumerate(c.get("evidence", []), 1):
            if _looks_like_iri(item):
                evidence = NamedNode(item)
                batch.ensure_type(evidence, mem.Message)
            else:
                evidence = NamedNode(f"{version.value}/evidence/{i}")
                add(evidence, RDF_TYPE, mem.Message)
                add(evidence, mem.content, Literal(item))
                add(evidence, mem.contentHash, Literal(content_hash(item)))
            add(version, mem.supportedBy, evidence)
    recorded = datetime_literal(batch.recorded)
    add(version, RDF_TYPE, mem.Claim)
    add(version, RDF_REIFIES, proposition)
    add(version, mem.assertedBy, NamedNode(f"{version.value}/message"))
    add(version, mem.recordedAt, recorded)
    if line.event_time is not None:
        add(version, mem.eventTime, datetime_literal(line.event_time))
    if previous is not None:
        add(version, mem.supersedes, previous)
