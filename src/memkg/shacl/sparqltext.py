"""A small SPARQL tokenizer for the queries of SHACL-SPARQL (SHACL §5, §6).

SHACL-SPARQL pre-binds variables (``$this``, ``$value``, parameters,
``$currentShape``, ``$shapesGraph``) and substitutes ``$PATH``. The engine
needs to look inside user queries for that: to refuse what pre-binding does not
allow (``MINUS``, ``VALUES``, ``SERVICE``, ``AS $this``, sub-queries that hide a
pre-bound variable — SHACL §5.6.1), to expand prefixed names (so a query can be
nested inside a generated one), and to substitute terms or rename variables.
The tokenizer only classifies tokens; it never pastes user strings: every token
is re-emitted verbatim or replaced by a serialised RDF term.

>>> q = UserQuery.parse("SELECT $this ?v WHERE { $this ex:p ?v }", {"ex": "http://e/"})
>>> q.render(consts={"this": "<http://e/a>"})
'SELECT (<http://e/a> AS ?__prebound1) ?v WHERE { <http://e/a> <http://e/p> ?v }'
>>> q.projects("this"), sorted(q.variables())
(True, ['this', 'v'])
>>> UserQuery.parse("ASK { FILTER(bound($this) && BOUND ( ?x )) }", {}).render(consts={"this": "<http://e/a>"})
'ASK { FILTER((true) && BOUND ( ?x )) }'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..core.errors import ParseError
from ..core.sparql import Prologue, Token, tokenize
from ..core.vocab import SHACL_SPEC
from .errors import ShapeError

_RULE = "SHACL §5.6.1 pre-bound variables"
_LINK = SHACL_SPEC + "#pre-binding"

_PN_ESCAPE = re.compile(r"\\(.)")


@dataclass
class UserQuery:
    """A SELECT or ASK query from a shapes graph, tokenised with prefixes expanded."""

    text: str
    tokens: list[Token]
    form: str
    _projection: tuple[set[str], bool] = field(default=(set(), False))

    @classmethod
    def parse(cls, text: str, prefixes: dict[str, str], *, shape: object = None, where: str = "query") -> "UserQuery":
        """Tokenise ``text``; declared and ``sh:prefixes`` prefixes are expanded to IRIs.

        Raises :class:`ShapeError` for an unknown prefix or a query that is not SELECT/ASK.
        """
        try:
            tokens = tokenize(text, layout=True)
        except ParseError as err:
            raise ShapeError(f"{where} is not SPARQL (line {err.line}, column {err.column}: {err.reason})",
                             shape=shape) from None
        # The prologue's declarations are read, then left out: their IRIs are inlined below.
        prologue = Prologue(prefixes=dict(prefixes))
        try:
            i = prologue.read(tokens)
        except ValueError as err:  # a relative IRI: there is no base to resolve it against
            raise ShapeError(f"{where}: {err}; use absolute IRIs", shape=shape) from None
        if prologue.base is not None or i < len(tokens) and tokens[i].is_word("BASE"):
            raise ShapeError(f"BASE is not supported in {where}; use absolute IRIs", shape=shape)
        if i < len(tokens) and tokens[i].is_word("PREFIX"):
            raise ShapeError(f"malformed PREFIX declaration in {where}", shape=shape)
        known = prologue.prefixes or {}
        out: list[Token] = []
        form = None
        for t in tokens[i:]:
            if t.kind == "PNAME":
                prefix, local = t.text.split(":", 1)
                if prefix not in known:
                    raise ShapeError(
                        f"{where} uses the undeclared prefix {prefix!r}; declare it with sh:prefixes/sh:declare",
                        shape=shape, rule="SHACL §5.2.1 prefix declarations", link=SHACL_SPEC + "#sparql-prefixes",
                    )
                out.append(replace(t, kind="IRI", text="<" + known[prefix] + _PN_ESCAPE.sub(r"\1", local) + ">"))
                continue
            if form is None and t.keyword in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
                form = t.keyword
            out.append(t)
        if form not in ("SELECT", "ASK"):
            raise ShapeError(f"{where} must be a SELECT or ASK query", shape=shape)
        query = cls("".join(t.text for t in out), out, form)
        query._projection = query._top_projection()
        return query

    # -- structure -----------------------------------------------------------------

    def variables(self) -> set[str]:
        """Every variable name used in the query."""
        return {t.text[1:] for t in self.tokens if t.kind == "VAR"}

    def _top_projection(self) -> tuple[set[str], bool]:
        for i, t in enumerate(self.tokens):
            if t.keyword == "SELECT":
                names, star, _ = _projection(self.tokens, i)
                return names, star
        return set(), False

    def projects(self, name: str) -> bool:
        """Whether the top-level SELECT projects ``?name`` (plainly or with ``*``)."""
        names, star = self._projection
        return star or name in names

    def projected(self) -> set[str]:
        """The plainly projected variable names of the top-level SELECT."""
        return set(self._projection[0])

    def has_keyword(self, *keywords: str) -> bool:
        """Whether any of ``keywords`` appears as a keyword token."""
        wanted = {k.upper() for k in keywords}
        return any(t.keyword in wanted for t in self.tokens)

    def body(self) -> str:
        """The text between the braces of the query's outer group pattern (for ASK)."""
        start = next(i for i, t in enumerate(self.tokens) if t.text == "{")
        end = _matching(self.tokens, start)
        return "".join(t.text for t in self.tokens[start + 1 : end])

    def body_head_var(self) -> str | None:
        """The variable the outer group pattern opens with (its first token), if it is one."""
        start = next((i for i, t in enumerate(self.tokens) if t.text == "{"), None)
        if start is None:
            return None
        for t in self.tokens[start + 1 :]:
            if t.layout:
                continue
            return t.var
        return None

    def check_prebinding(self, prebound: set[str], *, shape: object, where: str) -> None:
        """Refuse what SHACL §5.6.1 forbids in queries with pre-bound variables."""
        toks = self.tokens
        for i, t in enumerate(toks):
            kw = t.keyword
            if kw in ("MINUS", "VALUES", "SERVICE"):
                raise ShapeError(f"{where} must not contain {kw}", shape=shape, rule=_RULE, link=_LINK)
            if kw == "AS":
                j = _skip_ws(toks, i + 1)
                if j < len(toks) and toks[j].kind == "VAR" and toks[j].text[1:] in prebound:
                    raise ShapeError(
                        f"{where} must not bind the pre-bound variable {toks[j].text} with AS",
                        shape=shape, rule=_RULE, link=_LINK,
                    )
        depth = 0
        first_select = True
        for i, t in enumerate(toks):
            if t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1
            elif t.keyword == "SELECT":
                if first_select and depth == 0:
                    first_select = False
                    continue
                names, star, group_start = _projection(toks, i)
                if star and group_start is not None:
                    names = _in_scope(toks, group_start)
                for var in sorted(prebound & {"this", "value"}):
                    if var in self.variables() and var not in names:
                        raise ShapeError(
                            f"a sub-query in {where} must project the pre-bound variable ${var}",
                            shape=shape, rule=_RULE, link=_LINK,
                        )

    # -- rewriting -------------------------------------------------------------------

    def render(
        self,
        *,
        consts: dict[str, str] | None = None,
        renames: dict[str, str] | None = None,
        body_only: bool = False,
    ) -> str:
        """The query text with variables replaced.

        ``consts`` maps variable names to SPARQL term text (a pre-bound value);
        in a projection the variable becomes ``(term AS ?__preboundN)``, after
        GROUP BY or ORDER BY ``(term)``, as the argument of BOUND the whole call
        becomes ``(true)``, elsewhere the bare term. ``renames`` maps variable
        names to other variable names. ``body_only`` returns only the content of
        the outer group pattern (used to nest an ASK query inside ``EXISTS``).
        """
        consts = consts or {}
        renames = renames or {}
        toks = self.tokens
        lo, hi = 0, len(toks)
        if body_only:
            lo = next(i for i, t in enumerate(toks) if t.text == "{")
            hi = _matching(toks, lo)
            lo += 1
        out: list[str] = []
        state = None  # "proj" | "mod"
        paren = 0
        aliases = 0
        i = lo
        while i < hi:
            t = toks[i]
            kw = t.keyword
            if kw == "SELECT":
                state, paren = "proj", 0
            elif kw == "WHERE" or t.text == "{":
                state = None
            elif kw in ("GROUP", "ORDER"):
                state, paren = "mod", 0
            elif kw in ("HAVING", "LIMIT", "OFFSET") or t.text == "}":
                state = None
            elif t.text == "(":
                paren += 1
            elif t.text == ")":
                paren -= 1
            if t.kind == "VAR":
                name = t.text[1:]
                if name in consts and _is_bound_call(toks, i):
                    # BOUND($x) with $x pre-bound is true (BOUND(<term>) would not parse).
                    while out and out[-1] != "(":
                        out.pop()
                    out.pop()  # "("
                    while out and not out[-1].strip():
                        out.pop()
                    out.pop()  # "BOUND"
                    out.append("(true)")
                    i = _skip_ws(toks, i + 1) + 1  # past ")"
                    continue
                if name in consts:
                    term = consts[name]
                    if state == "proj" and paren == 0:
                        aliases += 1  # a fresh alias: an outer SELECT may project the same name again
                        out.append(f"({term} AS ?__prebound{aliases})")
                    elif state == "mod" and paren == 0:
                        out.append(f"({term})")
                    else:
                        out.append(term)
                    i += 1
                    continue
                if name in renames:
                    out.append(renames[name])
                    i += 1
                    continue
            out.append(t.text)
            i += 1
        return "".join(out)


