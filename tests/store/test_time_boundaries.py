"""Every reader of time agrees at exactly the boundary: the half-open rule, generated.

The rule, stated once: **at exactly the time of an event, a reader answers as it does after
the event.** An event is anything that happens at one instant: a claim recorded (known from
its ``recordedAt``), retracted or superseded (known until the withdrawer's ``recordedAt``),
starting to hold (``validFrom``) or ceasing to (``validUntil``), a tag version written or
revised, two records linked. Each interval is half-open, ``[from, until)``, so the instant
itself belongs to what comes after.

One store holds one event of each kind, a month apart. Every reader of time is called at
each event's time, one second before and one second after, and at quiet times between the
events (the references): one second before must answer as the quiet time before, the event
itself and one second after as the quiet time after. A reader that answers the same on both
sides of every event is not exercised by the data, and fails.

The readers are collected from the code, as the tenant-scope test collects the read APIs:
every public function or method of memkg that takes the store (or belongs to a class built
over one) and a parameter of time, every view's time parameters, every CLI option, MCP tool,
endpoint route and integration field of time. A new reader is checked without anyone adding it; one whose other
parameters the table below cannot fill fails, naming them.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import re
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memkg import MemoryStore
from memkg.store import views
from memkg.store.clock import Clock

from tests.support.commands import subcommands
from tests.support.public import answer_text, callables, modules

EX = "https://example.org/time/"
A = "https://example.org/tenants/a"
STEP = timedelta(seconds=1)
PREFIXES = f"""PREFIX ex: <{EX}>
PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""
LONG_AGO = datetime(2025, 1, 1, tzinfo=UTC)  #: when everything that is no event was recorded


def _at(month: int) -> datetime:
    return datetime(2026, month, 10, 12, 0, 0, tzinfo=UTC)


#: One event of each kind, a month apart: (name, time).
EVENTS: list[tuple[str, datetime]] = [
    ("claim recorded", _at(1)),
    ("claim retracted", _at(2)),
    ("claim superseded", _at(3)),
    ("claim starts to hold", _at(4)),
    ("claim ceases to hold", _at(5)),
    ("tag written", _at(6)),
    ("tag revised", _at(7)),
    ("records linked", _at(8)),
    ("record adjusts another", _at(9)),
]


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _claim(name: str, obj: str, *, recorded: datetime = LONG_AGO, extra: str = "") -> str:
    return (f'ex:{name} a mem:Claim ; rdf:reifies <<( ex:lia ex:drinks ex:{obj} )>> ; mem:assertedBy ex:m ;\n'
            f'    mem:recordedAt "{_stamp(recorded)}"^^xsd:dateTime {extra}.\n')


def _data() -> str:
    t = dict(EVENTS)
    valid = f'; mem:validFrom "{_stamp(LONG_AGO)}"^^xsd:dateTime '
    return PREFIXES + f"""
ex:lia a mem:Person ; mem:displayName "Lia" .
ex:drinks a rdf:Property ; <http://www.w3.org/2000/01/rdf-schema#label> "drinks" .
ex:m a mem:Message ; mem:content "Lia drinks tea, coffee, mate, cocoa, juice and water" ; mem:eventId "1" ;
    mem:recordedAt "{_stamp(LONG_AGO)}"^^xsd:dateTime .
""" + "".join([
        _claim("recorded", "tea", recorded=t["claim recorded"], extra=valid),
        _claim("retracted", "coffee", extra=valid),
        f'ex:retraction a mem:Retraction ; mem:retracts ex:retracted ; '
        f'mem:recordedAt "{_stamp(t["claim retracted"])}"^^xsd:dateTime .\n',
        _claim("old", "mate", extra=valid),
        _claim("new", "cocoa", recorded=t["claim superseded"], extra=valid + "; mem:supersedes ex:old "),
        _claim("starting", "juice", extra=f'; mem:validFrom "{_stamp(t["claim starts to hold"])}"^^xsd:dateTime '),
        _claim("ending", "water", extra=valid + f'; mem:validUntil "{_stamp(t["claim ceases to hold"])}"^^xsd:dateTime '),
        _claim("rival", "milk", extra=valid + "; mem:contradicts ex:ending "),  # contradicts until ex:ending ends
    ]) + 'ex:tea a mem:Entity ; mem:displayName "tea" . ex:coffee a mem:Entity ; mem:displayName "coffee" .\n' \
       'ex:mate a mem:Entity ; mem:displayName "mate" . ex:cocoa a mem:Entity ; mem:displayName "cocoa" .\n' \
       'ex:juice a mem:Entity ; mem:displayName "juice" . ex:water a mem:Entity ; mem:displayName "water" .\n' \
       'ex:milk a mem:Entity ; mem:displayName "milk" .\n'


