"""Prefixes: the short names people write (``ex:Lia``) and read (``mem:Claim``) for IRIs.

A store's prefixes are memkg's own (``mem:``, ``prov:``, ``rdf:``, …) plus those
the files loaded into it declared (``PREFIX ex: <https://example.org/lia/>``),
remembered beside an on-disk store in ``memkg-prefixes.json`` (the RDF data is
left as it was loaded; prefixes are a reading aid, never data). A query's own
``PREFIX`` lines come first when a name in it is read.

Text people write is read back into IRIs by :mod:`memkg.core.names`.

>>> known = {"ex": "https://example.org/lia/", **PREFIXES}
>>> compact("https://example.org/lia/Lia", known)
'ex:Lia'
>>> compact("https://example.org/other/x", known)
'<https://example.org/other/x>'
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from .vocab import MEMX, PREFIXES, SH

FILE_NAME = "memkg-prefixes.json"
#: memkg's own prefixes, always known: the names every term is shown with (the index
#: namespace too, and SHACL's: people meet them in exports and validation reports)
BUILT_IN: dict[str, str] = {**PREFIXES, "memx": MEMX, "sh": SH}

_LOCAL = re.compile(r"^[\w][\w.-]*$|^$")


def compact(iri: str, prefixes: Mapping[str, str]) -> str:
    """``iri`` as ``prefix:local`` with the longest namespace that leaves a plain local
    name, else as ``<iri>``."""
    best = ""
    for prefix, namespace in prefixes.items():
        if namespace and iri.startswith(namespace) and len(namespace) > len(prefixes.get(best, "")) \
                and _LOCAL.match(iri[len(namespace):]):
            best = prefix
    if best or ("" in prefixes and iri.startswith(prefixes[""]) and _LOCAL.match(iri[len(prefixes[""]):])):
        return f"{best}:{iri[len(prefixes[best]):]}"
    return f"<{iri}>"


#: How :func:`show` writes a term: ``table`` for tables and pictures (plain numbers and
#: dates), ``exact`` for messages and reports (literals whole, datatype and language kept),
#: ``lexical`` for the text alone (an IRI's or a literal's), as SHACL fills ``{?var}`` into
#: ``sh:message``.
Form = typing.Literal["table", "exact", "lexical"]


def show(term: object, prefixes: Mapping[str, str] | None = None, *, form: Form = "table") -> str:
    """A term for people: IRIs as prefixed names (:data:`BUILT_IN`, or ``prefixes``: a store's)
    or ``<iri>``, blank nodes as ``_:label``, triple terms as ``<<( s p o )>>``, nothing for None;
    literals as ``form`` says.

    >>> from pyoxigraph import Literal, NamedNode
    >>> from memkg.core.vocab import xsd
    >>> five = Literal("5", datatype=xsd.integer)
    >>> show(NamedNode("https://w3id.org/memkg#Claim")), show(Literal("Amy")), show(five), show(None)
    ('mem:Claim', '"Amy"', '5', '')
    >>> show(five, form="exact"), show(xsd.integer, form="exact"), show(NamedNode("http://e/a"), form="exact")
    ('"5"^^<http://www.w3.org/2001/XMLSchema#integer>', 'xsd:integer', '<http://e/a>')
    >>> show(five, form="lexical"), show(NamedNode("http://e/a"), form="lexical")
    ('5', 'http://e/a')
    """
    if term is None:
        return ""
    if isinstance(term, Triple):
        parts = (show(t, prefixes, form=form) for t in (term.subject, term.predicate, term.object))
        return f"<<( {' '.join(parts)} )>>"
    if form == "lexical" and isinstance(term, (NamedNode, Literal, BlankNode)):
        return term.value
    if isinstance(term, NamedNode):
        return compact(term.value, prefixes or BUILT_IN)
    if isinstance(term, Literal) and form == "table":
        if term.language:
            return f'"{term.value}"@{term.language}'
        if term.datatype.value.endswith("#string"):
            return f'"{term.value}"'
        return term.value
    return str(term)


def read(store_path: str | Path | None) -> dict[str, str]:
    """The prefixes remembered beside the store at ``store_path`` (none for an in-memory store)."""
    if store_path is None:
        return {}
    path = Path(store_path) / FILE_NAME
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no file yet, or one damaged: prefixes are a reading aid, never worth failing for
    return {str(k): str(v) for k, v in saved.items()} if isinstance(saved, dict) else {}


class Renamed(typing.NamedTuple):
    """A prefix a load declared for a namespace while the store already gives that prefix
    another one: the load's names read under ``name`` instead."""

    prefix: str  #: as the file declared it (``ex``)
    namespace: str  #: the file's namespace for it
    name: str  #: the prefix its names read with in this store (``ex2``)
    meaning: str  #: what ``prefix`` already means here

    def __str__(self) -> str:
        return (f"prefix {self.prefix}: already means <{self.meaning}> in this store, so the files' "
                f"{self.prefix}: <{self.namespace}> reads as {self.name}: here (write {self.name}:name for its nodes)")


def remember(store_path: str | Path | None, found: Sequence[tuple[str, str]], known: dict[str, str]) -> list[Renamed]:
    """Add the ``(prefix, namespace)`` pairs ``found`` to ``known`` (a store's prefixes) and, for
    an on-disk store, to its file. A prefix already bound keeps its namespace, so names people
    learned stay valid; another namespace declared with it gets the next free ``prefix2``, …,
    and is returned, so that the load can say so.

    >>> known = dict(BUILT_IN)
    >>> remember(None, [("ex", "https://example.org/lia/"), ("ex", "https://example.org/acme/")], known)
    [Renamed(prefix='ex', namespace='https://example.org/acme/', name='ex2', meaning='https://example.org/lia/')]
    >>> known["ex"], known["ex2"]
    ('https://example.org/lia/', 'https://example.org/acme/')
    """
    new: dict[str, str] = {}
    renamed: list[Renamed] = []
    for prefix, namespace in found:
        if not prefix or not namespace or namespace in known.values() or namespace in new.values():
            continue
        name, n = prefix, 1
        while name in known or name in new:
            n += 1
            name = f"{prefix}{n}"
        new[name] = namespace
        if name != prefix:
            renamed.append(Renamed(prefix, namespace, name, known.get(prefix) or new[prefix]))
    if not new:
        return renamed
    known.update(new)
    if store_path is not None and Path(store_path).is_dir():
        saved = read(store_path)
        saved.update({p: ns for p, ns in new.items() if p not in saved})
        (Path(store_path) / FILE_NAME).write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return renamed


__all__ = ["BUILT_IN", "FILE_NAME", "Form", "Renamed", "compact", "read", "remember", "show"]
