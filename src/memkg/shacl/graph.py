"""Read access to a shapes graph: objects, lists and SHACL instances.

The shapes graph is small and read many times while shapes load, so it is kept
as plain Python indexes (and, lazily, as a pyoxigraph :class:`~pyoxigraph.Store`
for the SPARQL features that query it).

>>> from pyoxigraph import NamedNode, Triple, Literal
>>> from memkg.core.vocab import rdf, sh
>>> s = NamedNode("http://example.org/S")
>>> g = ShapesGraph([Triple(s, rdf.type, sh.NodeShape), Triple(s, sh.minLength, Literal("2"))])
>>> g.is_instance(s, sh.NodeShape), g.objects(s, sh.minLength)
(True, [<Literal value=2 datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#string>>])
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path as FilePath

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, RdfFormat, Triple, parse

from ..core.errors import ParseError
from ..core.prefixes import show
from ..core.sparql import Prologue, tokenize
from ..core.terms import Term
from ..core.vocab import SHACL_SPEC, owl, rdf, rdfs, sh, xsd
from .errors import ShapeError

_FORMATS = {
    ".ttl": RdfFormat.TURTLE,
    ".turtle": RdfFormat.TURTLE,
    ".trig": RdfFormat.TRIG,
    ".nt": RdfFormat.N_TRIPLES,
    ".nq": RdfFormat.N_QUADS,
    ".rdf": RdfFormat.RDF_XML,
    ".xml": RdfFormat.RDF_XML,
}


def format_for(path: str | FilePath) -> RdfFormat:
    """The RDF format of a file, from its extension (``ValueError`` if unknown).

    >>> format_for("shapes.ttl") == RdfFormat.TURTLE
    True
    """
    suffix = FilePath(path).suffix.lower()
    try:
        return _FORMATS[suffix]
    except KeyError:
        raise ValueError(f"cannot tell the RDF format of {path!s} from its extension") from None


def parse_file(path: str | FilePath, *, base_iri: str | None = None) -> tuple[list[Quad], dict[str, str]]:
    """Parse a Turtle/TriG/N-Triples/N-Quads (1.2) file: its quads and its ``@prefix`` declarations."""
    path = FilePath(path)
    fmt = format_for(path)
    with path.open("rb") as fh:
        parser = parse(fh, format=fmt, base_iri=base_iri or path.resolve().as_uri())
        return list(parser), dict(parser.prefixes)


class ShapesGraph:
    """The triples of a shapes graph, indexed by subject and by predicate/object.

    Graph names of the input quads are ignored: the shapes graph is their union.
    Terms are kept as given (a pyoxigraph store would rewrite ``"1"^^xsd:boolean``
    to ``"true"``, a distinction SHACL makes); constants written into SPARQL
    are compared by Oxigraph in canonical form anyway.

    ``file_prefixes``: the ``@prefix`` declarations of the files the graph was read from
    (prefix → the namespaces they give it). A SPARQL text that uses a prefix no
    ``sh:prefixes``/``sh:declare`` gives borrows the files' declaration, as pySHACL
    lets it, and :attr:`borrowed` records it; with ``strict_prefixes`` it is refused
    (SHACL §5.2.1 to the letter).
    """

    def __init__(
        self, triples: Iterable[Quad | Triple], *, file_prefixes: Mapping[str, Collection[str]] | None = None,
        strict_prefixes: bool = False,
    ) -> None:
        self.file_prefixes = {p: tuple(sorted(set(ns))) for p, ns in (file_prefixes or {}).items()}
        self.strict_prefixes = strict_prefixes
        #: prefix → (the namespace borrowed from the files, the shapes whose SPARQL used it)
        self.borrowed: dict[str, tuple[str, dict[Term, None]]] = {}
        self._triples: dict[Triple, None] = {}
        for t in triples:
            self._triples[t.triple if isinstance(t, Quad) else t] = None
        self._spo: dict[Term, dict[NamedNode, list[Term]]] = defaultdict(lambda: defaultdict(list))
        self._pos: dict[NamedNode, dict[Term, list[Term]]] = defaultdict(lambda: defaultdict(list))
        for t in self._triples:
            self._spo[t.subject][t.predicate].append(t.object)
            self._pos[t.predicate][t.object].append(t.subject)
        self.size = len(self._triples)
        self._instances: dict[NamedNode, set[Term]] = {}

    def triples(self) -> Iterable[Triple]:
        """Every triple of the shapes graph."""
        return iter(self._triples)

    def objects(self, subject: Term, predicate: NamedNode) -> list[Term]:
        """The values of ``predicate`` at ``subject`` (possibly empty)."""
        by_p = self._spo.get(subject)
        if not by_p:
            return []
        return list(by_p.get(predicate, ()))

    def subjects(self, predicate: NamedNode, obj: Term | None = None) -> list[Term]:
        """Subjects of ``predicate`` (with object ``obj`` when given)."""
        by_o = self._pos.get(predicate)
        if not by_o:
            return []
        if obj is not None:
            return list(by_o.get(obj, ()))
        seen: dict[Term, None] = {}
        for subjects in by_o.values():
            for s in subjects:
                seen[s] = None
        return list(seen)

    def predicates(self, subject: Term) -> list[NamedNode]:
        """The predicates used with ``subject`` as subject."""
        by_p = self._spo.get(subject)
        return [p for p, objs in by_p.items() if objs] if by_p else []

    def has(self, subject: Term, predicate: NamedNode) -> bool:
        """Whether ``subject`` has a value for ``predicate``."""
        by_p = self._spo.get(subject)
        return bool(by_p and by_p.get(predicate))

    def out_degree(self, subject: Term) -> int:
        """How many triples have ``subject`` as subject."""
        by_p = self._spo.get(subject)
        return sum(len(v) for v in by_p.values()) if by_p else 0

    def all_subjects(self) -> list[Term]:
        """Every node that is the subject of a triple."""
        return [s for s, by_p in self._spo.items() if any(by_p.values())]

    def list_items(self, node: Term, *, shape: Term | None = None, what: str = "value") -> list[Term]:
        """The members of the SHACL list ``node``; :class:`ShapeError` if it is not one.

        A SHACL list is ``rdf:nil`` or a node with exactly one ``rdf:first`` and
        one ``rdf:rest`` whose rest is again a SHACL list, without cycles.
        """
        items: list[Term] = []
        seen: set[Term] = set()
        current = node
        while current != rdf.nil:
            if not isinstance(current, (NamedNode, BlankNode)) or current in seen:
                raise ShapeError(
                    f"{what} must be a well-formed SHACL list, {node} is not",
                    shape=shape, rule="SHACL §1.4 SHACL lists", link=SHACL_SPEC + "#syntax-rule-SHACL-list",
                )
            seen.add(current)
            first = self.objects(current, rdf.first)
            rest = self.objects(current, rdf.rest)
            if len(first) != 1 or len(rest) != 1:
                raise ShapeError(
                    f"{what} must be a well-formed SHACL list: {current} needs exactly one rdf:first and one rdf:rest",
                    shape=shape, rule="SHACL §1.4 SHACL lists", link=SHACL_SPEC + "#syntax-rule-SHACL-list",
                )
            items.append(first[0])
            current = rest[0]
        return items

    def superclasses(self, cls: Term) -> set[Term]:
        """``cls`` and everything it reaches through ``rdfs:subClassOf*``."""
        out: set[Term] = set()
        todo = [cls]
        while todo:
            c = todo.pop()
            if c in out:
                continue
            out.add(c)
            todo.extend(self.objects(c, rdfs.subClassOf))
        return out

    def subclasses(self, cls: NamedNode) -> set[Term]:
        """``cls`` and every class that reaches it through ``rdfs:subClassOf*``."""
        out: set[Term] = set()
        todo: list[Term] = [cls]
        while todo:
            c = todo.pop()
            if c in out:
                continue
            out.add(c)
            todo.extend(self.subjects(rdfs.subClassOf, c))
        return out

    def instances(self, cls: NamedNode) -> set[Term]:
        """SHACL instances of ``cls`` in the shapes graph (``rdf:type/rdfs:subClassOf*``)."""
        cached = self._instances.get(cls)
        if cached is None:
            cached = set()
            for c in self.subclasses(cls):
                cached.update(self.subjects(rdf.type, c))
            self._instances[cls] = cached
        return cached

    def is_instance(self, node: Term, cls: NamedNode) -> bool:
        """Whether ``node`` is a SHACL instance of ``cls`` in the shapes graph."""
        return node in self.instances(cls)


def prefixes_of(
    graph: ShapesGraph, node: Term, *, shape: Term | None = None, text: str | None = None,
    defaults: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Prefix declarations reachable from ``node`` via ``sh:prefixes`` (SHACL §5.2.1),
    following ``owl:imports`` inside the shapes graph, and those declared on an ``sh:ShapesGraph``
    node, which SHACL 1.2 applies to every query of the graph (W3C test sparql/node/prefixes-002).

    ``text``: the SPARQL that will use them. A prefix it uses that neither they nor its own
    ``PREFIX`` lines give is borrowed from the shapes files' ``@prefix`` declarations, unless
    the graph is strict (see :class:`ShapesGraph`); the caller's parse refuses what is left.
    ``defaults``: prefixes the text may use undeclared, below every declaration."""
    out: dict[str, str] = {}
    seen: set[Term] = set()
    todo = [*graph.objects(node, sh.prefixes), *graph.subjects(rdf.type, sh.ShapesGraph)]
    while todo:
        holder = todo.pop()
        if holder in seen:
            continue
        seen.add(holder)
        todo.extend(graph.objects(holder, owl.imports))
        for decl in graph.objects(holder, sh.declare):
            prefixes = graph.objects(decl, sh.prefix)
            namespaces = graph.objects(decl, sh.namespace)
            if len(prefixes) != 1 or len(namespaces) != 1 or not isinstance(prefixes[0], Literal):
                raise ShapeError(
                    f"prefix declaration {decl} needs exactly one sh:prefix and one sh:namespace",
                    shape=shape, rule="SHACL §5.2.1 prefix declarations", link=SHACL_SPEC + "#sparql-prefixes",
                )
            prefix, ns = prefixes[0].value, namespaces[0].value  # type: ignore[union-attr]  # checked above: a literal and a term with a value
            if out.get(prefix, ns) != ns:
                raise ShapeError(
                    f"prefix {prefix!r} is declared with two namespaces ({out[prefix]} and {ns})",
                    shape=shape, rule="SHACL §5.2.1 prefix declarations", link=SHACL_SPEC + "#sparql-prefixes",
                )
            out[prefix] = ns
    out = {**(defaults or {}), **out}
    if text is not None:
        user = shape if shape is not None else node
        for prefix in sorted(_undeclared(text, out)):
            ns = None if graph.strict_prefixes else _borrow(graph, prefix, user)
            if ns is None:
                besides = (" (a shapes file declares it with @prefix, but strict prefixes were asked for)"
                           if prefix in graph.file_prefixes else "")
                raise ShapeError(
                    f"the SPARQL of {show(node, form='exact')} uses the undeclared prefix {prefix!r}; declare it with "
                    f"sh:prefixes/sh:declare{besides}",
                    shape=user, rule="SHACL §5.2.1 prefix declarations", link=SHACL_SPEC + "#sparql-prefixes",
                )
            out[prefix] = ns
    return out


