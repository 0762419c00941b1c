"""Commands over the store as a whole: load, query, view, export, compact, stats."""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from ...store import FORMAT_NAMES, views
from .arguments import (
    add_limit_arguments,
    format_option,
    graph_option,
    limits_from,
    open_store,
    read_query_argument,
    tenant_option,
)
from .exit_codes import EXIT_OK, UsageError
from .output import QUERY_FORMATS, short, stderr_progress, write_results
from .registry import AddCommand


def cmd_load(args: argparse.Namespace) -> int:
    progress = stderr_progress()
    # A refused load leaves nothing: not even the store directory it would have created.
    created = None if getattr(args, "endpoint", None) or Path(args.store).exists() else Path(args.store)
    try:
        with open_store(args, write=True) as store:
            report = store.load(*args.files, graph=args.graph, format=args.format, progress=progress,
                                strict_literals=args.strict_literals, limits=limits_from(args))
    except BaseException as failure:
        if created is not None:
            # The store closes when its last reference goes: this frame's and the failed load's.
            store = None  # noqa: F841
            traceback.clear_frames(failure.__traceback__)
            _remove_created(created)
        raise
    if progress:
        sys.stderr.write("\r\x1b[K")
    if report.rewrites:  # never silent: the store keeps these literals in another form
        print(f"memkg: note: {report.rewrites.summary()}", file=sys.stderr)
    where = f" into graph <{args.graph}>" if args.graph else ""
    print(
        f"loaded {report.parsed:,} quads from {len(report.files)} file(s){where}: "
        f"{report.added:,} new (index included), store {args.store}", flush=True
    )
    for renamed in report.renamed_prefixes:  # never silent: the files' names read otherwise here
        print(f"memkg: note: {renamed}", file=sys.stderr)
    return EXIT_OK


def _remove_created(directory: Path) -> None:
    """Remove a store directory this command created, trying again for a few seconds: RocksDB
    closes when the store's last reference goes, and its threads may write a file meanwhile."""
    gc.collect()
    for _ in range(50):
        shutil.rmtree(directory, ignore_errors=True)
        if not directory.exists():
            return
        time.sleep(0.1)


