"""Mutation testing for memkg: would the tests notice if the code were wrong?

A mutant is a copy of the code with one small, realistic bug planted in it; the
tests *kill* it when at least one fails. The share of mutants killed says how
much of the behaviour the tests really pin down, and each survivor is either a
missing test or a change nobody could observe (an equivalent mutant).

Two kinds of targets::

    python tools/mutation.py data [--only queries/current.rq ...] [--sample N] [--seed S] [--rerun-survivors]
    python tools/mutation.py python MODULE [MODULE ...] [--sample N] [--seed S] [--functions NAME ...] [--max-children N]
    python tools/mutation.py list [--only FILE ...]          # the data mutants, not run
    python tools/mutation.py hand [--list tools/hand_mutants.json] [--only NAME ...]

``data`` mutates the query templates (``queries/*.rq``) and the shapes
(``shapes/memkg.ttl``) with the small mutator below, since mutmut mutates Python
only: comparison and boolean operators flipped, ``EXISTS``/``NOT EXISTS`` and
``BOUND`` negated, property-path ``+``/``*`` swapped, ``DISTINCT`` dropped, a
triple pattern or filter line dropped, an element dropped from an ``IN (…)`` or
a target list, and in the shapes each numeric bound moved and each inclusive
bound made exclusive. A mutant that no longer parses (SPARQL text that Oxigraph
refuses, shapes that memkg's SHACL loader refuses) is stillborn and not counted.
Each mutant runs the tests that read its file (``DATA_TESTS``) in a scratch copy
of the repository, stopping at the first failure.

``python`` runs mutmut 3.8.1 over the named modules of ``src/memkg`` (e.g.
``ingest``, ``evidence``), with the tests in ``PYTHON_TESTS``, all in one scratch
copy whose ``pyproject.toml`` holds that selection (so the repository's own
configuration never changes); ``--sample N`` runs N mutants per module drawn
uniformly (seeded) from all it generated. A mutant mutmut calls a timeout is planted
again and judged by a fresh pytest (mutmut's forked workers time out on tests that pass).

``hand`` plants the hand-written mutants of a list kept in the repository
(``tools/hand_mutants.json``: each a name, a file, the exact text it replaces, which
must occur once, its replacement, and the pytest arguments that should kill it), one at
a time in a scratch copy, and reports each one's verdict: the realistic bugs (boundaries,
tenant scope, reach) that one-token mutants miss. A mutant whose text no longer occurs
once is ``stale`` and not counted.
Results go to ``$TMPDIR/memkg-mutation/mutation-*.json`` (every mutant with
its verdict; ``MEMKG_MUTATION_RESULTS`` moves them) and a summary table on
standard output; ``benchmarks/README.md`` keeps
the current scores and ``benchmarks/mutation-survivors.md`` the survivors looked
at. The machine is shared: runs are serial and the test selections are small.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where runs write every mutant's verdict (outside the repository, like the benchmarks' outputs).
RESULTS = Path(os.environ.get("MEMKG_MUTATION_RESULTS", Path(tempfile.gettempdir()) / "memkg-mutation"))
COPIED = ("src", "tests", "queries", "shapes", "ontology", "examples", "pyproject.toml", "README.md", "docs")

#: Per data file, the pytest arguments that judge it: the tests that read it, the fast ones first.
VIEW_TESTS = ["tests/store/test_views.py"]
PROVENANCE_TESTS = ["tests/provenance/test_provenance.py", "tests/provenance/test_dependents_differential.py",
                    "tests/provenance/test_evidence.py",
                    "-k", "view or lineage or support_groups or withdrawing or packet or verif"]
DATA_TESTS: dict[str, list[str]] = {
    "queries/current.rq": VIEW_TESTS,
    # not the test that the three share one body: every mutant of one breaks it, whatever it does
    "queries/historical.rq": [*VIEW_TESTS, "-k", "not share_one_body"],
    "queries/audit.rq": [*VIEW_TESTS, "-k", "not share_one_body"],
    "queries/history.rq": VIEW_TESTS,
    "queries/contradictions.rq": VIEW_TESTS,
    "queries/dependents.rq": PROVENANCE_TESTS,
    "queries/support.rq": PROVENANCE_TESTS,
    "queries/lineage.rq": PROVENANCE_TESTS,
    "shapes/memkg.ttl": ["tests/validation/test_shapes.py", "tests/validation/test_invariants.py", "-k", "not pyshacl"],
}
#: Per Python module, the tests mutmut runs (it picks, per mutated function, those that call it).
PYTHON_TESTS: dict[str, list[str]] = {
    "ingest": ["tests/loading/test_ingest.py"],
    "evidence": ["tests/provenance/test_evidence.py"],
    "views": ["tests/store/test_views.py"],
    "provenance.support_graph": ["tests/provenance/test_provenance.py", "tests/provenance/test_support_oracle.py"],
    "provenance.erasure": ["tests/provenance/test_provenance.py", "tests/provenance/test_support_oracle.py"],
    "provenance.withdrawal": ["tests/provenance/test_provenance.py", "tests/provenance/test_support_oracle.py"],
    "provenance.lineage": ["tests/provenance/test_provenance.py", "tests/provenance/test_support_oracle.py"],
    "provenance.support": ["tests/provenance/test_provenance.py", "tests/provenance/test_support_oracle.py"],
    # a distant store's paths (tests/store/test_backends.py) and the first load's are write validation's too
    "validation.writes": ["tests/validation/test_writes.py", "tests/validation/test_invariants.py",
                          "tests/validation/test_shapes.py", "tests/store/test_backends.py",
                          "tests/loading/test_first_load.py"],
    "store.writes": ["tests/store/test_memory.py", "tests/store/test_items.py", "tests/validation/test_writes.py",
                     "tests/loading/test_first_load.py", "tests/recall/test_recall.py"],
    "updates": ["tests/history/test_updates.py"],
    "access": ["tests/guard/test_access.py"],
    "timeline": ["tests/history/test_timeline.py"],
    "support_index": ["tests/provenance/test_support_index.py"],
    "shacl.engine": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.cardinality": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.value_type": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.value_range": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.string_based": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.logical": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.shape_based": ["tests/shacl", "tests/shacl/test_conformance.py"],
    "shacl.components.property_pair": ["tests/shacl", "tests/shacl/test_conformance.py"],
}
#: Targets that are part of a module: the module's file, and the functions that make the target.
MODULE_FILES = {"store.writes": "store"}
MODULE_FUNCTIONS: dict[str, list[str]] = {
    "store.writes": ["write", "change", "add", "add_all", "supersede", "retract", "load", "load_data", "_added_by",
                     "_commit", "_validate", "_validate_stream", "_check_writable", "_graph_of", "_require_claim",
                     "_find_event", "_refuse_rewrites", "_data_block", "_has_blank", "_change_update", "by_reference",
                     "component", "_retarget", "_tee"],
}
#: Environment for the runs: the random-history view test runs fewer examples (still ~60 histories).
ENV = {"MEMKG_VIEWS_EXAMPLES": os.environ.get("MEMKG_VIEWS_EXAMPLES", "60"), "PYTHONDONTWRITEBYTECODE": "1"}


# -- the data mutator ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int
    operator: str
    before: str
    after: str
    start: int  # offset in the file
    end: int

    @property
    def name(self) -> str:
        return f"{self.file}:{self.line} {self.operator}: {self.before.strip()!r} -> {self.after.strip()!r}"

    def apply(self, text: str) -> str:
        return text[: self.start] + self.after + text[self.end :]


#: Token-level replacements inside SPARQL text (IRIs, strings and comments are never touched).
FLIPS = {"<=": "<", "<": "<=", ">=": ">", ">": ">=", "=": "!=", "!=": "=", "&&": "||", "||": "&&"}
_SPARQL_TOKEN = re.compile(
    r"""(?P<skip>\#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|<[^<>"{}|^`\\\s]*>|<<\(|\)>>|<<|>>)"""
    r"""|(?P<op><=|>=|!=|&&|\|\||(?<![<>!=])[<>=](?![<>=]))"""
    r"""|(?P<not>\bNOT\s+EXISTS\b)|(?P<exists>\bEXISTS\b)"""
    r"""|(?P<nbound>!\s*BOUND\s*\()|(?P<bound>\bBOUND\s*\()"""
    r"""|(?P<path>(?<=[\w)>])[*+](?=[\s?$(/|)]))"""
    r"""|(?P<distinct>\bDISTINCT\s+)"""
    r"""|(?P<order>\b(?:ASC|DESC|MIN|MAX)\()""",
    re.IGNORECASE,
)
_ORDER = {"ASC(": "DESC(", "DESC(": "ASC(", "MIN(": "MAX(", "MAX(": "MIN("}
#: A line that is one pattern or one filter: dropping it is "a triple pattern or condition forgotten".
_DROPPABLE = re.compile(r"^[ \t]*(?:FILTER\b.*\)|OPTIONAL \{.*\}|BIND\(.*\)|MINUS \{.*\}|[?$<\w][^#{}]*\s\.)[ \t]*$")
_IN_LIST = re.compile(r"\bIN\s*\(([^()]*)\)", re.IGNORECASE)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def sparql_mutants(file: str, text: str, lo: int = 0, hi: int | None = None) -> list[Mutant]:
    """Mutants of the SPARQL in ``text[lo:hi]`` (a whole template, or one query string in the shapes)."""
    hi = len(text) if hi is None else hi
    out: list[Mutant] = []
    part = text[lo:hi]

    def add(op: str, s: int, e: int, after: str) -> None:
        out.append(Mutant(file, _line_of(text, lo + s), op, part[s:e], after, lo + s, lo + e))

    for m in _SPARQL_TOKEN.finditer(part):
        kind, s, e, tok = m.lastgroup, m.start(), m.end(), m.group()
        if kind == "op":
            add("flip", s, e, FLIPS[tok])
        elif kind == "not":
            add("negate", s, e, "EXISTS")
        elif kind == "exists":
            add("negate", s, e, "NOT EXISTS")
        elif kind == "nbound":
            add("negate", s, e, "BOUND(")
        elif kind == "bound":
            add("negate", s, e, "!BOUND(")
        elif kind == "path":
            add("path", s, e, "*" if tok == "+" else "+")
        elif kind == "distinct":
            add("distinct", s, e, "")
        elif kind == "order":
            add("order", s, e, _ORDER[tok.upper()])
    offset = 0
    for line in part.splitlines(keepends=True):
        body = line.rstrip("\n")
        if _DROPPABLE.match(body) and not body.lstrip().startswith("#"):
            add("drop", offset, offset + len(body), "")
        offset += len(line)
    for m in _IN_LIST.finditer(part):
        items = [x for x in re.split(r"(\s*,\s*)", m.group(1))]
        names = items[0::2]
        if len(names) < 2:
            continue
        for i in range(len(names)):
            kept = [n for j, n in enumerate(names) if j != i]
            add("in-list", m.start(1), m.end(1), ", ".join(k.strip() for k in kept))
    return out