def _undeclared(text: str, declared: Mapping[str, str]) -> set[str]:
    """The prefixes of the prefixed names in ``text`` that neither ``declared`` nor its own
    ``PREFIX`` lines give (none when it does not tokenize: its parser names that error)."""
    try:
        tokens = tokenize(text, layout=True)
        prologue = Prologue(prefixes=dict(declared))
        start = prologue.read(tokens)
    except (ParseError, ValueError):
        return set()
    known = prologue.prefixes or {}
    return {t.text.split(":", 1)[0] for t in tokens[start:] if t.kind == "PNAME"} - set(known)


def _borrow(graph: ShapesGraph, prefix: str, shape: Term) -> str | None:
    """The one namespace the shapes files give ``prefix`` (None if they give it none), noted in
    ``graph.borrowed``; two different ones are a ShapeError naming both."""
    namespaces = graph.file_prefixes.get(prefix, ())
    if len(namespaces) > 1:
        raise ShapeError(
            f"the SPARQL of {show(shape, form='exact')} uses the prefix {prefix!r}, which no sh:prefixes or "
            f"sh:declare gives and the shapes files declare with two namespaces ({' and '.join(namespaces)})",
            shape=shape, rule="SHACL §5.2.1 prefix declarations", link=SHACL_SPEC + "#sparql-prefixes",
        )
    if not namespaces:
        return None
    graph.borrowed.setdefault(prefix, (namespaces[0], {}))[1][shape] = None
    return namespaces[0]


