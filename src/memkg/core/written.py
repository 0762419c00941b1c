"""Literals as written, where a pyoxigraph store keeps another form.

Oxigraph's ``Store`` encodes typed literals by value and gives them back in
canonical form: ``"01"^^xsd:integer`` comes back as ``"1"``, ``"1.50"^^xsd:decimal``
as ``"1.5"``, ``"5"^^xsd:int`` as ``"5"^^xsd:integer``, a dateTime's ``.000Z`` as
``Z``, and the ill-typed ``"300"^^xsd:byte`` as a well-typed ``"300"^^xsd:integer``.
Parsed quads (``pyoxigraph.parse``) keep every literal as written. SHACL judges
terms, so :class:`WrittenForms` records, for the few quads whose object a store
would rewrite, what was written; the engine validates the store as usual and
then judges again, in Python, the focus nodes those quads touch
(:meth:`memkg.shacl.Shapes.validate`, ``written=``); the store's loads count them
(:mod:`memkg.store.literals`).

>>> from pyoxigraph import Literal, NamedNode, Quad
>>> from memkg.core.vocab import xsd
>>> s, p = NamedNode("http://e/s"), NamedNode("http://e/p")
>>> written = WrittenForms.of([Quad(s, p, Literal("01", datatype=xsd.integer)), Quad(s, p, Literal("1", datatype=xsd.integer))])
>>> len(written), [str(t) for t in written.values([None], s, p)]
(1, ['"01"^^<http://www.w3.org/2001/XMLSchema#integer>', '"1"^^<http://www.w3.org/2001/XMLSchema#integer>'])
>>> stored_form(Literal("5", datatype=xsd.int))
<Literal value=5 datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#integer>>
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from .terms import GraphName, Subject, Term
from .vocab import XSD as XSD_NS

_TZ = r"(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)?"
_DATE = r"[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_TIME = r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]*[1-9])?"
#: Lexical forms a store surely keeps as they are (its canonical forms); anything else
#: of a datatype in :data:`_REWRITTEN` is checked against a store.
_CANONICAL = {
    "boolean": re.compile(r"true|false"),
    "integer": re.compile(r"0|-?[1-9][0-9]{0,17}"),
    "decimal": re.compile(r"(0|-?[1-9][0-9]{0,17})(\.[0-9]{0,17}[1-9])?|-0\.[0-9]{0,17}[1-9]"),
    "dateTime": re.compile(_DATE + "T" + _TIME + _TZ),
    "date": re.compile(_DATE + _TZ),
    "time": re.compile(_TIME + _TZ),
}
#: The XSD datatypes whose literals a store may rewrite (measured: pyoxigraph 0.5.13,
#: tests/shacl/test_written.py). The derived integer types and xsd:dateTimeStamp are
#: always rewritten (to xsd:integer and xsd:dateTime), so they have no canonical pattern.
_REWRITTEN = frozenset(XSD_NS + n for n in (
    "boolean", "integer", "decimal", "float", "double", "dateTime", "dateTimeStamp", "date", "time",
    "duration", "dayTimeDuration", "yearMonthDuration", "gYear", "gYearMonth", "gMonth", "gMonthDay", "gDay",
    "nonNegativeInteger", "positiveInteger", "nonPositiveInteger", "negativeInteger", "long", "int", "short",
    "byte", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte",
))
_ZERO_OFFSET = ("+00:00", "-00:00")


def suspect(literal: Literal) -> bool:
    """Whether a store might keep ``literal`` in another form (False: it surely keeps it).

    >>> from memkg.core.vocab import xsd
    >>> suspect(Literal("0.95", datatype=xsd.decimal)), suspect(Literal("0.950", datatype=xsd.decimal))
    (False, True)
    """
    dt = literal.datatype.value
    if dt not in _REWRITTEN:
        return False
    pattern = _CANONICAL.get(dt[len(XSD_NS):])
    if pattern is None or not pattern.fullmatch(literal.value):
        return True
    return literal.value.endswith(_ZERO_OFFSET)


def _literals(term: Term) -> Iterator[Literal]:
    if isinstance(term, Literal):
        yield term
    elif isinstance(term, Triple):
        yield from _literals(term.subject)
        yield from _literals(term.object)


def _suspects(term: Term) -> bool:
    return any(suspect(lit) for lit in _literals(term))


#: datatype IRI -> the pattern of the lexical forms a store surely keeps (None: none)
_PATTERNS = {dt: _CANONICAL.get(dt[len(XSD_NS):]) for dt in _REWRITTEN}


def _suspect_quads(quads: Sequence[Quad]) -> list[tuple[int, Quad]]:
    """The quads (with their index) whose object a store might keep in another form.
    Run on every load, so :func:`suspect` is spelled out inline: each attribute of a
    pyoxigraph term costs a call into Rust (measured: half the time of the plain loop)."""
    out: list[tuple[int, Quad]] = []
    patterns, zero = _PATTERNS, _ZERO_OFFSET
    for i, q in enumerate(quads):
        o = q.object
        if isinstance(o, Literal):
            if o.language is not None:
                continue
            dt = o.datatype.value
            if dt in patterns:
                pattern, lexical = patterns[dt], o.value
                if pattern is None or not pattern.fullmatch(lexical) or lexical.endswith(zero):
                    out.append((i, q))
        elif isinstance(o, Triple) and _suspects(o):
            out.append((i, q))
    return out


_PROBE_S, _PROBE_P = "urn:memkg:written:", NamedNode("urn:memkg:written:p")
_CHUNK = 10_000


def stored_forms(literals: Iterable[Literal]) -> dict[Literal, Literal]:
    """How a store keeps each of ``literals``: written into a scratch store and read back,
    a chunk at a time (~30 µs a literal; one at a time, a store write costs ~100 µs)."""
    unique = list(dict.fromkeys(literals))
    out: dict[Literal, Literal] = {}
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        scratch = Store()
        scratch.extend(Quad(NamedNode(f"{_PROBE_S}{i}"), _PROBE_P, lit, DefaultGraph()) for i, lit in enumerate(chunk))
        for q in scratch:
            kept, subject = q.object, q.subject
            assert isinstance(kept, Literal) and isinstance(subject, NamedNode)
            out[chunk[int(subject.value[len(_PROBE_S):])]] = kept
    return out


def stored_form(term: Term) -> Term:
    """``term`` as a store would give it back (triple terms rebuilt around their literals)."""
    return _rebuild(term, stored_forms(lit for lit in _literals(term) if suspect(lit)))


def _rebuild(term: Term, stored: dict[Literal, Literal]) -> Term:
    if isinstance(term, Literal):
        return stored.get(term, term)
    if isinstance(term, Triple):
        subject = _rebuild(term.subject, stored)
        assert not isinstance(subject, Literal)  # a literal is never a subject
        return Triple(subject, term.predicate, _rebuild(term.object, stored))
    return term


Key = tuple[GraphName, Subject, NamedNode]


class WrittenForms:
    """The objects of an input's quads as written, for the (graph, subject, predicate)
    pairs where a store would hold at least one of them in another form.

    Build it with :meth:`of` from the parsed quads (as ``pyoxigraph.parse`` gives them).
    GraphName ``None`` in a look-up stands for "any graph".
    """

    def __init__(self) -> None:
        #: (graph, subject, predicate) -> stored object -> the objects written for it
        self._values: dict[Key, dict[Term, list[Term]]] = {}
        #: stored term -> every written form of it, in any quad with a rewritten object
        self._forms: dict[Term, list[Term]] = defaultdict(list)
        self._by_predicate: dict[NamedNode, set[tuple[GraphName, Subject]]] = defaultdict(set)
        #: (index in the input, written quad, stored quad) for each quad whose object a
        #: store rewrites, in input order
        self.rewritten: list[tuple[int, Quad, Quad]] = []

    @classmethod
    def of(cls, quads: Sequence[Quad], *, complete: bool = True) -> "WrittenForms":
        """The written forms in ``quads``: one pass to find the suspect objects, one
        store round trip for them, and a second pass only if some were rewritten.
        ``complete=False`` skips that pass: only :attr:`rewritten` is wanted (a load's count)."""
        out = cls()
        suspects = _suspect_quads(quads)
        if not suspects:
            return out
        stored = stored_forms(lit for _, q in suspects for lit in _literals(q.object) if suspect(lit))
        for i, q in suspects:
            kept = _rebuild(q.object, stored)
            if kept != q.object:
                out._add(i, q, kept)
        if out.rewritten and complete:
            out._add_unchanged(quads)
        return out

    def _add(self, index: int, q: Quad, kept: Term) -> None:
        key = (q.graph_name, q.subject, q.predicate)
        forms = self._values.setdefault(key, {}).setdefault(kept, [])
        if q.object not in forms:
            forms.append(q.object)
        if q.object not in self._forms[kept]:
            self._forms[kept].append(q.object)
        self._by_predicate[q.predicate].add((q.graph_name, q.subject))
        self.rewritten.append((index, q, Quad(q.subject, q.predicate, kept, q.graph_name)))

    def _add_unchanged(self, quads: Iterable[Quad]) -> None:
        """The other objects of the recorded pairs (kept as they are), so that a pair's
        written objects are complete; and canonical forms written as such."""
        subjects = {key[1] for key in self._values}
        for q in quads:
            if q.subject not in subjects:
                continue
            by_stored = self._values.get((q.graph_name, q.subject, q.predicate))
            if by_stored is None or any(q.object in forms for forms in by_stored.values()):
                continue
            if _suspects(q.object) and stored_form(q.object) != q.object:  # pragma: no cover - recorded above
                continue
            by_stored.setdefault(q.object, []).append(q.object)
            if q.object in self._forms and q.object not in self._forms[q.object]:
                self._forms[q.object].append(q.object)

    def __len__(self) -> int:
        return len(self.rewritten)

    def __bool__(self) -> bool:
        return bool(self.rewritten)

    def _keys(self, graphs: Sequence[GraphName | None], subject: Term, predicate: NamedNode) -> list[Key]:
        if any(g is None for g in graphs):
            return [k for k in self._values if k[1] == subject and k[2] == predicate]
        return [k for g in graphs if (k := (g, subject, predicate)) in self._values]

    def values(self, graphs: Sequence[GraphName | None], subject: Term, predicate: NamedNode,
               store: Store | None = None) -> list[Term] | None:
        """The objects of ``subject``/``predicate`` in the union of ``graphs`` as written;
        None when no graph holds one rewritten (then the store's are as written). The
        graphs without a record are read from ``store``."""
        keys = self._keys(graphs, subject, predicate)
        if not keys:
            return None
        out: dict[Term, None] = {}
        for key in keys:
            for forms in self._values[key].values():
                out.update(dict.fromkeys(forms))
        recorded = {k[0] for k in keys}
        if store is not None:
            for g in graphs:
                if g is not None and g not in recorded and not isinstance(subject, Literal):
                    for q in store.quads_for_pattern(subject, predicate, None, g):
                        out[q.object] = None
        return list(out)

    def forms(self, graphs: Sequence[GraphName | None], subject: Term | None, predicate: NamedNode | None,
              stored: Term) -> list[Term]:
        """The written forms of the stored object ``stored`` (of ``subject``/``predicate``
        when given, else anywhere); ``[stored]`` when nothing else was written for it."""
        if subject is not None and predicate is not None:
            found: list[Term] = []
            for key in self._keys(graphs, subject, predicate):
                for form in self._values[key].get(stored, ()):
                    if form not in found:
                        found.append(form)
            if found:
                return found
        return list(self._forms.get(stored) or [stored])

    def subjects(self, graphs: Sequence[GraphName | None], predicate: NamedNode) -> set[Term]:
        """The subjects with a rewritten object for ``predicate`` in ``graphs``."""
        any_graph = any(g is None for g in graphs)
        return {s for g, s in self._by_predicate.get(predicate, ()) if any_graph or g in graphs}

    def objects(self, graphs: Sequence[GraphName | None], predicate: NamedNode) -> list[Term]:
        """The written objects of ``predicate`` whose stored form differs (literal focus nodes)."""
        out: dict[Term, None] = {}
        for g, s in self._by_predicate.get(predicate, ()):
            if any(x is None for x in graphs) or g in graphs:
                for forms in self._values[(g, s, predicate)].values():
                    out.update(dict.fromkeys(forms))
        return list(out)

    def triples(self, graphs: Sequence[GraphName | None]) -> Iterator[tuple[Subject, NamedNode, Term]]:
        """Every written (subject, predicate, object) of the recorded pairs in ``graphs``."""
        for (g, s, p), by_stored in self._values.items():
            if any(x is None for x in graphs) or g in graphs:
                for forms in by_stored.values():
                    for o in forms:
                        yield s, p, o

    def stored_literals(self) -> dict[Term, list[Term]]:
        """The stored forms that stand for something else as written (a mapping: test with ``in``)."""
        return self._forms


__all__ = ["WrittenForms", "stored_form", "stored_forms", "suspect"]