_NUMBER_BOUND = re.compile(r"\b(sh:(?:min|max)(?:Inclusive|Exclusive|Count|Length))\s+(-?\d+(?:\.\d+)?)")
_INCLUSIVE = re.compile(r"\bsh:(min|max)Inclusive\b")
_LESS = re.compile(r"\bsh:lessThan\b(?!OrEquals)")
_TARGETS = re.compile(r"\bsh:(?:targetClass|targetSubjectsOf)\s+([^;.\n]+(?:\n\s+[^;.\n]+)*)")
_QUERY_STRING = re.compile(r'sh:(?:select|shx:selectAll|ask)\s+"""(.*?)"""|shx:selectAll\s+"""(.*?)"""|sh:select\s+"(.*?)"',
                           re.DOTALL)
_OR_ITEM = re.compile(r"\[ sh:(?:path \S+ ; sh:minCount 1|datatype xsd:\w+) \]")


def shape_mutants(file: str, text: str) -> list[Mutant]:
    out: list[Mutant] = []

    def add(op: str, s: int, e: int, after: str) -> None:
        out.append(Mutant(file, _line_of(text, s), op, text[s:e], after, s, e))

    for m in _NUMBER_BOUND.finditer(text):
        value = m.group(2)
        s, e = m.start(2), m.end(2)
        n = float(value)
        moves = {str(int(n) + 1), str(int(n) - 1)} if "Count" in m.group(1) else {f"{n + 0.5:g}", f"{n - 0.5:g}"}
        for v in sorted(moves - {value}):
            add("bound", s, e, v)
    for m in _INCLUSIVE.finditer(text):
        add("exclusive", m.start(), m.end(), f"sh:{m.group(1)}Exclusive")
    for m in _LESS.finditer(text):
        add("lessThanOrEquals", m.start(), m.end(), "sh:lessThanOrEquals")
    for m in _TARGETS.finditer(text):
        names = [(x.start(), x.end()) for x in re.finditer(r"[\w:]+", m.group(1))]
        if len(names) < 2:
            continue
        for i, (s, e) in enumerate(names):
            s, e = m.start(1) + s, m.start(1) + e
            if i == 0:
                e = m.start(1) + names[1][0]  # the name and the comma after it
            else:
                s = m.start(1) + names[i - 1][1]  # the comma before it and the name
            add("target", s, e, "")
    for m in _OR_ITEM.finditer(text):
        add("or-item", m.start(), m.end(), "")
    for m in _QUERY_STRING.finditer(text):
        for g in (1, 2, 3):
            if m.group(g) is not None:
                out += sparql_mutants(file, text, m.start(g), m.end(g))
    # the time pattern: without its anchor, or without "Z"
    for m in re.finditer(r'sh:pattern "\(Z\|', text):
        add("pattern", m.start() + len('sh:pattern "('), m.end(), "")
    return out


