"""Throughput and latency of a view over HTTP: ``memkg serve`` against Oxigraph's own server.

Both servers serve copies of one on-disk store (the synthetic memory of
``bench_views.py``, compacted; copies made with ``Store.backup``, so the data is the same
RocksDB content, index triples included), in the same run, one after the other:

* memkg: ``GET /views/current?tenant=T&subject=S`` — the view as users call it, through
  memkg's parameter binding, dataset selection, worker processes and serializer;
* Oxigraph: ``oxigraph serve-read-only`` (the Rust server the ``oxigraph`` package ships)
  answering ``GET /query?query=…`` with the same bound query text and the same dataset
  (``default-graph-uri`` = the tenant's graph and the ontology graph). This is the floor:
  the same query engine with no Python in the way.

``--clients`` client processes (default 8), each holding one keep-alive connection and
asking for a random subject's current claims back to back, for ``--duration`` seconds
(default 30) per server, after a warm-up. Reported per server: requests per second, p50
and p95 latency, errors; and the ratios memkg / Oxigraph. Goal (issue 7): memkg within 2×
of the Oxigraph server. Both servers answer SPARQL JSON; a sample of subjects is checked
to get the same rows from both before timing.

    python benchmarks/bench_endpoint.py                    # 100k claims, 8 clients, 30 s
    python benchmarks/bench_endpoint.py --claims 20000 --duration 10 --json out.json

The clients run on the same machine as the server: on a small machine they take CPU from
it, alike for both servers. The machine's load average is reported with the figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_views  # noqa: E402  (the synthetic memory and its cached store)
from pyoxigraph import Store  # noqa: E402

from memkg import ontology, views  # noqa: E402

_URL = re.compile(r"http://([\d.]+):(\d+)")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(host: str, port: int, path: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(host, port, timeout=5)
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status < 500:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server on {host}:{port} did not answer {path} within {timeout} s")


def start_memkg(store: Path, log: Path, extra: list[str]) -> tuple[subprocess.Popen, int]:
    out = open(log, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memkg", "--store", str(store), "serve", "--host", "127.0.0.1", "--port", "0", *extra],
        stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"memkg serve exited:\n{log.read_text()}")
        m = _URL.search(log.read_text(errors="replace"))
        if m:
            port = int(m.group(2))
            wait_http("127.0.0.1", port, "/health")
            return proc, port
        time.sleep(0.1)
    raise RuntimeError(f"memkg serve did not start:\n{log.read_text()}")


def start_oxigraph(store: Path, log: Path) -> tuple[subprocess.Popen, int]:
    binary = shutil.which("oxigraph")
    if binary is None:
        raise SystemExit("the `oxigraph` server binary is not on PATH: pip install oxigraph")
    port = free_port()
    proc = subprocess.Popen([binary, "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    wait_http("127.0.0.1", port, "/query?query=ASK%7B%7D")
    return proc, port


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def memkg_path(subject: str) -> str:
    return "/views/current?" + urlencode({"tenant": bench_views.TENANT, "subject": subject})


def oxigraph_path(subject: str) -> str:
    bound = views.bind(views.get_view("current"), {"subject": subject})
    params = [("query", bound.text), ("default-graph-uri", bench_views.TENANT),
              ("default-graph-uri", ontology.ONTOLOGY_GRAPH.value)]
    return "/query?" + urlencode(params)


def fetch(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path, headers={"Accept": "application/sparql-results+json"})
    resp = conn.getresponse()
    return resp.status, resp.read()


def client(args: tuple[str, int, str, list[str], float, int]) -> tuple[list[float], int, int]:
    """One client: keep-alive requests back to back until the deadline; latencies in seconds."""
    host, port, kind, subjects, deadline, seed = args
    rng = random.Random(seed)
    make = memkg_path if kind == "memkg" else oxigraph_path
    paths = [make(s) for s in subjects]
    conn = http.client.HTTPConnection(host, port, timeout=60)
    latencies: list[float] = []
    errors = 0
    while time.time() < deadline:
        path = paths[rng.randrange(len(paths))]
        t0 = time.perf_counter()
        try:
            status, _ = fetch(conn, path)
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=60)
            continue
        latencies.append(time.perf_counter() - t0)
        if status != 200:
            errors += 1
    conn.close()
    return latencies, errors, len(latencies)


def load(port: int, kind: str, subjects: list[str], clients: int, duration: float, seed: int) -> dict:
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        # warm-up: every client makes a few requests first (connection, caches)
        pool.map(client, [("127.0.0.1", port, kind, subjects, time.time() + 2, seed + i) for i in range(clients)])
        t0 = time.perf_counter()
        results = pool.map(client, [("127.0.0.1", port, kind, subjects, time.time() + duration, seed + 100 + i)
                                    for i in range(clients)])
        elapsed = time.perf_counter() - t0
    latencies = sorted(x for lat, _, _ in results for x in lat)
    errors = sum(e for _, e, _ in results)
    n = len(latencies)
    return {
        "requests": n,
        "errors": errors,
        "seconds": round(elapsed, 2),
        "rps": round(n / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 2) if n else None,
        "p95_ms": round(1000 * latencies[min(n - 1, int(0.95 * n))], 2) if n else None,
    }


def same_rows(mport: int, oport: int, subjects: list[str]) -> None:
    """Both servers give the same rows for a sample of subjects (the benchmark compares like with like)."""
    m = http.client.HTTPConnection("127.0.0.1", mport, timeout=60)
    o = http.client.HTTPConnection("127.0.0.1", oport, timeout=60)
    for s in subjects:
        rows = []
        for conn, path in ((m, memkg_path(s)), (o, oxigraph_path(s))):
            status, body = fetch(conn, path)
            if status != 200:
                raise SystemExit(f"{path[:80]}…: HTTP {status}: {body[:300]!r}")
            bindings = json.loads(body)["results"]["bindings"]
            rows.append(sorted(json.dumps(b, sort_keys=True) for b in bindings))
        if rows[0] != rows[1]:
            raise SystemExit(f"memkg and Oxigraph disagree on {s}: {len(rows[0])} vs {len(rows[1])} rows")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of load per server")
    ap.add_argument("--cache-dir", type=Path,
                    default=Path(os.environ.get("MEMKG_BENCH_DIR", Path(tempfile.gettempdir()) / "memkg-bench")))
    ap.add_argument("--serve-arg", action="append", default=[], help="extra argument for memkg serve (repeatable)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)

    cached, info = bench_views.build_store(args.claims, args.seed, args.cache_dir, optimize=True)
    n_people = max(1, args.claims // 20)
    rng = random.Random(args.seed)
    subjects = [f"{bench_views.EX}person{rng.randrange(n_people)}" for _ in range(500)]
    record: dict = {"claims": args.claims, "clients": args.clients, "duration_s": args.duration,
                    "store": info, "loadavg_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="memkg-bench-endpoint-") as tmp:
        work = Path(tmp)
        source = Store.read_only(str(cached))
        source.backup(work / "memkg")
        source.backup(work / "oxigraph")
        del source
        mproc, mport = start_memkg(work / "memkg", work / "memkg.log", args.serve_arg)
        oproc, oport = start_oxigraph(work / "oxigraph", work / "oxigraph.log")
        try:
            same_rows(mport, oport, subjects[:20])
            print(f"{args.claims:,} claims, {args.clients} clients, {args.duration:g} s per server", file=sys.stderr)
            # Oxigraph first, then memkg, then Oxigraph again: drift in the machine's load shows as a
            # difference between the two Oxigraph runs.
            record["oxigraph"] = load(oport, "oxigraph", subjects, args.clients, args.duration, args.seed)
            print(f"oxigraph: {record['oxigraph']}", file=sys.stderr)
            record["memkg"] = load(mport, "memkg", subjects, args.clients, args.duration, args.seed)
            print(f"memkg:    {record['memkg']}", file=sys.stderr)
            record["oxigraph_again"] = load(oport, "oxigraph", subjects, args.clients, args.duration, args.seed)
            print(f"oxigraph: {record['oxigraph_again']}", file=sys.stderr)
        finally:
            stop(mproc)
            stop(oproc)
    ox_rps = statistics.mean([record["oxigraph"]["rps"], record["oxigraph_again"]["rps"]])
    ox_p95 = statistics.mean([record["oxigraph"]["p95_ms"], record["oxigraph_again"]["p95_ms"]])
    record["throughput_ratio"] = round(ox_rps / record["memkg"]["rps"], 2)  # > 1: memkg slower
    record["p95_ratio"] = round(record["memkg"]["p95_ms"] / ox_p95, 2)
    record["loadavg_after"] = os.getloadavg()
    print(json.dumps(record, indent=2))
    if args.json:
        args.json.write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
