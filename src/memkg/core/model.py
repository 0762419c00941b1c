"""The memory model: vertices, messages, claims, occurrences, episodes, retractions, corrections.

Each class describes one thing the agent remembers and knows how to turn
itself into quads (:meth:`Item.quads`). The classes hold no store and write
nothing: :meth:`memkg.MemoryStore.add` mints missing IRIs, stamps
``mem:recordedAt`` from the store clock and commits the quads in one atomic,
validated write.

Terms are pyoxigraph terms. For convenience an IRI may be given as a ``str``
wherever only an IRI makes sense (subjects, predicates, roles); a claim's
*object* given as a Python value (``str``, ``int``, ``float``, ``Decimal``,
``bool``, ``datetime``) becomes a literal, so pass a ``NamedNode`` for an IRI.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Union, overload

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Triple

from .terms import ID_BASE as ID_BASE
from .terms import IRI, Graph, Term, datetime_literal, datetime_of, iri, new_id
from .vocab import OWL, RDF, RDF_REIFIES, RDF_TYPE, mem, prov, rdfs, xsd

Value = Union[NamedNode, BlankNode, Literal, Triple, str, int, float, Decimal, bool, datetime]


def term(value: Value) -> NamedNode | BlankNode | Literal | Triple:
    """A claim object: RDF terms as they are, Python values as typed literals."""
    if isinstance(value, (NamedNode, BlankNode, Literal, Triple)):
        return value
    if isinstance(value, bool):
        return Literal("true" if value else "false", datatype=xsd.boolean)
    if isinstance(value, int):
        return Literal(str(value), datatype=xsd.integer)
    if isinstance(value, (float, Decimal)):
        return decimal_literal(value)
    if isinstance(value, datetime):
        return datetime_literal(value)
    if isinstance(value, str):
        return Literal(value)
    raise TypeError(f"cannot make an RDF term of {value!r}")


def decimal_literal(x: float | Decimal) -> Literal:
    """``xsd:decimal`` from a float without binary noise (0.1 stays "0.1")."""
    d = Decimal(repr(x)) if isinstance(x, float) else x
    if not d.is_finite():
        raise ValueError(f"{x!r} is not a finite number")
    return Literal(format(d, "f"), datatype=xsd.decimal)


def unit_interval(name: str, x: float | Decimal | None) -> Literal | None:
    """A confidence-like number, refused unless finite and within [0, 1]."""
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, float, Decimal)):
        raise TypeError(f"{name} must be a number, got {x!r}")
    if not (math.isfinite(float(x)) and 0 <= x <= 1):
        raise ValueError(f"{name} must be a finite number in [0, 1], got {x!r}")
    return decimal_literal(Decimal(x) if isinstance(x, int) else x)


def content_hash(content: str) -> str:
    """SHA-256 of a payload's UTF-8 bytes, hex: spots repeated payloads."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


class _Quads:
    """Collects the quads of one item in one graph."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.items: list[Quad] = []

    def add(self, s: NamedNode | BlankNode | Triple, p: NamedNode, o: Term | None) -> None:
        if o is None:
            return
        self.items.append(Quad(s, p, o, self.graph))

    def add_all(self, s: NamedNode, p: NamedNode, objects: Iterable[Term | None]) -> None:
        for o in objects:
            self.add(s, p, o)


def _time(t: datetime | None) -> Literal | None:
    return datetime_literal(t) if t is not None else None


@dataclass
class Item:
    """Something the agent remembers. ``id`` None means: mint one on write."""

    id: IRI | None = field(default=None, kw_only=True)
    #: Extra (predicate, object) pairs to record on the item's node.
    extra: list[tuple[IRI, Value]] = field(default_factory=list, kw_only=True)

    kind: str = field(default="item", init=False, repr=False)

    def node(self) -> NamedNode:
        """The item's IRI, minted once on first use."""
        if self.id is None:
            self.id = new_id(self.kind)
        self.id = iri(self.id, kind=self.kind)
        return self.id

    def quads(self, graph: Graph, recorded_at: datetime) -> list[Quad]:
        out = _Quads(graph)
        self._describe(out, recorded_at)
        for p, o in self.extra:
            out.add(self.node(), iri(p), term(o))
        return out.items

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        raise NotImplementedError


@dataclass
class Vertex(Item):
    """A person, agent, entity or context: a node with stable identity.

    ``cls`` is its class (``mem:Person``, ``mem:Agent``, ``mem:Entity``,
    ``mem:Context``, …). The display name is a plain property here; a name that
    changes over time is better kept as claims on ``mem:displayName``.
    """

    cls: IRI = mem.Entity
    display_name: str | None = None
    kind: str = field(default="vertex", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, iri(self.cls))
        out.add(n, mem.displayName, Literal(self.display_name) if self.display_name else None)


