"""The command line: a thin adapter with the exit codes of the contract (0 ok, 1 invalid, 2 error)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memkg import MemoryStore
from memkg.adapters.cli import build_parser, main

from tests.support.examples import EX, FIXTURES, LIA, LIA_GRAPH, data_quads


@pytest.fixture
def run(tmp_path: Path, capsys):
    """Run ``memkg --store TMP/store ARGS…``; returns (exit code, stdout, stderr)."""
    store = tmp_path / "store"

    def _run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(["--store", str(store), *args])
        except SystemExit as exit:  # argparse's usage errors
            code = exit.code
        out, err = capsys.readouterr()
        return code, out, err

    _run.store = store  # type: ignore[attr-defined]
    return _run


def test_load_then_query_a_claim_by_its_triple_term(run) -> None:
    code, out, _ = run("load", str(LIA))
    assert code == 0 and "loaded 192 quads" in out
    code, out, _ = run(
        "query",
        f"SELECT ?c WHERE {{ GRAPH ?g {{ ?c rdf:reifies <<( <{EX}Lia> <{EX}prefers> <{EX}teaWithoutSugar> )>> }} }}",
        "--format", "json",
    )
    assert code == 0
    results = json.loads(out)
    assert [b["c"]["value"] for b in results["results"]["bindings"]] == [EX + "c0"]


def test_two_parallel_recommendations_come_back_as_two_rows(run) -> None:
    run("load", str(LIA))
    code, out, _ = run(
        "query",
        f"SELECT ?e WHERE {{ GRAPH ?g {{ ?e rdf:reifies <<( <{EX}Aurora> <{EX}recommends> <{EX}tea> )>> }} }} ORDER BY ?e",
        "--format", "csv",
    )
    assert code == 0
    assert out.split() == ["e", EX + "e6", EX + "e7"]


def test_reloading_reports_nothing_new(run) -> None:
    run("load", str(LIA))
    code, out, _ = run("load", str(LIA))
    assert code == 0 and ": 0 new" in out


def test_a_malformed_file_exits_2_naming_the_line_and_changes_nothing(run, tmp_path: Path) -> None:
    run("load", str(LIA))
    before = set(MemoryStore(run.store, read_only=True).quads(with_index=True))
    bad = tmp_path / "bad.ttl"
    bad.write_text('<http://e/a> <http://e/p> <http://e/b> .\n<http://e/a> <http://e/p> "oops .\n')
    code, out, err = run("load", str(bad))
    assert code == 2
    assert f"{bad}:2:" in err
    assert set(MemoryStore(run.store, read_only=True).quads(with_index=True)) == before


def test_export_then_load_into_a_fresh_store_gives_back_every_quad(run, tmp_path: Path) -> None:
    run("load", str(LIA))
    dump = tmp_path / "dump.nq"
    assert run("export", "--format", "nquads", "-o", str(dump))[0] == 0
    fresh = tmp_path / "fresh"
    assert main(["--store", str(fresh), "load", str(dump)]) == 0
    original = data_quads(MemoryStore(run.store, read_only=True))
    assert data_quads(MemoryStore(fresh, read_only=True)) == original


def test_export_to_a_file_ends_with_a_summary_on_stderr(run, tmp_path: Path) -> None:
    run("load", str(LIA))
    dump = tmp_path / "dump.nq"
    code, out, err = run("export", "--format", "nquads", "-o", str(dump))
    assert code == 0 and out == ""
    assert err.strip() == f"exported {len(dump.read_text().splitlines())} quads to {dump} (nquads)"


def test_export_to_stdout_in_trig(run) -> None:
    run("load", str(LIA))
    code, out, _ = run("export")
    assert code == 0
    assert "teaWithoutSugar" in out and "index#" not in out


def test_view_current_shows_current_claims_only(run) -> None:
    run("load", str(LIA))
    code, out, _ = run("view", "current", "--format", "csv")
    assert code == 0
    claims = {line.split(",")[0] for line in out.splitlines()[1:]}
    assert claims == {EX + c for c in ("c0", "c1", "c2", "cName1", "idc1")}  # cName0 is superseded
    # an unknown tenant is an error naming the graphs there are, never a silent empty answer
    code, out, err = run("view", "current", "--tenant", "https://example.org/tenants/nobody", "--format", "csv")
    assert code == 2 and out == ""
    assert "no graph named <https://example.org/tenants/nobody> (known: <https://example.org/tenants/lia>)" in err


def test_a_view_on_a_terminal_shows_progress_and_ends_with_a_summary_on_stderr(run, monkeypatch) -> None:
    from memkg.adapters.cli import output

    run("load", str(LIA))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(output, "PROGRESS_ROWS", 2)
    code, out, err = run("view", "current", "--tenant", LIA_GRAPH)
    assert code == 0 and "(5 rows)" in out and "\x1b" not in out
    assert "view current: 4 rows…" in err
    assert err.rsplit("\x1b[K", 1)[-1].startswith("view current: 5 rows in ") and err.endswith(" s\n")
    code, out, err = run("view", "current", "--format", "json")
    assert code == 0 and json.loads(out)
    assert f"view current: {len(out.encode()) - 1:,} bytes of json in " in err  # the newline after the JSON aside
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert run("view", "current")[2] == ""  # piped: quiet


def test_view_list_names_every_template(run) -> None:
    code, out, _ = run("view", "--list")
    listed = {line.split()[0] for line in out.splitlines()}
    templates = {p.stem for p in (Path(__file__).resolve().parents[3] / "queries").glob("*.rq")}
    assert code == 0 and listed == templates and "current" in listed


def test_unknown_view_and_bad_parameters_are_usage_errors(run) -> None:
    run("load", str(LIA))
    code, _, err = run("view", "nosuchview")
    assert code == 2 and "no view named 'nosuchview'" in err and "current" in err
    code, _, err = run("view", "current", "--param", "nope")
    assert code == 2 and "key=value" in err
    code, _, err = run("view", "current", "--param", "valid_at=2026-01-01")
    assert code == 2 and "no parameter 'valid_at'" in err


def test_a_bad_query_exits_2_with_its_position(run) -> None:
    run("load", str(LIA))
    code, _, err = run("query", "SELECT ?x WHERE { ?x ?y }")
    assert code == 2 and "<query>:1:" in err


def test_query_from_a_file_and_as_a_graph(run, tmp_path: Path) -> None:
    run("load", str(LIA))
    q = tmp_path / "q.rq"
    q.write_text(f"CONSTRUCT {{ ?c ?p ?o }} WHERE {{ GRAPH ?g {{ ?c ?p ?o FILTER(?c = <{EX}c0>) }} }}")
    code, out, _ = run("query", f"@{q}", "--format", "ntriples")
    assert code == 0 and f"<{EX}c0> <https://w3id.org/memkg#confidence>" in out


def test_querying_a_missing_store_exits_1_saying_a_load_makes_one(run) -> None:
    code, _, err = run("query", "ASK {}")
    assert code == 1 and "a read never creates a store (a write, such as a load, does)" in err


def test_usage_errors_exit_2_with_a_hint(run) -> None:
    code, _, err = run("load")
    assert code == 2 and "usage:" in err
    code, _, err = run("frobnicate")
    assert code == 2 and "invalid choice" in err


def test_stats_and_index_check(run) -> None:
    run("load", str(LIA))
    code, out, _ = run("stats")
    assert code == 0 and f"graph <{LIA_GRAPH}>" in out and "mem:Claim" in out
    code, out, _ = run("index", "check")
    assert code == 0 and "consistent" in out


def test_every_command_is_documented_with_an_example() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) >= {"load", "query", "view", "export"}
    help_text = parser.format_help()
    for name, command in sub.choices.items():
        assert name in help_text
        assert command.description, f"{name} has no description"
        assert "example:" in (command.epilog or ""), f"{name} has no example"


def test_the_console_script_runs_outside_the_checkout(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": ""}
    result = subprocess.run(
        [sys.executable, "-m", "memkg", "--store", str(tmp_path / "s"), "load", str(LIA)],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert result.returncode == 0, result.stderr
    help_run = subprocess.run([sys.executable, "-m", "memkg", "--help"], capture_output=True, text=True, cwd=tmp_path)
    for command in ("load", "query", "view", "export", "stats", "index"):
        assert command in help_run.stdout


def test_supersede_records_a_new_version_from_the_command_line(run) -> None:
    run("load", str(LIA))
    code, out, err = run("supersede", EX + "cName1", "--object", '"Amy"', "--valid-from", "2026-03-01T00:00:00Z")
    assert code == 0, err
    new = out.split()[0]
    assert f"supersedes {EX}cName1: a change in the world" in out
    code, out, _ = run("view", "current", "--format", "csv")
    rows = [line.split(",") for line in out.splitlines()[1:]]
    assert [r[3] for r in rows if r[0] == new] == ["Amy"]
    assert EX + "cName1" not in {r[0] for r in rows}


def test_supersede_and_retract_take_the_compact_iri_the_tables_print(run) -> None:
    run("load", str(LIA))
    code, out, _ = run("view", "current")
    assert "ex:cName1" in out  # the form a user copies from a table
    code, out, err = run("supersede", "ex:cName1", "--object", '"Amy"')
    assert code == 0, err
    new = out.split()[0]
    code, out, err = run("retract", new.replace(EX, "ex:"), "--reason", "typo")
    assert code == 0, err
    code, out, _ = run("view", "current", "--format", "csv")
    assert new not in out and EX + "cName1" not in out


def test_dependents_and_withdraw_take_a_compact_source(run) -> None:
    acme, tenant = "https://example.org/acme/", "https://example.org/tenants/acme"
    run("load", str(LIA.with_name("postgres-migration.trig")))
    code, full, err = run("dependents", acme + "benchmark", "--tenant", tenant)
    assert code == 0 and full.strip(), err
    code, compact, err = run("dependents", "ex:benchmark", "--tenant", tenant)
    assert (code, compact) == (0, full), err
    code, out, err = run("withdraw", "ex:adr", "--reason", "revisited", "--graph", tenant)
    assert code == 0 and "fallen" in out, err


def test_erase_dry_run_lists_what_erase_removes_and_dependents_names_the_claims_it_takes(run) -> None:
    run("load", str(LIA))
    # m52 supports nothing (withdrawing it fells no claim), but c1 and c2 rest only on what it asserted.
    code, out, err = run("dependents", "ex:m52")
    assert code == 0, err
    assert out.splitlines() == [f"{EX}c1\terased with it", f"{EX}c2\terased with it"]
    code, out, err = run("dependents", "ex:m52", "--format", "json")
    (plan,) = json.loads(out)["erasure"]
    assert (plan["graph"], plan["claims"]) == (LIA_GRAPH, [EX + "c1", EX + "c2"])
    before = _data(run.store)
    code, dry_text, err = run("erase", "ex:m52", "--dry-run", "--tenant", LIA_GRAPH)
    assert code == 0 and "nothing was written" in err
    code, dry_json, err = run("erase", "ex:m52", "--dry-run", "--tenant", LIA_GRAPH, "--format", "json")
    assert code == 0 and _data(run.store) == before
    planned = json.loads(dry_json)
    assert "record" not in planned and planned["claims"] == [EX + "c1", EX + "c2"]
    assert [line.split("\t")[0] for line in dry_text.splitlines()] == planned["removed"] + planned["kept"]
    code, out, err = run("erase", "ex:m52", "--reason", "consent revoked", "--tenant", LIA_GRAPH, "--format", "json")
    assert code == 0, err
    done = json.loads(out)
    assert {k: v for k, v in done.items() if k != "record"} == planned
    assert len(before - _data(run.store)) == planned["quadsRemoved"]
    code, _, err = run("erase", "ex:m0", "--tenant", LIA_GRAPH)
    assert code == 2 and "--reason" in err


def _data(store: Path) -> set:
    with MemoryStore(store) as opened:
        return data_quads(opened)


def test_supersede_refuses_unknown_claims_and_bad_terms(run) -> None:
    run("load", str(LIA))
    code, _, err = run("supersede", EX + "nope", "--object", '"x"')
    assert code == 1 and f"{EX}nope is in no graph of the scope" in err
    code, _, err = run("supersede", EX + "c0", "--object", "not a term")
    assert code == 2 and "not an RDF term" in err
    code, _, err = run("supersede", EX + "c0", "--valid-from", "2026-03-01")
    assert code == 2 and "timezone" in err


def test_retract_withdraws_from_current(run) -> None:
    run("load", str(LIA))
    code, out, err = run("retract", EX + "c2", "--reason", "Lia corrected it", "--graph", LIA_GRAPH)
    assert code == 0, err
    code, out, _ = run("view", "current", "--format", "csv")
    assert EX + "c2" not in out and EX + "c1" in out


def test_validate_files_exit_codes_and_formats(run) -> None:
    code, out, _ = run("validate", str(LIA))
    assert code == 0 and "conforms" in out
    bad = FIXTURES / "invalid" / "inv5-no-provenance.trig"
    code, out, _ = run("validate", str(bad))
    assert code == 1 and "mem:ClaimProvenanceShape" in out and "https://example.org/fx/c1" in out
    code, out, _ = run("validate", str(bad), "--format", "json")
    report = json.loads(out)
    assert report["conforms"] is False
    # one term style throughout: SPARQL 1.1 JSON results term objects
    first = report["results"][0]
    assert first["focusNode"] == {"type": "uri", "value": "https://example.org/fx/c1"}
    assert first["severity"] == {"type": "uri", "value": "http://www.w3.org/ns/shacl#Violation"}
    assert first["shape"] == {"type": "uri", "value": "https://w3id.org/memkg#ClaimProvenanceShape"}
    assert all(r[k] is None or set(r[k]) >= {"type", "value"} for r in report["results"]
               for k in ("severity", "shape", "focusNode", "resultPath", "value", "sourceShape"))
    code, out, _ = run("validate", str(bad), "--format", "turtle")
    assert code == 1 and "sh:ValidationReport" in out and "sh:conforms false" in out


def test_validate_the_store_and_refuse_invalid_loads(run) -> None:
    bad = FIXTURES / "invalid" / "inv9-duplicate-event-id.trig"
    code, _, err = run("load", str(bad))
    assert code == 1 and "UniqueEventIdShape" in err and "nothing was written" in err
    run("load", str(LIA))
    code, out, _ = run("validate")
    assert code == 0


def test_validating_the_store_ends_with_a_summary_line_on_stderr(run) -> None:
    run("load", str(LIA))
    code, out, err = run("validate", "--format", "json")
    assert code == 0 and json.loads(out)["conforms"] is True, "stdout holds the report alone"
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("memkg: conforms: ") and " claims, " in summary and " quads, 0 results in " in summary, err
    assert "\r" not in err, "no progress when stderr is not a terminal"
    code, _, err = run("validate", str(LIA))
    assert code == 0 and "claims" not in err, "files are summed up by the report itself"


def test_a_broken_shapes_file_is_an_error_not_a_pass(run, tmp_path: Path) -> None:
    shapes = tmp_path / "broken.ttl"
    shapes.write_text("@prefix sh: <http://www.w3.org/ns/shacl#> . <urn:s> a sh:NodeShape ; sh:minCount \"many\" .")
    code, _, err = run("validate", str(LIA), "--shapes", str(shapes))
    assert code == 2 and "urn:s" in err


def test_a_reader_that_stops_early_is_not_an_error(tmp_path) -> None:
    """`memkg query … | head -1`: the closed pipe ends memkg quietly with exit 0."""
    from pyoxigraph import Literal, NamedNode, Quad

    store = tmp_path / "store"
    with MemoryStore(store, validation=None) as mem:  # more output than a pipe buffers (64 KiB)
        mem.write(Quad(NamedNode(f"{EX}n{i}"), NamedNode(f"{EX}label"), Literal(f"node {i}")) for i in range(20_000))
    proc = subprocess.Popen([sys.executable, "-m", "memkg", "--store", str(store), "query", "SELECT * { ?s ?p ?o }"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away with most of the output unread
    assert proc.wait(timeout=60) == 0
    assert b"Broken pipe" not in proc.stderr.read()


def test_a_file_of_unknown_extension_gets_the_format_flag_as_hint(run, tmp_path: Path) -> None:
    data = tmp_path / "notes.txt"
    data.write_text(LIA.read_text(encoding="utf-8"), encoding="utf-8")
    code, _, err = run("load", str(data))
    assert code == 2 and "notes.txt" in err and "--format NAME" in err
    code, out, _ = run("load", str(data), "--format", "trig")
    assert code == 0 and "loaded 192 quads" in out


def test_mcp_without_the_sdk_says_how_to_install_it_from_a_checkout(tmp_path: Path) -> None:
    # memkg is not on a package index, so the hint must be the editable install from a checkout
    blocked = ("import sys; sys.modules['mcp'] = None; from memkg.adapters.cli import main; "
               f"sys.exit(main(['--store', {str(tmp_path / 'store')!r}, 'mcp', '--tenant', 'https://example.org/t']))")
    run = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "pip install -e '.[mcp]'" in run.stderr and "memkg[mcp]" not in run.stderr


def test_query_knows_the_prefixes_its_tables_print(run) -> None:
    # a view prints ex:Lia, so a query may write ex:Lia without declaring it
    run("load", str(LIA))
    code, out, err = run("query", "SELECT ?c WHERE { GRAPH ?g { ?c rdf:reifies <<( ex:Lia ex:prefers ex:teaWithoutSugar )>> } }")
    assert code == 0, err
    assert "ex:c0" in out


def test_an_unknown_prefix_in_a_view_parameter_is_refused_naming_the_known_ones(run) -> None:
    # an undeclared prefix is an error, not (0 rows) with exit 0
    run("load", str(LIA))
    code, out, err = run("view", "current", "--subject", "zz:Lia")
    assert code == 2 and out == ""
    assert "unknown prefix zz:" in err and "ex:" in err and "mem:" in err
    # an IRI of a usual scheme is still an IRI
    assert run("view", "current", "--subject", f"{EX}Lia")[0] == 0
    code, _, err = run("view", "current", "--subject", "urn:x:y")
    assert code == 1 and "urn:x:y is in no graph of the scope" in err  # looked up, not taken for a prefix


def test_a_refused_load_names_where_the_node_is_written_and_how_to_fix_it(run) -> None:
    # the line and column `memkg validate` gives, and the fix the MCP refusals carry
    bad = FIXTURES / "invalid" / "inv5-no-provenance.trig"
    code, out, err = run("load", str(bad))
    assert code == 1 and out == ""
    assert f"{bad}:17:5: Violation: <https://w3id.org/memkg#ClaimProvenanceShape> on <https://example.org/fx/c1>" in err
    assert "fix: give the claim mem:assertedBy <a message>" in err
