"""``memkg validate --format json``: every result carries every documented field, its graph included."""

from __future__ import annotations

import json
from pathlib import Path

from memkg.adapters.cli import main
from tests.support.examples import FIXTURES

EX = "https://example.org/planted/"
A = "https://example.org/tenants/a"
_RESULT_FIELDS = {"severity", "shape", "focusNode", "resultPath", "value", "sourceConstraintComponent",
                  "sourceShape", "graph", "message", "file", "line", "column"}


def test_every_result_of_the_json_report_has_every_field(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    bad = FIXTURES / "invalid" / "inv5-no-provenance.trig"
    code = main(["--store", str(tmp_path / "store"), "validate", str(bad), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and {"conforms", "engine", "stage", "results"} <= set(report)
    assert report["results"]
    for result in report["results"]:
        assert set(result) == _RESULT_FIELDS
        assert result["graph"] is not None  # the fixture's data is in a named graph


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
    for r in results:
        assert _RESULT_FIELDS <= set(r), sorted(_RESULT_FIELDS - set(r))
        assert r["graph"]["value"] == A, r["graph"]
