"""Every parameter of every endpoint route reaches the library: a differential test on a real server.

The parameters are collected from the routes' own tables: the handler's route table
(``/recall?q=…&tenant=…``), the pictures route's, the views' declared parameters
(``/views/NAME`` and ``/views/NAME/query`` take each view's) and the SPARQL 1.1 Protocol's for
``/sparql``. Each is sent without and with a value that changes the answer, and the answer with
it must be the library's given the same value, on a store holding the same data: recall's
answer, a view's rows, a picture, a query's rows over the dataset the parameters name. A
parameter the server drops or mangles gives the answer without it, which is another answer. A
new parameter fails here until it has a value below, or a reason in ``NO_EFFECT``.

The data (:mod:`tests.support.parameters`): two tenants with the same IRIs and different facts,
claims valid and known at different times, a dozen messages for ``k``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from pyoxigraph import NamedNode, QueryResultsFormat

from memkg import MemoryStore
from memkg.adapters import pictures
from memkg.adapters.endpoint import handler, pictures_route
from memkg.core.terms import parse_datetime
from memkg.recall import answer
from memkg.store import views
from tests.support.endpoint_server import Server
from tests.support.parameters import A, B, EX, FEBRUARY, JANUARY, MAY, two_tenants

pytestmark = pytest.mark.slow

RESULTS = {"Accept": "application/sparql-results+json"}
EVERY_GRAPH = "SELECT ?c ?o WHERE { GRAPH ?g { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ?s ?p ?o )>> } }"
DEFAULT_GRAPH = "SELECT ?c ?o WHERE { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ?s ?p ?o )>> }"


def _documented(doc: str, path: str) -> set[str]:
    """The query parameters a route table's row for ``path`` shows (``?q=…&tenant=…``, ``[&format=…]``)."""
    row = next(line for line in doc.splitlines() if f"``{path}" in line or f"``GET {path}" in line)
    return set(re.findall(r"[?&\[]([a-z_]+)=", row))


def _view_params(route: str) -> set[tuple[str, str]]:
    return {(f"{route.replace('NAME', v.name)}", p.name) for v in views.list_views() for p in v.params}


def parameters() -> set[tuple[str, str]]:
    found = {("/recall", p) for p in _documented(handler.__doc__ or "", "/recall")}
    found |= {("/pictures/KIND", p) for p in _documented(pictures_route.__doc__ or "", "/pictures/KIND")}
    found |= _view_params("/views/NAME") | _view_params("/views/NAME/query")
    # the SPARQL 1.1 Protocol's query parameters, and the override of the Accept header
    found |= {("/sparql", p) for p in ("query", "default-graph-uri", "named-graph-uri", "format")}
    return found


#: Each route's request without the parameter under test.
BASE: dict[str, dict[str, Any]] = {
    "/recall": {"q": "Lia likes green tea", "tenant": A, "k": "3"},
    "/pictures/KIND": {"claim": EX + "c2", "tenant": A, "format": "json"},  # a history: its statements differ by tenant
    "/sparql": {"query": EVERY_GRAPH},
}
for _view in views.list_views():
    _needs = {"claim": EX + "c2", "source": EX + "m0", "known_at": MAY, "valid_at": MAY}
    BASE[f"/views/{_view.name}"] = {"tenant": A, **{p.name: _needs[p.name] for p in _view.params if p.required}}
    BASE[f"/views/{_view.name}/query"] = BASE[f"/views/{_view.name}"]
#: What else a request needs for a parameter to matter: A's contradiction holds only in January;
#: the protocol's default graph is read by a query without GRAPH.
CONTEXT: dict[tuple[str, str], dict[str, Any]] = {
    ("/views/contradictions", "tenant"): {"valid_at": JANUARY},
    ("/sparql", "default-graph-uri"): {"query": DEFAULT_GRAPH},
}

#: An answer-changing value of each parameter (a view's parameter: by its name, for every view).
VARIED: dict[tuple[str, str], Any] = {
    ("/recall", "q"): "espresso coffee", ("/recall", "tenant"): B, ("/recall", "k"): "8",
    ("/recall", "valid_at"): JANUARY, ("/recall", "known_at"): FEBRUARY, ("/recall", "packet"): "true",
    ("/pictures/KIND", "claim"): EX + "c3", ("/pictures/KIND", "tenant"): B, ("/pictures/KIND", "format"): "dot",
    ("/sparql", "query"): DEFAULT_GRAPH, ("/sparql", "default-graph-uri"): B,
    ("/sparql", "named-graph-uri"): A, ("/sparql", "format"): "csv",
}
VIEW_VALUES = {"tenant": B, "subject": EX + "aurora", "valid_at": JANUARY, "known_at": FEBRUARY,
               "claim": EX + "c3", "source": EX + "m1", "standing": "supported"}
for _route, _name in _view_params("/views/NAME") | _view_params("/views/NAME/query"):
    VARIED[(_route, _name)] = VIEW_VALUES[_name]

#: Parameters with no value that changes the answer, and why.
NO_EFFECT: dict[tuple[str, str], str] = {
    (f"/views/{v.name}/query", "tenant"): "the tenant is the dataset the view runs over, not part of its SPARQL text "
                                          "(the text's first line only repeats it)"
    for v in views.list_views()
}


