"""Pictures from the memory: a claim's history as a timeline; its lineage and support, or an
evidence packet, as a diagram.

Each builder reads through the library's public answers (:func:`memkg.history.timeline.history`,
:func:`memkg.provenance.lineage`, :func:`~memkg.provenance.support`,
:func:`~memkg.provenance.impact`, :class:`memkg.provenance.evidence.EvidencePacket`), so a picture
shows exactly what the commands print.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pyoxigraph import DefaultGraph, NamedNode, QuerySolutions

from ...core.errors import NotFoundError
from ...core.prefixes import show
from ...core.terms import IRI, datetime_of, tenant_iri
from ...history.timeline import history
from ...provenance import impact, lineage, support
from ...store import MemoryStore
from .model import Diagram, Row, Timeline

#: lineage link kinds that hold a claim up (the others only say where it came from)
_SUPPORT_KINDS = {"support": "supportedBy", "group": "member", "echo": "echoOf"}
_LINEAGE_LABELS = {"derivation": "derivedFrom", "assertion": "assertedBy", "generation": "generatedBy", "usage": "used"}
#: a status as a picture says it: "unrecorded" is the support status (no support recorded), which
#: in a box beside a claim that has a recordedAt reads as "not recorded"
_STATUS_WORDS = {"unrecorded": "no support recorded"}


def _said(status: str) -> str:
    return _STATUS_WORDS.get(status, status)


#: at most this many sources are asked "what falls if it goes" (one impact question each)
MAX_IMPACT_QUESTIONS = 40


def _id(term: Any) -> str:
    """A node's id in a picture: an IRI as is, a blank node as ``_:label``."""
    return term.value if isinstance(term, NamedNode) else str(term)


def _time(term: Any) -> datetime | None:
    return datetime_of(term)


def _stamp(t: datetime | None) -> str:
    return "" if t is None else t.isoformat().replace("+00:00", "Z")


def _dataset(tenant: IRI | None) -> dict[str, Any]:
    node = tenant_iri(tenant)
    if node is None:
        return {"use_default_graph_as_union": True}
    return {"default_graph": [node, DefaultGraph()]}


_ENDERS = """
SELECT ?claim ?ender ?how ?at ?why WHERE {
  VALUES ?claim { %s }
  { ?ender mem:supersedes ?claim BIND("superseded" AS ?how) }
  UNION { ?ender mem:retracts ?claim BIND("retracted" AS ?how) }
  OPTIONAL { ?ender mem:recordedAt ?at }
  OPTIONAL { ?ender mem:reason ?why }
}"""


def history_timeline(store: MemoryStore, claim: str | NamedNode, *, tenant: IRI | None = None,
                     prefixes: Mapping[str, str] | None = None) -> Timeline:
    """``claim``'s versions on a time line: valid time, transaction time (from ``recordedAt``
    to the first superseder's or retraction's), and what ended each.

    Raises :class:`~memkg.core.errors.NotFoundError` when ``claim`` is no claim.
    """
    prefixes = prefixes or store.prefixes
    versions = history(store, claim, tenant=tenant)
    values = " ".join(f"<{v.claim.value}>" for v in versions)
    results = store.query(_ENDERS % values, **_dataset(tenant))
    assert isinstance(results, QuerySolutions)
    ends: dict[NamedNode, list[tuple[datetime | None, str, NamedNode, str]]] = {}
    for r in results:
        ends.setdefault(r["claim"], []).append(
            (_time(r["at"]), r["how"].value, r["ender"], r["why"].value if r["why"] is not None else ""))
    rows = []
    for v in versions:
        enders = sorted(ends.get(v.claim, []), key=lambda e: (e[0] is not None, e[0] or datetime.min))
        first = enders[0] if enders else None
        ended = ""
        if first is not None:
            at, how, who, why = first
            # the reason first: rows are narrow, and the retraction's IRI is the least telling part
            ended = how + (f": {why}" if why else "") + (f" at {_stamp(at)}" if at else "") + f" by {show(who, prefixes)}"
        rows.append(Row(
            id=v.claim.value,
            label=show(v.claim, prefixes),
            statement=f"{show(v.subject, prefixes)} {show(v.predicate, prefixes)} {show(v.object, prefixes)}",
            valid_from=_time(v.valid_from), valid_until=_time(v.valid_until),
            recorded_at=_time(v.recorded_at),
            known_until=first[0] if first else None,
            ended_by=ended,
            retracted=bool(first and first[1] == "retracted"),
        ))
    return Timeline(title=f"history of {show(versions[-1].claim, prefixes)}", rows=rows,
                    notes=["valid time: when the statement holds; known: from recordedAt until a newer "
                           "version or a retraction is recorded"])


