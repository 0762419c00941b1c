"""memkg's own vocabulary is closed (invariant 13): a ``mem:`` term the ontology does not define
is refused by every write path (a loaded file, SPARQL Update, the API, the agent tools), naming
the closest term it does define; and a role whose far end (or near end) is of the wrong class
names the class the role expects."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg import MemoryStore
from memkg.adapters.agent_tools import MemoryTools
from memkg.adapters.agent_tools.tools import refusal
from memkg.adapters.cli import main
from memkg.core.errors import ValidationError
from memkg.guard.access import OPEN
from memkg.history.updates import apply_update

from tests.support.examples import EX, LIA, LIA_GRAPH

PREFIXES = f"PREFIX ex: <{EX}>\nPREFIX mem: <https://w3id.org/memkg#>\n"
TYPOS = [
    ("ex:c0 mem:confidnece 0.5 .", "mem:confidnece", "mem:confidence"),
    ("ex:mNew a mem:Mesage ; mem:content \"hi\" .", "mem:Mesage", "mem:Message"),
    ("ex:c0 mem:assertedby ex:m0 .", "mem:assertedby", "mem:assertedBy"),
]


@pytest.fixture(params=["native", "pyshacl"])
def lia(request: pytest.FixtureRequest) -> MemoryStore:
    store = MemoryStore(validation=request.param)
    store.load(LIA)
    return store


def _refusal(write: object) -> str:
    with pytest.raises(ValidationError) as refused:
        write()  # type: ignore[operator]
    return str(refused.value)


@pytest.mark.parametrize(("turtle", "written", "closest"), TYPOS)
def test_a_load_with_an_undefined_mem_term_is_refused_naming_the_closest_term(
        lia: MemoryStore, turtle: str, written: str, closest: str) -> None:
    size = len(lia)
    text = _refusal(lambda: lia.load_data(PREFIXES + turtle, format="turtle", graph=LIA_GRAPH))
    assert "ClosedVocabularyShape" in text and written.replace("mem:", "https://w3id.org/memkg#") in text
    assert f"the closest term memkg defines is {closest}" in text
    assert len(lia) == size


def test_an_update_with_an_undefined_mem_term_is_refused(lia: MemoryStore) -> None:
    update = PREFIXES + f"INSERT DATA {{ GRAPH <{LIA_GRAPH}> {{ ex:m0 mem:sender ex:Lia }} }}"
    text = _refusal(lambda: apply_update(lia, update, grant=OPEN))
    assert "ClosedVocabularyShape" in text and "https://w3id.org/memkg#sender" in text
    assert "the closest term memkg defines is mem:member" in text


def test_the_agent_tools_refuse_an_undefined_mem_predicate() -> None:
    tools = MemoryTools(MemoryStore())
    tools.remember_entity(OPEN, id="urn:x:lia", kind="Person", name="Lia")
    with pytest.raises(ValidationError) as refused:
        tools.remember_claim(OPEN, subject="urn:x:lia", predicate="mem:confidnece", object_value="x",
                             supported_by=["urn:x:lia"])
    text = str(refusal(refused.value))
    assert "ClosedVocabularyShape" in text and "closest term memkg defines is mem:confidence" in text


def test_validating_a_file_names_the_closest_term(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "typo.ttl"
    data.write_text(PREFIXES + "ex:Lia a mem:Person ; mem:displayNmae \"Lia\" .\n", encoding="utf-8")
    assert main(["validate", str(data)]) == 1
    out = capsys.readouterr().out
    assert "mem:ClosedVocabularyShape" in out and "closest term memkg defines is mem:displayName" in out


def test_memkgs_own_terms_pass(lia: MemoryStore) -> None:
    lia.load_data(PREFIXES + "ex:c0 mem:confidence 0.5 .", format="turtle", graph=LIA_GRAPH)


@pytest.mark.parametrize(("turtle", "expected"), [
    ("ex:c0 mem:assertedBy ex:Lia .", "goes to a mem:Message"),
    ("ex:c0 mem:context ex:m0 .", "goes to a mem:Context"),
    ("ex:Lia mem:assertedBy ex:m0 .", "goes from a mem:Claim"),
    ("ex:m0 mem:participant ex:Lia .", "goes from a mem:Episode or mem:Action"),
])
def test_a_role_of_the_wrong_class_names_the_class_expected(lia: MemoryStore, turtle: str, expected: str) -> None:
    text = _refusal(lambda: lia.load_data(PREFIXES + turtle, format="turtle", graph=LIA_GRAPH))
    assert "RoleTypesShape" in text and expected in text