def test_every_parameter_has_an_answer_changing_value_or_a_reason() -> None:
    found = parameters()
    assert {("/recall", "known_at"), ("/recall", "k"), ("/pictures/KIND", "tenant"), ("/views/audit", "known_at")} <= found
    missing = found - set(VARIED) - set(NO_EFFECT)
    assert not missing, f"parameters without a value here: {sorted(missing)}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, MemoryStore]]:
    folder = tmp_path_factory.mktemp("parameters")
    server = Server(two_tenants(folder / "store"), "--timeout", "60")
    try:
        yield server, two_tenants()
    finally:
        server.close()


def _route(route: str) -> str:
    return "/pictures/history" if route == "/pictures/KIND" else route


def _ask(server: Server, route: str, params: dict[str, Any]) -> Any:
    headers = {} if route.startswith("/pictures") or route.endswith("/query") or "format" in params else RESULTS
    answer_ = server.request("GET", _route(route) + "?" + urlencode(params), headers=headers or {"Accept": "application/json"})
    assert answer_.status == 200, f"GET {route} {params}: {answer_.status} {answer_.text[:500]}"
    if route.endswith("/query"):
        return _normal_text(answer_.text)
    if answer_.content_type.startswith("application/"):
        return _comparable(route, answer_.json())
    return _lines(answer_.text) if answer_.content_type.startswith("text/csv") else answer_.text


def _lines(csv: str) -> list[str]:
    """A CSV table's header, then its rows in order of their text (a store's order is its own)."""
    head, *rows = csv.splitlines()
    return [head, *sorted(rows)]


def _listed(params: dict[str, Any], name: str) -> list[str]:
    return [params[name]] if name in params else []


def _normal_text(text: str) -> str:
    """A view's SPARQL text without its first line (which repeats the parameters as given)."""
    return text.split("\n", 1)[1]


def _comparable(route: str, data: Any) -> Any:
    if route == "/recall":  # hits of equal score may come in either order from two indexes
        return {"hits": sorted((h["node"], h["status"], h["text"]) for h in data["hits"]), "packet": "packet" in data}
    if "head" in data and "results" in data:
        names = data["head"]["vars"]
        return sorted(json.dumps([row.get(n) for n in names]) for row in data["results"]["bindings"])
    return data


def _library(store: MemoryStore, route: str, params: dict[str, Any]) -> Any:
    """The library's answer to the request ``params`` make."""
    if route == "/recall":
        found = answer(store, params["q"], tenant=params.get("tenant"), k=int(params.get("k", 10)),
                       valid_at=parse_datetime(params["valid_at"]) if "valid_at" in params else None,
                       known_at=parse_datetime(params["known_at"]) if "known_at" in params else None,
                       packet=params.get("packet") == "true")
        return _comparable(route, found.to_dict())
    if route == "/pictures/KIND":
        drawing = pictures.picture(store, "history", params["claim"], tenant=params.get("tenant"))
        text = pictures.render(drawing, params.get("format", "svg"))
        return json.loads(text) if params.get("format") == "json" else text
    if route == "/sparql":
        dataset: dict[str, Any] = {}
        if "default-graph-uri" in params or "named-graph-uri" in params:  # the protocol: either names the whole dataset
            dataset = {"default_graph": [NamedNode(g) for g in _listed(params, "default-graph-uri")],
                       "named_graphs": [NamedNode(g) for g in _listed(params, "named-graph-uri")]}
        results = store.query(params["query"], **dataset)
        if params.get("format") == "csv":
            return _lines(results.serialize(format=QueryResultsFormat.CSV).decode())
        return _comparable(route, json.loads(results.serialize(format=QueryResultsFormat.JSON)))
    name = route.split("/")[2]
    bound = views.bind(views.get_view(name), params, prefixes=store.prefixes)
    if route.endswith("/query"):
        return _normal_text("# first line\n" + "".join(l for l in bound.text.splitlines(keepends=True)
                                                       if not l.startswith("#")).lstrip("\n"))
    results = store.view(name, params)
    return _comparable(route, json.loads(results.serialize(format=QueryResultsFormat.JSON)))


def _cases() -> list[tuple[str, str]]:
    cases = []
    for route, name in sorted(VARIED):
        if (route, name) in NO_EFFECT:
            continue
        cases.append((route, name))
    return cases


@pytest.mark.parametrize(("route", "name"), _cases(), ids=[f"{r}-{n}" for r, n in _cases()])
def test_each_parameter_gives_the_librarys_answer(served: tuple[Server, MemoryStore], route: str, name: str) -> None:
    server, store = served
    without = {**BASE[route], **CONTEXT.get((route, name), {})}
    given = {**without, name: VARIED[(route, name)]}
    ours, before = _ask(server, route, given), _ask(server, route, without)
    assert ours != before, f"GET {route}: {name}={VARIED[(route, name)]!r} does not change the answer; choose a value that does"
    assert ours == _library(store, route, given), f"GET {route} does not answer as the library given {name}"
