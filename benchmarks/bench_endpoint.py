"""The endpoint's costs: snapshot checkpoints, and view throughput against Oxigraph's own server.

    python benchmarks/bench_endpoint.py                   # 100k claims, 1/2/4/8 clients
    python benchmarks/bench_endpoint.py --claims 10000 --clients 1,8 --seconds 5
    python benchmarks/bench_endpoint.py --json out.json
    python benchmarks/bench_endpoint.py --store PATH      # an existing store (only read)

Builds (once, cached under ``$TMPDIR/memkg-bench-cache``) an on-disk store of the
synthetic memory (``synthetic.py``), loaded unvalidated: this times the endpoint,
not writes. Everything runs on scratch checkpoints of that store, never on it.

1. **Checkpoints** (``memkg serve`` publishes one after every write): rounds of a
   one-quad write followed by ``Snapshots.publish`` (flush + ``Store.backup``),
   interleaved with a bare ``Store.backup`` after a write; then what a worker pays to
   switch to a new snapshot (``Store.read_only`` plus a first query).
2. **Throughput**: ``memkg serve`` and ``oxigraph serve`` (the baseline, if the
   ``oxigraph`` program is on PATH) on copies of the same store, each asked the same
   requests by N client processes over keep-alive connections for ``--seconds``; rounds
   alternate between the two servers so the machine's load falls on both alike.
   Requests/s, p50/p95 latency, and the CPU the server's process tree spent per request
   (which the machine's load changes far less than the rates). ``--workload``: ``history`` (the bound ``history``
   view of a random claim) or ``select`` (a plain SELECT of a random claim's confidence
   and source, the same text to both servers).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic  # noqa: E402

from pyoxigraph import Literal, NamedNode, Quad, Store  # noqa: E402

from memkg import MemoryStore  # noqa: E402

from memkg.store import views
from memkg.adapters.endpoint.snapshots import Snapshots  # noqa: E402

CACHE = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "memkg-bench-cache"


def cached_store(claims: int) -> Path:
    path = CACHE / f"endpoint-store-c{claims}-g{synthetic.GENERATOR_VERSION}"
    if (path / "CURRENT").exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    trig = CACHE / f"endpoint-c{claims}.trig"
    if not trig.exists():
        synthetic.generate(claims, trig)
    shutil.rmtree(path, ignore_errors=True)
    print(f"loading {trig} into {path} (once)…", file=sys.stderr)
    with MemoryStore(path, validation=None) as store:
        store.load(trig)
    return path


def checkpoint(source: Path, target: Path) -> None:
    Store.read_only(str(source)).backup(str(target))


def bench_checkpoints(scratch: Path, rounds: int) -> dict:
    """What one write costs the server beyond the write: publishing the snapshot, as
    :meth:`Snapshots.publish` does it (flush, then checkpoint), against a bare
    ``Store.backup`` (which flushes each column family itself), interleaved; then a
    worker's switch to the new snapshot."""
    store = MemoryStore(scratch, validation=None)
    snapshots = Snapshots(store)
    publish, bare, reopen, first_query = [], [], [], []
    spare = scratch.parent / "bare"
    for i in range(rounds):
        store.write([Quad(NamedNode(f"urn:bench:s{i}"), NamedNode("urn:bench:p"), Literal(str(i)))])
        t0 = time.perf_counter()
        generation = snapshots.publish()
        publish.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        snapshot = Store.read_only(str(generation.path))
        reopen.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        list(snapshot.query(f"SELECT ?o WHERE {{ <urn:bench:s{i}> <urn:bench:p> ?o }}"))
        first_query.append(time.perf_counter() - t0)
        del snapshot
        store.write([Quad(NamedNode(f"urn:bench:t{i}"), NamedNode("urn:bench:p"), Literal(str(i)))])
        t0 = time.perf_counter()
        store.raw.backup(str(spare))
        bare.append(time.perf_counter() - t0)
        shutil.rmtree(spare)
    quads = len(store)
    snapshots.close()
    store.close()
    return {
        "quads": quads,
        "publish_after_write_ms": summary(publish),
        "bare_backup_after_write_ms": summary(bare),
        "read_only_open_ms": summary(reopen),
        "first_query_ms": summary(first_query),
    }


