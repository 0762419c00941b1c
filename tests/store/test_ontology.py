"""The memkg ontology: the SPEC §1 vocabulary, its PROV-O alignment, and OWL 2 RL.

The reasoning tests run owlrl over the ontology plus small RDF 1.2 snippets that
pyoxigraph parses and :mod:`memkg.validation.projection` turns into RDF 1.1 for rdflib.
"""

from __future__ import annotations

import time
from pathlib import Path

import owlrl
import pyoxigraph as ox
import pytest
from rdflib import OWL, RDF, RDFS, BNode, Graph, Literal, Namespace, URIRef

from memkg.validation.projection import project

ONTOLOGY = Path(__file__).resolve().parents[2] / "ontology" / "memkg.ttl"
ONTOLOGY_IRI = URIRef("https://w3id.org/memkg")
MEM = Namespace("https://w3id.org/memkg#")
PROV = Namespace("http://www.w3.org/ns/prov#")
EX = Namespace("http://example.org/")
# A plain Namespace, not rdflib's XSD: that one warns on any unknown attribute, and pytest
# probes module attributes (`_mock_name`) while collecting.
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")
# owlrl reports inconsistencies as `[] err:error "message"` in the closure.
OWLRL_ERROR = URIRef("http://www.daml.org/2002/03/agents/agent-ont#error")

# SPEC §1, copied by hand: the contract the ontology must define.
SPEC_CLASSES = [
    "Person", "Agent", "Entity", "Message", "Episode", "Action", "Outcome", "Claim",
    "Occurrence", "Extraction", "Extractor", "SupportGroup", "Context", "Retraction",
]
SPEC_OBJECT_PROPERTIES = [
    "supersedes", "retracts", "contradicts", "equivalentTo", "specializes", "assertedBy",
    "supportedBy", "supportGroup", "member", "echoOf", "refutes", "participant", "actor",
    "recipient", "hasAction", "object", "produces", "context",
]
SPEC_DATATYPE_PROPERTIES = [
    "eventTime", "validFrom", "validUntil", "recordedAt", "confidence",
    "extractionConfidence", "sourceReliability", "eventId", "contentHash", "content",
]
# Added beyond the table, for the examples (and mem:Reifier, the named common
# superclass of Claim and Occurrence that OWL 2 RL needs instead of a union).
EXTRA_CLASSES = ["Vertex", "IdentityCandidate", "Reifier", "EdgeProperty", "RecordVersion", "Erasure", "Attachment",
                 "Correction"]
EXTRA_DATATYPE_PROPERTIES = ["matchScore", "reason", "version", "provenance", "edgeLabel", "edgeValue", "lane", "sourceType",
                             "states", "extractionFlag", "utility", "turn", "url", "caption", "mediaType", "interface"]
EXTRA_OBJECT_PROPERTIES = ["versionOf", "revises", "hasEdgeProperty", "needsReview", "attachment"]
EXTRA_ANNOTATION_PROPERTIES = ["displayName", "alias"]

# SPEC §1 "PROV-O" column, plus the sub-property alignments it names.
PROV_ALIGNMENT = [
    (MEM.Person, RDFS.subClassOf, PROV.Person),
    (MEM.Agent, RDFS.subClassOf, PROV.SoftwareAgent),
    (MEM.Message, RDFS.subClassOf, PROV.Entity),
    (MEM.Episode, RDFS.subClassOf, PROV.Activity),
    (MEM.Action, RDFS.subClassOf, PROV.Activity),
    (MEM.Outcome, RDFS.subClassOf, PROV.Entity),
    (MEM.Claim, RDFS.subClassOf, PROV.Entity),
    (MEM.Occurrence, RDFS.subClassOf, PROV.Entity),
    (MEM.Extraction, RDFS.subClassOf, PROV.Activity),
    (MEM.Extractor, RDFS.subClassOf, PROV.SoftwareAgent),
    (MEM.SupportGroup, RDFS.subClassOf, PROV.Collection),
    (MEM.Retraction, RDFS.subClassOf, PROV.Activity),
    (MEM.Correction, RDFS.subClassOf, PROV.Activity),
    (MEM.Attachment, RDFS.subClassOf, PROV.Entity),
    (MEM.supersedes, RDFS.subPropertyOf, PROV.wasRevisionOf),
    (MEM.echoOf, RDFS.subPropertyOf, PROV.wasQuotedFrom),
    (MEM.assertedBy, RDFS.subPropertyOf, PROV.wasDerivedFrom),
    (MEM.member, RDFS.subPropertyOf, PROV.hadMember),
    # The PROV-O axioms memkg relies on, declared so the file stands alone.
    (PROV.wasRevisionOf, RDFS.subPropertyOf, PROV.wasDerivedFrom),
    (PROV.wasQuotedFrom, RDFS.subPropertyOf, PROV.wasDerivedFrom),
    (PROV.Person, RDFS.subClassOf, PROV.Agent),
    (PROV.SoftwareAgent, RDFS.subClassOf, PROV.Agent),
    (PROV.Collection, RDFS.subClassOf, PROV.Entity),
]

