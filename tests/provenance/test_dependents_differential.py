"""dependents(), impact(), support() and the dependents view against plain-Python models.

The support graph reads query results as serialized terms (SPARQL TSV) and the
view tests withdrawal with one path per part, both for speed
(benchmarks/bench_dependents.py). These tests pin the answers on random,
valid support graphs with everything the fast paths must get right: echo
chains (several hops, an echo of several sources), support groups with IRI and
blank-node names, claims supporting claims (cycles included), retractions of
sources and claims, and supersessions. Each model is a few lines of Python over
the generated structure, written from the semantics in the docstrings of
:mod:`memkg.provenance` and the header of ``queries/dependents.rq``, not from
their code.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from pyoxigraph import BlankNode, NamedNode

from memkg import MemoryStore
from memkg import provenance as P
from memkg.provenance import support_graph
from memkg.provenance import SUPPORT_INDEX
from memkg.provenance.support_index import SupportIndex

from .support_oracle import Facts

pytestmark = pytest.mark.slow

T = "https://example.org/tenants/diff"
EX = "https://example.org/diff/"
SEEDS = range(60)


@dataclass
class Memory:
    """One random memory: who echoes what, each claim's alternatives, what is withdrawn."""

    sources: list[str]
    claims: list[str]
    echo: dict[str, list[str]]
    #: per claim, its alternatives: (group name or None for a mem:supportedBy leg, members)
    alts: dict[str, list[tuple[str | None, list[str]]]]
    retracted: set[str]
    supersedes: list[tuple[str, str]]  # (newer, older)
    blank_groups: set[str] = field(default_factory=set)

    @property
    def withdrawn(self) -> set[str]:
        return self.retracted | {old for _new, old in self.supersedes}

    def echo_closure(self, x: str) -> set[str]:
        """x and everything it echoes, at any distance."""
        seen, todo = {x}, [x]
        while todo:
            for e in self.echo.get(todo.pop(), []):
                if e not in seen:
                    seen.add(e)
                    todo.append(e)
        return seen


def generate(seed: int) -> Memory:
    rnd = random.Random(seed)
    sources = [f"s{i}" for i in range(rnd.randint(2, 6))]
    claims = [f"c{i}" for i in range(rnd.randint(2, 9))]
    echo: dict[str, list[str]] = {}
    for i, s in enumerate(sources[1:], 1):  # only earlier sources: chains end at a non-echo (invariant 8)
        if rnd.random() < 0.5:
            echo[s] = rnd.sample(sources[:i], k=min(i, rnd.choice((1, 1, 2))))
    m = Memory(sources, claims, echo, {}, set(), [])
    for c in claims:
        pool = sources + [x for x in claims if x != c]  # claims on claims, cycles allowed
        alternatives: list[tuple[str | None, list[str]]] = []
        for k in range(rnd.choice((0, 1, 1, 2, 2, 3))):
            members: list[str] = []
            for x in rnd.sample(pool, k=rnd.randint(1, min(3, len(pool)))):
                # invariant 11: no member of a group echoes another one
                if all(x not in m.echo_closure(y) and y not in m.echo_closure(x) for y in members):
                    members.append(x)
            if len(members) == 1 and rnd.random() < 0.6:
                alternatives.append((None, members))
            else:
                name = f"{c}g{k}"
                if rnd.random() < 0.4:
                    m.blank_groups.add(name)
                alternatives.append((name, members))
        m.alts[c] = alternatives
    m.retracted = set(rnd.sample(sources + claims, k=rnd.randint(0, 2)))
    for _ in range(rnd.randint(0, 2)):
        older, newer = sorted(rnd.sample(range(len(claims)), k=2))  # newer > older: acyclic
        if claims[older] not in {old for _new, old in m.supersedes}:  # superseded at most once (invariant 12)
            m.supersedes.append((claims[newer], claims[older]))
    return m


