"""Small helpers: shapes and data from Turtle snippets, results as plain tuples."""

from __future__ import annotations

from collections import Counter

from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Store, parse

from memkg.shacl import Shapes, ValidationReport

EX = "http://example.org/"
PREFIXES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
"""


def ex(name: str) -> NamedNode:
    return NamedNode(EX + name)


def shapes(ttl: str) -> Shapes:
    return Shapes.from_quads(parse((PREFIXES + ttl).encode(), format=RdfFormat.TURTLE))


def store(ttl: str, graph: str | None = None) -> Store:
    s = Store()
    s.load((PREFIXES + ttl).encode(), format=RdfFormat.TURTLE, to_graph=NamedNode(graph) if graph else None)
    return s


def short(term) -> str:
    if term is None:
        return "-"
    if isinstance(term, NamedNode):
        return term.value.replace(EX, "ex:").replace("http://www.w3.org/ns/shacl#", "sh:")
    if isinstance(term, BlankNode):
        return "_:"
    if isinstance(term, Literal):
        if term.datatype.value.rsplit("#", 1)[-1] in ("integer", "decimal", "boolean", "double") and not term.language:
            return term.value
        return str(term)
    return str(term)


def rows(report: ValidationReport) -> Counter:
    """(focus, value, component) of every result, as a multiset of short strings."""
    return Counter(
        (short(r.focus), short(r.value), short(r.component).removeprefix("sh:").removesuffix("ConstraintComponent"))
        for r in report.results
    )


def check(shapes_ttl: str, data_ttl: str, **kwargs) -> Counter:
    return rows(shapes(shapes_ttl).validate(store(data_ttl), **kwargs))