@dataclass
class Predicate(Item):
    """A property declaration, which claims about it need (invariant 4).

    ``functional`` declares it an ``owl:FunctionalProperty``: one value at a
    time, so two current claims with different objects contradict each other.
    """

    label: str | None = None
    functional: bool = False
    kind: str = field(default="predicate", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, NamedNode(RDF + "Property"))
        out.add(n, RDF_TYPE, NamedNode(OWL + "FunctionalProperty") if self.functional else None)
        out.add(n, rdfs.label, Literal(self.label) if self.label else None)


@dataclass
class Attachment(Item):
    """Something that came with a message, such as an image: where it is and what it shows.

    memkg keeps the reference (``url``, an ``xsd:anyURI`` literal) and the words
    (``caption``), never the bytes.
    """

    url: str = ""
    caption: str | None = None
    media_type: str | None = None
    kind: str = field(default="attachment", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, mem.Attachment)
        out.add(n, mem.url, Literal(self.url, datatype=xsd.anyURI))
        out.add(n, mem.caption, Literal(self.caption) if self.caption is not None else None)
        out.add(n, mem.mediaType, Literal(self.media_type) if self.media_type else None)
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))


@dataclass
class Message(Item):
    """A received payload, kept verbatim, with its hash and idempotency key, and who,
    when and where: its ``sender`` (``prov:wasAttributedTo``), addressees
    (``recipients``, ``mem:recipient``), ``episode`` (``prov:wasGeneratedBy``,
    typed ``mem:Episode`` so the invariants hold), ``turn`` in that episode
    (``mem:turn``, counted from 1) and ``attachments``.

    Writing a message whose ``event_id`` the graph already holds writes nothing
    and returns the IRI of the message already there (a retry, collapsed).
    :meth:`memkg.MemoryStore.add` numbers a message's ``turn`` when it has an
    episode and no turn: the next one in that episode.

    ``content`` is kept as written: a ``str``, or a ``Literal`` for a payload
    with a datatype or language (its lexical form is what is hashed).
    Recipients must be typed vertices (``mem:Person`` or ``mem:Agent``), like
    every role's far end. A bare token names what ``Vertex(id=token)`` (sender,
    recipients) or ``Episode(id=token)`` (episode) would.

    >>> from datetime import timezone
    >>> from pyoxigraph import DefaultGraph
    >>> m = Message(content="Look!", id="m1", sender="lia", episode="s1", turn=1,
    ...             attachments=[Attachment(id="m1-a1", url="https://example.org/mug.jpg", caption="a mug")])
    >>> sorted(q.predicate.value.split("#")[-1] for q in m.quads(DefaultGraph(), datetime.now(timezone.utc))
    ...        if q.subject == m.node())  # doctest: +NORMALIZE_WHITESPACE
    ['attachment', 'content', 'contentHash', 'recordedAt', 'turn', 'type',
     'wasAttributedTo', 'wasGeneratedBy']
    """

    content: str | Literal = ""
    event_id: str | None = None
    sender: IRI | None = None
    event_time: datetime | None = None
    recipients: list[IRI] = field(default_factory=list)
    episode: IRI | None = None
    turn: int | None = None
    attachments: list[Attachment] = field(default_factory=list)
    kind: str = field(default="message", init=False, repr=False)

    def __post_init__(self) -> None:
        if self.turn is not None and (isinstance(self.turn, bool) or not isinstance(self.turn, int) or self.turn < 1):
            raise ValueError(f"a message's turn counts from 1, got {self.turn!r}")
        if self.turn is not None and self.episode is None:
            raise ValueError("a message's turn is its place in an episode: give the episode too")

    def episode_node(self) -> NamedNode | None:
        """The episode's IRI, if the message has one."""
        return iri(self.episode, kind="episode") if self.episode is not None else None

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        content = self.content if isinstance(self.content, Literal) else Literal(self.content)
        out.add(n, RDF_TYPE, mem.Message)
        out.add(n, mem.content, content)
        out.add(n, mem.contentHash, Literal(content_hash(content.value)))
        out.add(n, mem.eventId, Literal(self.event_id) if self.event_id else None)
        out.add(n, prov.wasAttributedTo, iri(self.sender, kind="vertex") if self.sender else None)
        out.add_all(n, mem.recipient, (iri(r, kind="vertex") for r in self.recipients))
        episode = self.episode_node()
        if episode is not None:
            out.add(n, prov.wasGeneratedBy, episode)
            out.add(episode, RDF_TYPE, mem.Episode)
        out.add(n, mem.turn, Literal(str(self.turn), datatype=xsd.integer) if self.turn is not None else None)
        out.add(n, mem.eventTime, _time(self.event_time))
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))
        for attachment in self.attachments:
            out.add(n, mem.attachment, attachment.node())
            out.items += attachment.quads(out.graph, recorded_at)