class _SetClock:
    """A store clock that reads a time the test sets: the tags' versions get the events' times."""

    def __init__(self) -> None:
        self.now = LONG_AGO

    def __call__(self) -> datetime:
        return self.now


def _fill(store: MemoryStore, clock: _SetClock) -> None:
    from memkg.tags import Tags

    clock.now = LONG_AGO
    store.load_data(_data(), format="turtle", graph=A)
    tags = Tags(store, graph=A)
    # one write per event: the store clock never ties, so a second write would come a tick later
    tags.add(EX + "m", ["topic:drinks"])  # long ago: the record has a version before the events
    clock.now = LONG_AGO + STEP
    tags.add(EX + "recorded", ["mood:calm"])
    t = dict(EVENTS)
    clock.now = t["tag written"]
    tags.add(EX + "m", ["mood:calm"])
    clock.now = t["tag revised"]
    tags.update(EX + "m", ["mood:storm"])
    clock.now = t["records linked"]
    tags.connect(EX + "m", EX + "recorded")
    clock.now = t["record adjusts another"]
    tags.adjusts(EX + "retracted", EX + "m")
    clock.now = datetime(2027, 1, 1, tzinfo=UTC)


def _store(path: Path | None = None) -> MemoryStore:
    from memkg.recall import HashingEmbedder, recall_index

    clock = _SetClock()
    store = MemoryStore(path, validation=None, clock=Clock(clock), followers=[recall_index(embedder=HashingEmbedder())])
    _fill(store, clock)
    return store


@pytest.fixture(scope="module")
def store() -> MemoryStore:
    return _store()


# -- the probes: the rule, stated once ---------------------------------------------------------


def _quiet_times() -> list[datetime]:
    """A time between each two events (and before the first, after the last): the references."""
    times = [t for _, t in EVENTS]
    return [times[0] - timedelta(days=15), *(a + (b - a) / 2 for a, b in zip(times, times[1:])),
            times[-1] + timedelta(days=15)]


@dataclass(frozen=True)
class Probe:
    """Where one reader is asked: an event's time, a step before, a step after."""

    event: str
    before: datetime  #: a quiet time before the event
    after: datetime  #: a quiet time after it
    at: datetime

    def expected(self) -> dict[datetime, datetime]:
        """Each asked time, and the quiet time it must answer as: the rule."""
        return {self.at - STEP: self.before, self.at: self.after, self.at + STEP: self.after}


def _probes() -> list[Probe]:
    quiet = _quiet_times()
    return [Probe(name, quiet[i], quiet[i + 1], t) for i, (name, t) in enumerate(EVENTS)]


#: What differs between two answers that mean the same: scores (a vector's, a time signal's
#: distance) and times the reader echoes (its own as-of parameter).
_VOLATILE = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:?\d\d)?|datetime\.datetime\([^)]*\)|"
                       r"'?score'?[=:] ?[-\d.e]+|\"score\": [-\d.e]+|urn:uuid:[0-9a-f-]+")


def _answer(value: Any) -> str:
    return _VOLATILE.sub("…", answer_text(value) if not isinstance(value, str) else value)


def check_reader(name: str, ask: Callable[[datetime], Any]) -> None:
    """The rule, for one reader: every event, a step either side, against the quiet times."""
    answers: dict[datetime, str] = {}

    def answer(t: datetime) -> str:
        if t not in answers:
            answers[t] = _answer(ask(t))
        return answers[t]

    sensitive = []
    for probe in _probes():
        if answer(probe.before) == answer(probe.after):
            continue  # this reader does not see this event
        sensitive.append(probe.event)
        for asked, like in probe.expected().items():
            side = "after" if like == probe.after else "before"
            assert answer(asked) == answer(like), (
                f"{name} at {asked.isoformat()} ({probe.event} at {probe.at.isoformat()}) does not answer as "
                f"{side} the event: {answer(asked)[:600]!r} vs {answer(like)[:600]!r}")
    assert sensitive, f"{name} answers the same at every time: the data exercises none of its boundaries"


# -- the readers, collected from the code ------------------------------------------------------

#: Parameters of time, by name; an as-of time the rule is about.
TIME = ("known_at", "valid_at", "t", "t2", "at", "as_of")
#: Parameters of time that are not as-of times: the start of a span (``diff``'s ``t1``) and
#: recall's ``now`` (the reference a question's "yesterday" is read against).
OTHER_TIMES = {"t1": LONG_AGO - timedelta(days=1), "now": None}