PREFIXES = """VERSION "1.2"
PREFIX ex:   <http://example.org/>
PREFIX mem:  <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf:  <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX owl:  <http://www.w3.org/2002/07/owl#>
PREFIX xsd:  <http://www.w3.org/2001/XMLSchema#>
"""


def load_ontology() -> Graph:
    return Graph().parse(ONTOLOGY, format="turtle")


@pytest.fixture(scope="module")
def ontology() -> Graph:
    return load_ontology()


def closure(turtle12: str) -> Graph:
    """owlrl's OWL 2 RL closure of the ontology plus an RDF 1.2 Turtle snippet."""
    graph = load_ontology()
    projection = project(ox.parse(PREFIXES + turtle12, format=ox.RdfFormat.TURTLE))
    for triple in projection.dataset.default_graph:
        graph.add(triple)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    return graph


def owlrl_errors(graph: Graph) -> list[str]:
    return [str(message) for message in graph.objects(None, OWLRL_ERROR)]


# --------------------------------------------------------------------------
# Parsing, declarations, documentation
# --------------------------------------------------------------------------


def test_parses_with_pyoxigraph_and_rdflib(ontology: Graph) -> None:
    quads = list(ox.parse(path=str(ONTOLOGY), format=ox.RdfFormat.TURTLE))
    assert len(quads) == len(ontology) > 0


def test_header(ontology: Graph) -> None:
    assert (ONTOLOGY_IRI, RDF.type, OWL.Ontology) in ontology
    assert ontology.value(ONTOLOGY_IRI, OWL.versionInfo) == Literal("0.1.0")
    assert ontology.value(ONTOLOGY_IRI, RDFS.label) is not None
    assert ontology.value(ONTOLOGY_IRI, RDFS.comment) is not None


@pytest.mark.parametrize("name", SPEC_CLASSES + EXTRA_CLASSES)
def test_class_declared(ontology: Graph, name: str) -> None:
    assert (MEM[name], RDF.type, OWL.Class) in ontology


@pytest.mark.parametrize("name", SPEC_OBJECT_PROPERTIES + EXTRA_OBJECT_PROPERTIES)
def test_object_property_declared(ontology: Graph, name: str) -> None:
    assert (MEM[name], RDF.type, OWL.ObjectProperty) in ontology
    assert (MEM[name], RDF.type, OWL.DatatypeProperty) not in ontology


@pytest.mark.parametrize("name", SPEC_DATATYPE_PROPERTIES + EXTRA_DATATYPE_PROPERTIES)
def test_datatype_property_declared(ontology: Graph, name: str) -> None:
    assert (MEM[name], RDF.type, OWL.DatatypeProperty) in ontology
    assert (MEM[name], RDF.type, OWL.ObjectProperty) not in ontology


def test_display_name_is_a_kind_of_label(ontology: Graph) -> None:
    # An annotation property: OWL 2 only allows annotation properties under rdfs:label.
    assert (MEM.displayName, RDF.type, OWL.AnnotationProperty) in ontology
    assert (MEM.displayName, RDFS.subPropertyOf, RDFS.label) in ontology


def test_no_other_terms(ontology: Graph) -> None:
    """The vocabulary is SPEC §1 plus the listed additions, and nothing else."""
    declared = {s for s in ontology.subjects(RDF.type, None) if str(s).startswith(str(MEM))}
    expected = {
        MEM[n]
        for n in SPEC_CLASSES + EXTRA_CLASSES + SPEC_OBJECT_PROPERTIES + EXTRA_OBJECT_PROPERTIES + SPEC_DATATYPE_PROPERTIES
        + EXTRA_DATATYPE_PROPERTIES + EXTRA_ANNOTATION_PROPERTIES
    }
    assert declared == expected


def test_every_mem_iri_used_is_declared(ontology: Graph) -> None:
    """Catches typos: a mem: IRI used in an axiom but never declared."""
    declared = {s for s in ontology.subjects(RDF.type, None)}
    used = {t for triple in ontology for t in triple if isinstance(t, URIRef) and str(t).startswith(str(MEM))}
    assert used <= declared


