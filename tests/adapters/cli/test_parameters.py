"""Every option of every command reaches the library: a differential test generated from the parser.

Each subcommand's options are read from its argparse parser. For each one, the command runs
without it and with a value that changes the answer, and the answer with it must be the
library's, called with the arguments as the parser read them (``parse_args``, then the library
call the command stands for, written out here). What is compared:

- JSON (``--format json``), or SPARQL results, field by field against the library's result;
- for text outputs, the IRIs and times the answer names (``_names``), against those of the
  library's result: a dropped ``--tenant`` or ``--known-at`` names other claims;
- for writes, the quads the store then holds, against a twin store the library wrote into.

A new option fails here until it has a value below, or a reason in ``NO_EFFECT``; a command whose
options are checked elsewhere says where in ``ELSEWHERE``. The data (:mod:`tests.support.parameters`):
two tenants with the same IRIs and different facts, claims valid and known at different times.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pyoxigraph import NamedNode, QueryResultsFormat

from memkg import MemoryStore, provenance, revision
from memkg.adapters.cli import build_parser, main
from memkg.core.names import read_term
from memkg.core.terms import parse_datetime
from memkg.history import timeline
from memkg.provenance.evidence import assess, packet, verify
from memkg.recall import answer
from tests.support.parameters import A, B, EX, FEBRUARY, JANUARY, MAY, two_tenants, written

pytestmark = pytest.mark.slow

#: The options every command shares (where the store is): the remote-store tests check them.
GLOBAL = {"store", "endpoint", "update_endpoint", "endpoint_dialect", "token", "help"}

#: Commands whose options are checked elsewhere, and where.
ELSEWHERE = {
    "validate": "pySHACL's options, each against pySHACL's own meaning: tests/adapters/cli/test_validate.py",
    "serve": "the server's options: tests/adapters/endpoint (test_server, test_tokens, test_hostile_requests)",
    "mcp": "the MCP server's options: tests/adapters/agent_tools/test_mcp.py",
    "policy": "a policy file, not the store: tests/tags/test_policy.py",
    "index": "the derived indexes, whole: tests/recall and tests/store/test_claim_index.py",
    "compact": "takes no option",
    "stats": "takes no option",
    "load": "the loader's options (formats, limits, strict literals): tests/loading and tests/store",
    "ingest": "the JSON Lines options (time zone, line and depth limits): tests/loading/test_ingest.py",
    "extract": "the extractors: tests/loading/test_extraction.py",
    "tags": "edge properties' options: tests/tags/test_edge_properties.py",
}

#: Options with no value that changes the answer, and why.
NO_EFFECT: dict[tuple[str, str], str] = {
    ("view", "list"): "lists the templates instead of running one: no store is read",
    **{(c, "output"): "where the answer goes (a file instead of standard output), not what it is"
       for c in ("export", "history", "recall", "lineage", "support", "packet")},
    ("echoes", "accept"): "writes the proposals it prints; what it prints is the same",
    ("erase", "format"): "how the erasure is printed, not what is erased",
    ("packet", "strict"): "an exit status (1 when the budget leaves mandatory evidence out), not the packet",
}

EVERY_GRAPH = "SELECT ?c ?o WHERE { GRAPH ?g { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ?s ?p ?o )>> } }"
DEFAULT_GRAPH = "SELECT ?c ?o WHERE { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ?s ?p ?o )>> }"


# -- the library's answers, by command --------------------------------------------------------


def _time(text: str | None) -> datetime | None:
    return parse_datetime(text) if text else None


def _rows(results: Any) -> Any:
    data = json.loads(results.serialize(format=QueryResultsFormat.JSON))
    if "boolean" in data:
        return data
    names = data["head"]["vars"]
    return sorted(json.dumps([row.get(n) for n in names]) for row in data["results"]["bindings"])


def _view_params(args: argparse.Namespace) -> dict[str, str]:
    given = {k[2:].replace("-", "_"): v for k, v in zip(args.unknown[::2], args.unknown[1::2])}
    given |= {k: v for k, v in (p.split("=", 1) for p in args.param)}  # --param wins, as the command has it
    if args.tenant:
        given["tenant"] = args.tenant
    return given


LIBRARY: dict[str, Callable[[MemoryStore, argparse.Namespace], Any]] = {
    "query": lambda s, a: _rows(s.query(a.query, use_default_graph_as_union=a.union)),
    "view": lambda s, a: _rows(s.view(a.name, _view_params(a))),
    "export": lambda s, a: s.export(format=a.format, graph=a.graph, with_index=a.with_index,
                                    with_ontology=a.with_ontology).decode(),
    "recall": lambda s, a: answer(s, a.query, tenant=a.tenant, k=a.k, valid_at=_time(a.valid_at),
                                  known_at=_time(a.known_at), packet=a.packet).to_dict(),
    "lineage": lambda s, a: provenance.lineage(s, a.claim, tenant=a.tenant).to_dict(),
    "support": lambda s, a: provenance.support(s, a.claim, tenant=a.tenant).to_dict(
        provenance.minimal_support(s, a.claim, tenant=a.tenant) if a.minimal else None),
    "dependents": lambda s, a: {"source": a.source, **provenance.impact(s, a.source, tenant=a.tenant,
                                                                        with_downstream=a.all).to_dict(),
                                "erasure": [p.to_dict() for p in provenance.erasure_plans(s, a.source, tenant=a.tenant)]},
    "packet": lambda s, a: packet(s, a.claims, tenant=a.tenant, max_vertices=a.max_vertices,
                                  max_hops=a.max_hops).to_dict(),
    "history": lambda s, a: timeline.history(s, a.claim, tenant=a.tenant),
    "diff": lambda s, a: timeline.diff(s, _time(a.from_time), _time(a.to_time), tenant=a.tenant),
    "bisect": lambda s, a: timeline.bisect(s, a.ask, tenant=a.tenant, max_questions=a.max_questions),
    "verify": lambda s, a: verify(s, a.end, tenant=a.tenant),
    "assess": lambda s, a: assess(s, a.claim, tenant=a.tenant, default_reliability=a.default_reliability),
    "echoes": lambda s, a: provenance.propose_echoes(s, tenant=a.tenant, threshold=a.threshold),
}


def _claim_fields(a: argparse.Namespace) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name in ("subject", "predicate", "object", "asserted_by"):
        if getattr(a, name) is not None:
            fields[name] = read_term(getattr(a, name))
    if a.confidence is not None:
        fields["confidence"] = Decimal(str(a.confidence))
    for name in ("valid_from", "valid_until"):
        if getattr(a, name) is not None:
            fields[name] = _time(getattr(a, name))
    if a.id is not None:
        fields["id"] = NamedNode(a.id)
    return fields


def _supersede(s: MemoryStore, a: argparse.Namespace) -> None:
    old, where = s.get_claim(NamedNode(a.claim), graph=a.graph)
    fields = _claim_fields(a)
    s.supersede(NamedNode(a.claim), revision(old, **fields), graph=where, by=a.by, interface="cli")


WRITES: dict[str, Callable[[MemoryStore, argparse.Namespace], Any]] = {
    "supersede": _supersede,
    "retract": lambda s, a: s.retract(*[NamedNode(t) for t in a.targets], reason=a.reason, graph=a.graph),
    "withdraw": lambda s, a: provenance.withdraw(s, a.source, reason=a.reason, graph=a.graph),
    "erase": lambda s, a: (provenance.erasure_plan(s, a.source, graph=a.graph) if a.dry_run
                           else provenance.erase(s, a.source, reason=a.reason, graph=a.graph)),
}

#: How each command is run without the option under test (``--format json`` where it has it).
BASE: dict[str, list[str]] = {
    "query": ["query", EVERY_GRAPH, "--format", "json"],
    "view": ["view", "historical", "--valid-at", MAY, "--tenant", A, "--format", "json"],
    "export": ["export", "--tenant", A, "--format", "nquads"],
    "recall": ["recall", "Lia likes green tea", "--tenant", A, "--k", "3", "--format", "json"],
    "lineage": ["lineage", EX + "c2", "--tenant", A, "--format", "json"],
    "support": ["support", EX + "c4", "--tenant", A, "--format", "json"],
    "dependents": ["dependents", EX + "m1", "--tenant", A, "--format", "json"],
    "packet": ["packet", EX + "c2", "--tenant", A, "--format", "json"],
    "history": ["history", EX + "c2", "--tenant", A],
    "diff": ["diff", "--from", JANUARY, "--to", MAY, "--tenant", A],
    "bisect": ["bisect", "--ask", f"ASK {{ <{EX}lia> <{EX}prefers> <{EX}second> }}", "--tenant", A],
    "verify": ["verify", EX + "c2", "--tenant", A],
    "assess": ["assess", EX + "c2", "--tenant", A],
    "echoes": ["echoes", "--tenant", A],
    "supersede": ["supersede", EX + "c2", "--object", f"<{EX}first>", "--tenant", A],
    "retract": ["retract", EX + "c2", "--tenant", A],
    "withdraw": ["withdraw", EX + "m1", "--reason", "a mistake", "--tenant", A],
    "erase": ["erase", EX + "m1", "--reason", "consent revoked", "--tenant", A],
}

#: For each option: what replaces or joins the base arguments to give it an answer-changing value.
#: ``("--opt", "value")`` is added (replacing the option if the base has it); a positional's value
#: replaces the base's.
VARIED: dict[tuple[str, str], tuple[str, ...]] = {
    ("query", "query"): (f"SELECT ?c WHERE {{ GRAPH <{B}> {{ ?c <{EX}nothing> ?o }} }}",),
    ("query", "union"): ("--union",),
    ("query", "format"): ("--format", "csv"),
    ("view", "name"): ("audit", "--known-at", FEBRUARY),
    ("view", "param"): ("--param", f"valid_at={JANUARY}"),
    ("view", "tenant"): ("--tenant", B),
    ("view", "format"): ("--format", "tsv"),
    ("export", "format"): ("--format", "ntriples"),
    ("export", "graph"): ("--tenant", B),
    ("export", "with_index"): ("--with-index",),
    ("export", "with_ontology"): ("--with-ontology",),
    ("recall", "query"): ("espresso coffee",),
    ("recall", "tenant"): ("--tenant", B),
    ("recall", "k"): ("--k", "8"),
    ("recall", "valid_at"): ("--valid-at", JANUARY),
    ("recall", "known_at"): ("--known-at", FEBRUARY),
    ("recall", "packet"): ("--packet",),
    ("recall", "format"): ("--format", "text"),
    ("lineage", "claim"): (EX + "c3",),
    ("lineage", "tenant"): ("--tenant", B),
    ("lineage", "format"): ("--format", "table"),
    ("support", "claim"): (EX + "c2",),
    ("support", "tenant"): ("--tenant", B),
    ("support", "minimal"): ("--minimal",),
    ("support", "format"): ("--format", "table"),
    ("dependents", "source"): (EX + "m0",),
    ("dependents", "tenant"): ("--tenant", B),
    ("dependents", "all"): ("--all",),
    ("dependents", "format"): ("--format", "table"),
    ("packet", "claims"): (EX + "c3",),
    ("packet", "tenant"): ("--tenant", B),
    ("packet", "max_vertices"): ("--max-vertices", "2"),
    ("packet", "max_hops"): ("--max-hops", "0"),
    ("packet", "format"): ("--format", "turtle"),
    ("history", "claim"): (EX + "c3",),
    ("history", "tenant"): ("--tenant", B),
    ("history", "format"): ("--format", "dot"),
    ("diff", "from_time"): ("--from", FEBRUARY),
    ("diff", "to_time"): ("--to", FEBRUARY),
    ("diff", "tenant"): ("--tenant", B),
    ("bisect", "ask"): ("--ask", f"ASK {{ <{EX}lia> <{EX}prefers> <{EX}first> }}"),
    ("bisect", "tenant"): ("--tenant", B),
    ("bisect", "max_questions"): ("--max-questions", "2"),
    ("verify", "end"): (EX + "c3",),
    ("verify", "tenant"): ("--tenant", B),
    ("assess", "claim"): (EX + "c4",),
    ("assess", "tenant"): ("--tenant", B),
    ("assess", "default_reliability"): ("--default-reliability", "0.9"),
    ("echoes", "tenant"): ("--tenant", B),
    ("echoes", "threshold"): ("--threshold", "0.8"),
    ("supersede", "claim"): (EX + "c5",),
    ("supersede", "object"): ("--object", '"mint tea"'),
    ("supersede", "subject"): ("--subject", f"<{EX}aurora>"),
    ("supersede", "predicate"): ("--predicate", f"<{EX}avoids>"),
    ("supersede", "confidence"): ("--confidence", "0.3"),
    ("supersede", "valid_from"): ("--valid-from", "2024-01-01T00:00:00Z"),
    ("supersede", "valid_until"): ("--valid-until", "2030-01-01T00:00:00Z"),
    ("supersede", "asserted_by"): ("--asserted-by", f"<{EX}m0>"),
    ("supersede", "id"): ("--id", EX + "c2bis"),
    ("supersede", "by"): ("--by", EX + "aurora"),
    ("supersede", "graph"): ("--tenant", B),
    ("retract", "targets"): (EX + "c5",),
    ("retract", "reason"): ("--reason", "Lia corrected it"),
    ("retract", "graph"): ("--tenant", B),
    ("withdraw", "source"): (EX + "m0",),
    ("withdraw", "reason"): ("--reason", "sent by mistake"),
    ("withdraw", "graph"): ("--tenant", B),
    ("erase", "source"): (EX + "m0",),
    ("erase", "reason"): ("--reason", "asked to forget"),
    ("erase", "graph"): ("--tenant", B),
    ("erase", "dry_run"): ("--dry-run",),
}


#: What else the base needs for an option to matter: the default graph is read by a query
#: without GRAPH; the ontology and the index come with the whole store, not one graph.
CONTEXT: dict[tuple[str, str], list[str]] = {
    ("query", "union"): ["query", DEFAULT_GRAPH, "--format", "json"],
    ("export", "with_ontology"): ["export", "--format", "nquads"],
    ("export", "with_index"): ["export", "--format", "nquads"],
}


def _options() -> dict[str, set[str]]:
    """Each top-level subcommand's options and positionals (by ``dest``), from the parser."""
    found: dict[str, set[str]] = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = {a.dest for a in sub._actions if a.dest not in GLOBAL}
    return found