def summary(seconds: list[float]) -> dict:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "p50": round(statistics.median(ms), 2),
        "p95": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 2),
        "max": round(ms[-1], 2),
        "n": len(ms),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, path: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", path)
            if conn.getresponse().status < 500:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"no server on port {port}")


def client(port: int, paths: list[str], seconds: float, ready: multiprocessing.Queue, go: multiprocessing.Event,
           out: multiprocessing.Queue) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.connect()
    rng = random.Random(os.getpid())
    latencies, errors = [], 0
    ready.put(True)
    go.wait()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        conn.request("GET", rng.choice(paths), headers={"Accept": "application/sparql-results+json"})
        r = conn.getresponse()
        r.read()
        latencies.append(time.perf_counter() - t0)
        errors += r.status != 200
    out.put((latencies, errors))


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) that process ``pid`` and its live descendants have used:
    a server's cost per request, which the machine's load changes far less than its rate."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = int(stat.parent.name)
        parents[child] = int(fields[1])
        times[child] = (int(fields[11]) + int(fields[12])) / tick
    tree, grew = {pid}, True
    while grew:
        more = {c for c, parent in parents.items() if parent in tree} - tree
        grew = bool(more)
        tree |= more
    return sum(times.get(p, 0.0) for p in tree)


def load(port: int, paths: list[str], clients: int, seconds: float, server_pid: int | None = None) -> dict:
    ctx = multiprocessing.get_context("spawn")
    out, ready, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=client, args=(port, paths, seconds, ready, go, out)) for _ in range(clients)]
    for p in procs:
        p.start()
    for _ in procs:  # every client started and connected before the clock starts
        ready.get()
    cpu = tree_cpu(server_pid) if server_pid else 0.0
    go.set()
    results = [out.get() for _ in procs]
    cpu = tree_cpu(server_pid) - cpu if server_pid else 0.0
    for p in procs:
        p.join()
    latencies = [x for lat, _ in results for x in lat]
    return {
        "requests_per_s": round(len(latencies) / seconds, 1),
        "latency_ms": summary(latencies),
        "errors": sum(e for _, e in results),
        "server_cpu_us_per_request": round(cpu * 1e6 / max(1, len(latencies)), 1),
    }


WORKLOADS = ("history", "select")

#: The plain SELECT: one claim's confidence and source, in whichever graph it is.
SELECT = """PREFIX mem: <https://w3id.org/memkg#>
SELECT ?confidence ?source WHERE { GRAPH ?g { <%s> mem:confidence ?confidence ; mem:assertedBy ?source } }"""