def test_every_term_has_english_label_and_comment(ontology: Graph) -> None:
    missing = []
    for term in set(ontology.subjects(RDF.type, None)):
        if not str(term).startswith(str(MEM)):
            continue
        for prop in (RDFS.label, RDFS.comment):
            values = list(ontology.objects(term, prop))
            if not any(isinstance(v, Literal) and v.language == "en" and str(v).strip() for v in values):
                missing.append((str(term), str(prop)))
    assert missing == []


def test_prov_terms_declared(ontology: Graph) -> None:
    """The PROV-O terms used are declared, so the file stands alone."""
    prov_used = {t for triple in ontology for t in triple if isinstance(t, URIRef) and str(t).startswith(str(PROV))}
    declared = {s for s in ontology.subjects(RDF.type, None)}
    assert prov_used <= declared
    for name in ("wasGeneratedBy", "used", "wasAssociatedWith", "wasAttributedTo", "wasDerivedFrom"):
        assert (PROV[name], RDF.type, OWL.ObjectProperty) in ontology


@pytest.mark.parametrize("triple", PROV_ALIGNMENT, ids=lambda t: f"{t[0].split('#')[-1]}-{t[2].split('#')[-1]}")
def test_prov_alignment(ontology: Graph, triple: tuple[URIRef, URIRef, URIRef]) -> None:
    assert triple in ontology


def test_identity_candidate_is_a_claim(ontology: Graph) -> None:
    assert (MEM.IdentityCandidate, RDFS.subClassOf, MEM.Claim) in ontology


def test_typed_ranges(ontology: Graph) -> None:
    for name in ("eventTime", "validFrom", "validUntil", "recordedAt"):
        assert ontology.value(MEM[name], RDFS.range) == XSD.dateTime, name
    for name in ("confidence", "extractionConfidence", "sourceReliability", "matchScore"):
        assert ontology.value(MEM[name], RDFS.range) == XSD.decimal, name
    for name in ("eventId", "contentHash", "version", "reason"):
        assert ontology.value(MEM[name], RDFS.range) == XSD.string, name
    assert ontology.value(MEM.content, RDFS.range) == RDFS.Literal


def test_rdf_reifies_not_redefined(ontology: Graph) -> None:
    reifies = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")
    assert not list(ontology.triples((reifies, None, None)))


# --------------------------------------------------------------------------
# OWL 2 RL: a profile check of our own for the common traps
# --------------------------------------------------------------------------

# Class constructors OWL 2 RL forbids where a class is a superclass (the object of
# rdfs:subClassOf, rdfs:domain, rdfs:range, either side of owl:equivalentClass).
_NOT_RL_SUPERCLASS = {
    OWL.unionOf, OWL.someValuesFrom, OWL.oneOf, OWL.minCardinality, OWL.cardinality,
    OWL.minQualifiedCardinality, OWL.qualifiedCardinality, OWL.hasSelf,
}
# Datatypes OWL 2 RL supports (the ones an ontology like this would use).
_RL_DATATYPES = {
    RDFS.Literal, RDF.PlainLiteral, RDF.XMLLiteral, XSD.string, XSD.decimal, XSD.integer,
    XSD.nonNegativeInteger, XSD.boolean, XSD.double, XSD.float, XSD.dateTime,
    XSD.dateTimeStamp, XSD.anyURI, XSD.normalizedString, XSD.token, XSD.language,
}
_BUILTIN_ANNOTATION_PROPERTIES = {RDFS.label, RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy}