def load(m: Memory) -> MemoryStore:
    lines = [
        "PREFIX mem: <https://w3id.org/memkg#>", "PREFIX prov: <http://www.w3.org/ns/prov#>",
        "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>", f"PREFIX ex: <{EX}>", f"GRAPH <{T}> {{",
        "ex:p a rdf:Property . ex:x a mem:Entity . ex:origin a mem:Message .",
    ]
    for s in m.sources:
        lines.append(f"ex:{s} a mem:Message ." + "".join(f" ex:{s} mem:echoOf ex:{e} ." for e in m.echo.get(s, [])))

    def group(name: str) -> str:
        return f"_:{name}" if name in m.blank_groups else f"ex:{name}"

    for c in m.claims:
        parts = [f"ex:{c} a mem:Claim ; rdf:reifies <<( ex:x ex:p \"{c}\" )>>"]
        if not m.alts[c]:
            parts.append("prov:wasDerivedFrom ex:origin")
        for name, members in m.alts[c]:
            if name is None:
                parts.append(f"mem:supportedBy ex:{members[0]}")
            else:
                parts.append(f"mem:supportGroup {group(name)}")
                lines.append(f"{group(name)} a mem:SupportGroup ; mem:member " + " , ".join(f"ex:{x}" for x in members) + " .")
        lines.append(" ; ".join(parts) + " .")
    for i, x in enumerate(sorted(m.retracted)):
        lines.append(f"ex:r{i} a mem:Retraction ; mem:retracts ex:{x} .")
    for newer, older in m.supersedes:
        lines.append(f"ex:{newer} mem:supersedes ex:{older} .")
    lines.append("}")
    store = MemoryStore()  # validated: every generated memory keeps the invariants
    store.load_data("\n".join(lines), format="trig")
    return store


# -- the models ------------------------------------------------------------------------------


def standing(m: Memory, also_withdrawn: set[str] = frozenset()) -> set[str]:
    """The least fixpoint of the module docstring of memkg.provenance, by naive iteration."""
    blocked = m.withdrawn | set(also_withdrawn)
    stand: set[str] = set()
    changed = True
    while changed:
        changed = False
        for x in m.sources + m.claims:
            if x in stand or x in blocked:
                continue
            alts = m.alts.get(x, [])
            if all(e in stand for e in m.echo.get(x, [])) and (
                not alts or any(members and all(y in stand for y in members) for _g, members in alts)
            ):
                stand.add(x)
                changed = True
    return stand


def fallen(m: Memory, source: str) -> set[str]:
    before, after = standing(m), standing(m, {source})
    return {c for c in m.claims if m.alts[c] and c in before and c not in after and c != source}


def weakened(m: Memory, source: str) -> set[str]:
    before, after = standing(m), standing(m, {source})
    return {
        c
        for c in m.claims
        if c in after and c != source and reaches(m, c, source)
        and any(all(y in before for y in ms) and not all(y in after for y in ms) for _g, ms in m.alts[c])
    }


def reaches(m: Memory, x: str, source: str) -> bool:
    """Whether x is in the support cone below source (support links and echoes)."""
    seen, todo = {x}, [x]
    while todo:
        y = todo.pop()
        if y == source:
            return True
        for z in [*m.echo.get(y, []), *(w for _g, ms in m.alts.get(y, []) for w in ms)]:
            if z not in seen:
                seen.add(z)
                todo.append(z)
    return False


def direct_dependents(m: Memory, source: str) -> set[str]:
    """The view's direct case, from the header of queries/dependents.rq."""
    withdrawn = m.withdrawn

    def down(part: str) -> bool:  # withdrawn, itself or along its echo chain
        return any(y in withdrawn for y in m.echo_closure(part))

    def needs(members: list[str]) -> bool:  # has a member that is the source or an echo of it
        return any(source in m.echo_closure(y) for y in members)

    out = set()
    for c in m.claims:
        alts = m.alts[c]
        if c in withdrawn or not alts:
            continue
        lifeline = any(needs(ms) and not any(down(y) for y in ms) for _g, ms in alts)
        if lifeline and all(needs(ms) or any(down(y) for y in ms) for _g, ms in alts):
            out.add(c)
    return out