def cmd_query(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        results = store.query(read_query_argument(args.query), use_default_graph_as_union=args.union)
        write_results(results, args.format, store.prefixes)
    return EXIT_OK


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--param takes key=value, got {pair!r}")
        params[key.strip()] = value
    return params


def view_options(words: Sequence[str]) -> dict[str, str]:
    """A view's parameters written as options: ``--subject ex:Lia --valid-at=2026-01-01T00:00:00Z``
    (``-`` and ``_`` alike). The view itself refuses a name it does not take, listing its own."""
    params: dict[str, str] = {}
    words = list(words)
    while words:
        word = words.pop(0)
        name, sep, value = word.partition("=")
        if not name.startswith("--") or len(name) < 3:
            raise UsageError(f"unexpected {word!r}: a view takes its parameters as --NAME VALUE or --param NAME=VALUE")
        if not sep:
            if not words or words[0].startswith("--"):
                raise UsageError(f"{name} needs a value: {name} VALUE")
            value = words.pop(0)
        params[name[2:].replace("-", "_")] = value
    return params


def cmd_view(args: argparse.Namespace) -> int:
    if args.list or not args.name:
        for v in views.list_views():
            params = ", ".join(
                f"{p.name}{'' if p.required else '?'}" for p in v.params
            )
            print(f"{v.name:<16} {v.description}  [{params}]")
        return EXIT_OK
    given = {**view_options(getattr(args, "unknown", [])), **parse_params(args.param)}
    if args.tenant:
        given["tenant"] = args.tenant
    with open_store(args, write=False) as store:
        write_results(store.view(args.name, given), args.format, store.prefixes)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    progress = stderr_progress()
    written = [0]

    def count(quads: int) -> None:
        written[0] = quads
        if progress:
            progress(f"exported {quads:,} quads…")

    with open_store(args, write=False) as store:
        data = store.export(
            args.output,
            format=args.format,
            graph=args.graph,
            with_index=args.with_index,
            with_ontology=args.with_ontology,
            progress=count,
        )
    if progress:
        sys.stderr.write("\r\x1b[K")
    if data is not None:
        sys.stdout.buffer.write(data)
    if args.output is not None or sys.stderr.isatty():  # a summary, never mixed into the data
        where = f"to {args.output}" if args.output is not None else "to stdout"
        print(f"exported {written[0]:,} quads {where} ({args.format})", file=sys.stderr)
    return EXIT_OK


def cmd_compact(args: argparse.Namespace) -> int:
    with open_store(args, write=True) as store:
        store.compact()
    print(f"{args.store}: compacted")
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    with open_store(args, write=False) as store:
        stats = store.stats()
    print(f"store {args.store}: {stats.quads:,} quads (index and ontology included)")
    print(f"default graph: {stats.default_graph_triples:,} triples")
    for graph in stats.graphs:
        print(f"graph {short(graph.graph)}:")
        for cls, n in graph.classes:
            print(f"  {n:>7,}  {short(cls)}")
    return EXIT_OK


def register(command: AddCommand) -> None:
    """The store commands, in the order `memkg --help` lists them."""
    p = command(
        "load",
        "Load Turtle, TriG, N-Triples or N-Quads 1.2 files in one atomic, validated write.",
        "memkg load examples/lia-tea.trig --tenant https://example.org/tenants/lia",
        cmd_load,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files to load (format from the extension)")
    graph_option(p, "graph for the files' default-graph triples (a tenant)")
    p.add_argument("--format", choices=sorted(FORMAT_NAMES), help="force the input format")
    p.add_argument("--strict-literals", action="store_true",
                   help="refuse the load (exit 1, nothing written) if the store would keep a literal in another "
                        'form than written ("01"^^xsd:integer as "1"); without it they are counted on stderr')
    add_limit_arguments(p, "max_depth", "max_literal")

    p = command(
        "query",
        "Run a SPARQL 1.2 query (text, or @file.rq); mem:, prov:, rdf:, rdfs:, xsd:, owl: are predeclared.",
        "memkg query 'SELECT ?c WHERE { GRAPH ?g { ?c rdf:reifies <<( ?s ?p ?o )>> } }' --format json",
        cmd_query,
    )
    p.add_argument("query", metavar="QUERY", help="the query text, or @FILE to read it from a file")
    format_option(p, QUERY_FORMATS, "table")
    p.add_argument(
        "--union", action="store_true", help="query the union of all graphs as the default graph"
    )

    p = command(
        "view",
        "Run a query template from queries/ by name, with parameters bound as RDF terms.",
        "memkg view current --tenant https://example.org/tenants/lia",
        cmd_view,
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the view (see --list)")
    p.add_argument("--list", action="store_true", help="list the views and their parameters")
    p.set_defaults(takes_options=True)  # --NAME VALUE for each of the view's parameters (see view_options)
    p.epilog = (p.epilog or "") + ("\n\nA view's parameters are options too: memkg view current --subject ex:Lia "
                 "(the same as --param subject=ex:Lia).\nIRIs may be prefixed names, with the prefixes "
                 "the loaded files declared (and mem:, prov:, rdf:, rdfs:, xsd:, owl:).")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter (repeatable); or --KEY VALUE")
    tenant_option(p)
    format_option(p, QUERY_FORMATS, "table")

    p = command(
        "export",
        "Write the store's data (index triples and the ontology left out unless asked).",
        "memkg export --format nquads -o backup.nq",
        cmd_export,
    )
    format_option(p, sorted(FORMAT_NAMES), "trig")
    graph_option(p, "export only this graph")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--with-index", action="store_true", help="include memkg's claim-index triples")
    p.add_argument("--with-ontology", action="store_true", help="include the ontology graph")

    command(
        "compact",
        "Compact the store on disk: faster reads after loads smaller than the store (a large first load is "
        "compacted as it commits); takes time in proportion to the store's size.",
        "memkg compact",
        cmd_compact,
    )

    command(
        "stats",
        "Show what is in memory: quads, and things by class in each graph.",
        "memkg stats",
        cmd_stats,
    )
