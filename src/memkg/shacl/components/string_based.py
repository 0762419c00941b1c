"""SHACL §4.4 string-based constraint components: sh:minLength, sh:maxLength,
sh:pattern (with sh:flags), sh:languageIn, sh:uniqueLang."""

from __future__ import annotations

import functools
import operator
import re

from pyoxigraph import Literal, NamedNode, Store

from ...core.terms import Term
from ...core.vocab import SHACL12_SPEC, SHACL_SPEC, sh
from ..terms import sparql_string
from ..values import lang_matches, matches, string_length
from .base import Component, Ctx, Evaluation, Fragment, Reader

_COMPARE = {">=": operator.ge, "<=": operator.le}



class _Length(Component):
    PARAM = sh.minLength
    OPERATOR = ">="

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        n = reader.non_negative_integer(cls, cls.PARAM, reader.one(cls, cls.PARAM))
        return [cls(reader.shape, length=n)]

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        n = self.params["length"]
        return Fragment(f"{ctx.values()} FILTER(isBlank({v}) || !COALESCE(STRLEN(STR({v})) {self.OPERATOR} {n}, false))")

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        n, compare = self.params["length"], _COMPARE[self.OPERATOR]
        return [v for v in values if (length := string_length(v)) is None or not compare(length, n)]


class MinLengthComponent(_Length):
    """sh:minLength — the string form of every value node has at least n characters."""

    IRI = sh.MinLengthConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.minLength,)
    PARAM = sh.minLength
    OPERATOR = ">="
    RULE = "SHACL §4.4.1 sh:minLength"
    ANCHOR = SHACL_SPEC + "#MinLengthConstraintComponent"

    def describe(self) -> str:
        return f"Value is shorter than {self.params['length']} characters"


class MaxLengthComponent(_Length):
    """sh:maxLength — the string form of every value node has at most n characters."""

    IRI = sh.MaxLengthConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.maxLength,)
    PARAM = sh.maxLength
    OPERATOR = "<="
    RULE = "SHACL §4.4.2 sh:maxLength"
    ANCHOR = SHACL_SPEC + "#MaxLengthConstraintComponent"

    def describe(self) -> str:
        return f"Value is longer than {self.params['length']} characters"


_REGEX_CHECK = Store()


class PatternComponent(Component):
    """sh:pattern (+ sh:flags) — the string form of every value node matches the regular expression."""

    IRI = sh.PatternConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.pattern, sh.flags)
    RULE = "SHACL §4.4.3 sh:pattern"
    ANCHOR = SHACL_SPEC + "#PatternConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        flags_term = reader.at_most_one(cls, sh.flags)
        flags = reader.string(cls, sh.flags, flags_term) if flags_term is not None else None
        if flags is not None and set(flags) - set("smixq"):
            raise cls.error(reader, f"sh:flags may only contain the flags s, m, i, x, q, got {flags!r}")
        out: list[Component] = []
        for value in reader.values(sh.pattern):
            pattern = reader.string(cls, sh.pattern, value)
            args = sparql_string(pattern) + (f", {sparql_string(flags)}" if flags else "")
            (check,) = _REGEX_CHECK.query(f'SELECT (COALESCE(REGEX("", {args}), "invalid") AS ?m) {{}}')  # type: ignore[misc]  # a SELECT: rows
            if check["m"] == Literal("invalid"):
                raise cls.error(reader, f"sh:pattern {pattern!r} (flags {flags!r}) is not a valid regular expression")
            out.append(cls(reader.shape, pattern=Literal(pattern), flags=Literal(flags) if flags else None))
        return out

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        args = sparql_string(self.params["pattern"].value)
        if self.params["flags"] is not None:
            args += ", " + sparql_string(self.params["flags"].value)
        return Fragment(f"{ctx.values()} FILTER(isBlank({v}) || !COALESCE(REGEX(STR({v}), {args}), false))")

    def surely_conforms(self, values: list[Term], focus: Term, engine: Evaluation) -> bool:
        # Oxigraph compiles the regular expression when it plans the query (~0.1 ms, more
        # than the rest of the branch): values that match in Python spare that.
        rx = None if self.params["flags"] is not None else _python_regex(self.params["pattern"].value)
        return rx is not None and all(isinstance(v, (Literal, NamedNode)) and rx.search(v.value) for v in values)

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        pattern, flags = self.params["pattern"].value, self.params["flags"]
        return [v for v in values if not matches(v, pattern, flags.value if flags is not None else None)]

    def describe(self) -> str:
        return f"Value does not match pattern {self.params['pattern'].value!r}"


#: Patterns written only with these read the same to Python's ``re`` and to Oxigraph's
#: REGEX (Rust's regex crate): ASCII literals, classes and ranges, groups, alternation,
#: quantifiers, ``^``. No escapes, no ``.`` (it differs on ``\r``), no flags.
_SIMPLE_PATTERN = re.compile(r"[A-Za-z0-9 :_\-+()|\[\]?*{},^$]*")


