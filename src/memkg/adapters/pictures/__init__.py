"""Pictures of the memory, drawn offline: a claim's history as a timeline, its lineage and
support (or an evidence packet) as a diagram, in SVG that memkg lays out itself or as
Graphviz ``dot`` text.

The command line (``memkg history|lineage|support|packet … --format svg|dot``) and the
endpoint (``/pictures/KIND?…``) both call :func:`picture` and :func:`render`.

>>> from memkg import MemoryStore
>>> store = MemoryStore()
>>> _ = store.load("examples/lia-tea.trig")
>>> svg = render(picture(store, "history", "https://example.org/lia/cName1"), "svg")
>>> svg.startswith("<svg") and "cName0" in svg and "cName1" in svg
True
>>> print(render(picture(store, "support", "https://example.org/lia/c0"), "dot").splitlines()[0])
digraph memkg {
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.terms import IRI
from ...provenance.evidence import packet
from .build import history_timeline, packet_diagram, provenance_diagram
from .dot import to_dot
from .model import Diagram, Edge, Node, Picture, Row, Timeline
from .svg import to_svg

#: what can be drawn of a claim (``packet`` takes one or more claims)
KINDS = ("history", "lineage", "support", "packet")
FORMATS = ("svg", "dot", "json")
CONTENT_TYPES = {"svg": "image/svg+xml", "dot": "text/vnd.graphviz; charset=utf-8", "json": "application/json"}


def picture(store: Any, kind: str, claim: str | Sequence[str], *, tenant: IRI | None = None,
            prefixes: Mapping[str, str] | None = None, **packet_options: Any) -> Picture:
    """The picture of ``kind`` (one of :data:`KINDS`) for ``claim`` (for ``packet``, one or more
    claims; ``packet_options`` are :func:`memkg.provenance.evidence.packet`'s budgets)."""
    claims = [claim] if isinstance(claim, str) else list(claim)
    if kind not in KINDS:
        raise ValueError(f"no picture of kind {kind!r}; there are {', '.join(KINDS)}")
    if not claims:
        raise ValueError("a picture needs a claim")
    prefixes = prefixes or store.prefixes
    if kind == "history":
        return history_timeline(store, claims[0], tenant=tenant, prefixes=prefixes)
    if kind in ("lineage", "support"):
        return provenance_diagram(store, claims[0], tenant=tenant, prefixes=prefixes, links=kind)

    return packet_diagram(packet(store, claims, tenant=tenant, **packet_options), prefixes=prefixes)


def render(drawing: Picture, format: str) -> str:
    """``drawing`` as ``svg``, ``dot`` or ``json`` text."""
    if format == "svg":
        return to_svg(drawing)
    if format == "dot":
        return to_dot(drawing)
    if format == "json":
        return json.dumps(drawing.to_dict(), indent=2, ensure_ascii=False)
    raise ValueError(f"pictures come as {', '.join(FORMATS)}, not {format!r}")


__all__ = [
    "CONTENT_TYPES", "Diagram", "Edge", "FORMATS", "KINDS", "Node", "Picture", "Row", "Timeline",
    "history_timeline", "packet_diagram", "picture", "provenance_diagram", "render", "to_dot", "to_svg",
]
