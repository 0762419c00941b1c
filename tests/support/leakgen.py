"""Hostile queries for tenant-isolation tests, shared by the library and endpoint tests.

A store holds three tenants (:data:`OWN`, :data:`OTHER`, :data:`THIRD`) with
disjoint marker data, plus shared data in the default graph. :func:`cases`
yields queries a token for :data:`OWN` might send to read the others' data:
``GRAPH ?g``, ``GRAPH <other>``, ``FROM``, ``FROM NAMED``, subqueries, property
paths, UNION, VALUES ?g, EXISTS, aggregates, triple terms, IRIs built at run
time, keywords run together, comments, escapes, ``SERVICE``, and the
protocol's ``default-graph-uri``/``named-graph-uri`` parameters.

Two checks catch a leak (see tests/guard/test_access.py and the endpoint tests):
* no answer contains another tenant's marker (:func:`leaks`);
* non-interference: the answers are the same over :func:`dataset` and over
  :func:`dataset` with ``other_variant=True`` (the other tenants' graphs hold
  different data), so even a leak through ``COUNT``, ``EXISTS`` or a hash shows.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Triple

OWN = "urn:tenant:a"
OTHER = "urn:tenant:b"
THIRD = "http://example.org/tenant/c"
RDF_REIFIES = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
#: A SERVICE target nobody listens on (port 1 is refused by Oxigraph's HTTP client without I/O).
SERVICE_URL = "http://127.0.0.1:1/sparql"


def _tag(graph: str) -> str:
    return {OWN: "a", OTHER: "b", THIRD: "c"}[graph]


def marker(graph: str) -> str:
    """The text every marker term of ``graph`` contains."""
    return f"secret-{_tag(graph)}-"


def dataset(*, other_variant: bool = False) -> list[Quad]:
    """The tenants' and shared quads. ``other_variant`` changes only OTHER's and THIRD's data."""
    quads = []
    for k in range(4):
        shared = NamedNode(f"urn:shared:{k}")
        quads += [Quad(shared, NamedNode("urn:p:label"), Literal(f"shared-{k}"), DefaultGraph()),
                  Quad(shared, RDF_TYPE, NamedNode("urn:c:Shared"), DefaultGraph())]
    for graph in (OWN, OTHER, THIRD):
        g = NamedNode(graph)
        tag = marker(graph)
        count = 5 if graph == OWN or not other_variant else 3
        salt = "v2" if other_variant and graph != OWN else "v1"
        for i in range(count):
            node = NamedNode(f"urn:{tag}{i}")
            value = Literal(f"{tag}{i}-{salt}")
            shared = NamedNode(f"urn:shared:{i % 4}")
            quads += [
                Quad(node, NamedNode(f"urn:p:{i % 3}"), value, g),
                Quad(node, RDF_TYPE, NamedNode("urn:c:Thing"), g),
                Quad(shared, NamedNode("urn:p:link"), node, g),
                Quad(node, NamedNode("urn:p:next"), NamedNode(f"urn:{tag}{(i + 1) % count}"), g),
                Quad(NamedNode(f"urn:{tag}claim{i}"), RDF_REIFIES, Triple(shared, NamedNode("urn:p:says"), value), g),
            ]
    return quads


@dataclass(frozen=True)
class Case:
    """One hostile request: query text and the protocol's dataset parameters."""

    query: str
    default_graph_uris: tuple[str, ...] = ()
    named_graph_uris: tuple[str, ...] = ()
    kind: str = field(default="", compare=False)  #: which template made it, for reports

    def http_params(self) -> list[tuple[str, str]]:
        """The request as SPARQL Protocol parameters (for GET or a form POST)."""
        return ([("query", self.query)] + [("default-graph-uri", g) for g in self.default_graph_uris]
                + [("named-graph-uri", g) for g in self.named_graph_uris])


def leaks(text: str) -> bool:
    """Whether an answer (serialized any way) shows another tenant's marker."""
    return marker(OTHER) in text or marker(THIRD) in text


def _iri_forms(rng: random.Random, graph: str) -> tuple[str, str]:
    """(prologue, term) naming ``graph`` in one of several spellings."""
    head, _, tail = graph.rpartition(":") if graph.startswith("urn:") else graph.rpartition("/")
    sep = ":" if graph.startswith("urn:") else "/"
    form = rng.randrange(5)
    if form == 0:
        return "", f"<{graph}>"
    if form == 1:
        return f"PREFIX t: <{head}{sep}> ", f"t:{tail}"
    if form == 2:
        return f"BASE <{head}{sep}> ", f"<{tail}>"
    if form == 3:  # an escaped character inside the IRI
        return "", f"<{head}{sep}\\u{ord(tail[0]):04X}{tail[1:]}>"
    return "# a comment <" + graph + ">\n", f"<{graph}>"


