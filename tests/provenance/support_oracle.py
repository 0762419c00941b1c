"""An independent model of memkg's support, dependents and erasure rules, in plain Python.

No SPARQL and no memkg code: the facts are read from the plain quads of one
dataset, and the rules below are computed over them by naive iteration, so that
tests can compare memkg's answers (``provenance.support``, ``dependents``,
``impact``, ``erase``, the support index, the views) with this model on random
memories, as ``tests/store/time_oracle.py`` does for time. The rules, from SPEC
section 1 (the property table), invariant 11, section 3 (erasure) and section 4
(``dependents``), with the details the docstrings of :mod:`memkg.provenance` fix:

* **Support.** ``c mem:supportedBy x`` is an alternative of one member;
  ``c mem:supportGroup g`` with ``g mem:member x, y`` an alternative whose members
  only jointly license ``c``. AND inside an alternative, OR across a claim's
  alternatives. A group with no member licenses nothing.
* **Echo.** ``e mem:echoOf s``: ``e`` restates ``s`` and rests on it (it stands only
  while ``s`` does); it adds no independent evidence.
* **Lineage** (``prov:wasDerivedFrom``, ``mem:assertedBy``, ``prov:wasGeneratedBy``,
  ``prov:used``) is never support: a node with lineage and no alternative stands
  unless withdrawn.
* **Withdrawn**: the object of a ``mem:retracts`` or of a ``mem:supersedes``.
* **Standing**: a node stands when it is not withdrawn, everything it echoes
  stands, and it has no alternative or one alternative whose members all stand:
  the least fixpoint (circular support grounds nothing).
* **Dependents of s**: the claims with support recorded that stand now and no
  longer stand once ``s`` is withdrawn too (a claim stands while any one of its
  support groups stands).
* **Erasure of s** within one graph removes ``s`` and, until nothing changes,
  every node that rests only on removed nodes: a node whose proposition (the
  triple term it reifies) names a removed node; a support group with a removed
  member; a node with support recorded whose every alternative has a removed
  member (another lawful source keeps it, withdrawn or not); any other node
  whose lineage inputs (derivation, assertion, generation, usage, echo) are all
  removed. Removed quads: every quad about a removed node, the asserted triple of
  a removed occurrence that no kept reifier still reifies, and kept nodes' links
  into removed ones, except decisions about identifiers (``mem:retracts``,
  ``mem:supersedes``, ``mem:contradicts``, ``mem:equivalentTo``,
  ``mem:specializes``), which keep naming them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

MEM = "https://w3id.org/memkg#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
INDEX = "https://w3id.org/memkg/index#"

SUPPORTED_BY, SUPPORT_GROUP, MEMBER, ECHO_OF = (MEM + n for n in ("supportedBy", "supportGroup", "member", "echoOf"))
RETRACTS, SUPERSEDES = MEM + "retracts", MEM + "supersedes"
LINEAGE = (PROV + "wasDerivedFrom", MEM + "assertedBy", ECHO_OF, PROV + "wasGeneratedBy", PROV + "used")
KEPT_REFERENCES = {RETRACTS, SUPERSEDES, MEM + "contradicts", MEM + "equivalentTo", MEM + "specializes"}
REIFIES, TYPE, OCCURRENCE = RDF + "reifies", RDF + "type", MEM + "Occurrence"


def _iri(term: Any) -> str | None:
    """An IRI's text (None for anything else); blank nodes get a text no IRI has."""
    name = type(term).__name__
    if name == "NamedNode":
        return term.value
    if name == "BlankNode":
        return "_:" + term.value
    return None


def reach(starts: Iterable[str], edges: Any) -> set[str]:
    """``starts`` and every node reached from them along ``edges`` (node -> successors)."""
    seen, todo = set(starts), list(starts)
    while todo:
        for y in edges.get(todo.pop(), ()):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


