"""Placing results in the files they came from: file, line and column for every result.

Validation runs on stores, which do not remember where anything was written. Once a
validation of files has results, :func:`place` reads the files again (once, whatever
the number of results) for the focus nodes those results name
(:func:`memkg.core.positions.locate`); a file that conforms is never read twice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from pyoxigraph import BlankNode, NamedNode, Store

from ..core.errors import Violation
from ..core.positions import Position, Wanted, key, locate
from ..core.vocab import MEMX


def wanted_of(result: Violation) -> Wanted:
    """What to look for: the focus node's triple on the result's (simple) path with its value."""
    predicate = result.path if isinstance(result.path, NamedNode) else None
    return Wanted(result.focus, predicate, result.value if predicate is not None else None)


def place(results: Sequence[Violation], files: Sequence[Path], *, store: Store | None = None) -> list[Violation]:
    """``results`` with ``file``, ``line`` and ``column`` set where the files write their focus
    node (see :mod:`memkg.core.positions`). A focus node that no file writes (one that
    the ontology or inference brought) is given the first file and no line.

    ``store``: the data, for telling which blank node of a file a blank focus node is (by
    what the two say: their predicates and non-blank objects).
    """
    wanted = {id(r): wanted_of(r) for r in results}
    descriptions: dict[BlankNode, set[tuple[str, str]]] = {}
    for r in results:
        if isinstance(r.focus, BlankNode) and store is not None and r.focus not in descriptions:
            descriptions[r.focus] = {
                (str(q.predicate), "_:" if isinstance(q.object, BlankNode) else key(q.object))
                for q in store.quads_for_pattern(r.focus, None, None) if not _is_index(q.predicate)
            }
    found = locate(files, wanted.values(), descriptions=descriptions)
    fallback = str(files[0]) if files else None
    out = []
    for r in results:
        at: Position | None = found.get(wanted[id(r)])
        if at is None:
            out.append(dataclasses.replace(r, file=fallback))
        else:
            out.append(dataclasses.replace(r, file=at.file, line=at.line, column=at.column))
    return out


def _is_index(predicate: NamedNode) -> bool:
    """memkg's claim-index triples are the store's, never the file's."""
    return predicate.value.startswith(MEMX)
