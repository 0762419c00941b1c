"""Tenant scope through the adapters, generated from their own tables.

The store of tests/store/test_tenant_scope.py (two tenants sharing IRIs, tenant B linking to A's
names), with an edge property in each tenant, on disk. Then, for tenant A:

- every subcommand of the CLI, read from its argparse parser (tags' actions too), each format
  it offers, in process (a write on a fresh copy of the store); a read must also answer the
  same as on a store holding tenant A alone, so no count of B's shows either;
- every route of the endpoint, read from the handler's route table, against one real
  ``memkg serve`` with a token for tenant A only;
- every tool the MCP server registers, against one real ``memkg mcp --tenant A`` over stdio
  (the SDK's client), reads first, then the writes.

Nothing of tenant B (its graph, a B-only node or literal) may appear. A new subcommand, route
or tool is called without editing this file; one it cannot fill fails, naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import anyio
import pytest

from memkg import MemoryStore
from memkg.adapters.cli import main
from memkg.store import views
from memkg.tags import Tags

from tests.support.commands import subcommands
from tests.support.endpoint_server import Server
from tests.support.mcp_servers import stdio_client
from tests.store.test_tenant_scope import A_ONLY, B_ONLY, EX, GRANTS, PRELUDE, SECRET, SHARED, A, B

pytestmark = pytest.mark.slow

CLAIM, MESSAGE = EX + "c", EX + "m"
QUESTION = "Lia drinks tea coffee overrated"


def _leaks(text: str) -> list[str]:
    return [leak for leak in (SECRET, B) if leak in text]


def _make(path: Path, *, with_b: bool) -> Path:
    with MemoryStore(path, validation=None) as store:
        store.load_data(PRELUDE + SHARED % "(a)" + A_ONLY, format="turtle", graph=A)
        Tags(store, graph=A).add(CLAIM, ["mood:calm"])
        if with_b:
            store.load_data(PRELUDE + SHARED % SECRET + B_ONLY, format="turtle", graph=B)
            Tags(store, graph=B).add(CLAIM, [f"mood:{SECRET}"])
            Tags(store, graph=B).add(EX + f"{SECRET}Claim", [f"mood:{SECRET}"])
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("scope")
    return {"both": _make(folder / "both", with_b=True), "a": _make(folder / "a", with_b=False), "folder": folder}


# -- the CLI ---------------------------------------------------------------------------------

#: Subcommands that take no tenant, and why; every other one must take ``--tenant``.
NOT_SCOPED = {
    "query": "SPARQL over the whole store: the store's owner asks (tenants are confined by the endpoint)",
    "compact": "the store on disk, whole",
    "stats": "counts per graph of the whole store, by design",
    "validate": "files, or the whole store",
    "index": "the derived indexes of the whole store",
    "policy": "a policy file, not the store",
    "serve": "a server: its routes are checked below",
    "mcp": "a server: its tools are checked below",
}


def _files(folder: Path) -> dict[str, Path]:
    turtle = folder / "more.ttl"
    turtle.write_text(PRELUDE + 'ex:more a mem:Message ; mem:content "more for a" ; mem:eventId "9" .\n')
    lines = folder / "more.jsonl"
    lines.write_text(json.dumps({"content_kind": "message", "event_id": "e9", "content": "more for a"}) + "\n")
    return {"turtle": turtle, "jsonl": lines}


def _values(folder: Path) -> dict[str, list[str]]:
    """The text of each positional argument or required option, by its ``dest``."""
    files = _files(folder)
    return {
        "claim": [CLAIM], "claims": [CLAIM], "end": [CLAIM], "source": [MESSAGE], "targets": [CLAIM],
        "files": [str(files["turtle"])], "file": [str(files["jsonl"])],
        "query": [QUESTION], "reason": ["consent revoked"], "ask": ["ASK { ?c a mem:Claim }"],
        "from_time": ["2000-01-01T00:00:00Z"], "to_time": ["2100-01-01T00:00:00Z"],
        "record": [CLAIM], "records": [CLAIM, MESSAGE], "props": ["mood:calm"], "label": ["mood"], "values": [],
        "value": ["calm"], "a": [CLAIM], "b": [MESSAGE], "new": [CLAIM], "old": [MESSAGE],
    }


#: The value of a view's parameter, by name (``tenant`` is the option).
VIEW_PARAMS = {"claim": CLAIM, "subject": EX + "lia", "source": MESSAGE, "known_at": "2100-01-01T00:00:00Z",
               "valid_at": "2100-01-01T00:00:00Z", "standing": "unrecorded"}


COMMANDS = list(subcommands())


def _writes(parser: argparse.ArgumentParser) -> bool:
    """Whether the command writes: it names the graph it writes into (``--tenant``/``--graph``
    landing in ``graph``), except export, which reads one graph out."""
    return any(a.dest == "graph" for a in parser._actions) and parser.prog.split()[-1] != "export"


#: Options a command needs though argparse does not require them (erase --dry-run goes without a reason).
NEEDED = {("erase",): ("--reason", "consent revoked")}


def _invocations(path: tuple[str, ...], parser: argparse.ArgumentParser, folder: Path) -> Iterator[list[str]]:
    """Every call of one subcommand worth making for tenant A: each format it offers, each view."""
    values = _values(folder)
    argv = list(path)
    tenant = next((a for a in parser._actions if "--tenant" in a.option_strings), None)
    assert tenant is not None, f"memkg {' '.join(path)} takes no --tenant: give it one, or say why in NOT_SCOPED"
    for action in parser._actions:
        if action.option_strings and not action.required:
            continue
        if action.option_strings and "--tenant" in action.option_strings:
            continue
        if action.dest in ("help", "name"):
            continue
        assert action.dest in values, f"memkg {' '.join(path)}: add a value for {action.dest!r} to _values"
        given = values[action.dest]
        argv += ([action.option_strings[0]] if action.option_strings else []) + given
    argv += [*NEEDED.get(path, ()), "--tenant", A]
    # a write's --format is its input's (load): a write is called once
    formats = (None if _writes(parser) else next((a.choices for a in parser._actions if a.dest == "format"), None)) or [None]
    targets: list[list[str]] = [[]]
    if path == ("view",):
        targets = []
        for view in views.list_views():
            unknown = [p.name for p in view.params if p.name != "tenant" and p.name not in VIEW_PARAMS]
            assert not unknown, f"view {view.name}: add a value for {unknown} to VIEW_PARAMS"
            targets.append([view.name, *(f"--{p.name}={VIEW_PARAMS[p.name]}" for p in view.params if p.name != "tenant")])
    for target in targets:
        for fmt in formats:
            yield [*argv[:1], *target, *argv[1:], *(["--format", fmt] if fmt else [])]


def _run(store: Path, argv: list[str]) -> tuple[int, str]:
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()  # some formats write bytes
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--store", str(store), *argv])
        except SystemExit as exit:  # argparse's usage errors
            code = int(exit.code or 0)
    out.flush()
    return code, out.buffer.getvalue().decode("utf-8") + err.getvalue()


#: What differs between two runs of one read: times and the identifiers memkg mints.
_VOLATILE = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?|urn:uuid:[0-9a-f-]+|[0-9a-f]{32}")


def _same(text: str) -> list[str]:
    """The lines of an answer, volatile parts blanked, in order: quads and unordered rows come in
    storage order, which other tenants' data moves."""
    return sorted(_VOLATILE.sub("…", text).splitlines())