QUESTION = "Lia drinks tea coffee mate cocoa juice water milk calm storm"


def _arguments(store: MemoryStore) -> dict[str, Any]:
    """The value of each parameter a reader takes, by name."""
    from memkg.guard.access import OPEN

    return {
        "store": store, "query": QUESTION, "question": QUESTION, "tenant": A, "k": 50, "grant": OPEN,
        "view": "audit", "record": EX + "m", "properties": ["mood:calm"],
        "label": "mood", "ask": f"ASK {{ ?s ?p <{EX}tea> }}", "claim": EX + "old",
    }


#: Modules whose callables are helpers for readers, not readers: time parsing and the
#: vectors' row arithmetic take a time but no memory.
NOT_READERS = {"memkg.recall.timeexpr", "memkg.recall.vectors", "memkg.tags.queries"}
#: Classes that hold a store: their public methods with a time parameter are readers.
HOLDERS = ("MemoryStore", "Tags", "MemoryTools")


def _has_store(fn: Callable[..., Any]) -> bool:
    return "store" in inspect.signature(fn).parameters


def python_readers() -> Iterator[tuple[str, Callable[..., Any], str]]:
    """(name, callable, owner): every public function of memkg over a store, and every public
    method of a class over one, that takes a time parameter."""
    for module, name, fn, cls in callables():
        if module.__name__ in NOT_READERS or ".adapters." in module.__name__:
            continue
        if (cls.__name__ in HOLDERS if cls else _has_store(fn)) and any(p in TIME for p in inspect.signature(fn).parameters):
            yield f"{module.__name__}.{name}", fn, cls.__name__ if cls else ""


PYTHON = list(python_readers())


def test_the_readers_of_time_are_found() -> None:
    names = {n.rsplit(".", 1)[-1] for n, _, _ in PYTHON}
    assert {"recall", "answer", "version", "labels", "known_at", "ask_at", "diff"} <= names, names


def _special(store: MemoryStore) -> dict[str, dict[str, Any]]:
    """Readers whose parameters mean something else than the table's: ranking's ``store`` is the
    raw quads, beside the recall index it ranks with."""
    from memkg.recall import RECALL_INDEX

    return {"memkg.recall.ranking.rank": {"index": store.follower(RECALL_INDEX, create=True),
                                          "store": store.backend.local_store(), "graphs": None}}


def _owner(store: MemoryStore, owner: str) -> Any:
    from memkg.adapters.agent_tools.tools import MemoryTools
    from memkg.tags import Tags

    return {"MemoryStore": store, "Tags": Tags(store, graph=A), "MemoryTools": MemoryTools(store),
            "": None}[owner]


def _calls(store: MemoryStore, name: str, fn: Callable[..., Any], owner: str) -> Iterator[tuple[str, Callable[[datetime], Any]]]:
    """One way to call ``fn`` per time parameter it takes: every other parameter filled."""
    params = list(inspect.signature(fn).parameters.values())[1 if owner else 0:]
    values = {**_arguments(store), **_special(store).get(name, {})}
    fixed: dict[str, Any] = {}
    missing = []
    for p in params:
        if p.name in TIME or p.kind is p.VAR_KEYWORD or p.kind is p.VAR_POSITIONAL:
            continue
        if p.name in OTHER_TIMES:
            if OTHER_TIMES[p.name] is not None:
                fixed[p.name] = OTHER_TIMES[p.name]
            continue
        if p.name in values:
            fixed[p.name] = values[p.name]
        elif p.default is inspect.Parameter.empty:
            missing.append(p.name)
    assert not missing, f"{name}: add a value for {missing} to _arguments so this reader of time is checked"
    target = getattr(_owner(store, owner), fn.__name__) if owner else fn
    for p in params:
        if p.name not in TIME:
            continue
        keyword = p.kind is not p.POSITIONAL_ONLY

        def ask(t: datetime, p: inspect.Parameter = p, keyword: bool = keyword) -> Any:
            if keyword:
                return target(**fixed, **{p.name: t})
            return target(t, **fixed)
        yield p.name, ask


@pytest.mark.parametrize(("name", "fn", "owner"), PYTHON, ids=[n for n, _, _ in PYTHON])
def test_every_reader_answers_at_an_event_as_after_it(store: MemoryStore, name: str, fn: Callable[..., Any],
                                                       owner: str) -> None:
    for param, ask in _calls(store, name, fn, owner):
        check_reader(f"{name}({param}=…)", ask)


# -- the views: every time parameter of every template ----------------------------------------


#: A required time parameter of a view left fixed while another is probed: after every event.
LATER = datetime(2027, 1, 1, tzinfo=UTC)