def test_every_option_has_an_answer_changing_value_or_a_reason() -> None:
    options = _options()
    assert set(ELSEWHERE) <= set(options), f"ELSEWHERE names commands memkg has no more: {set(ELSEWHERE) - set(options)}"
    wanted = {(c, d) for c, dests in options.items() if c not in ELSEWHERE for d in dests}
    known = set(VARIED) | set(NO_EFFECT)
    assert wanted <= known, f"options without a value here: {sorted(wanted - known)}"
    assert known <= wanted, f"values for options the commands no longer take: {sorted(known - wanted)}"
    assert set(BASE) == {c for c, _ in wanted}


# -- running ----------------------------------------------------------------------------------------


def _run(store: Path, argv: list[str]) -> str:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--store", str(store), *argv])
    out.flush()
    assert code in (0, 1), f"memkg {' '.join(argv)}: exit {code}: {err.getvalue()}"
    return out.buffer.getvalue().decode("utf-8")


def _with(base: list[str], change: tuple[str, ...], command: str, dest: str) -> list[str]:
    """``base`` with the option (or positional) ``dest`` set as ``change`` says."""
    parser = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    action = next(a for a in parser._actions if a.dest == dest)
    argv = list(base)
    if not action.option_strings:  # a positional: its value replaces the base's, the rest joins
        takes = {s for a in parser._actions if a.option_strings and a.nargs != 0 for s in a.option_strings}
        first = next(i for i, word in enumerate(argv[1:], 1) if not word.startswith("-") and argv[i - 1] not in takes)
        return [*argv[:first], change[0], *argv[first + 1:], *change[1:]]
    if change[0] in argv and len(change) == 2:
        i = argv.index(change[0])
        return [*argv[:i], *change, *argv[i + 2:]]
    return [*argv, *change]

