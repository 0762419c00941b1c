"""Content negotiation: which serialization answers a request (RFC 9110 §12.5.1).

A SPARQL answer is either a table (SELECT, ASK) or a graph (CONSTRUCT, DESCRIBE,
Graph Store GET), and each kind has its own formats. The server's formats are
listed in order of preference; the client's ``Accept`` header gives each a weight
(the q-value of the most specific range that matches it), and the heaviest wins,
ties going to the server's order. ``q=0`` refuses a format. A ``format=``
parameter (a short name or a media type) overrides the header, as many SPARQL
servers allow, which is handy from a browser address bar; a value naming none
of the answer's formats is ignored (clients send ``format=`` meant for others).

Everything here is plain data, picklable, so the worker that knows what kind of
answer the query produced makes the final choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyoxigraph import QueryResultsFormat, RdfFormat

from ...core.errors import MemkgError


class NotAcceptable(MemkgError, ValueError):
    """No format the client accepts can carry this kind of answer (HTTP 406)."""


@dataclass(frozen=True)
class Format:
    name: str  #: the short name of ``format=`` (json, turtle, …)
    media_type: str  #: what the response's Content-Type says
    aliases: tuple[str, ...] = ()  #: other media types that mean the same

    @property
    def media_types(self) -> tuple[str, ...]:
        return (self.media_type, *self.aliases)


# In order of preference: the first is what */* gets.
TABLE_FORMATS: tuple[Format, ...] = (
    Format("json", "application/sparql-results+json", ("application/json",)),
    Format("xml", "application/sparql-results+xml", ("application/xml", "text/xml")),
    Format("csv", "text/csv"),
    Format("tsv", "text/tab-separated-values"),
)
GRAPH_FORMATS: tuple[Format, ...] = (
    Format("turtle", "text/turtle", ("application/x-turtle",)),
    Format("ntriples", "application/n-triples", ("text/plain",)),
    Format("trig", "application/trig"),
    Format("nquads", "application/n-quads"),
    Format("rdfxml", "application/rdf+xml"),
)
#: Dataset formats, for a whole-store Graph Store GET (a graph needs no graph names).
DATASET_FORMATS: tuple[Format, ...] = tuple(f for f in GRAPH_FORMATS if f.name in ("trig", "nquads"))

TABLE_SERIALIZERS: dict[str, QueryResultsFormat] = {
    "json": QueryResultsFormat.JSON,
    "xml": QueryResultsFormat.XML,
    "csv": QueryResultsFormat.CSV,
    "tsv": QueryResultsFormat.TSV,
}
GRAPH_SERIALIZERS: dict[str, RdfFormat] = {
    "turtle": RdfFormat.TURTLE,
    "ntriples": RdfFormat.N_TRIPLES,
    "trig": RdfFormat.TRIG,
    "nquads": RdfFormat.N_QUADS,
    "rdfxml": RdfFormat.RDF_XML,
}


@dataclass(frozen=True)
class MediaRange:
    type: str
    subtype: str
    q: float

    @property
    def specificity(self) -> int:
        return (self.type != "*") + (self.subtype != "*")

    def matches(self, media_type: str) -> bool:
        t, _, s = media_type.partition("/")
        return self.type in ("*", t) and self.subtype in ("*", s)


def parse_accept(header: str | None) -> list[MediaRange]:
    """The ranges of an ``Accept`` header; no header (or an empty one) accepts anything."""
    if not header or not header.strip():
        return [MediaRange("*", "*", 1.0)]
    ranges = []
    for part in header.split(","):
        fields = [f.strip() for f in part.split(";")]
        kind = fields[0].lower()
        if not kind:
            continue
        if kind == "*":  # seen in the wild (old Java clients); means */*
            kind = "*/*"
        t, sep, s = kind.partition("/")
        if not sep or not t or not s:
            continue  # malformed ranges are ignored rather than failing the request
        q = 1.0
        for param in fields[1:]:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        ranges.append(MediaRange(t, s, q))
    return ranges


def weight(ranges: list[MediaRange], fmt: Format) -> float:
    """The q-value ``ranges`` give ``fmt``: that of the most specific matching range."""
    best: tuple[int, float] | None = None
    for media_type in fmt.media_types:
        for r in ranges:
            # Aliases answer only when named: text/* must not get XML results by way of text/xml.
            if r.matches(media_type) and (media_type == fmt.media_type or r.specificity == 2):
                # A more specific range overrides a broader one; among equals, the higher q.
                key = (r.specificity, r.q)
                if best is None or key > best:
                    best = key
    return best[1] if best else 0.0


def by_name(name: str, candidates: tuple[Format, ...]) -> Format | None:
    """The format a ``format=`` value names (short name or media type), among ``candidates``."""
    wanted = name.strip().lower().split(";")[0].strip()
    for fmt in candidates:
        if wanted == fmt.name or wanted in fmt.media_types:
            return fmt
    return None


def choose(accept: str | None, candidates: tuple[Format, ...], *, override: str | None = None) -> Format:
    """The format to answer with, or :class:`NotAcceptable`."""
    kinds = ", ".join(f.media_type for f in candidates)
    if override:
        fmt = by_name(override, candidates)
        if fmt is not None:
            return fmt
        # Not one of this answer's formats: clients such as SPARQLWrapper send format=
        # (and output=) for every query, with names meant for other servers, so the
        # Accept header decides.
    ranges = parse_accept(accept)
    best, best_q = None, 0.0
    for fmt in candidates:  # in the server's order, so ties keep the server's preference
        q = weight(ranges, fmt)
        if q > best_q:
            best, best_q = fmt, q
    if best is None:
        raise NotAcceptable(f"nothing in Accept: {accept} fits this answer; available: {kinds}")
    return best


def accepts_any(accept: str | None, override: str | None = None) -> bool:
    """Whether some answer (table or graph) could satisfy the request: checked before running."""
    every = (*TABLE_FORMATS, *GRAPH_FORMATS)
    if override and by_name(override, every) is not None:
        return True
    ranges = parse_accept(accept)
    return any(weight(ranges, f) > 0 for f in every)


def content_type(fmt: Format) -> str:
    """The Content-Type header for ``fmt`` (text formats say their charset)."""
    if fmt.media_type.startswith("text/"):
        return f"{fmt.media_type}; charset=utf-8"
    return fmt.media_type
