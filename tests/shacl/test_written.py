"""Literals judged as written (issue 15): a pyoxigraph store rewrites typed literals
("5"^^xsd:int -> xsd:integer, "01" -> "1", "1.50" -> "1.5", ".000Z" -> "Z",
"300"^^xsd:byte -> a valid xsd:integer); the engine judges what the input wrote."""

from __future__ import annotations


from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, RdfFormat, parse

from memkg.shacl import Shapes, WrittenForms
from memkg.shacl.vocab import XSD_NS
from memkg.shacl.written import stored_forms, suspect

PREFIXES = b"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""


def report(shape: str, data: str):
    shapes = Shapes.from_quads(parse(PREFIXES + shape.encode(), format=RdfFormat.TURTLE))
    return shapes.validate_quads(parse(PREFIXES + data.encode(), format=RdfFormat.TURTLE))


def values(rep) -> list[str]:
    return sorted(str(r.value) for r in rep.results)


def prop(constraint: str) -> str:
    return f"ex:S sh:targetSubjectsOf ex:p ; sh:property [ sh:path ex:p ; {constraint} ] ."


def test_derived_integer_types_keep_their_datatype() -> None:
    assert report(prop("sh:datatype xsd:int"), 'ex:a ex:p "5"^^xsd:int .').conforms
    assert values(report(prop("sh:datatype xsd:integer"), 'ex:a ex:p "5"^^xsd:int .')) == [
        f'"5"^^<{XSD_NS}int>']
    for dt, lexical in (("negativeInteger", "-5"), ("short", "12"), ("unsignedByte", "255"), ("long", "-7")):
        assert report(prop(f"sh:datatype xsd:{dt}"), f'ex:a ex:p "{lexical}"^^xsd:{dt} .').conforms, dt


def test_ill_typed_literal_is_a_violation_named_as_written() -> None:
    rep = report(prop("sh:datatype xsd:byte"), 'ex:a ex:p "300"^^xsd:byte .')
    assert values(rep) == [f'"300"^^<{XSD_NS}byte>']


def test_distinct_lexical_forms_count_as_distinct_values() -> None:
    assert values(report(prop("sh:maxCount 1"), 'ex:a ex:p 1, "01"^^xsd:integer .')) == ["None"]
    assert report(prop("sh:minCount 2"), 'ex:a ex:p 1, "01"^^xsd:integer .').conforms


def test_string_constraints_read_the_lexical_form() -> None:
    assert report(prop("sh:minLength 2"), 'ex:a ex:p "01"^^xsd:integer .').conforms
    assert report(prop('sh:pattern "\\\\.000Z$"'), 'ex:a ex:p "2020-01-01T00:00:00.000Z"^^xsd:dateTime .').conforms
    assert values(report(prop("sh:maxLength 3"), 'ex:a ex:p "1.50"^^xsd:decimal .')) == [f'"1.50"^^<{XSD_NS}decimal>']


def test_in_and_has_value_compare_terms_not_values() -> None:
    assert values(report(prop('sh:in ( "1"^^xsd:boolean )'), "ex:a ex:p true .")) == [f'"true"^^<{XSD_NS}boolean>']
    assert report(prop('sh:in ( "1"^^xsd:boolean )'), 'ex:a ex:p "1"^^xsd:boolean .').conforms
    assert not report(prop("sh:hasValue 1"), 'ex:a ex:p "01"^^xsd:integer .').conforms
    assert not report(prop('sh:hasValue "01"^^xsd:integer'), "ex:a ex:p 1 .").conforms
    assert report(prop('sh:hasValue "01"^^xsd:integer'), 'ex:a ex:p "01"^^xsd:integer .').conforms


def test_ranges_compare_values_and_report_the_written_form() -> None:
    assert values(report(prop("sh:maxInclusive 3"), "ex:a ex:p 4.0 .")) == [f'"4.0"^^<{XSD_NS}decimal>']
    assert report(prop("sh:minInclusive 1"), 'ex:a ex:p "01"^^xsd:integer .').conforms
    assert not report(prop("sh:minInclusive 1"), 'ex:a ex:p "300"^^xsd:byte .').conforms  # ill-typed: no value


def test_logical_members_see_the_written_datatype() -> None:
    shape = prop("sh:or ( [ sh:datatype xsd:int ] [ sh:datatype xsd:string ] )")
    assert report(shape, 'ex:a ex:p "5"^^xsd:int .').conforms
    assert not report(shape, "ex:a ex:p 5 .").conforms


