"""A validation report in the formats people and CI systems read.

* ``text``: ``data.ttl:12:5: Violation  mem:Shape  <focus>  path …: message``, one line per result;
* ``turtle``: a standard ``sh:ValidationReport`` (positions as ``memv:file``/``memv:line``/``memv:column``);
* ``json``: every term a SPARQL 1.1 JSON results term object, positions as fields;
* ``junit``: JUnit XML, one test case per shape and focus node (a failure when its results
  fail the validation), for CI test-report pages;
* ``sarif``: SARIF 2.1.0, one rule per shape and one result per validation result with its
  physical location, for code-scanning pages that annotate the offending lines;
* ``github``: GitHub Actions workflow commands (``::error file=…,line=…,col=…::…``), which
  annotate the lines of a pull request.

>>> from pyoxigraph import NamedNode
>>> from memkg.core.errors import Violation
>>> from memkg.core.vocab import sh
>>> from memkg.validation.results import Report
>>> r = Violation(NamedNode("http://e/S"), NamedNode("http://e/a"), "Less than 1 values", path=NamedNode("http://e/p"),
...               component=sh.MinCountConstraintComponent, file="data.ttl", line=3, column=1)
>>> print(render(Report([r]), "github"), end="")
::error file=data.ttl,line=3,col=1,title=<http%3A//e/S>::<http://e/a> path <http://e/p>: Less than 1 values (sh:MinCountConstraintComponent)
memkg validate: does not conform, 1 result(s) (native engine)
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree as ET

from ..core.errors import Violation
from ..core.prefixes import show
from .results import Report

try:
    __version__ = version("memkg")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0"
REPORT_FORMATS = ("text", "turtle", "json", "junit", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://w3id.org/memkg"


def render(report: Report, fmt: str) -> str:
    """The report as text in format ``fmt`` (one of :data:`REPORT_FORMATS`)."""
    renderers: dict[str, Callable[[Report], str]] = {
        "text": Report.to_text, "turtle": Report.to_turtle, "json": lambda r: r.to_json() + "\n",
        "junit": to_junit, "sarif": to_sarif, "github": to_github,
    }
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(REPORT_FORMATS)}")
    return renderers[fmt](report)


def _severity(r: Violation) -> str:
    return r.severity.value.rsplit("#", 1)[-1]


def _component(r: Violation) -> str:
    return show(r.component, form="exact")


def _headline(r: Violation) -> str:
    """What one result says, without its place: focus node, path, value, message, component."""
    parts = [show(r.focus, form="exact")]
    if r.path is not None:
        parts.append(f"path {show(r.path, form='exact')}")
    if r.value is not None:
        parts.append(f"value {show(r.value, form='exact')}")
    return " ".join(parts) + f": {r.message} ({_component(r)})"


# -- JUnit ---------------------------------------------------------------------------------


def to_junit(report: Report) -> str:
    """JUnit XML: a test suite per named shape, a test case per (shape, focus node), failed
    when any of its results fails the validation (an allowed warning is written to its
    ``system-out``). A validation without results is one passing test case."""
    cases: dict[tuple[str, str], list[Violation]] = defaultdict(list)
    for r in report.sorted():
        cases[(show(r.shape, form="exact"), show(r.focus, form="exact"))].append(r)
    root = ET.Element("testsuites", name="memkg validate")
    by_shape: dict[str, list[tuple[str, list[Violation]]]] = defaultdict(list)
    for (shape, focus), results in cases.items():
        by_shape[shape].append((focus, results))
    if not by_shape:
        suite = ET.SubElement(root, "testsuite", name="memkg validate", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="conforms", classname="memkg validate")
    total = failed = 0
    for shape, focus_cases in by_shape.items():
        failures = 0
        suite = ET.SubElement(root, "testsuite", name=shape, tests=str(len(focus_cases)), errors="0")
        for focus, results in focus_cases:
            case = ET.SubElement(suite, "testcase", name=focus, classname=shape)
            first = results[0]
            if first.file is not None:
                case.set("file", first.file)
                if first.line is not None:
                    case.set("line", str(first.line))
            failing = [r for r in results if r.severity not in report.allowed]
            text = "\n".join(f"{r.where + ': ' if r.where else ''}{_severity(r)}: {_headline(r)}" for r in results)
            if failing:
                failures += 1
                failure = ET.SubElement(case, "failure", message=f"{_severity(failing[0])}: {failing[0].message}",
                                        type=_component(failing[0]))
                failure.text = text
            else:
                ET.SubElement(case, "system-out").text = text
        suite.set("failures", str(failures))
        total += len(focus_cases)
        failed += failures
    root.set("tests", str(max(total, 1)))
    root.set("failures", str(failed))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- SARIF ---------------------------------------------------------------------------------

_LEVELS = {"Violation": "error", "Warning": "warning", "Info": "note"}


def _artifact_uri(file: str) -> str:
    """A file as SARIF wants it: relative to the working directory when inside it (so a
    code-scanning upload finds it in the repository), else a ``file:`` URI."""
    path = Path(file)
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.resolve().as_uri()


def to_sarif(report: Report) -> str:
    """SARIF 2.1.0: one run of the tool ``memkg``; a rule per named shape, a result per
    validation result (level error, warning or note; sh:Debug and sh:Trace as none), each
    with its file, line and column and, as properties, the SHACL terms."""
    rules: dict[str, int] = {}
    rule_objects: list[dict[str, object]] = []
    results: list[dict[str, object]] = []
    for r in report.sorted():
        rule_id = str(r.shape)[1:-1] if str(r.shape).startswith("<") else str(r.shape)
        if rule_id not in rules:
            rules[rule_id] = len(rule_objects)
            rule_objects.append({"id": rule_id, "name": show(r.shape, form="exact"),
                                 "shortDescription": {"text": f"SHACL shape {show(r.shape, form='exact')}"}})
        result: dict[str, object] = {
            "ruleId": rule_id,
            "ruleIndex": rules[rule_id],
            "level": _LEVELS.get(_severity(r), "none"),
            "message": {"text": _headline(r)},
            "properties": {
                "focusNode": str(r.focus), "resultPath": None if r.path is None else str(r.path),
                "value": None if r.value is None else str(r.value),
                "sourceConstraintComponent": None if r.component is None else r.component.value, "resultSeverity": r.severity.value,
                "sourceShape": str(r.source_shape or r.shape),
            },
        }
        if r.file is not None:
            location: dict[str, object] = {"artifactLocation": {"uri": _artifact_uri(r.file)}}
            if r.line is not None:
                location["region"] = {"startLine": r.line, "startColumn": r.column or 1}
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "memkg", "version": __version__, "informationUri": INFORMATION_URI,
                                "rules": rule_objects}},
            "results": results,
            "invocations": [{"executionSuccessful": True}],
        }],
    }
    return json.dumps(log, indent=2) + "\n"


# -- GitHub workflow commands -----------------------------------------------------------------

_COMMANDS = {"Violation": "error", "Warning": "warning"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(report: Report) -> str:
    """One workflow command per result (``::error``, ``::warning``, ``::notice``) with the
    file, line and column it points at, then a summary line (not a command)."""
    lines = []
    for r in report.sorted():
        command = _COMMANDS.get(_severity(r), "notice")
        props = []
        if r.file is not None:
            props.append(f"file={_escape_property(r.file)}")
            if r.line is not None:
                props += [f"line={r.line}", f"col={r.column or 1}"]
        props.append(f"title={_escape_property(show(r.shape, form='exact'))}")
        lines.append(f"::{command} {','.join(props)}::{_escape_data(_headline(r))}")
    verdict = "conforms" if report.conforms else "does not conform"
    lines.append(f"memkg validate: {verdict}, {len(report.results)} result(s) ({report.engine} engine)")
    return "\n".join(lines) + "\n"
