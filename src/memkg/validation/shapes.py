"""The shapes memkg validates with, the engine protocol, and which graphs form a tenant's data graph."""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, partial
from pathlib import Path
from typing import Protocol

from urllib.parse import urlsplit
from urllib.request import Request, url2pathname, urlopen

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Store, parse

from ..core.errors import MemkgError, ParseError, Violation
from ..core.resources import data_dir
from ..core.terms import GraphName, Term
from ..core.vocab import MEM, mem, owl
from ..core.written import WrittenForms
from ..store.formats import rdf_format
from ..store.ontology import ontology_quads
from .engines import NativeEngine
from .results import ENGINES, Report

# -- shapes -------------------------------------------------------------------------


@cache
def builtin_shapes() -> tuple[Quad, ...]:
    """memkg's own shapes, every ``shapes/*.ttl``."""
    quads: list[Quad] = []
    for path in sorted(data_dir("shapes").glob("*.ttl")):
        quads += read_shapes(path)
    return tuple(quads)


def read_shapes(path: str | Path) -> list[Quad]:
    """The quads of a shapes (or ontology) file: Turtle, TriG, N-Triples or N-Quads by its extension
    (Turtle when it has none of theirs)."""
    return _read_file(Path(path))[0]


def _read_file(path: Path) -> tuple[list[Quad], dict[str, str]]:
    """A shapes file's quads and ``@prefix`` declarations."""
    try:
        fmt = rdf_format(path)
    except ValueError:
        fmt = RdfFormat.TURTLE
    try:
        parser = parse(path=str(path), format=fmt, base_iri=path.resolve().as_uri())
        return list(parser), dict(parser.prefixes)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file=path) from None


@dataclass
class ShapesDocuments:
    """The documents of a shapes graph (or an ontology) as read: their quads, and the
    ``@prefix`` declarations they make (prefix → every namespace a document gives it),
    which SPARQL in the shapes may borrow as pySHACL lets it (:meth:`memkg.shacl.Shapes.from_quads`)."""

    quads: list[Quad] = field(default_factory=list)
    prefixes: dict[str, set[str]] = field(default_factory=dict)

    def add(self, quads: list[Quad], prefixes: Mapping[str, str]) -> None:
        self.quads += quads
        for prefix, ns in prefixes.items():
            self.prefixes.setdefault(prefix, set()).add(ns)


#: Most documents one ``owl:imports`` closure reads (a bound on a chain that never ends).
MAX_IMPORTS = 256
#: Most bytes one imported URL may send.
MAX_IMPORT_BYTES = 64 * 1024 * 1024
OWL_IMPORTS = owl.imports


class ImportError_(MemkgError, ValueError):
    """An ``owl:imports`` that cannot be followed: not a local file, or a URL without leave."""


def read_shapes_graph(paths: Sequence[str | Path], *, imports: bool = False, remote: bool = False) -> ShapesDocuments:
    """The quads (and prefixes) of the files, and with ``imports`` of every document their ``owl:imports``
    reach (``file:`` IRIs; ``http(s):`` URLs only with ``remote``), each read once.

    Raises :class:`ImportError_` naming the import that cannot be followed, and
    ``ParseError`` for a document that does not parse.
    """
    documents = ShapesDocuments()
    done: set[str] = set()
    todo: list[tuple[str, str | None]] = [(Path(p).resolve().as_uri(), None) for p in paths]
    while todo:
        iri, importer = todo.pop(0)
        if iri in done:
            continue
        done.add(iri)
        if len(done) > MAX_IMPORTS:
            raise ImportError_(f"owl:imports reaches more than {MAX_IMPORTS} documents (from {importer})")
        found, prefixes = _read_document(iri, importer, remote) if importer is not None else _read_file(Path(iri[7:]))
        documents.add(found, prefixes)
        if imports:
            todo += [(q.object.value.split("#", 1)[0], iri) for q in found
                     if q.predicate == OWL_IMPORTS and isinstance(q.object, NamedNode)]
    return documents


def _read_document(iri: str, importer: str, remote: bool) -> tuple[list[Quad], dict[str, str]]:
    if iri.startswith("file:"):
        path = Path(url2pathname(urlsplit(iri).path))
        if not path.is_file():
            raise ImportError_(f"{importer}: owl:imports <{iri}>: no such file")
        return _read_file(path)
    if iri.startswith(("http://", "https://")):
        if not remote:
            raise ImportError_(f"{importer}: owl:imports <{iri}> is a URL: pass --imports-remote to fetch it")
        return _fetch(iri)
    raise ImportError_(f"{importer}: owl:imports <{iri}>: only file: IRIs and http(s) URLs can be imported")


def _fetch(url: str) -> tuple[list[Quad], dict[str, str]]:
    request = Request(url, headers={"Accept": "text/turtle, application/n-triples;q=0.9, application/trig;q=0.8"})
    try:
        with urlopen(request, timeout=30) as response:  # noqa: S310 - http(s) only, checked above
            data = response.read(MAX_IMPORT_BYTES + 1)
            media = response.headers.get_content_type()
    except OSError as err:
        raise ImportError_(f"owl:imports <{url}>: {err}") from None
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportError_(f"owl:imports <{url}>: more than {MAX_IMPORT_BYTES:,} bytes")
    fmt = RdfFormat.from_media_type(media) or RdfFormat.TURTLE
    try:
        parser = parse(data, format=fmt, base_iri=url)
        return list(parser), dict(parser.prefixes)
    except SyntaxError as err:
        raise ParseError.from_syntax_error(err, file=url) from None


