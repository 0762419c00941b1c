"""SPARQL in a shapes file that uses the file's ``@prefix`` declarations instead of ``sh:prefixes``.

pySHACL lets a constraint, a target, a function, a rule or a node expression use the prefixes
its shapes file declares; SHACL §5.2.1 asks for ``sh:prefixes``/``sh:declare``. memkg borrows the
file's declaration, with one warning per prefix naming the first shape that used it, and with
``strict_prefixes`` refuses it as before. Each borrowing case is checked against the same
shapes with the prefix declared the standard way: the same results.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import NamedNode, RdfFormat, parse

from memkg.shacl import ShapeError, Shapes

from .helpers import PREFIXES, ex, store

DECLARED = "ex:G a sh:ShapesGraph ; sh:declare [ sh:prefix 'ex' ; sh:namespace 'http://example.org/'^^xsd:anyURI ] .\n"
DATA = "ex:a a ex:T ; ex:p 1, 5 . ex:b a ex:T ; ex:p 2 . ex:c ex:q ex:a ."

#: One shapes graph per place SPARQL is written in a shapes graph, each using ``ex:`` undeclared.
CASES = {
    "constraint": """
        ex:S sh:targetClass ex:T ;
          sh:sparql [ sh:select "SELECT $this ?value WHERE { $this ex:p ?value FILTER(?value > 2) }" ] .""",
    "target": """
        ex:S sh:target [ a sh:SPARQLTarget ; sh:select "SELECT ?this WHERE { ?x ex:q ?this }" ] ;
          sh:property [ sh:path ex:p ; sh:maxCount 1 ] .""",
    "component": """
        ex:Max a sh:ConstraintComponent ; sh:parameter [ sh:path ex:limit ] ;
          sh:validator [ a sh:SPARQLAskValidator ; sh:ask "ASK { FILTER($value <= $limit || NOT EXISTS { $this ex:p $value }) }" ] .
        ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; ex:limit 2 ] .""",
    "function": """
        ex:twice a sh:SPARQLFunction ; sh:parameter [ sh:path ex:n ] ; sh:returnType xsd:integer ;
          sh:select "SELECT ?r WHERE { BIND(2 * $n AS ?r) FILTER(EXISTS { ?s ex:p $n }) }" .
        ex:S sh:targetClass ex:T ;
          sh:sparql [ sh:prefixes ex:G ; sh:select "SELECT $this ?value WHERE { $this <http://example.org/p> ?value FILTER(<http://example.org/twice>(?value) > 4) }" ] .""",
    "node expression": """
        ex:S sh:targetNode [ sh:select "SELECT ?n WHERE { ?n ex:p 2 }" ] ; sh:property [ sh:path ex:p ; sh:minCount 2 ] .""",
}


def _quads(ttl: str):
    parser = parse((PREFIXES + ttl).encode(), format=RdfFormat.TURTLE)
    return list(parser), {p: [ns] for p, ns in parser.prefixes.items()}


def _results(shapes: Shapes) -> set[tuple[str, str]]:
    return {(str(r.focus), str(r.value)) for r in shapes.validate(store(DATA)).results}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sparql_borrows_the_files_prefix_with_the_declared_results(case: str) -> None:
    quads, prefixes = _quads(CASES[case])
    borrowed = Shapes.from_quads(quads, file_prefixes=prefixes)
    declared = Shapes.from_quads(_quads(DECLARED + CASES[case])[0])
    assert _results(borrowed) == _results(declared)
    assert _results(borrowed), "the case must report something, or it proves nothing"
    assert len(borrowed.warnings) == 1 and "'ex'" in borrowed.warnings[0] and "http://example.org/" in borrowed.warnings[0]
    assert declared.warnings == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_strict_prefixes_refuse_the_files_prefix_naming_it(case: str) -> None:
    quads, prefixes = _quads(CASES[case])
    with pytest.raises(ShapeError, match="undeclared prefix 'ex'"):
        Shapes.from_quads(quads, file_prefixes=prefixes, strict_prefixes=True)


def test_a_rule_borrows_the_files_prefix() -> None:
    quads, prefixes = _quads("""
        ex:S sh:targetClass ex:T ; sh:rule [ a sh:SPARQLRule ; sh:construct "CONSTRUCT { $this ex:r true } WHERE { $this ex:p 2 }" ] .""")
    shapes = Shapes.from_quads(quads, file_prefixes=prefixes)
    data = store(DATA)
    assert shapes.apply_rules(data, into=ex("inferred")) == 1
    assert [str(q.subject) for q in data.quads_for_pattern(None, ex("r"), None)] == ["<http://example.org/b>"]
    assert len(shapes.warnings) == 1 and shapes.warnings[0].startswith("shape <http://example.org/S>")


def test_one_warning_per_prefix_naming_the_shapes_that_use_it() -> None:
    quads, prefixes = _quads("""
        ex:A sh:targetClass ex:T ; sh:sparql [ sh:select "SELECT $this WHERE { $this ex:p 9 }" ] .
        ex:B sh:targetClass ex:T ; sh:sparql [ sh:select "SELECT $this WHERE { $this ex:p 8 ; rdfs:label ?l }" ] .""")
    warnings = Shapes.from_quads(quads, file_prefixes=prefixes).warnings
    assert sorted(w.split("'")[1] for w in warnings) == ["ex", "rdfs"]
    shape_of = {w.split("'")[1]: w.split(": SPARQL", 1)[0] for w in warnings}
    assert shape_of == {"ex": "shapes <http://example.org/A>, <http://example.org/B>", "rdfs": "shape <http://example.org/B>"}


def test_declarations_and_the_querys_own_prefixes_win_over_the_file() -> None:
    # The file binds ex: elsewhere; sh:prefixes and the query's PREFIX line are what count, silently.
    text = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://elsewhere.example/> .
      @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
      <http://example.org/G> sh:declare [ sh:prefix 'e' ; sh:namespace 'http://example.org/'^^xsd:anyURI ] .
      <http://example.org/S> sh:targetClass <http://example.org/T> ;
        sh:sparql [ sh:prefixes <http://example.org/G> ; sh:select "SELECT $this ?value WHERE { $this e:p ?value FILTER(?value > 4) }" ] ;
        sh:sparql [ sh:select "PREFIX ex: <http://example.org/> SELECT $this ?value WHERE { $this ex:p ?value FILTER(?value < 2) }" ] ."""
    parser = parse(text.encode(), format=RdfFormat.TURTLE)
    shapes = Shapes.from_quads(list(parser), file_prefixes={p: [ns] for p, ns in parser.prefixes.items()})
    assert sorted(str(r.value) for r in shapes.validate(store(DATA)).results) == [
        '"1"^^<http://www.w3.org/2001/XMLSchema#integer>', '"5"^^<http://www.w3.org/2001/XMLSchema#integer>']
    assert shapes.warnings == []


