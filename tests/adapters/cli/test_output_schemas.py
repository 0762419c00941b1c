"""The JSON of every command that has ``--format json``, against its schema, every documented field exercised.

The commands are read from the parser (a new one with ``--format json`` fails here until it has
a schema and runs below). The store (:func:`tests.support.schemas.varied_store`) makes every
status and optional field show somewhere; each command runs on enough cases
(a packet the budget cuts, a recall at a past valid time, a question nothing matches) that
``Coverage`` finds every field of its schema.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from memkg.adapters.cli import build_parser, main
from tests.support.examples import LIA_GRAPH
from tests.support.schemas import ACME, ACME_GRAPH, EX, Coverage, varied_store



@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return varied_store(tmp_path_factory.mktemp("outputs") / "store")


def run_json(store: Path, *argv: str) -> Any:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--store", str(store), *argv, "--format", "json"])
    out.flush()
    text = out.buffer.getvalue().decode("utf-8")
    assert code in (0, 1), f"memkg {' '.join(argv)} --format json: exit {code}: {err.getvalue()}"
    return json.loads(text)


#: For each command with ``--format json``: its schema, and the calls that show every field.
CALLS: dict[str, tuple[str, list[list[str]]]] = {
    "query": ("sparql-results.json", [
        ["query", "SELECT ?iri ?blank ?text ?tagged ?number ?said WHERE { VALUES (?iri ?text ?tagged ?number) "
                  "{ (<urn:x:a> 'plain' 'thé'@fr 42) } BIND(BNODE() AS ?blank) "
                  "BIND(<<( <urn:x:a> <urn:x:p> 'o' )>> AS ?said) }"],
        ["query", "ASK { GRAPH ?g { ?c a mem:Claim } }"],
    ]),
    "view": ("sparql-results.json", [
        ["view", "current", "--tenant", LIA_GRAPH],
        ["view", "history", "--claim", EX + "cName1"],
        ["query", "SELECT ?t WHERE { GRAPH ?g { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t } } LIMIT 1"],
        ["query", "SELECT (BNODE() AS ?b) ('x'@en AS ?l) WHERE {}"],
        ["query", "ASK { FILTER(false) }"],
    ]),
    "recall": ("recall.json", [
        ["recall", "What is Lia called, Amelia?", "--tenant", LIA_GRAPH, "--k", "30"],
        ["recall", "coffee night caffeine", "--tenant", LIA_GRAPH, "--k", "10", "--valid-at", "2026-01-05T00:00:00Z"],
        ["recall", "chamomile tea every evening", "--tenant", LIA_GRAPH, "--k", "5", "--packet"],
        ["recall", "what did Lia say in February 2026", "--tenant", LIA_GRAPH, "--k", "5"],
        ["recall", "zebra quantum chromodynamics", "--tenant", LIA_GRAPH, "--k", "3"],
        ["recall", "okapi sanctuary", "--tenant", LIA_GRAPH, "--k", "40"],
    ]),
    "lineage": ("lineage.json", [
        ["lineage", ACME + "cMigration", "--tenant", ACME_GRAPH],
        ["lineage", ACME + "cAnswerLoss", "--tenant", ACME_GRAPH],
        ["lineage", ACME + "cGuess", "--tenant", ACME_GRAPH],
    ]),
    "support": ("support.json", [
        ["support", ACME + "cMigration", "--tenant", ACME_GRAPH, "--minimal"],
        ["support", ACME + "cAnswerThroughput", "--tenant", ACME_GRAPH],
        ["support", ACME + "cUptime", "--tenant", ACME_GRAPH],
    ]),
    "dependents": ("dependents.json", [
        ["dependents", ACME + "benchmark", "--tenant", ACME_GRAPH, "--all"],
        ["dependents", ACME + "s1", "--tenant", ACME_GRAPH, "--all"],
    ]),
    "erase": ("erasure.json", [
        ["erase", ACME + "benchmark", "--tenant", ACME_GRAPH, "--dry-run"],
        ["erase", ACME + "benchmark", "--tenant", ACME_GRAPH, "--reason", "consent revoked"],
    ]),
    "packet": ("packet.json", [
        ["packet", ACME + "cSelection", "--tenant", ACME_GRAPH],
        ["packet", ACME + "cSelection", "--tenant", ACME_GRAPH, "--max-vertices", "3"],
        ["packet", ACME + "cAnswerThroughput", EX + "c2", "--max-hops", "2"],
        ["packet", EX + "cName1", "--tenant", LIA_GRAPH],
    ]),
}


#: Commands that write: run on a copy of the store.
WRITES = {"erase"}

#: Commands whose JSON is checked elsewhere.
ELSEWHERE = {"validate": "tests/adapters/cli/test_validate_schemas.py, with the other report formats"}


def _json_commands() -> list[str]:
    """Every subcommand whose ``--format`` offers json, from the parser."""
    found = []
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if any(a.dest == "format" and "json" in (a.choices or ()) for a in sub._actions):
                    found.append(name)
    return found


def test_every_command_with_json_output_has_a_schema_and_calls_here() -> None:
    assert set(_json_commands()) == set(CALLS) | set(ELSEWHERE), (
        f"commands with --format json: {sorted(_json_commands())}; with a schema here: {sorted(CALLS)}")


@pytest.mark.parametrize("command", sorted(CALLS))
def test_the_json_of_each_command_follows_its_schema_and_shows_every_field(store: Path, command: str,
                                                                           tmp_path: Path) -> None:
    name, calls = CALLS[command]
    if command in WRITES:  # on a copy: the other commands read the store as it was made
        shutil.copytree(store, tmp_path / "store")
        store = tmp_path / "store"
    coverage = Coverage(name)
    for argv in calls:
        coverage.add(run_json(store, *argv), "memkg " + " ".join(argv))
    coverage.assert_complete()