@dataclass
class Facts:
    """The support and lineage facts of one dataset, by node (IRIs; blank nodes as ``_:id``)."""

    #: per node, its alternatives: (the group, or None for mem:supportedBy; members)
    alternatives: dict[str, list[tuple[str | None, frozenset[str]]]] = field(default_factory=lambda: defaultdict(list))
    echoes: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    lineage: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    withdrawn: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, quads: Iterable[Any]) -> "Facts":
        """The facts stated by ``quads`` (pyoxigraph quads or triples; the graph is ignored: pass one dataset)."""
        f = cls()
        members: dict[str, set[str]] = defaultdict(set)
        groups: dict[str, list[str]] = defaultdict(list)
        for q in quads:
            s, p, o = _iri(q.subject), q.predicate.value, _iri(q.object)
            if s is None or o is None or p.startswith(INDEX):
                continue
            if p == SUPPORTED_BY:
                f.alternatives[s].append((None, frozenset({o})))
            elif p == SUPPORT_GROUP:
                groups[s].append(o)
            elif p == MEMBER:
                members[s].add(o)
            elif p in (RETRACTS, SUPERSEDES):
                f.withdrawn.add(o)
            if p == ECHO_OF:
                f.echoes[s].add(o)
            if p in LINEAGE:
                f.lineage[s].add(o)
            if p in (SUPPORTED_BY, SUPPORT_GROUP, MEMBER, ECHO_OF, RETRACTS, SUPERSEDES) or p in LINEAGE:
                f.nodes |= {s, o}
        for claim, names in groups.items():
            for g in dict.fromkeys(names):
                f.alternatives[claim].append((g, frozenset(members.get(g, ()))))
        for claim, alts in f.alternatives.items():  # two equal legs are one triple: one alternative
            f.alternatives[claim] = list(dict.fromkeys(alts))
        return f

    def standing(self, also_withdrawn: Iterable[str] = ()) -> set[str]:
        blocked = self.withdrawn | set(also_withdrawn)
        stand: set[str] = set()
        changed = True
        while changed:
            changed = False
            for x in self.nodes:
                if x in stand or x in blocked:
                    continue
                alts = self.alternatives.get(x, [])
                if all(e in stand for e in self.echoes.get(x, ())) and (
                    not alts or any(ms and ms <= stand for _g, ms in alts)
                ):
                    stand.add(x)
                    changed = True
        return stand

    def group_stands(self, members: frozenset[str], stand: set[str]) -> bool:
        return bool(members) and members <= stand

    def status(self, claim: str) -> str:
        """``withdrawn``, ``unrecorded`` (no support recorded), ``supported`` or ``unsupported``."""
        if claim in self.withdrawn:
            return "withdrawn"
        alts = self.alternatives.get(claim, [])
        if not alts:
            return "unrecorded"
        stand = self.standing()
        return "supported" if any(self.group_stands(ms, stand) for _g, ms in alts) else "unsupported"

    def dependents(self, source: str, claims: Iterable[str]) -> set[str]:
        """Of ``claims``, those that lose all support if ``source`` is withdrawn."""
        before, after = self.standing(), self.standing({source})
        return {c for c in claims if self.alternatives.get(c) and c != source and c in before and c not in after}

    def resting_on(self, roots: Iterable[str]) -> set[str]:
        """Every node that rests on one of ``roots`` through support or echo links, the roots included."""
        below: dict[str, set[str]] = defaultdict(set)
        for x, alts in self.alternatives.items():
            for _g, ms in alts:
                for m in ms:
                    below[m].add(x)
        for x, es in self.echoes.items():
            for e in es:
                below[e].add(x)
        return reach(roots, below)


@dataclass(frozen=True)
class ErasureModel:
    removed: frozenset[str]
    gone: frozenset[Any]  # the quads the erasure removes
    kept: frozenset[str]  # reifiers linked to removed nodes that stay


def erasure(quads: Iterable[Any], source: str) -> ErasureModel:
    """What erasing ``source`` removes from ``quads`` (one graph's quads, index triples left out)."""
    data = [q for q in quads if not q.predicate.value.startswith(INDEX)]
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    terms: dict[str, list[Any]] = defaultdict(list)  # reifier -> the triple terms it reifies
    occurrences: set[str] = set()
    subjects: set[str] = set()
    for q in data:
        s, o = _iri(q.subject), _iri(q.object)
        if s is None:
            continue
        subjects.add(s)
        if o is not None:
            out[(s, q.predicate.value)].append(o)
        if q.predicate.value == REIFIES and type(q.object).__name__ == "Triple":
            terms[s].append(q.object)
        if q.predicate.value == TYPE and o == OCCURRENCE:
            occurrences.add(s)

    def rests_only_on(n: str, removed: set[str]) -> bool:
        if any(_iri(t.subject) in removed or _iri(t.object) in removed for t in terms.get(n, ())):
            return True
        members = out.get((n, MEMBER), [])
        if members:
            return any(m in removed for m in members)
        legs, groups = out.get((n, SUPPORTED_BY), []), out.get((n, SUPPORT_GROUP), [])
        if legs or groups:
            return all(leg in removed for leg in legs) and all(
                g in removed or any(m in removed for m in out.get((g, MEMBER), [])) for g in groups
            )
        inputs = [o for p in LINEAGE for o in out.get((n, p), [])]
        return bool(inputs) and all(i in removed for i in inputs)

    removed = {source}
    changed = True
    while changed:
        changed = False
        for n in sorted(subjects - removed):
            if rests_only_on(n, removed):
                removed.add(n)
                changed = True
    gone = set()
    for q in data:
        s, o = _iri(q.subject), _iri(q.object)
        if s in removed:
            gone.add(q)
        elif o in removed and q.predicate.value not in KEPT_REFERENCES:
            gone.add(q)
    still_reified = {t for n, ts in terms.items() if n not in removed for t in ts}
    for n in occurrences & removed:
        for t in terms.get(n, ()):
            if t not in still_reified:
                gone |= {q for q in data if (q.subject, q.predicate, q.object) == (t.subject, t.predicate, t.object)}
    linked = {
        _iri(q.subject)
        for q in data
        if _iri(q.object) in removed
        and q.predicate.value in (SUPPORTED_BY, SUPPORT_GROUP, MEMBER, *LINEAGE)
    } | {n for n, ts in terms.items() if any(_iri(t.subject) in removed or _iri(t.object) in removed for t in ts)}
    kept = {n for n in linked if n not in removed and n in terms and not n.startswith("_:")}
    return ErasureModel(frozenset(removed), frozenset(gone), frozenset(kept))
