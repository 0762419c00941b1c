"""Erasure's reach as a property (issue 31): what was derived only from the erased source goes,
from the store and the recall index; what has another independent source stays."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import NamedNode

from memkg import MemoryStore
from memkg import provenance as P

T = "https://example.org/tenants/acme"
EX = "https://example.org/acme/"
SOURCES = ("s0", "s1")
#: How a derived node points at its sources: each kind is a way content flows downstream.
KINDS = ("derived", "supported", "generated")

derivations = st.lists(
    st.tuples(st.sampled_from(KINDS), st.sets(st.sampled_from(SOURCES), min_size=1)), min_size=1, max_size=5,
)


def _trig(items: list[tuple[str, set[str]]]) -> str:
    lines = [f'ex:{s} a mem:Message ; mem:content "source {s} word{s}" .' for s in SOURCES]
    lines.append("ex:p a rdf:Property . ex:x a mem:Entity .")
    for i, (kind, sources) in enumerate(items):
        refs = " , ".join(f"ex:{s}" for s in sorted(sources))
        if kind == "derived":
            lines.append(f'ex:d{i} a mem:Message ; mem:content "derived item{i}" ; prov:wasDerivedFrom {refs} .')
        elif kind == "supported":
            lines.append(f'ex:d{i} a mem:Claim ; rdf:reifies <<( ex:x ex:p "item{i}" )>> ; mem:supportedBy {refs} .')
        else:
            lines.append(f"ex:run{i} a mem:Extraction ; prov:used {refs} .")
            lines.append(f'ex:d{i} a mem:Claim ; rdf:reifies <<( ex:x ex:p "item{i}" )>> ; prov:wasGeneratedBy ex:run{i} .')
    return f"""PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <{EX}>
GRAPH <{T}> {{ {chr(10).join(lines)} }}"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(derivations)
def test_erasure_removes_exactly_what_only_the_erased_source_supports(items: list[tuple[str, set[str]]]) -> None:
    store = MemoryStore()
    store.load_data(_trig(items), format="trig")
    store.recall("item0", tenant=T)  # the recall index is built before the erasure, and must follow it
    P.erase(store, EX + "s0", reason="consent revoked", graph=T)
    for i, (_, sources) in enumerate(items):
        node = NamedNode(f"{EX}d{i}")
        held = any(store.quads(node, None, None))
        recalled = node.value in {h.node for h in store.recall(f"item{i}", tenant=T, k=50)}
        if sources == {"s0"}:
            assert not held and not recalled, (i, items)
        else:
            assert held and recalled, (i, items)
    assert not any(store.quads(NamedNode(EX + "s0"), None, None))
    assert EX + "s0" not in {h.node for h in store.recall("words0", tenant=T, k=50)}