def data_mutants(files: list[str]) -> list[Mutant]:
    out: list[Mutant] = []
    for f in files:
        text = (ROOT / f).read_text()
        out += shape_mutants(f, text) if f.endswith(".ttl") else sparql_mutants(f, text)
    return out


def stillborn(mutant: Mutant, text: str) -> bool:
    """Whether the mutated file no longer parses (such a mutant proves nothing about the tests)."""
    mutated = mutant.apply(text)
    if mutant.file.endswith(".rq"):
        import pyoxigraph

        try:
            pyoxigraph.Store().query(mutated)  # directives are comments; both branches parse together
        except SyntaxError:
            return True
        except Exception:  # noqa: BLE001 - an evaluation error on an empty store still means it parsed
            return False
        return False
    from pyoxigraph import RdfFormat, parse

    from memkg.shacl import Shapes

    try:
        Shapes.from_quads(parse(mutated.encode(), format=RdfFormat.TURTLE))
    except Exception:  # noqa: BLE001 - any refusal of the shapes is a mutant that cannot run
        return True
    return False


# -- running ------------------------------------------------------------------------------------


def scratch_copy(kind: str) -> Path:
    where = Path(tempfile.mkdtemp(prefix=f"memkg-mutation-{kind}-"))
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, where / name, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        elif src.exists():
            shutil.copy2(src, where / name)
    return where


