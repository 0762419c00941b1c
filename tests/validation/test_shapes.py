"""The shapes as shipped (shapes/memkg.ttl) against the words of docs/contract.md, at each bound.

Each invariant with a bound (a number in [0, 1], times with a timezone and
``validFrom < validUntil``, exactly one triple term, at least one member, one
record per event id, no supersession cycle) is tried at the bound, just inside
and just outside it. The expected verdict comes from a few lines of Python
written from docs/contract.md section 2, never from the shapes: a wrong shape (a bound moved,
an inclusive one made exclusive) fails here even though the two engines, which
read the same shapes file, would still agree with each other.
"""

from __future__ import annotations

import math
from datetime import datetime
from decimal import Decimal, InvalidOperation

import pytest

from memkg import MemoryStore
from pyoxigraph import NamedNode

from memkg.validation import builtin_shapes, make_engine, tenant_graphs, validate_store

MEM = "https://w3id.org/memkg#"
XSD = "http://www.w3.org/2001/XMLSchema#"
EX = "https://example.org/bounds/"
TENANT, OTHER = "https://example.org/tenants/b1", "https://example.org/tenants/b2"
PRELUDE = f"""VERSION "1.2"
PREFIX mem: <{MEM}>
PREFIX xsd: <{XSD}>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex: <{EX}>
"""


_ENGINES: dict[str, object] = {}


def violations(text: str, shape: str, engine: str = "native", *, node_by_node: bool = False) -> set[str]:
    """The focus nodes (local names) that break ``shape`` when ``text`` is the whole store.

    The native engine validates a whole graph with each constraint's set form (``shx:selectAll``)
    and the nodes of a write one by one (``sh:select`` from a bound ``$this``): ``node_by_node``
    asks for the second, with every subject of ``text`` as a focus node.
    """
    store = MemoryStore(validation=None)
    store.load_data(PRELUDE + text, format="trig")
    if not node_by_node:
        results = validate_store(store, engine=engine).results
    else:
        validator = _ENGINES.setdefault(engine, make_engine(engine, builtin_shapes()))
        focus = list({q.subject: None for q in store.raw if isinstance(q.subject, NamedNode)})
        results = [r for g in tenant_graphs(store.raw) for r in validator.validate(store.raw, g, focus=focus)]  # type: ignore[attr-defined]
    return {r.focus.value.removeprefix(EX) for r in results if r.shape.value == MEM + shape}


# -- invariant 10: every confidence, extraction confidence and reliability is a finite number in [0, 1] --------

NUMBERS = {"decimal", "integer", "double", "float"}
VALUES = [  # (lexical form, datatype): at, just inside and just outside each bound, and what is not a number
    ("-0.0000001", "decimal"), ("0", "integer"), ("0.0", "decimal"), ("0.0000001", "decimal"), ("0.5", "decimal"),
    ("0.9999999", "decimal"), ("1", "integer"), ("1.0", "decimal"), ("1.0000001", "decimal"), ("1.2", "decimal"),
    ("1.5", "decimal"), ("2", "integer"), ("-1", "integer"), ("-0.0E0", "double"), ("1.0E0", "double"),
    ("1.0000001E0", "double"), ("-1.0E-7", "double"), ("5.0E-1", "float"), ("1.01", "float"), ("NaN", "double"),
    ("INF", "double"), ("-INF", "double"), ("NaN", "float"), ("0.5", "string"), ("true", "boolean"),
]


def in_unit_interval(lexical: str, datatype: str) -> bool:
    """SPEC invariant 10, in Python: a number (of a numeric datatype), finite, 0 <= value <= 1."""
    if datatype not in NUMBERS:
        return False
    if datatype in ("double", "float"):
        value = float(lexical)
        return math.isfinite(value) and 0 <= value <= 1
    try:
        return 0 <= Decimal(lexical) <= 1
    except InvalidOperation:
        return False


# The SPEC names confidence, extraction confidence and reliability; the shapes add the
# identity match score and memory utility (ontology terms), bound the same way.
UNIT_PROPERTIES = ["confidence", "extractionConfidence", "sourceReliability", "matchScore", "utility"]


