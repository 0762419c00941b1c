"""Rights against the real server, however a query spells its graphs (docs/contract.md section 6).

Hypothesis writes the same dataset clause (``FROM``, ``FROM NAMED``, a constant ``GRAPH``) in
many spellings: full IRIs, prefixed names, a base IRI, ``\\u`` escapes inside the IRI,
comments and line breaks between the tokens, keywords in any case, and the quote pairing
``1<2&&'>'``, which a greedy lexer reads as an IRI and Oxigraph as "less
than". For another tenant's graph the server must answer 403 naming it; for the token's own
graph, the rows the embedded engine gives for the same text (with no dataset of memkg's own).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import Literal, NamedNode, Store

from tests.support.examples import LIA_GRAPH
from tests.support.endpoint_server import Server, make_store

pytestmark = pytest.mark.slow

ACME_GRAPH = "https://example.org/tenants/acme"
TENANTS_BASE = "https://example.org/tenants/"
MEM = "https://w3id.org/memkg#"


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> tuple[Server, Store]:
    folder = tmp_path_factory.mktemp("spellings")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({"lia-reader": {"tenants": [LIA_GRAPH], "write": False}}))
    running = Server(make_store(folder / "served"), "--tokens", str(tokens))
    oracle = Store.read_only(str(make_store(folder / "oracle")))
    yield running, oracle
    running.close()


def _escaped(iri: str, positions: list[int]) -> str:
    """``iri`` with the characters at ``positions`` written as ``\\uXXXX`` or ``\\UXXXXXXXX``."""
    out = []
    for at, char in enumerate(iri):
        if at in positions and char.isalnum():
            out.append(f"\\u{ord(char):04X}" if at % 2 else f"\\U{ord(char):08X}")
        else:
            out.append(char)
    return "".join(out)


@st.composite
def graph_reference(draw, graph: str) -> tuple[str, str]:
    """A prologue and a spelling of ``graph`` that, under that prologue, names it."""
    local = graph[len(TENANTS_BASE):]
    how = draw(st.sampled_from(["iri", "escaped", "prefixed", "base", "empty-prefix"]))
    if how == "iri":
        return "", f"<{graph}>"
    if how == "escaped":
        positions = draw(st.lists(st.integers(0, len(graph) - 1), min_size=1, max_size=6))
        return "", f"<{_escaped(graph, positions)}>"
    if how == "prefixed":
        return f"PREFIX t: <{TENANTS_BASE}>\n", f"t:{local}"
    if how == "empty-prefix":
        return f"prefix : <{TENANTS_BASE}> ", f":{local}"
    return f"BASE <{TENANTS_BASE}x>\n", f"<{local}>"


GAPS = st.sampled_from([" ", "\n", "\t", "  # a comment\n", " #'\n", "\r\n "])
CASES = st.sampled_from(["upper", "lower", "title"])


def _case(word: str, case: str) -> str:
    return {"upper": word.upper(), "lower": word.lower(), "title": word.title()}[case]


@st.composite
def query_naming(draw, graph: str) -> str:
    """A query whose one dataset clause or constant GRAPH names ``graph``, in some spelling."""
    prologue, ref = draw(graph_reference(graph))
    gap = draw(GAPS)
    case = draw(CASES)
    quote_trick = draw(st.booleans())
    projection = "(1<2&&'>'!='' AS ?x) ?c ?o" if quote_trick else "?c ?o"
    tail = " BIND('' AS ?z)" if quote_trick else ""
    after = " #'" if quote_trick else ""
    pattern = f"?c <{MEM}confidence> ?o"
    clause = draw(st.sampled_from(["from", "from-named", "graph"]))
    if clause == "from":
        return f"{prologue}SELECT {projection} {_case('from', case)}{gap}{ref} WHERE {{ {pattern}{tail} }}{after}"
    if clause == "from-named":
        named = f"{_case('from', case)}{gap}{_case('named', case)}{gap}{ref}"
        return f"{prologue}SELECT {projection} {named} WHERE {{ GRAPH ?g {{ {pattern} }}{tail} }}{after}"
    return f"{prologue}SELECT {projection} WHERE {{ {_case('graph', case)}{gap}{ref} {{ {pattern} }}{tail} }}{after}"


#: one module-scoped server for every example: the fixture is the same for all of them
SPELLINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _rows(server: Server, query: str) -> tuple[int, str, set[tuple[str, str]]]:
    r = server.request("GET", "/sparql?" + urlencode({"query": query}),
                       headers={"Authorization": "Bearer lia-reader", "Accept": "application/sparql-results+json"})
    if r.status != 200:
        return r.status, r.text, set()
    bindings = json.loads(r.body)["results"]["bindings"]
    return r.status, r.text, {(b["c"]["value"], b["o"]["value"]) for b in bindings}


def _oracle_rows(oracle: Store, query: str) -> set[tuple[str, str]]:
    rows = set()
    for solution in oracle.query(query):
        claim, value = solution["c"], solution["o"]
        assert isinstance(claim, NamedNode) and isinstance(value, Literal)
        rows.add((claim.value, value.value))
    return rows


@SPELLINGS
@given(query=query_naming(ACME_GRAPH))
def test_another_tenants_graph_is_403_naming_it_in_every_spelling(servers, query: str) -> None:
    server, _ = servers
    status, text, _ = _rows(server, query)
    assert status == 403, (query, status, text)
    assert ACME_GRAPH in text, (query, text)


@SPELLINGS
@given(query=query_naming(LIA_GRAPH))
def test_the_tokens_own_graph_gives_the_embedded_engines_rows_in_every_spelling(servers, query: str) -> None:
    server, oracle = servers
    status, text, rows = _rows(server, query)
    assert status == 200, (query, status, text)
    expected = _oracle_rows(oracle, query)
    assert expected, f"the oracle found nothing for {query!r}: the test's query is wrong"
    assert rows == expected, query


def test_the_spellings_reach_what_they_claim(tmp_path: Path) -> None:
    """The strategy's spellings name the graph they say, as the engine reads them."""
    oracle = Store()
    for prologue, ref in [("", f"<{_escaped(ACME_GRAPH, [0, 9, 30])}>"), (f"BASE <{TENANTS_BASE}x>\n", "<acme>"),
                          (f"PREFIX t: <{TENANTS_BASE}>\n", "t:acme")]:
        [row] = list(oracle.query(f"{prologue}SELECT ?g {{ BIND({ref} AS ?g) }}"))
        assert row["g"] == NamedNode(ACME_GRAPH)
