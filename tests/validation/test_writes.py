"""Every write is validated against the store it joins, not just against itself.

A write is judged in a scratch store holding the write plus the context it
needs from the store (descriptions of the nodes it touches, types of what they
link to, the chains it joins, other holders of its event ids): these tests make
each kind of context matter.
"""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, parse

from memkg import Claim, MemoryStore, Message, Predicate, ValidationError, Vertex, mem, validation

from tests.support.examples import FarBackend

EX = "https://example.org/w/"
A, B = "https://example.org/tenants/a", "https://example.org/tenants/b"
LIA, TEA = NamedNode(EX + "Lia"), NamedNode(EX + "tea")
PRELUDE = f"""VERSION "1.2"
PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
"""
XSD_DECIMAL = NamedNode("http://www.w3.org/2001/XMLSchema#decimal")


@pytest.fixture(params=["native", "pyshacl"])
def store(request) -> MemoryStore:
    s = MemoryStore(validation=request.param)
    s.add_all(
        [Vertex(id=LIA, cls=mem.Person), Vertex(id=TEA, cls=mem.Entity), Predicate(id=EX + "likes"),
         Message(id=EX + "m1", content="I like tea", event_id="evt-1")],
        graph=A,
    )
    return s


def refused(store: MemoryStore, shape: str, write) -> ValidationError:  # type: ignore[no-untyped-def]
    before = set(store.quads(with_index=True))
    with pytest.raises(ValidationError) as info:
        write()
    assert shape in {str(v.shape).strip("<>").rsplit("#", 1)[-1] for v in info.value.violations}, info.value
    assert set(store.quads(with_index=True)) == before, "a refused write left something behind"
    return info.value


