"""Views: the SPARQL templates in ``queries/``, run by name with bound parameters.

A template is one ``.rq`` file. Its header comment says what it answers; lines
starting ``#+ param`` declare its parameters::

    #+ param valid_at datetime optional  the valid time (default: now)

and a ``#+ bindings`` line inside the WHERE group marks where the parameters'
values go (several lines, when several sub-SELECTs need them: a sub-SELECT sees
no outer variable; each gets the same values). A parameter whose type is a list
of words, ``#+ param standing supported|fallen|unrecorded optional …``, is a
string that must be one of them. Values are parsed into RDF terms (an IRI must be an IRI, a datetime
an ``xsd:dateTime`` with a timezone) and written as a ``VALUES`` block of
serialized terms, so a hostile parameter can never change the query: it either
parses as one term or is refused. (Oxigraph's ``substitutions`` would be the
natural tool, but it only binds variables the SELECT clause projects.)

A template may hold two shapes of its query, for when an optional parameter is
given and for when it is not::

    #+ if subject
    ...lines used when `subject` is given...
    #+ else
    ...lines used without it...
    #+ end

Oxigraph plans a query from its text alone, so one text cannot be both a lookup
for one subject and a scan of a whole tenant; the block lets a template say
both. The marker lines are SPARQL comments, so the file stays one valid query
(run as is, it joins both shapes, which give the same rows); each shape must
hold at least one ``#+ bindings`` line.

``tenant`` is not a variable: it selects the dataset the query runs over, that
tenant's graph plus the shared default graph and the ontology graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from pyoxigraph import Literal, NamedNode, QueryBoolean, QuerySolutions, QueryTriples

from ..core import names
from ..core.errors import NotFoundError, UnreadableName
from ..core.prefixes import BUILT_IN
from ..core.resources import data_dir
from ..core.sparql import read_prologue
from ..core.terms import datetime_literal, parse_datetime

_PARAM = re.compile(r"^#\+\s*param\s+(\w+)\s+(\w+(?:\|\w+)*)(?:\s+(optional|required))?\s*(.*)$")
_BINDINGS = re.compile(r"^[ \t]*#\+[ \t]*bindings[ \t]*$", re.MULTILINE)
_BRANCH = re.compile(r"^[ \t]*#\+[ \t]*(?:if[ \t]+(\w+)|(else)|(end))[ \t]*$")
PARAM_TYPES = ("iri", "datetime", "string", "decimal", "integer")


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool
    description: str
    #: the values a ``string`` parameter may take (none: any)
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class View:
    """One template: its name, what it answers, its parameters and its text."""

    name: str
    description: str
    params: tuple[Param, ...]
    text: str
    path: Path = field(compare=False)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"view {self.name!r} has no parameter {name!r} (parameters: {known})")

    def text_for(self, given: Collection[str]) -> str:
        """The query text for a call giving the parameters named in ``given``: of each
        ``#+ if NAME`` block, the lines under ``if`` when NAME is given, else those
        under ``else`` (the marker lines are left out)."""
        return _resolved(self.text, frozenset(given), self.path)


@lru_cache(maxsize=256)
def _resolved(text: str, given: frozenset[str], path: Path) -> str:
    # A view runs in ~1.5 ms for one subject; resolving its blocks each time would add 20 µs.
    return _select_lines(text, given, path)


def _select_lines(text: str, given: Collection[str], path: Path) -> str:
    """``text`` with its ``#+ if`` blocks resolved for the parameters ``given``; ValueError
    (naming the file and line) for a block that is not closed, nested or stray."""
    kept: list[str] = []
    branch: str | None = None  # the parameter of the open block
    keep = True
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        m = _BRANCH.match(line)
        if m is None:
            if keep:
                kept.append(line)
            continue
        name, is_else, is_end = m.groups()
        if name is not None:
            if branch is not None:
                raise ValueError(f"{path}:{number}: '#+ if {name}' inside the '#+ if {branch}' block")
            branch, keep = name, name in given
        elif branch is None:
            raise ValueError(f"{path}:{number}: '#+ {'else' if is_else else 'end'}' without '#+ if'")
        elif is_else:
            keep = branch not in given
        else:
            branch, keep = None, True
    if branch is not None:
        raise ValueError(f"{path}: the '#+ if {branch}' block has no '#+ end'")
    return "".join(kept)


def _read_view(path: Path) -> View:
    text = path.read_text(encoding="utf-8")
    params: list[Param] = []
    summary = ""
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        m = _PARAM.match(line)
        if m:
            name, kind, need, desc = m.groups()
            choices = tuple(kind.split("|")) if "|" in kind else ()
            if choices:
                kind = "string"
            if kind not in PARAM_TYPES:
                raise ValueError(f"{path}: parameter {name} has unknown type {kind!r}")
            params.append(Param(name, kind, need == "required", desc.strip(), choices))
        elif not summary and line.strip("# "):
            summary = line.lstrip("# ").split(":", 1)[-1].strip()
    data_params = [p for p in params if p.name != "tenant"]
    branches = sorted({m.group(1) for m in map(_BRANCH.match, text.splitlines()) if m and m.group(1)})
    optional = {p.name for p in data_params if not p.required}
    for name in branches:
        if name not in optional:
            raise ValueError(f"{path}: '#+ if {name}' names no optional parameter of the view")
    for given in _subsets(branches):
        markers = len(_BINDINGS.findall(_select_lines(text, given, path)))
        if data_params and not markers:
            shape = f" (given: {', '.join(given) or 'none of ' + ', '.join(branches)})" if branches else ""
            raise ValueError(f"{path}: declares parameters, so needs a '#+ bindings' line{shape}; found none")
    return View(path.stem, summary, tuple(params), text, path)


def _subsets(names: list[str]) -> list[tuple[str, ...]]:
    """Every choice of given parameters among ``names``: each shape of a template."""
    out: list[tuple[str, ...]] = [()]
    for name in names:
        out += [s + (name,) for s in out]
    return out


@cache
def _catalogue(folder: Path) -> dict[str, View]:
    return {p.stem: _read_view(p) for p in sorted(folder.glob("*.rq"))}


def list_views(folder: Path | None = None) -> list[View]:
    """Every template, by name."""
    return list(_catalogue(folder or data_dir("queries")).values())


def get_view(name: str, folder: Path | None = None) -> View:
    views = _catalogue(folder or data_dir("queries"))
    if name not in views:
        raise NotFoundError(f"no view named {name!r}; available: {', '.join(views) or 'none'}")
    return views[name]


def parse_value(param: Param, raw: str, prefixes: Mapping[str, str] | None = None,
                exists: Callable[[str], bool] | None = None) -> NamedNode | Literal:
    """A parameter value from text into one RDF term, or ValueError. An IRI is read as every
    IRI argument is (:func:`memkg.core.names.read_iri`: ``ex:Lia`` with one of ``prefixes``,
    ``<iri>``, a bare ``https://…``, ``‹iri›``; ``exists`` tells an ambiguous compact IRI)."""
    if param.choices and raw not in param.choices:
        raise ValueError(f"parameter {param.name}={raw!r} is not one of {', '.join(param.choices)}")
    try:
        if param.type == "iri":
            return names.read_iri(raw, prefixes or BUILT_IN, what=f"parameter {param.name}", exists=exists)
        if param.type == "datetime":
            return datetime_literal(parse_datetime(raw))
        if param.type == "decimal":
            return Literal(str(float(raw)), datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal"))
        if param.type == "integer":
            return Literal(str(int(raw)), datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
        return Literal(raw)
    except UnreadableName:
        raise
    except ValueError as err:
        raise ValueError(f"parameter {param.name}={raw!r} is not a valid {param.type}: {err}") from None


@dataclass(frozen=True)
class BoundQuery:
    """A view ready to run: query text with its VALUES block, and its dataset."""

    text: str
    tenant: NamedNode | None
    #: the values of the view's IRI parameters (the tenant aside): what must be in its scope
    iris: tuple[NamedNode, ...] = ()


def bind(view: View, params: dict[str, str], *, prefixes: Mapping[str, str] | None = None,
         exists: Callable[[str], bool] | None = None) -> BoundQuery:
    """Bind text parameters to ``view``; unknown, missing or malformed ones raise ValueError.

    IRIs may be prefixed names: with the view's own ``PREFIX`` lines, else ``prefixes``
    (a store's, :attr:`memkg.store.MemoryStore.prefixes`), else memkg's; ``exists`` (a store's
    :meth:`~memkg.store.MemoryStore.mentions`) refuses a compact IRI that could mean several nodes."""
    tenant: NamedNode | None = None
    terms: dict[str, NamedNode | Literal] = {}
    known = {**BUILT_IN, **(prefixes or {}), **(read_prologue(view.text).prefixes or {})}
    for name, raw in params.items():
        p = view.param(name)
        value = parse_value(p, raw, known, exists)
        if name == "tenant":
            if not isinstance(value, NamedNode):
                raise ValueError(f"{view.path}: parameter tenant names a graph, so its type must be iri, not {p.type}")
            tenant = value
        else:
            terms[name] = value
    for p in view.params:
        if p.required and p.name not in params:
            raise ValueError(f"view {view.name!r} needs parameter {p.name!r}: {p.description}")
    data_params = [p for p in view.params if p.name != "tenant"]
    text = view.text_for(terms)
    if data_params:
        names = " ".join(f"?{p.name}" for p in data_params)
        row = " ".join(str(terms[p.name]) if p.name in terms else "UNDEF" for p in data_params)
        text = _BINDINGS.sub(lambda _: f"  VALUES ({names}) {{ ({row}) }}", text)
    return BoundQuery(text, tenant, tuple(v for v in terms.values() if isinstance(v, NamedNode)))


def require_graph(tenant: NamedNode, known: Collection[NamedNode]) -> None:
    """NotFoundError naming ``tenant`` and the ``known`` graphs when ``tenant`` is not one of them:
    a view over a graph that does not exist would answer with nothing, silently."""
    if tenant not in known:
        names = ", ".join(str(g) for g in sorted(known, key=str) if g.value != "https://w3id.org/memkg") or "none"
        raise NotFoundError(f"no graph named {tenant} (known: {names})")




def solutions(result: QuerySolutions | QueryBoolean | QueryTriples, *, what: str = "the query") -> QuerySolutions:
    """The rows of a SELECT's result (a view's, say); :class:`TypeError` for an ASK or CONSTRUCT."""
    if not isinstance(result, QuerySolutions):
        raise TypeError(f"{what} is not a SELECT query: it has no rows")
    return result
