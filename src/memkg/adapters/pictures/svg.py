"""Pictures as SVG, laid out and drawn by memkg itself: no Graphviz, no script, no web font.

Diagrams are laid out in layers from left to right (a claim, then what it rests
on, then what that rests on), each layer ordered by where its parents sit, so
lines cross little. Timelines put time across and one version per row.
Everything is inline (styles as attributes), so the SVG shows the same in a
browser, an image viewer or a document.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from xml.sax.saxutils import escape

from .model import Diagram, Edge, Node, Timeline

FONT = "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\""
CHAR = 7.2  #: width of one character at 12px, for sizing boxes
NODE_STYLE = {  # fill, stroke
    "claim": ("#e3efff", "#2b5ea8"),
    "source": ("#fff6d8", "#a07c12"),
    "activity": ("#eeeeee", "#777777"),
    "and": ("#e8f6e8", "#2f7d32"),
    "or": ("#f3e8fb", "#7b3fa0"),
    "other": ("#ffffff", "#888888"),
}
STATUS_STROKE = {"root": "#1b3f7a", "stands": "#2f7d32", "falls": "#b00020", "withdrawn": "#999999",
                 "critical": "#d03000"}
EDGE_STYLE = {  # stroke, dash, width
    "support": ("#1f1f1f", "", 1.6),
    "member": ("#2f7d32", "", 1.6),
    "echo": ("#c25e00", "6 4", 1.4),
    "lineage": ("#8a8a8a", "2 3", 1.2),
    "contradicts": ("#b00020", "", 1.4),
    "qualifies": ("#7b3fa0", "4 3", 1.2),
}
GAP_X, GAP_Y, PAD = 100, 16, 20
Curve = tuple[tuple[float, float], ...]  #: a cubic Bézier's four points
Box = tuple[float, float, float, float]  #: x, y, width, height
#: where along its edge a label may sit, nearest the middle first
LABEL_POSITIONS = sorted((i / 40 for i in range(6, 35)), key=lambda t: abs(t - 0.5))
LAYOUT_ROUNDS = 8  #: at most this many layouts, the gaps growing where labels crowd
ROUTE_STEP, MAX_LIFT = 6, 600  #: how much further each try bends an edge around the boxes in its way, at most
LABEL_CHAR = 6.0  #: width of one character of an edge label (10px)
#: what each kind of edge means, for the legend (which also lists the labels drawn with it)
EDGE_MEANING = {"support": "supports", "member": "AND member", "echo": "echoes", "lineage": "came from",
                "contradicts": "against", "qualifies": "qualifies (forward: it supersedes, specializes or "
                "equals the other; inverse: the other way)"}


def _text(x: float, y: float, text: str, *, size: int = 12, anchor: str = "start", fill: str = "#222",
          weight: str = "normal", halo: bool = False) -> str:
    extra = ' paint-order="stroke" stroke="#ffffff" stroke-width="4"' if halo else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
            f'font-weight="{weight}" {FONT}{extra}>{escape(text)}</text>')


def _size(n: Node) -> tuple[float, float]:
    width = max(len(n.label) * CHAR, len(n.note) * CHAR * 0.85, 36) + 18
    return width, (38 if n.note else 24)


def _layers(d: Diagram) -> list[list[Node]]:
    """Nodes by layer: breadth first from the nodes nothing points to, left to right."""
    by_id = {n.id: n for n in d.nodes}
    children: dict[str, list[str]] = defaultdict(list)
    pointed = set()
    for e in d.edges:
        if e.source in by_id and e.target in by_id and e.source != e.target:
            children[e.source].append(e.target)
            pointed.add(e.target)
    roots = [n.id for n in d.nodes if n.id not in pointed] or [d.nodes[0].id]
    layer: dict[str, int] = {}
    frontier = list(roots)
    for r in roots:
        layer[r] = 0
    while frontier:  # breadth first: every reachable node gets a layer
        nxt = []
        for i in frontier:
            for c in children[i]:
                if c not in layer:
                    layer[c] = layer[i] + 1
                    nxt.append(c)
        frontier = nxt
    # then longest path, so a node sits right of everything that points to it (a few rounds:
    # a cycle would push forever, so it is left where the rounds leave it)
    for _ in range(min(len(d.nodes), 12)):
        moved = False
        for e in d.edges:
            if e.source in layer and e.target in layer and layer[e.target] <= layer[e.source] \
                    and e.target not in roots:
                layer[e.target] = layer[e.source] + 1
                moved = True
        if not moved:
            break
    for n in d.nodes:  # in a cycle nothing reaches: put it after the rest
        layer.setdefault(n.id, max(layer.values(), default=0) + 1)
    layers: list[list[Node]] = [[] for _ in range(max(layer.values()) + 1)]
    for n in d.nodes:
        layers[layer[n.id]].append(n)
    # order each layer by the mean position of its parents (barycentre), twice
    parents: dict[str, list[str]] = defaultdict(list)
    for e in d.edges:
        parents[e.target].append(e.source)
    for _ in range(2):
        position = {n.id: i for group in layers for i, n in enumerate(group)}
        for group in layers[1:]:
            group.sort(key=lambda n: sum(position.get(p, 0) for p in parents[n.id]) / max(len(parents[n.id]), 1))
    return [group for group in layers if group]


def diagram_svg(d: Diagram) -> str:
    """``d`` as a standalone SVG document."""
    if not d.nodes:
        return _empty(d.title, "nothing to draw")
    layers = _layers(d)
    layer_of = {n.id: i for i, group in enumerate(layers) for n in group}
    # the gap after a layer fits the longest label of an edge leaving it, so no label is under a box
    gaps: list[float] = [float(GAP_X)] * len(layers)
    for e in d.edges:
        if e.label and e.source in layer_of:
            i = layer_of[e.source]
            gaps[i] = max(gaps[i], len(e.label) * LABEL_CHAR + 40)
    drawn = [(number, e) for number, e in enumerate(d.edges) if e.source in layer_of and e.target in layer_of]
    # Where labels still crowd (edges converging on one box, or running side by side), the gaps
    # after the layers they leave grow, which spreads the edges apart, until each label has room.
    # An edge bent above the boxes pushes them down, below the title.
    top = PAD + 30.0
    for _ in range(LAYOUT_ROUNDS):
        boxes, tallest, x = _place(layers, gaps, top)
        curves = {number: _route(e, boxes) for number, e in drawn}
        placed = _edge_labels([(number, e, curves[number]) for number, e in drawn if e.label],
                              list(boxes.values()))
        reach = [_at(c, i / 48)[1] for c in curves.values() for i in range(49)] or [top]
        crowded = {layer_of[d.edges[number].source] for number, _, cost in placed if cost > 0}
        if not crowded and min(reach) >= PAD + 24:
            break
        for i in crowded:
            gaps[i] += GAP_X / 2
        top += max(0.0, PAD + 24 - min(reach))
    kinds = list(dict.fromkeys(e.kind if e.kind in EDGE_STYLE else "lineage" for e in d.edges)) or ["support"]
    legend_y = max(top + tallest, *reach) + 30
    notes_y = legend_y + 16 * len(kinds) + 30
    # the legend's width at least, and every line of text under the picture
    total_w = max(x - gaps[-1] + PAD, 860, len(d.title) * CHAR * 15 / 12 + 2 * PAD,
                  *(len(note) * CHAR * 11 / 12 + 2 * PAD for note in d.notes))
    total_h = notes_y + 16 * len(d.notes) + PAD
    out = [_head(total_w, total_h), _text(PAD, PAD + 12, d.title, size=15, weight="bold")]
    out.append(_markers())
    for number, e in drawn:
        out.append(_path(e, curves[number]).replace("<path ", f'<path data-edge="{number}" ', 1))
    for n in d.nodes:
        out.append(_node(n, *boxes[n.id]))
    out += [text for _, text, _ in placed]  # over the boxes: nothing hides a label
    out.append(_legend(PAD, legend_y, d.edges, kinds))
    for i, note in enumerate(d.notes):
        out.append(_text(PAD, notes_y + 16 * i, note, size=11, fill="#444"))
    out.append("</svg>\n")
    return "\n".join(out)


def _place(layers: list[list[Node]], gaps: list[float], top: float) -> tuple[dict[str, Box], float, float]:
    """Each node's box, layer by layer from the left, each layer centred on the tallest, from
    ``top`` down; also the height of the tallest and the x after the last layer's gap."""
    boxes: dict[str, Box] = {}
    x: float = PAD
    heights = [sum(_size(n)[1] for n in g) + GAP_Y * (len(g) - 1) for g in layers]
    tallest = max(heights)
    for group, height, gap in zip(layers, heights, gaps):
        width = max(_size(n)[0] for n in group)
        y = top + (tallest - height) / 2
        for n in group:
            w, h = _size(n)
            boxes[n.id] = (x, y, w, h)
            y += h + GAP_Y
        x += width + gap
    return boxes, tallest, x