def _graph_pattern(rng: random.Random, g: str, body: str) -> str:
    return f"GRAPH {g} {{ {body} }}"


def _body(rng: random.Random) -> str:
    return rng.choice([
        "?s ?p ?o",
        "?s <urn:p:0> ?o",
        "?s (<urn:p:next>)+ ?o",
        "?s !(<urn:p:zzz>) ?o",
        "?s ^<urn:p:link> ?o",
        "?s (<urn:p:next>|<urn:p:link>)* ?o",
        "?o ^(<urn:p:link>/<urn:p:next>) ?s",
        "?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ?s ?p ?o )>>",
        "?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t BIND(OBJECT(?t) AS ?o) BIND(SUBJECT(?t) AS ?s)",
        "?s ?p ?o FILTER(CONTAINS(STR(?o), \"secret\"))",
    ])


def cases(n: int, *, seed: int = 0) -> Iterator[Case]:
    """``n`` hostile queries for a token of :data:`OWN`, deterministic for a seed."""
    rng = random.Random(seed)
    for _ in range(n):
        yield _case(rng)


def _case(rng: random.Random) -> Case:
    victim = rng.choice([OTHER, THIRD])
    target = rng.choice([victim, victim, OWN])
    prologue, gterm = _iri_forms(rng, target)
    body = _body(rng)
    kind = rng.randrange(22)
    kw = rng.choice(["FROM", "from", "From", "fRoM"])
    if kind == 0:
        q = f"SELECT * WHERE {{ GRAPH ?g {{ {body} }} }}"
    elif kind == 1:
        q = f"{prologue}SELECT * WHERE {{ {_graph_pattern(rng, gterm, body)} }}"
    elif kind == 2:
        q = f"{prologue}SELECT * {kw} {gterm} WHERE {{ {body} }}"
    elif kind == 3:
        q = f"{prologue}SELECT * {kw} NAMED {gterm} WHERE {{ GRAPH ?g {{ {body} }} }}"
    elif kind == 4:
        q = f"SELECT * WHERE {{ {{ SELECT ?s ?o WHERE {{ GRAPH ?g {{ {body} }} }} }} }}"
    elif kind == 5:
        q = f"{prologue}SELECT * WHERE {{ {{ {body} }} UNION {{ GRAPH {gterm} {{ {body} }} }} }}"
    elif kind == 6:
        q = f"SELECT * WHERE {{ VALUES ?g {{ <{OWN}> <{OTHER}> <{THIRD}> }} GRAPH ?g {{ {body} }} }}"
    elif kind == 7:
        q = f"{prologue}SELECT ?x WHERE {{ VALUES ?x {{ 1 }} FILTER EXISTS {{ GRAPH {gterm} {{ {body} }} }} }}"
    elif kind == 8:
        q = f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ {body} }} }} GROUP BY ?g"
    elif kind == 9:
        q = f"{prologue}ASK {{ GRAPH {gterm} {{ {body} }} }}"
    elif kind == 10:
        q = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"
    elif kind == 11:
        q = f"DESCRIBE <urn:{marker(victim)}{rng.randrange(3)}>"
    elif kind == 12:
        q = f"SELECT * WHERE {{ BIND(IRI(CONCAT(\"{target[:-1]}\", \"{target[-1]}\")) AS ?g) GRAPH ?g {{ {body} }} }}"
    elif kind == 13:
        q = f"SELECT ?h WHERE {{ GRAPH ?g {{ ?s ?p ?o }} BIND(MD5(STR(?o)) AS ?h) }}"
    elif kind == 14:  # keywords run together, as Oxigraph accepts them
        q = rng.choice([
            f"SELECT * FROM<{target}>WHERE{{ {body} }}",
            f"SELECT * FROMNAMED<{target}> WHERE {{ GRAPH ?g {{ {body} }} }}",
            f"PREFIX : <{target}> SELECT * FROM:x WHERE {{ {body} }}",
            f"SELECT * FROM #c\n <{target}> WHERE {{ {body} }}",
        ])
    elif kind == 15:  # SERVICE in many spellings: never allowed for a tenant token
        q = rng.choice([
            f"SELECT * WHERE {{ SERVICE <{SERVICE_URL}> {{ {body} }} }}",
            f"SELECT * WHERE {{ service silent <{SERVICE_URL}> {{ {body} }} }}",
            f"PREFIX : <{SERVICE_URL}#> SELECT * WHERE {{ SERVICE:x {{ {body} }} }}",
            f"SELECT * WHERE {{ SERVICESILENT<{SERVICE_URL}> {{ {body} }} }}",
            f"SELECT * WHERE {{ ?s ?p true SERVICE <{SERVICE_URL}> {{ ?a ?b ?c }} }}",
        ])
    elif kind == 16:
        q = f"SELECT * WHERE {{ ?s ?p ?o OPTIONAL {{ GRAPH ?g {{ {body} }} }} }}"
    elif kind == 17:
        q = f"SELECT * WHERE {{ GRAPH ?g {{ ?s ?p ?o }} MINUS {{ GRAPH <{OWN}> {{ ?s ?p ?o }} }} }}"
    elif kind == 18:
        q = f"SELECT * WHERE {{ ?s <urn:p:link> ?o . GRAPH ?g {{ ?o ?p ?v }} }}"
    elif kind == 19:
        q = f"SELECT ?o WHERE {{ ?s ?p ?o }}"  # only protocol parameters differ
    elif kind == 20:
        q = f"SELECT * WHERE {{ GRAPH ?g {{ ?r ?p ?t FILTER(isTRIPLE(?t)) }} }}"
    else:
        q = f"SELECT (GROUP_CONCAT(STR(?o)) AS ?all) WHERE {{ GRAPH ?g {{ {body} }} }}"
    default: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    protocol = rng.randrange(6)
    if protocol == 1:
        default = (target,)
    elif protocol == 2:
        named = (target,)
    elif protocol == 3:
        default, named = (OWN,), (OWN, target)
    return Case(q, default, named, kind=str(kind))


