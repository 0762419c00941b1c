"""Documents: what recall indexes about a node, derived from the store's quads.

One node in one graph gives at most one :class:`Document`: a message's content
(and its attachments' captions),
a claim's (or occurrence's) subject, predicate and object as words, a vertex's
names, an episode's or outcome's description. With it come the facts the other
signals need: its times, when the store recorded it, its episode, the message
that asserted it, and the vertices it is linked to (sender, recipients,
participants, a claim's subject and object). :func:`derive` is a pure function
of the store, so the index can always be rebuilt from the data and checked
against it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from ..core.terms import GraphName, datetime_of
from ..core.vocab import (
    MEM,
    MEMX,
    ONTOLOGY_GRAPH,
    OWL,
    RDF,
    RDF_REIFIES,
    RDF_TYPE,
    RDFS,
    SH,
    foaf,
    mem,
    prov,
    rdfs,
    skos,
)
from .timeexpr import MAX, MIN, find_periods, might_name_a_time

#: Properties whose literal values name a vertex: its display name and aliases.
NAME_PREDICATES = (
    mem.displayName, mem.alias, rdfs.label, skos.prefLabel, skos.altLabel,
    foaf.name, foaf.nick,
)
_NAME_IRIS = frozenset(p.value for p in NAME_PREDICATES)
#: Properties whose change alters the words of claims about the named vertex.
LABEL_PREDICATES = frozenset(NAME_PREDICATES)

#: Link roles kept for the entity signal: predicate → role name.
_LINKS = {
    prov.wasAttributedTo: "sender",
    mem.recipient: "recipient",
    mem.participant: "participant",
    mem.actor: "actor",
    mem.object: "object",
}
_LINK_IRIS = [(p.value, role) for p, role in _LINKS.items()]
_NAME_IRI_LIST = [p.value for p in NAME_PREDICATES]
_NOT_VERTEX_TYPES = (RDF, RDFS, OWL, SH)

GraphKey = str  #: "" for the default graph, "_:label" for a blank node, else the graph's IRI


def graph_key(graph: GraphName) -> GraphKey:
    if isinstance(graph, DefaultGraph):
        return ""
    return f"_:{graph.value}" if isinstance(graph, BlankNode) else graph.value


def graph_term(key: GraphKey) -> GraphName:
    if key == "":
        return DefaultGraph()
    return BlankNode(key[2:]) if key.startswith("_:") else NamedNode(key)


@dataclass
class Document:
    """What recall knows about one node in one graph."""

    node: str
    graph: GraphKey
    kind: str  #: Message, Claim, Occurrence, Episode, Outcome, or the vertex class (Person, …)
    text: str
    start: float | None = None  #: POSIX seconds: event time, or the start of validity
    end: float | None = None  #: the end of validity (exclusive); the event time for a moment
    recorded: float | None = None  #: mem:recordedAt
    episode: str | None = None  #: prov:wasGeneratedBy (a message's episode)
    turn: int | None = None  #: mem:turn (a message's place in its episode, from 1)
    #: The span of the dates a message's words name, read against its own time ("yesterday" said
    #: on 8 May is 7 May): POSIX seconds, start and end (exclusive).
    mentions: tuple[float, float] | None = None
    source: str | None = None  #: mem:assertedBy (the message behind a claim)
    links: list[tuple[str, str]] = field(default_factory=list)  #: (vertex IRI, role)
    names: list[tuple[str, str]] = field(default_factory=list)  #: (vertex IRI, a name it goes by)


def seconds(term: object) -> float | None:
    """An ``xsd:dateTime`` literal as POSIX seconds (None for anything else or a zoneless time)."""
    if not isinstance(term, Literal) or not term.datatype.value.endswith("#dateTime"):
        return None
    t = datetime_of(term)
    return t.timestamp() if t is not None and t.tzinfo is not None else None


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def humanize(iri: str) -> str:
    """The last segment of an IRI as words: ``…/teaWithoutSugar`` → ``tea Without Sugar``."""
    local = re.split(r"[#/:]", iri.rstrip("/#"))[-1]
    return _CAMEL.sub(" ", re.sub(r"[_\-.]+", " ", local)).strip() or iri


class Labeller:
    """Words for a term in a graph: its display name or label (the tenant's, the shared
    graph's or the ontology's; never another tenant's), else its IRI's last segment."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[tuple[str, GraphKey], str] = {}

    def __call__(self, term: object, graph: GraphKey) -> str:
        if isinstance(term, Literal):
            return term.value
        if isinstance(term, Triple):
            return " ".join(self(t, graph) for t in (term.subject, term.predicate, term.object))
        if not isinstance(term, NamedNode):
            return ""
        key = (term.value, graph)
        if key not in self._cache:
            self._cache[key] = self._lookup(term, graph)
        return self._cache[key]

    def forget(self) -> None:
        self._cache.clear()

    def _lookup(self, term: NamedNode, graph: GraphKey) -> str:
        for g in dict.fromkeys((graph_term(graph), DefaultGraph(), ONTOLOGY_GRAPH)):
            for p in (mem.displayName, rdfs.label, skos.prefLabel):
                best = None
                for q in self.store.quads_for_pattern(term, p, None, g):
                    if isinstance(q.object, Literal) and (best is None or q.object.language in ("", "en")):
                        best = q.object
                if best is not None:
                    return best.value
        return humanize(term.value)


_TYPE, _RECORDED_AT, _GENERATED_BY, _EVENT_TIME, _CONTENT, _REIFIES, _ATTACHMENT, _TURN = (
    p.value for p in (RDF_TYPE, mem.recordedAt, prov.wasGeneratedBy, mem.eventTime, mem.content, RDF_REIFIES,
                      mem.attachment, mem.turn))


def derive(store: Store, node: NamedNode, graph: GraphName, labels: Labeller,
           quads: Iterable[Quad] | None = None) -> Document | None:
    """The document for ``node`` in ``graph``, or None when recall has nothing to say about it.

    ``quads``: every quad the store holds about ``node`` in ``graph``, when the caller has them
    (a node a write has just created); otherwise they are read from the store.
    """
    key = graph_key(graph)
    by: dict[str, list[object]] = {}
    for q in store.quads_for_pattern(node, None, None, graph) if quads is None else quads:
        if not q.predicate.value.startswith(MEMX):
            by.setdefault(q.predicate.value, []).append(q.object)
    if not by:
        return None

    def one(p: str) -> object:
        values = by.get(p)
        return values[0] if values else None

    types = [t.value for t in by.get(_TYPE, []) if isinstance(t, NamedNode)]
    doc = Document(node.value, key, "", "", recorded=seconds(one(_RECORDED_AT)))
    for p, role in _LINK_IRIS:
        doc.links += [(o.value, role) for o in by.get(p, []) if isinstance(o, NamedNode)]
    episode = one(_GENERATED_BY)
    event = seconds(one(_EVENT_TIME))
    content = one(_CONTENT)
    term = next((t for t in by.get(_REIFIES, []) if isinstance(t, Triple)), None)
    if isinstance(content, Literal) and (MEM + "Message" in types or not types):
        doc.kind, doc.text = "Message", content.value
        # What came with it (an image) is part of what it says: its captions are its words too.
        captions = [c for a in by.get(_ATTACHMENT, []) if isinstance(a, NamedNode) for c in _captions(store, a, graph)]
        if captions:
            doc.text = " ".join([doc.text, *captions])
        doc.start = doc.end = event
        doc.episode = episode.value if isinstance(episode, NamedNode) else None
        doc.turn = _integer(one(_TURN))
        doc.mentions = mentioned_span(content.value, event)
    elif term is not None:
        doc.kind = "Occurrence" if MEM + "Occurrence" in types else "Claim"
        doc.text = labels(term, key)
        start, end = seconds(one(mem.validFrom.value)), seconds(one(mem.validUntil.value))
        source = one(mem.assertedBy.value)
        doc.source = source.value if isinstance(source, NamedNode) else None
        if start is None and end is None:
            start = end = event if event is not None else _source_time(store, source, graph)
        doc.start, doc.end = start, end
        doc.links += [(t.value, role) for t, role in ((term.subject, "subject"), (term.object, "object"))
                      if isinstance(t, NamedNode)]
        if term.predicate.value in _NAME_IRIS and isinstance(term.object, Literal) and isinstance(term.subject, NamedNode):
            doc.names.append((term.subject.value, term.object.value))
    else:
        names = [(p, o.value) for p in _NAME_IRI_LIST for o in by.get(p, []) if isinstance(o, Literal)]
        described = one(rdfs.comment.value)
        if MEM + "Episode" in types or MEM + "Outcome" in types or MEM + "Action" in types:
            if not isinstance(described, Literal):
                return None
            doc.kind = next(t for t in types if t in (MEM + "Episode", MEM + "Outcome", MEM + "Action"))[len(MEM):]
            doc.text = described.value
            doc.start = doc.end = event
        elif names and any(not t.startswith(_NOT_VERTEX_TYPES) for t in types):
            vertex_type = sorted(types, key=lambda t: (not t.startswith(MEM), t))[0]
            doc.kind = humanize(vertex_type).replace(" ", "")
            doc.text = " ".join(dict.fromkeys(name for _, name in names))
            doc.names = [(node.value, name) for _, name in names]
        else:
            return None
    return doc if doc.text.strip() else None


def mentioned_span(text: str, said: float | None) -> tuple[float, float] | None:
    """The span of the dates and periods ``text`` names, relative ones ("last week") read
    against ``said`` (when it was said); None when it names none, or has no time to read them by.
    Open periods ("before 2020") and those anchored on an event ("after the move") are left out."""
    if said is None or not might_name_a_time(text):
        return None
    spans = [(p.start.timestamp(), p.end.timestamp())
             for p in find_periods(text, datetime.fromtimestamp(said, timezone.utc))
             if p.anchor is None and p.start > MIN and p.end < MAX]
    if not spans:
        return None
    return min(a for a, _ in spans), max(b for _, b in spans)


def _integer(term: object) -> int | None:
    if isinstance(term, Literal) and term.datatype.value.endswith("#integer"):
        try:
            return int(term.value)
        except ValueError:
            return None
    return None


def _captions(store: Store, attachment: NamedNode, graph: GraphName) -> list[str]:
    return [q.object.value for q in store.quads_for_pattern(attachment, mem.caption, None, graph)
            if isinstance(q.object, Literal)]


def _source_time(store: Store, source: object, graph: GraphName) -> float | None:
    """A claim without times of its own is dated by the message that asserted it."""
    if not isinstance(source, NamedNode):
        return None
    for q in store.quads_for_pattern(source, mem.eventTime, None, graph):
        return seconds(q.object)
    return None


def affected(store: Store, subjects: Iterable[tuple[NamedNode, GraphName]],
             renamed: Iterable[tuple[NamedNode, GraphName]],
             captioned: Iterable[tuple[NamedNode, GraphName]] = ()) -> set[tuple[NamedNode, GraphName]]:
    """The nodes whose documents a write may have changed: the subjects it touched, the claims
    about a vertex whose name changed (their words name it), and the messages carrying an
    attachment whose caption changed (its words are theirs)."""
    out = set(subjects)
    for attachment, g in captioned:
        for q in store.quads_for_pattern(None, mem.attachment, attachment, g):
            if isinstance(q.subject, NamedNode):
                out.add((q.subject, g))
    for vertex, g in renamed:
        for p in (MEMX + "subject", MEMX + "object"):
            for q in store.quads_for_pattern(None, NamedNode(p), vertex, g):
                if isinstance(q.subject, NamedNode):
                    out.add((q.subject, g))
    return out