@pytest.mark.parametrize("engine", ["native", "native node by node", "pyshacl"])
def test_every_unit_interval_bound_is_where_the_spec_puts_it(engine: str) -> None:
    lines, expected = [], set()
    for p in UNIT_PROPERTIES:
        for i, (lexical, datatype) in enumerate(VALUES):
            node = f"{p}{i}"
            lines.append(f'ex:{node} mem:{p} "{lexical}"^^xsd:{datatype} .')
            if not in_unit_interval(lexical, datatype):
                expected.add(node)
    got = violations("\n".join(lines), "UnitIntervalShape", engine.split()[0], node_by_node="node" in engine)
    assert got == expected, f"refused but in [0, 1]: {sorted(got - expected)}; accepted outside: {sorted(expected - got)}"


def test_an_identity_candidate_scored_above_one_is_refused_on_write() -> None:
    """The match score of an identity candidate is a number in [0, 1]: a score of 1.2 is refused whole."""
    from memkg import ValidationError

    store = MemoryStore()
    with pytest.raises(ValidationError) as info:
        store.load_data(PRELUDE + 'ex:idc mem:matchScore 1.2 .', format="turtle")
    assert {str(v.shape) for v in info.value.violations} == {f"<{MEM}UnitIntervalShape>"}
    store.load_data(PRELUDE + 'ex:idc mem:matchScore 1.0 .', format="turtle")  # the bound itself is in


# -- invariant 6: times are xsd:dateTime with a timezone; validFrom < validUntil ------------------------------

TIMES = [  # (validFrom, validUntil): equal instants, just before and after, across timezones
    ("2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"),
    ("2026-01-01T10:00:00Z", "2026-01-01T10:00:00.001Z"),
    ("2026-01-01T10:00:00.001Z", "2026-01-01T10:00:00Z"),
    ("2026-01-01T12:00:00+02:00", "2026-01-01T10:00:00Z"),  # the same instant
    ("2026-01-01T11:59:59+02:00", "2026-01-01T10:00:00Z"),  # one second before
    ("2026-01-01T12:00:01+02:00", "2026-01-01T10:00:00Z"),  # one second after
    ("2026-01-01T10:00:00-00:30", "2026-01-01T10:29:59Z"),  # 10:30Z > 10:29:59Z
    ("2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"),
    ("2026-01-01T00:00:00Z", None),
    (None, "2026-01-01T00:00:00Z"),
]
ZONES = ["2026-01-01T10:00:00Z", "2026-01-01T10:00:00+05:30", "2026-01-01T10:00:00-12:00", "2026-01-01T10:00:00"]


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def times_ok(frm: str | None, until: str | None) -> bool:
    """SPEC invariant 6, in Python: each time has a timezone; validFrom < validUntil where both exist."""
    if any(t is not None and instant(t).tzinfo is None for t in (frm, until)):
        return False
    return frm is None or until is None or instant(frm) < instant(until)


@pytest.mark.parametrize("engine", ["native", "native node by node", "pyshacl"])
def test_validity_bounds_and_timezones_are_where_the_spec_puts_them(engine: str) -> None:
    lines, expected = [], set()
    for i, (frm, until) in enumerate(TIMES):
        props = [f'mem:validFrom "{frm}"^^xsd:dateTime' for _ in [frm] if frm] + [
            f'mem:validUntil "{until}"^^xsd:dateTime' for _ in [until] if until]
        lines.append(f"ex:interval{i} " + " ; ".join(props) + " .")
        if not times_ok(frm, until):
            expected.add(f"interval{i}")
    for i, t in enumerate(ZONES):
        for p in ("eventTime", "recordedAt", "validFrom", "validUntil"):
            lines.append(f'ex:{p}{i} mem:{p} "{t}"^^xsd:dateTime .')
            if not times_ok(t, None):
                expected.add(f"{p}{i}")
    lines.append('ex:aDate mem:eventTime "2026-01-01Z"^^xsd:date .')  # a date is not a dateTime
    expected.add("aDate")
    got = violations("\n".join(lines), "TimeShape", engine.split()[0], node_by_node="node" in engine)
    assert got == expected, f"refused but valid: {sorted(got - expected)}; accepted but not: {sorted(expected - got)}"


# -- invariants 4, 9, 11 and 8: counts and cycles --------------------------------------------------------------


