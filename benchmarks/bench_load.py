"""Load throughput: memkg's load against pyoxigraph's raw bulk load, on the same file.

    python benchmarks/bench_load.py [--claims 20000,50000,100000] [--shape full|lean] [--repeat 3] [--json out.json]

Generates (or reuses from a cache directory outside the repository) a synthetic
memory of ``--claims`` claims (``benchmarks/synthetic.py``; several sizes, comma-separated,
are run one after the other; ``--shape lean`` writes lean claims, as an agent writes them,
eight quads each, instead of the generator's whole memory of ~16 quads per claim), then, in
this process and on that one file, loads it
into a fresh on-disk store per run with:

raw    ``pyoxigraph.Store(dir)`` + ``bulk_load(path=file)`` + ``flush()``: the floor;
memkg  ``memkg.MemoryStore(dir)`` + ``.load(file)`` + ``.close()``: the library
       (parse, claim index, validation when installed, commit);
cli    ``memkg --store DIR load FILE`` as a subprocess: end to end, including
       interpreter start-up and imports;
memkg-general (opt-in) as ``memkg``, but the general write path a load into a store
       that already holds data takes (stage, validate, then bulk write), not the
       first-load path (``memkg.loading.first_load``): what the first-load path saves.
memkg-noval (opt-in) as ``memkg``, with ``MemoryStore(dir, validation=None)``: what
       validation costs.

Variants are interleaved (raw, memkg, cli, raw, memkg, cli, …) so drift (page
cache, thermal, other load on the machine) hits all of them alike. Each run's
wall time covers opening the store through the final flush/close; store
directories are deleted after each run. The markdown table goes to stdout,
progress to stderr, and ``--json`` writes the full record (every run, the
quad counts, the environment, a SHA-256 of memkg's sources). See
``benchmarks/README.md``.

The columns:

min s / median s   wall seconds; the median is the headline, the min the run least
                   disturbed by the machine.
quads/s            quads parsed from the file per second of the median run (memkg
                   writes more: the claim index, which is its cost).
x raw              median(variant) / median(raw); "best": min(variant) / min(raw).
CPU s, CPU x raw   CPU seconds of every thread (and of the children for ``cli``):
                   steadier than wall time on a busy machine, but not the goal metric
                   (Oxigraph's bulk loader runs several threads, Python's work one).
peak RSS MB        the highest resident memory of the run.
other procs CPU s  CPU seconds other processes used during the run; well above zero
                   means the run competed for the cores: rerun, read the ``min``
                   column, or pass ``--wait-quiet SECONDS``.
store after        quads in the store after a run: tenant data, the claim index
                   (three per ``rdf:reifies`` triple), the ontology; size on disk.
memkg phases       open, load, close, and inside the load the phases its
                   ``LoadReport.seconds`` records (count, parse, validate, write,
                   index, optimize, flush; a first load's other process's phases).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pyoxigraph
from pyoxigraph import NamedNode, RdfFormat, Store, parse

import memkg
from memkg import MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic  # noqa: E402

#: The goals: a validated load within 2x, then 1.5x, of the raw bulk load.
GOAL_RATIOS = (2.0, 1.5)
#: Namespace of memkg's claim-index triples (``memkg.store.claim_index``); counted, not imported.
MEMX = "https://w3id.org/memkg/index#"
VARIANTS = ("raw", "memkg", "cli")  # the default run; "memkg-noval" is opt-in


def log(message: str) -> None:
    print(f"[bench_load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- the input file -------------------------------------------------------------------


def dataset(claims: int, seed: int, tenants: int, cache_dir: Path, shape: str = "full") -> tuple[Path, dict[str, Any]]:
    """The synthetic file for these arguments, generated once and cached by size, seed, shape and generator.

    ``shape``: ``full``, a whole memory of ~16 quads per claim (``synthetic.generate``), or
    ``lean``, claims as an agent writes them, 8 quads each (``synthetic.generate_lean``).
    """
    source = Path(synthetic.__file__).read_bytes()
    key = hashlib.sha256(source).hexdigest()[:10]
    cache_dir.mkdir(parents=True, exist_ok=True)
    kind = "" if shape == "full" else f"{shape}-"
    path = cache_dir / f"synthetic-{kind}c{claims}-s{seed}-t{tenants}-g{synthetic.GENERATOR_VERSION}-{key}.trig"
    meta_path = path.with_suffix(".json")
    if path.is_file() and meta_path.is_file():
        log(f"reusing {path} ({path.stat().st_size / 1e6:.1f} MB)")
        meta = json.loads(meta_path.read_text())
        meta["cached"] = True
        return path, meta
    log(f"generating {claims:,} {shape} claims (seed {seed}, {tenants} tenant(s)) -> {path}")
    stats = synthetic.GENERATORS[shape](claims, path, seed=seed, tenants=tenants)
    meta = asdict(stats)
    meta["shape"] = shape
    log(f"generated {stats.bytes / 1e6:.1f} MB in {stats.seconds:.1f} s")
    # Count the quads as a parser sees them (this also warms the page cache).
    t0 = time.perf_counter()
    meta["file_quads"] = sum(1 for _ in parse(path=str(path), format=RdfFormat.TRIG))
    meta["parse_count_seconds"] = round(time.perf_counter() - t0, 3)
    meta_path.write_text(json.dumps(meta, indent=2))
    meta["cached"] = False
    return path, meta


def warm(path: Path) -> None:
    """Read the file once so that no variant pays for the cold page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