def test_two_files_binding_the_prefix_differently_are_refused_naming_both() -> None:
    quads, _ = _quads(CASES["constraint"])
    with pytest.raises(ShapeError, match="two namespaces") as err:
        Shapes.from_quads(quads, file_prefixes={"ex": ["http://example.org/", "http://other.example/"]})
    assert "http://other.example/" in str(err.value) and "<http://example.org/S>" in str(err.value)


def test_a_prefix_no_file_declares_is_still_refused() -> None:
    quads, prefixes = _quads("""ex:S sh:targetClass ex:T ; sh:sparql [ sh:select "SELECT $this WHERE { $this nope:p 1 }" ] .""")
    with pytest.raises(ShapeError, match="undeclared prefix 'nope'"):
        Shapes.from_quads(quads, file_prefixes=prefixes)


def test_from_file_reads_the_files_prefixes(tmp_path: Path) -> None:
    path = tmp_path / "shapes.ttl"
    path.write_text(PREFIXES + CASES["constraint"])
    shapes = Shapes.from_file(path)
    assert [str(r.focus) for r in shapes.validate(store(DATA)).results] == ["<http://example.org/a>"]
    assert len(shapes.warnings) == 1
    with pytest.raises(ShapeError, match="undeclared prefix"):
        Shapes.from_file(path, strict_prefixes=True)
    assert NamedNode("http://example.org/S") in set(shapes)
