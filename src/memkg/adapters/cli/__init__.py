"""The ``memkg`` command line: parse arguments, call one library method, format the result.

Library errors become command-line errors at one place, :func:`main`, with the
exit codes of the contract: 0 ok, 1 invalid data (nothing written), 2 a parse
or usage error (nothing written); and 130 when interrupted (Ctrl-C), as shells count it.

The package, module by module:

- ``parser``: the global options (``--store``, ``--endpoint``, …) and the subcommands' layout;
- ``arguments``: command-line text to a store handle, a query, RDF terms, times;
- ``output``: short term names, tables, SPARQL results in every format;
- ``exit_codes``: the exit codes and :class:`UsageError`;
- ``registry``: how a command module declares its subcommands (its ``register``) without the parser;
- one module per group of commands: ``store_commands`` (load, query, view, export, compact,
  stats), ``validate_command``, ``time_commands`` (supersede, retract, ingest, history, diff, bisect),
  ``index_command``, ``tags_commands`` (tags, policy), ``provenance_commands`` (lineage …
  echoes) and ``serve_command``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from ...core.errors import (
    NotFoundError,
    ParseError,
    Refused,
    StoreLockedError,
    UnknownFormatError,
    ValidationError,
)
from .exit_codes import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, UsageError
from .output import print_table, short, write_results
from .parser import build_parser
from .registry import Command

__all__ = [
    "EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_INVALID", "EXIT_OK", "UsageError",
    "build_parser", "main", "print_table", "short", "write_results",
]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:  # Ctrl-C: commits are never cut short (memkg.guard.cancellation.shielded)
        print("memkg: interrupted; nothing was left half-written", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(argv: Sequence[str]) -> int:
    parser = build_parser(argv)
    # argparse exits 2 on usage errors, with a hint. A command that takes options of its own
    # making (`view NAME --subject X`: the view's parameters) gets the ones argparse does not know.
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "takes_options", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.unknown = unknown
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    func: Command = args.func
    try:
        return func(args)
    except ValidationError as err:  # nothing written; each violation with where it is written and its fix
        print(f"memkg: {refusal_text(err)}", file=sys.stderr)
        return EXIT_INVALID
    except Refused as err:  # nothing written
        print(f"memkg: {err}", file=sys.stderr)
        return EXIT_INVALID
    except UnknownFormatError as err:  # the library names no flags; here the flag is the answer
        print(f"memkg: {err}; on the command line: --format NAME", file=sys.stderr)
        return EXIT_ERROR
    except (ParseError, UsageError, NotFoundError, StoreLockedError) as err:
        print(f"memkg: {err}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # e.g. `memkg export | head`: the reader has all it wants
        # Python would complain again when it flushes stdout at exit; point it at nothing.

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (ValueError, OSError) as err:  # BrokenPipeError is an OSError: it is caught above
        print(f"memkg: {err}", file=sys.stderr)
        return EXIT_ERROR


def refusal_text(err: ValidationError, *, shown: int = 20) -> str:
    """A refused write for people: the file, then each violation (``file:line:column:`` where
    the focus node is written, when known) with the fix memkg's shapes carry."""
    head = f"{err.source}: " if err.source else ""
    from ...validation.fixes import fix_for  # here: a command that writes nothing never loads validation

    lines = [f"{head}write refused, {len(err.violations)} violation(s); nothing was written"]
    for v in err.violations[:shown]:
        fix = fix_for(v.shape)
        lines.append(f"  {v}" + (f"\n    fix: {fix}" if fix else ""))
    if len(err.violations) > shown:
        lines.append(f"  … and {len(err.violations) - shown} more")
    return "\n".join(lines)