_IRI = re.compile(r"(?:https?://|urn:)[^\s<>\"'\\),]+")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]00:00)")
_NUMBER = re.compile(r"(?<![\w.:/#-])\d+\.\d+(?![\w.])")
_TOKEN = re.compile(f"{_IRI.pattern}|{_TIME.pattern}|{_NUMBER.pattern}")


def _names(text: str) -> list[str]:
    """The IRIs, times and decimal numbers a text names, in order (each once)."""
    found = []
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if _NUMBER.fullmatch(token):
            token = f"{float(token):.4f}"
        found.append(token.replace("+00:00", "Z"))
    return list(dict.fromkeys(found))


def _term(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, datetime):
        return x.isoformat()
    if isinstance(x, (float, Decimal)):
        return f"{float(x):.4f}"
    return str(getattr(x, "value", x))


#: For each command with a text answer: the library result's parts the command shows, in its order.
SHOWN: dict[str, Callable[[Any], list[Any]]] = {
    "history": lambda versions: [t for v in versions for t in (
        v.recorded_at, v.claim, v.subject, v.predicate, v.object, v.valid_from, v.valid_until,
        *v.asserted_by, *v.attributed_to, *v.generated_by, *v.agents)],
    "diff": lambda change: [t for rows in (change.added, change.removed) for row in rows for t in row],
    "bisect": lambda found: [f.at for f in found.flips] + ([] if found.complete else ["NOT every one"]),
    "verify": lambda v: [t for st in v.stages for t in (st.node, st.reason)] + list(v.entered_at),
    "assess": lambda a: [a.confidence, a.extraction_confidence, a.evidence, a.utility,
                         *(t for c in a.clusters for t in (c.strength, *(m for g in c.alternatives for m in g.members),
                                                           *c.shared)),
                         *(t for n, r in sorted(a.reliabilities.items(), key=lambda kv: str(kv[0])) for t in (n, r))],
    "echoes": lambda proposals: [t for p in proposals for t in (p.score, p.echo, p.original)],
}


