"""The pictures' layout, measured in the SVG they draw: no two labels overlap, no label sits under
a box, and no text is cut short or runs off the picture.

Every claim of both example memories is drawn as each picture (history, lineage, support,
packet), and one more history after a correction whose new version has a long minted IRI. Text
is measured as the renderer sizes it: a monospace character is 0.6 of the font size wide.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore
from memkg.adapters.pictures import picture, render
from memkg.core.model import Claim
from memkg.core.vocab import mem

from tests.support.examples import EXAMPLES, LIA_GRAPH

SVG = "{http://www.w3.org/2000/svg}"
ACME_GRAPH = "https://example.org/tenants/acme"
Box = tuple[float, float, float, float]  # x, y, width, height


@pytest.fixture(scope="module")
def store() -> Iterator[MemoryStore]:
    with MemoryStore() as opened:
        opened.load(EXAMPLES / "lia-tea.trig")
        opened.load(EXAMPLES / "postgres-migration.trig")
        old, where = opened.get_claim(NamedNode("https://example.org/lia/cName1"), graph=LIA_GRAPH)
        opened.supersede(NamedNode("https://example.org/lia/cName1"),
                         Claim(subject=old.subject, predicate=old.predicate, object=old.object,
                               valid_from=old.valid_from, asserted_by=old.asserted_by), graph=where)
        yield opened


def _claims(store: MemoryStore) -> list[tuple[str, str]]:
    found = set()
    for graph in (LIA_GRAPH, ACME_GRAPH):
        for q in store.quads(None, None, mem.Claim, NamedNode(graph)):
            if isinstance(q.subject, NamedNode):
                found.add((q.subject.value, graph))
    return sorted(found)


def _text_box(text: ET.Element) -> Box:
    size = float(text.get("font-size", "12"))
    width = len(text.text or "") * size * 0.6
    x, y = float(text.get("x", "0")), float(text.get("y", "0"))
    anchor = text.get("text-anchor", "start")
    left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
    return (left, y - size * 0.8, width, size)


def _overlap(a: Box, b: Box) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return w * h if w > 0.5 and h > 0.5 else 0.0


def problems(svg: str) -> list[str]:
    """What is wrong with the layout of one picture, each problem in words."""
    root = ET.fromstring(svg)
    width = float(root.get("width", "0"))
    found = []
    texts = list(root.iter(f"{SVG}text"))
    for text in texts:
        left, _, w, _ = _text_box(text)
        if "…" in (text.text or ""):
            found.append(f"cut short: {text.text!r}")
        if left < 0 or left + w > width + 0.5:
            found.append(f"runs off the picture ({left:.0f}..{left + w:.0f} of {width:.0f}): {text.text!r}")
    height = float(root.get("height", "0"))
    for path in root.iter(f"{SVG}path"):
        if path.get("data-edge") is None:
            continue
        x0, y0, x1, y1, x2, y2, x3, y3 = (float(v) for v in re.findall(r"-?\d+\.?\d*", path.get("d", "")))
        for t in (i / 20 for i in range(21)):
            u = 1 - t
            px = u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3
            py = u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3
            if not (0 <= px <= width and 24 <= py <= height):  # below the title, inside the picture
                found.append(f"edge {path.get('data-edge')} leaves the picture at ({px:.0f}, {py:.0f})")
                break
    labels = [(t.text, _text_box(t)) for t in texts if t.get("class") == "edge-label"]
    for i, (a, box_a) in enumerate(labels):
        for b, box_b in labels[i + 1:]:
            if _overlap(box_a, box_b):
                found.append(f"labels overlap: {a!r} and {b!r}")
    for group in root.iter(f"{SVG}g"):
        if not (group.get("class") or "").startswith("node "):
            continue
        rect = group.find(f"{SVG}rect")
        assert rect is not None
        box = tuple(float(rect.get(k, "0")) for k in ("x", "y", "width", "height"))
        for text in group.iter(f"{SVG}text"):
            tx, _, tw, _ = _text_box(text)
            if tx < box[0] - 0.5 or tx + tw > box[0] + box[2] + 0.5:
                found.append(f"wider than its box: {text.text!r}")
        for label, label_box in labels:
            if _overlap(label_box, box):  # type: ignore[arg-type]
                found.append(f"label {label!r} under the box of {group.find(f'{SVG}rect/{SVG}title').text!r}")
    return found


@pytest.mark.parametrize("kind", ["history", "lineage", "support", "packet"])
def test_no_label_overlaps_another_or_a_box_and_none_is_cut_short(store: MemoryStore, kind: str) -> None:
    wrong = {}
    for claim, graph in _claims(store):
        svg = render(picture(store, kind, claim, tenant=graph), "svg")
        found = problems(svg)
        if found:
            wrong[claim] = found
    assert not wrong, "\n".join(f"{kind} of {c}:\n  " + "\n  ".join(p) for c, p in wrong.items())


def test_the_measure_finds_overlapping_and_cut_labels() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">'
           '<text class="edge-label" x="50" y="50" font-size="10" text-anchor="middle">supports</text>'
           '<text class="edge-label" x="60" y="52" font-size="10" text-anchor="middle">member</text>'
           '<text x="150" y="80" font-size="12">by ex:cNa…</text></svg>')
    found = problems(svg)
    assert any(p.startswith("labels overlap") for p in found)
    assert any(p.startswith("cut short") for p in found) and any(p.startswith("runs off") for p in found)
