"""Claim extraction baselines: deterministic splitters that turn a source's text into claims.

No model calls: three rule-based extractors, each with a name and version that
are recorded in PROV with what they produce (a ``mem:Extractor`` with
``mem:version``; a ``mem:Extraction`` that ``prov:used`` the source and
``prov:wasAssociatedWith`` the extractor; claims ``prov:wasGeneratedBy`` it).

* :data:`SENTENCES` — one claim per sentence.
* :data:`CONSTRAINED` — splits sentences at conjunctions (``;``, ``, and``,
  ``but``, …) and causal joints (``because``, ``so``, ``therefore``, …), and
  flags negation, conditionals and attribution. A conditional or attributed
  sentence is kept whole: "If the import fails we roll back" does not assert
  that the import fails, and "Sam said MySQL is fine" does not assert that
  MySQL is fine.
* :data:`ABSTAINING` — the constrained splitter that refuses a piece whose
  subject is an unresolved reference ("Its behaviour changed.") instead of
  inventing a claim about an unknown thing: it reports an :class:`Abstention`.

A claim's proposition is the piece of text the source states:
``<<( source mem:states "text" )>>`` by default (the subject and predicate can be
chosen). The claim is asserted by the source when it is a message, supported
by it, and carries the extractor's ``mem:extractionConfidence`` (how well the
text was read; never its ``mem:confidence``).

>>> [p.text for p in CONSTRAINED.split("Postgres is faster, but the import lost rows.")]
['Postgres is faster', 'the import lost rows']
>>> [(p.text, sorted(p.flags)) for p in CONSTRAINED.split("If the import fails, we roll back.")]
[('If the import fails, we roll back', ['conditional'])]
>>> ABSTAINING.split("Its behaviour changed.")[0].reason
"unresolved reference: 'Its'"
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pyoxigraph import DefaultGraph, Literal, NamedNode

from ..core.errors import NotFoundError
from ..core.model import Claim, Extraction, Item, Predicate, Vertex
from ..core.terms import iri
from ..core.vocab import ONTOLOGY_GRAPH, OWL, RDF, mem, rdf
from ..store import MemoryStore, as_graph, scope

__all__ = [
    "ABSTAINING",
    "CONSTRAINED",
    "SENTENCES",
    "Abstention",
    "AbstainingSplitter",
    "ConstrainedSplitter",
    "ExtractionResult",
    "Extractor",
    "SentenceSplitter",
    "Span",
    "extract",
]

#: The default predicate of extracted claims: "the source states this text".
STATES = mem.states
#: Proposed term: a claim's extraction flags (``negation``, ``conditional``,
#: ``attribution``, ``causal``), written only once the ontology declares it.
EXTRACTION_FLAG = mem.extractionFlag


@dataclass(frozen=True)
class Span:
    """A piece of text to become one claim, with its offsets in the source text.

    ``flags``: ``negation``, ``conditional``, ``attribution``, ``causal``.
    """

    text: str
    start: int
    end: int
    flags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Abstention:
    """A piece the extractor refused to turn into a claim, and why."""

    text: str
    start: int
    end: int
    reason: str


Piece = Span | Abstention

# -- sentence splitting ------------------------------------------------------------------

_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf dr mr mrs ms prof inc ltd jr sr st no approx dept fig al".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s|$)|\n\s*\n")
_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*")


def _sentences(text: str) -> list[tuple[int, int]]:
    """Sentence (start, end) offsets: ends at . ! ? followed by a space and a capital,
    digit or quote (not after an abbreviation, not inside "1.4x"), or at a blank line."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        end = m.end()
        rest = text[end:].lstrip()
        if m.group(0).strip() and rest and not (rest[0].isupper() or rest[0].isdigit() or rest[0] in "\"'“‘(["):
            continue
        words = _WORD.findall(text[start : m.start()])
        if m.group(0).startswith(".") and words and words[-1].lower().rstrip(".") in _ABBREVIATIONS:
            continue
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink [start, end) past surrounding spaces, closing punctuation and leading commas."""
    while start < end and (text[start].isspace() or text[start] in ",;:"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ".!?,;:"):
        end -= 1
    return start, end


@dataclass(frozen=True)
class Extractor:
    """A deterministic extractor: ``split`` text into pieces. ``name`` and ``version`` are recorded."""

    name: str
    version: str

    @property
    def iri(self) -> NamedNode:
        """The extractor's IRI, stable for a name and version: ``urn:memkg:extractor:NAME-VERSION``."""
        return NamedNode(f"urn:memkg:extractor:{self.name}-{self.version}")

    #: The extraction confidence a plain piece gets; each flag lowers it by 0.1 (a heuristic).
    base_confidence: float = field(default=0.5, compare=False)

    def split(self, text: str) -> list[Piece]:
        raise NotImplementedError

    def confidence(self, piece: Span) -> float:
        return round(max(0.1, self.base_confidence - 0.1 * len(piece.flags - {"causal"})), 2)