def names(nodes) -> set[str]:
    return {x.value.removeprefix(EX) for x in nodes}


# -- the tests -------------------------------------------------------------------------------


@pytest.fixture(params=["fast", "generic", "over budget", "index"])
def cone_reader(request, monkeypatch) -> str:
    """How SupportGraph.downstream_of reads a local store's cone: the fast way (rounds along
    mem:supportedBy, group and echo links scanned), the generic cone query, the fast way
    giving up on the scan (a budget of no links) and falling back to the generic one, or
    from an in-memory support index (built once per store: these tests write nothing after
    loading; tests/provenance/test_support_index.py checks that writes maintain it)."""
    if request.param == "index":
        follower = MemoryStore.follower

        def built_once(self, kind, create=False):
            if kind is SUPPORT_INDEX:
                return self.__dict__.setdefault("_built", SupportIndex.build(self.raw))
            return follower(self, kind, create=create)

        monkeypatch.setattr(MemoryStore, "follower", built_once)
    elif request.param == "generic":
        monkeypatch.setattr(support_graph, "FAST_CONE", False)
    elif request.param == "over budget":
        monkeypatch.setattr(support_graph, "_LINKS_FLOOR", 0)
        monkeypatch.setattr(support_graph, "_LINKS_PER_NODE", 0)
    return request.param


@pytest.mark.parametrize("seed", SEEDS)
def test_dependents_and_impact_match_the_model(seed: int, cone_reader: str) -> None:
    m = generate(seed)
    store = load(m)
    for source in m.sources + m.claims:
        expected = fallen(m, source)
        got = P.dependents(store, EX + source, tenant=T)
        assert names(got) == expected, (seed, source)
        assert [x.value for x in got] == sorted(x.value for x in got)  # IRI order
        assert P.dependents(store, EX + source) == got  # every graph: the same memory
        impact = P.impact(store, EX + source, tenant=T)
        assert names(impact.fallen) == expected
        assert names(impact.weakened) == weakened(m, source), (seed, source)
        before, after = standing(m), standing(m, {source})
        echoes_that_fall = {s for s in m.sources if s in before and s not in after and s != source}
        assert names(impact.fallen_sources) == echoes_that_fall


@pytest.mark.parametrize("seed", SEEDS)
def test_the_dependents_view_matches_the_direct_model(seed: int) -> None:
    m = generate(seed)
    store = load(m)
    for source in m.sources + m.claims:
        rows = list(store.view("dependents", {"source": EX + source, "tenant": T}))
        assert names(r["claim"] for r in rows) == direct_dependents(m, source), (seed, source)
        assert len(rows) == len({r["claim"] for r in rows})  # one row per claim
        for r in rows:  # each row is its claim's triple term: subject, predicate and object
            assert (r["subject"], r["predicate"]) == (NamedNode(EX + "x"), NamedNode(EX + "p"))
            assert r["object"].value == r["claim"].value.removeprefix(EX)