def test_a_claim_reifies_exactly_one_triple_term() -> None:
    terms = {0: "", 1: 'rdf:reifies <<( ex:x ex:p "a" )>> ;',
             2: 'rdf:reifies <<( ex:x ex:p "a" )>> , <<( ex:x ex:p "b" )>> ;'}
    text = "ex:p a rdf:Property . ex:x a mem:Entity . ex:m a mem:Message .\n" + "\n".join(
        f"ex:claim{n} a mem:Claim ; {t} mem:assertedBy ex:m ." for n, t in terms.items())
    assert violations(text, "ClaimPropositionShape") == {"claim0", "claim2"}


def test_a_support_group_has_at_least_one_member() -> None:
    text = "ex:m1 a mem:Message . ex:m2 a mem:Message .\n" + "\n".join(
        f"ex:group{n} a mem:SupportGroup " + "".join(f"; mem:member ex:m{k} " for k in range(1, n + 1)) + "."
        for n in range(3))
    assert violations(text, "SupportGroupShape") == {"group0"}


def test_one_record_per_event_id_within_a_tenant() -> None:
    text = f"""GRAPH <{TENANT}> {{
        ex:once a mem:Message ; mem:eventId "e1" .
        ex:twiceA a mem:Message ; mem:eventId "e2" . ex:twiceB a mem:Occurrence ; mem:eventId "e2" .
        ex:elsewhere a mem:Message ; mem:eventId "e3" .
    }}
    GRAPH <{OTHER}> {{ ex:elsewhere2 a mem:Message ; mem:eventId "e3" . }}"""
    assert violations(text, "UniqueEventIdShape") == {"twiceA", "twiceB"}


def test_supersession_is_irreflexive_and_acyclic_at_every_length() -> None:
    text = """ex:self mem:supersedes ex:self .
        ex:a1 mem:supersedes ex:a2 . ex:a2 mem:supersedes ex:a1 .
        ex:b1 mem:supersedes ex:b2 . ex:b2 mem:supersedes ex:b3 . ex:b3 mem:supersedes ex:b1 .
        ex:chain1 mem:supersedes ex:chain2 . ex:chain2 mem:supersedes ex:chain3 .
        ex:d1 mem:echoOf ex:d2 . ex:d2 mem:echoOf ex:d1 . ex:e1 mem:echoOf ex:e2 ."""
    assert violations(text, "AcyclicShape") == {"self", "a1", "a2", "b1", "b2", "b3", "d1", "d2"}


# -- invariants 2 and 3: role properties, from -> to, as the SPEC's table lists them ----------------------------

ROLES = {  # property: (classes it may come from, classes it may point to), SPEC sections 1 and 7
    "participant": ({"Episode", "Action"}, {"Person", "Agent"}),
    "actor": ({"Episode", "Action"}, {"Person", "Agent"}),
    "recipient": ({"Episode", "Action", "Message"}, {"Person", "Agent"}),  # a message's addressees (section 7)
    "hasAction": ({"Episode"}, {"Action"}),
    "object": ({"Action"}, {"Entity"}),
    "produces": ({"Action"}, {"Outcome"}),
    "assertedBy": ({"Claim"}, {"Message"}),
    "context": ({"Claim"}, {"Context"}),
    "supersedes": ({"Claim"}, {"Claim"}),
    "contradicts": ({"Claim"}, {"Claim"}),
    "equivalentTo": ({"Claim"}, {"Claim"}),
    "specializes": ({"Claim"}, {"Claim"}),
    "supportGroup": ({"Claim"}, {"SupportGroup"}),
    "needsReview": ({"Retraction"}, {"Claim"}),  # an ontology term (memkg.ttl: Retraction -> Claim)
}
#: Decisions between claims name them by identifier: an erased claim stays named (docs/contract.md section 3), untyped.
BY_IDENTIFIER = {"supersedes", "contradicts", "equivalentTo", "specializes"}
CLASSES = ["Person", "Agent", "Entity", "Message", "Episode", "Action", "Outcome", "Claim", "Context", "SupportGroup",
           "Retraction"]


