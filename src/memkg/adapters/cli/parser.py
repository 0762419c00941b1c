"""The shape of the command line: the global options (where the store is) and every subcommand.

Each command module declares its own subcommands' arguments (its ``register``);
this module lays them out in the order ``memkg --help`` lists them.
"""

from __future__ import annotations

import argparse
from typing import Any

from ... import __version__
from ...store import DEFAULT_STORE_PATH
from . import (
    index_command,
    mcp_command,
    provenance_commands,
    recall_command,
    serve_command,
    store_commands,
    tags_commands,
    time_commands,
    validate_command,
)
from .registry import Command

REGISTRIES = (
    store_commands.register,       # load query view export compact stats
    validate_command.register,     # validate
    time_commands.register,        # supersede retract ingest history diff bisect
    index_command.register,        # index
    recall_command.register,       # recall
    tags_commands.register,        # tags policy
    provenance_commands.register,  # lineage … echoes
    serve_command.register,        # serve
    mcp_command.register,          # mcp
)


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


def build_parser() -> argparse.ArgumentParser:
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

    for register in REGISTRIES:
        register(command)
    return parser