def test_literal_focus_nodes_are_named_as_written() -> None:
    rep = report('ex:S sh:targetObjectsOf ex:p ; sh:datatype xsd:string .', 'ex:a ex:p "01"^^xsd:integer .')
    assert [str(r.focus) for r in rep.results] == [f'"01"^^<{XSD_NS}integer>']
    rep = report('ex:S sh:targetNode "5"^^xsd:int ; sh:datatype xsd:int .', "")
    assert rep.conforms


def test_pair_constraints_compare_terms_as_written() -> None:
    shape = "ex:S sh:targetSubjectsOf ex:p ; sh:property [ sh:path ex:p ; sh:equals ex:q ] ."
    assert not report(shape, 'ex:a ex:p 1 ; ex:q "01"^^xsd:integer .').conforms
    assert report(shape, 'ex:a ex:p "01"^^xsd:integer ; ex:q "01"^^xsd:integer .').conforms


# -- the probe: which literals a store rewrites -------------------------------------------

LEXICAL = {
    "boolean": ["true", "false", "1", "0"],
    "integer": ["5", "-5", "0", "01", "+1", "-0", "00", "123456789012345678901234"],
    "decimal": ["1.5", "1.50", "1.", "+1.0", "01.0", ".5", "-0.0", "1", "-0.5", "0.95", "1.0", "100", "-0"],
    "float": ["1.0", "1E0", "1", "INF", "NaN", "-0", "1.5", "0.1"],
    "double": ["1.0", "1E0", "1e0", "1", "INF", "-INF", "NaN", "1.5"],
    "dateTime": ["2020-01-01T00:00:00Z", "2020-01-01T00:00:00.000Z", "2020-01-01T00:00:00.5Z",
                 "2020-01-01T00:00:00+00:00", "2020-01-01T00:00:00-00:00", "2020-01-01T00:00:00+01:00",
                 "2020-01-01T00:00:00", "2020-01-01T24:00:00Z", "2020-13-01T00:00:00Z", "0020-01-01T00:00:00Z"],
    "dateTimeStamp": ["2020-01-01T00:00:00Z"],
    "date": ["2020-01-01", "2020-01-01Z", "2020-01-01+00:00", "2020-01-01+02:00"],
    "time": ["10:00:00", "10:00:00.0", "10:00:00.5", "10:00:00Z", "24:00:00"],
    "duration": ["P1D", "PT24H", "P0D", "PT0S", "P1Y2M"],
    "dayTimeDuration": ["P1D", "PT24H"], "yearMonthDuration": ["P1Y", "P12M"],
    "gYear": ["2020", "02020"], "gYearMonth": ["2020-01"], "gMonthDay": ["--01-01"], "gDay": ["---01"],
    "gMonth": ["--01"],
    **{dt: ["5", "01", "-1", "300", "0"] for dt in (
        "int", "byte", "short", "long", "nonNegativeInteger", "negativeInteger", "positiveInteger",
        "nonPositiveInteger", "unsignedByte", "unsignedShort", "unsignedInt", "unsignedLong")},
    "string": ["01", " x "], "hexBinary": ["ab", "AB"], "base64Binary": ["YQ=="], "anyURI": ["http://e"],
    "token": ["a"], "language": ["EN"], "NCName": ["a"],
}


def test_probe_every_rewritten_literal_is_suspect() -> None:
    """What the store rewrites (measured on the pyoxigraph in use) is always caught by
    ``suspect()``, the cheap test that spares the store round trip for the rest."""
    literals = [Literal(lex, datatype=NamedNode(XSD_NS + dt)) for dt, forms in LEXICAL.items() for lex in forms]
    stored = stored_forms(literals)
    rewritten = [lit for lit in literals if stored[lit] != lit]
    assert {lit.datatype.value[len(XSD_NS):] for lit in rewritten} >= {"int", "integer", "decimal", "dateTime", "boolean"}
    assert all(suspect(lit) for lit in rewritten), [lit for lit in rewritten if not suspect(lit)]
    kept_canonical = [lit for lit in literals if not suspect(lit)]
    assert kept_canonical, "the fast path spares something"


def test_written_forms_record_only_rewritten_quads() -> None:
    s, p = NamedNode("http://e/s"), NamedNode("http://e/p")
    quads = [Quad(s, p, Literal(lex, datatype=NamedNode(XSD_NS + "integer")), DefaultGraph()) for lex in ("1", "2", "03")]
    written = WrittenForms.of(quads)
    assert len(written) == 1
    assert sorted(t.value for t in written.values([DefaultGraph()], s, p)) == ["03", "1", "2"]
    assert not WrittenForms.of(quads[:2])
