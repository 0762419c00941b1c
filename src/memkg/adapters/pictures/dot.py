"""Pictures as Graphviz ``dot`` text, for those who have Graphviz (``dot -Tpng``) or a viewer of it.

The same nodes, edges and styles as the SVG memkg draws itself; a timeline
becomes a chain of versions, each with its valid and transaction time.
"""

from __future__ import annotations

from datetime import datetime

from .model import Diagram, Timeline
from .svg import EDGE_STYLE, NODE_STYLE, STATUS_STROKE


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def diagram_dot(d: Diagram) -> str:
    lines = [
        "digraph memkg {",
        "  rankdir=LR;",
        f"  label={_quote(d.title + ''.join(chr(10) + n for n in d.notes))}; labelloc=t; fontname=\"Helvetica\";",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for n in d.nodes:
        fill, stroke = NODE_STYLE.get(n.kind, NODE_STYLE["other"])
        stroke = STATUS_STROKE.get(n.status, stroke)
        shape = ", shape=ellipse" if n.kind in ("and", "or") else ""
        width = ", penwidth=3" if n.status in ("root", "critical", "falls") else ""
        dashed = ', style="rounded,filled,dashed"' if n.status == "withdrawn" else ""
        label = n.label + (f"\n{n.note}" if n.note else "")
        lines.append(f"  {_quote(n.id)} [label={_quote(label)}, fillcolor={_quote(fill)}, color={_quote(stroke)}"
                     f"{shape}{width}{dashed}];")
    for e in d.edges:
        stroke, dash, _ = EDGE_STYLE.get(e.kind, EDGE_STYLE["lineage"])
        style = ", style=dashed" if dash and e.kind != "lineage" else (", style=dotted" if dash else "")
        label = f", label={_quote(e.label)}" if e.label else ""
        lines.append(f"  {_quote(e.source)} -> {_quote(e.target)} [color={_quote(stroke)}{style}{label}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def timeline_dot(t: Timeline) -> str:
    def stamp(x: datetime | None) -> str:
        return "" if x is None else x.isoformat().replace("+00:00", "Z")

    lines = [
        "digraph memkg {",
        "  rankdir=LR;",
        f"  label={_quote(t.title)}; labelloc=t; fontname=\"Helvetica\";",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, fillcolor="#e3efff"];',
    ]
    for r in t.rows:
        label = "\n".join([
            r.label, r.statement,
            f"valid [{stamp(r.valid_from) or 'since ever'}, {stamp(r.valid_until) or 'still'})",
            f"known [{stamp(r.recorded_at) or 'since ever'}, {stamp(r.known_until) or 'now'})",
            *([r.ended_by] if r.ended_by else []),
        ])
        colour = ', color="#b00020", penwidth=2' if r.retracted else ""
        lines.append(f"  {_quote(r.id)} [label={_quote(label)}{colour}];")
    for older, newer in zip(t.rows, t.rows[1:]):
        if older.ended_by.startswith("superseded"):
            lines.append(f"  {_quote(older.id)} -> {_quote(newer.id)} [label=\"superseded by\"];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_dot(picture: Diagram | Timeline) -> str:
    """Either picture as Graphviz ``dot`` text."""
    return timeline_dot(picture) if isinstance(picture, Timeline) else diagram_dot(picture)


__all__ = ["diagram_dot", "timeline_dot", "to_dot"]
