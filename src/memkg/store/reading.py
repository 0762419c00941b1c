"""Reading RDF files and text into quads, the way every load does.

Each input is parsed where no nesting can overflow the stack and checked against
:class:`~memkg.guard.limits.Limits`; a syntax error becomes a :class:`~memkg.core.errors.ParseError`
naming file, line and column; triples in a file's default graph go to the load's
target graph. :class:`FileReader` is one load's files as a value: it can be handed to
another process (:mod:`memkg.loading.first_load` reads there while the store writes here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, parse

from ..core.errors import ParseError
from ..guard import limits
from ..guard.limits import Limits

Progress = Callable[[str], None]


@dataclass(frozen=True)
class FileReader:
    """The files of one load: what to read and how, without reading yet.

    >>> import tempfile, os
    >>> from pathlib import Path
    >>> d = tempfile.mkdtemp(); f = Path(d, "a.nt"); _ = f.write_text("<urn:a> <urn:p> <urn:b> .\\n")
    >>> reader = FileReader([(f, RdfFormat.N_TRIPLES)], NamedNode("urn:g"))
    >>> starts, declared = [], []
    >>> [str(q.graph_name) for q in reader.quads(starts=starts, declared=declared)], [i for _, i in starts]
    (['<urn:g>'], [0])
    """

    sources: Sequence[tuple[Path, RdfFormat]]
    target: NamedNode | DefaultGraph = DefaultGraph()
    base_iri: str | None = None
    limits: Limits | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # pyoxigraph's RdfFormat does not pickle: each travels as its media type.
        files = [(path, fmt.media_type) for path, fmt in self.sources]
        return _reader, (files, self.target, self.base_iri, self.limits)

    def base_of(self, path: Path) -> str:
        """The base IRI ``path`` is read with: the one given, else the file's own URL."""
        return base_of(path, self.base_iri)

    def quads(
        self, *, progress: Progress | None = None, starts: list[tuple[str, int]] | None = None,
        declared: list[tuple[str, str]] | None = None,
    ) -> Iterator[Quad]:
        """Every file's quads in order. ``starts`` is refilled with each file and the index of
        its first quad; ``declared`` gets each file's prefixes once it is read."""
        if starts is not None:
            starts.clear()
        read = 0
        for path, fmt in self.sources:
            if starts is not None:
                starts.append((str(path), read))
            for quad in read_file(path, fmt, self.target, self.base_iri, progress, self.limits, declared):
                read += 1
                yield quad


def _reader(
    files: list[tuple[Path, str]], target: NamedNode | DefaultGraph, base_iri: str | None, bounds: Limits | None,
) -> FileReader:
    sources = []
    for path, media in files:
        fmt = RdfFormat.from_media_type(media)
        assert fmt is not None, media  # the media type of one of pyoxigraph's own formats
        sources.append((path, fmt))
    return FileReader(sources, target, base_iri, bounds)


def retarget(quads: Iterable[Quad], target: NamedNode | DefaultGraph) -> Iterator[Quad]:
    """``quads`` with those of the default graph moved into ``target``."""
    if isinstance(target, DefaultGraph):
        yield from quads
        return
    for q in quads:
        if isinstance(q.graph_name, DefaultGraph):
            yield Quad(q.subject, q.predicate, q.object, target)
        else:
            yield q


def base_of(path: Path, base_iri: str | None) -> str:
    """The base IRI a file is read with: the one given, else the file's own URL."""
    return base_iri or path.resolve().as_uri()


def read_file(
    path: Path,
    fmt: RdfFormat,
    target: NamedNode | DefaultGraph,
    base_iri: str | None,
    progress: Progress | None,
    bounds: Limits | None = None,
    declared: list[tuple[str, str]] | None = None,
) -> Iterator[Quad]:
    """The quads of one file (see the module's docstring); ``declared`` gets its prefixes."""
    # pyoxigraph parses lazily: syntax errors surface while iterating, so the
    # whole iteration sits inside the try.
    base = base_of(path, base_iri)
    try:
        made: list[Any] = []  # the parser, for the prefixes it read (the guard runs it elsewhere)

        def open_parser() -> Any:
            made.append(parse(path=str(path), format=fmt, base_iri=base, rename_blank_nodes=True))
            return made[-1]

        bounds = bounds or limits.DEFAULT
        if bounds.max_literal is not None and path.stat().st_size <= bounds.max_literal:
            # A literal never has more characters than the file has bytes: none to measure.
            bounds = replace(bounds, max_literal=None)
        parser = limits.guarded(
            open_parser,
            openings=limits.count_file_openings(path), limits=bounds, source=str(path),
            scan=lambda: limits.file_nesting_depth(path),
        )
        for n, quad in enumerate(retarget(parser, target), 1):
            if progress and n % 100_000 == 0:
                progress(f"{path}: {n:,} quads read")
            yield quad
        if declared is not None and made:
            declared.extend(made[-1].prefixes.items())
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file=path) from None


def read_bytes(
    data: bytes, fmt: RdfFormat, target: NamedNode | DefaultGraph, base_iri: str | None
) -> Iterator[Quad]:
    """The quads of RDF text given inline (named ``<data>`` in errors)."""
    try:
        parser = limits.guarded(
            lambda: parse(data, fmt, base_iri=base_iri, rename_blank_nodes=True),
            openings=limits.count_openings(data), source="<data>", scan=lambda: limits.nesting_depth(data),
        )
        yield from retarget(parser, target)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file="<data>") from None
