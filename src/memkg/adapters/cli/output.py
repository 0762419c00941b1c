"""Output for people and programs: short term names, plain tables, SPARQL results in any format."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyoxigraph import (
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    serialize,
)

from ...core.prefixes import show
from ...core.vocab import PREFIXES
from ...store import FORMAT_NAMES
from .exit_codes import UsageError

RESULT_FORMATS = {
    "json": QueryResultsFormat.JSON,
    "xml": QueryResultsFormat.XML,
    "csv": QueryResultsFormat.CSV,
    "tsv": QueryResultsFormat.TSV,
}
GRAPH_FORMATS = {**FORMAT_NAMES}
QUERY_FORMATS = ["table", *RESULT_FORMATS, *GRAPH_FORMATS]

def short(term: Any, prefixes: Mapping[str, str] | None = None) -> str:
    """A term for people: prefixed names (memkg's, or ``prefixes``: a store's), plain numbers
    and dates, quoted strings (:func:`memkg.core.prefixes.show`)."""
    return show(term, prefixes)


#: Rows between two progress messages of a long result.
PROGRESS_ROWS = 10_000


def print_table(solutions: QuerySolutions, out: Any, prefixes: Mapping[str, str] | None = None,
                progress: Callable[[str], None] | None = None) -> int:
    """SELECT solutions as an aligned table of short terms, with a row count; returns the count.
    ``progress`` is told how many rows are read so far, every :data:`PROGRESS_ROWS`."""
    names = [v.value for v in solutions.variables]
    rows = []
    for row in solutions:
        rows.append([short(row[n], prefixes) for n in names])
        if progress is not None and len(rows) % PROGRESS_ROWS == 0:
            progress(f"{len(rows):,} rows…")
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    out.write("  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")
    return len(rows)


def write_results(results: Any, fmt: str, prefixes: Mapping[str, str] | None = None,
                  progress: Callable[[str], None] | None = None) -> str:
    """A query result to standard output: tables as table|json|xml|csv|tsv, graphs as an RDF format.
    Returns how much was written, for a summary ("1,024 rows", "2,048 bytes of json");
    ``progress`` is told of the rows of a table as they are read."""
    out = sys.stdout
    if isinstance(results, QueryTriples):
        if fmt == "table":
            fmt = "turtle"
        if fmt not in GRAPH_FORMATS:
            raise UsageError(f"a CONSTRUCT or DESCRIBE result is a graph: use --format {'|'.join(GRAPH_FORMATS)}")
        rdf_fmt = GRAPH_FORMATS[fmt]
        declared = dict(prefixes or PREFIXES) if rdf_fmt in (RdfFormat.TURTLE, RdfFormat.TRIG) else None
        out.flush()
        data = serialize(results, format=rdf_fmt, prefixes=declared) or b""
        sys.stdout.buffer.write(data)
        return f"{len(data):,} bytes of {fmt}"
    if fmt in GRAPH_FORMATS:
        raise UsageError(f"a SELECT or ASK result is a table: use --format {'|'.join(['table', *RESULT_FORMATS])}")
    if fmt == "table":
        if isinstance(results, QueryBoolean):
            out.write(("true" if bool(results) else "false") + "\n")
            return "a boolean"
        count = print_table(results, out, prefixes, progress)
        return f"{count:,} row{'s' if count != 1 else ''}"
    out.flush()
    data = results.serialize(format=RESULT_FORMATS[fmt]) or b""
    sys.stdout.buffer.write(data)
    if fmt == "json":
        sys.stdout.buffer.write(b"\n")
    return f"{len(data):,} bytes of {fmt}"


def print_rows(names: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Rows of strings as an aligned table under a header (no row count)."""
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def stderr_progress() -> Callable[[str], None] | None:
    """A progress printer for long work: stderr, and silent unless stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(message: str) -> None:
        sys.stderr.write(f"\r\x1b[K{message}")
        sys.stderr.flush()

    return show
