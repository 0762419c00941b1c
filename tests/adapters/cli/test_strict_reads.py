"""Reads answer about what exists, or exit 1 saying what is missing: a store, an IRI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memkg.adapters.cli import main

from tests.support.examples import LIA

#: Read commands, each with the arguments it needs besides the store.
READS = [
    ("stats",), ("query", "ASK {}"), ("view", "current"), ("export",), ("history", "urn:x:c"),
    ("support", "urn:x:c"), ("dependents", "urn:x:s"), ("lineage", "urn:x:c"), ("verify", "urn:x:c"),
    ("packet", "urn:x:c"), ("assess", "urn:x:c"), ("recall", "tea"), ("validate",), ("index", "check"),
]


def listing(folder: Path) -> list[tuple[str, int]] | None:
    if not folder.exists():
        return None
    return sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("state", ["missing", "empty", "other files"])
def test_a_read_of_a_folder_that_holds_no_store_exits_1_and_writes_nothing(tmp_path: Path, capsys, state: str) -> None:
    folder = tmp_path / "notes"
    if state != "missing":
        folder.mkdir()
    if state == "other files":
        (folder / "file.txt").write_text("mine", encoding="utf-8")
    before = listing(folder)
    for command in READS:
        code, _, err = run(capsys, "--store", str(folder), *command)
        assert code == 1, (command, err)
        assert f"{folder}" in err and ("not a memkg store" in err if state == "other files"
                                       else "a read never creates a store" in err), (command, err)
        assert listing(folder) == before, command


def test_a_write_into_a_folder_of_other_files_is_refused_and_writes_nothing(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "file.txt").write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "--store", str(folder), "load", str(LIA))
    assert code == 1 and "not a memkg store: the folder holds other files (file.txt)" in err
    assert listing(folder) == [("file.txt", 4)]


def test_a_write_makes_a_store_in_an_empty_folder_that_reads_then_open(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    assert run(capsys, "--store", str(folder), "load", str(LIA))[0] == 0
    code, out, _ = run(capsys, "--store", str(folder), "stats")
    assert code == 0 and "quads" in out


# -- IRIs that no graph in scope holds ------------------------------------------------------

LIA_NS, ACME_NS = "https://example.org/lia/", "https://example.org/acme/"
ACME = "https://example.org/tenants/acme"
BOTH = [str(LIA), str(LIA.with_name("postgres-migration.trig"))]


@pytest.fixture
def loaded(tmp_path: Path, capsys):
    """``memkg ARGS…`` on a store holding both examples (lia's ex:, acme's ex2:)."""
    store = str(tmp_path / "store")
    assert run(capsys, "--store", store, "load", *BOTH)[0] == 0

    def _run(*args: str) -> tuple[int, str, str]:
        return run(capsys, "--store", store, *args)

    return _run


@pytest.mark.parametrize("command", [
    ("support",), ("dependents",), ("lineage",), ("verify",), ("packet",), ("history",), ("assess",),
    ("dependents", "--all"), ("support", "--format", "svg"), ("lineage", "--format", "dot"),
])
def test_a_read_of_an_iri_no_graph_holds_exits_1_naming_it_and_the_scope(loaded, command: tuple[str, ...]) -> None:
    code, out, err = loaded(command[0], LIA_NS + "nope", *command[1:])
    assert code == 1 and out == "", (command, out)
    assert f"memkg: {LIA_NS}nope is in no graph of the scope (every graph you may read)" in err, err


def test_an_unknown_iri_is_answered_with_the_nearest_known_ones(loaded) -> None:
    code, _, err = loaded("support", ACME_NS + "cMigraton", "--tenant", ACME)
    assert code == 1
    assert (f"{ACME_NS}cMigraton is in no graph of the scope (tenant {ACME} and the shared default graph); "
            f"nearest known: {ACME_NS}cMigration") in err, err
    code, _, err = loaded("lineage", ACME_NS + "cMigraton")
    assert code == 1 and f"nearest known: {ACME_NS}cMigration" in err, err
    code, _, err = loaded("dependents", LIA_NS + "nope")
    assert code == 1 and "nearest known" not in err  # nothing near: no guess


def test_a_prefix_renamed_on_load_makes_the_old_name_ambiguous_and_the_full_iri_is_looked_up(loaded) -> None:
    # Both example files declare ex:; acme's became ex2:, so ex:cMigration could mean either file's.
    code, out, err = loaded("support", "ex:cMigration", "--tenant", ACME)
    assert code == 2 and out == ""
    assert "'ex:cMigration' names no IRI: it could mean <" + LIA_NS + "cMigration> (ex:cMigration) or <" in err, err
    assert ACME_NS + "cMigration" in err, err
    code, out, err = loaded("support", LIA_NS + "cMigration", "--tenant", ACME)
    assert code == 1 and "stands" not in out
    assert f"{LIA_NS}cMigration is in no graph of the scope (tenant {ACME}" in err
    assert f"nearest known: {ACME_NS}cMigration" in err, err
    code, out, _ = loaded("support", "ex2:cMigration", "--tenant", ACME)
    assert code == 0 and f"{ACME_NS}cMigration>: supported (stands)" in out


def test_a_view_parameter_naming_an_unknown_iri_exits_1(loaded) -> None:
    code, _, err = loaded("view", "lineage", "--claim", LIA_NS + "nope")
    assert code == 1 and f"{LIA_NS}nope is in no graph of the scope" in err
    code, _, err = loaded("view", "current", "--subject", LIA_NS + "Lia", "--tenant", ACME)
    assert code == 1 and f"(tenant {ACME} and the shared default graph)" in err
    assert loaded("view", "current", "--subject", LIA_NS + "Lia")[0] == 0


def test_a_write_about_an_unknown_iri_names_it_and_writes_nothing(loaded) -> None:
    before = loaded("export", "--format", "nquads")[1]
    for command in (("withdraw", ACME_NS + "adrr", "--reason", "x"), ("erase", ACME_NS + "adrr", "--reason", "x"),
                    ("retract", ACME_NS + "adrr"), ("supersede", ACME_NS + "adrr", "--object", '"x"')):
        code, _, err = loaded(*command)
        assert code == 1 and f"{ACME_NS}adrr is in no graph of the scope" in err, (command, err)
        assert f"nearest known: {ACME_NS}adr" in err, (command, err)
    assert loaded("export", "--format", "nquads")[1] == before


# -- without --tenant, one rule: every graph, one of them ---------------------------------------


def test_without_a_tenant_withdraw_erase_and_extract_find_the_source_s_tenant(loaded) -> None:
    code, out, err = loaded("extract", ACME_NS + "runbook", "--extractor", "sentences")
    assert code == 0 and out.startswith("urn:memkg:"), err
    code, out, err = loaded("withdraw", ACME_NS + "adr", "--reason", "revisited")
    assert code == 0 and f"{ACME_NS}cMigration\tfallen" in out, err
    code, out, err = loaded("erase", ACME_NS + "samNote", "--reason", "consent revoked")
    assert code == 0 and f"{ACME_NS}samNote\tremoved" in out, err
    code, out, _ = loaded("query", f"ASK {{ GRAPH <{ACME}> {{ ?r mem:retracts <{ACME_NS}adr> }} }}", "--format", "json")
    assert code == 0 and json.loads(out)["boolean"] is True


def test_an_iri_in_several_tenants_graphs_is_refused_without_a_tenant_naming_them(tmp_path: Path, capsys) -> None:
    store = str(tmp_path / "store")
    shared = tmp_path / "note.ttl"
    shared.write_text('PREFIX mem: <https://w3id.org/memkg#>\n<urn:x:note> a mem:Message ; mem:content "tea" .\n',
                      encoding="utf-8")
    for tenant in ("urn:t:one", "urn:t:two"):
        assert run(capsys, "--store", store, "load", str(shared), "--tenant", tenant)[0] == 0
    for command in (("dependents",), ("support",), ("verify",), ("withdraw", "--reason", "x"),
                    ("erase", "--reason", "x"), ("retract",)):
        code, _, err = run(capsys, "--store", store, command[0], "urn:x:note", *command[1:])
        assert code == 2 and "urn:x:note is in several tenants' graphs (urn:t:one, urn:t:two)" in err, (command, err)
    code, out, err = run(capsys, "--store", store, "withdraw", "urn:x:note", "--reason", "x", "--tenant", "urn:t:two")
    assert code == 0, err


def test_a_write_given_a_tenant_names_an_iri_that_tenant_does_not_hold(loaded) -> None:
    for command in (("retract", ACME_NS + "cMigraton"), ("supersede", ACME_NS + "cMigraton", "--object", '"x"')):
        code, _, err = loaded(*command, "--tenant", ACME)
        assert code == 1, (command, err)
        assert (f"{ACME_NS}cMigraton is in no graph of the scope (tenant {ACME} and the shared default graph); "
                f"nearest known: {ACME_NS}cMigration") in err, (command, err)
