"""Real SPARQL clients against a running ``memkg serve``: SPARQLWrapper and rdflib's SPARQLStore."""

from __future__ import annotations

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLUpdateStore

from tests.support.examples import EX, LIA_GRAPH
from tests.support.endpoint_server import Server

pytestmark = pytest.mark.slow

SPARQLWrapper = pytest.importorskip(
    "SPARQLWrapper", reason="SPARQLWrapper is in the 'test' extra: pip install -e '.[test]'"
)

CLAIMS_ABOUT_LIA = f"""PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
SELECT ?c ?p WHERE {{ GRAPH <{LIA_GRAPH}> {{ ?c rdf:reifies <<( <{EX}Lia> ?p ?o )>> }} }} ORDER BY ?c"""


def test_sparqlwrapper_queries_and_updates(server: Server) -> None:
    from SPARQLWrapper import JSON, N3, POST, XML, SPARQLWrapper as Client

    client = Client(f"{server.url}/sparql", updateEndpoint=f"{server.url}/update")
    client.setQuery(CLAIMS_ABOUT_LIA)
    client.setReturnFormat(JSON)
    rows = client.query().convert()["results"]["bindings"]
    assert EX + "c0" in {r["c"]["value"] for r in rows}

    client.setReturnFormat(XML)  # SPARQL XML results, read by minidom
    xml = client.query().convert()
    assert EX + "c0" in {u.firstChild.data for u in xml.getElementsByTagName("uri")}

    client.setQuery(f"CONSTRUCT {{ ?p a ?t }} WHERE {{ GRAPH <{LIA_GRAPH}> {{ ?p a ?t FILTER(?p = <{EX}Lia>) }} }}")
    client.setReturnFormat(N3)  # Turtle, parsed by rdflib
    graph = Graph().parse(data=client.query().convert(), format="turtle")
    assert (URIRef(EX + "Lia"), None, None) in graph

    client.setMethod(POST)
    client.setQuery("INSERT DATA { GRAPH <urn:test:wrapper> { <urn:test:w> <urn:test:p> 'from SPARQLWrapper' } }")
    client.query()
    client.setQuery("SELECT ?o WHERE { GRAPH <urn:test:wrapper> { <urn:test:w> <urn:test:p> ?o } }")
    client.setReturnFormat(JSON)
    assert [r["o"]["value"] for r in client.query().convert()["results"]["bindings"]] == ["from SPARQLWrapper"]


def test_rdflib_sparql_store_queries_and_updates(server: Server) -> None:
    store = SPARQLUpdateStore(f"{server.url}/sparql", f"{server.url}/update")
    try:
        rows = list(store.query(CLAIMS_ABOUT_LIA, initNs={}, initBindings={}, queryGraph="__UNION__", DEBUG=False))
        assert URIRef(EX + "c0") in {row[0] for row in rows}

        # A graph of the store, written and read through rdflib's Graph API.
        graph = Graph(store, identifier=URIRef("urn:test:rdflib"))
        graph.add((URIRef("urn:test:r"), URIRef("urn:test:p"), Literal("from rdflib")))
        graph.add((URIRef("urn:test:r"), URIRef("urn:test:p"), Literal(2)))
        assert len(graph) == 2
        assert set(graph.objects(URIRef("urn:test:r"), URIRef("urn:test:p"))) == {Literal("from rdflib"), Literal(2)}
        graph.remove((URIRef("urn:test:r"), URIRef("urn:test:p"), Literal(2)))
        assert list(graph.objects(URIRef("urn:test:r"), URIRef("urn:test:p"))) == [Literal("from rdflib")]
        store.update("INSERT DATA { GRAPH <urn:test:rdflib> { <urn:test:r> <urn:test:q> 3 } }")
        assert len(graph) == 2
    finally:
        store.close()
    # What rdflib wrote, the server's own protocol reads back.
    back = server.query("SELECT ?o WHERE { GRAPH <urn:test:rdflib> { <urn:test:r> ?p ?o } } ORDER BY ?o", "text/csv")
    assert back.text.split() == ["o", "3", "from", "rdflib"]
