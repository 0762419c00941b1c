"""Support, dependents and erasure against the plain model of tests/provenance/support_oracle.py.

Random memories, valid by the invariants: sources with echo chains, documents
derived from sources, claims with support legs and groups (on sources and on
other claims, cycles included), claims whose provenance is lineage only, claims
and occurrences whose propositions name a source, retractions and supersessions.
memkg's answers are compared with the model read from the store's own quads,
never with another memkg reading.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from pyoxigraph import NamedNode, Quad

from memkg import MemoryStore
from memkg import provenance as P
from memkg.provenance import SUPPORT_INDEX
from memkg.validation import WriteValidator, validate_store

from .support_oracle import REIFIES as RDF_REIFIES
from .support_oracle import Facts, erasure, reach

pytestmark = pytest.mark.slow

T = "https://example.org/tenants/oracle"
EX = "https://example.org/oracle/"
SEEDS = range(40)
VALIDATOR = WriteValidator("native")  # one engine for every store here: building one costs ~0.2 s


@dataclass
class Memory:
    lines: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)


def generate(seed: int) -> Memory:
    rnd = random.Random(seed)
    m = Memory()
    m.sources = [f"s{i}" for i in range(rnd.randint(2, 5))]
    m.documents = [f"d{i}" for i in range(rnd.randint(0, 3))]
    m.claims = [f"c{i}" for i in range(rnd.randint(2, 8))]
    echo: dict[str, set[str]] = {}
    for i, s in enumerate(m.sources):
        m.lines.append(f'ex:{s} a mem:Message ; mem:content "content of {s}" .')
        if i and rnd.random() < 0.4:  # only earlier sources: echo chains end (invariant 8)
            echo[s] = set(rnd.sample(m.sources[:i], k=1))
            m.lines.append(f"ex:{s} mem:echoOf ex:{next(iter(echo[s]))} .")
    for i, d in enumerate(m.documents):  # derived documents: lineage, never members of a group
        inputs = rnd.sample(m.sources + m.documents[:i], k=min(len(m.sources) + i, rnd.choice((1, 1, 2))))
        m.lines.append(f'ex:{d} a mem:Message ; mem:content "digest {d}" ; prov:wasDerivedFrom '
                       + " , ".join(f"ex:{x}" for x in inputs) + " .")

    def closure(x: str) -> set[str]:
        return reach([x], echo)

    shapes = {c: rnd.choice(("legs", "legs", "lineage", "asserted" if m.documents else "lineage")) for c in m.claims}
    for c in m.claims:
        subject = f"ex:{rnd.choice(m.sources)}" if rnd.random() < 0.15 else "ex:x"  # a proposition about a source
        parts = [f'ex:{c} a mem:Claim ; rdf:reifies <<( {subject} ex:p "{c}" )>>']
        # A claim derived from sources never joins a group (it would rest on another member: invariant 11).
        pool = m.sources + [x for x in m.claims if x != c and shapes[x] != "lineage"]
        shape = shapes[c]
        if shape == "lineage":
            inputs = rnd.sample(m.sources + m.documents, k=rnd.choice((1, 2)))
            parts.append("prov:wasDerivedFrom " + " , ".join(f"ex:{x}" for x in inputs))
        else:
            if shape == "asserted":
                parts.append(f"mem:assertedBy ex:{rnd.choice(m.sources)}")
            for k in range(rnd.choice((1, 1, 2, 3))):
                members: list[str] = []
                for x in rnd.sample(pool, k=rnd.randint(1, min(3, len(pool)))):
                    if all(x not in closure(y) and y not in closure(x) for y in members):  # invariant 11
                        members.append(x)
                if len(members) == 1 and rnd.random() < 0.6:
                    parts.append(f"mem:supportedBy ex:{members[0]}")
                else:
                    group = f"_:{c}g{k}" if rnd.random() < 0.3 else f"ex:{c}g{k}"
                    parts.append(f"mem:supportGroup {group}")
                    m.lines.append(f"{group} a mem:SupportGroup ; mem:member " + " , ".join(f"ex:{x}" for x in members) + " .")
        m.lines.append(" ; ".join(parts) + " .")
    for i in range(rnd.randint(0, 3)):  # occurrences of a relation about a source, sometimes two of one triple
        s = rnd.choice(m.sources)
        m.lines.append(f'ex:{s} ex:p "said" ~ ex:o{i} {{| a mem:Occurrence |}} .')
    for i, x in enumerate(rnd.sample(m.sources + m.claims, k=rnd.randint(0, 2))):
        m.lines.append(f"ex:r{i} a mem:Retraction ; mem:retracts ex:{x} .")
    if rnd.random() < 0.5:
        older, newer = sorted(rnd.sample(range(len(m.claims)), k=2))
        m.lines.append(f"ex:{m.claims[newer]} mem:supersedes ex:{m.claims[older]} .")
    return m


def load(m: Memory, **options) -> MemoryStore:
    text = "\n".join([
        'VERSION "1.2"', "PREFIX mem: <https://w3id.org/memkg#>", "PREFIX prov: <http://www.w3.org/ns/prov#>",
        "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>", f"PREFIX ex: <{EX}>", f"GRAPH <{T}> {{",
        "ex:p a rdf:Property . ex:x a mem:Entity .", *m.lines, "}",
    ])
    store = MemoryStore(**options)  # validated: every generated memory keeps the invariants
    store.validator = VALIDATOR
    store.load_data(text, format="trig")
    return store


def facts(store: MemoryStore) -> Facts:
    return Facts.read(store.quads(None, None, None, NamedNode(T)))


def iris(names) -> set[str]:
    return {EX + n for n in names}


def short(nodes) -> set[str]:
    return {x.value.removeprefix(EX) if isinstance(x, NamedNode) else "_:" + x.value for x in nodes}


@pytest.mark.parametrize("seed", SEEDS)
def test_support_status_and_each_group_standing_match_the_model(seed: int) -> None:
    """A claim stands while any one of its support groups stands; each group stands while all its members do."""
    store = load(generate(seed))
    f = facts(store)
    stand = f.standing()
    for c in generate(seed).claims:
        s = P.support(store, EX + c, tenant=T)
        assert s.status == f.status(EX + c), (seed, c)
        assert s.stands == (EX + c in stand), (seed, c)
        want = sorted((sorted(ms), f.group_stands(ms, stand), sorted(ms - stand))
                      for _g, ms in f.alternatives.get(EX + c, []))
        got = sorted((sorted(m.value for m in g.members), g.stands, sorted(m.value for m in g.failing)) for g in s.groups)
        assert got == want, (seed, c)


@pytest.mark.parametrize("support_index", [False, True], ids=["store", "support index"])
@pytest.mark.parametrize("seed", SEEDS)
def test_dependents_and_impact_match_the_model(seed: int, support_index: bool) -> None:
    m = generate(seed)
    store = load(m, followers=[SUPPORT_INDEX] if support_index else [])
    f = facts(store)
    everything = m.sources + m.documents + m.claims
    for source in everything:
        expected = f.dependents(EX + source, iris(m.claims))
        assert {x.value for x in P.dependents(store, EX + source, tenant=T)} == expected, (seed, source)
        assert {x.value for x in P.impact(store, EX + source, tenant=T).fallen} == expected, (seed, source)
    graph = P.SupportGraph.downstream_of(store, [EX + m.sources[0]], tenant=T)
    cone = {graph.node(i) for i in graph.downstream}
    assert {x.value for x in cone if isinstance(x, NamedNode)} == {
        x for x in f.resting_on([EX + m.sources[0]]) if not x.startswith("_:")
    }, seed


@pytest.mark.parametrize("seed", SEEDS)
def test_erasure_removes_what_the_model_removes_and_nothing_else(seed: int) -> None:
    """SPEC §3: erasure removes the content and what was derived only from it, and records what it removed."""
    m = generate(seed)
    base = load(m)
    erased = m.sources + m.documents + m.claims[:2]
    for source in erased:
        store = MemoryStore()
        store.validator = VALIDATOR  # the erasure itself is a validated change
        store.raw.extend(base.raw)  # the same quads, validated once
        graph = NamedNode(T)
        before = set(store.quads(None, None, None, graph))
        model = erasure(before, EX + source)
        result = P.erase(store, EX + source, reason="consent revoked", graph=T)
        assert short(result.removed) == {x.removeprefix(EX) for x in model.removed}, (seed, source)
        assert {x.value for x in result.kept} == model.kept, (seed, source)
        after = set(store.quads(None, None, None, graph))
        record = {q for q in after if q.subject == result.record}
        assert after - record == before - model.gone, (seed, source)
        assert {q.object for q in record if q.predicate.value.endswith("#retracts")} == {
            NamedNode(x) for x in model.removed if not x.startswith("_:")
        }
        assert all(isinstance(q, Quad) and q.subject == result.record for q in record)
        assert store.check_index().consistent
        if source in (erased[0], erased[-1]):  # the whole store too (0.2 s): the first and the last
            report = validate_store(store)
            assert report.conforms, (seed, source, report.to_text())


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_the_support_view_matches_the_direct_model(seed: int) -> None:
    """queries/support.rq: one row per (group, member) with the claim's triple term; a member stands
    unless it or what it echoes is withdrawn (the direct case); a group stands when it has members
    and all stand; the claim is withdrawn when retracted or superseded."""
    m = generate(seed)
    store = load(m)
    f = facts(store)

    def member_stands(x: str) -> bool:
        return not (reach([x], f.echoes) & f.withdrawn)

    for c in m.claims:
        rows = list(store.view("support", {"claim": EX + c, "tenant": T}))
        (term,) = [q.object for q in store.quads(NamedNode(EX + c), NamedNode(RDF_REIFIES), None)]
        assert rows, (seed, c)
        for r in rows:
            assert (r["claim"], r["subject"], r["predicate"], r["object"]) == (
                NamedNode(EX + c), term.subject, term.predicate, term.object), (seed, c)
            assert r["claimWithdrawn"].value == str(EX + c in f.withdrawn).lower(), (seed, c)
        def kind(g: object) -> str:  # a blank group's label is the store's own: compare it as "a blank group"
            return "leg" if g is None else "_:" if str(g).startswith("_:") else str(g).strip("<>")

        def flag(term: object) -> bool | None:
            return None if term is None else term.value == "true"  # type: ignore[attr-defined]

        got = sorted((kind(r["group"]), r["member"] and r["member"].value, flag(r["memberStands"]),
                      flag(r["groupStands"])) for r in rows)
        alternatives = f.alternatives.get(EX + c, [])
        want = sorted((kind(g), x, member_stands(x), all(member_stands(y) for y in ms))
                      for g, ms in alternatives for x in ms) or [("leg", None, None, None)]
        assert got == want, (seed, c)


@pytest.mark.parametrize("seed", range(0, 40, 8))
def test_every_lineage_row_carries_its_claims_triple_term_once(seed: int) -> None:
    """queries/lineage.rq: each row names the claim's subject, predicate and object; no row twice,
    even for a source with two raw classes (one of them a subclass of mem:Message)."""
    m = generate(seed)
    m.lines.append(f"ex:Email <http://www.w3.org/2000/01/rdf-schema#subClassOf> mem:Message . ex:{m.sources[0]} a ex:Email .")
    store = load(m)
    for c in m.claims:
        rows = list(store.view("lineage", {"claim": EX + c, "tenant": T}))
        (term,) = [q.object for q in store.quads(NamedNode(EX + c), NamedNode(RDF_REIFIES), None)]
        assert {(r["subject"], r["predicate"], r["object"]) for r in rows} <= {(term.subject, term.predicate, term.object)}
        keys = [tuple(str(r[k]) for k in ("from", "kind", "source", "group", "end", "raw")) for r in rows]
        assert len(keys) == len(set(keys)), (seed, c)