def run_tests(where: Path, args: list[str], timeout: float) -> tuple[str, float]:
    env = {**os.environ, **ENV, "PYTHONPATH": str(where / "src")}
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *args],
            cwd=where, env=env, capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start
    took = time.monotonic() - start
    if done.returncode == 0:
        return "survived", took
    if done.returncode == 1:
        return "killed", took
    return f"error {done.returncode}", took


def earlier_survivors(file: str) -> set[str] | None:
    """The names of the mutants of ``file`` that survived the last recorded run (None: no run recorded)."""
    path = RESULTS / "mutation-data.json"
    if not path.exists() or file not in json.loads(path.read_text())["files"]:
        return None
    return {m["name"] for m in json.loads(path.read_text())["files"][file]["mutants"] if m["verdict"] == "survived"}


def run_data(files: list[str], sample: int | None, seed: int, rerun: bool = False) -> dict:
    where = scratch_copy("data")
    report: dict = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "files": {}}
    try:
        for f in files:
            text = (ROOT / f).read_text()
            mutants = data_mutants([f])
            live = [m for m in mutants if not stillborn(m, text)]
            viable = len(live)
            if sample is not None and len(live) > sample:
                live = sorted(random.Random(f"{seed}:{f}").sample(live, sample), key=lambda m: m.start)
            previous: list[dict] = []
            if rerun:  # the survivors of the last run again (with today's tests), the other verdicts kept
                survivors = earlier_survivors(f) or set()
                previous = [m for m in json.loads((RESULTS / "mutation-data.json").read_text())["files"][f]["mutants"]
                            if m["name"] not in survivors]
                live = [m for m in data_mutants([f]) if m.name in survivors]
            status, base = run_tests(where, DATA_TESTS[f], timeout=1800)
            if status != "survived":
                raise SystemExit(f"{f}: the tests fail without any mutant ({status}): fix them first")
            results = list(previous)
            for m in live:
                (where / f).write_text(m.apply(text))
                verdict, took = run_tests(where, DATA_TESTS[f], timeout=3 * base + 30)
                (where / f).write_text(text)
                results.append({**asdict(m), "name": m.name, "verdict": verdict, "seconds": round(took, 1)})
                print(f"{verdict:9} {took:6.1f}s  {m.name}", flush=True)
            report["files"][f] = {
                "generated": len(mutants), "stillborn": len(mutants) - viable, "run": len(results),
                "sample": sample, "seed": seed, "tests": DATA_TESTS[f], "baseline_seconds": round(base, 1),
                "mutants": results,
            }
            save("data", report)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return report


