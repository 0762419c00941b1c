"""The command line's parser: a command imports only its own module, and lists the others by the
help their modules give them."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from memkg.adapters.cli.parser import COMMANDS, MODULES, build_parser, command_named, register_of
from tests.project.test_imports import heavy_in, loaded_after


def registered() -> list[tuple[str, str, str]]:
    """Every command as its module registers it: name, module, help, in registration order."""
    found: list[tuple[str, str, str]] = []
    for module in MODULES:
        def command(name: str, help: str, example: str, func: object, module: str = module) -> argparse.ArgumentParser:
            found.append((name, module, help))
            return argparse.ArgumentParser()
        register_of(module)(command)
    return found


def test_the_command_table_lists_every_command_with_its_modules_help_in_order() -> None:
    assert [(name, module, help) for name, (module, help) in COMMANDS.items()] == registered()


def test_the_parser_for_one_command_lists_all_commands_in_the_same_order_as_the_whole_parser() -> None:
    def choices(parser: argparse.ArgumentParser) -> list[tuple[str, str | None]]:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return [(a.dest, a.help) for a in sub._choices_actions]

    assert choices(build_parser(["stats"])) == choices(build_parser()) == choices(build_parser(["--help"]))


@pytest.mark.parametrize(("argv", "command"), [
    (["query", "ASK {}"], "query"),
    (["--store", "stats", "view", "current"], "view"),  # a store named like a command
    (["--store=x", "stats"], "stats"),
    (["--sto", "load", "stats"], "stats"),  # an abbreviated option still takes its value
    (["--endpoint-dialect", "rdf11", "--endpoint", "http://h/sparql", "history", "ex:c"], "history"),
    (["--help"], None),
    ([], None),
    (["nope", "stats"], None),
])
def test_the_command_is_the_first_word_that_is_no_global_option_or_its_value(argv: list[str],
                                                                             command: str | None) -> None:
    assert command_named(argv) == command


def test_a_command_parsed_alone_gets_the_same_arguments_as_in_the_whole_parser() -> None:
    argv = ["--store", "s", "view", "current", "--format", "json"]
    alone, _ = build_parser(argv).parse_known_args(argv)
    whole, _ = build_parser().parse_known_args(argv)
    assert vars(alone) == vars(whole)


def test_help_and_a_read_command_import_no_other_commands_module_and_no_feature() -> None:
    for argv in (["--help"], ["--store", "/nonexistent", "query", "ASK {}"]):
        modules = loaded_after(f"from memkg.adapters.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass")
        assert [m for m in modules if m.startswith("memkg.adapters.cli.") and m.endswith(("_command", "_commands"))
                and not m.endswith(".store_commands")] == []
        assert [m for m in heavy_in(modules) if not m.startswith("memkg.adapters")] == []


def test_an_unknown_command_is_refused_naming_the_commands() -> None:
    run = subprocess.run([sys.executable, "-m", "memkg", "nope"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "invalid choice: 'nope'" in run.stderr and "'supersede'" in run.stderr
