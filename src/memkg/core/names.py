"""Text a person or an agent writes for a node, read as one RDF term.

Every surface (the command line, the agent tools, the endpoint's parameters) reads a
name with these functions, so one IRI may be written the same four ways everywhere,
and whatever memkg prints can be given back to it:

- ``prefix:name``, with a prefix the store knows (memkg's own, and those its files declared);
- ``<iri>``, as in Turtle and SPARQL;
- a bare absolute IRI: ``https://…`` (any scheme followed by ``//``) or ``urn:…``;
- ``‹iri›``, the bracketed form some messages print.

>>> known = {"ex": "https://example.org/lia/", **BUILT_IN}
>>> [read_iri(t, known).value for t in ("ex:Lia", "<https://example.org/lia/Lia>",
...                                     "https://example.org/lia/Lia", "‹https://example.org/lia/Lia›")]
['https://example.org/lia/Lia', 'https://example.org/lia/Lia', 'https://example.org/lia/Lia', 'https://example.org/lia/Lia']
>>> read_iri("zz:Lia", known)
Traceback (most recent call last):
...
memkg.core.errors.UnreadableName: 'zz:Lia' names no IRI: unknown prefix zz: (known: ex:, mem:, memx:, owl:, prov:, rdf:, rdfs:, sh:, xsd:); write prefix:name, <iri>, a bare https://… or urn:… IRI, or ‹iri›
>>> read_term('"Lili"', known), read_term("ex:tea", known)
(<Literal value=Lili datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#string>>, <NamedNode value=https://example.org/lia/tea>)

A load that meets a prefix already bound to another namespace keeps the first one and
gives the newcomer the next free name (``ex2:``; :func:`memkg.core.prefixes.remember`).
``ex:name`` still means the first namespace's node, the one memkg prints as ``ex:name``.
But when that node does not exist and another namespace declared as ``ex:`` holds
``name``, the text could mean either: given ``exists`` (does the store hold this IRI?),
it is refused, naming each, rather than read silently as a node that is not there:

>>> two = {**known, "ex2": "https://example.org/acme/"}
>>> held = {"https://example.org/acme/cMigration"}
>>> read_iri("ex:cMigration", two, exists=held.__contains__)
Traceback (most recent call last):
...
memkg.core.errors.AmbiguousName: 'ex:cMigration' names no IRI: it could mean <https://example.org/lia/cMigration> (ex:cMigration) or <https://example.org/acme/cMigration> (ex2:cMigration), as the files loaded declared ex: for each namespace; write prefix:name, <iri>, a bare https://… or urn:… IRI, or ‹iri›
>>> read_iri("ex2:cMigration", two, exists=held.__contains__).value
'https://example.org/acme/cMigration'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, parse

from .errors import AmbiguousName, UnreadableName
from .prefixes import BUILT_IN

__all__ = ["ACCEPTED", "BARE_SCHEMES", "TERM_FORMS", "read_iri", "read_term", "readings"]

#: The forms an IRI may be written in, as every error names them.
ACCEPTED = "prefix:name, <iri>, a bare https://… or urn:… IRI, or ‹iri›"
#: The forms a claim's term may be written in.
TERM_FORMS = f"an IRI ({ACCEPTED}) or a literal (\"text\", \"text\"@en, \"1\"^^xsd:decimal, 42, true)"
#: Schemes whose IRIs have no ``//`` but are still taken bare (not read as a prefix):
#: memkg mints ``urn:`` IRIs, and the others are common in data.
BARE_SCHEMES = frozenset({"urn", "mailto", "tag", "did", "data", "tel", "uuid", "info", "doi", "geo", "file"})

_COMPACT = re.compile(r"^([A-Za-z][\w.+-]*)?:(.*)$", re.S)
_ESCAPED = re.compile(r"\\([_~.\-!$&'()*+,;=/?#@%])")  # Turtle's PN_LOCAL_ESC
_LITERAL = re.compile(r'^(["\']|<<|[+-]?(\d|\.\d)|true$|false$)')

Exists = Callable[[str], bool]


def read_iri(text: object, prefixes: Mapping[str, str] | None = None, *, what: str = "",
             exists: Exists | None = None) -> NamedNode:
    """The IRI ``text`` names, in any of the forms of :data:`ACCEPTED`; ``prefixes`` are the
    store's (memkg's own when None). ``what`` (``"--tenant"``, ``"claim"``) heads the error.

    Raises :class:`~memkg.core.errors.UnreadableName` naming the text and the accepted forms,
    and :class:`~memkg.core.errors.AmbiguousName` for a compact IRI whose first reading
    ``exists`` does not find while a reading under another namespace declared with the same
    prefix (``ex2:``, …) is found.
    """
    if isinstance(text, NamedNode):
        return text
    return _read(text, BUILT_IN if prefixes is None else prefixes, _Head(text, what, "names no IRI", ACCEPTED), exists)


def read_term(text: object, prefixes: Mapping[str, str] | None = None, *, what: str = "",
              exists: Exists | None = None) -> NamedNode | Literal | Triple:
    """A claim's subject, predicate or object as written: an IRI in any form :func:`read_iri`
    reads, or a literal as Turtle writes one (``"text"``, ``"x"@en``, ``"1"^^xsd:decimal``,
    ``42``, ``true``) or a triple term ``<<( s p o )>>``, read with the store's prefixes."""
    known = BUILT_IN if prefixes is None else prefixes
    head = _Head(text, what, "is not an RDF term", TERM_FORMS)
    if not isinstance(text, str) or not _LITERAL.match(text.strip()):
        return read_iri(text, known) if isinstance(text, NamedNode) else _read(text, known, head, exists)
    declared = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in known.items() if _COMPACT.match(f"{p}:"))
    try:
        (quad,) = list(parse(f"{declared}<urn:memkg:s> <urn:memkg:p> {text.strip()} .", format=RdfFormat.TURTLE))
    except (SyntaxError, ValueError):  # the parser's position is in text memkg wrapped around it: not shown
        raise head.refused("it is not a literal as Turtle writes one") from None
    value: NamedNode | Literal | Triple = quad.object  # never a blank node: Turtle's [] is no term here
    return value


