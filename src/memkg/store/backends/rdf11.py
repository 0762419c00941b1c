"""Triple terms for servers without RDF 1.2: a documented RDF 1.1 encoding, and the
mechanical rewrite of SPARQL 1.2 queries over it.

The encoding (used with ``--endpoint-dialect rdf11``, e.g. for Virtuoso 7)
--------------------------------------------------------------------------
Every triple term ``<<( s p o )>>`` is written as one IRI::

    <urn:memkg:triple:H>   where H = lowercase hex SHA-256 of the UTF-8 text of the
                           term's canonical form, <<( S P O )>> with S, P, O in
                           N-Triples (IRIs <…>, literals "…"^^<…> or "…"@lang,
                           nested triple terms written the same way), literals
                           normalised as Oxigraph stores them (so "01"^^xsd:integer
                           and "1"^^xsd:integer are one term)

described, in every graph where a quad mentions it, by the RDF 1.1 reification
vocabulary (the recognised RDF 1.1 way to talk about a triple)::

    <urn:memkg:triple:H> a rdf:Statement ;
        rdf:subject S' ; rdf:predicate P ; rdf:object O' .

where S' and O' are S and O, themselves encoded when they are triple terms (a
nested term gets its own description). So the claim ``ex:c rdf:reifies <<( ex:Lia
ex:prefers ex:tea )>>`` is stored as five RDF 1.1 triples. Why this and not the
reifier itself as the ``rdf:Statement`` (RDF 1.2's "classic reification" mapping):
that mapping only covers triple terms in the object of ``rdf:reifies``, breaks when
one reifier reifies two terms, and collides with data that already uses
``rdf:subject``. A stable IRI per term works in every position, shares one
description between all uses of a term, nests, and decodes exactly:
:func:`decode_quads` turns the stored triples back into the RDF 1.2 quads, and an
export from the server equals the data loaded (literals as the server normalises
them). The ``urn:memkg:triple:`` namespace is reserved: data that uses it is refused.

Queries: :func:`rewrite_query` turns SPARQL 1.2 into SPARQL 1.1 over the encoding,
token by token: a triple term with variables in a triple pattern becomes a fresh
variable plus its description patterns (added at the end of the triples block), a
constant one becomes its IRI, ``isTRIPLE(x)`` tests the namespace and ``isIRI(x)``
leaves it out. ``TRIPLE()``, ``SUBJECT()``, ``PREDICATE()``, ``OBJECT()``, the
reifier syntax ``<< … >>``/``~``/``{| |}`` and triple terms with variables inside
expressions or CONSTRUCT templates have no SPARQL 1.1 equivalent over the encoding
and are refused with :class:`Rdf11Unsupported`. The memkg views use none of them
(they read the claim index, :mod:`memkg.store.claim_index`), so every view runs unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard, overload

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Store, Triple

from ...core.errors import MemkgError
from ...core.sparql import Token, read_prologue, tokenize
from ...core.terms import Term
from ...core.vocab import RDF
from ..views import solutions

TRIPLE_NS = "urn:memkg:triple:"
RDF_STATEMENT = NamedNode(RDF + "Statement")
RDF_TYPE = NamedNode(RDF + "type")
RDF_SUBJECT = NamedNode(RDF + "subject")
RDF_PREDICATE = NamedNode(RDF + "predicate")
RDF_OBJECT = NamedNode(RDF + "object")
_PARTS = (RDF_SUBJECT, RDF_PREDICATE, RDF_OBJECT)



class Rdf11Unsupported(MemkgError, ValueError):
    """A SPARQL 1.2 feature with no SPARQL 1.1 equivalent over the encoding."""


# -- terms ------------------------------------------------------------------------------


def canonical(term: Term) -> str:
    """A term in N-Triples, triple terms as ``<<( S P O )>>`` (the text that is hashed)."""
    if isinstance(term, Triple):
        return f"<<( {canonical(term.subject)} {term.predicate} {canonical(term.object)} )>>"
    return str(term)


def normalise(terms: Sequence[Triple]) -> list[Triple]:
    """The triple terms as Oxigraph stores them (typed literals in canonical form)."""
    if not terms:
        return []
    scratch = Store()
    p = NamedNode("urn:memkg:normalise")
    scratch.extend(Quad(NamedNode(f"urn:memkg:n:{i}"), p, t) for i, t in enumerate(terms))
    out: list[Triple] = list(terms)
    for q in scratch:
        out[int(q.subject.value.rsplit(":", 1)[1])] = q.object
    return out


def term_iri(term: Triple) -> NamedNode:
    """The IRI that stands for a (normalised) triple term."""
    return NamedNode(TRIPLE_NS + hashlib.sha256(canonical(term).encode("utf-8")).hexdigest())


def is_encoded(term: object) -> TypeGuard[NamedNode]:
    return isinstance(term, NamedNode) and term.value.startswith(TRIPLE_NS)


# -- quads --------------------------------------------------------------------------------


def encode_quads(quads: Iterable[Quad]) -> list[Quad]:
    """RDF 1.2 quads as RDF 1.1 quads: triple terms as IRIs, each described once per graph.

    Raises ValueError for data that already uses the reserved ``urn:memkg:triple:`` IRIs.
    """
    # Through a scratch store, so literals are in the form Oxigraph (and the hash) uses.
    scratch = Store()
    scratch.extend(quads)
    quads = list(scratch)
    terms: dict[Triple, None] = {}

    def collect(t: Term) -> None:
        if isinstance(t, Triple):
            terms.setdefault(t)
            collect(t.subject)
            collect(t.object)
        elif is_encoded(t):
            raise ValueError(f"{t}: IRIs under {TRIPLE_NS} are reserved for memkg's RDF 1.1 encoding")

    for q in quads:
        collect(q.subject)
        collect(q.predicate)
        collect(q.object)
        if is_encoded(q.graph_name):
            raise ValueError(f"{q.graph_name}: IRIs under {TRIPLE_NS} are reserved")
    iris = {t: term_iri(t) for t in terms}

    def enc(t: Term) -> NamedNode | BlankNode | Literal:
        return iris[t] if isinstance(t, Triple) else t

    def enc_subject(t: NamedNode | BlankNode | Triple) -> NamedNode | BlankNode:
        return iris[t] if isinstance(t, Triple) else t

    out: dict[Quad, None] = {}
    for q in quads:
        out[Quad(enc_subject(q.subject), q.predicate, enc(q.object), q.graph_name)] = None
        stack = [t for t in (q.subject, q.object) if isinstance(t, Triple)]
        while stack:
            t = stack.pop()
            node, g = iris[t], q.graph_name
            description = (
                Quad(node, RDF_TYPE, RDF_STATEMENT, g),
                Quad(node, RDF_SUBJECT, enc_subject(t.subject), g),
                Quad(node, RDF_PREDICATE, t.predicate, g),
                Quad(node, RDF_OBJECT, enc(t.object), g),
            )
            if description[1] in out:
                continue
            out.update(dict.fromkeys(description))
            stack += [x for x in (t.subject, t.object) if isinstance(x, Triple)]
    return list(out)


@dataclass
class Decoder:
    """Turns encoded IRIs back into triple terms, asking ``lookup`` for descriptions it lacks.

    ``lookup(iris)`` returns ``(iri, part, value)`` rows (part: rdf:subject, …) for the
    given IRIs, in one request; nested terms are resolved level by level.
    """

    lookup: Callable[[list[NamedNode]], Iterable[tuple[NamedNode, NamedNode, Term]]] | None = None
    known: dict[NamedNode, dict[NamedNode, Term]] = field(default_factory=dict)

    def learn(self, node: NamedNode, part: NamedNode, value: Term) -> None:
        if part in _PARTS:
            self.known.setdefault(node, {})[part] = value

    @overload
    def term(self, t: Term) -> Term: ...
    @overload
    def term(self, t: None) -> None: ...
    def term(self, t: Term | None) -> Term | None:
        if not is_encoded(t):
            return t
        self.resolve([t])
        return self._build(t, set())

    def resolve(self, nodes: Iterable[object]) -> None:
        """Make sure every encoded IRI among ``nodes`` (and the ones nested in them) is known."""
        pending = {n for n in nodes if is_encoded(n) and not self._complete(n)}
        while pending and self.lookup is not None:
            for node, part, value in self.lookup(sorted(pending, key=str)):
                self.learn(node, part, value)
            nested = {v for n in pending for v in self.known.get(n, {}).values()}
            missing = [n for n in pending if not self._complete(n)]
            if missing:
                raise ValueError(f"{missing[0]}: no description of this encoded triple term on the server")
            pending = {n for n in nested if is_encoded(n) and not self._complete(n)}

    def _complete(self, node: NamedNode) -> bool:
        return len(self.known.get(node, {})) == 3

    def _build(self, node: NamedNode, seen: set[NamedNode]) -> Triple:
        if node in seen:
            raise ValueError(f"{node}: the encoded triple term contains itself")
        parts = self.known.get(node)
        if parts is None or len(parts) != 3:
            raise ValueError(f"{node}: no complete description of this encoded triple term")
        inner = seen | {node}
        s, p, o = (parts[x] for x in _PARTS)
        if isinstance(s, Literal) or not isinstance(p, NamedNode):
            raise ValueError(f"{node}: the encoded triple term's description has a literal subject or a "
                             f"predicate that is not an IRI")
        return Triple(self._build(s, inner) if is_encoded(s) else s, p,
                      self._build(o, inner) if is_encoded(o) else o)


def decode_quads(quads: Iterable[Quad], decoder: Decoder | None = None) -> Iterator[Quad]:
    """The RDF 1.2 quads an encoded dataset stands for: descriptions dropped, IRIs decoded.

    Every description must be among ``quads`` (or known to ``decoder``).
    """
    decoder = decoder or Decoder()
    data: list[Quad] = []
    for q in quads:
        if is_encoded(q.subject):
            decoder.learn(q.subject, q.predicate, q.object)
        else:
            data.append(q)
    for q in data:
        obj = decoder.term(q.object) if is_encoded(q.object) else q.object
        yield Quad(q.subject, q.predicate, obj, q.graph_name)


# -- queries ------------------------------------------------------------------------------

#: Tokens the rewriter reads as one word (a keyword or a term's text).
_WORDS = frozenset({"WORD", "PNAME", "NUMBER", "BNODE", "LANGTAG"})
#: SPARQL 1.2's reifier syntax, which has no form over the encoding.
_REIFIER_SYNTAX = frozenset({"<<", ">>", "{|", "|}", "~"})
_BLOCK_END_KEYWORDS = {"OPTIONAL", "FILTER", "BIND", "MINUS", "GRAPH", "SERVICE", "VALUES", "UNION"}
_REFUSED_FUNCTIONS = {"TRIPLE", "SUBJECT", "PREDICATE", "OBJECT"}
_MARK = f'"{TRIPLE_NS}"'


def _is_triple_test(expr: str) -> str:
    return f"(isIRI({expr}) && STRSTARTS(STR({expr}), {_MARK}))"


def _is_plain_iri(expr: str) -> str:
    return f"(isIRI({expr}) && !STRSTARTS(STR({expr}), {_MARK}))"


class _Rewriter:
    def __init__(self, toks: list[Token], constant: Callable[[str], NamedNode]) -> None:
        self.toks = toks
        self.i = 0
        self.constant = constant
        self.fresh = 0
        self.out: list[str] = []
        # One entry per open brace: the description patterns waiting for the end of the
        # current triples block, and whether the brace opened a CONSTRUCT template.
        self.pending: list[list[str]] = [[]]
        self.template: list[bool] = [False]
        self.parens = 0
        self.after_construct = False

    def next_significant(self, j: int) -> int:
        while j < len(self.toks) and self.toks[j].layout:
            j += 1
        return j

    def balanced(self, start: int) -> int:
        """Index after the ``)`` matching the ``(`` at ``start``."""
        depth = 0
        for j in range(start, len(self.toks)):
            t = self.toks[j]
            if t.text == "(" or t.text == "<<(":
                depth += 1
            elif t.text == ")" or t.text == ")>>":
                depth -= 1
                if depth == 0:
                    return j + 1
        raise Rdf11Unsupported("unbalanced parentheses in the query")

    def run(self) -> str:
        toks = self.toks
        while self.i < len(toks):
            t = toks[self.i]
            if t.layout:
                self.out.append(t.text)
                self.i += 1
                continue
            if t.text in _REIFIER_SYNTAX:
                raise Rdf11Unsupported(
                    f"{t.text!r}: reifier syntax (<< … >>, ~, {{| |}}) has no SPARQL 1.1 form over the "
                    f"RDF 1.1 encoding; write the reifier's triples with rdf:reifies <<( s p o )>>"
                )
            up = t.text.upper()
            if t.kind in _WORDS and self.keyword(up):
                continue
            if t.text == "<<(":
                self.triple_term_in_pattern()
                continue
            if self.structure(t, up):
                continue
            self.out.append(t.text)
            self.i += 1
        return "".join(self.out)

    def keyword(self, up: str) -> bool:
        """The keyword ``up`` at the cursor: VERSION dropped (with its string), isTRIPLE/isIRI/isURI
        calls rewritten, TRIPLE/SUBJECT/PREDICATE/OBJECT calls refused. True when the cursor moved
        past it; False for any other word (CONSTRUCT is noted)."""
        if up == "VERSION":
            j = self.next_significant(self.i + 1)
            self.i = j + 1  # the version string goes too: SPARQL 1.1 has no VERSION
            return True
        if up in _REFUSED_FUNCTIONS or up in {"ISTRIPLE", "ISIRI", "ISURI"}:
            j = self.next_significant(self.i + 1)
            if j < len(self.toks) and self.toks[j].text == "(":
                if up in _REFUSED_FUNCTIONS:
                    raise Rdf11Unsupported(
                        f"{self.toks[self.i].text}(): no SPARQL 1.1 equivalent over the RDF 1.1 encoding of "
                        f"triple terms; match the term in a triple pattern instead, e.g. ?r rdf:reifies <<( ?s ?p ?o )>>"
                    )
                end = self.balanced(j)
                inner = _Rewriter(self.toks[j + 1 : end - 1], self.constant)
                inner.fresh = self.fresh
                inner.parens = 1  # the argument is an expression: a triple term there may not hold variables
                arg = inner.run()
                self.fresh = inner.fresh
                self.out.append(_is_triple_test(arg) if up == "ISTRIPLE" else _is_plain_iri(arg))
                self.i = end
                return True
        if up == "CONSTRUCT":
            self.after_construct = True
        return False

    def triple_term_in_pattern(self) -> None:
        """The ``<<( … )>>`` at the cursor, replaced; its description patterns wait for the end of the block."""
        text, patterns = self.triple_term()
        if patterns:
            if self.parens:
                raise Rdf11Unsupported(
                    "a triple term with variables inside an expression has no SPARQL 1.1 form over "
                    "the RDF 1.1 encoding; match it in a triple pattern instead"
                )
            if self.template[-1]:
                raise Rdf11Unsupported(
                    "a triple term with variables in a CONSTRUCT template cannot be written over "
                    "the RDF 1.1 encoding"
                )
            self.pending[-1] += patterns
        self.out.append(text)

    def structure(self, t: Token, up: str) -> bool:
        """Keep count of parentheses and braces, and write the waiting description patterns where a
        triples block ends. True when it wrote the token itself (a ``.`` ending a block)."""
        pending = self.pending
        if t.text == "(":
            self.parens += 1
        elif t.text == ")":
            self.parens -= 1
        elif t.text == "{":
            if pending[-1] and self.parens == 0:
                self.out.append(self.flush(pending[-1], before=True))
            pending.append([])
            self.template.append(self.after_construct)
            self.after_construct = False
        elif t.text == "}":
            if pending[-1]:
                self.out.append(self.flush(pending[-1], before=True))
            if len(pending) > 1:
                pending.pop()
                self.template.pop()
        elif t.text == "." and self.parens == 0 and pending[-1]:
            self.out.append(t.text)
            self.out.append(self.flush(pending[-1], before=False))
            self.i += 1
            return True
        elif t.kind in _WORDS and up in _BLOCK_END_KEYWORDS and self.parens == 0 and pending[-1]:
            self.out.append(self.flush(pending[-1], before=True))
        return False

    def flush(self, patterns: list[str], *, before: bool) -> str:
        text = " ".join(patterns)
        patterns.clear()
        return f" . {text} " if before else f" {text} "

    def triple_term(self) -> tuple[str, list[str]]:
        """The ``<<( … )>>`` at the cursor: its replacement and any description patterns."""
        start = self.i
        end = self.balanced(start)
        parts: list[str] = []
        patterns: list[str] = []
        self.i = start + 1
        while self.i < end - 1:
            t = self.toks[self.i]
            if t.layout:
                self.i += 1
                continue
            if t.text == "<<(":
                text, inner = self.triple_term()
                patterns += inner
                parts.append(text)
                continue
            # one RDF term: a literal may span several tokens ("x"@en, "1"^^xsd:int)
            piece = [t.text]
            self.i += 1
            while self.i < end - 1 and (self.toks[self.i].text == "^^" or self.toks[self.i].kind == "LANGTAG"):
                if self.toks[self.i].kind == "LANGTAG":  # "x"@en: the tag is one token
                    piece.append(self.toks[self.i].text)
                    self.i += 1
                    continue
                piece.append(self.toks[self.i].text)
                piece.append(self.toks[self.i + 1].text)
                self.i += 2
            parts.append("".join(piece))
        self.i = end
        if len(parts) != 3:
            raise Rdf11Unsupported(f"a triple term needs three parts, got {' '.join(parts)!r}")
        if any(p.startswith(("?", "$", "_:", "[")) for p in parts) or patterns:
            self.fresh += 1
            var = f"?__memkg_t{self.fresh}"
            s, p, o = parts
            patterns.append(
                f"{var} <{RDF}subject> {s} ; <{RDF}predicate> {p} ; <{RDF}object> {o} . "
                f"FILTER(STRSTARTS(STR({var}), {_MARK}))"
            )
            return var, patterns
        return str(self.constant("<<( " + " ".join(parts) + " )>>")), patterns


def rewrite_query(text: str, *, prologue: str = "") -> str:
    """SPARQL 1.2 text as SPARQL 1.1 over the encoding (see the module doc).

    ``prologue`` (PREFIX lines) resolves prefixed names in constant triple terms.
    Raises :class:`Rdf11Unsupported` for what the encoding cannot express.

    >>> print(rewrite_query("SELECT ?c WHERE { ?c <urn:r> <<( ?s <urn:p> ?o )>> }").split("WHERE")[1].strip()[:60])
    { ?c <urn:r> ?__memkg_t1  . ?__memkg_t1 <http://www.w3.org/1
    """
    toks = tokenize(text, source="<query>", layout=True)
    try:  # the caller's declarations, then the query's own
        declared = read_prologue(prologue)
        declared.read(toks)
    except ValueError as err:
        raise Rdf11Unsupported(str(err)) from None
    heads = declared.sparql()

    def constant(term_text: str) -> NamedNode:
        try:
            (row,) = list(solutions(Store().query(f"{heads}\nSELECT ?t WHERE {{ BIND({term_text} AS ?t) }}")))
        except SyntaxError as err:
            raise Rdf11Unsupported(f"{term_text}: not a triple term ({err})") from None
        return term_iri(row["t"])

    return _Rewriter(toks, constant).run()

