"""A command's start-up: what a person typing ``memkg …`` or a CI job calling it once pays.

Each row runs a fresh interpreter, in turn with the others (so that the machine's load falls on
all of them alike), ``--runs`` times, and reports the median wall time and its ratio to the
floor: a script that opens the same store with pyoxigraph and asks ``ASK {}``.

    python benchmarks/bench_startup.py            # the example memory, 9 runs of each
    python benchmarks/bench_startup.py --runs 21
    python benchmarks/bench_startup.py --before ../old/src   # also another checkout's code, in turn
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--before", metavar="SRC", help="also run each memkg row with this source folder first on "
                                                        "the path (another checkout's src/), in turn with the rest")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memkg-startup-"))
    try:
        store = work / "store"
        subprocess.run([sys.executable, "-m", "memkg", "--store", str(store), "load", str(EXAMPLE)],
                       check=True, capture_output=True)
        plain = {**os.environ, "PYTHONWARNINGS": "ignore"}
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
