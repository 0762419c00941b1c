"""Erasure's reach as a property: over generated derivation graphs, erasing a
source removes everything derived only from it (from the store, the claim index, the recall
index and exports) and keeps everything that another independent source still carries (held
and still recalled).

Each derived node rests on one or more earlier nodes by one link kind: support, echo,
derivation, and generation by an activity that used them. A node survives iff one of what it
rests on survives.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import pytest
from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, erase

pytestmark = pytest.mark.slow

EX = "https://example.org/reach/"
T = "https://example.org/tenants/a"
PRELUDE = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
ex:x a mem:Entity . ex:p a rdf:Property .
"""
LINKS = ("support", "echo", "derivation", "generation")


@st.composite
def graphs(draw) -> tuple[int, list[tuple[str, list[int]]]]:  # type: ignore[no-untyped-def]
    """``sources`` messages, then derived nodes: (link kind, the indexes of what each rests on)."""
    sources = draw(st.integers(1, 3))
    derived: list[tuple[str, list[int]]] = []
    for i in range(draw(st.integers(1, 6))):
        earlier = sources + i
        kind = draw(st.sampled_from(LINKS))
        # an echo repeats one message; every other link may rest on several
        most = 1 if kind == "echo" else 3
        derived.append((kind, draw(st.lists(st.integers(0, earlier - 1), min_size=1, max_size=most, unique=True))))
    return sources, derived


def _name(i: int) -> str:
    return f"n{i}"


def _word(i: int) -> str:
    """A word only node ``i`` says, so recall can be asked about it alone."""
    return f"item{i}"


def _turtle(sources: int, derived: list[tuple[str, list[int]]]) -> str:
    lines = [f'ex:n{i} a mem:Message ; mem:content "words of source {i} {_word(i)}" ; mem:eventId "{i}" .'
             for i in range(sources)]
    for j, (kind, parents) in enumerate(derived):
        i = sources + j
        refs = ", ".join(f"ex:n{p}" for p in parents)
        if kind == "support":
            lines.append(f'ex:n{i} a mem:Claim ; rdf:reifies <<( ex:x ex:p "claim {_word(i)}" )>> ; mem:supportedBy {refs} .')
        elif kind == "echo":
            lines.append(f'ex:n{i} a mem:Message ; mem:content "echo {_word(i)}" ; mem:echoOf {refs} .')
        elif kind == "derivation":
            lines.append(f'ex:n{i} a mem:Message ; mem:content "derived {_word(i)}" ; prov:wasDerivedFrom {refs} .')
        else:
            lines.append(f'ex:run{i} a mem:Extraction ; prov:used {refs} .')
            lines.append(f'ex:n{i} a mem:Claim ; rdf:reifies <<( ex:x ex:p "generated {_word(i)}" )>> ; '
                         f'prov:wasGeneratedBy ex:run{i} .')
    return PRELUDE + "\n".join(lines)


def _expected_gone(sources: int, derived: list[tuple[str, list[int]]], erased: int) -> set[int]:
    gone = {erased}
    for j, (_, parents) in enumerate(derived):  # parents come earlier: one pass is the fixed point
        if all(p in gone for p in parents):
            gone.add(sources + j)
    return gone


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=graphs(), data=st.data())
def test_erasure_removes_what_rests_only_on_the_source_and_keeps_the_rest(graph, data) -> None:  # type: ignore[no-untyped-def]
    sources, derived = graph
    erased = data.draw(st.integers(0, sources - 1), label="erased source")
    store = MemoryStore()
    store.load_data(_turtle(sources, derived), format="turtle", graph=T)
    store.recall("words of source", tenant=T, k=5)  # the recall index exists before the erasure
    gone = _expected_gone(sources, derived, erased)
    node = {i: NamedNode(EX + _name(i)) for i in range(sources + len(derived))}

    erase(store, EX + _name(erased), reason="consent revoked", graph=T)

    exported = store.export(format="nquads", with_index=True).decode().splitlines()
    for i, n in node.items():
        held = any(store.quads(n, None, None, with_index=True))
        recalled = n.value in {h.node for h in store.recall(_word(i), tenant=T, k=50)}
        if i in gone:
            assert not held, f"{_name(i)} rests only on the erased source yet is still held"
            assert not recalled, f"recall still finds {_name(i)}"
            # Only the erasure record names it, by identifier (mem:retracts): nothing said about it.
            assert not [line for line in exported if line.startswith(f"<{n.value}> ")], f"{_name(i)} exported"
        else:
            assert held, f"{_name(i)} has an independent source yet was erased"
            assert recalled, f"{_name(i)} has an independent source yet recall no longer finds it"
    assert not any(store.quads(None, None, Literal(f"words of source {erased} {_word(erased)}")))
    assert not [line for line in exported if f"words of source {erased} " in line]
    assert store.check_index().consistent
