"""The recall index's vectors on disk, memory-mapped: a search opens them without reading them.

The database (``recall.sqlite``) stays the truth: this file (:data:`VECTORS_FILE`, beside it)
is a copy of the in-memory :class:`~memkg.recall.vectors.Vectors` of its live documents, as
they stood when it was written, and says which state that was: the index's rebuild mark and
the newest document id it holds. A process that searches maps it (copy-on-write: its own
changes never reach the file) and reads from the database only what changed since (the rows
past that id, and which held ids are gone: :meth:`memkg.recall.index.RecallIndex.follow`). A
file of another rebuild, of another dimension, or unreadable is ignored, and the vectors are
read from the database as before; so a crash at any point leaves at worst a slower search.

Written whole to a scratch name and renamed (a reader never sees half a file); an erasure
zeroes the erased rows in place (:func:`erase`), so the file keeps no trace of them.

Layout: ``MAGIC``, an 8-byte little-endian header length, a small JSON header (dimension,
rows, links, the index's rebuild mark, newest id and count of removed documents, each array's
dtype, shape and offset), then the arrays, each at a 64-byte boundary; the graph and vertex
names (in code order) are arrays too, UTF-8 lines, so that reading the state costs nothing.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .vectors import Vectors

__all__ = ["VECTORS_FILE", "VectorFile", "erase", "read", "state", "write"]

#: The vectors file inside an on-disk store's directory, beside the index's database.
VECTORS_FILE = "recall.vectors"
MAGIC = b"MEMKGVEC1\n"
_ALIGN = 64
#: What the header says, and how (a header without one of these is no file of this code's).
_STATE = {"dim": int, "rows": int, "links": int, "rebuilt": str, "removed": int, "newest": int, "graphs": int,
          "entities": int, "arrays": dict}
#: The row columns of :class:`Vectors` kept in the file (``bits`` is word-major: words × rows).
_ROWS = ("ids", "matrix", "scale", "graphs", "start", "end", "low", "high", "timed", "said_low", "said_high",
         "recorded", "alive")


class VectorFile:
    """What :func:`read` found: the vectors, and the state of the index they copy."""

    def __init__(self, vectors: Vectors, state: dict[str, Any]) -> None:
        self.vectors = vectors
        self.rebuilt = str(state["rebuilt"])  #: the index's rebuild mark when the file was written
        self.newest = int(state["newest"])  #: the newest document id the file holds (0: none)
        self.removed = int(state["removed"])  #: the index's count of removed documents then


def write(path: Path, vectors: Vectors, *, rebuilt: str, removed: int) -> None:
    """Write the live rows of ``vectors`` to ``path`` (whole, then renamed into place), as the
    state of the index of rebuild mark ``rebuilt`` that has removed ``removed`` documents."""
    n = vectors.size
    keep = np.flatnonzero(vectors.alive[:n])
    # Positions after the dead rows are left out; links of dead rows go with them.
    moved = np.cumsum(vectors.alive[:n]) - 1
    link_rows = vectors.link_rows[: vectors.links]
    live_links = vectors.alive[link_rows] if link_rows.size else np.zeros(0, dtype=bool)
    rows = moved[link_rows[live_links]].astype(np.int64)
    entities = vectors.link_entities[: vectors.links][live_links]
    order = np.argsort(entities, kind="stable")
    arrays: dict[str, np.ndarray] = {name: getattr(vectors, name)[keep] for name in _ROWS}
    arrays["bits"] = vectors.bits[:, keep]
    arrays.update(link_rows=rows, link_entities=entities, order=order, ordered=entities[order],
                  graph_names=_lines(vectors.graph_codes), entity_names=_lines(vectors.entity_codes))
    header: dict[str, Any] = {
        "dim": vectors.dim, "rows": int(keep.size), "links": int(rows.size), "rebuilt": rebuilt, "removed": removed,
        "newest": int(vectors.ids[keep[-1]]) if keep.size else 0, "graphs": len(vectors.graph_codes),
        "entities": len(vectors.entity_codes), "arrays": {},
    }
    offset = 0
    for name, a in arrays.items():
        header["arrays"][name] = [a.dtype.str, list(a.shape), offset]
        offset += _aligned(a.nbytes)
    text = json.dumps(header, separators=(",", ":")).encode()
    start = _aligned(len(MAGIC) + 8 + len(text))
    scratch = path.with_name(path.name + ".partial")
    with open(scratch, "wb") as out:
        out.write(MAGIC + len(text).to_bytes(8, "little") + text)
        out.write(b"\0" * (start - out.tell()))
        for a in arrays.values():
            out.write(np.ascontiguousarray(a).tobytes())
            out.write(b"\0" * (_aligned(a.nbytes) - a.nbytes))
        out.flush()
        os.fsync(out.fileno())
    os.replace(scratch, path)


def state(path: Path) -> dict[str, Any] | None:
    """The file's header alone (rebuild mark, newest id, removed count…, and ``start``: where its
    arrays begin); None if unreadable."""
    try:
        with open(path, "rb") as f:
            return _header(f)
    except OSError:
        return None


def _header(f: BinaryIO) -> dict[str, Any] | None:
    try:
        if f.read(len(MAGIC)) != MAGIC:
            return None
        length = int.from_bytes(f.read(8), "little")
        if length > os.fstat(f.fileno()).st_size:
            return None
        header = json.loads(f.read(length))
    except ValueError:
        return None
    if not isinstance(header, dict) or any(not isinstance(header.get(key), kind) for key, kind in _STATE.items()):
        return None
    header["start"] = _aligned(len(MAGIC) + 8 + length)
    return header


def read(path: Path, dim: int) -> VectorFile | None:
    """The vectors ``path`` holds, mapped copy-on-write; None if there is no such file or it is
    not one of dimension ``dim`` (the caller reads the database instead)."""
    try:
        with open(path, "rb") as f:  # the header and the mapping of one file, whatever replaces it meanwhile
            header = _header(f)
            if header is None:
                return None
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):
        return None
    try:
        return _parse(mapped, header, dim)
    except (ValueError, KeyError, TypeError, IndexError, OverflowError):  # not a file this code wrote: ignored
        return None


def _parse(mapped: mmap.mmap, header: dict[str, Any], dim: int) -> VectorFile | None:
    if header["dim"] != dim:
        return None
    start = int(header["start"])
    arrays = {}
    for name, (dtype, shape, offset) in header["arrays"].items():
        kind = np.dtype(dtype)
        count = int(np.prod(shape))
        if start + offset + count * kind.itemsize > len(mapped):
            return None
        arrays[name] = np.frombuffer(mapped, dtype=kind, count=count, offset=start + offset).reshape(shape)
    v = Vectors(dim)
    for name in _ROWS:
        setattr(v, name, arrays[name])
    v.bits = arrays["bits"]
    v.size = header["rows"]
    v.graph_codes = {g: i for i, g in enumerate(_names(arrays["graph_names"], header["graphs"]))}
    v.link_rows, v.link_entities, v.links = arrays["link_rows"], arrays["link_entities"], header["links"]
    v.entity_codes = {e: i for i, e in enumerate(_names(arrays["entity_names"], header["entities"]))}
    v.sorted_links(arrays["order"], arrays["ordered"])
    return VectorFile(v, header)


def erase(path: Path, ids: Sequence[int]) -> None:
    """Zero the rows of ``ids`` in the file, in place, and mark them dead: an erasure leaves no
    trace of its documents' vectors (readers that mapped the file see the zeros too). A file
    that cannot be read as one is removed instead (the next search reads the database)."""
    header = state(path)
    if header is None:
        path.unlink(missing_ok=True)
        return
    try:
        with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as mapped:
            _zero(mapped, header, ids)
    except (OSError, ValueError, KeyError, TypeError, IndexError, OverflowError):
        path.unlink(missing_ok=True)


def _zero(mapped: mmap.mmap, header: dict[str, Any], ids: Sequence[int]) -> None:
    start = int(header["start"])

    def column(name: str) -> np.ndarray:
        dtype, shape, offset = header["arrays"][name]
        kind = np.dtype(dtype)
        return np.frombuffer(mapped, dtype=kind, count=int(np.prod(shape)), offset=start + offset).reshape(shape)

    held = column("ids")
    wanted = np.asarray(sorted(ids), dtype=np.int64)
    at = np.minimum(np.searchsorted(held, wanted), max(held.size - 1, 0))
    at = at[held[at] == wanted] if held.size else at[:0]
    del held  # every view of the mapping goes before it closes
    if at.size:
        column("matrix")[at] = 0
        column("scale")[at] = 0
        column("bits")[:, at] = 0
        column("alive")[at] = False
        mapped.flush()


def _lines(codes: dict[str, int]) -> np.ndarray:
    """Names in code order as UTF-8 lines (IRIs hold no line break)."""
    out = [""] * len(codes)
    for name, code in codes.items():
        out[code] = name
    return np.frombuffer("\n".join(out).encode(), dtype=np.uint8)


def _names(lines: np.ndarray, count: int) -> list[str]:
    names = lines.tobytes().decode().split("\n") if count else []
    if len(names) != count:
        raise ValueError("the names do not match their count")
    return names


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN
