"""Differential test: on random small graphs, the engine agrees with pySHACL on SHACL Core.

pySHACL is an independent implementation (rdflib-based); agreement on random data is
evidence beyond the W3C suite. Blank nodes are compared as "_:" (the two libraries
name them differently)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from pyoxigraph import BlankNode, RdfFormat, Store, serialize

from .helpers import PREFIXES, shapes
from .test_focus import graphs

pytestmark = pytest.mark.slow

pyshacl = pytest.importorskip("pyshacl")
rdflib = pytest.importorskip("rdflib")

SHAPES_TTL = """
ex:S1 a sh:NodeShape ; sh:targetClass ex:A ;
  sh:property [ sh:path ex:p ; sh:minCount 1 ; sh:maxCount 2 ; sh:nodeKind sh:BlankNodeOrIRI ; sh:class ex:B ] ;
  sh:property [ sh:path ex:q ; sh:datatype xsd:integer ; sh:maxInclusive 3 ; sh:uniqueLang true ; sh:minLength 1 ] ;
  sh:property [ sh:path [ sh:inversePath ex:p ] ; sh:maxCount 1 ; sh:disjoint ex:q ] ;
  sh:property [ sh:path ( ex:p ex:q ) ; sh:in ( 1 "x" ) ; sh:languageIn ( "en" ) ] ;
  sh:property [ sh:path ex:p ; sh:qualifiedValueShape [ sh:class ex:A ] ; sh:qualifiedMaxCount 1 ] .
ex:S2 a sh:NodeShape ; sh:targetSubjectsOf ex:q ;
  sh:or ( [ sh:class ex:A ] [ sh:nodeKind sh:BlankNode ] ) ;
  sh:not [ sh:path ex:p ; sh:hasValue ex:n0 ] ;
  sh:closed true ; sh:ignoredProperties ( rdf:type ex:q ex:p ) .
ex:S3 a sh:PropertyShape ; sh:targetObjectsOf ex:p ; sh:path [ sh:zeroOrMorePath ex:p ] ; sh:maxCount 3 ; sh:equals ex:r .
ex:S4 a sh:NodeShape ; sh:targetNode ex:n1, ex:n2 ; sh:xone ( [ sh:class ex:A ] [ sh:class ex:B ] ) ;
  sh:and ( [ sh:path ex:r ; sh:maxCount 1 ] [ sh:path ex:q ; sh:pattern "^[0-9]" ] ) .
"""
OURS = shapes(SHAPES_TTL)
THEIRS = rdflib.Graph().parse(data=PREFIXES + SHAPES_TTL, format="turtle")
SH = "http://www.w3.org/ns/shacl#"


def name(term) -> str:
    if term is None:
        return "-"
    if isinstance(term, (BlankNode, rdflib.BNode)):
        return "_:"
    if isinstance(term, rdflib.Literal):
        return rdflib.Literal(term).n3().replace("<http://www.w3.org/2001/XMLSchema#string>", "").replace("^^", "")
    if isinstance(term, rdflib.URIRef):
        return f"<{term}>"
    s = str(term)
    return s.replace("^^<http://www.w3.org/2001/XMLSchema#string>", "").replace("^^", "")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_agrees_with_pyshacl(quads) -> None:
    store = Store()
    store.extend(quads)
    ours = Counter(
        (name(r.focus), name(r.value), name(r.source_shape), str(r.component)) for r in OURS.validate(store).results
    )
    data = rdflib.Graph().parse(data=serialize([q.triple for q in store], format=RdfFormat.N_TRIPLES), format="nt")
    conforms, report, _ = pyshacl.validate(data, shacl_graph=THEIRS, advanced=False, inference="none")
    sh = rdflib.Namespace(SH)
    theirs = Counter()
    for res in report.subjects(rdflib.RDF.type, sh.ValidationResult):
        def one(p):
            return next(iter(report.objects(res, p)), None)
        theirs[(name(one(sh.focusNode)), name(one(sh.value)), name(one(sh.sourceShape)),
                str(one(sh.sourceConstraintComponent)).join(("<", ">")))] += 1
    assert ours == theirs
    assert conforms == (not ours)