SCOPED = [(path, parser) for path, parser in COMMANDS if path[0] not in NOT_SCOPED]


def test_every_subcommand_is_scoped_or_says_why_not() -> None:
    top = {path[0] for path, _ in COMMANDS}
    assert set(NOT_SCOPED) <= top, f"NOT_SCOPED names commands memkg has no more: {set(NOT_SCOPED) - top}"
    assert {("support",), ("lineage",), ("recall",), ("tags", "values"), ("export",)} <= {p for p, _ in SCOPED}


@pytest.mark.parametrize(("path", "parser"), SCOPED, ids=[" ".join(p) for p, _ in SCOPED])
def test_no_subcommand_for_tenant_a_shows_anything_of_tenant_b(stores: dict[str, Path], path: tuple[str, ...],
                                                               parser: argparse.ArgumentParser,
                                                               tmp_path: Path) -> None:
    writes, answered = _writes(parser), 0
    for argv in _invocations(path, parser, stores["folder"]):
        if writes:  # each write on its own copy, so one never changes what the next one sees
            store = tmp_path / "copy"
            shutil.rmtree(store, ignore_errors=True)
            shutil.copytree(stores["both"], store)
        else:
            store = stores["both"]
        code, text = _run(store, argv)
        if code == 2 and "use --format" in text:  # a format this answer does not come in (a view's)
            assert not _leaks(text), f"memkg {' '.join(argv)}: {text}"
            continue
        answered += 1
        assert code == 0, f"memkg {' '.join(argv)} failed ({code}): {text[-2000:]}"
        assert not _leaks(text), f"memkg {' '.join(argv)} for tenant A shows tenant B's {_leaks(text)}: {text[:2000]}"
        if not writes:
            alone = _run(stores["a"], argv)
            assert _same(text) == _same(alone[1]), (
                f"memkg {' '.join(argv)} for tenant A answers differently when tenant B is in the store")
    assert answered, f"memkg {' '.join(path)}: no call answered"


