"""The in-memory support index (memkg.provenance.support_index) is kept current by every write path.

After each kind of write, the index the store maintained must equal one built
afresh from the store's quads, and dependents() must answer as on a store that
keeps no index.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, Triple

from memkg import MemoryStore
from memkg import provenance as P
from memkg.guard.access import OPEN
from memkg.provenance import SUPPORT_INDEX
from memkg.provenance.support_index import SupportIndex
from memkg.history.updates import apply_update

from .support_oracle import Facts

EX = "https://example.org/si/"
T = NamedNode("https://example.org/tenants/si")
MEM = "https://w3id.org/memkg#"
PREFIXES = f"""PREFIX mem: <{MEM}>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <{EX}>
"""
BASE = PREFIXES + """GRAPH <https://example.org/tenants/si> {
ex:p a rdf:Property . ex:x a mem:Entity .
ex:s a mem:Message . ex:t a mem:Message . ex:echo a mem:Message ; mem:echoOf ex:s .
ex:a a mem:Claim ; rdf:reifies <<( ex:x ex:p "a" )>> ; mem:supportedBy ex:s .
ex:b a mem:Claim ; rdf:reifies <<( ex:x ex:p "b" )>> ; mem:supportedBy ex:a , ex:t .
ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "c" )>> ; mem:supportGroup ex:g .
ex:g a mem:SupportGroup ; mem:member ex:s , ex:t .
ex:d a mem:Claim ; rdf:reifies <<( ex:x ex:p "d" )>> ; mem:supportedBy ex:echo .
}
"""


def iri(name: str) -> NamedNode:
    return NamedNode(EX + name)


def fresh(store: MemoryStore) -> dict:
    return SupportIndex.build(store.raw).snapshot()


def dependents_everywhere(store: MemoryStore) -> dict[str, list[str]]:
    """dependents() of every node with a name, in the tenant and in all graphs."""
    names = sorted({str(q.subject) for q in store.raw.quads_for_pattern(None, None, None, T)})
    return {
        f"{n} {tenant}": [c.value for c in P.dependents(store, n[1:-1], tenant=tenant)]
        for n in names if n.startswith("<")
        for tenant in (T.value, None)
    }


@pytest.fixture
def store() -> MemoryStore:
    s = MemoryStore(followers=[SUPPORT_INDEX])
    s.load_data(BASE, format="trig")
    assert s.follower(SUPPORT_INDEX, create=True) is not None  # built now: every write below must maintain it
    return s


def model_dependents(store: MemoryStore) -> dict[str, list[str]]:
    """dependents_everywhere() by the plain model of tests/provenance/support_oracle.py, read from the quads."""
    out = {}
    for tenant in (T.value, None):
        graphs = [T, DefaultGraph()] if tenant else [None]
        f = Facts.read([q for g in graphs for q in store.raw.quads_for_pattern(None, None, None, g)])
        for n in sorted({str(q.subject) for q in store.raw.quads_for_pattern(None, None, None, T)}):
            if n.startswith("<"):
                out[f"{n} {tenant}"] = sorted(f.dependents(n[1:-1], [c for c in f.alternatives if not c.startswith("_:")]))
    return out


def check(store: MemoryStore) -> None:
    assert store.follower(SUPPORT_INDEX, create=True).snapshot() == fresh(store)  # type: ignore[union-attr]
    plain = MemoryStore(validation=None)
    plain.raw.extend(store.raw)
    answers = dependents_everywhere(store)
    assert answers == dependents_everywhere(plain)
    assert answers == model_dependents(store)  # and both are right


def test_the_index_is_built_only_when_asked_for() -> None:
    assert MemoryStore().follower(SUPPORT_INDEX, create=True) is None
    s = MemoryStore(followers=[SUPPORT_INDEX])
    s.load_data(BASE, format="trig")
    assert s.follower(SUPPORT_INDEX) is None  # not before first use
    assert s.follower(SUPPORT_INDEX, create=True).snapshot() == fresh(s)  # type: ignore[union-attr]
    assert [c.value for c in P.dependents(s, EX + "s", tenant=T.value)] == [EX + "a", EX + "c", EX + "d"]


def test_write_and_add(store: MemoryStore) -> None:
    store.write([Quad(iri("e"), NamedNode(MEM + "supportedBy"), iri("t"), T)] + [
        Quad(iri("e"), NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), NamedNode(MEM + "Claim"), T),
        Quad(iri("e"), NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"),
             Triple(iri("x"), iri("p"), iri("x")), T),
    ])
    check(store)
    store.retract(EX + "t", graph=T)  # a Retraction through add()
    check(store)
    store.write([Quad(iri("e"), NamedNode(MEM + "supportedBy"), iri("t"), T)])  # already there: nothing new
    check(store)


def test_change_update_withdraw_and_erase(store: MemoryStore) -> None:
    apply_update(store, PREFIXES + "DELETE DATA { GRAPH <%s> { ex:b mem:supportedBy ex:t } }" % T.value, grant=OPEN)
    check(store)
    apply_update(store, PREFIXES + "INSERT DATA { GRAPH <%s> { ex:b mem:supportedBy ex:t . ex:d mem:supportedBy ex:t } }"
                 % T.value, grant=OPEN)
    check(store)
    P.withdraw(store, EX + "a", reason="test", graph=T.value)
    check(store)
    P.erase(store, EX + "s", reason="consent revoked", graph=T.value)
    check(store)


def test_load_and_load_data(store: MemoryStore, tmp_path: Path) -> None:
    more = PREFIXES + """GRAPH <https://example.org/tenants/si> {
    ex:u a mem:Message . ex:f a mem:Claim ; rdf:reifies <<( ex:x ex:p "f" )>> ; mem:supportedBy ex:u , ex:d .
    ex:h a mem:Claim ; rdf:reifies <<( ex:x ex:p "h" )>> ; mem:supportGroup [ a mem:SupportGroup ; mem:member ex:f ] .
    }"""
    store.load_data(more, format="trig")
    check(store)
    path = tmp_path / "more.trig"
    path.write_text(more.replace("ex:u", "ex:v").replace("ex:f", "ex:f2").replace("ex:h", "ex:h2")
                    .replace('"f"', '"f2"').replace('"h"', '"h2"'))
    store.load(path)
    check(store)
    groups = store.follower(SUPPORT_INDEX, create=True).forward["group"][f"<{T.value}>"]  # type: ignore[union-attr]
    assert all(g.startswith("_:") for g in [*groups[f"<{EX}h>"], *groups[f"<{EX}h2>"]])  # blank groups, kept


def test_bulk_load_is_taken_into_account(monkeypatch) -> None:
    from memkg.store import loads as store_module

    monkeypatch.setattr(store_module, "BULK_THRESHOLD", 0)  # every load takes the bulk loader
    s = MemoryStore(followers=[SUPPORT_INDEX], validation=None)
    s.follower(SUPPORT_INDEX, create=True)
    s.load_data(BASE, format="trig")
    check(s)


def test_default_graph_links_are_kept_apart_from_the_tenant() -> None:
    s = MemoryStore(followers=[SUPPORT_INDEX], validation=None)
    s.load_data(BASE, format="trig")
    s.follower(SUPPORT_INDEX, create=True)
    s.write([Quad(iri("z"), NamedNode(MEM + "supportedBy"), iri("s"), DefaultGraph())])
    check(s)
    assert s.follower(SUPPORT_INDEX, create=True).graphs() == ["", f"<{T.value}>"]  # type: ignore[union-attr]


def test_remote_stores_keep_no_index() -> None:
    assert MemoryStore.connect("http://127.0.0.1:9/sparql").follower(SUPPORT_INDEX, create=True) is None


def test_an_index_update_that_fails_drops_the_index(store: MemoryStore, monkeypatch) -> None:
    """Half applied, the index would be wrong: it is dropped (and the error raised), then built again."""

    def broken(self, **changes) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(SupportIndex, "apply", broken)
    with pytest.raises(RuntimeError, match="boom"):
        store.write([Quad(iri("d"), NamedNode(MEM + "supportedBy"), iri("t"), T)])
    monkeypatch.undo()
    assert store.follower(SUPPORT_INDEX) is None
    assert Quad(iri("d"), NamedNode(MEM + "supportedBy"), iri("t"), T) in store  # the write itself was committed
    check(store)