@pytest.mark.parametrize("seed", SEEDS)
def test_support_reads_the_same_structure(seed: int) -> None:
    m = generate(seed)
    store = load(m)
    stand = standing(m)
    for c in m.claims:
        s = P.support(store, EX + c, tenant=T)
        assert s.stands == (c in stand), (seed, c)
        got = sorted(
            ("blank" if isinstance(g.node, BlankNode) else names([g.node]).pop() if g.node else "",
             tuple(sorted(names(g.members))))
            for g in s.groups
        )
        want = sorted({  # a set: two equal legs are one triple
            ("blank" if name in m.blank_groups else name or "", tuple(sorted(set(ms)))) for name, ms in m.alts[c]
        })
        assert got == want, (seed, c)
        # Each group stands while every member does (AND inside), its failing members named;
        # the claim is supported while one group stands (OR across).
        for g in s.groups:
            members = names(g.members)
            assert g.stands == (bool(members) and members <= stand), (seed, c, members)
            assert names(g.failing) == members - stand, (seed, c)
        expected_status = (
            "withdrawn" if c in m.withdrawn else "unrecorded" if not m.alts[c]
            else "supported" if any(all(y in stand for y in ms) for _n, ms in m.alts[c]) else "unsupported"
        )
        assert s.status == expected_status, (seed, c)
        if c not in m.withdrawn and m.alts[c]:
            assert s.stands == any(all(y in stand for y in ms) for _n, ms in m.alts[c]), (seed, c)
        assert all(isinstance(x, NamedNode) for g in s.groups for x in g.members)
        assert names(s.withdrawn_by) <= {f"r{i}" for i in range(len(m.retracted))} | {n for n, o in m.supersedes if o == c}
        assert bool(s.withdrawn_by) == (c in m.withdrawn)