# -- the endpoint: one real server, a token for tenant A only ----------------------------------

TOKEN = "token-for-tenant-a"


def _routes() -> list[tuple[str, str]]:
    """Every (method, path) the handler serves: its table of fixed paths, and the paths its
    module's route table documents beside them (``/views/NAME``, ``/pictures/KIND``)."""
    from memkg.adapters.endpoint import handler

    routes = {(m, p) for p, methods in handler.ALLOWED.items() for m in methods}
    for row in (handler.__doc__ or "").splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("``/"):
            for path in re.findall(r"``(/[^`]*)``", cells[0]):
                routes |= {(m.strip(), path) for m in cells[1].split(",")}
    # reads first, then the writes, a graph put before it is deleted
    return sorted(routes, key=lambda r: (["GET", "HEAD", "POST", "PUT", "DELETE"].index(r[0]), r[1]))


def _requests(method: str, path: str) -> list[tuple[str, str, bytes | None, dict[str, str]]]:
    """The requests that exercise one route for tenant A: (method, target, body, headers)."""
    from memkg.adapters import pictures

    every_graph = "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    if path == "/views/NAME" or path == "/views/NAME/query":
        return [(method, f"/views/{v.name}{path[len('/views/NAME'):]}?" + urlencode(
            {p.name: VIEW_PARAMS.get(p.name, A) for p in v.params}), None, {}) for v in views.list_views()]
    if path == "/pictures/KIND":
        return [(method, f"/pictures/{kind}?" + urlencode({"claim": CLAIM, "tenant": A, "format": fmt}), None, {})
                for kind in pictures.KINDS for fmt in pictures.FORMATS]
    table: dict[tuple[str, str], list[tuple[str, str, bytes | None, dict[str, str]]]] = {
        ("GET", "/"): [("GET", "/", None, {})], ("HEAD", "/"): [("HEAD", "/", None, {})],
        ("GET", "/health"): [("GET", "/health", None, {})], ("HEAD", "/health"): [("HEAD", "/health", None, {})],
        ("GET", "/sparql"): [("GET", "/sparql?" + urlencode({"query": every_graph}), None, {})],
        ("POST", "/sparql"): [("POST", "/sparql", urlencode({"query": every_graph}).encode(), form)],
        ("GET", "/query"): [("GET", "/query?" + urlencode({"query": every_graph}), None, {})],
        ("POST", "/query"): [("POST", "/query", every_graph.encode(), {"Content-Type": "application/sparql-query"})],
        ("GET", "/store"): [("GET", f"/store?graph={quote(A)}", None, {})],  # a tenant's token reads one graph
        ("HEAD", "/store"): [("HEAD", f"/store?graph={quote(A)}", None, {})],
        ("GET", "/views"): [("GET", "/views", None, {})],
        ("GET", "/recall"): [("GET", "/recall?" + urlencode({"q": QUESTION, "tenant": A, "k": "50", "packet": "true"}), None, {})],
        ("GET", "/pictures"): [("GET", "/pictures", None, {})],
        # the writes: their answers (and the counts in their headers) are A's alone
        ("POST", "/update"): [("POST", "/update", b"DELETE WHERE { GRAPH ?g { ?s <urn:x:never> ?o } }",
                               {"Content-Type": "application/sparql-update"})],
        ("POST", "/store"): [("POST", f"/store?graph={quote(A)}", b"<urn:x:s> <urn:x:p> <urn:x:o> .",
                              {"Content-Type": "application/n-triples"})],
        ("PUT", "/store"): [("PUT", "/store?graph=urn:x:a-scratch", b"<urn:x:s> <urn:x:p> <urn:x:o> .",
                             {"Content-Type": "application/n-triples"})],
        ("DELETE", "/store"): [("DELETE", "/store?graph=urn:x:a-scratch", None, {})],
    }
    assert (method, path) in table, f"route {method} {path}: add its requests to _requests"
    return table[(method, path)]


def test_the_routes_are_found() -> None:
    assert {("GET", "/recall"), ("GET", "/views/NAME"), ("GET", "/pictures/KIND"), ("POST", "/update")} <= set(_routes())


#: The routes that take a ``tenant``: the only ones a token for every tenant is confined by.
TENANT_ROUTES = ("/views/", "/recall", "/pictures/")


def _tenant_b(target: str) -> str:
    return target.replace(quote(A, safe=""), quote(B, safe=""))


