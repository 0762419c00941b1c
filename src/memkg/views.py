"""Views: the SPARQL templates in ``queries/``, run by name with bound parameters.

A template is one ``.rq`` file. Its header comment says what it answers; lines
starting ``#+ param`` declare its parameters::

    #+ param valid_at datetime optional  the valid time (default: now)

and a ``#+ bindings`` line inside the WHERE group marks where the parameters'
values go. Values are parsed into RDF terms (an IRI must be an IRI, a datetime
an ``xsd:dateTime`` with a timezone) and written as a ``VALUES`` block of
serialized terms, so a hostile parameter can never change the query: it either
parses as one term or is refused. (Oxigraph's ``substitutions`` would be the
natural tool, but it only binds variables the SELECT clause projects.)

``tenant`` is not a variable: it selects the dataset the query runs over, that
tenant's graph plus the shared default graph and the ontology graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path

from pyoxigraph import DefaultGraph, Literal, NamedNode

from .errors import NotFoundError
from .model import datetime_literal
from .resources import data_dir

_PARAM = re.compile(r"^#\+\s*param\s+(\w+)\s+(\w+)(?:\s+(optional|required))?\s*(.*)$")
_BINDINGS = re.compile(r"^[ \t]*#\+[ \t]*bindings[ \t]*$", re.MULTILINE)
PARAM_TYPES = ("iri", "datetime", "string", "decimal", "integer")


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool
    description: str


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
            if kind not in PARAM_TYPES:
                raise ValueError(f"{path}: parameter {name} has unknown type {kind!r}")
            params.append(Param(name, kind, need == "required", desc.strip()))
        elif not summary and line.strip("# "):
            summary = line.lstrip("# ").split(":", 1)[-1].strip()
    data_params = [p for p in params if p.name != "tenant"]
    if data_params and not _BINDINGS.search(text):
        raise ValueError(f"{path}: declares parameters but has no '#+ bindings' line")
    return View(path.stem, summary, tuple(params), text, path)


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


def parse_value(param: Param, raw: str) -> NamedNode | Literal:
    """A parameter value from text into one RDF term, or ValueError."""
    try:
        if param.type == "iri":
            return NamedNode(raw)
        if param.type == "datetime":
            return datetime_literal(datetime.fromisoformat(raw.replace("Z", "+00:00")))
        if param.type == "decimal":
            return Literal(str(float(raw)), datatype=NamedNode("http://www.w3.org/2001/XMLSchema#decimal"))
        if param.type == "integer":
            return Literal(str(int(raw)), datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
        return Literal(raw)
    except ValueError as err:
        raise ValueError(f"parameter {param.name}={raw!r} is not a valid {param.type}: {err}") from None


@dataclass(frozen=True)
class BoundQuery:
    """A view ready to run: query text with its VALUES block, and its dataset."""

    text: str
    tenant: NamedNode | None


def bind(view: View, params: dict[str, str]) -> BoundQuery:
    """Bind text parameters to ``view``; unknown, missing or malformed ones raise ValueError."""
    tenant: NamedNode | None = None
    terms: dict[str, NamedNode | Literal] = {}
    for name, raw in params.items():
        p = view.param(name)
        value = parse_value(p, raw)
        if name == "tenant":
            tenant = value  # type: ignore[assignment]
        else:
            terms[name] = value
    for p in view.params:
        if p.required and p.name not in params:
            raise ValueError(f"view {view.name!r} needs parameter {p.name!r}: {p.description}")
    data_params = [p for p in view.params if p.name != "tenant"]
    text = view.text
    if data_params:
        names = " ".join(f"?{p.name}" for p in data_params)
        row = " ".join(str(terms[p.name]) if p.name in terms else "UNDEF" for p in data_params)
        text = _BINDINGS.sub(lambda _: f"  VALUES ({names}) {{ ({row}) }}", text, count=1)
    return BoundQuery(text, tenant)


def dataset_for(tenant: NamedNode | None, ontology_graph: NamedNode) -> dict[str, object]:
    """Query options giving a view its dataset: one tenant (plus shared graphs), or everything."""
    if tenant is None:
        return {"use_default_graph_as_union": True}
    return {"default_graph": [tenant, DefaultGraph(), ontology_graph]}