@dataclass(frozen=True)
class SentenceSplitter(Extractor):
    """One piece per sentence, nothing flagged."""

    name: str = "memkg-sentences"
    version: str = "1.0.0"
    base_confidence: float = field(default=0.5, compare=False)

    def split(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        for s, e in _sentences(text):
            s, e = _trim(text, s, e)
            if s < e:
                out.append(Span(text[s:e], s, e))
        return out


_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without fail)\b|n['’]t\b", re.I)
_CONDITIONAL = re.compile(r"\b(?:if|unless|provided that|assuming|in case|only when|whenever)\b", re.I)
_ATTRIBUTION = re.compile(
    r"^\s*according to\b|\b(?:said|says|claims|claimed|reported|reports|thinks|believes|"
    r"told|wrote|stated|argues|argued|suggests|suggested|insists|insisted)\b(?:\s+that\b)?",
    re.I,
)
#: Causal joints: the text on both sides is asserted, and one gives the other's reason.
_CAUSAL = re.compile(
    r"\s*,?\s*\b(?:because(?! of)|which is why|that is why|therefore|thus|hence|as a result|so(?! that| far| much| many))\b\s*,?",
    re.I,
)
#: Conjunctions that join two assertions: always at ";" and after a comma; a bare
#: "and"/"or"/"but" only when both sides look like clauses (three words or more).
_COMMA_JOINT = re.compile(r"\s*;\s*|,\s*(?:and|but|or|yet|whereas|while)\s+", re.I)
_BARE_JOINT = re.compile(r"\s+(?:and|but|or|yet|whereas)\s+", re.I)


@dataclass(frozen=True)
class ConstrainedSplitter(Extractor):
    """Split at conjunctions and causal joints; flag negation, conditionals and attribution.

    Conditional and attributed sentences are kept whole (their parts are not
    asserted); the parts of a causal sentence are flagged ``causal``.
    """

    name: str = "memkg-constrained"
    version: str = "1.0.0"
    base_confidence: float = field(default=0.7, compare=False)

    def split(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        for s, e in _sentences(text):
            s, e = _trim(text, s, e)
            if s >= e:
                continue
            sentence = text[s:e]
            whole: set[str] = set()
            if _CONDITIONAL.search(sentence):
                whole.add("conditional")
            if _ATTRIBUTION.search(sentence):
                whole.add("attribution")
            if whole:
                if _NEGATION.search(sentence):
                    whole.add("negation")
                out.append(Span(sentence, s, e, frozenset(whole)))
                continue
            for ps, pe, flags in self._parts(text, s, e):
                piece = text[ps:pe]
                if _NEGATION.search(piece):
                    flags = flags | {"negation"}
                out.append(self._piece(Span(piece, ps, pe, frozenset(flags))))
        return out

    def _piece(self, span: Span) -> Piece:
        return span

    def _parts(self, text: str, s: int, e: int) -> list[tuple[int, int, frozenset[str]]]:
        pieces: list[tuple[int, int, frozenset[str]]] = []
        causal_cuts = [(m.start() + s, m.end() + s) for m in _CAUSAL.finditer(text[s:e])]
        segments = _cut(s, e, causal_cuts)
        flags = frozenset({"causal"}) if len(segments) > 1 else frozenset()
        for cs, ce in segments:
            for ps, pe in _conjoined(text, cs, ce):
                ps, pe = _trim(text, ps, pe)
                if ps < pe:
                    pieces.append((ps, pe, flags))
        return pieces


def _cut(s: int, e: int, cuts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out, at = [], s
    for cs, ce in cuts:
        if cs > at:
            out.append((at, cs))
        at = ce
    if at < e:
        out.append((at, e))
    return out or [(s, e)]


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def _conjoined(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """Split [s, e) at conjunctions joining clauses."""
    cuts = [(m.start() + s, m.end() + s) for m in _COMMA_JOINT.finditer(text[s:e])]
    out: list[tuple[int, int]] = []
    for cs, ce in _cut(s, e, cuts):
        at = cs
        for m in _BARE_JOINT.finditer(text[cs:ce]):
            left, right = text[at : cs + m.start()], text[cs + m.end() : ce]
            if _words(left) >= 3 and _words(right) >= 3:
                out.append((at, cs + m.start()))
                at = cs + m.end()
        out.append((at, ce))
    return out


#: A piece whose first word is one of these refers to something it does not name.
_REFERENCES = frozenset(
    "it its it's they their theirs them this that these those he she his her hers him".split()
)


@dataclass(frozen=True)
class AbstainingSplitter(ConstrainedSplitter):
    """The constrained splitter, abstaining on pieces whose subject is an unresolved reference."""

    name: str = "memkg-abstaining"
    version: str = "1.0.0"
    base_confidence: float = field(default=0.7, compare=False)

    def _piece(self, span: Span) -> Piece:
        words = _WORD.findall(span.text)
        if words and words[0].lower() in _REFERENCES:
            return Abstention(span.text, span.start, span.end, f"unresolved reference: {words[0]!r}")
        return span

    def split(self, text: str) -> list[Piece]:
        return [self._piece(p) if isinstance(p, Span) else p for p in super().split(text)]


SENTENCES = SentenceSplitter()
CONSTRAINED = ConstrainedSplitter()
ABSTAINING = AbstainingSplitter()


# -- recording an extraction ---------------------------------------------------------------


@dataclass(frozen=True)
class ExtractionResult:
    """What :func:`extract` recorded: the extraction, the extractor, the claims (one per span, in
    order) and what was refused."""

    extraction: NamedNode
    extractor: NamedNode
    claims: tuple[NamedNode, ...]
    spans: tuple[Span, ...]
    abstentions: tuple[Abstention, ...]


def _declared(store: MemoryStore, predicate: NamedNode, graph: NamedNode | DefaultGraph) -> bool:
    raw = store.raw
    for g in (ONTOLOGY_GRAPH, graph, DefaultGraph()):
        for q in raw.quads_for_pattern(predicate, rdf.type, None, g):
            if isinstance(q.object, NamedNode) and (q.object.value == RDF + "Property" or q.object.value.startswith(OWL)):
                return True
    return False


def extract(
    store: MemoryStore,
    source: str | NamedNode,
    *,
    extractor: Extractor = CONSTRAINED,
    graph: str | NamedNode | None = None,
    predicate: str | NamedNode = STATES,
    subject: str | NamedNode | None = None,
) -> ExtractionResult:
    """Extract claims from ``source``'s ``mem:content`` and record them in one validated write.

    Each span becomes a claim ``<<( subject predicate "span" )>>`` (subject: the
    source itself unless given; it must be a typed vertex),
    ``prov:wasGeneratedBy`` a new ``mem:Extraction`` that ``prov:used`` the source
    and ``prov:wasAssociatedWith`` the extractor (written as a ``mem:Extractor``
    with its ``mem:version``), ``mem:supportedBy`` the source (and
    ``mem:assertedBy`` it when it is a ``mem:Message``), with the extractor's
    ``mem:extractionConfidence``. If ``predicate`` is not declared anywhere, it
    is declared in ``graph`` in the same write. Abstentions are returned, not
    written. Without ``graph``, the claims go where ``source`` is (:func:`memkg.store.scope.locate`).
    Raises :class:`~memkg.core.errors.UnknownIRIError` if no graph of the scope holds ``source``,
    :class:`~memkg.core.errors.NotFoundError` if its graph holds no ``mem:content`` for it.

    :raises ~memkg.core.errors.UnknownIRIError: no graph of the scope holds the IRI (the error names the scope and the nearest IRIs).
    :raises ~memkg.core.errors.NotFoundError: the source's graph holds no ``mem:content`` for it.
    :raises ~memkg.core.errors.ValidationError: the write breaks an invariant (nothing is written).
    """
    node = iri(source)
    graph = scope.locate(store.raw, node, tenant=graph)
    target = as_graph(graph)
    contents = [q.object for q in store.raw.quads_for_pattern(node, mem.content, None, target)]
    if not contents or not isinstance(contents[0], Literal):
        raise NotFoundError(f"{node}: no mem:content in graph {target}")
    text = contents[0].value
    pieces = extractor.split(text)
    spans = tuple(p for p in pieces if isinstance(p, Span))
    abstentions = tuple(p for p in pieces if isinstance(p, Abstention))
    is_message = any(store.raw.quads_for_pattern(node, rdf.type, mem.Message, target))
    pred = iri(predicate)
    record_flags = _declared(store, EXTRACTION_FLAG, target)

    items: list[Item] = []
    if not _declared(store, pred, target):
        items.append(Predicate(id=pred, label="states"))
    items.append(Vertex(id=extractor.iri, cls=mem.Extractor, display_name=extractor.name,
                        extra=[(mem.version, extractor.version)]))
    run = Extraction(used=[node], extractor=extractor.iri)
    items.append(run)
    claims = [
        Claim(
            subject=iri(subject) if subject is not None else node,
            predicate=pred,
            object=Literal(span.text),
            asserted_by=node if is_message else None,
            generated_by=run.node(),
            supported_by=[node],
            extra=[(mem.extractionConfidence, extractor.confidence(span))]
            + ([(EXTRACTION_FLAG, Literal(f)) for f in sorted(span.flags)] if record_flags else []),
        )
        for span in spans
    ]
    items += claims
    store.add_all(items, graph=graph)
    return ExtractionResult(run.node(), extractor.iri, tuple(c.node() for c in claims), spans, abstentions)