@functools.cache
def _python_regex(pattern: str) -> re.Pattern[str] | None:
    """``pattern`` for Python's ``re`` if it surely means the same as in SPARQL REGEX, else None."""
    if not _SIMPLE_PATTERN.fullmatch(pattern) or "[^" in pattern or "(?" in pattern:
        return None
    # "$" is the end of the string in REGEX; in Python it also matches before a final newline.
    try:
        return re.compile(pattern.replace("$", r"\Z"))
    except re.error:
        return None


class LanguageInComponent(Component):
    """sh:languageIn — every value node is a literal whose language tag matches one of the ranges."""

    IRI = sh.LanguageInConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.languageIn,)
    RULE = "SHACL §4.4.4 sh:languageIn"
    ANCHOR = SHACL_SPEC + "#LanguageInConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        value = reader.one(cls, sh.languageIn)
        items = reader.graph.list_items(value, shape=reader.node, what="the value of sh:languageIn")
        langs = [reader.string(cls, sh.languageIn, i) for i in items]
        return [cls(reader.shape, languageIn=value, languages=tuple(langs))]

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        tests = " || ".join(f"langMatches(LANG({v}), {sparql_string(lang)})" for lang in self.params["languages"]) or "false"
        return Fragment(f"{ctx.values()} FILTER(!COALESCE(isLiteral({v}) && ({tests}), false))")

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        ranges = self.params["languages"]
        return [v for v in values
                if not (isinstance(v, Literal) and any(lang_matches(v.language or "", r) for r in ranges))]

    def describe(self) -> str:
        return "Language tag is not one of " + ", ".join(self.params["languages"])


class UniqueLangComponent(Component):
    """sh:uniqueLang — no two value nodes share a (non-empty) language tag (property shapes only);
    SHACL 1.2: with its base direction (``"a"@ar--ltr`` and ``"b"@ar--rtl`` differ)."""

    IRI = sh.UniqueLangConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.uniqueLang,)
    RULE = "SHACL §4.4.5 sh:uniqueLang"
    ANCHOR = SHACL_SPEC + "#UniqueLangConstraintComponent"
    SCOPE = "property"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        reader.check_scope(cls, sh.uniqueLang)
        on = reader.boolean(cls, sh.uniqueLang, reader.one(cls, sh.uniqueLang))
        return [cls(reader.shape, uniqueLang=on)] if on else []

    def fragment(self, ctx: Ctx) -> Fragment:
        x, lang = ctx.fresh("x"), ctx.fresh("l")
        return Fragment(
            value=False,
            key=True,
            select=(
                f"{{ SELECT %GROUP% ({lang} AS {ctx.key_out}) WHERE {{ %BINDER% {ctx.values(x)} "
                f'FILTER(isLiteral({x})) BIND(IF(LANG({x}) = "", "", CONCAT(LCASE(LANG({x})), "--", LANGDIR({x}))) AS {lang}) '
                f'FILTER({lang} != "") }} '
                f"GROUP BY %GROUP% {lang} HAVING (COUNT(DISTINCT {x}) > 1) }}"
            ),
        )

    def nonconformance(self, ctx: Ctx) -> str | None:
        a, b = ctx.fresh("a"), ctx.fresh("b")
        return (
            f"{ctx.values(a)} {ctx.values(b)} FILTER(!sameTerm({a}, {b}) && isLiteral({a}) && isLiteral({b}) "
            f'&& LANG({a}) != "" && LCASE(LANG({a})) = LCASE(LANG({b})) && LANGDIR({a}) = LANGDIR({b}))'
        )

    def describe(self) -> str:
        return "Language tag used by more than one value"


#: The line terminators sh:singleLine forbids (Unicode line breaks: LF, VT, FF, CR, NEL, LS, PS).
_LINE_BREAKS = "\n\u000B\f\r\u0085\u2028\u2029"


class SingleLineComponent(Component):
    """sh:singleLine (SHACL 1.2) — the string form of every value node holds no line break."""

    IRI = sh.SingleLineConstraintComponent
    PER_VALUE = True
    PARAMETERS = (sh.singleLine,)
    RULE = "SHACL 1.2 §4.4.6 sh:singleLine"
    ANCHOR = SHACL12_SPEC + "#SingleLineConstraintComponent"

    @classmethod
    def parse(cls, reader: Reader) -> list[Component]:
        on = reader.boolean(cls, sh.singleLine, reader.one(cls, sh.singleLine))
        return [cls(reader.shape, singleLine=on)] if on else []

    def fragment(self, ctx: Ctx) -> Fragment:
        v = ctx.value
        return Fragment(f"{ctx.values()} FILTER(isBlank({v}) || COALESCE(REGEX(STR({v}), {sparql_string('[' + _LINE_BREAKS + ']')}), true))")

    def judge(self, values: list[Term], focus: Term, engine: Evaluation) -> list[Term | None] | None:
        return [v for v in values if not isinstance(v, (Literal, NamedNode)) or any(c in v.value for c in _LINE_BREAKS)]

    def describe(self) -> str:
        return "Value holds a line break"


SECTION = "SHACL §4.4 String-based Constraint Components"
COMPONENTS: tuple[type[Component], ...] = (
    MinLengthComponent,
    MaxLengthComponent,
    PatternComponent,
    LanguageInComponent,
    UniqueLangComponent,
    SingleLineComponent,
)
