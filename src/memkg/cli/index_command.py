"""`memkg index`: check the claim index (memx:subject/predicate/object per reifier) or rebuild it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .arguments import open_store
from .exit_codes import EXIT_INVALID, EXIT_OK

if TYPE_CHECKING:
    from .parser import AddCommand


def cmd_index(args: argparse.Namespace) -> int:
    if args.action == "rebuild":
        with open_store(args, write=True) as store:
            store.rebuild_index()
        print("claim index rebuilt")
        return EXIT_OK
    with open_store(args, write=False) as store:
        report = store.check_index()
    for g, r, part in report.missing:
        print(f"missing: {r} in {g}: no index triple for its {part}")
    for g, r, part in report.orphaned:
        print(f"orphaned: {r} in {g}: index {part} matches no rdf:reifies triple")
    if report.consistent:
        print("claim index consistent")
        return EXIT_OK
    return EXIT_INVALID


def register(command: AddCommand) -> None:
    """The index command."""
    p = command(
        "index",
        "Check the claim index against the data (exit 1 if inconsistent), or rebuild it.",
        "memkg index check",
        cmd_index,
    )
    p.add_argument("action", choices=["check", "rebuild"], help="check or rebuild")