def rl_violations(graph: Graph) -> list[str]:
    """Constructs outside OWL 2 RL (or banned by memkg for owlrl's sake) in ``graph``."""
    problems: list[str] = []
    superclass_positions = [
        (s, o) for p in (RDFS.subClassOf, RDFS.domain, RDFS.range) for s, o in graph.subject_objects(p)
    ]
    for s, o in graph.subject_objects(OWL.equivalentClass):
        superclass_positions += [(s, o), (o, s)]
    for sub, sup in superclass_positions:
        if isinstance(sup, BNode):
            for constructor in _NOT_RL_SUPERCLASS & set(graph.predicates(sup)):
                problems.append(f"{sub}: {constructor} in superclass position")
            for cardinality in (OWL.maxCardinality, OWL.maxQualifiedCardinality):
                value = graph.value(sup, cardinality)
                if value is not None and int(value) > 1:
                    problems.append(f"{sub}: {cardinality} {value} (> 1) in superclass position")
    for s in graph.subjects(RDF.type, OWL.TransitiveProperty):
        problems.append(f"{s}: transitive property (banned: owlrl's closure gets slow)")
    for s in graph.subjects(OWL.withRestrictions, None):
        problems.append(f"{s}: datatype restriction (not in OWL 2 RL)")
    for prop in graph.subjects(RDF.type, OWL.DatatypeProperty):
        for datatype in graph.objects(prop, RDFS.range):
            if datatype not in _RL_DATATYPES:
                problems.append(f"{prop}: range {datatype} is not an OWL 2 RL datatype")

    def kind(prop: URIRef) -> URIRef | None:
        if prop in _BUILTIN_ANNOTATION_PROPERTIES:
            return OWL.AnnotationProperty
        kinds = {OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty} & set(graph.objects(prop, RDF.type))
        return next(iter(kinds)) if len(kinds) == 1 else None

    for sub, sup in graph.subject_objects(RDFS.subPropertyOf):
        if kind(sub) is None or kind(sub) != kind(sup):
            problems.append(f"{sub} ⊑ {sup}: not two properties of the same kind")
    return problems


def test_ontology_is_in_owl2_rl(ontology: Graph) -> None:
    assert rl_violations(ontology) == []


def test_profile_check_catches_the_traps() -> None:
    bad = Graph().parse(
        data="""
        @prefix owl: <http://www.w3.org/2002/07/owl#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
        @prefix ex: <http://example.org/> .
        ex:A rdfs:subClassOf [ owl:unionOf (ex:B ex:C) ] .
        ex:D rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:p ; owl:someValuesFrom ex:B ] .
        ex:p a owl:ObjectProperty, owl:TransitiveProperty ; rdfs:range [ owl:unionOf (ex:B ex:C) ] .
        ex:q a owl:DatatypeProperty ; rdfs:subPropertyOf rdfs:label ;
            rdfs:range [ owl:onDatatype xsd:decimal ; owl:withRestrictions ( [ xsd:minInclusive 0 ] ) ] .
        """,
        format="turtle",
    )
    problems = "\n".join(rl_violations(bad))
    for expected in ("http://example.org/A: http://www.w3.org/2002/07/owl#unionOf",
                     "http://example.org/D: http://www.w3.org/2002/07/owl#someValuesFrom",
                     "http://example.org/p: transitive", "http://example.org/p: http://www.w3.org/2002/07/owl#unionOf",
                     "datatype restriction", "http://example.org/q ⊑"):
        assert expected in problems


def test_nothing_in_the_ontology_can_merge_vertices(ontology: Graph) -> None:
    """Memory never merges two vertices by inference: no axiom derives owl:sameAs."""
    for merging in (OWL.FunctionalProperty, OWL.InverseFunctionalProperty):
        assert not list(ontology.subjects(RDF.type, merging))
    assert not list(ontology.triples((None, OWL.hasKey, None)))
    assert not list(ontology.triples((None, OWL.sameAs, None)))


def test_closure_of_ontology_alone_is_fast_and_consistent() -> None:
    graph = load_ontology()
    start = time.perf_counter()
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    elapsed = time.perf_counter() - start
    assert owlrl_errors(graph) == []
    assert elapsed < 10, f"owlrl closure of the ontology took {elapsed:.2f}s"


# --------------------------------------------------------------------------
# Entailments, with owlrl over the ontology plus projected RDF 1.2 data
# --------------------------------------------------------------------------

CLAIM = """
ex:c0 a mem:Claim ;
    rdf:reifies <<( ex:Lia ex:prefers ex:tea )>> ;
    mem:assertedBy ex:m0 .
ex:m0 a mem:Message .
ex:Lia a mem:Person .
ex:tea a mem:Entity .
"""


@pytest.fixture(scope="module")
def claim_closure() -> Graph:
    return closure(CLAIM)


def test_claim_closure_is_consistent(claim_closure: Graph) -> None:
    assert owlrl_errors(claim_closure) == []


def test_message_is_a_prov_entity(claim_closure: Graph) -> None:
    assert (EX.m0, RDF.type, PROV.Entity) in claim_closure


def test_asserted_claim_derives_from_its_message(claim_closure: Graph) -> None:
    assert (EX.c0, PROV.wasDerivedFrom, EX.m0) in claim_closure
    assert (EX.c0, RDF.type, PROV.Entity) in claim_closure


