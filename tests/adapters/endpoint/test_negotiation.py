"""Content negotiation for the endpoint: q-values, specificity, the server's preference, 406."""

from __future__ import annotations

import pytest

from memkg.adapters.endpoint import negotiation as neg


def pick(accept: str | None, candidates=neg.TABLE_FORMATS, override: str | None = None) -> str:
    return neg.choose(accept, candidates, override=override).name


@pytest.mark.parametrize(
    "accept, expected",
    [
        (None, "json"),
        ("", "json"),
        ("*/*", "json"),
        ("text/*", "csv"),  # the first text format in the server's order
        ("text/csv, application/sparql-results+json", "json"),  # equal q: the server's preference
        ("text/csv, application/sparql-results+json;q=0.8", "csv"),
        ("application/sparql-results+xml;q=0.2, text/tab-separated-values;q=0.3", "tsv"),
        ("application/json", "json"),
        ("text/xml", "xml"),
        ("*/*;q=0.1, text/csv;q=0", "json"),
        ("text/*;q=1, text/csv;q=0", "tsv"),  # the specific range's q=0 beats the broad range
        ("APPLICATION/SPARQL-RESULTS+XML", "xml"),  # media types are case-insensitive
        ("text/csv; charset=utf-8; q=0.9, nonsense, */*;q=0.1", "csv"),  # malformed ranges are ignored
        ("*", "json"),
    ],
)
def test_table_formats(accept: str | None, expected: str) -> None:
    assert pick(accept) == expected


@pytest.mark.parametrize(
    "accept, expected",
    [
        ("*/*", "turtle"),
        ("application/n-triples", "ntriples"),
        ("text/plain", "ntriples"),
        ("application/trig;q=0.9, application/n-quads", "nquads"),
        ("application/rdf+xml", "rdfxml"),
        ("application/turtle,text/turtle,text/rdf+n3", "turtle"),  # SPARQLWrapper's Accept for Turtle
    ],
)
def test_graph_formats(accept: str, expected: str) -> None:
    assert pick(accept, neg.GRAPH_FORMATS) == expected


def test_nothing_fitting_is_not_acceptable() -> None:
    with pytest.raises(neg.NotAcceptable, match="available: application/sparql-results"):
        pick("image/png")
    with pytest.raises(neg.NotAcceptable):
        pick("text/turtle")  # a graph format, for a table
    with pytest.raises(neg.NotAcceptable):
        pick("application/sparql-results+json;q=0")
    assert not neg.accepts_any("image/png, text/html")
    assert neg.accepts_any("text/turtle")


def test_format_parameter_overrides_accept_when_it_fits_the_answer() -> None:
    assert pick("application/sparql-results+json", override="csv") == "csv"
    assert pick(None, override="text/tab-separated-values") == "tsv"
    assert pick("text/csv", override="turtle") == "csv"  # not a table format: Accept decides
    assert pick("text/turtle", neg.GRAPH_FORMATS, override="n3") == "turtle"  # a name we do not write


def test_content_type_names_the_charset_of_text() -> None:
    assert neg.content_type(neg.by_name("csv", neg.TABLE_FORMATS)) == "text/csv; charset=utf-8"
    assert neg.content_type(neg.by_name("json", neg.TABLE_FORMATS)) == "application/sparql-results+json"