# -- memory ---------------------------------------------------------------------------


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak_rss() -> bool:
    """Reset this process's VmHWM (Linux: writing 5 to clear_refs); False if not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# -- other load on the machine ------------------------------------------------------------


def _busy_cpu_seconds() -> float | None:
    """CPU seconds spent by the whole machine so far (all CPUs, not idle/iowait), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _own_cpu_seconds() -> float:
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class ForeignCpu:
    """CPU seconds that *other* processes used in a span: the machine's busy time minus ours
    (this process and the children it waited for). Large values mean a noisy measurement."""

    def __enter__(self) -> "ForeignCpu":
        self.machine, self.own = _busy_cpu_seconds(), _own_cpu_seconds()
        self.seconds: float | None = None
        return self

    def __exit__(self, *exc: object) -> None:
        machine = _busy_cpu_seconds()
        if machine is not None and self.machine is not None:
            self.seconds = max(0.0, (machine - self.machine) - (_own_cpu_seconds() - self.own))


def wait_for_quiet(max_wait: float, threshold: float = 0.25) -> float | None:
    """Wait (up to ``max_wait`` s) until other processes use less than ``threshold`` CPUs,
    measured over one second; returns the last measurement (CPUs busy with other work)."""
    deadline = time.monotonic() + max_wait
    while True:
        with ForeignCpu() as f:
            time.sleep(1.0)
        busy = f.seconds
        if busy is None or busy < threshold or time.monotonic() >= deadline:
            return busy
        log(f"machine busy ({busy:.2f} CPUs used by other processes); waiting")


# -- the variants ----------------------------------------------------------------------