@pytest.mark.parametrize("node_by_node", [False, True], ids=["whole store", "node by node"])
@pytest.mark.parametrize("prop", sorted(ROLES))
def test_each_role_property_respects_its_from_and_to_types(prop: str, node_by_node: bool) -> None:
    """Invariant 3 (and 2 for an untyped far end), for every role property and every class on each side."""
    froms, tos = ROLES[prop]
    lines, role_breaks, untyped = [], set(), set()
    for k, cls in enumerate(CLASSES):  # every class as the source, pointing at a right target
        lines.append(f"ex:from{k} a mem:{cls} ; mem:{prop} ex:to{k} . ex:to{k} a mem:{sorted(tos)[0]} .")
        if cls not in froms:
            role_breaks.add(f"from{k}")
    source = sorted(froms)[0]
    for k, cls in enumerate(CLASSES):  # a right source, pointing at every class
        lines.append(f"ex:src{k} a mem:{source} ; mem:{prop} ex:far{k} . ex:far{k} a mem:{cls} .")
        if cls not in tos:
            role_breaks.add(f"src{k}")
    lines.append(f"ex:lonely a mem:{source} ; mem:{prop} ex:nowhere .")  # a far end with no type at all
    if prop not in BY_IDENTIFIER:
        untyped.add("lonely")
    text = "\n".join(lines)
    assert violations(text, "RoleTypesShape", node_by_node=node_by_node) == role_breaks
    assert violations(text, "TypedVertexShape", node_by_node=node_by_node) == untyped


# -- invariant 4: the claim's predicate is declared (rdf:Property or an OWL property) --------------------------

DECLARATIONS = ["rdf:Property", "owl:ObjectProperty", "owl:DatatypeProperty", "owl:AnnotationProperty",
                "owl:FunctionalProperty", "owl:InverseFunctionalProperty", "owl:TransitiveProperty",
                "owl:SymmetricProperty", "owl:AsymmetricProperty", "owl:ReflexiveProperty", "owl:IrreflexiveProperty"]


@pytest.mark.parametrize("node_by_node", [False, True], ids=["whole store", "node by node"])
def test_a_claim_predicate_declared_by_any_rdf_or_owl_property_class_is_declared(node_by_node: bool) -> None:
    """Invariant 4: any rdf:Property or OWL property class declares a predicate (in the data or by a subclass);
    an undeclared one, or one typed by another class, is not; RDF, RDFS and OWL terms declare themselves."""
    lines = ["PREFIX owl: <http://www.w3.org/2002/07/owl#>", "ex:x a mem:Entity . ex:m a mem:Message .",
             "ex:MyKind rdfs:subClassOf owl:ObjectProperty ."]
    cases = {f"decl{i}": f"ex:p{i} a {d} ." for i, d in enumerate(DECLARATIONS)}
    cases |= {"bySubclass": "ex:pSub a ex:MyKind .", "undeclared": "", "aClass": "ex:pClass a owl:Class .",
              "rdfType": "", "rdfsLabel": "", "owlSameAs": ""}
    predicates = {f"decl{i}": f"ex:p{i}" for i in range(len(DECLARATIONS))} | {
        "bySubclass": "ex:pSub", "undeclared": "ex:pNone", "aClass": "ex:pClass", "rdfType": "rdf:type",
        "rdfsLabel": "rdfs:label", "owlSameAs": "owl:sameAs"}
    for name, declaration in cases.items():
        lines.append(f'{declaration} ex:{name} a mem:Claim ; rdf:reifies <<( ex:x {predicates[name]} ex:x )>> ; '
                     "mem:assertedBy ex:m .")
    text = "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n" + "\n".join(lines)
    assert violations(text, "ClaimPropositionShape", node_by_node=node_by_node) == {"undeclared", "aClass"}


# -- invariant 7: no link from one tenant to a vertex typed only in another --------------------------------------


@pytest.mark.parametrize("node_by_node", [False, True], ids=["whole store", "node by node"])
def test_a_link_to_a_vertex_typed_only_in_another_tenant_is_refused(node_by_node: bool) -> None:
    text = f"""ex:shared a mem:Person .
    GRAPH <{TENANT}> {{
        ex:mine a mem:Person . ex:both a mem:Person .
        ex:toOther a mem:Message ; mem:content "x" ; ex:mentions ex:theirs .
        ex:toMine a mem:Message ; mem:content "x" ; ex:mentions ex:mine .
        ex:toShared a mem:Message ; mem:content "x" ; ex:mentions ex:shared .
        ex:toBoth a mem:Message ; mem:content "x" ; ex:mentions ex:both .
        ex:toNowhere a mem:Message ; mem:content "x" ; ex:mentions ex:untyped .
    }}
    GRAPH <{OTHER}> {{ ex:theirs a mem:Person . ex:both a mem:Person . }}"""
    assert violations(text, "TenantIsolationShape", node_by_node=node_by_node) == {"toOther"}
