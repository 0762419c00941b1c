"""JSON Lines ingestion for agent loops: one memory node per line, versioned by id.

Each line is a JSON object::

    {"id": "pref-tea", "content_kind": "claim",
     "content": {"subject": "lia", "predicate": "prefers", "value": "tea", "confidence": 0.9,
                 "evidence": ["Lia said so on day 0"]},
     "provenance": {"agent_step": 12, "tool_call": "chat.read", "source": "https://example.org/chat/1"},
     "event_time": "2026-01-01T09:00:00Z"}

``content`` is a string or any JSON value (``content_kind`` ``note``, the
default) or, for ``claim``, an object with ``subject``, ``predicate``,
``value`` and optional ``confidence`` and ``evidence``.

How a line becomes memory (every version keeps the line's payload verbatim):

* the node ``id`` names a lineage, ``urn:memkg:memory:<id>`` (or ``id`` itself
  when it is an IRI); version *n* of it is the claim ``<node>/v<n>``, asserted
  by the message ``<node>/v<n>/message`` that holds the content verbatim
  (a string as it is; other JSON compactly re-serialized, key order kept, as an
  ``rdf:JSON`` literal) with its hash, event time and provenance record;
* a note's claim reifies ``<<( <node> rdfs:comment content )>>``; a claim's
  reifies ``<<( subject predicate value )>>`` — subject and predicate are IRIs
  (a bare token becomes ``urn:memkg:entity:<token>`` /
  ``urn:memkg:predicate:<token>``), the value a literal unless written
  ``{"@id": "…"}``; vertices and predicates not yet typed are typed
  (``mem:Entity``, ``rdf:Property``) so the claim keeps the invariants; each
  ``evidence`` item supports the claim (``mem:supportedBy``): an IRI as is,
  text as a message of its own;
* a line whose id already has a version with the same content is a no-op; new
  content is a new version that ``mem:supersedes`` the previous one.

A batch is all or nothing: every line is checked first, and any invalid line
(reported with its line number) refuses the whole batch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Triple

from .errors import MemkgError
from .model import content_hash, datetime_literal, decimal_literal, iri
from .store import MemoryStore, as_graph
from .vocab import RDF, RDF_REIFIES, RDF_TYPE, mem, prov, rdfs

RDF_JSON = NamedNode(RDF + "JSON")
KINDS = ("note", "claim")
PROVENANCE_KEYS = ("agent_step", "observation", "tool_call", "source", "note")


class IngestError(MemkgError, ValueError):
    """Invalid lines; the batch was refused whole and nothing was written."""

    def __init__(self, source: str, problems: list[tuple[int, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{source}:{n}: {message}" for n, message in problems[:50]]
        if len(problems) > 50:
            lines.append(f"… and {len(problems) - 50} more")
        super().__init__("\n".join([*lines, f"{source}: {len(problems)} invalid line(s); nothing was written"]))


@dataclass
class IngestReport:
    lines: int = 0
    versions: list[NamedNode] = field(default_factory=list)  #: the new versions written
    unchanged: int = 0  #: lines whose content the node already had


@dataclass
class _Line:
    number: int
    node: NamedNode
    kind: str
    content: Any
    payload: str  #: the content as kept verbatim
    provenance: dict[str, Any]
    event_time: datetime | None


def _payload(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _check(number: int, text: str) -> tuple[_Line | None, str | None]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        return None, f"not JSON: {err.msg} (column {err.colno})"
    if not isinstance(data, dict):
        return None, "a line must be a JSON object"
    unknown = set(data) - {"id", "content", "content_kind", "provenance", "event_time"}
    if unknown:
        return None, f"unknown field(s): {', '.join(sorted(unknown))}"
    node_id = data.get("id")
    if not isinstance(node_id, str) or not node_id.strip():
        return None, "'id' must be a non-empty string"
    if "content" not in data:
        return None, "'content' is missing"
    kind = data.get("content_kind", "note")
    if kind not in KINDS:
        return None, f"'content_kind' must be one of {', '.join(KINDS)}, got {kind!r}"
    content = data["content"]
    if kind == "claim":
        problem = _check_claim(content)
        if problem:
            return None, problem
    provenance = data.get("provenance") or {}
    if not isinstance(provenance, dict) or set(provenance) - set(PROVENANCE_KEYS):
        return None, f"'provenance' must be an object with some of {', '.join(PROVENANCE_KEYS)}"
    event_time = None
    if data.get("event_time") is not None:
        try:
            event_time = datetime.fromisoformat(str(data["event_time"]).replace("Z", "+00:00"))
        except ValueError:
            return None, f"'event_time' is not an ISO 8601 date-time: {data['event_time']!r}"
        if event_time.tzinfo is None:
            return None, "'event_time' needs a timezone (…Z or …+01:00)"
    try:
        node = iri(node_id.strip(), kind="memory")
    except (TypeError, ValueError) as err:
        return None, f"'id' cannot name a node: {err}"
    return _Line(number, node, kind, content, _payload(content), provenance, event_time), None


def _check_claim(content: Any) -> str | None:
    if not isinstance(content, dict):
        return "a claim's content must be an object with subject, predicate and value"
    for key in ("subject", "predicate", "value"):
        if key not in content:
            return f"a claim's content needs {key!r}"
    for key in ("subject", "predicate"):
        if not isinstance(content[key], str) or not content[key].strip():
            return f"a claim's {key} must be a non-empty string (an IRI or a token)"
    confidence = content.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not math.isfinite(confidence)
        or not 0 <= confidence <= 1
    ):
        return f"a claim's confidence must be a number in [0, 1], got {confidence!r}"
    evidence = content.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) and e for e in evidence):
        return "a claim's evidence must be a list of strings"
    value = content["value"]
    if isinstance(value, dict) and set(value) != {"@id"}:
        return "a claim's value is a JSON scalar, or {\"@id\": IRI} for an IRI"
    return None


def _value_term(value: Any) -> NamedNode | Literal:
    if isinstance(value, dict):
        return iri(value["@id"], kind="entity")
    if isinstance(value, bool):
        return Literal("true" if value else "false", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#boolean"))
    if isinstance(value, int):
        return Literal(str(value), datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
    if isinstance(value, float):
        return decimal_literal(value)
    if isinstance(value, str):
        return Literal(value)
    return Literal(_payload(value), datatype=RDF_JSON)


def _latest(store: MemoryStore, node: NamedNode, graph: NamedNode | DefaultGraph) -> tuple[int, str | None]:
    """How many versions ``node`` has, and the content hash of the newest."""
    n = 0
    while any(store.quads(NamedNode(f"{node.value}/v{n + 1}"), RDF_REIFIES, None, graph)):
        n += 1
    if n == 0:
        return 0, None
    hashes = list(store.quads(NamedNode(f"{node.value}/v{n}/message"), mem.contentHash, None, graph))
    return n, hashes[0].object.value if hashes else None


def ingest_lines(
    store: MemoryStore,
    lines: Iterable[str],
    *,
    graph: str | NamedNode | None = None,
    source: str = "<jsonl>",
) -> IngestReport:
    """Ingest JSON Lines into ``store`` in one atomic write; see the module doc."""
    target = as_graph(graph)
    checked: list[_Line] = []
    problems: list[tuple[int, str]] = []
    total = 0
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        total += 1
        line, problem = _check(number, text)
        if problem:
            problems.append((number, problem))
        elif line:
            checked.append(line)
    if problems:
        raise IngestError(source, problems)

    report = IngestReport(lines=total)
    quads: list[Quad] = []
    state: dict[NamedNode, tuple[int, str | None]] = {}
    typed: set[NamedNode] = set()
    recorded = datetime_literal(store.clock.tick())

    def ensure_type(node: NamedNode, cls: NamedNode) -> None:
        if node in typed or any(store.quads(node, RDF_TYPE, None, target)):
            return
        typed.add(node)
        quads.append(Quad(node, RDF_TYPE, cls, target))

    for line in checked:
        count, latest_hash = state.get(line.node) or _latest(store, line.node, target)
        digest = content_hash(line.payload)
        if digest == latest_hash:
            report.unchanged += 1
            continue
        version = NamedNode(f"{line.node.value}/v{count + 1}")
        message = NamedNode(f"{version.value}/message")
        state[line.node] = (count + 1, digest)
        add = lambda s, p, o: quads.append(Quad(s, p, o, target))  # noqa: E731
        verbatim = Literal(line.payload) if isinstance(line.content, str) else Literal(line.payload, datatype=RDF_JSON)
        add(message, RDF_TYPE, mem.Message)
        add(message, mem.content, verbatim)
        add(message, mem.contentHash, Literal(digest))
        add(message, mem.recordedAt, recorded)
        if line.provenance:
            add(message, mem.provenance, Literal(_payload(line.provenance), datatype=RDF_JSON))
            source_iri = line.provenance.get("source")
            if isinstance(source_iri, str) and ":" in source_iri:
                try:
                    add(message, prov.wasDerivedFrom, NamedNode(source_iri))
                except ValueError:
                    pass  # not an IRI: it stays in the verbatim provenance record
        if line.kind == "note":
            ensure_type(line.node, mem.Entity)
            proposition = Triple(line.node, rdfs.comment, verbatim)
        else:
            c = line.content
            subject = iri(c["subject"].strip(), kind="entity")
            predicate = iri(c["predicate"].strip(), kind="predicate")
            value = _value_term(c["value"])
            ensure_type(subject, mem.Entity)
            ensure_type(predicate, NamedNode(RDF + "Property"))
            if isinstance(value, NamedNode):
                ensure_type(value, mem.Entity)
            proposition = Triple(subject, predicate, value)
            if c.get("confidence") is not None:
                add(version, mem.confidence, decimal_literal(float(c["confidence"])))
            for i, item in enumerate(c.get("evidence", []), 1):
                if ":" in item and " " not in item:
                    evidence = NamedNode(item)
                    ensure_type(evidence, mem.Message)
                else:
                    evidence = NamedNode(f"{version.value}/evidence/{i}")
                    add(evidence, RDF_TYPE, mem.Message)
                    add(evidence, mem.content, Literal(item))
                    add(evidence, mem.contentHash, Literal(content_hash(item)))
                add(version, mem.supportedBy, evidence)
        add(version, RDF_TYPE, mem.Claim)
        add(version, RDF_REIFIES, proposition)
        add(version, mem.assertedBy, message)
        add(version, mem.recordedAt, recorded)
        if line.event_time is not None:
            add(version, mem.eventTime, datetime_literal(line.event_time))
            add(message, mem.eventTime, datetime_literal(line.event_time))
        if count:
            add(version, mem.supersedes, NamedNode(f"{line.node.value}/v{count}"))
        report.versions.append(version)
    if quads:
        store.write(quads, source=source)
    return report


def ingest_file(store: MemoryStore, path: str | Path, *, graph: str | NamedNode | None = None) -> IngestReport:
    """Ingest a ``.jsonl`` file; errors name the file and line."""
    path = Path(path)
    with path.open(encoding="utf-8") as f:
        return ingest_lines(store, f, graph=graph, source=str(path))
