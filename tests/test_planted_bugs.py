"""One test per realistic bug of issue 31's table: each fails with the bug planted and passes without.

The bugs sit at boundaries (a claim at exactly its ``validUntil``, a size equal to its limit, an
exclusive bound), in scope (a claim's refuters from another tenant), in reach (erasure through
``prov:wasGeneratedBy``), in defaults (a token without ``"write"``), in what a write judges (a
blank-node subject) and in documented output (the ``"graph"`` of a JSON validation result).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode

from memkg import Claim, MemoryStore, Message, Predicate, ValidationError, Vertex, mem
from memkg import provenance as P
from memkg.adapters.cli import main
from memkg.guard.access import Tokens
from memkg.guard.limits import LimitExceeded, Limits

EX = "https://example.org/planted/"
A, B = "https://example.org/tenants/a", "https://example.org/tenants/b"
UTC = timezone.utc
PRELUDE = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""


def test_recall_a_claim_at_exactly_its_valid_until_is_no_longer_current() -> None:
    store = MemoryStore()
    until = datetime(2023, 6, 1, tzinfo=UTC)
    store.add_all([Vertex(id=EX + "lia", cls=mem.Person, display_name="Lia"), Predicate(id=EX + "drinks", label="drinks"),
                   Vertex(id=EX + "coffee", display_name="coffee"),
                   Message(id=EX + "m", content="Lia drinks coffee", event_id="1")])
    claim = store.add(Claim(subject=EX + "lia", predicate=EX + "drinks", object=NamedNode(EX + "coffee"),
                            asserted_by=EX + "m", valid_until=until))

    def status(valid_at: datetime) -> str:
        (hit,) = [h for h in store.recall("Lia drinks coffee", k=20, valid_at=valid_at) if h.node == claim.value]
        return hit.status

    assert status(datetime(2023, 5, 31, 23, 59, 59, tzinfo=UTC)) == "current"
    assert status(until) == "not-valid", "validity is [from, until): the until instant is outside"


def test_support_reads_a_claims_refuters_only_in_its_tenant() -> None:
    store = MemoryStore(validation=None)
    for graph in (A, B):
        store.load_data(PRELUDE + """
            ex:m a mem:Message ; mem:content "Lia drinks tea" .
            ex:c a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:tea )>> ; mem:assertedBy ex:m ; mem:supportedBy ex:m .""",
                        format="turtle", graph=graph)
    store.load_data(PRELUDE + "ex:probe mem:refutes ex:c .", format="turtle", graph=B)
    assert P.support(store, EX + "c", tenant=B).refuted_by == (NamedNode(EX + "probe"),)
    assert P.support(store, EX + "c", tenant=A).refuted_by == (), "tenant B's refuter leaked into tenant A"


def test_erasure_removes_what_an_activity_generated_from_the_erased_source() -> None:
    store = MemoryStore()
    store.load_data(PRELUDE + f"""GRAPH <{A}> {{
        ex:m a mem:Message ; mem:content "Lia drinks tea" ; mem:eventId "1" .
        ex:run a prov:Activity ; prov:used ex:m .
        ex:summary a mem:Message ; mem:content "a summary of what Lia drinks" ; prov:wasGeneratedBy ex:run .
    }}""", format="trig")
    result = P.erase(store, EX + "m", reason="consent revoked", graph=A)
    assert NamedNode(EX + "summary") in set(result.removed)
    assert not any(store.quads(NamedNode(EX + "summary"), mem.content, None))
    assert not any(store.quads(None, None, Literal("a summary of what Lia drinks")))


@pytest.mark.parametrize("bound, value, conforms", [
    ("sh:minExclusive", 5, False), ("sh:minExclusive", 6, True),
    ("sh:maxExclusive", 5, False), ("sh:maxExclusive", 4, True),
    ("sh:minInclusive", 5, True), ("sh:minInclusive", 4, False),
    ("sh:maxInclusive", 5, True), ("sh:maxInclusive", 6, False),
])
@pytest.mark.parametrize("wrapped", [False, True], ids=["direct", "in-sh:or"])
@pytest.mark.parametrize("focus", [False, True], ids=["whole", "focus"])
def test_shacl_range_bounds_at_the_boundary(tmp_path: Path, bound: str, value: int, conforms: bool, wrapped: bool,
                                            focus: bool) -> None:
    """Validating everything, SPARQL judges; with focus nodes, the Python comparisons of
    ``surely_conforms`` first clear what they can (inside sh:or too: its second member never
    holds, so the range alone decides)."""
    constraint = f"{bound} 5"
    if wrapped:
        constraint = f'sh:or ( [ {bound} 5 ] [ sh:in ( "never" ) ] )'
    shapes = f"""PREFIX sh: <http://www.w3.org/ns/shacl#>