def test_a_claim_about_vertices_typed_by_an_earlier_write_is_accepted(store: MemoryStore) -> None:
    c1 = store.add(Claim(id=EX + "c1", subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m1"), graph=A)
    assert c1 == NamedNode(EX + "c1")
    claim, graph = store.get_claim(c1, graph=A)  # stored, in tenant a, and readable as the same claim
    assert (claim.subject, claim.predicate, claim.object, graph) == (LIA, NamedNode(EX + "likes"), TEA, NamedNode(A))
    assert [r["claim"] for r in store.view("current", {"tenant": A})] == [c1]


def test_a_claim_whose_predicate_only_the_ontology_declares_is_accepted_in_a_store_with_data(store: MemoryStore) -> None:
    # mem:displayName is declared in the ontology graph, not by the data (invariant 4 reads it there).
    name = store.add(Claim(id=EX + "cName", subject=LIA, predicate=mem.displayName, object=Literal("Amelia"),
                           asserted_by=EX + "m1"), graph=A)
    claim, _ = store.get_claim(name, graph=A)
    assert (claim.predicate, claim.object) == (mem.displayName, Literal("Amelia"))


def test_install_makes_a_store_validate_every_write() -> None:
    store = validation.install(MemoryStore(validation=None))
    assert isinstance(store.validator, validation.WriteValidator) and store.validator.engine_name == "native"
    before = set(store.quads(with_index=True))
    with pytest.raises(ValidationError, match="TypedVertexShape"):  # tea is typed nowhere
        store.add(Claim(subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m1"), graph=A)
    assert set(store.quads(with_index=True)) == before


def test_the_same_claim_in_another_tenant_is_refused(store: MemoryStore) -> None:
    # In tenant b, Lia, tea, likes and m1 are not typed: they are tenant a's.
    refused(store, "TypedVertexShape", lambda: store.add(
        Claim(subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m1"), graph=B))


def test_a_link_into_another_tenant_is_refused(store: MemoryStore) -> None:
    if store.validator.engine_name == "pyshacl":
        pytest.skip("pySHACL cannot read other graphs: invariant 7 is the native engine's")
    refused(store, "TenantIsolationShape", lambda: store.load_data(
        PRELUDE + "ex:m9 a mem:Message ; mem:content \"hi\" ; prov:wasAttributedTo ex:Lia .",
        format="turtle", graph=B))


def test_a_retry_slipping_past_the_api_is_refused_by_its_event_id(store: MemoryStore) -> None:
    refused(store, "UniqueEventIdShape", lambda: store.load_data(
        PRELUDE + 'ex:m2 a mem:Message ; mem:content "I like tea" ; mem:eventId "evt-1" .',
        format="turtle", graph=A))
    # The same event id in another tenant is another event.
    store.load_data(PRELUDE + 'ex:m2 a mem:Message ; mem:content "I like tea" ; mem:eventId "evt-1" .',
                    format="turtle", graph=B)


@pytest.mark.parametrize("first, second", [(None, A), (A, None)], ids=["shared-then-tenant", "tenant-then-shared"])
def test_an_event_id_held_in_the_shared_default_graph_is_held_in_every_tenant(first, second) -> None:
    # A tenant's graph is validated with the shared default graph (memkg validate judges them so):
    # the same event id on each side is a retry stored twice, and the second write is refused.
    store = MemoryStore(validation="native")
    store.add(Message(id=EX + "m0", content="hi", event_id="e"), graph=first)
    refused(store, "UniqueEventIdShape",
            lambda: store.add(Message(id=EX + "m1", content="hi again", event_id="e"), graph=second))
    assert validation.validate_store(store).conforms


def test_closing_a_supersession_cycle_is_refused(store: MemoryStore) -> None:
    c1 = store.add(Claim(id=EX + "c1", subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m1"), graph=A)
    c2 = store.supersede(c1, Claim(id=EX + "c2", subject=LIA, predicate=EX + "likes", object=TEA, confidence=0.5,
                                   asserted_by=EX + "m1"), graph=A).claim
    c3 = store.supersede(c2, Claim(id=EX + "c3", subject=LIA, predicate=EX + "likes", object=TEA, confidence=0.6,
                                   asserted_by=EX + "m1"), graph=A).claim
    # c1 supersedes c3 would close c1 -> c3 -> c2 -> c1: the chain lives in the store, not in the write.
    refused(store, "AcyclicShape", lambda: store.load_data(
        PRELUDE + f"<{c1.value}> mem:supersedes <{c3.value}> .", format="turtle", graph=A))


@pytest.mark.parametrize("backend", [None, FarBackend], ids=["embedded", "distant"])
def test_a_large_write_is_judged_against_the_store_like_a_small_one(backend) -> None:  # type: ignore[no-untyped-def]
    # Past 64 nodes the descriptions, referrers and types, and past 500 nodes the chains, are read
    # by queries in chunks, not node by node (on a distant store always by queries): a valid large
    # write is accepted, one closing a cycle through the store refused.
    from memkg import Attachment

    store = MemoryStore(validation="native") if backend is None else MemoryStore(backend=backend(), validation="native")
    store.add_all([Vertex(id=LIA, cls=mem.Person), Vertex(id=TEA, cls=mem.Entity), Predicate(id=EX + "likes"),
                   Message(id=EX + "m1", content="I like tea", attachments=[
                       Attachment(id=EX + "photo", url="https://example.org/tea.jpg", caption="a cup")])], graph=A)
    c1 = store.add(Claim(id=EX + "c1", subject=LIA, predicate=EX + "likes", object=TEA, asserted_by=EX + "m1"), graph=A)
    c2 = store.supersede(c1, Claim(id=EX + "c2", subject=LIA, predicate=EX + "likes", object=TEA, confidence=0.5,
                                   asserted_by=EX + "m1"), graph=A).claim

    def many(first: int, extra: str = "") -> list[Quad]:
        people = " ".join(f"ex:p{i} a mem:Person ." for i in range(first, first + 300))
        claims = " ".join(f"ex:k{i} a mem:Claim ; rdf:reifies <<( ex:p{i} ex:likes ex:tea )>> ; mem:assertedBy ex:m1 ."
                          for i in range(first, first + 300))
        return list(parse(PRELUDE + people + claims + extra, RdfFormat.TURTLE, without_named_graphs=True))

    photo, tenant = NamedNode(EX + "photo"), NamedNode(A)
    old = next(store.quads(photo, mem.caption))
    # the attachment (judged with the message that holds it) and the claim c1 are described in the store
    store.change(remove=[old], add=[Quad(q.subject, q.predicate, q.object, tenant) for q in many(0)] + [
        Quad(photo, mem.caption, Literal("a full cup"), tenant), Quad(c1, mem.confidence, Literal("0.5", datatype=XSD_DECIMAL), tenant)])
    assert len(list(store.view("current", {"tenant": A}))) == 301  # c2 and the 300 new claims
    assert [q.object for q in store.quads(photo, mem.caption)] == [Literal("a full cup")]
    cycle = many(300, f" <{c1.value}> mem:supersedes <{c2.value}> .")
    refused(store, "AcyclicShape", lambda: store.write([Quad(q.subject, q.predicate, q.object, tenant) for q in cycle]))


def test_a_bad_confidence_in_a_file_is_refused_with_its_focus(store: MemoryStore) -> None:
    err = refused(store, "UnitIntervalShape", lambda: store.load_data(
        PRELUDE + 'ex:c5 a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:tea )>> ; mem:assertedBy ex:m1 ; '
                  'mem:confidence 1.2 .', format="turtle", graph=A))
    assert any(str(v.focus) == f"<{EX}c5>" for v in err.violations)


def test_the_write_path_refuses_nothing_that_is_valid(store: MemoryStore) -> None:
    store.load_data(
        PRELUDE + "ex:c6 a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:tea )>> ; mem:assertedBy ex:m1 ; "
                  "mem:confidence 0.5 .", format="turtle", graph=A)
    assert store.check_index().consistent


@pytest.mark.parametrize(
    ("link", "through"),
    [
        ("ex:m2 prov:wasDerivedFrom ex:m3 .", "directly"),
        ("ex:m2 mem:echoOf ex:m3 .", "by an echo"),
        ("ex:x prov:wasDerivedFrom ex:m3 .", "through a chain already in the store (m2 -> x)"),
    ],
)
def test_a_link_that_makes_one_group_member_rest_on_another_is_refused(store: MemoryStore, link: str, through: str) -> None:
    # Invariant 11 is judged at the group, which the write does not mention: the group must be
    # re-checked when a derivation or echo link joins two of its members, however far apart.
    store.load_data(
        PRELUDE + """
        ex:m2 a mem:Message ; mem:content "the benchmark" . ex:m3 a mem:Message ; mem:content "the incident" .
        ex:x a mem:Message ; mem:content "a digest" . ex:m2 prov:wasDerivedFrom ex:x .
        ex:g a mem:SupportGroup ; mem:member ex:m2, ex:m3 .
        ex:c7 a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:tea )>> ; mem:supportGroup ex:g .""",
        format="turtle", graph=A)
    err = refused(store, "SupportGroupShape", lambda: store.load_data(PRELUDE + link, format="turtle", graph=A))
    assert any(str(v.focus) == f"<{EX}g>" for v in err.violations), through


@pytest.mark.parametrize("how", ["SPARQL DELETE DATA", "MemoryStore.change"])
def test_untyping_a_shared_person_a_tenant_claim_is_about_is_refused(store: MemoryStore, how: str) -> None:
    """Invariant 2 holds after removals too: a person typed in the shared default graph cannot lose
    its type while a claim in a tenant's graph is about them (the referrer lives in another graph)."""
    from pyoxigraph import DefaultGraph, Quad

    from memkg.guard.access import OPEN
    from memkg.history.updates import apply_update
    from memkg.validation import validate_store

    sam = NamedNode(EX + "Sam")
    store.add(Vertex(id=sam, cls=mem.Person))  # the shared default graph
    store.add(Claim(id=EX + "c9", subject=sam, predicate=EX + "likes", object=TEA, asserted_by=EX + "m1"), graph=A)
    assert validate_store(store).conforms
    typed = Quad(sam, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), mem.Person, DefaultGraph())
    if how == "MemoryStore.change":
        err = refused(store, "TypedVertexShape", lambda: store.change(remove=[typed]))
    else:
        err = refused(store, "TypedVertexShape", lambda: apply_update(
            store, f"DELETE DATA {{ <{sam.value}> a <{mem.Person.value}> }}", grant=OPEN))
    assert any(str(v.focus) == f"<{EX}c9>" for v in err.violations)
    assert validate_store(store).conforms
    # Once nothing refers to Sam, the type may go.
    store.change(remove=list(store.quads(NamedNode(EX + "c9"), None, None)))
    store.change(remove=[typed])
    assert typed not in store and validate_store(store).conforms


def test_removing_a_quad_of_a_blank_node_retraction_is_judged_with_what_it_names(store: MemoryStore) -> None:
    """A retraction may be a blank node; changing it must not make the claims it names look untyped.

    (Removal validation once copied a blank node's own quads but not the types of the
    nodes they point to, and refused this valid change with TypedVertexShape.)"""
    from pyoxigraph import Literal

    store.load_data(PRELUDE + """
        ex:c1 a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:tea )>> ; mem:assertedBy ex:m1 .
        ex:c2 a mem:Claim ; rdf:reifies <<( ex:Lia ex:likes ex:tea )>> ; mem:assertedBy ex:m1 ; mem:supportedBy ex:c1 .
        [] a mem:Retraction ; mem:retracts ex:c1 ; mem:needsReview ex:c2 ; mem:reason "wrong" .""",
        format="turtle", graph=A)
    (reason,) = store.quads(None, mem.reason, Literal("wrong"))
    assert store.change(remove=[reason]) == 1
    assert reason not in store


def test_a_node_is_judged_with_what_points_at_it_where_a_shape_looks_backwards(store: MemoryStore) -> None:
    """An attachment belongs to a message (sh:inversePath mem:attachment): changing its caption
    alone is judged with the message that holds it, so the write is accepted and stored; an
    attachment that no message holds is still refused."""
    from memkg import Attachment

    store.add(Message(id=EX + "look", content="Look!", attachments=[
        Attachment(id=EX + "photo", url="https://example.org/kayak.jpg", caption="a red kayak")]), graph=A)
    photo, tenant = NamedNode(EX + "photo"), NamedNode(A)
    old = next(store.quads(photo, mem.caption))
    new = Quad(photo, mem.caption, Literal("a yellow canoe"), tenant)
    store.change(remove=[old], add=[new])
    assert [q.object for q in store.quads(photo, mem.caption)] == [Literal("a yellow canoe")]
    orphan = NamedNode(EX + "orphan")
    refused(store, "AttachmentShape", lambda: store.write([
        Quad(orphan, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), mem.Attachment, tenant),
        Quad(orphan, mem.url, Literal("https://example.org/x.jpg",
                                      datatype=NamedNode("http://www.w3.org/2001/XMLSchema#anyURI")), tenant)]))