def workload_paths(source: Path, workload: str, count: int = 200) -> dict[str, list[str]]:
    """The request paths of ``workload`` for each server, on ``count`` claims picked at random
    (the same claims, so both servers do the same work)."""
    sample_store = Store.read_only(str(source))
    claims = [r["c"].value for r in sample_store.query(
        "SELECT ?c WHERE { GRAPH ?g { ?c a <https://w3id.org/memkg#Claim> } } LIMIT 20000")]
    del sample_store
    picked = random.Random(0).sample(claims, min(count, len(claims)))
    if workload == "select":
        texts = [SELECT % c for c in picked]
        return {"memkg": ["/sparql?" + urlencode({"query": t}) for t in texts],
                "oxigraph": ["/query?" + urlencode({"query": t}) for t in texts]}
    history = views.get_view("history")
    return {
        "memkg": ["/views/history?" + urlencode({"claim": c}) for c in picked],
        "oxigraph": ["/query?" + urlencode({"query": views.bind(history, {"claim": c}).text, "union-default-graph": ""})
                     for c in picked],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--store", type=Path, help="an existing store to measure (read, never written)")
    parser.add_argument("--clients", default="1,2,4,8")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per client count")
    parser.add_argument("--checkpoints", type=int, default=30)
    parser.add_argument("--workers", type=int, default=0, help="memkg serve --workers (0: its default)")
    parser.add_argument("--workload", choices=WORKLOADS, default="history")
    parser.add_argument("--serve-args", default="", help="more options for memkg serve, space-separated")
    parser.add_argument("--no-checkpoints", action="store_true", help="skip the checkpoint rounds")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)

    source = args.store or cached_store(args.claims)
    results: dict = {"store": str(source), "claims": None if args.store else args.claims, "workload": args.workload,
                     "cpus": os.cpu_count(), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="memkg-bench-endpoint-") as tmp:
        scratch = Path(tmp) / "ckpt" / "store"
        scratch.parent.mkdir()
        if not args.no_checkpoints:
            checkpoint(source, scratch)
            results["checkpoints"] = bench_checkpoints(scratch, args.checkpoints)
            print(json.dumps(results["checkpoints"]), file=sys.stderr)

        paths = workload_paths(source, args.workload)
        memkg_paths, oxigraph_paths = paths["memkg"], paths["oxigraph"]

        servers = {}
        memkg_store = Path(tmp) / "memkg" / "store"
        memkg_store.parent.mkdir()
        checkpoint(source, memkg_store)
        port = free_port()
        cmd = [sys.executable, "-m", "memkg", "--store", str(memkg_store), "serve", "--port", str(port)]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        cmd += args.serve_args.split()
        servers["memkg"] = (subprocess.Popen(cmd, stderr=subprocess.DEVNULL), port, memkg_paths)
        if shutil.which("oxigraph"):
            ox_store = Path(tmp) / "oxigraph"
            checkpoint(source, ox_store)
            port = free_port()
            proc = subprocess.Popen(
                ["oxigraph", "serve-read-only", "--location", str(ox_store), "--bind", f"127.0.0.1:{port}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            servers["oxigraph"] = (proc, port, oxigraph_paths)
        try:
            for name, (_, port, paths) in servers.items():
                wait_for(port, paths[0])
                load(port, paths, 2, 2.0)  # warm-up
            runs: dict = {name: {} for name in servers}
            for n in (int(x) for x in args.clients.split(",")):
                for _ in range(args.rounds):
                    for name, (proc, port, paths) in servers.items():
                        run = load(port, paths, n, args.seconds, proc.pid)
                        runs[name].setdefault(str(n), []).append(run)
                        print(f"{name:9} {n} clients: {run}", file=sys.stderr)
            results["throughput"] = {
                name: {
                    n: {
                        "requests_per_s": statistics.median(r["requests_per_s"] for r in rs),
                        "p50_ms": statistics.median(r["latency_ms"]["p50"] for r in rs),
                        "p95_ms": statistics.median(r["latency_ms"]["p95"] for r in rs),
                        "server_cpu_us_per_request": statistics.median(r["server_cpu_us_per_request"] for r in rs),
                        "errors": sum(r["errors"] for r in rs),
                    }
                    for n, rs in per_n.items()
                }
                for name, per_n in runs.items()
            }
            if "oxigraph" in runs:
                ours, theirs = results["throughput"]["memkg"], results["throughput"]["oxigraph"]
                results["memkg_vs_oxigraph"] = {
                    n: {"requests_per_s": round(ours[n]["requests_per_s"] / theirs[n]["requests_per_s"], 2),
                        "p95": round(ours[n]["p95_ms"] / theirs[n]["p95_ms"], 2),
                        "server_cpu_per_request": round(ours[n]["server_cpu_us_per_request"]
                                                        / max(1.0, theirs[n]["server_cpu_us_per_request"]), 2)}
                    for n in ours
                }
        finally:
            for proc, _, _ in servers.values():
                proc.terminate()
                proc.wait(60)
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
