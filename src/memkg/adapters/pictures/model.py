"""What a picture shows, apart from how it is drawn: a diagram of nodes and edges, or a timeline.

The builders (:mod:`memkg.adapters.pictures.build`) fill these from the store or from an
evidence packet; the renderers (:mod:`.svg`, :mod:`.dot`) draw them. Labels are
already short (prefixed names with the store's prefixes), so renderers only lay
out and draw.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

#: node kinds, drawn each in its own style
NODE_KINDS = ("claim", "source", "activity", "and", "or", "other")
#: edge kinds: support legs and group members hold a claim up; echo restates; lineage only tells where from
EDGE_KINDS = ("support", "member", "echo", "lineage", "contradicts", "qualifies")


@dataclass
class Node:
    id: str  #: unique within the picture (an IRI, or a made-up id for AND/OR nodes)
    label: str  #: what the box says
    kind: str = "other"  #: one of NODE_KINDS
    note: str = ""  #: a second, smaller line (role, status, "withdraw → this falls")
    status: str = ""  #: "stands", "falls", "withdrawn", "critical", "root" or ""


@dataclass
class Edge:
    source: str
    target: str
    label: str = ""
    kind: str = "lineage"  #: one of EDGE_KINDS


@dataclass
class Diagram:
    """A directed graph: a claim (or a packet's seeds) and what it rests on, left to right."""

    title: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  #: lines under the picture

    def node(self, id: str, label: str, kind: str = "other", *, note: str = "", status: str = "") -> Node:
        """The node ``id``, added if new (a later call may fill in what an earlier one left empty)."""
        for n in self.nodes:
            if n.id == id:
                if kind != "other" and n.kind == "other":
                    n.kind = kind
                n.note = n.note or note
                n.status = n.status or status
                return n
        made = Node(id, label, kind, note, status)
        self.nodes.append(made)
        return made

    def edge(self, source: str, target: str, label: str = "", kind: str = "lineage") -> None:
        if not any(e.source == source and e.target == target and e.label == label for e in self.edges):
            self.edges.append(Edge(source, target, label, kind))

    def to_dict(self) -> dict[str, Any]:
        return {"picture": "diagram", **asdict(self)}


@dataclass
class Row:
    """One version of a claim on a timeline: when it held (valid time) and when the store held it."""

    id: str
    label: str  #: the version, short
    statement: str  #: subject predicate object, short
    valid_from: datetime | None  #: None: since ever
    valid_until: datetime | None  #: None: still
    recorded_at: datetime | None  #: None: since ever
    known_until: datetime | None  #: the first superseder's or retraction's recordedAt; None: still known
    ended_by: str = ""  #: "superseded by …", "retracted by …: reason", or ""
    retracted: bool = False


@dataclass
class Timeline:
    """A claim's versions over time, oldest first."""

    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def times(self) -> list[datetime]:
        found = [t for r in self.rows for t in (r.valid_from, r.valid_until, r.recorded_at, r.known_until)]
        return sorted(t for t in found if t is not None)

    def to_dict(self) -> dict[str, Any]:
        def stamp(t: datetime | None) -> str | None:
            return None if t is None else t.isoformat().replace("+00:00", "Z")

        rows = [{**asdict(r), **{k: stamp(getattr(r, k)) for k in ("valid_from", "valid_until", "recorded_at",
                                                                     "known_until")}} for r in self.rows]
        return {"picture": "timeline", "title": self.title, "rows": rows, "notes": self.notes}


Picture = Diagram | Timeline