def run_raw(file: Path, store_dir: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    store = Store(str(store_dir))
    store.bulk_load(path=str(file))  # format from the extension, as memkg does
    store.flush()
    t1 = time.perf_counter()
    del store
    t2 = time.perf_counter()
    return {"seconds": t2 - t0, "phases": {"open+bulk_load+flush": t1 - t0, "drop": t2 - t1}}


def run_memkg(file: Path, store_dir: Path, opener: Any = MemoryStore) -> dict[str, Any]:
    t0 = time.perf_counter()
    store = opener(store_dir)
    t1 = time.perf_counter()
    report = store.load(file)
    t2 = time.perf_counter()
    validating = getattr(store, "validator", None) is not None
    store.close()
    del store
    t3 = time.perf_counter()
    # The load's own phases (parse, index, validate, write, …) when this memkg reports them.
    inner = {f"load:{k}": v for k, v in getattr(report, "seconds", {}).items()}
    return {
        "seconds": t3 - t0,
        "phases": {"open": t1 - t0, "load": t2 - t1, **inner, "close": t3 - t2},
        "report": {"parsed": report.parsed, "added": report.added, "bulk": report.bulk},
        "validating": validating,
    }


def open_unvalidated(store_dir: Path) -> MemoryStore:
    """A MemoryStore that writes unchecked (``validation=None``), to separate validation from the rest.

    Not part of the default run (variant ``memkg-noval``). The fallback serves a
    memkg old enough to have no ``validation`` keyword, whose stores never validate.
    """
    try:
        return MemoryStore(store_dir, validation=None)  # type: ignore[call-arg]
    except TypeError:
        return MemoryStore(store_dir)


def run_memkg_unvalidated(file: Path, store_dir: Path) -> dict[str, Any]:
    return run_memkg(file, store_dir, opener=open_unvalidated)


def run_memkg_general(file: Path, store_dir: Path) -> dict[str, Any]:
    """``memkg``, with the first-load path (memkg.loading.first_load) turned off for the run."""
    from memkg.loading import first_load

    saved = first_load.MIN_BYTES
    first_load.MIN_BYTES = 1 << 62
    try:
        return run_memkg(file, store_dir)
    finally:
        first_load.MIN_BYTES = saved


def memkg_command() -> list[str]:
    exe = shutil.which("memkg")
    return [exe] if exe else [sys.executable, "-m", "memkg"]


# The CLI runs under this small Python parent, which times it and reads its
# rusage. A child's ru_maxrss on Linux starts from its parent's peak RSS at
# fork/exec, so waiting for it from this (gigabyte-sized) process would report
# our own peak; from a fresh small parent it is the CLI's own.
_CLI_TIMER = r"""
import json, os, subprocess, sys, time
t0 = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
out = proc.stdout.read()
_, status, ru = os.wait4(proc.pid, 0)
t1 = time.perf_counter()
proc.returncode = os.waitstatus_to_exitcode(status)
print(json.dumps({"seconds": t1 - t0, "returncode": proc.returncode, "maxrss_kb": ru.ru_maxrss,
                  "user": ru.ru_utime, "system": ru.ru_stime, "output": out.decode(errors="replace")}))
"""


def run_cli(file: Path, store_dir: Path) -> dict[str, Any]:
    cmd = [*memkg_command(), "--store", str(store_dir), "load", str(file)]
    done = subprocess.run(
        [sys.executable, "-c", _CLI_TIMER, *cmd], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise RuntimeError(f"CLI timer failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    m = json.loads(done.stdout)
    if m["returncode"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {m['returncode']}:\n{m['output']}")
    return {
        "seconds": m["seconds"],
        "peak_rss_mb": m["maxrss_kb"] / 1024,  # Linux: ru_maxrss is in kilobytes
        "user_seconds": m["user"],
        "system_seconds": m["system"],
        "stdout": m["output"].strip(),
    }


def release_memory() -> None:
    """Collect garbage and hand freed heap back to the OS (glibc), so every run starts alike."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


RUNNERS = {"raw": run_raw, "memkg": run_memkg, "cli": run_cli, "memkg-noval": run_memkg_unvalidated,
           "memkg-general": run_memkg_general}


def count_store(store_dir: Path) -> dict[str, int]:
    """Quads in a loaded store: total, in tenant graphs, claim-index triples, and the rest (ontology)."""
    store = Store.read_only(str(store_dir))
    try:
        total = len(store)
        index = sum(
            1
            for p in ("subject", "predicate", "object")
            for _ in store.quads_for_pattern(None, NamedNode(MEMX + p), None, None)
        )
        per_graph = {
            str(row["g"].value): int(row["n"].value)
            for row in store.query("SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        }
        tenant_quads = sum(n for g, n in per_graph.items() if g.startswith(synthetic.TENANT_BASE))
    finally:
        del store
    return {
        "total": total,
        "tenant_graphs": tenant_quads,
        "index": index,
        "data": tenant_quads - index,
        "other": total - tenant_quads,
    }


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# -- summary and output ------------------------------------------------------------------


def summarize(runs: dict[str, list[dict[str, Any]]], file_quads: int) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for variant, rs in runs.items():
        secs = [r["seconds"] for r in rs]
        s: dict[str, Any] = {
            "runs": len(secs),
            "min_seconds": min(secs),
            "median_seconds": statistics.median(secs),
            "max_seconds": max(secs),
            "quads_per_second_median": file_quads / statistics.median(secs),
            "quads_per_second_best": file_quads / min(secs),
        }
        cpu = [r["cpu_seconds"] for r in rs if r.get("cpu_seconds") is not None]
        if cpu:
            s["cpu_seconds_median"] = statistics.median(cpu)
        foreign = [r["foreign_cpu_seconds"] for r in rs if r.get("foreign_cpu_seconds") is not None]
        if foreign:
            s["foreign_cpu_seconds_median"] = statistics.median(foreign)
        peaks = [r["peak_rss_mb"] for r in rs if r.get("peak_rss_mb") is not None]
        if peaks:
            s["peak_rss_mb_max"] = max(peaks)
        phases: dict[str, list[float]] = {}
        for r in rs:
            for name, value in r.get("phases", {}).items():
                phases.setdefault(name, []).append(value)
        if phases:
            s["phases_median_seconds"] = {k: statistics.median(v) for k, v in phases.items()}
        summary[variant] = s
    if "raw" in summary:
        raw = summary["raw"]
        for variant, s in summary.items():
            s["ratio_to_raw_median"] = s["median_seconds"] / raw["median_seconds"]
            s["ratio_to_raw_best"] = s["min_seconds"] / raw["min_seconds"]
            if "cpu_seconds_median" in s and raw.get("cpu_seconds_median"):
                s["cpu_ratio_to_raw_median"] = s["cpu_seconds_median"] / raw["cpu_seconds_median"]
    return summary


def markdown(record: dict[str, Any]) -> str:
    ds = record["dataset"]
    summary = record["summary"]
    counts = record["store_quads"]
    tenants = "" if ds.get("tenants") is None else f" ({ds['tenants']} tenant graph(s))"
    lines = [
        f"### memkg load vs raw bulk load: "
        f"{'a given file' if ds.get('claims') is None else format(ds['claims'], ',') + ' ' + _shape(ds) + 'claims'}, "
        f"{record['repeat']} repeats",
        "",
        f"File `{Path(ds['path']).name}`: {ds['bytes'] / 1e6:.1f} MB, "
        f"{ds['file_quads']:,} quads parsed{tenants}. "
        f"Times are wall seconds from opening a fresh on-disk store to the final flush/close.",
        "",
        "| variant | min s | median s | quads/s (median) | × raw (median) | × raw (best) "
        "| CPU s (median) | CPU × raw | peak RSS MB | other procs CPU s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    labels = {
        "raw": "raw: `Store.bulk_load` + `flush`",
        "memkg": "memkg: `MemoryStore.load`",
        "cli": "cli: `memkg load` (subprocess)",
        "memkg-noval": "memkg, `validation=None`",
        "memkg-general": "memkg, general path (no first load)",
    }
    for variant, s in summary.items():
        peak = s.get("peak_rss_mb_max")
        foreign = s.get("foreign_cpu_seconds_median")
        lines.append(
            f"| {labels[variant]} | {s['min_seconds']:.2f} | {s['median_seconds']:.2f} | "
            f"{s['quads_per_second_median']:,.0f} | {s.get('ratio_to_raw_median', float('nan')):.2f} | "
            f"{s.get('ratio_to_raw_best', float('nan')):.2f} | {s.get('cpu_seconds_median', float('nan')):.1f} | "
            f"{s.get('cpu_ratio_to_raw_median', float('nan')):.2f} | {'' if peak is None else f'{peak:,.0f}'} | "
            f"{'' if foreign is None else f'{foreign:.1f}'} |"
        )
    lines += [
        "",
        "| store after | total quads | tenant graphs | of which claim index | data | other (ontology graph) | on disk MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for variant, c in counts.items():
        lines.append(
            f"| {variant} | {c['total']:,} | {c['tenant_graphs']:,} | {c['index']:,} | {c['data']:,} | "
            f"{c['other']:,} | {c['disk_bytes'] / 1e6:,.0f} |"
        )
    for variant in ("memkg", "memkg-noval", "memkg-general"):
        if variant in summary and "phases_median_seconds" in summary[variant]:
            ph = summary[variant]["phases_median_seconds"]
            lines += [
                "",
                f"{variant} phases (median s): " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items())
                + (f"; validating: {record.get('memkg_validating')}" if variant == "memkg" else ""),
            ]
    verdict = record.get("goal")
    if verdict:
        met = ", ".join(f"≤ {g}×: **{'met' if ok else 'not met'}**" for g, ok in zip(verdict["ratios"], verdict["met"]))
        loads = [run["load_average"] for runs in record["runs"].values() for run in runs if "load_average" in run]
        lines += [
            "",
            f"Goals, memkg against raw (median): {met}. "
            f"Measured {verdict['measured_median']:.2f}× median, {verdict['measured_best']:.2f}× best"
            + (f"; load average {statistics.median(loads):.1f} over the runs." if loads else "."),
        ]
    return "\n".join(lines) + "\n"


def _shape(ds: dict[str, Any]) -> str:
    """``"lean "`` for lean claims, nothing for the generator's full memory (and a given file)."""
    return "lean " if ds.get("shape") == "lean" else ""


def memkg_source_digest() -> str:
    """SHA-256 over the memkg package's Python sources: which code was measured (the tree may be uncommitted)."""
    root = Path(memkg.__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def environment() -> dict[str, Any]:
    return {
        "memkg_path": str(Path(memkg.__file__).resolve().parent),
        "memkg_source_sha256": memkg_source_digest(),
        "python": platform.python_version(),
        "pyoxigraph": getattr(pyoxigraph, "__version__", "?"),
        "memkg": getattr(memkg, "__version__", "?"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "memkg_command": memkg_command(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", default="100000",
                    help="claims in the synthetic memory; several sizes comma-separated, run in turn (default 100000)")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--tenants", type=int, default=1, help="tenant graphs (default 1)")
    ap.add_argument("--shape", choices=synthetic.GENERATORS, default="full",
                    help="full: a whole memory, ~16 quads per claim; lean: claims as an agent writes them, "
                         "8 quads each (default full)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per variant (default 3)")
    ap.add_argument(
        "--variants", default=",".join(VARIANTS), help=f"comma-separated, from {','.join(RUNNERS)} (default {','.join(VARIANTS)})"
    )
    ap.add_argument("--json", type=Path, help="write the full record here")
    ap.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memkg-bench-cache",
        help="where generated inputs are kept between runs (default: $TMPDIR/memkg-bench-cache)",
    )
    ap.add_argument("--work-dir", type=Path, default=None, help="where the scratch stores go (default: $TMPDIR)")
    ap.add_argument("--file", type=Path, help="benchmark this file instead of a generated one")
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="before each run, wait up to SECONDS until other processes use < 0.25 CPUs (default: don't wait)",
    )
    args = ap.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        if v not in RUNNERS:
            ap.error(f"unknown variant {v!r}")

    inputs: list[tuple[Path, dict[str, Any]]] = []
    if args.file:
        file = args.file.resolve()
        meta = {"path": str(file), "claims": None, "tenants": None, "bytes": file.stat().st_size, "cached": None}
        meta["file_quads"] = sum(1 for _ in parse(path=str(file)))
        inputs.append((file, meta))
    else:
        for claims in (int(c) for c in args.claims.split(",") if c.strip()):
            inputs.append(dataset(claims, args.seed, args.tenants, args.cache_dir, args.shape))
    records = [measure(file, meta, args, variants) for file, meta in inputs]
    if len(records) > 1:
        sys.stdout.write(sizes_table(records))
    if args.json:
        args.json.write_text(json.dumps(records[0] if len(records) == 1 else records, indent=2) + "\n")
        log(f"wrote {args.json}")
    return 0


def measure(file: Path, meta: dict[str, Any], args: argparse.Namespace, variants: list[str]) -> dict[str, Any]:
    """Every variant on one input, interleaved, ``args.repeat`` times; prints its tables."""
    file_quads = meta["file_quads"]
    warm(file)
    log(f"input {file}: {meta['bytes'] / 1e6:.1f} MB, {file_quads:,} quads")

    can_reset_rss = reset_peak_rss()
    runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
    counts: dict[str, dict[str, int]] = {}
    validating = None
    with tempfile.TemporaryDirectory(prefix="memkg-bench-", dir=args.work_dir) as scratch:
        for rep in range(1, args.repeat + 1):
            for variant in variants:
                store_dir = Path(scratch) / f"{variant}-{rep}"
                release_memory()
                if variant != "cli" and can_reset_rss:
                    reset_peak_rss()
                rss_before = _status_kb("VmRSS")
                busy_before = wait_for_quiet(args.wait_quiet) if args.wait_quiet > 0 else None
                own_before = _own_cpu_seconds()
                load_before = os.getloadavg()[0]
                with ForeignCpu() as foreign:
                    result = RUNNERS[variant](file, store_dir)
                result["cpu_seconds"] = _own_cpu_seconds() - own_before
                result["load_average"] = (load_before + os.getloadavg()[0]) / 2
                result["foreign_cpu_seconds"] = foreign.seconds
                result["foreign_cpus_before"] = busy_before
                if variant != "cli" and can_reset_rss:
                    peak = _status_kb("VmHWM")
                    result["peak_rss_mb"] = peak / 1024 if peak is not None else None
                    result["rss_before_mb"] = rss_before / 1024 if rss_before is not None else None
                if variant == "memkg":
                    validating = result.get("validating")
                if variant == "memkg-noval" and result.get("validating"):
                    raise SystemExit("memkg-noval: this memkg cannot open a store without validation")
                gc.collect()
                if variant not in counts:
                    c = count_store(store_dir)
                    c["disk_bytes"] = dir_size(store_dir)
                    counts[variant] = c
                    result["store_quads"] = c["total"]
                else:
                    check = Store.read_only(str(store_dir))
                    result["store_quads"] = len(check)
                    del check
                    if result["store_quads"] != counts[variant]["total"]:
                        log(f"WARNING: {variant} run {rep} stored {result['store_quads']:,} quads, "
                            f"run 1 stored {counts[variant]['total']:,}")
                shutil.rmtree(store_dir, ignore_errors=True)
                runs[variant].append(result)
                rate = file_quads / result["seconds"]
                noise = result["foreign_cpu_seconds"]
                log(
                    f"run {rep}/{args.repeat} {variant:5}: {result['seconds']:7.2f} s  ({rate:,.0f} quads/s)"
                    + ("" if noise is None else f"  [other processes: {noise:.1f} CPU s]")
                )

    summary = summarize(runs, file_quads)
    record: dict[str, Any] = {
        "benchmark": "load",
        "repeat": args.repeat,
        "variants": variants,
        "dataset": meta,
        "environment": environment(),
        "memkg_validating": validating,
        "store_quads": counts,
        "summary": summary,
        "runs": runs,
    }
    if "raw" in summary and "memkg" in summary:
        m = summary["memkg"]
        record["goal"] = {
            "ratios": list(GOAL_RATIOS),
            "measured_median": m["ratio_to_raw_median"],
            "measured_best": m["ratio_to_raw_best"],
            "met": [m["ratio_to_raw_median"] <= goal for goal in GOAL_RATIOS],
        }
    sys.stdout.write(markdown(record))
    return record


def sizes_table(records: list[dict[str, Any]]) -> str:
    """One line per input size: each variant's median wall and CPU time against raw's, and how
    busy the machine was (load average, 1 min, over the runs: 2 cores here)."""
    variants = [v for v in records[0]["summary"] if v != "raw"]
    head = "| claims | quads | raw s | " + " | ".join(
        f"{v} s | {v} × raw (median, best) | {v} CPU × raw" for v in variants) + " | load average |"
    lines = ["", "### By size", "", head, "|" + "---|" * (head.count("|") - 1)]
    for r in records:
        sm, ds = r["summary"], r["dataset"]
        loads = [run["load_average"] for runs in r["runs"].values() for run in runs if "load_average" in run]
        cells = [f"{ds['claims']:,} {_shape(ds)}".rstrip() if ds.get("claims") else Path(ds["path"]).name, f"{ds['file_quads']:,}",
                 f"{sm['raw']['median_seconds']:.2f}"]
        for v in variants:
            s = sm[v]
            cells += [f"{s['median_seconds']:.2f}", f"**{s['ratio_to_raw_median']:.2f}**, {s['ratio_to_raw_best']:.2f}",
                      f"{s.get('cpu_ratio_to_raw_median', float('nan')):.2f}"]
        cells.append(f"{statistics.median(loads):.1f}" if loads else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
