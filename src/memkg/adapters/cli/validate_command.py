"""``memkg validate``: files, or the whole store, judged against memkg's invariants and your shapes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ...store import FORMAT_NAMES
from ...validation import validate_files, validate_store
from .arguments import add_limit_arguments, limits_from, open_store
from .exit_codes import EXIT_INVALID, EXIT_OK, UsageError
from .output import stderr_progress

if TYPE_CHECKING:
    from .parser import AddCommand


def cmd_validate(args: argparse.Namespace) -> int:
    for shapes in args.shapes:
        if not Path(shapes).is_file():
            raise UsageError(f"{shapes}: no such shapes file (--shapes FILE: your own SHACL shapes, Turtle)")
    progress = stderr_progress()
    if args.files:
        report = validate_files(args.files, engine=args.engine, extra_shapes=args.shapes, format=args.input_format,
                                progress=progress, limits=limits_from(args))
    else:
        with open_store(args, write=False) as store:
            report = validate_store(store, engine=args.engine, extra_shapes=args.shapes, progress=progress)
    if progress:
        sys.stderr.write("\r\x1b[K")
    if args.format == "json":
        print(report.to_json())
    elif args.format == "turtle":
        sys.stdout.write(report.to_turtle())
    else:
        sys.stdout.write(report.to_text())
    return EXIT_OK if report.conforms else EXIT_INVALID


def register(command: AddCommand) -> None:
    """``memkg validate``."""
    p = command(
        "validate",
        "Check files (or, without files, the whole store) against memkg's invariants; exit 1 on violations.",
        "memkg validate examples/*.trig --format json",
        cmd_validate,
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to validate (default: the store)")
    p.add_argument("--format", default="text", choices=["text", "turtle", "json"],
                   help="report format: text (one line per result), turtle (sh:ValidationReport), json")
    p.add_argument("--engine", default="native", choices=["native", "pyshacl"],
                   help="native (shapes compiled to SPARQL, default) or pyshacl (the reference)")
    p.add_argument("--shapes", action="append", default=[], metavar="FILE",
                   help="your own SHACL shapes, checked with memkg's (repeatable)")
    p.add_argument("--input-format", choices=sorted(FORMAT_NAMES), help="force the files' format")
    add_limit_arguments(p, "max_depth", "max_literal")
