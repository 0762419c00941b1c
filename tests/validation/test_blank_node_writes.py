"""A write is judged on its blank nodes too: one whose only offending node is a blank node is
refused whole, in a store that holds data (so the write is judged by its focus nodes)."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, RdfFormat, parse

from memkg import MemoryStore, Message, ValidationError, Vertex, mem

EX = "https://example.org/planted/"
A = "https://example.org/tenants/a"
PRELUDE = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


def test_a_write_whose_only_offending_node_is_a_blank_node_is_refused() -> None:
    store = MemoryStore()
    store.add(Message(id=EX + "m", content="Lia drinks tea", event_id="1"), graph=A)
    # A store that holds something, so the write is judged by its focus nodes, not as a whole.
    with pytest.raises(ValidationError) as info:
        store.load_data(PRELUDE + 'ex:m mem:reason "fine" . [] a mem:Claim ; mem:assertedBy ex:m ; mem:reason "wrong" .',
                        format="turtle", graph=A)
    assert info.value.violations
    assert not any(store.quads(None, mem.reason, Literal("wrong")))


def test_a_write_whose_only_offending_subject_is_a_blank_node_is_refused() -> None:
    # The store holds data, so the write is judged by its focus nodes, not by validating all of it.
    store = MemoryStore(validation="native")
    store.add(Vertex(id="https://e/Lia", cls=mem.Person), graph="https://e/a")
    before = set(store.quads())
    data = b'PREFIX mem: <https://w3id.org/memkg#> GRAPH <https://e/a> { _:c a mem:Claim ; <https://schema.org/about> <https://e/Lia> . }'
    with pytest.raises(ValidationError) as info:
        store.write(list(parse(data, format=RdfFormat.TRIG)))
    assert any(str(v.focus).startswith("_:") and str(v.shape).endswith("ClaimProvenanceShape>") for v in info.value.violations), info.value
    assert set(store.quads()) == before