def run_python(modules: list[str], max_children: int, functions: list[str], tests: list[str] | None = None,
               sample: int | None = None, seed: int = 18) -> dict:
    """mutmut over ``modules`` in one scratch copy, at most ``sample`` mutants per module (uniform, seeded).

    mutmut first generates every mutant and traces which test calls which function (a run with a
    pattern that matches no mutant does only that); the sample is then drawn from the full list, so
    the score of the sample is an unbiased estimate of the module's, and run with, per mutant, only
    the selected tests that call the mutated function.
    """
    report: dict = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "modules": {}}
    where = scratch_copy("py")
    try:
        selection = tests or list(dict.fromkeys(t for m in modules for t in PYTHON_TESTS[m]))
        files = [f"src/memkg/{MODULE_FILES.get(m, m).replace('.', '/')}.py" for m in modules]
        pyproject = (where / "pyproject.toml").read_text()
        pyproject += (
            "\n[tool.mutmut]\n"
            f'source_paths = ["src/memkg"]\n'
            f"only_mutate = {json.dumps(sorted(set(files)))}\n"
            f"pytest_add_cli_args_test_selection = {json.dumps(selection)}\n"
            'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n'
            f"also_copy = {json.dumps(['queries', 'shapes', 'ontology', 'examples'])}\n"
            "use_git_change_detection = false\n"
        )
        (where / "pyproject.toml").write_text(pyproject)
        env = {**os.environ, **ENV}
        mutmut = [sys.executable, "-m", "mutmut"]
        start = time.monotonic()
        # generate the mutants and the test-to-function map, run none (the pattern matches nothing)
        subprocess.run([*mutmut, "run", "--max-children", str(max_children), "memkg.no_such_module.x_none__mutmut_0"],
                       cwd=where, env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        listed = subprocess.run([*mutmut, "results", "--all", "true"], cwd=where, env=env, capture_output=True,
                                text=True).stdout
        every = [line.strip().rpartition(": ")[0] for line in listed.splitlines() if ": " in line]
        chosen: dict[str, list[str]] = {}
        for module in modules:
            own = [n for n in every if _mutant_of(n, module, functions or MODULE_FUNCTIONS.get(module, []))]
            picked = own if sample is None or len(own) <= sample else random.Random(f"{seed}:{module}").sample(own, sample)
            chosen[module] = sorted(picked)
            report["modules"][module] = {"generated": len(own)}
        names = [n for picked in chosen.values() for n in picked]
        if names:
            subprocess.run([*mutmut, "run", "--max-children", str(max_children), *names],
                           cwd=where, env=env, check=False, stdout=subprocess.DEVNULL)
        took = time.monotonic() - start
        results = subprocess.run([*mutmut, "results", "--all", "true"], cwd=where, env=env,
                                 capture_output=True, text=True).stdout
        verdict_of = {}
        for line in results.splitlines():
            name, _, verdict = line.strip().rpartition(": ")
            verdict_of[name] = verdict
        replanted = _replant_timeouts(where, [n for picked in chosen.values() for n in picked], verdict_of, selection, env)

        def key(module: str) -> str:
            return module if not functions else f"{module} ({', '.join(functions)})"

        for module in modules:
            report["modules"][key(module)] = {
                **report["modules"].pop(module), "sample": sample, "seed": seed, "tests": selection,
                "seconds": round(took), "mutants": {n: verdict_of.get(n, "not checked") for n in chosen[module]},
                "timeouts_planted_again": {n: v for n, v in replanted.items() if n in chosen[module]},
            }
        save("python", report)
        for module in modules:  # each survivor's diff, for the list of survivors
            for name, verdict in report["modules"][key(module)]["mutants"].items():
                if verdict in ("survived", "no tests"):
                    shown = subprocess.run([*mutmut, "show", name], cwd=where, env=env, capture_output=True, text=True)
                    print(f"--- {verdict}: {name}\n{shown.stdout}", flush=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return report


def _replant_timeouts(where: Path, names: list[str], verdict_of: dict[str, str], selection: list[str],
                      env: dict[str, str]) -> dict[str, str]:
    """Each mutant mutmut timed out, planted again in the copy and judged by a fresh pytest.

    mutmut's "timeout" is not always the mutant's doing: its forked workers can outrun their
    time limit on tests that pass (on 2026-12-01, 9 of 11 store and ingest "timeouts" passed
    every test when planted by hand). So each is applied to the copy's source (``mutmut apply``),
    the selected tests run in a new process, limited to 3x the clean run, and the file is put
    back. Returns {mutant: verdict}; ``verdict_of`` takes the new verdicts.
    """
    timed_out = [n for n in names if verdict_of.get(n) == "timeout"]
    if not timed_out:
        return {}
    mutmut = [sys.executable, "-m", "mutmut"]
    status, base = run_tests(where, selection, timeout=3600)
    if status != "survived":
        raise SystemExit(f"the tests fail without any mutant ({status}): fix them first")
    sources = {p: p.read_text() for p in (where / "src").rglob("*.py")}
    out: dict[str, str] = {}
    for name in timed_out:
        subprocess.run([*mutmut, "apply", name], cwd=where, env=env, check=True, capture_output=True)
        try:
            out[name], _ = run_tests(where, selection, timeout=3 * base + 30)
        finally:
            for path, text in sources.items():
                if path.read_text() != text:
                    path.write_text(text)
        print(f"timeout planted again: {out[name]:9} {name}", flush=True)
    verdict_of.update(out)
    return out


def _mutant_of(name: str, module: str, functions: list[str]) -> bool:
    """Whether mutmut's mutant ``name`` (memkg.<module>.x_<function>__mutmut_<n>) is in ``module``'s target."""
    prefix = f"memkg.{MODULE_FILES.get(module, module)}."
    if not name.startswith(prefix) or "." in name[len(prefix):]:
        return False
    function = re.sub(r"__mutmut_\d+$", "", name[len(prefix):])
    function = function[2:] if function.startswith("x_") else function[1:]
    return not functions or any(function == f or function.endswith("ǁ" + f) for f in functions)


HAND_LIST = ROOT / "tools" / "hand_mutants.json"


def run_hand(listing: Path, only: list[str] | None = None) -> dict:
    """Plant each hand mutant of ``listing`` alone in a scratch copy and run its tests."""
    mutants = json.loads(listing.read_text())
    where = scratch_copy("hand")
    verdicts = []
    try:
        for m in mutants:
            if only and m["name"] not in only:
                continue
            target = where / m["file"]
            original = target.read_text()
            if original.count(m["old"]) != 1:
                verdicts.append({"name": m["name"], "verdict": "stale", "seconds": 0.0})
                continue
            target.write_text(original.replace(m["old"], m["new"]))
            try:
                verdict, took = run_tests(where, m["tests"], timeout=600)
            finally:
                target.write_text(original)
            verdicts.append({"name": m["name"], "verdict": verdict, "seconds": round(took, 1)})
            print(f"{verdict:>9}  {m['name']}  ({took:.0f} s)", flush=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "modules": {"hand": {"mutants": [v for v in verdicts if v["verdict"] != "stale"]}}}
    stale = [v["name"] for v in verdicts if v["verdict"] == "stale"]
    if stale:
        print("stale (their text no longer occurs once): " + ", ".join(stale))
    save("hand", report)
    return report


def save(kind: str, report: dict) -> None:
    """Write the report, keeping the other targets' results from earlier runs."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"mutation-{kind}.json"
    key = "files" if kind == "data" else "modules"
    earlier = json.loads(path.read_text()).get(key, {}) if path.exists() else {}
    path.write_text(json.dumps({**report, key: {**earlier, **report[key]}}, indent=1) + "\n")


def summary(report: dict) -> str:
    rows = ["| target | mutants run | killed | survived | score |", "|---|---:|---:|---:|---:|"]
    for target, data in {**report.get("files", {}), **report.get("modules", {})}.items():
        verdicts = [m["verdict"] for m in data["mutants"]] if isinstance(data["mutants"], list) else list(
            data["mutants"].values())
        killed = sum(v in ("killed", "timeout") for v in verdicts)
        survived = sum(v in ("survived", "no tests") for v in verdicts)  # no test calls it: not killed
        counted = killed + survived
        score = f"{100 * killed / counted:.0f} %" if counted else "-"
        rows.append(f"| {target} | {len(verdicts)} | {killed} | {survived} | {score} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    data = sub.add_parser("data", help="mutate queries/*.rq and shapes/memkg.ttl and run their tests")
    data.add_argument("--only", nargs="+", default=sorted(DATA_TESTS), help="files to mutate (default: all)")
    data.add_argument("--sample", type=int, help="run at most N mutants per file, chosen at random (reproducibly)")
    data.add_argument("--seed", type=int, default=18)
    data.add_argument("--rerun-survivors", action="store_true", help="run only the last run's survivors again")
    listing = sub.add_parser("list", help="list the data mutants without running them")
    listing.add_argument("--only", nargs="+", default=sorted(DATA_TESTS))
    py = sub.add_parser("python", help="run mutmut over modules of src/memkg")
    py.add_argument("modules", nargs="+", choices=sorted(PYTHON_TESTS))
    py.add_argument("--max-children", type=int, default=1)
    py.add_argument("--functions", nargs="+", default=[], help="only these functions (methods: Classǁmethod)")
    py.add_argument("--sample", type=int, help="run at most N mutants per module, chosen at random (reproducibly)")
    py.add_argument("--seed", type=int, default=18)
    py.add_argument("--tests", type=shlex.split, help="pytest arguments selecting the tests, one string "
                    "(default: PYTHON_TESTS[module])")
    hand = sub.add_parser("hand", help="plant the hand-written mutants of a list and run their tests")
    hand.add_argument("--list", type=Path, default=HAND_LIST, help="the mutant list (default: tools/hand_mutants.json)")
    hand.add_argument("--only", nargs="+", help="only the mutants of these names")
    args = parser.parse_args(argv)
    if args.command == "hand":
        print(summary(run_hand(args.list, args.only)))
        return 0
    if args.command == "list":
        for f in args.only:
            text = (ROOT / f).read_text()
            for m in data_mutants([f]):
                print(("stillborn " if stillborn(m, text) else "") + m.name)
        return 0
    report = run_data(args.only, args.sample, args.seed, args.rerun_survivors) if args.command == "data" else run_python(
        args.modules, args.max_children, args.functions, args.tests, args.sample, args.seed)
    print(summary(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