def meta_shapes_path() -> Path:
    """SHACL's shapes for shapes (the SHACL specification's appendix, ``shacl-shacl.ttl``), as
    the pySHACL package ships it: found without importing pySHACL (which loads rdflib)."""
    spec = importlib.util.find_spec("pyshacl")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("--meta-shacl reads shacl-shacl.ttl from the pyshacl package, which is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "shacl-shacl.ttl"


def validate_shapes_graph(shapes: Sequence[Quad]) -> Report:
    """The shapes graph judged against SHACL's shapes for shapes (``--meta-shacl``)."""
    meta = NativeEngine(read_shapes(meta_shapes_path()))
    store = Store()
    store.extend(Quad(q.subject, q.predicate, q.object) for q in shapes)
    results = meta.validate(store, DefaultGraph(), data_graph=[DefaultGraph()])
    return Report(results, engine=meta.name, stage="shapes")


class ValidationEngine(Protocol):
    name: str

    def validate(
        self, store: Store, graph: GraphName, *, focus: Sequence[Term] | None = None, scan: bool = False,
        written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
        data_graph: Sequence[GraphName] | None = None, shapes: Sequence[Term] | None = None,
    ) -> list[Violation]:
        ...

    @property
    def warnings(self) -> list[str]:
        ...


def make_engine(name: str, shapes: Sequence[Quad], *, file_prefixes: Mapping[str, set[str]] | None = None,
                strict_prefixes: bool = False, advanced: bool = True,
                always_applied: Collection[Term] = ()) -> ValidationEngine:
    """The engine ``name`` over ``shapes``; ``file_prefixes``, ``strict_prefixes``: see :class:`ShapesDocuments`;
    ``advanced=False``: SHACL-AF functions and custom targets read but left unapplied, as pySHACL without ``-a``,
    except those of the shapes and functions ``always_applied`` (memkg's own)."""
    if name == "native":
        return NativeEngine(shapes, file_prefixes=file_prefixes, strict_prefixes=strict_prefixes, advanced=advanced,
                            always_applied=always_applied)
    if name == "pyshacl":
        # pySHACL and rdflib take most of a second to import; only the reference engine needs them.
        from .pyshacl_engine import PyshaclEngine

        return PyshaclEngine(shapes)
    raise ValueError(f"unknown validation engine {name!r}; expected one of {', '.join(ENGINES)}")


def _within(progress: Callable[[str], None], step: str, message: str) -> None:
    progress(f"{step}: {message}")


def validate_graphs(
    engine: ValidationEngine, store: Store, graphs: Iterable[GraphName], focus: Sequence[Term] | None, *, scan: bool = False,
    written: WrittenForms | None = None, progress: Callable[[str], None] | None = None,
    data_graph: Callable[[GraphName], Sequence[GraphName]] | None = None, shapes: Sequence[Term] | None = None,
) -> list[Violation]:
    """Each of ``graphs`` validated with its data graph (``data_graph(graph)``, default
    :func:`~memkg.validation.dataset.data_graph_for`); a result seen from two graphs is kept once
    (results of one graph are all kept: a SPARQL constraint's solutions that differ only in their
    message are as many results)."""
    seen: set[tuple[str, ...]] = set()
    results: list[Violation] = []
    graphs = list(graphs)
    for i, g in enumerate(graphs, 1):
        told: Callable[[str], None] | None = None
        if progress is not None:
            step = f"validating graph {i}/{len(graphs)} {g}"
            progress(step + "…")
            told = partial(_within, progress, step)
        found = engine.validate(store, g, focus=focus, scan=scan, written=written or None, progress=told,
                                data_graph=data_graph(g) if data_graph is not None else None, shapes=shapes)
        # A node of the shared default graph is seen from every tenant: report it once (repeats
        # within one graph are results of their own).
        results.extend(with_closest_term(r) for r in found if r.key() not in seen)
        seen.update(r.key() for r in found)
    return results


def with_closest_term(result: Violation) -> Violation:
    """A result of the closed vocabulary (invariant 13) with the term the ontology defines that
    is closest to the one written (``mem:confidnece`` → ``mem:confidence``): SPARQL cannot
    compute it, and it is the fix. Any other result as it is.

    >>> from memkg.core.vocab import mem
    >>> found = Violation(mem.ClosedVocabularyShape, NamedNode("urn:x:c"), "no such term", value=mem.confidnece)
    >>> with_closest_term(found).message
    'no such term; the closest term memkg defines is mem:confidence'
    """
    value = result.value
    if result.shape != mem.ClosedVocabularyShape or not isinstance(value, NamedNode) or not value.value.startswith(MEM):
        return result
    written = value.value[len(MEM):]
    close = difflib.get_close_matches(written, _vocabulary(), n=1, cutoff=0.5) or difflib.get_close_matches(
        written.lower(), [t.lower() for t in _vocabulary()], n=1, cutoff=0.5)
    if not close:
        return replace(result, message=f"{result.message}; memkg defines no term close to it")
    term = next(t for t in _vocabulary() if t.lower() == close[0].lower())
    return replace(result, message=f"{result.message}; the closest term memkg defines is mem:{term}")


@cache
def _vocabulary() -> tuple[str, ...]:
    """The local names of every term the ontology defines."""
    return tuple(sorted({q.subject.value[len(MEM):] for q in ontology_quads()
                         if isinstance(q.subject, NamedNode) and q.subject.value.startswith(MEM)}))
