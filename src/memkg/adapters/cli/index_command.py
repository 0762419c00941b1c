"""`memkg index`: check or rebuild the derived indexes: the claim index (memx:subject/predicate/object
per reifier) and the recall index (text, vectors and links, :mod:`memkg.recall`)."""

from __future__ import annotations

import argparse
import sys

from ...recall import check_recall_index, rebuild_recall_index
from .arguments import open_store
from .exit_codes import EXIT_INVALID, EXIT_OK
from .output import stderr_progress
from .registry import AddCommand


def cmd_index(args: argparse.Namespace) -> int:
    if args.action == "rebuild":
        with open_store(args, write=True) as store:
            store.rebuild_index()
            print("claim index rebuilt")
            if store.capabilities.sole_writer:  # else the server keeps it
                progress = stderr_progress()
                documents = rebuild_recall_index(
                    store, progress=progress and (lambda n: progress(f"rebuilding the recall index: {n:,} documents…")))
                if progress:
                    sys.stderr.write("\r\x1b[K")
                print(f"recall index rebuilt: {documents:,} documents")
        return EXIT_OK
    with open_store(args, write=False) as store:
        report = store.check_index()
        recall = check_recall_index(store)
    for g, r, part in report.missing:
        print(f"missing: {r} in {g}: no index triple for its {part}")
    for g, r, part in report.orphaned:
        print(f"orphaned: {r} in {g}: index {part} matches no rdf:reifies triple")
    if report.consistent:
        print("claim index consistent")
    if recall is None:
        print("recall index: none yet (built by a bulk load, on first recall, or by `memkg index rebuild`)")
    else:
        for fault in recall.faults:
            where = f"{fault.node} in {fault.graph or 'the default graph'}: " if fault.node else ""
            print(f"recall index: {where}{fault.problem}")
        if recall.consistent:
            print(f"recall index consistent ({recall.documents} documents)")
    return EXIT_OK if report.consistent and (recall is None or recall.consistent) else EXIT_INVALID


def register(command: AddCommand) -> None:
    """The index command."""
    p = command(
        "index",
        "Check the derived indexes (claim index; recall text, vector and link index) against the data "
        "(exit 1 if inconsistent), or rebuild them.",
        "memkg index check",
        cmd_index,
    )
    p.add_argument("action", choices=["check", "rebuild"], help="check or rebuild")