def _head(width: float, height: float) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">\n'
            f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>')


def _markers() -> str:
    return "<defs>" + "".join(
        f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{stroke}"/></marker>'
        for kind, (stroke, _, _) in EDGE_STYLE.items()) + "</defs>"


def _node(n: Node, x: float, y: float, w: float, h: float) -> str:
    fill, stroke = NODE_STYLE.get(n.kind, NODE_STYLE["other"])
    stroke = STATUS_STROKE.get(n.status, stroke)
    width = 3 if n.status in ("root", "critical", "falls") else 1.3
    dash = ' stroke-dasharray="4 3"' if n.status == "withdrawn" else ""
    shape = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{h / 2 if n.kind in ("and", "or") else 6}" '
             f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}><title>{escape(n.id)}</title></rect>')
    parts = [f'<g class="node node-{n.kind}">', shape,
             _text(x + w / 2, y + 16, n.label, anchor="middle", weight="bold" if n.kind in ("and", "or") else "normal")]
    if n.note:
        colour = STATUS_STROKE.get(n.status, "#555") if n.status in ("critical", "falls") else "#555"
        parts.append(_text(x + w / 2, y + 31, n.note, size=10, anchor="middle", fill=colour))
    parts.append("</g>")
    return "".join(parts)


def _route(e: Edge, boxes: dict[str, Box]) -> Curve:
    """The edge's curve (a cubic Bézier's four points): from the right of its source to the left
    of its target, bent above or below the boxes between them as little as clears them all; a
    link back (or within a layer) goes around below."""
    ax, ay, aw, ah = boxes[e.source]
    bx, by, bw, bh = boxes[e.target]
    x1, y1 = ax + aw, ay + ah / 2
    x2, y2 = bx, by + bh / 2
    if x2 <= x1:
        x1, y1, x2, y2 = ax + aw / 2, ay + ah, bx + bw / 2, by + bh
        low = max(y1, y2) + 40
        return ((x1, y1), (x1, low), (x2, low), (x2, y2))
    bend = (x2 - x1) / 2
    others = [b for key, b in boxes.items() if key not in (e.source, e.target) and x1 < b[0] + b[2] and b[0] < x2]
    curve: Curve = ((x1, y1), (x1 + bend, y1), (x2 - bend, y2), (x2, y2))
    for lift in range(0, MAX_LIFT + 1, ROUTE_STEP):
        for sign in ((1,) if lift == 0 else (-1, 1)):
            curve = ((x1, y1), (x1 + bend, y1 + sign * lift), (x2 - bend, y2 + sign * lift), (x2, y2))
            if not any(_crosses(curve, b) for b in others):
                return curve
    return curve