def _types(store: MemoryStore, nodes: Iterable[Any], tenant: IRI | None) -> dict[Any, set[str]]:
    named = [n for n in dict.fromkeys(nodes) if isinstance(n, NamedNode)]
    if not named:
        return {}
    text = ("SELECT ?n ?kind WHERE { VALUES ?n { " + " ".join(f"<{n.value}>" for n in named) + " } ?n a ?t "
            "OPTIONAL { ?t rdfs:subClassOf* ?up FILTER(?up IN (mem:Claim, prov:Activity)) } "
            "BIND(COALESCE(?up, ?t) AS ?kind) }")
    results = store.query(text, **_dataset(tenant))
    assert isinstance(results, QuerySolutions)
    found: dict[Any, set[str]] = {}
    for r in results:
        found.setdefault(r["n"], set()).add(r["kind"].value)
    return found


def _kind(types: set[str]) -> str:
    if any(t.endswith("#Claim") for t in types):
        return "claim"
    if any(t.endswith(("#Activity", "#Extraction", "#Episode", "#Action")) for t in types):
        return "activity"
    return "source" if types else "other"


def _support_structure(diagram: Diagram, owner: str, alternatives: Sequence[tuple[str | None, Sequence[str]]],
                       labels: Mapping[str, str], *, group_status: Mapping[str, bool] | None = None) -> None:
    """Draw ``owner``'s support: OR across ``alternatives`` (a node when there are two or more),
    AND inside a group (a node per group). Legs are alternatives without a group (None)."""
    via = owner
    if len(alternatives) > 1:
        via = f"or:{owner}"
        diagram.node(via, "OR", "or", note="any one suffices")
        diagram.edge(owner, via, "", "support")
    for group, members in alternatives:
        if group is None:
            for m in members:
                diagram.edge(via, m, "supportedBy", "support")
            continue
        gid = f"and:{group}"
        status = "" if group_status is None or group not in group_status else (
            "stands" if group_status[group] else "falls")
        diagram.node(gid, "AND", "and", note=labels.get(group, ""), status=status)
        diagram.edge(via, gid, "supportGroup", "support")
        for m in members:
            diagram.edge(gid, m, "member", "member")


def provenance_diagram(store: MemoryStore, claim: str | NamedNode, *, tenant: IRI | None = None,
                       prefixes: Mapping[str, str] | None = None, links: str = "lineage") -> Diagram:
    """``claim``'s support (AND inside a group, OR across groups and legs), echoes and, with
    ``links="lineage"``, where each piece came from (derivation, assertion, generation, use).
    Each source is asked what withdrawing it would do: a source whose withdrawal makes the
    claim fall is marked critical, and every source says how many claims would fall."""
    if links not in ("lineage", "support"):
        raise ValueError(f"links is 'lineage' or 'support', not {links!r}")
    prefixes = prefixes or store.prefixes
    node = claim if isinstance(claim, NamedNode) else NamedNode(claim)
    lin = lineage(store, node, tenant=tenant)
    sup = support(store, node, tenant=tenant)
    shown = [link for link in lin.links if links == "lineage" or link.kind in _SUPPORT_KINDS]
    everyone = [node, *(x for link in shown for x in (link.node, link.source, link.group) if x is not None)]
    labels = {_id(n): show(n, prefixes) for n in everyone}
    kinds = {n: _kind(t) for n, t in _types(store, everyone, tenant).items()}
    if node not in kinds:
        tenant_node = tenant_iri(tenant)
        where = f" in {tenant_node.value} or the shared graph" if tenant_node is not None else ""
        raise NotFoundError(f"{node}: no claim by that IRI{where}")
    diagram = Diagram(title=f"{'lineage' if links == 'lineage' else 'support'} of {labels[_id(node)]}")
    root_note = f"{_said(sup.status)}, {'stands' if sup.stands else 'does not stand'}"
    diagram.node(_id(node), labels[_id(node)], "claim", note=root_note, status="root" if sup.stands else "falls")

    legs: dict[str, list[str]] = {}
    groups: dict[str, dict[str, list[str]]] = {}
    for link in shown:
        src, dst = _id(link.node), _id(link.source)
        for n in (link.node, link.source):
            diagram.node(_id(n), labels[_id(n)], kinds.get(n, "other"))
        if link.kind == "support":
            legs.setdefault(src, []).append(dst)
        elif link.kind == "group" and link.group is not None:
            groups.setdefault(src, {}).setdefault(_id(link.group), []).append(dst)
            labels.setdefault(_id(link.group), show(link.group, prefixes))
        elif link.kind == "echo":
            diagram.edge(src, dst, "echoOf", "echo")
        else:
            diagram.edge(src, dst, _LINEAGE_LABELS.get(link.kind, link.kind), "lineage")
    root_groups = {_id(g.node): g.stands for g in sup.groups if g.node is not None}
    for owner in dict.fromkeys([*legs, *groups]):
        alternatives = [(None, [m]) for m in legs.get(owner, [])] + list(groups.get(owner, {}).items())
        _support_structure(diagram, owner, alternatives, labels,
                           group_status=root_groups if owner == _id(node) else None)

    # the sources drawn (a support picture leaves out those reached by lineage alone)
    sources = [n for n in lin.sources() if isinstance(n, NamedNode) and kinds.get(n) != "activity" and n != node
               and _id(n) in labels]
    for source in sources[:MAX_IMPACT_QUESTIONS]:
        fallen = impact(store, source, tenant=tenant).fallen
        if not fallen:
            continue
        falls = node in fallen
        note = ("withdraw → this claim falls" if falls else "") + (
            f"{'; ' if falls else 'withdraw → '}{len(fallen)} claim(s) fall")
        entry = diagram.node(_id(source), labels[_id(source)], kinds.get(source, "source"))
        entry.note = note
        entry.status = "critical" if falls else entry.status
    if len(sources) > MAX_IMPACT_QUESTIONS:
        diagram.notes.append(f"what falls was asked of the first {MAX_IMPACT_QUESTIONS} of {len(sources)} sources")
    if lin.open_ends:
        diagram.notes.append("open ends (reach no raw source): " + " ".join(labels.get(_id(n), _id(n)) for n in lin.open_ends))
    for r in sup.refuted_by:
        diagram.node(_id(r), show(r, prefixes), "source", note="refutes it")
        diagram.edge(_id(r), _id(node), "refutes", "contradicts")
    return diagram


