"""Provenance within a tenant and through activities: support reads a claim's refuters in the
claim's own tenant only, and erasing a source removes what an activity that used it generated."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode

from memkg import MemoryStore, mem
from memkg import provenance as P

EX = "https://example.org/planted/"
A, B = "https://example.org/tenants/a", "https://example.org/tenants/b"
PRELUDE = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""
_TENANT_A, _TENANT_B = "https://e/tenants/a", "https://e/tenants/b"
_TURTLE = """PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <https://e/>
"""


def _claim_in(tenant: str, extra: str = "") -> str:
    return f"""GRAPH <{tenant}> {{
      ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message . ex:probe a mem:Message .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "v" )>> ; mem:supportedBy ex:m . {extra}
    }}"""


# -- support reads the claim's tenant only -------------------------------------------------------


def test_support_reads_a_claims_refuters_only_in_its_tenant() -> None:
    store = MemoryStore(validation=None)
    for graph in (A, B):
        store.load_data(PRELUDE + """
            ex:m a mem:Message ; mem:content "Lia drinks tea" .
            ex:c a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:tea )>> ; mem:assertedBy ex:m ; mem:supportedBy ex:m .""",
                        format="turtle", graph=graph)
    store.load_data(PRELUDE + "ex:probe mem:refutes ex:c .", format="turtle", graph=B)
    assert P.support(store, EX + "c", tenant=B).refuted_by == (NamedNode(EX + "probe"),)
    assert P.support(store, EX + "c", tenant=A).refuted_by == (), "tenant B's refuter leaked into tenant A"


def test_support_reads_refuters_from_the_claims_tenant_only() -> None:
    store = MemoryStore()
    store.load_data(_TURTLE + _claim_in(_TENANT_A) + _claim_in(_TENANT_B, "ex:probe mem:refutes ex:c ."), format="trig")
    assert P.support(store, "https://e/c", tenant=_TENANT_A).refuted_by == ()
    assert [n.value for n in P.support(store, "https://e/c", tenant=_TENANT_B).refuted_by] == ["https://e/probe"]


# -- erasure follows activities ----------------------------------------------------------------


def test_erasure_removes_what_an_activity_generated_from_the_erased_source() -> None:
    store = MemoryStore()
    store.load_data(PRELUDE + f"""GRAPH <{A}> {{
        ex:m a mem:Message ; mem:content "Lia drinks tea" ; mem:eventId "1" .
        ex:run a prov:Activity ; prov:used ex:m .
        ex:summary a mem:Message ; mem:content "a summary of what Lia drinks" ; prov:wasGeneratedBy ex:run .
    }}""", format="trig")
    result = P.erase(store, EX + "m", reason="consent revoked", graph=A)
    assert NamedNode(EX + "summary") in set(result.removed)
    assert not any(store.quads(NamedNode(EX + "summary"), mem.content, None))
    assert not any(store.quads(None, None, Literal("a summary of what Lia drinks")))


def test_erasure_removes_what_an_activity_that_used_the_source_generated() -> None:
    store = MemoryStore()
    store.load_data(_TURTLE + f"""GRAPH <{_TENANT_A}> {{
      ex:p a rdf:Property . ex:x a mem:Entity .
      ex:diary a mem:Message ; mem:content "Lia's diary." .
      ex:other a mem:Message ; mem:content "A note by Sam." .
      ex:run a mem:Extraction ; prov:used ex:diary .
      ex:c a mem:Claim ; rdf:reifies <<( ex:x ex:p "from the diary" )>> ; prov:wasGeneratedBy ex:run .
      ex:kept a mem:Claim ; rdf:reifies <<( ex:x ex:p "from Sam" )>> ; mem:supportedBy ex:other .
    }}""", format="trig")
    result = P.erase(store, "https://e/diary", reason="consent revoked", graph=_TENANT_A)
    gone = {n.value for n in result.removed}
    assert {"https://e/diary", "https://e/c"} <= gone and "https://e/kept" not in gone
    assert not any(store.quads(NamedNode("https://e/c"), None, None))
    assert any(store.quads(NamedNode("https://e/kept"), None, None))
