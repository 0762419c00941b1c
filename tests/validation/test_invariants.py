"""The invariants: every good fixture conforms; every bad one breaks exactly the invariant it names.

Each file under ``tests/fixtures/invalid`` starts with ``# expect: SHAPE FOCUS``
lines: the named shape (one invariant) that must be reported, and a focus node
it must be reported on (``_:`` for any blank node). Both engines must agree.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from memkg.validation import validate_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VALID = sorted((FIXTURES / "valid").glob("*.trig"))
INVALID = sorted((FIXTURES / "invalid").glob("*.trig"))
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.trig"))
MEM = "https://w3id.org/memkg#"
FX = "https://example.org/fx/"
ENGINES = ["native", "pyshacl"]

# rdflib logs a traceback for every ill-typed literal it meets; the fixtures have some on purpose.
logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)


def expectations(path: Path) -> list[tuple[str, str]]:
    found = re.findall(r"^# expect: mem:(\w+) (\S+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, f"{path.name} has no '# expect:' line"
    return [(MEM + shape, focus.replace("ex:", FX)) for shape, focus in found]


def skip_unsupported(engine: str, path: Path) -> None:
    if engine == "pyshacl" and path.name.startswith("inv7-"):
        pytest.skip("pySHACL validates one rdflib graph and cannot read other tenants' graphs (GRAPH): "
                    "invariant 7 is checked by the native engine only")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", VALID + EXAMPLES, ids=lambda p: p.stem)
def test_good_data_conforms(path: Path, engine: str) -> None:
    report = validate_files([path], engine=engine)
    assert report.conforms, report.to_text()
    assert report.results == []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_bad_data_breaks_exactly_the_invariant_it_names(path: Path, engine: str) -> None:
    skip_unsupported(engine, path)
    report = validate_files([path], engine=engine)
    assert not report.conforms
    expected = expectations(path)
    assert {str(r.shape).strip("<>") for r in report.results} == {shape for shape, _ in expected}, report.to_text()
    for shape, focus in expected:
        foci = [str(r.focus).strip("<>") for r in report.results if str(r.shape).strip("<>") == shape]
        if focus == "_:":
            assert any(f.startswith("_:") for f in foci), report.to_text()
        else:
            assert focus in foci, report.to_text()
    for r in report.results:
        assert r.message, f"{r.shape} gave no message"
        assert not r.message.startswith('"'), f"message is a serialized literal, not text: {r.message}"