def test_reified_triple_is_not_asserted(claim_closure: Graph) -> None:
    assert (EX.Lia, EX.prefers, EX.tea) not in claim_closure
    assert not list(claim_closure.triples((None, EX.prefers, None)))


def test_mem_entity_is_not_a_prov_entity(claim_closure: Graph) -> None:
    assert (MEM.Entity, RDFS.subClassOf, PROV.Entity) not in claim_closure
    assert (EX.tea, RDF.type, PROV.Entity) not in claim_closure
    assert (EX.tea, RDF.type, MEM.Vertex) in claim_closure


def test_person_is_a_prov_agent(claim_closure: Graph) -> None:
    assert (EX.Lia, RDF.type, PROV.Agent) in claim_closure
    assert (EX.Lia, RDF.type, MEM.Vertex) in claim_closure


def test_identity_candidate_does_not_merge() -> None:
    graph = closure("""
    ex:idc1 a mem:IdentityCandidate ;
        rdf:reifies <<( ex:Lia owl:sameAs ex:c1842 )>> ;
        mem:matchScore 0.82 ;
        mem:supportedBy ex:m45 .
    ex:Lia a mem:Person ; ex:name "Lia" ; mem:displayName "Lia" .
    ex:c1842 a mem:Entity ; ex:name "customer 1842" .
    """)
    assert owlrl_errors(graph) == []
    assert (EX.idc1, RDF.type, MEM.Claim) in graph
    assert (EX.idc1, RDF.type, PROV.Entity) in graph
    assert (EX.Lia, OWL.sameAs, EX.c1842) not in graph
    assert (EX.c1842, OWL.sameAs, EX.Lia) not in graph
    assert (EX.c1842, EX.name, Literal("Lia")) not in graph
    assert (EX.Lia, EX.name, Literal("customer 1842")) not in graph
    assert (EX.c1842, RDF.type, MEM.Person) not in graph


@pytest.mark.parametrize(
    ("data", "entailed"),
    [
        ("ex:c2 mem:supersedes ex:c1 .", (EX.c2, PROV.wasDerivedFrom, EX.c1)),
        ("ex:c2 mem:supersedes ex:c1 .", (EX.c2, PROV.wasRevisionOf, EX.c1)),
        ("ex:m2 mem:echoOf ex:m1 .", (EX.m2, PROV.wasDerivedFrom, EX.m1)),
        ("ex:g1 mem:member ex:m1 .", (EX.g1, PROV.hadMember, EX.m1)),
        ("ex:g1 mem:member ex:m1 .", (EX.g1, RDF.type, PROV.Collection)),
        ("ex:c1 mem:contradicts ex:c2 .", (EX.c2, MEM.contradicts, EX.c1)),
        ("ex:c1 mem:confidence 0.9 .", (EX.c1, RDF.type, MEM.Reifier)),
        ("ex:e6 a mem:Occurrence .", (EX.e6, RDF.type, PROV.Entity)),
        ("ex:ep mem:participant ex:Lia .", (EX.Lia, RDF.type, PROV.Agent)),
        ("ex:ep mem:participant ex:Lia .", (EX.ep, RDF.type, PROV.Activity)),
        ("ex:m mem:recipient ex:Lia .", (EX.Lia, RDF.type, PROV.Agent)),
        ("ex:m mem:attachment ex:a .", (EX.a, RDF.type, PROV.Entity)),
        ("ex:x a mem:Extractor .", (EX.x, RDF.type, PROV.Agent)),
        ('ex:tea mem:displayName "tea" .', (EX.tea, RDFS.label, Literal("tea"))),
    ],
)
def test_entailment(data: str, entailed: tuple[URIRef, URIRef, URIRef]) -> None:
    assert entailed in closure(data)


def test_contradiction_does_not_imply_supersession() -> None:
    graph = closure("ex:c1 mem:contradicts ex:c2 .")
    assert not list(graph.triples((None, MEM.supersedes, None)))


def test_self_supersession_is_inconsistent() -> None:
    assert owlrl_errors(closure("ex:c1 mem:supersedes ex:c1 .")) != []


def test_a_message_with_addressees_stays_an_entity() -> None:
    """mem:recipient states no domain: addressing a message never makes it an activity."""
    graph = closure("ex:m a mem:Message ; mem:recipient ex:Lia . ex:Lia a mem:Person .")
    assert owlrl_errors(graph) == []
    assert (EX.m, RDF.type, PROV.Entity) in graph
    assert (EX.m, RDF.type, PROV.Activity) not in graph
