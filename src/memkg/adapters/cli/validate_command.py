"""``memkg validate``: files, or the whole store, judged against memkg's invariants and your shapes.

The options are pySHACL's, by pySHACL's names and meanings (``docs/validation.md`` has the
table); the report goes to standard output or ``--output FILE`` in one of the formats of
:mod:`memkg.validation.reports` (text, turtle, json, junit, sarif, github).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pyoxigraph import NamedNode

from ...core.errors import UnreadableName
from ...core.names import read_iri
from ...store import FORMAT_NAMES
from ...validation import ValidationOptions, validate_files, validate_store
from ...validation.inference import INFERENCE_KINDS
from ...validation.reports import REPORT_FORMATS, render
from .arguments import add_limit_arguments, limits_from, open_store
from .exit_codes import EXIT_INVALID, EXIT_OK, UsageError
from .output import stderr_progress
from .registry import AddCommand


def _listed(values: Sequence[str]) -> list[str]:
    """Repeated options and comma-separated lists alike (pySHACL takes ``--focus a,b``)."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def _iri(text: str, option: str) -> NamedNode:
    """An IRI in any form memkg reads (:mod:`memkg.core.names`), with memkg's own prefixes (sh: among them)."""
    try:
        return read_iri(text, what=option)
    except UnreadableName as err:
        raise UsageError(str(err)) from None


def options_from(args: argparse.Namespace) -> ValidationOptions:
    for kind, paths in (("shapes", args.shapes), ("ontology", args.ontology)):
        for path in paths:
            if not Path(path).is_file():
                raise UsageError(f"{path}: no such {kind} file (--{kind} FILE: Turtle, TriG, N-Triples or N-Quads)")
    if args.shapes_only and not args.shapes:
        raise UsageError("--shapes-only judges only your shapes: give them with --shapes FILE")
    return ValidationOptions(
        shapes_only=args.shapes_only,
        ontology=tuple(Path(p) for p in args.ontology),
        inference=args.inference,
        advanced=args.advanced,
        imports=args.imports or args.imports_remote,
        remote_imports=args.imports_remote,
        meta_shacl=args.meta_shacl,
        focus=tuple(_iri(f, "--focus") for f in _listed(args.focus)),
        shapes=tuple(_iri(s, "--shape") for s in _listed(args.shape)),
        allow_warnings=args.allow_warnings,
        allow_infos=args.allow_infos,
        max_rule_rounds=args.max_rule_rounds,
        strict_prefixes=args.strict_prefixes,
    )


def cmd_validate(args: argparse.Namespace) -> int:
    options = options_from(args)
    progress = stderr_progress()
    if args.files:
        report = validate_files(args.files, engine=args.engine, extra_shapes=args.shapes, format=args.input_format,
                                progress=progress, limits=limits_from(args), options=options)
    else:
        with open_store(args, write=False) as store:
            report = validate_store(store, engine=args.engine, extra_shapes=args.shapes, progress=progress,
                                    options=options)
    if progress:
        sys.stderr.write("\r\x1b[K")
    for warning in report.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    text = render(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if report.extent is not None:  # the whole store: what was judged, and how long it took, last
        sys.stderr.write(f"memkg: {report.summary()}\n")
    return EXIT_OK if report.conforms else EXIT_INVALID


def register(command: AddCommand) -> None:
    """``memkg validate``."""
    p = command(
        "validate",
        "Check files (or, without files, the whole store) against memkg's invariants and your SHACL shapes; "
        "exit 1 on results, 2 on an error.",
        "memkg validate data.ttl --shapes shapes.ttl --shapes-only --format github",
        cmd_validate,
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to validate (default: the store)")
    p.add_argument("--format", default="text", choices=REPORT_FORMATS,
                   help="report format: text (file:line:column: one line per result), turtle (sh:ValidationReport), "
                        "json, junit (JUnit XML), sarif (SARIF 2.1.0), github (workflow-command annotations)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of standard output")
    p.add_argument("--engine", default="native", choices=["native", "pyshacl"],
                   help="native (shapes compiled to SPARQL, default) or pyshacl (the reference)")
    p.add_argument("-s", "--shapes", "--shacl", action="append", default=[], metavar="FILE",
                   help="your own SHACL shapes, checked with memkg's (repeatable)")
    p.add_argument("--shapes-only", action="store_true",
                   help="judge only the --shapes given, not memkg's invariants: the data graph is the files as "
                        "written (no claim index, no memkg ontology)")
    p.add_argument("-e", "--ontology", "--ont-graph", action="append", default=[], metavar="FILE",
                   help="an ontology mixed into the data graph, so class targets follow its rdfs:subClassOf "
                        "(repeatable)")
    p.add_argument("-i", "--inference", default="none", choices=INFERENCE_KINDS,
                   help="inference on a copy of the data graph before validating (default: none)")
    p.add_argument("-a", "--advanced", action="store_true",
                   help="SHACL-AF / SHACL 1.2 advanced features: rules run (on a copy) before validating")
    p.add_argument("--imports", "-im", action="store_true",
                   help="follow owl:imports of the shapes and ontology files to local files")
    p.add_argument("--imports-remote", action="store_true", help="follow owl:imports to http(s) URLs too")
    p.add_argument("-m", "--meta-shacl", "--metashacl", action="store_true",
                   help="first judge the shapes graph against SHACL's shapes for shapes (shacl-shacl)")
    p.add_argument("--focus", action="append", default=[], metavar="NODE",
                   help="validate only this focus node (an IRI; repeatable or comma-separated)")
    p.add_argument("--shape", action="append", default=[], metavar="IRI",
                   help="validate only with this named shape (repeatable or comma-separated)")
    p.add_argument("-w", "--allow-warnings", "--allow-warning", action="store_true",
                   help="results of severity sh:Warning or sh:Info do not fail the validation")
    p.add_argument("--allow-infos", "--allow-info", action="store_true",
                   help="results of severity sh:Info do not fail the validation")
    p.add_argument("--max-rule-rounds", type=int, default=ValidationOptions.max_rule_rounds, metavar="N",
                   help="most rounds of rules or inference before giving up on a fixpoint (default: %(default)s)")
    p.add_argument("--strict-prefixes", action="store_true",
                   help="refuse SPARQL in the shapes that uses a prefix no sh:prefixes/sh:declare gives (SHACL to the "
                        "letter); by default the shapes file's @prefix is used, with a warning, as pySHACL does")
    p.add_argument("--input-format", choices=sorted(FORMAT_NAMES), help="force the files' format")
    add_limit_arguments(p, "max_depth", "max_literal")
