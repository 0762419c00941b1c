"""The CLI's subcommands, read from its argparse parser (for tests generated over every command)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from memkg.adapters.cli import build_parser


def subcommands(parser: argparse.ArgumentParser | None = None,
                path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every leaf subcommand (``("tags", "values")``, …) with its parser."""
    parser = parser or build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        yield path, parser
        return
    for name, sub in actions[0].choices.items():
        yield from subcommands(sub, (*path, name))