def _view_params() -> list[tuple[str, str]]:
    return [(v.name, p.name) for v in views.list_views() for p in v.params if p.name in TIME]


VIEW_PARAMS = _view_params()


def test_the_views_of_time_are_found() -> None:
    assert {("historical", "valid_at"), ("audit", "known_at"), ("audit", "valid_at")} <= set(VIEW_PARAMS)


@pytest.mark.parametrize(("view", "param"), VIEW_PARAMS, ids=[f"{v}-{p}" for v, p in VIEW_PARAMS])
def test_every_view_answers_at_an_event_as_after_it(store: MemoryStore, view: str, param: str) -> None:
    required = [p.name for v in views.list_views() if v.name == view for p in v.params
                if p.name in TIME and p.name != param and p.required]

    def ask(t: datetime) -> Any:
        params = {"tenant": A, **{r: _stamp_exact(LATER) for r in required}, param: _stamp_exact(t)}
        return sorted(str(row) for row in views.solutions(store.view(view, params)))
    check_reader(f"view {view}({param}=…)", ask)


def _stamp_exact(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


# -- the adapters: every option, tool, route and retriever field of time ----------------------


@pytest.fixture(scope="module")
def on_disk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("time") / "store"
    _store(path).close()
    return path


#: CLI options of time that are not as-of times (a write's validity, a server's timeout, a
#: span's start, the zone of an input).
CLI_TIME = ("known_at", "valid_at", "to_time")
CLI_VALUES = {"record": EX + "m", "label": "mood", "props": ["mood:calm"], "query": QUESTION,
              "from_time": _stamp(LONG_AGO - timedelta(days=1))}


def _cli_readers() -> list[tuple[tuple[str, ...], str]]:
    """(subcommand, option) for every option of time of every subcommand, read from the parser;
    and ``view NAME --PARAM`` for every time parameter of every view."""
    out = [(path, action.dest) for path, parser in subcommands() for action in parser._actions
           if action.dest in CLI_TIME]
    return out + [(("view", view), param) for view, param in VIEW_PARAMS]


CLI = _cli_readers()


def _cli_argv(path: tuple[str, ...], dest: str, t: datetime) -> list[str]:
    if path[0] == "view":
        required = [f"--{p.name}={_stamp_exact(LATER)}" for v in views.list_views() if v.name == path[1]
                    for p in v.params if p.name in TIME and p.name != dest and p.required]
        return [*path, *required, f"--{dest}={_stamp_exact(t)}", "--tenant", A, "--format", "json"]
    parser = dict(subcommands())[path]
    argv = list(path)
    for action in parser._actions:
        if action.dest in ("help", dest) or (action.option_strings and not action.required):
            continue
        assert action.dest in CLI_VALUES, f"memkg {' '.join(path)}: add a value for {action.dest!r} to CLI_VALUES"
        value = CLI_VALUES[action.dest]
        argv += [*action.option_strings[:1], *(value if isinstance(value, list) else [value])]
    option = next(a.option_strings[0] for a in parser._actions if a.dest == dest)
    tenant = ["--tenant", A] if any("--tenant" in a.option_strings for a in parser._actions) else []
    return [*argv, f"{option}={_stamp_exact(t)}", *tenant]


def test_the_cli_options_of_time_are_found() -> None:
    assert {(("recall",), "known_at"), (("recall",), "valid_at"), (("tags", "values"), "known_at"),
            (("diff",), "to_time"), (("view", "audit"), "known_at")} <= set(CLI)


@pytest.mark.slow
@pytest.mark.parametrize(("path", "dest"), CLI, ids=[f"{' '.join(p)} {d}" for p, d in CLI])
def test_every_cli_option_of_time_answers_at_an_event_as_after_it(on_disk: Path, path: tuple[str, ...],
                                                                  dest: str) -> None:
    from memkg.adapters.cli import main

    def ask(t: datetime) -> str:
        argv = ["--store", str(on_disk), *_cli_argv(path, dest, t)]
        out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()  # some formats write bytes
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        out.flush()
        assert code == 0, f"memkg {' '.join(argv)}: exit {code}: {err.getvalue()[-1000:]}"
        return out.buffer.getvalue().decode("utf-8")
    check_reader(f"memkg {' '.join(path)} --{dest}", ask)


def _tools() -> list[tuple[str, str]]:
    """(tool, parameter) for every parameter of time of every MCP tool, read from the tool list."""
    from memkg.adapters.agent_tools import server

    return [(name, p) for name in server._TOOLS
            for p in inspect.signature(getattr(server._ServedTools, name)).parameters if p in TIME]


TOOLS = _tools()
TOOL_VALUES = {"query": QUESTION, "k": 50, "tenant": A, "limit": 100}


def test_the_mcp_tools_of_time_are_found() -> None:
    assert {("recall", "known_at"), ("claims_valid_at", "valid_at"), ("claims_known_at", "known_at")} <= set(TOOLS)


@pytest.mark.parametrize(("tool", "param"), TOOLS, ids=[f"{t}-{p}" for t, p in TOOLS])
def test_every_mcp_tool_of_time_answers_at_an_event_as_after_it(store: MemoryStore, tool: str, param: str) -> None:
    from memkg.adapters.agent_tools import server
    from memkg.adapters.agent_tools.tools import MemoryTools
    from memkg.guard.access import OPEN

    fn = getattr(server._ServedTools(MemoryTools(store)), tool)
    kwargs: dict[str, Any] = {}
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.name in TIME:
            if p.name != param and p.default is inspect.Parameter.empty:
                kwargs[p.name] = LATER
            continue
        if p.name in TOOL_VALUES:
            kwargs[p.name] = TOOL_VALUES[p.name]
        else:
            assert p.default is not inspect.Parameter.empty, f"MCP tool {tool}: add a value for {p.name!r} to TOOL_VALUES"
    check_reader(f"MCP {tool}({param}=…)", lambda t: json.dumps(fn(OPEN, **kwargs, **{param: t}), default=str))


def _retrievers() -> list[tuple[str, type, str]]:
    """(name, class, field) for every field of time of every integration class (LangChain's
    retriever, …), read from the integrations' modules."""
    out = []
    for module in modules():
        if not module.__name__.startswith("memkg.integrations."):
            continue
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and cls.__module__ == module.__name__ and not name.startswith("_"):
                fields = getattr(cls, "model_fields", None) or typing.get_type_hints(cls) if hasattr(cls, "__annotations__") else {}
                out += [(f"{module.__name__}.{name}", cls, f) for f in fields if f in TIME]
    return out


RETRIEVERS = _retrievers()


def test_the_integrations_of_time_are_found() -> None:
    assert {("memkg.integrations.langchain.MemkgRetriever", "valid_at")} <= {(n, f) for n, _, f in RETRIEVERS}


@pytest.mark.parametrize(("name", "cls", "field"), RETRIEVERS, ids=[f"{n}-{f}" for n, _, f in RETRIEVERS])
def test_every_integration_field_of_time_answers_at_an_event_as_after_it(store: MemoryStore, name: str, cls: type,
                                                                          field: str) -> None:
    check_reader(f"{name}({field}=…)",
                 lambda t: [(d.page_content, d.metadata) for d in cls(store, tenant=A, k=50, **{field: t}).invoke(QUESTION)])


def _routes() -> list[tuple[str, str]]:
    """(route, parameter) for every parameter of time the endpoint's route table documents,
    and every time parameter of every view under ``/views/NAME``."""
    from memkg.adapters.endpoint import handler

    out = []
    for row in (handler.__doc__ or "").splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("``/") and "NAME" not in cells[0] and "GET" in cells[1]:
            path = re.findall(r"``(/[^`]*)``", cells[0])[0]
            out += [(path, p) for p in re.findall(r"[?&](\w+)=", cells[2]) if p in TIME]
    return out + [(f"/views/{view}", param) for view, param in VIEW_PARAMS]


ROUTES = _routes()


def test_the_routes_of_time_are_found() -> None:
    assert {("/recall", "known_at"), ("/recall", "valid_at"), ("/views/audit", "known_at")} <= set(ROUTES)


@pytest.mark.slow
def test_every_route_of_time_answers_at_an_event_as_after_it(on_disk: Path, tmp_path: Path) -> None:
    import shutil
    from urllib.parse import urlencode

    from tests.support.endpoint_server import Server

    served = tmp_path / "served"
    shutil.copytree(on_disk, served)
    server = Server(served)
    try:
        for path, param in ROUTES:
            required = {p.name: _stamp_exact(LATER) for v in views.list_views() if path == f"/views/{v.name}"
                        for p in v.params if p.name in TIME and p.name != param and p.required}
            fixed = {"q": QUESTION, "k": "50"} if path == "/recall" else required

            def ask(t: datetime, path: str = path, param: str = param, fixed: dict[str, str] = fixed) -> str:
                answer = server.request("GET", f"{path}?" + urlencode({**fixed, "tenant": A, param: _stamp_exact(t)}))
                assert answer.status == 200, f"GET {path} {param}: {answer.status} {answer.text[:500]}"
                return answer.text
            check_reader(f"GET {path}?{param}=…", ask)
    finally:
        server.close()