def update_cases(n: int, *, seed: int = 0) -> Iterator[str]:
    """``n`` hostile SPARQL updates for a writing token of :data:`OWN`.

    Each tries to copy another tenant's data into OWN's graph (where OWN could
    then read it) or to change another tenant's graph or the shared default
    graph. After applying them (each either refused or confined), OWN's graph
    must hold no marker of the others (:func:`leaks`) and the other graphs and
    the default graph must be unchanged.
    """
    rng = random.Random(seed)
    for _ in range(n):
        yield _update_case(rng)


def _update_case(rng: random.Random) -> str:
    victim = rng.choice([OTHER, THIRD])
    prologue, vterm = _iri_forms(rng, victim)
    body = _body(rng)
    own = f"<{OWN}>"
    copy = f"GRAPH {own} {{ <urn:leak> <urn:p:got> ?o }}"
    kind = rng.randrange(12)
    if kind == 0:
        return f"INSERT {{ {copy} }} WHERE {{ GRAPH ?g {{ {body} }} }}"
    if kind == 1:
        return f"{prologue}INSERT {{ {copy} }} WHERE {{ GRAPH {vterm} {{ {body} }} }}"
    if kind == 2:
        return f"{prologue}INSERT {{ {copy} }} USING {vterm} WHERE {{ {body} }}"
    if kind == 3:
        return f"{prologue}INSERT {{ {copy} }} USING NAMED {vterm} WHERE {{ GRAPH ?g {{ {body} }} }}"
    if kind == 4:
        return f"{prologue}WITH {vterm} INSERT {{ {copy} }} WHERE {{ {body} }}"
    if kind == 5:
        return f"{prologue}{rng.choice(['ADD', 'COPY', 'MOVE'])} {rng.choice(['', 'SILENT '])}{vterm} TO {own}"
    if kind == 6:
        return f"{prologue}{rng.choice(['ADD', 'COPY', 'MOVE'])} {own} TO {vterm}"
    if kind == 7:
        return f"{prologue}{rng.choice(['CLEAR', 'DROP'])} {rng.choice(['', 'SILENT '])}{rng.choice(['ALL', 'DEFAULT', 'GRAPH ' + vterm])}"
    if kind == 8:
        return f"DELETE WHERE {{ {rng.choice(['?s ?p ?o', 'GRAPH ?g { ?s ?p ?o }'])} }}"
    if kind == 9:
        return (f"INSERT {{ GRAPH ?g {{ <urn:leak> <urn:p:x> 1 }} }} WHERE {{ VALUES ?g {{ <{OWN}> <{victim}> }} }}")
    if kind == 10:
        return f"INSERT {{ {copy} }} WHERE {{ SERVICE <{SERVICE_URL}> {{ {body} }} }}"
    return (f"{prologue}INSERT DATA {{ GRAPH {own} {{ <urn:x> <urn:p:y> 1 }} }} ; "
            f"INSERT {{ {copy} }} WHERE {{ {{ GRAPH ?g {{ {body} }} }} UNION {{ GRAPH {vterm} {{ {body} }} }} }}")