def test_members_that_are_not_iris_are_read_back_as_the_same_terms(cone_reader: str) -> None:
    """Invalid data (a literal, a triple term as evidence) still reads back exactly, unvalidated."""
    store = MemoryStore(validation=None)
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX ex: <{EX}>
        ex:c mem:supportedBy 42 , "a\\tquote\\"d" , <<( ex:a ex:b ex:c )>> , ex:s ;
             mem:supportGroup [ mem:member "x"@en , ex:s ] .
        ex:d mem:supportedBy ex:s .""",
        format="turtle",
    )
    groups = P.support(store, EX + "c").groups
    members = {m for g in groups for m in g.members}
    expected = {
        m.object for m in store.quads(NamedNode(EX + "c"), NamedNode("https://w3id.org/memkg#supportedBy"), None)
    } | {q.object for q in store.quads(None, NamedNode("https://w3id.org/memkg#member"), None)}
    assert members == expected
    assert len(members) == 5  # 42, the quoted string, the triple term, "x"@en and ex:s
    assert P.dependents(store, EX + "s") == [NamedNode(EX + "d")]  # ex:c keeps its other legs


@pytest.mark.parametrize("unrelated_retractions", [0, 40])
def test_withdrawals_read_by_scan_or_per_node_agree(unrelated_retractions: int, cone_reader: str) -> None:
    """dependents() reads withdrawals in one scan when they are few, per node when many;
    a blank node in the cone (unvalidated data: it cannot be named in a query) included."""
    store = MemoryStore(validation=None)
    store.load_data(
        f"""PREFIX mem: <https://w3id.org/memkg#>
        PREFIX ex: <{EX}>
        _:echo mem:echoOf ex:s .
        _:gone mem:echoOf ex:s .
        ex:r0 mem:retracts _:gone .
        ex:a mem:supportedBy ex:s .
        ex:b mem:supportedBy _:echo .
        ex:c mem:supportedBy _:gone .
        ex:d mem:supportedBy ex:s , ex:t .
        ex:e mem:supportedBy ex:a .
        ex:f mem:supportedBy ex:s . ex:r1 mem:retracts ex:f .
        ex:g mem:supportedBy ex:s . ex:h mem:supersedes ex:g .
        """
        + "".join(f"ex:u{i} mem:retracts ex:v{i} . " for i in range(unrelated_retractions)),
        format="turtle",
    )
    # c rests on a retracted echo, f is retracted, g superseded, d has another leg: they do not fall
    assert names(P.dependents(store, EX + "s")) == {"a", "b", "e"}
    fallen_sources = P.impact(store, EX + "s").fallen_sources  # _:echo falls with ex:s
    assert len(fallen_sources) == 1 and isinstance(fallen_sources[0], BlankNode)


def structure(graph: P.SupportGraph) -> dict[str, object]:
    """Everything a support graph says about its nodes, comparable across readers."""
    nodes = graph.nodes()
    blank = {n: f"_:{k}" for k, n in enumerate(sorted((n for n in nodes if isinstance(n, BlankNode)), key=str))}

    def name(n: object) -> str:
        return blank.get(n, str(n))  # type: ignore[call-overload]

    def group_name(g: P.Group) -> str:
        return "" if g.node is None else "_:group" if isinstance(g.node, BlankNode) else str(g.node)

    return {
        name(n): (
            sorted((group_name(g), sorted(map(name, g.members))) for g in graph.groups(n)),
            sorted(map(name, graph.echoes(n))),
            [str(w) for w in graph.withdrawn_by(n)],
        )
        for n in nodes
    } | {"cone": sorted(name(graph.node(i)) for i in graph.downstream)}


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_the_fast_and_generic_cone_reads_agree(seed: int, monkeypatch) -> None:
    """The same graph, node for node, whichever way the cone is read (both ways really run)."""
    m = generate(seed)
    store = load(m)
    root_sets = [[x] for x in m.sources + m.claims] + [[m.sources[0], x] for x in m.sources[1:] + m.claims]
    for roots in root_sets:
        sources = [EX + x for x in roots]
        for tenant in (T, None):
            calls: list[bool] = []
            read = P.SupportGraph._read_cone
            monkeypatch.setattr(P.SupportGraph, "_read_cone", lambda g, *a: calls.append(read(g, *a)) or calls[-1])
            fast = P.SupportGraph.downstream_of(store, sources, tenant=tenant)
            monkeypatch.setattr(support_graph, "FAST_CONE", False)
            generic = P.SupportGraph.downstream_of(store, sources, tenant=tenant)
            monkeypatch.setattr(support_graph, "FAST_CONE", True)
            monkeypatch.setattr(P.SupportGraph, "_read_cone", read)
            assert calls == [True], (seed, roots)
            assert structure(fast) == structure(generic), (seed, roots, tenant)
            # And both are right: the cone is what rests on the roots, each node with its
            # alternatives and echoes, as the plain model reads them from the quads.
            cone = model_cone(store, sources)
            named = {fast.node(i) for i in fast.downstream if isinstance(fast.node(i), NamedNode)}
            assert named == set(cone), (seed, roots, tenant)
            for node, (alternatives, echoes) in cone.items():
                assert sorted(sorted(m.value for m in g.members) for g in fast.groups(node)) == alternatives, node
                assert sorted(e.value for e in fast.echoes(node)) == echoes, node


def model_cone(store: MemoryStore, roots: list[str]) -> dict[NamedNode, tuple[list[list[str]], list[str]]]:
    """The named nodes resting on ``roots`` (tests/provenance/support_oracle.py), with their alternatives and echoes."""
    f = Facts.read(store.quads(None, None, None, None))
    return {
        NamedNode(x): (sorted(sorted(ms) for _g, ms in f.alternatives.get(x, [])), sorted(f.echoes.get(x, ())))
        for x in f.resting_on(roots) if not x.startswith("_:")
    }


def test_the_support_index_reads_the_same_graph_as_the_store() -> None:
    """A store keeping its support links in memory builds, for every source, the graph read from Oxigraph."""
    for seed in range(0, 60, 3):
        m = generate(seed)
        plain = load(m)
        indexed = MemoryStore(followers=[SUPPORT_INDEX])
        indexed.raw.extend(plain.raw)  # the same quads (blank nodes included), before the index is built
        root_sets = [[x] for x in m.sources + m.claims] + [[m.sources[0], x] for x in m.claims]
        for roots in root_sets:
            for tenant in (T, None):
                sources = [EX + x for x in roots]
                got = P.SupportGraph.downstream_of(indexed, sources, tenant=tenant)
                want = P.SupportGraph.downstream_of(plain, sources, tenant=tenant)
                assert structure(got) == structure(want), (seed, roots, tenant)