PREFIX ex: <{EX}>
ex:S a sh:NodeShape ; sh:targetNode ex:x ; sh:property [ sh:path ex:age ; {constraint} ] .
"""
    data = f"PREFIX ex: <{EX}>\nex:x ex:age {value} .\n"
    (tmp_path / "shapes.ttl").write_text(shapes)
    (tmp_path / "data.ttl").write_text(data)
    code = main(["--store", str(tmp_path / "store"), "validate", str(tmp_path / "data.ttl"),
                 "--shapes", str(tmp_path / "shapes.ttl"), "--shapes-only", "--format", "json",
                 *(["--focus", EX + "x"] if focus else [])])
    assert (code == 0) is conforms, f"{value} against {bound} 5"


@pytest.mark.parametrize("name", ["max_body", "max_query", "max_update"])
def test_every_size_limit_allows_its_value_and_refuses_one_past(name: str) -> None:
    limits = Limits(**{name: 100})
    limits.check_size(name, 100, "the thing")  # exactly the limit: allowed
    with pytest.raises(LimitExceeded) as info:
        limits.check_size(name, 101, "the thing")
    assert info.value.limit == name and "101" in str(info.value) and "100" in str(info.value)


def test_a_token_is_read_only_unless_its_entry_says_write_true(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({
        "reader-token-0001": {"tenants": [A]},
        "writer-token-0001": {"tenants": [A], "write": True},
        "nowrite-token-001": {"tenants": [A], "write": False},
    }))
    tokens = Tokens.load(path)
    assert tokens.holder("reader-token-0001").write is False
    assert tokens.holder("nowrite-token-001").write is False
    assert tokens.holder("writer-token-0001").write is True


def test_a_write_whose_only_offending_node_is_a_blank_node_is_refused() -> None:
    store = MemoryStore()
    store.add(Message(id=EX + "m", content="Lia drinks tea", event_id="1"), graph=A)
    # A store that holds something, so the write is judged by its focus nodes, not as a whole.
    with pytest.raises(ValidationError) as info:
        store.load_data(PRELUDE + 'ex:m mem:reason "fine" . [] a mem:Claim ; mem:assertedBy ex:m ; mem:reason "wrong" .',
                        format="turtle", graph=A)
    assert info.value.violations
    assert not any(store.quads(None, mem.reason, Literal("wrong")))


def test_the_json_validation_report_names_each_results_graph(tmp_path: Path, capsys) -> None:
    (tmp_path / "shapes.ttl").write_text(f"""PREFIX sh: <http://www.w3.org/ns/shacl#>
PREFIX ex: <{EX}>
ex:S a sh:NodeShape ; sh:targetNode ex:x ; sh:property [ sh:path ex:age ; sh:minInclusive 5 ] .
""")
    (tmp_path / "data.trig").write_text(f"PREFIX ex: <{EX}>\n<{A}> {{ ex:x ex:age 1 . }}\n")
    capsys.readouterr()
    code = main(["--store", str(tmp_path / "store"), "validate", str(tmp_path / "data.trig"),
                 "--shapes", str(tmp_path / "shapes.ttl"), "--shapes-only", "--format", "json"])
    results = json.loads(capsys.readouterr().out)["results"]
    assert code == 1 and results
    documented = {"severity", "shape", "focusNode", "resultPath", "value", "sourceConstraintComponent",
                  "sourceShape", "graph", "message", "file", "line", "column"}
    for r in results:
        assert documented <= set(r), sorted(documented - set(r))
        assert r["graph"]["value"] == A, r["graph"]
