"""RDF formats by name and file extension, and graph arguments as terms."""

from __future__ import annotations

import os
from pathlib import Path

from pyoxigraph import DefaultGraph, NamedNode, RdfFormat

from ..core.errors import UnknownFormatError

_EXTENSIONS: dict[str, RdfFormat] = {
    "ttl": RdfFormat.TURTLE,
    "turtle": RdfFormat.TURTLE,
    "trig": RdfFormat.TRIG,
    "nt": RdfFormat.N_TRIPLES,
    "ntriples": RdfFormat.N_TRIPLES,
    "nq": RdfFormat.N_QUADS,
    "nquads": RdfFormat.N_QUADS,
}
FORMAT_NAMES: dict[str, RdfFormat] = {
    "turtle": RdfFormat.TURTLE,
    "trig": RdfFormat.TRIG,
    "ntriples": RdfFormat.N_TRIPLES,
    "nquads": RdfFormat.N_QUADS,
}


def rdf_format(path: str | os.PathLike[str], forced: str | RdfFormat | None = None) -> RdfFormat:
    """The RDF format of ``path``: ``forced`` if given, else from its extension.

    >>> rdf_format("memory.trig").name
    'TriG'
    """
    if isinstance(forced, RdfFormat):
        return forced
    if forced is not None:
        try:
            return FORMAT_NAMES[forced.lower()]
        except KeyError:
            raise UnknownFormatError(
                f"unknown format {forced!r}; expected one of {', '.join(FORMAT_NAMES)}"
            ) from None
    ext = Path(path).suffix.lstrip(".").lower()
    if ext not in _EXTENSIONS:
        raise UnknownFormatError(
            f"{path}: cannot tell the RDF format from the extension {ext or '(none)'!r}; "
            f"use .ttl, .trig, .nt or .nq, or name the format ({'|'.join(FORMAT_NAMES)})"
        )
    return _EXTENSIONS[ext]


def as_graph(graph: str | NamedNode | DefaultGraph | None) -> NamedNode | DefaultGraph:
    """A graph argument as a term: an IRI string or node for a tenant, None for the default graph."""
    if graph is None or isinstance(graph, DefaultGraph):
        return DefaultGraph()
    if isinstance(graph, NamedNode):
        return graph
    try:
        return NamedNode(graph)
    except ValueError as err:
        raise ValueError(f"not a valid graph IRI: {graph!r} ({err})") from None
