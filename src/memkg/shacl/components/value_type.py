"""SHACL §4.1 value type constraint components: sh:class, sh:datatype, sh:nodeKind.

Datatype checks catch ill-typed literals. pyoxigraph accepts
``"abc"^^xsd:decimal`` without complaint, and in SPARQL ``datatype(?v) =
xsd:decimal`` holds for it, so each known XSD datatype carries a SPARQL
well-formedness test: a cast round trip where Oxigraph can cast, a regular
expression (and a range check for the bounded integer types) otherwise.

Note: a pyoxigraph ``Store`` rewrites well-formed literals of the derived
integer types (``xsd:byte``, ``xsd:int``, ``xsd:long``, ...) to ``xsd:integer``
and ``xsd:dateTimeStamp`` to ``xsd:dateTime`` when they are written. Given the
literals as written (:mod:`memkg.core.written`), the engine judges those values
again in Python (:meth:`DatatypeComponent.judge`), so ``"5"^^xsd:int`` conforms to
``sh:datatype xsd:int`` and ``"300"^^xsd:byte`` does not.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from ...core.prefixes import show
from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, SHACL_SPEC, XSD, rdf, sh
from ..incomplete import Excuse
from ..values import well_formed, wellformed
from .base import Component, Ctx, Evaluation, Fragment, Reader, const


_INTEGER_LEX = re.compile(r"-?(0|[1-9][0-9]{0,14})")
_DECIMAL_LEX = re.compile(r"-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?")
_DATETIME_LEX = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,6})?"
    r"(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9])?"
)


def python_number(term: Term) -> Decimal | None:
    """The exact value of an xsd:integer or xsd:decimal literal Python vouches for, else None.

    >>> from memkg.core.vocab import xsd
    >>> python_number(Literal("0.75", datatype=xsd.decimal)), python_number(Literal("1e3", datatype=xsd.decimal))
    (Decimal('0.75'), None)
    """
    if not isinstance(term, Literal):
        return None
    dt = term.datatype.value
    if dt == XSD + "integer":
        lex = _INTEGER_LEX
    elif dt == XSD + "decimal":
        lex = _DECIMAL_LEX
    else:
        return None
    return Decimal(term.value) if lex.fullmatch(term.value) else None


def surely_wellformed(term: Term, datatype: NamedNode) -> bool:
    """True only if the literal ``term`` surely passes :meth:`DatatypeComponent.condition`
    (False: let SPARQL decide). Mirrors :func:`wellformed` where that needs no cast;
    of the cast datatypes, vouches for short integers, decimals and dateTimes.

    >>> from memkg.core.vocab import xsd
    >>> surely_wellformed(Literal("2026-01-03T00:00:00Z", datatype=xsd.dateTime), xsd.dateTime)
    True
    >>> surely_wellformed(Literal("2026-02-30T00:00:00Z", datatype=xsd.dateTime), xsd.dateTime)
    False
    """
    if not isinstance(term, Literal) or term.datatype != datatype:
        return False
    name = datatype.value[len(XSD):] if datatype.value.startswith(XSD) else None
    if name in ("integer", "decimal"):
        return python_number(term) is not None
    if name == "dateTime":
        m = _DATETIME_LEX.fullmatch(term.value)
        if m is None:
            return False
        try:
            year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
            datetime(year, month, day, hour, minute, second)
        except ValueError:
            return False
        return True
    if datatype == rdf.langString:
        return bool(term.language)
    return wellformed("?v", datatype) is None


def _iri_or_list(reader: Reader, cls: type[Component], param: NamedNode, value: Term) -> tuple[NamedNode, ...]:
    """An IRI, or (SHACL 1.2) a SHACL list of IRIs: any one of them will do."""
    if isinstance(value, BlankNode) and (value == rdf.nil or reader.graph.has(value, rdf.first)):
        items = reader.graph.list_items(value, shape=reader.node, what=f"the value of {show(param, form='exact')}")
        return tuple(reader.iri(cls, param, i) for i in items)
    return (reader.iri(cls, param, value),)


class ClassComponent(Component):
    """sh:class — every value node is a SHACL instance of the class (``rdf:type/rdfs:subClassOf*``)."""

    IRI = sh.ClassConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh["class"],)
    RULE = "SHACL §4.1.1 sh:class"
    ANCHOR = SHACL_SPEC + "#ClassConstraintComponent"
    EXCUSED_BY = Excuse.VALUE

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        out: list[Component] = []
        for v in reader.values(sh["class"]):
            classes = _iri_or_list(reader, cls, sh["class"], v)
            out.append(cls(reader.shape, **{"class": v, "classes": classes}))
        return out

    def fragment(self, ctx: Ctx) -> Fragment:
        path = f"<{rdf.type.value}>/<http://www.w3.org/2000/01/rdf-schema#subClassOf>*"
        tests = " UNION ".join(f"{{ {ctx.value} {path} {const(c)} }}" for c in self.params["classes"])
        return Fragment(f"{ctx.values()} FILTER NOT EXISTS {{ {tests} }}" if tests else ctx.values())

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        return [v for v in values if not any(engine.view.is_instance(v, c) for c in self.params["classes"])]

    def describe(self) -> str:
        return "Value is not an instance of " + " or ".join(show(c, form="exact") for c in self.params["classes"])


class DatatypeComponent(Component):
    """sh:datatype — every value node is a well-formed literal of the datatype."""

    IRI = sh.DatatypeConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.datatype,)
    RULE = "SHACL §4.1.2 sh:datatype"
    ANCHOR = SHACL_SPEC + "#DatatypeConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        value = reader.one(cls, sh.datatype)
        return [cls(reader.shape, datatype=value, datatypes=_iri_or_list(reader, cls, sh.datatype, value))]

    def condition(self, v: str) -> str:
        alternatives = []
        for dt in self.params["datatypes"]:
            ok = f"DATATYPE({v}) = <{dt.value}>"
            wf = wellformed(v, dt)
            alternatives.append(f"({ok} && {wf})" if wf else f"({ok})")
        return f"!COALESCE(isLiteral({v}) && ({' || '.join(alternatives) or 'false'}), false)"

    def fragment(self, ctx: Ctx) -> Fragment:
        return Fragment(f"{ctx.values()} FILTER({self.condition(ctx.value)})")

    def value_test(self, var: str) -> str | None:
        return self.condition(var)

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        return all(any(surely_wellformed(v, dt) for dt in self.params["datatypes"]) for v in values)

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        datatypes = self.params["datatypes"]
        return [v for v in values if not (isinstance(v, Literal) and v.datatype in datatypes and well_formed(v))]

    def describe(self) -> str:
        return "Value is not a well-formed literal of datatype " + " or ".join(
            show(dt, form="exact") for dt in self.params["datatypes"])


class RootClassComponent(Component):
    """sh:rootClass (SHACL 1.2) — every value node is the class or one of its subclasses (``rdfs:subClassOf*``)."""

    IRI = sh.RootClassConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.rootClass,)
    RULE = "SHACL 1.2 §4.1.4 sh:rootClass"
    ANCHOR = SHACL12_SPEC + "#RootClassConstraintComponent"
    EXCUSED_BY = Excuse.IRI_VALUE  # only an IRI can be a valid value

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        return [cls(reader.shape, rootClass=reader.iri(cls, sh.rootClass, v)) for v in reader.values(sh.rootClass)]

    def fragment(self, ctx: Ctx) -> Fragment:
        c = const(self.params["rootClass"])
        return Fragment(f"{ctx.values()} FILTER NOT EXISTS {{ {ctx.value} <http://www.w3.org/2000/01/rdf-schema#subClassOf>* {c} }}")

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        root = self.params["rootClass"]
        return [v for v in values if root not in engine.view.superclasses(v)]

    def describe(self) -> str:
        return f"Value is not {show(self.params['rootClass'], form='exact')} or a subclass of it"


_KINDS = {
    sh.IRI: ("isIRI",),
    sh.BlankNode: ("isBlank",),
    sh.Literal: ("isLiteral",),
    sh.BlankNodeOrIRI: ("isBlank", "isIRI"),
    sh.BlankNodeOrLiteral: ("isBlank", "isLiteral"),
    sh.IRIOrLiteral: ("isIRI", "isLiteral"),
    sh.TripleTerm: ("isTRIPLE",),
}
#: The Python classes of the terms each SPARQL test accepts.
_KIND_CLASSES = {"isIRI": NamedNode, "isBlank": BlankNode, "isLiteral": Literal, "isTRIPLE": Triple}


class NodeKindComponent(Component):
    """sh:nodeKind — every value node has the node kind (SHACL 1.2 adds sh:TripleTerm and lists of kinds)."""

    IRI = sh.NodeKindConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.nodeKind,)
    RULE = "SHACL §4.1.3 sh:nodeKind"
    ANCHOR = SHACL_SPEC + "#NodeKindConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        value = reader.one(cls, sh.nodeKind)
        kinds: list[Term] = [value]
        if value not in _KINDS and reader.graph.has(value, rdf.first):
            kinds = reader.graph.list_items(value, shape=reader.node, what="the value of sh:nodeKind")
        for k in kinds:
            if k not in _KINDS:
                raise cls.error(
                    reader,
                    f"sh:nodeKind must be one of sh:IRI, sh:BlankNode, sh:Literal, sh:BlankNodeOrIRI, "
                    f"sh:BlankNodeOrLiteral, sh:IRIOrLiteral, sh:TripleTerm (or a list of them), got {k}",
                )
        return [cls(reader.shape, nodeKind=value, kinds=tuple(kinds))]

    def fragment(self, ctx: Ctx) -> Fragment:
        return Fragment(f"{ctx.values()} FILTER({self.value_test(ctx.value)})")

    def value_test(self, var: str) -> str | None:
        tests = sorted({f"{fn}({var})" for k in self.params["kinds"] for fn in _KINDS[k]})
        return f"!({' || '.join(tests) or 'false'})"

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        return not self.judge(values, focus, engine)

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        accepted = tuple(_KIND_CLASSES[fn] for k in self.params["kinds"] for fn in _KINDS[k])
        return [v for v in values if not isinstance(v, accepted)]

    def describe(self) -> str:
        return "Value does not have node kind " + ", ".join(show(k, form="exact") for k in self.params["kinds"])


SECTION = "SHACL §4.1 Value Type Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (ClassComponent, DatatypeComponent, NodeKindComponent, RootClassComponent)
