"""Lanes and source types (memkg.tags.policy): the file format, the checks, the refusals, the generated shapes.

Each file under ``tests/fixtures/policy`` named ``invalid-*.trig`` starts with an
``# expect: SHAPE FOCUS`` line: the shape that must be reported (``mem:…`` for
memkg's edge-property invariants, ``policy:…`` for a shape generated from
``policy.toml``) and a focus node it must be reported on; no other shape may be
reported. ``valid-*.trig`` files conform. Both engines must agree exactly.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from pyoxigraph import NamedNode, RdfFormat, parse

from memkg import MemoryStore, Message, ParseError
from memkg.tags.policy import SHAPES_BASE, Policy, PolicyError, PolicyFormatError, base_shapes
from memkg.tags import EdgeProperty, Tags
from memkg.validation import validate_files, validate_store

from tests.support.examples import data_quads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "policy"
POLICY = FIXTURES / "policy.toml"
VALID = sorted(FIXTURES.glob("valid-*.trig"))
INVALID = sorted(FIXTURES.glob("invalid-*.trig"))
ENGINES = ["native", "pyshacl"]
MEM = "https://w3id.org/memkg#"
FX = "https://example.org/fx/"
TENANT = "https://example.org/tenants/acme"

logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)


@pytest.fixture(scope="module")
def policy() -> Policy:
    return Policy.load(POLICY)


@pytest.fixture(scope="module")
def shapes_file(tmp_path_factory: pytest.TempPathFactory, policy: Policy) -> Path:
    return policy.write_shapes(tmp_path_factory.mktemp("shapes") / "policy-shapes.ttl")


# -- the file ---------------------------------------------------------------------------------------


def test_reads_the_policy_file(policy: Policy) -> None:
    assert sorted(policy.lanes) == ["crm", "notes"]
    crm, notes = policy.lanes["crm"], policy.lanes["notes"]
    assert crm.closed and not notes.closed
    assert sorted(crm.source_types) == ["call", "email"]
    email = crm.source_types["email"]
    assert email.schema == "crm/email"
    assert email.labels["org"].values is None and email.labels["org"].pattern is None
    assert email.labels["topic"].values == {"renewal", "pricing", "billing", "support"}
    assert crm.source_types["call"].labels["stage"].pattern == "^(lead|qualified|won|lost)$"
    assert policy.lane("default") is not None and not policy.lane("default").closed
    assert policy.lane("sales") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[lanes.crm]\ncolour = 'red'", r"lanes\.crm: unknown key\(s\) colour"),
        ("lane = 1", r"unknown key\(s\) lane"),
        ("[lanes.'crm/x']", "lane name"),
        ("[lanes.crm.source_types]", "at least one source type"),
        ("[lanes.crm.source_types.'e mail']\nlabels = {}", "source type name"),
        ("[lanes.crm.source_types.email]\nlabels = { e_connect = '*' }", "reserved"),
        ("[lanes.crm.source_types.email]\nlabels = { 'my org' = '*' }", "write the label as stored: 'my_org'"),
        ("[lanes.crm.source_types.email]\nlabels = { 'a:b' = '*' }", "colon"),
        ("[lanes.crm.source_types.email]\nlabels = { org = 'any' }", r'expected "\*"'),
        ("[lanes.crm.source_types.email]\nlabels = { org = [] }", "non-empty list"),
        ("[lanes.crm.source_types.email]\nlabels = { org = ['  '] }", "empty"),
        ("[lanes.crm.source_types.email]\nlabels = { org = { pattern = '(' } }", "not a regular expression"),
        ("[lanes.crm.source_types.email]\nlabels = { org = { values = ['a'], colour = 1 } }", "unknown key"),
        ("[lanes.crm.source_types.email]\nlabels = 3", "labels: expected a table"),
    ],
)
def test_invalid_policies_are_refused_with_the_key_path(text: str, message: str) -> None:
    with pytest.raises(PolicyFormatError, match=message):
        Policy.loads(text, source="p.toml")


def test_bad_toml_is_a_parse_error_with_line_and_column() -> None:
    with pytest.raises(ParseError) as err:
        Policy.load(FIXTURES / "bad-syntax.toml")
    assert err.value.file.endswith("bad-syntax.toml") and err.value.line == 2 and err.value.column is not None
    assert "bad-syntax.toml:2:" in str(err.value)


# -- the checks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lane", "source", "props", "problem"),
    [
        ("crm", "email", ["org:Acme", "person:Sarah", "topic:renewal"], None),
        ("crm", "email", ["e_connect:e_connect_" + "0" * 32], None),  # the engine's hyperedges go everywhere
        ("crm", "call", ["stage:won", "org:Acme"], None),
        ("notes", None, ["mood:curious", "anything:goes"], None),
        (None, None, ["anything:goes"], None),  # the default lane is open unless declared
        ("crm", "email", ["mood:cross"], "label 'mood' is not allowed (allowed labels: org, person, topic)"),
        ("crm", "email", ["topic:gossip"], "value 'gossip' of label 'topic' is not allowed (allowed: billing, "),
        ("crm", "call", ["stage:maybe"], "must match ^(lead|qualified|won|lost)$"),
        ("crm", "call", ["topic:renewal"], "label 'topic' is not allowed"),
        ("crm", None, ["org:Acme"], "lane 'crm' is closed: a record in it names one of its source types (call, email)"),
        ("crm", "fax", ["org:Acme"], "lane 'crm' has no source type 'fax' (declared: call, email)"),
        ("notes", "email", ["org:Acme"], "lane 'notes' declares no source types"),
        (None, "email", ["org:Acme"], "lane 'default' declares no source types"),
        ("sales", None, ["org:Acme"], "unknown lane 'sales' (the policy's lanes: crm, default, notes)"),
    ],
)
def test_check(policy: Policy, lane: str | None, source: str | None, props: list[str], problem: str | None) -> None:
    if problem is None:
        assert policy.violations(lane, source, props) == []
        policy.check(lane, source, props)
    else:
        with pytest.raises(PolicyError) as err:
            policy.check(lane, source, props)
        assert problem in str(err.value)


def test_every_problem_is_named(policy: Policy) -> None:
    problems = policy.violations("crm", "email", ["mood:cross", "topic:gossip", "org:Acme", "tone:sharp"])
    assert len(problems) == 3
    assert all(p.startswith("lane 'crm', source type 'email': ") for p in problems)


def test_a_declared_default_lane_can_be_closed() -> None:
    policy = Policy.loads("[lanes.default.source_types.chat]\nlabels = { topic = '*' }")
    assert policy.violations(None, None, ["topic:x"]) == [
        "lane 'default' is closed: a record in it names one of its source types (chat)"]
    assert policy.violations(None, "chat", ["topic:x"]) == []


# -- writes under a policy ------------------------------------------------------------------------


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


def test_writes_breaking_the_policy_are_refused_whole(store: MemoryStore, policy: Policy) -> None:
    tags = Tags(store, graph=TENANT, policy=policy)
    m1, m2 = (store.add(Message(content=n, id=f"urn:x:{n}"), graph=TENANT) for n in ("m1", "m2"))
    tags.add(m1, ["org:Acme", "topic:renewal"], lane="crm", source_type="email")
    before = data_quads(store)
    with pytest.raises(PolicyError, match=r"urn:x:m1.*label 'mood' is not allowed"):
        tags.add(m1, ["person:Sarah", "mood:cross"])  # refused whole: Sarah is not added either
    with pytest.raises(PolicyError, match="value 'gossip'"):
        tags.update(m1, ["topic:gossip"])
    with pytest.raises(PolicyError, match="is closed"):
        tags.add(m2, ["org:Acme"], lane="crm")
    with pytest.raises(PolicyError, match="unknown lane 'sales'"):
        tags.add(m2, ["org:Acme"], lane="sales")
    assert data_quads(store) == before
    closed_default = Tags(store, graph=TENANT, policy=Policy.loads(
        "[lanes.crm.source_types.email]\nlabels = { org = '*', topic = '*' }\n"
        "[lanes.default.source_types.chat]\nlabels = { topic = '*' }"))
    with pytest.raises(PolicyError, match="lane 'default' is closed"):
        closed_default.connect(m1, m2)  # m2 is in the default lane, closed here, and names no source type
    assert data_quads(store) == before


def test_reserved_hyperedges_and_removals_pass_the_policy(store: MemoryStore, policy: Policy) -> None:
    tags = Tags(store, graph=TENANT, policy=policy)
    m1, m2 = (store.add(Message(content=n, id=f"urn:x:{n}"), graph=TENANT) for n in ("m1", "m2"))
    tags.add(m1, ["org:Acme"], lane="crm", source_type="email")
    tags.add(m2, ["org:Acme", "stage:won"], lane="crm", source_type="call")
    assert tags.connect(m1, m2).changed
    assert tags.group([m1, m2]).changed
    # A policy tightened later: the record's current set breaks it, but removing never is refused.
    strict = Policy.loads("[lanes.crm.source_types.call]\nlabels = { stage = '*' }\n"
                          "[lanes.crm.source_types.email]\nlabels = { org = '*' }")
    tight = Tags(store, graph=TENANT, policy=strict)
    with pytest.raises(PolicyError, match="label 'org' is not allowed"):
        tight.add(m2, ["stage:lost"])
    assert tight.remove(m2, "org").changed
    assert tight.update(m2, ["stage:lost"]).changed


@pytest.mark.slow
def test_the_shapes_agree_with_the_api(store: MemoryStore, policy: Policy, shapes_file: Path) -> None:
    """What Tags writes under the policy conforms to the shapes generated from it."""
    tags = Tags(store, graph=TENANT, policy=policy)
    nodes = [store.add(Message(content=n, id=f"urn:x:{n}"), graph=TENANT) for n in ("a", "b", "c", "d")]
    tags.add(nodes[0], ["org:Acme", "topic:renewal"], lane="crm", source_type="email")
    tags.add(nodes[1], ["org:Acme", "stage:won"], lane="crm", source_type="call")
    tags.add(nodes[2], ["mood:curious"], lane="notes")
    tags.add(nodes[3], ["free:form"])
    tags.update(nodes[0], ["topic:pricing"])
    tags.connect(nodes[0], nodes[1])
    tags.group(nodes[1:])
    tags.adjusts(nodes[3], nodes[2])
    tags.remove(nodes[2], "mood")
    for engine in ENGINES:
        report = validate_store(store, engine=engine, extra_shapes=[shapes_file])
        assert report.conforms, report.to_text()


# -- the generated shapes ----------------------------------------------------------------------------


def expectations(path: Path) -> list[tuple[str, str]]:
    found = re.findall(r"^# expect: (\S+) (\S+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, f"{path.name} has no '# expect:' line"
    expand = lambda t: t.replace("mem:", MEM, 1).replace("policy:", SHAPES_BASE, 1).replace("ex:", FX, 1).strip("<>")  # noqa: E731
    return [(expand(shape), expand(focus)) for shape, focus in found]


def test_shapes_are_turtle_that_both_engines_read(policy: Policy, shapes_file: Path) -> None:
    quads = list(parse(path=str(shapes_file), format=RdfFormat.TURTLE))
    assert len(quads) == len(policy.to_shapes())
    selects = [q.object.value for q in quads if q.predicate.value.endswith("#select")]
    assert selects and not any(re.search(r"\b(VALUES|MINUS|SERVICE)\b", s) for s in selects)
    named = {q.subject.value for q in quads if isinstance(q.subject, NamedNode)}
    assert {SHAPES_BASE + k for k in ("lanes", "lane:crm", "lane:crm/email", "lane:crm/call", "lane:notes",
                                      "lane:default")} <= named
    assert {MEM + "EdgePropertyShape", MEM + "ReservedEdgeShape", MEM + "RecordVersionShape"} <= named
    assert not any(q.subject.value.startswith(MEM) for q in policy.to_shapes(include_base=False)
                   if isinstance(q.subject, NamedNode))
    assert set(base_shapes()) <= set(policy.to_shapes())
    custom = policy.to_shapes(base="https://example.org/shapes/", include_base=False)
    assert any(q.subject == NamedNode("https://example.org/shapes/lane:crm/email") for q in custom)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_good_data_conforms(path: Path, engine: str, shapes_file: Path) -> None:
    report = validate_files([path], engine=engine, extra_shapes=[shapes_file])
    assert report.conforms, report.to_text()
    assert report.results == []


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_bad_data_breaks_exactly_the_rule_it_names(path: Path, shapes_file: Path) -> None:
    """Each engine reports the named shape on the named focus, and nothing else; both report the same results."""
    reports = {e: validate_files([path], engine=e, extra_shapes=[shapes_file]) for e in ENGINES}
    expected = expectations(path)
    for engine, report in reports.items():
        assert not report.conforms, engine
        shapes = {str(r.shape).strip("<>") for r in report.results}
        assert shapes == {s for s, _ in expected}, f"{engine}:\n{report.to_text()}"
        for shape, focus in expected:
            assert focus in {str(r.focus).strip("<>") for r in report.results if str(r.shape).strip("<>") == shape}
    native, reference = (sorted(r.key() for r in reports[e].results) for e in ENGINES)
    assert native == reference


def test_messages_name_the_rule(shapes_file: Path) -> None:
    report = validate_files([FIXTURES / "invalid-policy-value-not-allowed.trig"], engine="native",
                            extra_shapes=[shapes_file])
    (result,) = report.results
    assert "value gossip of label topic is not allowed (allowed: billing, pricing, renewal, support)" in result.message
    assert str(result.value) == f"<{EdgeProperty('topic', 'gossip').iri.value}>"
