"""Every limit at exactly its value and one past; half-open times at their ends; SHACL ranges
judged alike on the SPARQL path and the Python path (issue 31)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Triple

from memkg import Claim, MemoryStore, Message, Predicate, Vertex, mem
from memkg.guard.limits import LimitExceeded, Limits
from memkg.shacl.components.value_range import COMPONENTS

EX = "https://example.org/bounds/"
A = "https://example.org/tenants/a"
UTC = timezone.utc


def refused_by(name: str, check) -> LimitExceeded:  # type: ignore[no-untyped-def]
    with pytest.raises(LimitExceeded) as info:
        check()
    assert info.value.limit == name, info.value
    return info.value


# -- limits ---------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_rdf_nesting_at_max_depth_is_read_and_one_deeper_is_refused(depth: int) -> None:
    def nested(n: int) -> str:
        inner = "<urn:a> <urn:b> <urn:c>"
        for _ in range(n):
            inner = f"<urn:a> <urn:b> <<( {inner} )>>"
        return inner + " ."

    limits = Limits(max_depth=depth)
    limits.check_rdf(nested(depth).encode())
    err = refused_by("max_depth", lambda: limits.check_rdf(nested(depth + 1).encode()))
    assert f"{depth + 1} deep" in str(err) and f"limit of {depth}" in str(err) and "--max-depth" in str(err)


@pytest.mark.parametrize("depth", [1, 3, 8])
def test_sparql_brackets_at_max_depth_are_read_and_one_deeper_is_refused(depth: int) -> None:
    def query(n: int) -> str:
        return "ASK { FILTER(" + "(" * (n - 1) + "true" + ")" * (n - 1) + ") }"

    limits = Limits(max_depth=depth + 1)  # the group's brace is one level
    limits.check_query(query(depth))
    refused_by("max_depth", lambda: limits.check_query(query(depth + 1)))


def test_a_literal_of_exactly_max_literal_characters_is_read_and_one_more_is_refused() -> None:
    limits = Limits(max_literal=10)
    s, p = NamedNode("urn:s"), NamedNode("urn:p")
    limits.check_literals([Quad(s, p, Literal("é" * 10))])  # characters, not bytes
    limits.check_literals([Quad(s, p, Triple(s, p, Literal("é" * 10)))])  # inside a triple term too
    refused_by("max_literal", lambda: limits.check_literals([Quad(s, p, Triple(s, p, Literal("é" * 11)))]))
    err = refused_by("max_literal", lambda: limits.check_literals([Quad(s, p, Literal("é" * 11))]))
    assert "11 characters" in str(err) and "limit of 10" in str(err)


@pytest.mark.parametrize("name, check", [("max_query", Limits.check_query), ("max_update", Limits.check_update)])
def test_sparql_text_of_exactly_its_limit_in_utf8_bytes_is_read_and_one_byte_more_is_refused(name: str, check) -> None:  # type: ignore[no-untyped-def]
    text = "ASK { FILTER('é') }" if name == "max_query" else "INSERT DATA { <urn:s> <urn:p> 'é' }"
    size = len(text.encode())  # 'é' is two bytes: a character count would be one short
    check(Limits(**{name: size}), text)
    refused_by(name, lambda: check(Limits(**{name: size - 1}), text))


@pytest.mark.parametrize("name", ["max_query", "max_update", "max_body"])
def test_a_size_limit_of_one_is_allowed_and_zero_is_not(name: str) -> None:
    Limits(**{name: 1}).check_size(name, 1, "it")
    with pytest.raises(ValueError, match=name):
        Limits(**{name: 0})


def test_the_body_limit_answers_413_and_the_others_400() -> None:
    limits = Limits(max_body=5, max_query=5)
    assert refused_by("max_body", lambda: limits.check_size("max_body", 6, "the body")).status == 413
    assert refused_by("max_query", lambda: limits.check_size("max_query", 6, "the query")).status == 400


def test_recall_k_of_one_is_one_hit_and_zero_is_refused() -> None:
    store = MemoryStore()
    store.add_all([Message(id=EX + f"m{i}", content=f"tea time number {i}", event_id=str(i)) for i in range(3)])
    assert len(store.recall("tea time", k=1)) == 1
    with pytest.raises(ValueError, match="k must be at least 1"):
        store.recall("tea time", k=0)


# -- half-open times --------------------------------------------------------------------------


FROM, UNTIL = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
MS = timedelta(milliseconds=1)


@pytest.fixture(scope="module")
def dated() -> tuple[MemoryStore, NamedNode]:
    store = MemoryStore()
    store.add_all([Vertex(id=EX + "lia", cls=mem.Person, display_name="Lia"), Predicate(id=EX + "drinks", label="drinks"),
                   Vertex(id=EX + "tea", display_name="tea"), Message(id=EX + "m", content="Lia drinks tea", event_id="1")],
                  graph=A)
    claim = store.add(Claim(subject=EX + "lia", predicate=EX + "drinks", object=NamedNode(EX + "tea"), asserted_by=EX + "m",
                            valid_from=FROM, valid_until=UNTIL), graph=A)
    return store, claim


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")  # to the microsecond the store records


@pytest.mark.parametrize("at, inside", [(FROM - MS, False), (FROM, True), (UNTIL - MS, True), (UNTIL, False)],
                         ids=["before-from", "at-from", "just-before-until", "at-until"])
def test_valid_time_is_half_open_in_the_historical_view(dated, at: datetime, inside: bool) -> None:
    store, claim = dated
    rows = store.view("historical", {"tenant": A, "valid_at": _iso(at)})
    assert (claim in [r["claim"] for r in rows]) is inside


@pytest.mark.parametrize("at, inside", [(FROM - MS, False), (FROM, True), (UNTIL - MS, True), (UNTIL, False)],
                         ids=["before-from", "at-from", "just-before-until", "at-until"])
def test_valid_time_is_half_open_in_recall(dated, at: datetime, inside: bool) -> None:
    store, claim = dated
    (hit,) = [h for h in store.recall("Lia drinks tea", tenant=A, k=20, valid_at=at) if h.node == claim.value]
    assert (hit.status == "current") is inside, hit.status


def test_transaction_time_a_claim_is_known_from_the_instant_it_was_recorded(dated) -> None:
    store, claim = dated
    (q,) = store.quads(claim, mem.recordedAt)
    recorded = datetime.fromisoformat(q.object.value.replace("Z", "+00:00"))
    def known(at: datetime) -> bool:
        return claim in [r["claim"] for r in store.view("audit", {"tenant": A, "known_at": _iso(at),
                                                                       "valid_at": _iso(FROM)})]
    step = timedelta(microseconds=1)
    assert known(recorded) and known(recorded + step)
    assert not known(recorded - step)


# -- SHACL ranges: the SPARQL path and the Python path agree -----------------------------------


XSD = "http://www.w3.org/2001/XMLSchema#"
BOUND = Literal("5", datatype=NamedNode(XSD + "integer"))
VALUES = [Literal(v, datatype=NamedNode(XSD + t)) for v, t in
          [("4", "integer"), ("5", "integer"), ("6", "integer"), ("4.9", "decimal"), ("5.0", "decimal"),
           ("5.1", "decimal"), ("-5", "integer"), ("05", "integer")]]


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.__name__)
def test_range_components_judge_alike_in_python_and_in_sparql(component) -> None:  # type: ignore[no-untyped-def]
    """``surely_conforms`` (Python numbers) may only ever say yes where ``judge`` (SPARQL's
    comparison, by value) finds nothing; and at the bound it must say what SPARQL says."""
    comp = component.__new__(component)
    comp.params = {component.PARAM.value.rsplit("#", 1)[1]: BOUND}
    for value in VALUES:
        sparql_ok = comp.judge([value], NamedNode("urn:x"), None) == []
        python_ok = comp.surely_conforms([value], NamedNode("urn:x"), None)
        assert sparql_ok or not python_ok, ("Python cleared what SPARQL refuses", component.__name__, value)
        if value.value != "05":  # a numeral Python reads (canonical, short) is decided there, as SPARQL would
            assert python_ok == sparql_ok, (component.__name__, value, python_ok, sparql_ok)
        expected = {">": Decimal(value.value) > 5, ">=": Decimal(value.value) >= 5,
                    "<": Decimal(value.value) < 5, "<=": Decimal(value.value) <= 5}[component.OPERATOR]
        assert sparql_ok is expected, (component.__name__, value)