@dataclass
class Claim(Item):
    """A proposition attributed to a source: the reifier of one triple term, not asserted.

    Provenance is required by the invariants: give at least one of
    ``asserted_by``, ``generated_by``, ``derived_from`` or ``supported_by``.
    """

    subject: IRI = ""
    predicate: IRI = ""
    object: Value = ""
    confidence: float | Decimal | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    event_time: datetime | None = None
    context: list[IRI] = field(default_factory=list)
    asserted_by: IRI | None = None
    generated_by: IRI | None = None
    derived_from: list[IRI] = field(default_factory=list)
    supported_by: list[IRI] = field(default_factory=list)
    cls: IRI = mem.Claim
    kind: str = field(default="claim", init=False, repr=False)

    def __post_init__(self) -> None:
        unit_interval("confidence", self.confidence)
        if self.valid_from and self.valid_until and not self.valid_from < self.valid_until:
            raise ValueError(
                f"valid_from {self.valid_from.isoformat()} must be before "
                f"valid_until {self.valid_until.isoformat()} (validity is [from, until))"
            )

    def triple(self) -> Triple:
        return Triple(iri(self.subject), iri(self.predicate), term(self.object))

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, iri(self.cls))
        out.add(n, RDF_REIFIES, self.triple())
        out.add(n, mem.confidence, unit_interval("confidence", self.confidence))
        out.add(n, mem.validFrom, _time(self.valid_from))
        out.add(n, mem.validUntil, _time(self.valid_until))
        out.add(n, mem.eventTime, _time(self.event_time))
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))
        out.add_all(n, mem.context, (iri(c) for c in self.context))
        out.add(n, mem.assertedBy, iri(self.asserted_by) if self.asserted_by else None)
        out.add(n, prov.wasGeneratedBy, iri(self.generated_by) if self.generated_by else None)
        out.add_all(n, prov.wasDerivedFrom, (iri(d) for d in self.derived_from))
        out.add_all(n, mem.supportedBy, (iri(s) for s in self.supported_by))


@dataclass
class Occurrence(Item):
    """One occurrence of an asserted relation: the triple is asserted, and this
    reifier gives the occurrence its own identity (two recommendations of tea on
    two days are two occurrences of one triple)."""

    subject: IRI = ""
    predicate: IRI = ""
    object: Value = ""
    event_time: datetime | None = None
    confidence: float | Decimal | None = None
    event_id: str | None = None
    generated_by: IRI | None = None
    kind: str = field(default="occurrence", init=False, repr=False)

    def __post_init__(self) -> None:
        unit_interval("confidence", self.confidence)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        t = Triple(iri(self.subject), iri(self.predicate), term(self.object))
        out.add(t.subject, t.predicate, t.object)  # the relation itself is asserted
        out.add(n, RDF_TYPE, mem.Occurrence)
        out.add(n, RDF_REIFIES, t)
        out.add(n, mem.eventTime, _time(self.event_time))
        out.add(n, mem.confidence, unit_interval("confidence", self.confidence))
        out.add(n, mem.eventId, Literal(self.event_id) if self.event_id else None)
        out.add(n, prov.wasGeneratedBy, iri(self.generated_by) if self.generated_by else None)
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))


@dataclass
class Outcome(Item):
    """The result of an action."""

    description: str | None = None
    event_time: datetime | None = None
    kind: str = field(default="outcome", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, mem.Outcome)
        out.add(n, rdfs.comment, Literal(self.description) if self.description else None)
        out.add(n, mem.eventTime, _time(self.event_time))
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))


@dataclass
class Action(Item):
    """Something done within an episode, by an actor, about an object, with an outcome."""

    actor: IRI | None = None
    recipient: IRI | None = None
    object: IRI | None = None
    produces: Outcome | None = None
    event_time: datetime | None = None
    kind: str = field(default="action", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, mem.Action)
        out.add(n, mem.actor, iri(self.actor) if self.actor else None)
        out.add(n, prov.wasAssociatedWith, iri(self.actor) if self.actor else None)
        out.add(n, mem.recipient, iri(self.recipient) if self.recipient else None)
        out.add(n, mem.object, iri(self.object) if self.object else None)
        out.add(n, mem.eventTime, _time(self.event_time))
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))
        if self.produces is not None:
            out.add(n, mem.produces, self.produces.node())
            out.items += self.produces.quads(out.graph, recorded_at)


