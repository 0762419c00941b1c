"""The shapes memkg validates with, the engine protocol, and which graphs form a tenant's data graph."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pyoxigraph import (
    Quad,
    RdfFormat,
    Store,
    parse,
)

from ..core.errors import ParseError
from ..core.resources import data_dir
from ..core.written import WrittenForms
from .engines import NativeEngine
from .results import ENGINES, Graph, Result, Term

if TYPE_CHECKING:
    pass

# -- shapes -------------------------------------------------------------------------


@cache
def builtin_shapes() -> tuple[Quad, ...]:
    """memkg's own shapes, every ``shapes/*.ttl``."""
    quads: list[Quad] = []
    for path in sorted(data_dir("shapes").glob("*.ttl")):
        quads += read_shapes(path)
    return tuple(quads)


def read_shapes(path: str | Path) -> list[Quad]:
    path = Path(path)
    fmt = RdfFormat.TRIG if path.suffix == ".trig" else RdfFormat.TURTLE
    try:
        return list(parse(path=str(path), format=fmt, base_iri=path.resolve().as_uri()))
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file=path) from None


class ValidationEngine(Protocol):
    name: str

    def validate(
        self, store: Store, graph: Graph, *, focus: Sequence[Term] | None = None, scan: bool = False,
        written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
    ) -> list[Result]:
        ...


def make_engine(name: str, shapes: Sequence[Quad]) -> ValidationEngine:
    if name == "native":
        return NativeEngine(shapes)
    if name == "pyshacl":
        # pySHACL and rdflib take most of a second to import; only the reference engine needs them.
        from .pyshacl_engine import PyshaclEngine

        return PyshaclEngine(shapes)
    raise ValueError(f"unknown validation engine {name!r}; expected one of {', '.join(ENGINES)}")


def _within(progress: Callable[[str], None], step: str, message: str) -> None:
    progress(f"{step}: {message}")


def validate_graphs(
    engine: ValidationEngine, store: Store, graphs: Iterable[Graph], focus: Sequence[Term] | None, *, scan: bool = False,
    written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
) -> list[Result]:
    seen: set[tuple[str, ...]] = set()
    results: list[Result] = []
    graphs = list(graphs)
    for i, g in enumerate(graphs, 1):
        told: Callable[[str], None] | None = None
        if progress is not None:
            step = f"validating graph {i}/{len(graphs)} {g}"
            progress(step + "…")
            told = partial(_within, progress, step)
        found = engine.validate(store, g, focus=focus, scan=scan, written=written or None, progress=told)
        for r in found:
            # A node of the shared default graph is seen from every tenant: report it once.
            k = r.key()
            if k not in seen:
                seen.add(k)
                results.append(r)
    return results
