"""Literals as written on the load and validate paths.

A pyoxigraph store keeps typed literals canonical: a load counts the literals it
stores in another form and names them with file and line, ``strict_literals``
refuses them, and ``memkg validate FILE`` judges every literal as the file writes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memkg import MemoryStore
from memkg.adapters.cli import main
from memkg.store.literals import RewrittenLiteralsError
from memkg.validation import validate_files

DATA = """@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:count 1 ;
  ex:code "01"^^xsd:integer ;
  ex:small "5"^^xsd:int ;
  ex:tiny "300"^^xsd:byte ;
  ex:at "2020-01-01T00:00:00.000Z"^^xsd:dateTime .
"""

SHAPES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:LiteralShape sh:targetNode ex:a ;
  sh:property [ sh:path ex:code ; sh:minLength 2 ] ;
  sh:property [ sh:path ex:small ; sh:datatype xsd:int ] ;
  sh:property [ sh:path ex:tiny ; sh:datatype xsd:byte ] ;
  sh:property [ sh:path ex:at ; sh:pattern "\\\\.000Z$" ] .
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    data, shapes = tmp_path / "data.ttl", tmp_path / "shapes.ttl"
    data.write_text(DATA)
    shapes.write_text(SHAPES)
    return data, shapes


def test_load_names_every_rewritten_literal_with_file_and_line(files) -> None:
    data, _ = files
    report = MemoryStore().load(data)
    assert report.rewrites.count == 4  # "01", "5"^^xsd:int, "300"^^xsd:byte, ".000Z"; 1 is canonical
    lines = [(Path(e.file).name, e.line, e.written.value) for e in report.rewrites.examples]
    assert lines == [("data.ttl", 4, "01"), ("data.ttl", 5, "5"), ("data.ttl", 6, "300"),
                     ("data.ttl", 7, "2020-01-01T00:00:00.000Z")]
    assert "data.ttl:6" in report.rewrites.summary()


def test_strict_literals_refuse_the_load_whole(files) -> None:
    data, _ = files
    store = MemoryStore()
    before = len(store)
    with pytest.raises(RewrittenLiteralsError) as caught:
        store.load(data, strict_literals=True)
    assert len(store) == before
    assert caught.value.rewrites.count == 4 and "data.ttl:4" in str(caught.value)
    canonical_only = data.with_name("plain.ttl")
    canonical_only.write_text('<http://e/a> <http://e/p> 1, 0.5, "2020-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .')
    assert not store.load(canonical_only, strict_literals=True).rewrites


def test_file_validation_judges_literals_as_written(files) -> None:
    data, shapes = files
    report = validate_files([data], extra_shapes=[shapes])
    mine = [r for r in report.results if "LiteralShape" in str(r.shape)]
    assert [(str(r.path), str(r.value)) for r in mine] == [
        ("<http://example.org/tiny>", '"300"^^<http://www.w3.org/2001/XMLSchema#byte>')]


def test_cli_load_warns_and_strict_refuses(files, tmp_path: Path, capsys) -> None:
    data, shapes = files
    code = main(["--store", str(tmp_path / "s1"), "load", str(data)])
    err = capsys.readouterr().err
    assert code == 0 and "4 literal(s) are stored in canonical form" in err and "data.ttl:5" in err
    code = main(["--store", str(tmp_path / "s2"), "load", "--strict-literals", str(data)])
    assert code == 1 and "nothing was written" in capsys.readouterr().err
    code = main(["--store", str(tmp_path / "s3"), "validate", str(data), "--shapes", str(shapes), "--format", "json"])
    values = [r["value"] for r in json.loads(capsys.readouterr().out)["results"]]
    # the value as written, as a SPARQL JSON term object (the validation JSON's one term style)
    assert code == 1 and values == [{"type": "literal", "value": "300",
                                      "datatype": "http://www.w3.org/2001/XMLSchema#byte"}]


def test_every_phase_of_a_load_and_a_validation_reports_progress(files) -> None:
    """A long load or validate is never silent on a terminal: each phase names itself."""
    data, shapes = files
    said: list[str] = []
    MemoryStore().load(data, progress=said.append)
    phases = [m for m in said if m.endswith("…")]
    expected = ["parsing…", "checking literals…", "indexing claims…", "validating…", "counting…", "writing…"]
    assert [p for p in phases if p in expected] == expected + ["counting…"], phases
    said.clear()
    validate_files([data], extra_shapes=[shapes], progress=said.append)
    assert any(m.startswith("validating graph 1/") for m in said)


def test_file_validation_judges_tenant_graphs_as_written(tmp_path: Path) -> None:
    data, shapes = tmp_path / "tenant.trig", tmp_path / "shapes.ttl"
    data.write_text("""@prefix ex: <http://example.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:tenant { ex:a ex:code 1, "01"^^xsd:integer ; ex:small "5"^^xsd:int . }
""")
    shapes.write_text("""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:CodeShape sh:targetSubjectsOf ex:code ;
  sh:property [ sh:path ex:code ; sh:maxCount 1 ] ;
  sh:property [ sh:path ex:small ; sh:datatype xsd:int ] .
""")
    for engine in ("native", "pyshacl"):
        mine = [r for r in validate_files([data], extra_shapes=[shapes], engine=engine).results
                if "CodeShape" in str(r.shape)]
        assert [(str(r.focus), str(r.path), str(r.component).rsplit("#")[-1]) for r in mine] == [
            ("<http://example.org/a>", "<http://example.org/code>", "MaxCountConstraintComponent>")], engine