@dataclass
class Episode(Item):
    """One situated interaction: who took part, when, and the actions within it."""

    participants: list[IRI] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    event_time: datetime | None = None
    description: str | None = None
    kind: str = field(default="episode", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, mem.Episode)
        out.add_all(n, mem.participant, (iri(p) for p in self.participants))
        out.add(n, rdfs.comment, Literal(self.description) if self.description else None)
        out.add(n, mem.eventTime, _time(self.event_time))
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))
        for action in self.actions:
            out.add(n, mem.hasAction, action.node())
            out.items += action.quads(out.graph, recorded_at)


@dataclass
class Extraction(Item):
    """The activity that produced claims from sources, run by an extractor."""

    used: list[IRI] = field(default_factory=list)
    extractor: IRI | None = None
    kind: str = field(default="extraction", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, mem.Extraction)
        out.add_all(n, prov.used, (iri(u) for u in self.used))
        out.add(n, prov.wasAssociatedWith, iri(self.extractor) if self.extractor else None)
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))


@dataclass
class Retraction(Item):
    """Withdraws claims or sources from current knowledge, without a successor."""

    retracts: list[IRI] = field(default_factory=list)
    reason: str | None = None
    kind: str = field(default="retraction", init=False, repr=False)

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        out.add(n, RDF_TYPE, mem.Retraction)
        out.add_all(n, mem.retracts, (iri(r) for r in self.retracts))
        out.add(n, mem.reason, Literal(self.reason) if self.reason else None)
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))


#: The ways in through which a correction can be made (``mem:interface``).
INTERFACES = ("api", "cli", "mcp", "endpoint")


def interface_agent(interface: str) -> NamedNode:
    """memkg's own interface as the software agent that made a correction nobody else is named for."""
    return NamedNode(f"{ID_BASE}agent:{interface}")


@dataclass
class Correction(Item):
    """The activity that records a new version of a claim without a new source (PROV-O):
    who made it (``by``, a person or agent; by default memkg's interface itself, as a
    software agent), when (its ``mem:recordedAt``) and through which ``interface``.

    The new version points at it with ``prov:wasGeneratedBy``, so that it never borrows the
    source of the version it replaces.
    """

    by: IRI | None = None
    interface: str = "api"
    kind: str = field(default="correction", init=False, repr=False)

    def __post_init__(self) -> None:
        if self.interface not in INTERFACES:
            raise ValueError(f"interface {self.interface!r} is none of {', '.join(INTERFACES)}")

    def _describe(self, out: _Quads, recorded_at: datetime) -> None:
        n = self.node()
        agent = iri(self.by) if self.by else interface_agent(self.interface)
        out.add(n, RDF_TYPE, mem.Correction)
        out.add(n, prov.wasAssociatedWith, agent)
        out.add(n, mem.interface, Literal(self.interface))
        out.add(n, mem.recordedAt, datetime_literal(recorded_at))
        if not self.by:  # memkg's own agent is described where it acts (a tenant sees only its graph)
            out.add(agent, RDF_TYPE, mem.Agent)


#: A claim's fields that say what it states; the others say where it came from.
_STATEMENT_FIELDS = ("subject", "predicate", "object", "confidence", "valid_from", "valid_until", "event_time",
                     "context", "cls")


def revision(old: Claim, **changes: Any) -> Claim:
    """The next version of ``old``: what it states (its triple, confidence, valid and event
    time, context and class) with ``changes`` applied, and none of its provenance, which
    belongs to the old version's source. Give the new version's own source in ``changes``
    (``asserted_by=…``); without one, :meth:`memkg.MemoryStore.supersede` records the
    change as a :class:`Correction`.

    >>> old = Claim(subject="https://example.org/lia", predicate="https://example.org/drinks",
    ...             object="tea", asserted_by="https://example.org/m0")
    >>> new = revision(old, object="coffee")
    >>> (new.object, new.subject == old.subject, new.asserted_by)
    ('coffee', True, None)
    """
    unknown = set(changes) - set(_STATEMENT_FIELDS) - {"id", "asserted_by", "generated_by", "derived_from",
                                                       "supported_by"}
    if unknown:
        raise TypeError(f"a claim has no field {', '.join(sorted(unknown))}")
    return Claim(**{**{name: getattr(old, name) for name in _STATEMENT_FIELDS}, **changes})


