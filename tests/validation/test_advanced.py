"""``--advanced`` as pySHACL's ``-a``: without it, the shapes' SHACL-AF functions, custom
targets and rules are read (a malformed one is still refused) but left unapplied, and each
is said once on stderr; with it, all of them run."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkg.adapters.cli import main
from memkg.shacl import ShapeError
from memkg.validation import ValidationOptions, validate_files

SHAPES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:long a sh:SPARQLFunction ; sh:parameter [ sh:path ex:text ] ;
  sh:ask "ASK { FILTER(STRLEN($text) > 5) }" .
ex:NameShape a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:sparql [ sh:select "SELECT $this ?value WHERE { $this ex:name ?value FILTER(ex:long(?value)) }" ] .
ex:Adults a sh:SPARQLTargetType ; rdfs:subClassOf sh:Target ; sh:parameter [ sh:path ex:from ] ;
  sh:select "SELECT ?this WHERE { ?this ex:age ?age FILTER(?age >= $from) }" .
ex:AdultShape a sh:NodeShape ; sh:target [ a ex:Adults ; ex:from 18 ] ;
  sh:property [ sh:path ex:id ; sh:minCount 1 ] .
ex:KidShape a sh:NodeShape ; sh:target [ sh:select "SELECT ?this WHERE { ?this ex:age ?age FILTER(?age < 18) }" ] ;
  sh:property [ sh:path ex:guardian ; sh:minCount 1 ] .
"""
DATA = """@prefix ex: <http://example.org/> .
ex:ann a ex:Person ; ex:name "Annabel" ; ex:age 30 .
ex:kid a ex:Person ; ex:name "Kim" ; ex:age 9 .
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("data.ttl").write_text(DATA)
    Path("shapes.ttl").write_text(SHAPES)


def test_without_advanced_functions_and_custom_targets_are_each_said_ignored(files: None) -> None:
    report = validate_files(["data.ttl"], extra_shapes=["shapes.ttl"], options=ValidationOptions(shapes_only=True))
    assert report.conforms
    ignored = [w for w in report.warnings if " ignored: " in w]
    assert sorted(w.split(" ignored: ")[1] for w in ignored) == [
        "SHACL-AF custom targets run with --advanced", "SHACL-AF custom targets run with --advanced",
        "SHACL-AF functions run with --advanced (its calls are unbound)"]
    assert any(w.startswith("function <http://example.org/long>") for w in ignored)
    assert sum(w.startswith("target ") and "<http://example.org/AdultShape>" in w for w in ignored) == 1


def test_with_advanced_functions_and_custom_targets_apply(files: None) -> None:
    report = validate_files(["data.ttl"], extra_shapes=["shapes.ttl"],
                            options=ValidationOptions(shapes_only=True, advanced=True))
    assert not [w for w in report.warnings if " ignored: " in w]
    found = sorted((r.focus.value.rsplit("/", 1)[1], r.shape.value.rsplit("/", 1)[1]) for r in report.results)
    assert found == [("ann", "AdultShape"), ("ann", "NameShape"), ("kid", "KidShape")]


def test_the_command_line_says_each_ignored_feature_on_one_line(files: None, capsys) -> None:
    assert main(["validate", "data.ttl", "--shapes", "shapes.ttl", "--shapes-only"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning: target ") == 2 and err.count("warning: function ") == 1
    assert main(["validate", "data.ttl", "--shapes", "shapes.ttl", "--shapes-only", "--advanced"]) == 1
    assert " ignored: " not in capsys.readouterr().err


def test_a_malformed_function_is_refused_with_or_without_advanced(files: None) -> None:
    Path("shapes.ttl").write_text(SHAPES.replace('sh:ask "ASK { FILTER(STRLEN($text) > 5) }"',
                                                 'sh:ask "ASK { FILTER(STRLEN($text) > ) }"'))
    for advanced in (False, True):
        with pytest.raises(ShapeError, match="long"):
            validate_files(["data.ttl"], extra_shapes=["shapes.ttl"],
                           options=ValidationOptions(shapes_only=True, advanced=advanced))