_ROLE_KIND = {"seed": "claim", "support": "source", "echoed": "source", "lineage": "source",
              "refutation": "source", "competing": "claim", "conflicting": "claim", "qualifying": "claim"}
_LINK_KIND = {"mem:supportedBy": "support", "mem:member": "member", "mem:supportGroup": "support",
              "mem:echoOf": "echo", "mem:contradicts": "contradicts", "^mem:contradicts": "contradicts",
              "mem:refutes": "contradicts"}


def packet_diagram(packet: Any, *, prefixes: Mapping[str, str] | None = None, title: str | None = None) -> Diagram:
    """An :class:`~memkg.provenance.evidence.EvidencePacket` (from ``memkg packet`` or a recall) as a diagram:
    each item with its role and status, linked the way it was reached (``via``), support groups
    drawn as AND/OR; items left out by the budget are listed under it."""
    def label(n: Any) -> str:
        return show(n, prefixes)

    seeds = ", ".join(label(s) for s in packet.seeds)
    diagram = Diagram(title=title or f"evidence packet for {seeds}")
    in_packet = {_id(i.node) for i in packet.items}
    for item in packet.items:
        # a seed that states nothing is a message, an episode or a vertex a recall found
        kind = "claim" if item.statement is not None else (
            "source" if item.role == "seed" else _ROLE_KIND.get(item.role, "other"))
        status = "root" if item.role == "seed" else (
            "withdrawn" if item.status in ("withdrawn", "retracted", "superseded") else
            "falls" if item.status == "unsupported" else "")
        note = f"{item.role}, {_said(item.status)}" + (f", hop {item.hop}" if item.hop else "")
        diagram.node(_id(item.node), label(item.node), kind, note=note, status=status)
    drawn_groups: set[str] = set()
    for item in packet.items:
        alternatives = [(None if g is None else _id(g), [_id(m) for m in members if _id(m) in in_packet])
                        for g, members in item.groups]
        if alternatives:
            labels = {_id(g): label(g) for g, _ in item.groups if g is not None}
            _support_structure(diagram, _id(item.node), alternatives, labels)
            drawn_groups.add(_id(item.node))
        for source, link in item.via:
            if _id(source) not in in_packet:
                continue
            kind = _LINK_KIND.get(link) or (
                "member" if "member" in link or "supportGroup" in link else
                "support" if "supportedBy" in link else
                "qualifies" if item.role in ("qualifying", "conflicting") else "lineage")
            if kind in ("support", "member") and _id(source) in drawn_groups:
                continue  # drawn through the AND/OR structure already
            diagram.edge(_id(source), _id(item.node), link, kind)
    budget = f"budget: {packet.max_vertices} vertices, {packet.max_hops} hops"
    diagram.notes.append(budget + ("" if packet.complete else f"; INCOMPLETE: {len(packet.omitted)} mandatory item(s) left out"))
    for node, role, why in packet.omitted:
        diagram.notes.append(f"left out: {label(node)} ({role}: {why})")
    return diagram


__all__ = ["MAX_IMPACT_QUESTIONS", "history_timeline", "packet_diagram", "provenance_diagram"]
