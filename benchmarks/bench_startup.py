"""A command's start-up: what a person typing ``memkg …`` or a CI job calling it once pays.

Each row runs a fresh interpreter, in turn with the others (so that the machine's load falls on
all of them alike), ``--runs`` times, and reports the median wall time and its ratio to the
floor: a script that opens the same store with pyoxigraph and asks ``ASK {}``.

    python benchmarks/bench_startup.py            # the example memory, 9 runs of each
    python benchmarks/bench_startup.py --runs 21
    python benchmarks/bench_startup.py --before ../old/src   # also another checkout's code, in turn
    python benchmarks/bench_startup.py --recall STORE [--before ../old/src]

``--recall STORE`` times ``memkg recall`` from the shell instead, on a store whose recall index is
built (``memkg load`` of ``synthetic.py``'s memory builds it): each question once per run, each
call a fresh interpreter, against the same recalls in one process that opened the store once
(its first recall, which maps the index and loads the embedder, reported apart). The process
time of a call is its CPU (user + system) seconds, which the machine's load does not stretch.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lia-tea.trig"


def rows(store: Path) -> dict[str, list[str]]:
    python = sys.executable
    memkg = [python, "-m", "memkg"]
    return {
        "floor: pyoxigraph opens the store, ASK {}": [
            python, "-c", f"import pyoxigraph; pyoxigraph.Store.read_only({str(store)!r}).query('ASK {{}}')"],
        "python -c 'import memkg'": [python, "-c", "import memkg"],
        "MemoryStore(read_only=True).query('ASK {}')": [
            python, "-c", f"from memkg import MemoryStore; MemoryStore({str(store)!r}, read_only=True).query('ASK {{}}')"],
        "memkg query 'ASK {}'": [*memkg, "--store", str(store), "query", "ASK {}"],
        "memkg --help": [*memkg, "--help"],
    }


#: Questions over synthetic.py's memory: people by name, things, what was said.
QUESTIONS = [
    "What does Omar Haddad drink?",
    "Who does Eva Novak know?",
    "what does Priya Rossi like",
    "Initech",
    "who avoids coffee at night",
    "Lena Okafor works on which project?",
    "what did Hiro Larsen say about React",
    "favourite tea",
]

IN_PROCESS = """
import json, sys, time
from memkg import MemoryStore
store = MemoryStore(sys.argv[1])
out = []
for q in json.loads(sys.argv[2]):
    began, cpu = time.perf_counter(), time.process_time()
    store.recall(q, k=10)
    out.append((time.perf_counter() - began, time.process_time() - cpu))
store.close()
print(json.dumps(out))
"""


def installed() -> dict[str, str]:
    """The environment of a command as an installed package runs it: its bytecode compiled once
    and kept (PYTHONDONTWRITEBYTECODE, if set here, would compile every module at every start)."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU (user + system of the child) seconds of one run, and its output."""
    before = os.times()
    began = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, env=env, text=True)
    wall = time.perf_counter() - began
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system), done.stdout


def run_recall(store: Path, runs: int, before: str | None) -> None:
    """``memkg recall`` from the shell against the same recalls in one process (see the module doc)."""
    import json

    plain = installed()
    envs = {"": plain}
    if before:
        envs[" (before)"] = {**plain, "PYTHONPATH": os.path.abspath(before)}
    shell: dict[str, list[tuple[float, float]]] = {label: [] for label in envs}
    inside: dict[str, list[tuple[float, float]]] = {label: [] for label in envs}
    first: dict[str, list[tuple[float, float]]] = {label: [] for label in envs}
    quiet = not sys.stderr.isatty()
    for env in envs.values():  # a first call of each: the bytecode written, the files in the page cache
        timed([sys.executable, "-m", "memkg", "--store", str(store), "recall", QUESTIONS[0]], env)
    for run in range(runs):
        for label, env in envs.items():
            wall, _, out = timed([sys.executable, "-c", IN_PROCESS, str(store), json.dumps(QUESTIONS)], env)
            each = json.loads(out)
            first[label].append(tuple(each[0]))  # type: ignore[arg-type]
            inside[label] += [tuple(e) for e in each[1:]]  # type: ignore[misc]
            for question in QUESTIONS:
                wall, cpu, _ = timed([sys.executable, "-m", "memkg", "--store", str(store), "recall", question], env)
                shell[label].append((wall, cpu))
        if not quiet:
            print(f"\rrun {run + 1}/{runs}", end="", file=sys.stderr, flush=True)
    if not quiet:
        print("\r\x1b[K", end="", file=sys.stderr)

    def cell(samples: list[tuple[float, float]], at: int) -> str:
        values = sorted(s[at] for s in samples)
        return f"{statistics.median(values) * 1000:,.0f} / {values[-1] * 1000:,.0f} ms"

    floor = statistics.median(timed([sys.executable, "-c", f"import pyoxigraph; pyoxigraph.Store.read_only({str(store)!r})"
                                                      ".query('ASK {}')"], plain)[1] for _ in range(3))
    print(f"load average {os.getloadavg()[0]:.1f}; {runs} runs of {len(QUESTIONS)} questions; median / max; "
          f"the floor (pyoxigraph opens the store, ASK {{}}): {floor * 1000:,.0f} ms CPU\n")
    print("| code | `memkg recall` from the shell, wall | its CPU | in process, wall | its CPU | "
          "in process, first recall | shell / in process (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label in envs:
        ratio = statistics.median(c for _, c in shell[label]) / max(statistics.median(c for _, c in inside[label]), 1e-9)
        print(f"| {'this' if not label else 'before'} | {cell(shell[label], 0)} | {cell(shell[label], 1)} | "
              f"{cell(inside[label], 0)} | {cell(inside[label], 1)} | {cell(first[label], 0)} | {ratio:,.0f}× |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--before", metavar="SRC", help="also run each memkg row with this source folder first on "
                                                        "the path (another checkout's src/), in turn with the rest")
    parser.add_argument("--recall", metavar="STORE", type=Path, help="time `memkg recall` from the shell on STORE")
    args = parser.parse_args()
    if args.recall:
        run_recall(args.recall, args.runs, args.before)
        return
    work = Path(tempfile.mkdtemp(prefix="memkg-startup-"))
    try:
        store = work / "store"
        subprocess.run([sys.executable, "-m", "memkg", "--store", str(store), "load", str(EXAMPLE)],
                       check=True, capture_output=True)
        plain = installed()
        commands = {name: (command, plain) for name, command in rows(store).items()}
        if args.before:
            before = {**plain, "PYTHONPATH": os.path.abspath(args.before)}
            commands.update({f"{name} (before)": (command, before) for name, command in rows(store).items()
                             if "memkg" in name})
        times: dict[str, list[float]] = {name: [] for name in commands}
        quiet = not sys.stderr.isatty()
        for run in range(args.runs):
            for name, (command, env) in commands.items():
                began = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True, env=env)
                times[name].append(time.perf_counter() - began)
            if not quiet:
                print(f"\rrun {run + 1}/{args.runs}", end="", file=sys.stderr, flush=True)
        if not quiet:
            print("\r\x1b[K", end="", file=sys.stderr)
        floor = statistics.median(next(iter(times.values())))
        print(f"load average {os.getloadavg()[0]:.1f}, {args.runs} runs each, medians\n")
        print("| command | wall | × floor |")
        print("|---|---:|---:|")
        for name, spent in times.items():
            median = statistics.median(spent)
            print(f"| {name} | {median * 1000:.0f} ms | {median / floor:.1f}× |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