def _crosses(curve: Curve, box: Box, margin: float = 4) -> bool:
    x, y, w, h = box
    return any(x - margin <= px <= x + w + margin and y - margin <= py <= y + h + margin
               for px, py in (_at(curve, i / 48) for i in range(49)))


def _path(e: Edge, curve: Curve) -> str:
    stroke, dash, width = EDGE_STYLE.get(e.kind, EDGE_STYLE["lineage"])
    (p0, p1, p2, p3) = curve
    path = (f"M{p0[0]:.1f},{p0[1]:.1f} C{p1[0]:.1f},{p1[1]:.1f} {p2[0]:.1f},{p2[1]:.1f} {p3[0]:.1f},{p3[1]:.1f}")
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<path d="{path}" fill="none" stroke="{stroke}" stroke-width="{width}"{dashes} '
            f'marker-end="url(#arrow-{e.kind if e.kind in EDGE_STYLE else "lineage"})"/>')


def _at(curve: Curve, t: float) -> tuple[float, float]:
    """The point of a cubic Bézier at ``t``."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = curve
    u = 1 - t
    return (u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3,
            u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3)


def _overlap(a: Box, b: Box) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _edge_labels(labels: list[tuple[int, Edge, Curve]],
                 boxes: list[Box]) -> list[tuple[int, str, float]]:
    """Each label centred on a point of its own edge: the middle, or the nearest point along it
    where it covers no box and no label placed before it (else where it covers least); with
    what it still covers (0: nothing)."""
    placed: list[Box] = []
    out = []
    for number, e, curve in labels:
        w, h = len(e.label) * LABEL_CHAR + 4, 12.0
        best: tuple[float, float, float, Box] | None = None
        for t in LABEL_POSITIONS:
            x, y = _at(curve, t)
            rect = (x - w / 2, y - h / 2, w, h)
            cost = sum(_overlap(rect, b) for b in boxes) * 4 + sum(_overlap(rect, p) for p in placed)
            if best is None or cost < best[0]:
                best = (cost, x, y, rect)
            if cost == 0:
                break
        assert best is not None
        cost, x, y, rect = best
        placed.append(rect)
        stroke = EDGE_STYLE.get(e.kind, EDGE_STYLE["lineage"])[0]
        text = _text(x, y + 3.5, e.label, size=10, anchor="middle", fill=stroke, halo=True)
        out.append((number, text.replace("<text ", f'<text class="edge-label" data-edge="{number}" ', 1), cost))
    return out


def _legend(x: float, y: float, edges: list[Edge], kinds: list[str]) -> str:
    """A line per kind of edge drawn, saying what it means and every label drawn with it; then the boxes."""
    out = ['<g class="legend">']
    for i, kind in enumerate(kinds):
        stroke, dash, width = EDGE_STYLE[kind]
        ly = y + 16 * i
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{x:.1f}" y1="{ly:.1f}" x2="{x + 28:.1f}" y2="{ly:.1f}" stroke="{stroke}" '
                   f'stroke-width="{width}"{dashes}/>')
        drawn = sorted({e.label for e in edges if e.label and (e.kind if e.kind in EDGE_STYLE else "lineage") == kind})
        out.append(_text(x + 34, ly + 4, EDGE_MEANING[kind] + (f": {', '.join(drawn)}" if drawn else ""),
                         size=10, fill="#444"))
    y += 16 * (len(kinds) - 1)
    boxes = [("claim", "claim"), ("source", "source"), ("activity", "activity"), ("and", "AND group"), ("or", "OR")]
    for i, (kind, label) in enumerate(boxes):
        fill, stroke = NODE_STYLE[kind]
        lx = x + i * 118
        out.append(f'<rect x="{lx:.1f}" y="{y + 14:.1f}" width="28" height="14" rx="4" fill="{fill}" stroke="{stroke}"/>')
        out.append(_text(lx + 34, y + 25, label, size=10, fill="#444"))
    out.append(f'<rect x="{x + 5 * 118:.1f}" y="{y + 14:.1f}" width="28" height="14" rx="4" fill="#ffffff" '
               f'stroke="{STATUS_STROKE["critical"]}" stroke-width="3"/>')
    out.append(_text(x + 5 * 118 + 34, y + 25, "its loss fells the claim", size=10, fill="#444"))
    out.append("</g>")
    return "".join(out)


def _empty(title: str, message: str) -> str:
    return "\n".join([_head(480, 90), _text(PAD, PAD + 12, title, size=15, weight="bold"),
                      _text(PAD, PAD + 42, message, fill="#555"), "</svg>\n"])


# -- timelines ---------------------------------------------------------------------------------

ROW_H, LABEL_W, AXIS_W = 58, 330, 620
VALID, KNOWN, RETRACTED = "#2b5ea8", "#2f7d32", "#b00020"


def timeline_svg(t: Timeline) -> str:
    """``t`` as a standalone SVG document: time across, one version per row."""
    times = t.times()
    if not t.rows:
        return _empty(t.title, "no versions")
    start, end = (times[0], times[-1]) if times else (datetime(2000, 1, 1), datetime(2000, 1, 2))
    span = end - start or timedelta(days=1)
    start, end = start - span * 0.06, end + span * 0.06
    # the column of versions fits its longest line: nothing is cut short
    left = PAD + max(LABEL_W, *(max(len(r.label) * CHAR, len(r.statement) * CHAR * 11 / 12,
                                    len(r.ended_by) * LABEL_CHAR) + 16 for r in t.rows))

    def at(moment: datetime | None, default: float) -> float:
        if moment is None:
            return default
        return left + (moment - start) / (end - start) * AXIS_W

    top = PAD + 40
    # the last tick's date is centred on the axis's end: room for its half
    width = max(left + AXIS_W + PAD + 40, len(t.title) * CHAR * 15 / 12 + 2 * PAD,
                *(len(note) * LABEL_CHAR + 2 * PAD for note in t.notes))
    height = top + ROW_H * len(t.rows) + 90 + 16 * len(t.notes)
    out = [_head(width, height), _text(PAD, PAD + 12, t.title, size=15, weight="bold"), _markers()]
    out += _axis(start, end, left, top + ROW_H * len(t.rows) + 6)
    for i, r in enumerate(t.rows):
        y = top + i * ROW_H
        if i % 2:
            out.append(f'<rect x="{PAD}" y="{y - 4}" width="{width - 2 * PAD:.1f}" height="{ROW_H}" fill="#f6f7f9"/>')
        out.append(_text(PAD, y + 12, r.label, weight="bold"))
        out.append(_text(PAD, y + 28, r.statement, size=11, fill="#333"))
        if r.ended_by:
            out.append(_text(PAD, y + 43, r.ended_by, size=10, fill=RETRACTED if r.retracted else "#666"))
        vx1, vx2 = at(r.valid_from, left), at(r.valid_until, left + AXIS_W)
        out.append(_bar(vx1, y + 6, vx2, 7, VALID, r.valid_from is None, r.valid_until is None,
                        f"valid [{_day(r.valid_from) or 'since ever'}, {_day(r.valid_until) or 'still'})"))
        kx1, kx2 = at(r.recorded_at, left), at(r.known_until, left + AXIS_W)
        colour = RETRACTED if r.retracted else KNOWN
        out.append(_bar(kx1, y + 22, kx2, 11, colour, r.recorded_at is None, r.known_until is None,
                        f"known [{_day(r.recorded_at) or 'since ever'}, {_day(r.known_until) or 'now'})"))
        if r.retracted and r.known_until is not None:
            out.append(_text(kx2, y + 33, "✕", size=14, anchor="middle", fill=RETRACTED, weight="bold"))
        if i + 1 < len(t.rows) and r.known_until is not None and not r.retracted:
            nx = at(t.rows[i + 1].recorded_at, left)
            out.append(f'<path d="M{kx2:.1f},{y + 33:.1f} C{kx2:.1f},{y + ROW_H:.1f} {nx:.1f},{y + ROW_H - 4:.1f} '
                       f'{nx:.1f},{y + ROW_H + 20:.1f}" fill="none" stroke="#555" stroke-width="1.2" '
                       f'stroke-dasharray="3 3" marker-end="url(#arrow-support)"/>')
    ly = top + ROW_H * len(t.rows) + 46
    out.append(f'<rect x="{PAD}" y="{ly - 8}" width="28" height="7" fill="{VALID}"/>')
    out.append(_text(PAD + 34, ly, "valid time", size=10, fill="#444"))
    out.append(f'<rect x="{PAD + 120}" y="{ly - 10}" width="28" height="11" fill="{KNOWN}"/>')
    out.append(_text(PAD + 154, ly, "known (transaction time)", size=10, fill="#444"))
    out.append(f'<rect x="{PAD + 330}" y="{ly - 10}" width="28" height="11" fill="{RETRACTED}"/>')
    out.append(_text(PAD + 364, ly, "known until retracted ✕", size=10, fill="#444"))
    for j, note in enumerate(t.notes):
        out.append(_text(PAD, ly + 20 + 16 * j, note, size=10, fill="#444"))
    out.append("</svg>\n")
    return "\n".join(out)


def _bar(x1: float, y: float, x2: float, h: float, colour: str, open_start: bool, open_end: bool, title: str) -> str:
    x2 = max(x2, x1 + 2)
    out = (f'<rect x="{x1:.1f}" y="{y:.1f}" width="{x2 - x1:.1f}" height="{h}" fill="{colour}" '
           f'fill-opacity="0.85" rx="2"><title>{escape(title)}</title></rect>')
    if open_start:
        out += _text(x1 - 3, y + h - 1, "◀", size=10, anchor="end", fill=colour)
    if open_end:
        out += _text(x2 + 3, y + h - 1, "▶", size=10, fill=colour)
    return out


def _axis(start: datetime, end: datetime, left: float, y: float) -> list[str]:
    out = [f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + AXIS_W:.1f}" y2="{y:.1f}" stroke="#444"/>']
    ticks = 6
    for k in range(ticks + 1):
        moment = start + (end - start) * k / ticks
        x = left + AXIS_W * k / ticks
        out.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + 5:.1f}" stroke="#444"/>')
        fine = (end - start) < timedelta(days=3)
        out.append(_text(x, y + 18, moment.strftime("%m-%d %H:%M" if fine else "%Y-%m-%d"), size=10,
                         anchor="middle", fill="#444"))
    return out


def _day(t: datetime | None) -> str:
    return "" if t is None else t.isoformat().replace("+00:00", "Z")


def to_svg(picture: Diagram | Timeline) -> str:
    """Either picture as SVG."""
    return timeline_svg(picture) if isinstance(picture, Timeline) else diagram_svg(picture)


__all__ = ["diagram_svg", "timeline_svg", "to_svg"]