@pytest.mark.parametrize("kind", sorted(GRANTS))
def test_no_route_of_a_real_server_shows_tenant_a_anything_of_tenant_b(stores: dict[str, Path], kind: str) -> None:
    """Every kind of token: read-only or writing, for tenant A alone, for A and B, or none (a
    server without tokens). A token for A alone is confined on every route, and refused tenant B
    where a route names one; the others ask for tenant A on the routes that take a tenant (the
    other routes show them B's graph, by design)."""
    tenants, write = GRANTS[kind]
    alone = tenants is not None and B not in tenants
    folder = stores["folder"]
    name = kind.replace(" ", "-")
    store = folder / f"served-{name}"
    shutil.copytree(stores["both"], store)
    options: list[str] = []
    auth: dict[str, str] = {}
    if tenants is not None:
        tokens = folder / f"tokens-{name}.json"
        tokens.write_text(json.dumps({TOKEN: {"tenants": [*sorted(tenants), "urn:x:a-scratch"], "write": write}}))
        options, auth = ["--tokens", str(tokens)], {"Authorization": f"Bearer {TOKEN}"}
    server = Server(store, *options)
    try:
        for method, path in _routes():
            if method in ("POST", "PUT", "DELETE") and path in ("/update", "/store") and not write:
                continue
            for verb, target, body, headers in _requests(method, path):
                scoped = target.startswith(TENANT_ROUTES)
                if not alone and not scoped:
                    continue
                answer = server.request(verb, target, body, {**headers, **auth})
                text = answer.text + json.dumps(answer.headers)
                assert answer.status < 300, f"{kind}: {verb} {target}: {answer.status} {answer.text[:1000]}"
                assert not _leaks(text), f"{kind}: {verb} {target} for tenant A shows tenant B's {_leaks(text)}: {text[:2000]}"
                if "memkg-removed" in answer.headers and path == "/update":
                    assert answer.headers["memkg-removed"] in ("0", ""), f"{verb} {target} counts B's quads"
                if alone and scoped and verb == "GET":
                    refused = server.request(verb, _tenant_b(target), body, {**headers, **auth})
                    assert refused.status == 403, f"{kind}: {verb} {_tenant_b(target)}: {refused.status}, not 403"
                    assert not _leaks(refused.text.replace(B, "")), f"{kind}: the refusal shows B's data"
    finally:
        server.close()


# -- the MCP server: one real server over stdio, confined to tenant A --------------------------

#: Arguments of the tools, by parameter name (a tool's ``tenant`` is left to the connection's).
TOOL_ARGUMENTS: dict[str, Any] = {
    "query": QUESTION, "claim": CLAIM, "valid_at": "2100-01-01T00:00:00Z", "known_at": "2100-01-01T00:00:00Z",
    "content": "a new word for a", "id": "urn:x:a-new", "kind": "Entity", "subject": EX + "lia",
    "predicate": EX + "drinks", "object_iri": EX + "tea", "asserted_by": MESSAGE, "target": MESSAGE,
    "reason": "consent revoked", "erase": True, "packet": True, "k": 50,
}


def test_no_tool_of_a_real_mcp_server_shows_tenant_a_anything_of_tenant_b(stores: dict[str, Path]) -> None:
    from memkg.adapters.agent_tools import server as registry

    store = stores["folder"] / "mcp"
    shutil.copytree(stores["both"], store)

    async def body() -> None:
        async with stdio_client(store, "--tenant", A) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert set(listed) == set(registry._TOOLS), "the server lists other tools than it registers"
            # reads first, then the writes (forget, which erases, last): each sees the whole fixture
            order = sorted(listed, key=lambda n: (not listed[n].annotations.read_only_hint,
                                                  bool(listed[n].annotations.destructive_hint), n))
            for name in order:
                schema = listed[name].input_schema
                arguments = {}
                for parameter in schema.get("properties", {}):
                    if parameter == "tenant":
                        continue
                    if parameter in TOOL_ARGUMENTS:
                        arguments[parameter] = TOOL_ARGUMENTS[parameter]
                    else:
                        assert parameter not in schema.get("required", []), (
                            f"MCP tool {name}: add a value for {parameter!r} to TOOL_ARGUMENTS")
                call = await client.call_tool(name, arguments)
                text = json.dumps(call.structured_content) + "".join(getattr(c, "text", "") for c in call.content)
                assert not call.is_error, f"MCP tool {name}({arguments}) refused: {text[:1000]}"
                assert not _leaks(text), f"MCP tool {name} for tenant A shows tenant B's {_leaks(text)}: {text[:2000]}"

    async def bounded() -> None:
        with anyio.fail_after(120):
            await body()
    anyio.run(bounded)