class _Head:
    """How a refusal of ``text`` reads: what it was given for, what is wrong, and the forms to write."""

    def __init__(self, text: object, what: str, verdict: str, forms: str) -> None:
        self.text, self.forms = text, forms
        self.lead = f"{what} {text!r} {verdict}" if what else f"{text!r} {verdict}"

    def refused(self, reason: str, kind: type[UnreadableName] = UnreadableName) -> UnreadableName:
        return kind(f"{self.lead}: {reason}; write {self.forms}")


def _read(text: object, known: Mapping[str, str], head: _Head, exists: Exists | None) -> NamedNode:
    if not isinstance(text, str) or not text.strip():
        raise head.refused("it is empty" if isinstance(text, str) else f"it is a {type(text).__name__}, not text")
    written = text.strip()
    if written[0] + written[-1] == "<>":
        return _absolute(written[1:-1].strip(), head)
    if written[0] + written[-1] == "‹›" and written[1:-1].strip()[:1] not in ("", "‹"):
        return _read(written[1:-1], known, head, exists)  # what is inside, in any form
    if written.startswith("_:"):
        raise head.refused("it is a blank node, which has no name outside the file that wrote it")
    found = _COMPACT.match(written)
    if found is None:
        raise head.refused("it has no prefix or scheme")
    prefix, local = found.group(1) or "", found.group(2)
    if prefix in known and not local.startswith("//"):
        return _compact(prefix, local, known, head, exists)
    if local.startswith("//") or prefix.lower() in BARE_SCHEMES:
        return _absolute(written, head)
    names = ", ".join(f"{p}:" for p in sorted(known) if p)
    raise head.refused(f"unknown prefix {prefix}: (known: {names})")


def readings(prefix: str, local: str, prefixes: Mapping[str, str]) -> list[tuple[str, str]]:
    """Each ``(prefix:name, IRI)`` that ``prefix:local`` could mean: under ``prefix`` itself,
    then under each name a load gave another namespace declared with it (``ex2``, ``ex3``, …).

    >>> readings("ex", "c0", {"ex": "https://a/", "ex2": "https://b/", "ex10": "https://c/", "exa": "https://d/"})
    [('ex:c0', 'https://a/c0'), ('ex2:c0', 'https://b/c0'), ('ex10:c0', 'https://c/c0')]
    """
    renamed = re.compile(re.escape(prefix) + r"([2-9]|[1-9]\d+)")
    others = sorted((int(p[len(prefix):]), p) for p in prefixes if renamed.fullmatch(p))
    return [(f"{p}:{local}", prefixes[p] + local) for p in [prefix, *(p for _, p in others)]]


def _compact(prefix: str, local: str, prefixes: Mapping[str, str], head: _Head, exists: Exists | None) -> NamedNode:
    local = _ESCAPED.sub(r"\1", local)
    meant = readings(prefix, local, prefixes)
    first = _absolute(meant[0][1], head)
    if exists is None or len(meant) == 1:
        return first
    if exists(first.value):
        return first  # the node memkg prints as prefix:local: copying it back means it
    held = [(name, iri) for name, iri in meant[1:] if exists(iri)]
    if not held:
        return first
    could = " or ".join(f"<{iri}> ({name})" for name, iri in [meant[0], *held])
    raise head.refused(f"it could mean {could}, as the files loaded declared {prefix}: for each namespace",
                       AmbiguousName)


def _absolute(text: str, head: _Head) -> NamedNode:
    found = _COMPACT.match(text)
    if found is None or not found.group(1):
        raise head.refused(f"{text!r} is not absolute (it has no scheme)")
    try:
        return NamedNode(text)
    except ValueError as err:
        raise head.refused(str(err)) from None
