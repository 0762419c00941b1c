"""The shape of the command line: the global options (where the store is) and every subcommand.

Each command module declares its own subcommands' arguments (its ``register``);
this module lays them out in the order ``memkg --help`` lists them.

A command line imports only the module of the command it runs: the others are listed, for
``memkg --help`` and argparse's choices, from :data:`COMMANDS`, which names each command's
module and its one-line help (a test holds it equal to what the modules register). So
``memkg query`` never imports validation, recall or the endpoint.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Any

from ... import __version__
from ...store.backends.embedded import DEFAULT_STORE_PATH
from .registry import Command

#: The command modules, in the order ``memkg --help`` lists their commands.
MODULES = ("store_commands", "validate_command", "time_commands", "index_command", "recall_command",
           "tags_commands", "provenance_commands", "serve_command", "mcp_command")

#: Each command: its module, and the help ``memkg --help`` shows for it.
COMMANDS: dict[str, tuple[str, str]] = {
    "load": ("store_commands", "Load Turtle, TriG, N-Triples or N-Quads 1.2 files in one atomic, validated write."),
    "query": ("store_commands", "Run a SPARQL 1.2 query (text, or @file.rq); mem:, prov:, rdf:, rdfs:, xsd:, owl: "
                                "are predeclared."),
    "view": ("store_commands", "Run a query template from queries/ by name, with parameters bound as RDF terms."),
    "export": ("store_commands", "Write the store's data (index triples and the ontology left out unless asked)."),
    "compact": ("store_commands", "Compact the store on disk: faster reads after loads smaller than the store (a "
                                  "large first load is compacted as it commits); takes time in proportion to the "
                                  "store's size."),
    "stats": ("store_commands", "Show what is in memory: quads, and things by class in each graph."),
    "validate": ("validate_command", "Check files (or, without files, the whole store) against memkg's invariants "
                                     "and your SHACL shapes; exit 1 on results, 2 on an error."),
    "supersede": ("time_commands", "Record a new version of a claim's current version (nothing is overwritten): "
                                   "prints its IRI and whether it is a change in the world or a correction; one "
                                   "that changes nothing writes nothing."),
    "retract": ("time_commands", "Withdraw claims (or sources) from current knowledge, recording a "
                                 "mem:Retraction; prints its IRI."),
    "ingest": ("time_commands", "Ingest JSON Lines from an agent loop (messages with sender, recipients, episode "
                                "and time; notes and claims versioned by id) in one atomic write."),
    "history": ("time_commands", "Every version of a claim, oldest first, with who recorded each and from what "
                                 "(blame); --format svg|dot draws them on a time line."),
    "diff": ("time_commands", "Claims added to and removed from current knowledge between two transaction times."),
    "bisect": ("time_commands", "Every time at which an ASK over current knowledge (the audit view) flips its "
                                "answer."),
    "index": ("index_command", "Check the derived indexes (claim index; recall text, vector and link index) "
                               "against the data (exit 1 if inconsistent), or rebuild them."),
    "recall": ("recall_command", "Find what the memory holds about a question: messages, claims, episodes and "
                                 "vertices, best first, each with the signals (lexical, vector, entity, time, graph) "
                                 "that ranked it. The text and vector indexes are built by a bulk load (or on "
                                 "first use) and kept by every write. With --endpoint, the server (memkg serve) "
                                 "answers from its own indexes."),
    "tags": ("tags_commands", "Edge properties (label:value hyperedges over records): write, list and gather "
                              "them."),
    "policy": ("tags_commands", "Lanes and source types: show a policy file, or write the SHACL shapes that "
                                "enforce it."),
    "lineage": ("provenance_commands", "Every source a claim reaches through support, derivation or echo links, "
                                       "with the kind of each link; --format svg|dot draws it, with what falls if "
                                       "a source goes."),
    "dependents": ("provenance_commands", "The claims that lose all support if SOURCE is withdrawn (recursively); "
                                          "nothing is written."),
    "support": ("provenance_commands", "A claim's support groups and whether each still stands (recursively); "
                                       "--format svg|dot draws the AND/OR groups and echoes."),
    "withdraw": ("provenance_commands", "Withdraw a source: record a mem:Retraction of it and list the claims to "
                                        "re-evaluate (fallen, weakened, downstream)."),
    "erase": ("provenance_commands", "Erase a source (consent revoked) and what was derived only from it; records "
                                     "the erasure by identifier."),
    "packet": ("provenance_commands", "An evidence packet for a reader: mandatory provenance, competing and "
                                      "qualifying claims, within budgets."),
    "verify": ("provenance_commands", "Walk a derivation chain back from its end, with a verdict per stage; exit 1 "
                                      "if the end is not supported."),
    "assess": ("provenance_commands", "A claim's evidence without double counting, beside its recorded confidence "
                                      "(kept apart)."),
    "extract": ("provenance_commands", "Extract claims from a source's mem:content with a deterministic baseline "
                                       "extractor (recorded in PROV)."),
    "echoes": ("provenance_commands", "Propose mem:echoOf between near-duplicate sources (token overlap), with "
                                      "scores; --accept records them."),
    "serve": ("serve_command", "Serve the store over HTTP: SPARQL 1.1 Protocol, Graph Store Protocol, views and a "
                               "query page."),
    "mcp": ("mcp_command", "Serve the memory to agents over the Model Context Protocol: remember, recall, explain, "
                           "correct, forget."),
}

#: The global options that take a value (the word after them is never the command).
_VALUED = ("--store", "--endpoint", "--update-endpoint", "--endpoint-dialect", "--token")


def register_of(module: str) -> Any:
    """The ``register`` of a command module, imported now."""
    return importlib.import_module(f"{__package__}.{module}").register


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs (the first word that is not a global option or its value), if
    it names one.

    >>> command_named(["--store", "query", "stats"]), command_named(["--help"]), command_named(["nope"])
    ('stats', None, None)
    """
    words = iter(argv)
    for word in words:
        if word == "--":
            break
        if word.startswith("-"):
            name = word.partition("=")[0]
            if "=" not in word and any(option.startswith(name) for option in _VALUED) and len(name) > 2:
                next(words, None)
            continue
        return word if word in COMMANDS else None
    return None


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Every help text: descriptions and epilogs (the examples) kept as written, line by line."""


def _where_options(parser: argparse.ArgumentParser, *, after_command: bool) -> None:
    """The global options (where the store is). After the command too (``memkg stats --store X``):
    there their defaults are left unset, so they never hide a value given before the command."""
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if after_command else {}
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--store",
        metavar="PATH",
        help="the store directory (default: ./memkg-store)",
        **(unset or {"default": str(DEFAULT_STORE_PATH)}),
    )
    where.add_argument("--endpoint", metavar="URL", **unset,
                       help="use a running SPARQL 1.1 server instead of a store directory (see docs/remote.md)")
    parser.add_argument("--update-endpoint", metavar="URL", **unset,
                        help="the server's update URL (default: the endpoint, or …/update for …/query)")
    parser.add_argument("--endpoint-dialect", choices=["auto", "rdf12", "rdf11"],
                        help="rdf12: the server stores triple terms; rdf11: memkg encodes them (Virtuoso); "
                             "auto: ask the server (default)", **(unset or {"default": "auto"}))
    parser.add_argument("--token", metavar="TOKEN", **unset,
                        help="bearer token for the endpoint (default: $MEMKG_TOKEN)")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given the ``argv`` it will parse, only the module of the command
    it runs is imported, and the other commands are listed by name and help."""
    parser = argparse.ArgumentParser(
        prog="memkg",
        description="memkg: an AI agent's memory as an RDF 1.2 knowledge graph.",
        epilog=(
            "examples:\n"
            "  memkg load examples/lia-tea.trig\n"
            "  memkg view current\n"
            "  memkg query 'SELECT ?c WHERE { GRAPH ?g { ?c a mem:Claim } }'\n"
            "\nexit codes: 0 ok; 1 invalid data or inconsistency (nothing written); "
            "2 parse or usage error (nothing written)"
        ),
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"memkg {__version__}")
    _where_options(parser, after_command=False)
    after = argparse.ArgumentParser(add_help=False)
    _where_options(after, after_command=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, example: str, func: Command) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name, help=help, description=help, epilog=f"example:\n  {example}", formatter_class=_Formatter,
            parents=[after],
        )
        p.set_defaults(func=func)
        return p

    chosen = None if argv is None else command_named(argv)
    for module in MODULES:
        if argv is None or (chosen is not None and COMMANDS[chosen][0] == module):
            register_of(module)(command)
        else:  # listed only, by name and help: argparse shows it and accepts it as a choice
            for name, (home, help) in COMMANDS.items():
                if home == module:
                    sub.add_parser(name, help=help)
    return parser