def _shown(command: str, found: Any) -> list[str]:
    text = " ".join(_term(t) if not isinstance(t, str) or t != "NOT every one" else "" for t in SHOWN[command](found))
    return _names(text) + (["NOT every one"] if command == "bisect" and not found.complete else [])


def _format(argv: list[str]) -> str | None:
    return argv[argv.index("--format") + 1] if "--format" in argv else None


#: Commands whose answer is text (no JSON): compared by the IRIs and times they name.
TEXTUAL = {"history", "diff", "bisect", "verify", "assess", "echoes"}


def _read(command: str, argv: list[str], text: str) -> Any:
    if _format(argv) == "json":
        data = json.loads(text)
        return _rows_of(data) if command in ("query", "view") else data
    if command == "export":
        return sorted(text.splitlines())
    return _names(text) + (["NOT every one"] if "NOT every one" in text else [])


def _rows_of(data: dict[str, Any]) -> Any:
    if "boolean" in data:
        return data
    names = data["head"]["vars"]
    return sorted(json.dumps([row.get(n) for n in names]) for row in data["results"]["bindings"])


def _expected(command: str, argv: list[str], path: Path) -> Any:
    """The library's answer to the command as the parser reads ``argv``, in the form :func:`_read`
    gives the command's; None where the option under test picks another format than those."""
    if _format(argv) != "json" and command not in TEXTUAL | {"export"}:
        return None
    if command in TEXTUAL and _format(argv) not in (None, "text"):
        return None
    args, unknown = build_parser().parse_known_args(argv)
    args.unknown = unknown
    with MemoryStore(path) as store:  # the store the command read, with its indexes
        found = LIBRARY[command](store, args)
        if _format(argv) == "json" or command in ("query", "view"):
            return found
        if command == "export":
            return sorted(found.splitlines())
        return _shown(command, found)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("cli-parameters")
    return {"disk": two_tenants(folder / "store"), "folder": folder}


CASES = sorted(VARIED)


@pytest.mark.parametrize(("command", "dest"), CASES, ids=[f"{c}-{d}" for c, d in CASES])
def test_each_option_gives_the_librarys_answer(stores: dict[str, Any], command: str, dest: str, tmp_path: Path) -> None:
    base = CONTEXT.get((command, dest), BASE[command])
    given = _with(base, VARIED[(command, dest)], command, dest)
    if command in WRITES:
        answers = []
        for argv in (base, given):
            copy = tmp_path / f"copy{len(answers)}"
            shutil.copytree(stores["disk"], copy)
            _run(copy, argv)
            with MemoryStore(copy) as written_into:
                answers.append(written(written_into))
        library = two_tenants()
        args = build_parser().parse_args(given)
        WRITES[command](library, args)
        ours, before, expected = answers[1], answers[0], written(library)
    else:
        ours, before = (_read(command, argv, _run(stores["disk"], argv)) for argv in (given, base))
        expected = _expected(command, given, stores["disk"])
    assert ours != before, f"memkg {command}: {dest} as {VARIED[(command, dest)]} does not change the answer; choose a value that does"
    if expected is not None:
        assert ours == expected, f"memkg {' '.join(given)} does not answer as the library given {dest}"