#: Most shapes a borrowed-prefix warning names (the others are counted).
NAMED_SHAPES = 3


def borrowed_prefix_warnings(graph: ShapesGraph) -> list[str]:
    """One line per prefix borrowed from the shapes files, naming the shapes that used it."""
    lines = []
    for prefix, (ns, users) in sorted(graph.borrowed.items()):
        names = sorted(show(s, form="exact") for s in users)
        more = f" and {len(names) - NAMED_SHAPES} more" if len(names) > NAMED_SHAPES else ""
        lines.append(
            f"{'shape' if len(names) == 1 else 'shapes'} {', '.join(names[:NAMED_SHAPES])}{more}: SPARQL uses the "
            f"prefix {prefix!r}, which no sh:prefixes or sh:declare gives; the shapes file's @prefix {prefix}: "
            f"<{ns}> is used, as pySHACL does (--strict-prefixes refuses it, as SHACL §5.2.1 says)")
    return lines


def boolean(term: Term) -> bool | None:
    """Whether an ``xsd:boolean`` parameter is ``true``; None if ``term`` is not a boolean literal.

    SHACL activates boolean parameters only with the value ``true``: ``"1"^^xsd:boolean``
    is a well-formed boolean, but not ``true`` (W3C test core/property/uniqueLang-002).

    >>> from pyoxigraph import Literal
    >>> from memkg.core.vocab import xsd
    >>> boolean(Literal("true", datatype=xsd.boolean)), boolean(Literal("1", datatype=xsd.boolean))
    (True, False)
    """
    if isinstance(term, Literal) and term.datatype == xsd.boolean:
        if term.value == "true":
            return True
        if term.value in ("false", "0", "1"):
            return False
    return None


def integer(term: Term) -> int | None:
    """The value of an ``xsd:integer`` literal, or None.

    >>> from pyoxigraph import Literal
    >>> from memkg.core.vocab import xsd
    >>> integer(Literal("3", datatype=xsd.integer)), integer(Literal("3"))
    (3, None)
    """
    if isinstance(term, Literal) and term.datatype == xsd.integer:
        try:
            return int(term.value)
        except ValueError:
            return None
    return None