@dataclass(frozen=True)
class Supersession:
    """What a supersede recorded, and which of three things it was (``kind``):

    * ``"change"``: the world changed; the new version has a valid time of its own
      (another ``mem:validFrom``);
    * ``"correction"``: we were wrong; the new version keeps the valid time and is recorded later;
    * ``"unchanged"``: the new version would state what the old one states, from the same
      source: nothing was written, and ``claim`` is the old version.

    ``activity`` is the :class:`Correction` recorded when the new version was given no source.
    """

    claim: NamedNode  #: the new version (the old one when nothing changed)
    supersedes: NamedNode  #: the version it replaces
    kind: str
    activity: NamedNode | None = None

    @property
    def written(self) -> bool:
        """Whether a new version was written."""
        return self.kind != "unchanged"

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return {"claim": self.claim.value, "supersedes": self.supersedes.value, "kind": self.kind,
                "written": self.written, "activity": self.activity.value if self.activity else None}

    def __str__(self) -> str:
        """The line the command line prints: the current version's IRI first."""
        if not self.written:
            return f"{self.claim.value}  unchanged: the new version would equal it; nothing was written"
        what = ("a change in the world (a new valid time)" if self.kind == "change"
                else "a correction (the same valid time, recorded later)")
        return f"{self.claim.value}  supersedes {self.supersedes.value}: {what}"


def idempotency_key(item: Item) -> str | None:
    """The event id under which a retry of ``item`` must collapse, if it has one."""
    if isinstance(item, (Message, Occurrence)):
        return item.event_id
    return None


def walk(items: Iterable[Item]) -> Iterator[Item]:
    """Every item, nested ones (an episode's actions, an action's outcome) included."""
    for item in items:
        yield item
        if isinstance(item, Episode):
            yield from walk(item.actions)
        elif isinstance(item, Message):
            yield from item.attachments
        elif isinstance(item, Action) and item.produces is not None:
            yield item.produces


def claim_from_quads(node: NamedNode, quads: Iterable[Quad]) -> Claim:
    """The :class:`Claim` that ``quads`` (a claim's description) record about ``node``.

    Raises ValueError when the description does not fit a Claim: no triple term, or a
    subject, asserter, generating activity or class that is not an IRI.
    """
    by: dict[str, list[Term]] = {}
    for q in quads:
        if q.subject == node:
            by.setdefault(q.predicate.value, []).append(q.object)

    def one(p: NamedNode) -> Term | None:
        values = by.get(p.value)
        return values[0] if values else None

    def one_iri(p: NamedNode) -> NamedNode | None:
        return _claim_iri(node, str(p), one(p))

    triple = one(RDF_REIFIES)
    if not isinstance(triple, Triple):
        raise ValueError(f"{node} reifies no triple term")
    confidence = one(mem.confidence)
    cls = [c for c in by.get(RDF_TYPE.value, []) if c != mem.Claim]
    return Claim(
        id=node,
        subject=_claim_iri(node, "triple term's subject", triple.subject),
        predicate=triple.predicate,
        object=triple.object,
        confidence=Decimal(confidence.value) if isinstance(confidence, Literal) else None,
        valid_from=datetime_of(one(mem.validFrom)),
        valid_until=datetime_of(one(mem.validUntil)),
        event_time=datetime_of(one(mem.eventTime)),
        context=[c for c in by.get(mem.context.value, []) if isinstance(c, NamedNode)],
        asserted_by=one_iri(mem.assertedBy),
        generated_by=one_iri(prov.wasGeneratedBy),
        derived_from=[d for d in by.get(prov.wasDerivedFrom.value, []) if isinstance(d, NamedNode)],
        supported_by=[d for d in by.get(mem.supportedBy.value, []) if isinstance(d, NamedNode)],
        cls=_claim_iri(node, "class", cls[0]) if cls else mem.Claim,
    )


@overload
def _claim_iri(claim: NamedNode, what: str, value: Term) -> NamedNode: ...
@overload
def _claim_iri(claim: NamedNode, what: str, value: Term | None) -> NamedNode | None: ...
def _claim_iri(claim: NamedNode, what: str, value: Term | None) -> NamedNode | None:
    """``value`` where a Claim holds an IRI; ValueError naming the claim for any other term."""
    if value is None or isinstance(value, NamedNode):
        return value
    raise ValueError(f"{claim}: its {what} is {value}, not an IRI, so it does not fit a Claim")
