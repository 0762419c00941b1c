"""`memkg recall`: a question in words to the memory's nodes, best first (docs/contract.md section 7)."""

from __future__ import annotations

import argparse
import json
import sys

from ...recall import answer
from .arguments import format_option, open_store, parse_time, tenant_option
from .exit_codes import EXIT_OK, UsageError
from .picture_output import PICTURE_FORMATS, emit, picture_options, wants_picture
from .registry import AddCommand


def cmd_recall(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UsageError(f"--k must be at least 1, got {args.k}")
    with open_store(args, write=False) as store:
        result = answer(store, args.query, tenant=args.tenant, k=args.k, valid_at=parse_time(args.valid_at),
                        known_at=parse_time(args.known_at), packet=args.packet or wants_picture(args))
        prefixes = store.prefixes
    if wants_picture(args):  # the evidence packet, drawn (memkg.adapters.pictures)
        from ..pictures import packet_diagram, render  # here: a recall without a picture never imports them

        if result.packet is None:
            raise UsageError("this recall has no evidence packet to draw (no hits?)")
        emit(args, "recall packet", render(packet_diagram(result.packet, prefixes=prefixes,
                                                          title=f"evidence for: {args.query}"), args.format))
        return EXIT_OK
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.to_text())
        if result.packet is not None:
            sys.stdout.write(result.packet.to_turtle())
    return EXIT_OK


def register(command: AddCommand) -> None:
    """The recall command."""
    p = command(
        "recall",
        "Find what the memory holds about a question: messages, claims, episodes and vertices, best first, "
        "each with the signals (lexical, vector, entity, time, graph) that ranked it. The text and vector "
        "indexes are built by a bulk load (or on first use) and kept by every write. With --endpoint, the "
        "server (memkg serve) answers from its own indexes.",
        "memkg recall 'what does Lia drink in the evening?' --k 5 --format json\n"
        "  memkg recall 'what does Lia drink in the evening?' --format svg -o evidence.svg   # the packet, drawn",
        cmd_recall,
    )
    p.add_argument("query", metavar="QUERY", help="the question, in words")
    tenant_option(p, "one tenant's graph (plus the shared default graph); default: every graph")
    p.add_argument("--k", type=int, default=10, metavar="N", help="how many hits (default 10)")
    p.add_argument("--valid-at", metavar="T", help="judge claims current at this time (ISO 8601 with a zone)")
    p.add_argument("--known-at", metavar="T", help="recall what the store knew at this time")
    p.add_argument("--packet", action="store_true", help="add the evidence packet seeded by the hits")
    format_option(p, ["text", "json", *PICTURE_FORMATS], "text")
    picture_options(p)