def _is_bound_call(tokens: list[Token], i: int) -> bool:
    """Whether the variable at ``i`` is the argument of ``BOUND( )``."""
    j = i - 1
    while j >= 0 and tokens[j].layout:
        j -= 1
    if j < 0 or tokens[j].text != "(":
        return False
    j -= 1
    while j >= 0 and tokens[j].layout:
        j -= 1
    k = _skip_ws(tokens, i + 1)
    return j >= 0 and tokens[j].keyword == "BOUND" and k < len(tokens) and tokens[k].text == ")"


def _skip_ws(tokens: list[Token], i: int) -> int:
    while i < len(tokens) and tokens[i].layout:
        i += 1
    return i


def _matching(tokens: list[Token], start: int) -> int:
    """Index of the brace closing the one at ``start``."""
    depth = 0
    for i in range(start, len(tokens)):
        if tokens[i].text == "{":
            depth += 1
        elif tokens[i].text == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ShapeError("unbalanced braces in a SPARQL query")


def _projection(tokens: list[Token], select: int) -> tuple[set[str], bool, int | None]:
    """Plain/aliased variables projected by the SELECT at ``select``, whether ``*``,
    and the index of the group's opening brace."""
    names: set[str] = set()
    star = False
    paren = 0
    i = select + 1
    while i < len(tokens):
        t = tokens[i]
        if paren == 0 and (t.keyword == "WHERE" or t.text == "{" or t.keyword == "FROM"):
            break
        if t.text == "(":
            paren += 1
        elif t.text == ")":
            paren -= 1
        elif t.text == "*" and paren == 0:
            star = True
        elif t.kind == "VAR" and paren == 0:
            names.add(t.text[1:])
        elif t.keyword == "AS":
            j = _skip_ws(tokens, i + 1)
            if j < len(tokens) and tokens[j].kind == "VAR":
                names.add(tokens[j].text[1:])
        i += 1
    while i < len(tokens) and tokens[i].text != "{":
        i += 1
    return names, star, (i if i < len(tokens) else None)


def _in_scope(tokens: list[Token], start: int) -> set[str]:
    """Variables of the group at ``start`` outside FILTER constraints (an
    approximation of SPARQL's in-scope variables, for ``SELECT *``)."""
    end = _matching(tokens, start)
    names: set[str] = set()
    i = start + 1
    while i < end:
        t = tokens[i]
        if t.keyword == "FILTER":
            i = _skip_constraint(tokens, i + 1, end)
            continue
        if t.kind == "VAR":
            names.add(t.text[1:])
        i += 1
    return names


def _skip_constraint(tokens: list[Token], i: int, end: int) -> int:
    i = _skip_ws(tokens, i)
    while i < end and tokens[i].kind in ("WORD", "IRI"):  # NOT EXISTS, function names
        i = _skip_ws(tokens, i + 1)
    if i < end and tokens[i].text in ("(", "{"):
        open_, close = tokens[i].text, ")" if tokens[i].text == "(" else "}"
        depth = 0
        while i < end:
            if tokens[i].text == open_:
                depth += 1
            elif tokens[i].text == close:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
    return i
