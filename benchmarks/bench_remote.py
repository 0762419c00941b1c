"""Remote stores against the embedded store, on a synthetic memory: load, views, validate, export.

Generates ``benchmarks/synthetic.py``'s memory of ``--claims`` claims, then for the embedded
store (on disk), Oxigraph's server and Virtuoso 7 (each started here, as the tests do; a
missing one is skipped), in one run:

* ``load``: ``memkg load`` of the file (``--endpoint`` for a server), validated, wall seconds;
  the report's "written by" says which way the quads went;
* ``floor``: the server's own bulk path for the same quads, unvalidated: the file's quads with
  their claim index (RDF 1.1-encoded for Virtuoso) posted by the Graph Store Protocol, as
  ``load`` posts them (the floor a validated load can approach);
* each view for one subject (``current``, ``historical``, ``audit`` with ``subject``; ``history``,
  ``lineage``, ``support`` of one claim; ``dependents`` of one message): p50 and p95 in
  process, over ``--reps`` calls interleaved across the stores;
* ``recall``, ``validate`` (the whole store) and ``export``: a CLI call each, wall seconds,
  F for a failure.

    python benchmarks/bench_remote.py --claims 20000 [--reps 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pyoxigraph import RdfFormat, parse  # noqa: E402
from synthetic import TENANT_BASE, generate  # noqa: E402

from memkg import MemoryStore  # noqa: E402
from memkg.adapters.cli import main as cli  # noqa: E402
from memkg.store import claim_index  # noqa: E402
from tests.support.remote_servers import start_oxigraph, start_virtuoso  # noqa: E402

TENANT = TENANT_BASE + "0"
VIEWS = ("current", "historical", "audit", "history", "lineage", "support", "dependents")


def run_cli(*args: str) -> tuple[float | None, str]:
    """A CLI call's wall seconds (None: it failed) and its output."""
    out = StringIO()
    start = time.perf_counter()
    with redirect_stdout(out), redirect_stderr(out):
        try:
            code = cli(list(args))
        except SystemExit as exit:
            code = int(exit.code or 0)
        except Exception as err:  # a benchmark reports a failure, it does not stop
            print(f"{type(err).__name__}: {err}")
            code = 2
    seconds = time.perf_counter() - start
    return (seconds if code in (0, 1) else None), out.getvalue()


def floor(server_store: MemoryStore, path: Path) -> float:
    """The file's quads (and claim index) posted unvalidated by the server's bulk path."""
    quads = list(claim_index.with_index(parse(path=str(path), format=RdfFormat.TRIG)))
    start = time.perf_counter()
    server_store.backend.bulk_extend(quads)
    return time.perf_counter() - start


def pick_params(store: MemoryStore) -> dict[str, dict[str, str]]:
    """One subject, one superseded claim (its chain) and one message, from the tenant."""
    subject = next(iter(store.query(f"SELECT ?s WHERE {{ GRAPH <{TENANT}> {{ ?c memx:subject ?s . ?c2 mem:supersedes ?c }} }} LIMIT 1")))["s"].value
    claim = next(iter(store.query(f"SELECT ?c WHERE {{ GRAPH <{TENANT}> {{ ?n mem:supersedes ?c }} }} LIMIT 1")))["c"].value
    message = next(iter(store.query(f"SELECT ?m WHERE {{ GRAPH <{TENANT}> {{ ?c mem:assertedBy ?m }} }} LIMIT 1")))["m"].value
    t = {"tenant": TENANT}
    return {"current": {**t, "subject": subject}, "historical": {**t, "subject": subject, "valid_at": "2025-06-01T00:00:00Z"},
            "audit": {**t, "subject": subject, "known_at": "2025-06-01T00:00:00Z"},
            "history": {**t, "claim": claim}, "lineage": {**t, "claim": claim}, "support": {**t, "claim": claim},
            "dependents": {**t, "source": message}}


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=50, help="calls of each view per store (default 50)")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; {args.claims:,} claims", flush=True)
    rows: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "memory.trig"
        generate(args.claims, data, seed=0)
        targets: dict[str, list[str]] = {"embedded": ["--store", str(Path(tmp) / "embedded")]}
        servers = []
        try:
            for name, starter in (("oxigraph", start_oxigraph), ("virtuoso", start_virtuoso)):
                for role in ("", "-floor"):
                    folder = Path(tmp) / (name + role)
                    folder.mkdir()
                    started = starter(folder)
                    if isinstance(started, str):
                        print(f"{name}: skipped ({started})")
                        break
                    servers.append(started)
                    targets[name + role] = ["--endpoint", started.endpoint]
            stores: dict[str, MemoryStore] = {}
            for name, flags in targets.items():
                if name.endswith("-floor"):
                    seconds = floor(MemoryStore.connect(flags[1]), data)
                    rows.setdefault(name[: -len("-floor")], {})["floor"] = f"{seconds:.1f} s"
                    print(f"{name}: {seconds:.1f} s", flush=True)
                    continue
                seconds, out = run_cli(*flags, "load", str(data))
                by = out.rsplit("written by ", 1)[-1].strip() if "written by" in out else ""
                rows.setdefault(name, {})["load"] = f"{seconds:.1f} s" if seconds else "F"
                print(f"{name}: load {rows[name]['load']} {by}", flush=True)
                if not seconds:
                    print(out[-1500:], flush=True)
                stores[name] = MemoryStore(flags[1], read_only=True) if name == "embedded" else MemoryStore.connect(flags[1], read_only=True)
            params = pick_params(stores["embedded"])
            for view in VIEWS:
                times: dict[str, list[float]] = {name: [] for name in stores}
                for _ in range(args.reps):
                    for name, store in stores.items():
                        start = time.perf_counter()
                        try:
                            list(store.view(view, params[view]))
                        except Exception:
                            times[name].append(float("inf"))
                            continue
                        times[name].append(time.perf_counter() - start)
                for name, samples in times.items():
                    p50, p95 = statistics.median(samples) * 1000, percentile(samples, 0.95) * 1000
                    rows[name][view] = "F" if p50 == float("inf") else f"{p50:.1f} / {p95:.1f} ms"
                print(view, {n: rows[n][view] for n in stores}, flush=True)
            for name, flags in targets.items():
                if name.endswith("-floor"):
                    continue
                for what, command in (("recall", ["recall", "cups of tea", "--tenant", TENANT]),
                                      ("validate", ["validate"]),
                                      ("export", ["export", "-o", str(Path(tmp) / f"{name}.trig")])):
                    seconds, _ = run_cli(*flags, *command)
                    rows[name][what] = f"{seconds:.1f} s" if seconds is not None else "F"
                print(name, rows[name], flush=True)
        finally:
            for server in servers:
                server.stop()
    columns = ["load", "floor", *VIEWS, "recall", "validate", "export"]
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    print("| | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(row.get(c, "") for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
