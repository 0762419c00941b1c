"""Turning command-line text into what the library takes: a store handle, a query, RDF terms, times."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pyoxigraph import NamedNode

from ...core.terms import zoned_datetime
from ...guard.limits import DEFAULT
from ...store import MemoryStore, views
from .exit_codes import UsageError


def open_store(args: argparse.Namespace, *, write: bool) -> MemoryStore:
    """Open the store for a command. Readers open it read-write too: Oxigraph calls a
    read-only open *undefined behaviour* while another process writes, whereas a
    read-write open fails cleanly (StoreLockedError) when a server holds the store."""
    if getattr(args, "endpoint", None):
        from ...store.backends.sparql import SparqlBackend, token_from_env  # here: a store on disk needs no HTTP

        server = SparqlBackend(args.endpoint, update_url=args.update_endpoint, dialect=args.endpoint_dialect,
                               token=token_from_env(args.token), read_only=not write)
        args.store = server.endpoint  # messages name where the data went (never a password)
        return _checked_tenant(args, MemoryStore(backend=server), write=write)
    # A read never creates a store; a folder holding anything but a store is refused even for a write.
    # A reader writes nothing, so it needs no judge (and never loads validation to make one).
    return _checked_tenant(args, MemoryStore(Path(args.store), create=write,
                                             validation="native" if write else None), write=write)


def _checked_tenant(args: argparse.Namespace, store: MemoryStore, *, write: bool) -> MemoryStore:
    """``--tenant`` (``--graph``) as a full IRI, read as every IRI argument is (:meth:`MemoryStore.read_iri`);
    for a read, a graph that is not in the store is an error naming those that are, never an empty answer."""
    try:
        for option in ("tenant", "graph"):
            given = getattr(args, option, None)
            if given:
                setattr(args, option, store.read_iri(given, what="--tenant").value)
        tenant = getattr(args, "tenant", None)
        if tenant and not write and not store.raw.contains_named_graph(NamedNode(tenant)):
            views.require_graph(NamedNode(tenant), store.named_graphs())
    except BaseException:
        store.close()
        raise
    return store


def read_query_argument(text: str) -> str:
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise UsageError(f"{path}: no such query file")
        return path.read_text(encoding="utf-8")
    return text


def parse_time(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return zoned_datetime(text)
    except ValueError as e:
        raise UsageError(str(e)) from None


# -- options many commands share (one wording everywhere in `memkg --help`) ------------------


def tenant_option(p: argparse.ArgumentParser, help: str = "restrict to one tenant's graph") -> None:
    p.add_argument("--tenant", metavar="IRI", help=help)


def graph_option(p: argparse.ArgumentParser, help: str = "the tenant graph") -> None:
    """``--tenant IRI`` for commands that write into (or export) one graph, as reads take it;
    ``--graph IRI`` is the same option under the name docs/contract.md section 5 gives ``memkg load``.
    The value lands in ``args.graph``."""
    p.add_argument("--tenant", "--graph", dest="graph", metavar="IRI", help=help)


def format_option(p: argparse.ArgumentParser, choices: Sequence[str], default: str) -> None:
    p.add_argument("--format", default=default, choices=choices, help=f"output format (default: {default})")


#: The limits (memkg.guard.limits.Limits) each command takes as options, and their help.
LIMIT_HELP = {
    "max_depth": ("N", "refuse input nesting triple terms (or SPARQL brackets) deeper than this (default: 64)"),
    "max_literal": ("CHARS", "refuse a literal longer than this (default and most: 16 MiB, the RDF parser's limit)"),
    "max_query": ("BYTES", "refuse a SPARQL query longer than this with 400 (default: 1 MiB; 0: no limit)"),
    "max_update": ("BYTES", "refuse a SPARQL update longer than this with 400 (default: 4 MiB; 0: no limit)"),
}


def add_limit_arguments(parser: argparse.ArgumentParser, *names: str) -> None:
    """``--max-depth`` and friends (see memkg.guard.limits), each defaulting to the library's value."""
    for name in names:
        metavar, text = LIMIT_HELP[name]
        parser.add_argument("--" + name.replace("_", "-"), type=int, metavar=metavar, dest=name, help=text)


def limits_from(args: argparse.Namespace) -> Any:
    """The :class:`memkg.guard.limits.Limits` the options give (UsageError for a value out of range)."""

    given = {n: getattr(args, n) for n in LIMIT_HELP if getattr(args, n, None) is not None}
    for name in ("max_query", "max_update"):
        if given.get(name) == 0:
            given[name] = None
    try:
        return dataclasses.replace(DEFAULT, **given)
    except ValueError as err:
        raise UsageError(str(err)) from None
