"""Where one request's time goes in ``memkg serve``, stage by stage, at 1 and at 8 clients.

    python benchmarks/profile_endpoint.py                       # 100k claims, plain SELECT, 1 and 8 clients
    python benchmarks/profile_endpoint.py --clients 1,8,32 --seconds 10 --workload history

The endpoint runs in this process (the same ``Endpoint`` and transport ``memkg serve``
builds, on a scratch copy of the benchmark store, see ``bench_endpoint.py``); its query
workers are started by the fork server as always, with this module preloaded there so
that they time their own stages too. Client processes (``bench_endpoint.load``) send
keep-alive requests for ``--seconds``.

Each stage is timed around the call that does it: wall time, and the CPU time of the
thread that ran it (``time.thread_time``). Their difference is time the thread was
ready but not running: waiting for the GIL or for a core. Waits that are a stage of
their own (for an idle worker, for the worker's reply, for a lock) are timed as wall
time. The figures are per request (per job in the workers), in microseconds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: Set in the environment of the fork server: its workers time their stages into this folder.
WORKER_DIR = "MEMKG_PROFILE_WORKER_DIR"

_events: deque[tuple[str, int, int]] = deque()  # (stage, wall ns, thread CPU ns)


def _record(stage: str, wall0: int, cpu0: int) -> None:
    _events.append((stage, time.perf_counter_ns() - wall0, time.thread_time_ns() - cpu0))


def _timed(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        wall0, cpu0 = time.perf_counter_ns(), time.thread_time_ns()
        try:
            return fn(*args, **kwargs)
        finally:
            _record(stage, wall0, cpu0)
    return timed


def _timed_entry(stage: str, manager: Callable[..., Any]) -> Callable[..., Any]:
    """A context manager method whose entry (taking the lock, the slot) is timed."""
    @contextlib.contextmanager
    def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
        wall0, cpu0 = time.perf_counter_ns(), time.thread_time_ns()
        with manager(*args, **kwargs) as value:
            _record(stage, wall0, cpu0)
            yield value
    return timed


def totals() -> dict[str, list[int]]:
    """Stage -> [count, wall ns, CPU ns], of the events recorded so far (which are then forgotten)."""
    out: dict[str, list[int]] = {}
    while _events:
        stage, wall, cpu = _events.popleft()
        t = out.setdefault(stage, [0, 0, 0])
        t[0] += 1
        t[1] += wall
        t[2] += cpu
    return out


# -- the worker's stages (installed in the fork server, so in every worker it forks) --------------


def _hook_worker(folder: str) -> None:
    import pickle

    from memkg.adapters.endpoint import jobs, rights, worker

    last = [time.monotonic()]
    cumulative: dict[str, list[int]] = {}

    def dump() -> None:
        for stage, (n, wall, cpu) in totals().items():
            t = cumulative.setdefault(stage, [0, 0, 0])
            t[0] += n
            t[1] += wall
            t[2] += cpu
        Path(folder, f"worker-{os.getpid()}.json").write_text(json.dumps(cumulative))

    def receive(conn: Any) -> Any:
        data = conn.recv_bytes()  # the wait for the next job: not a cost
        wall0, cpu0 = time.perf_counter_ns(), time.thread_time_ns()
        try:
            return pickle.loads(data)
        finally:
            _record("worker: the job unpickled", wall0, cpu0)

    def send(conn: Any, message: object) -> None:
        wall0, cpu0 = time.perf_counter_ns(), time.thread_time_ns()
        try:
            jobs_send(conn, message)
        finally:
            _record("worker: the reply pickled and sent", wall0, cpu0)
        if time.monotonic() - last[0] > 0.2:
            last[0] = time.monotonic()
            dump()

    jobs_send = jobs.send
    jobs.receive = receive
    jobs.send = send
    worker.run = _timed("worker: the job run", worker.run)
    worker._Loop._run = _timed("worker: the job, with its thread chosen and watched", worker._Loop._run)
    worker._query = _timed("worker: the query and its serialisation (rights included)", worker._query)
    rights.query_dataset = _timed("worker: rights (the dataset from the parsed query)", rights.query_dataset)


if os.environ.get(WORKER_DIR) and __name__ != "__main__":
    _hook_worker(os.environ[WORKER_DIR])


# -- the server's stages ---------------------------------------------------------------------------


def _hook_server() -> None:
    from memkg.adapters.endpoint import app, handler, jobs, pool, snapshots, transport

    transport.Connection.parse_request = _timed("server: request line and headers parsed",
                                                transport.Connection.parse_request)
    transport.Connection._handle = _timed("server: the request handled (total)", transport.Connection._handle)
    app.Endpoint.admit = _timed("server: token and rights (admit)", app.Endpoint.admit)
    transport.Connection._read_body = _timed("server: body read", transport.Connection._read_body)
    handler.read = _timed("server: the request value (handler.read)", handler.read)
    app.Endpoint.answer = _timed("server: answer (total)", app.Endpoint.answer)
    app.Endpoint._run = _timed("server: the worker's round trip (total)", app.Endpoint._run)
    transport.Connection._send = _timed("server: response written", transport.Connection._send)
    pool.WorkerShares.slot = _timed_entry("server: lock: the token's share", pool.WorkerShares.slot)
    snapshots.Snapshots.reading = _timed_entry("server: lock: the snapshot", snapshots.Snapshots.reading)
    jobs.send = _timed("server: the job pickled and sent", jobs.send)
    jobs.ready = _timed("server: waiting for the worker's reply", jobs.ready)
    jobs.receive = _timed("server: the reply received and unpickled", jobs.receive)


def _hook_pool_queue(endpoint: Any) -> None:
    queue = endpoint.pool._idle
    queue.get = _timed("server: waiting for an idle worker (the queue)", queue.get)


def _worker_totals(folder: Path) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for f in folder.glob("worker-*.json"):
        for stage, (n, wall, cpu) in json.loads(f.read_text()).items():
            t = out.setdefault(stage, [0, 0, 0])
            t[0] += n
            t[1] += wall
            t[2] += cpu
    return out


def _minus(after: dict[str, list[int]], before: dict[str, list[int]]) -> dict[str, list[int]]:
    return {s: [a - b for a, b in zip(v, before.get(s, [0, 0, 0]))] for s, v in after.items()}


def engine_split(store_path: Path, paths: list[str], rounds: int = 2000) -> dict[str, float]:
    """One thread, no server: what ``Store.query`` (parse and plan) and the evaluation with its
    serialisation cost apart, in microseconds (medians), on the workload's own queries."""
    from urllib.parse import parse_qs, urlsplit

    from pyoxigraph import QueryResultsFormat, Store

    from memkg.core.vocab import PREFIXES

    store = Store.read_only(str(store_path))
    queries = [parse_qs(urlsplit(p).query)["query"][0] for p in paths if "query=" in p]
    if not queries:
        return {}
    parse, whole, listed = [], [], []
    for i in range(rounds):
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        results = store.query(q, prefixes=PREFIXES)
        t1 = time.perf_counter()
        results.serialize(format=QueryResultsFormat.JSON)
        t2 = time.perf_counter()
        list(store.query(q, prefixes=PREFIXES))
        t3 = time.perf_counter()
        parse.append(t1 - t0)
        whole.append(t2 - t0)
        listed.append(t3 - t2)
    p, w, ls = (statistics.median(x) * 1e6 for x in (parse, whole, listed))
    return {"query parsed and planned": p, "evaluated": ls - p, "serialised": w - ls}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--clients", default="1,8")
    parser.add_argument("--workload", default="select", choices=["select", "history"])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=0, help="query workers (0: memkg serve's default)")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)

    import bench_endpoint

    from memkg import MemoryStore
    from memkg.adapters.endpoint import pool, transport, worker
    from memkg.adapters.endpoint.app import Endpoint, Settings
    from memkg.adapters.endpoint.server import default_workers

    source = bench_endpoint.cached_store(args.claims)
    paths = bench_endpoint.workload_paths(source, args.workload)["memkg"]
    results: dict[str, Any] = {"workload": args.workload, "claims": args.claims, "load_before": os.getloadavg(),
                               "engine_us": engine_split(source, paths), "clients": {}}
    with tempfile.TemporaryDirectory(prefix="memkg-profile-endpoint-") as tmp:
        folder = Path(tmp) / "workers"
        folder.mkdir()
        os.environ[WORKER_DIR] = str(folder)
        pool._SPAWN.set_forkserver_preload([worker.__name__, Path(__file__).stem])
        store_path = Path(tmp) / "store"
        bench_endpoint.checkpoint(source, store_path)
        _hook_server()
        store = MemoryStore(store_path)
        endpoint = Endpoint(store, Settings(workers=args.workers or default_workers()))
        _hook_pool_queue(endpoint)
        server = transport.Server(("127.0.0.1", 0), endpoint)
        port = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        try:
            bench_endpoint.load(port, paths, 2, 1.0)  # warm-up
            for n in (int(x) for x in args.clients.split(",")):
                totals()
                time.sleep(0.5)
                workers_before = _worker_totals(folder)
                load = bench_endpoint.load(port, paths, n, args.seconds)
                time.sleep(0.5)  # the workers' last figures reach their files
                server_side = totals()
                worker_side = _minus(_worker_totals(folder), workers_before)
                results["clients"][str(n)] = {"load": load, "server": server_side, "worker": worker_side}
                print(f"{n} clients: {load['requests_per_s']:.0f} requests/s, p50 {load['latency_ms']['p50']} ms",
                      file=sys.stderr)
        finally:
            server.shutdown()
            server.server_close()
            endpoint.close(0)
            store.close()
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    print(report(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def report(results: dict[str, Any]) -> str:
    """The stages as a Markdown table: µs per request (per job for the workers), wall and CPU."""
    counts = list(results["clients"])
    header = "| stage | " + " | ".join(f"{n} client{'s' if n != '1' else ''}: wall | CPU" for n in counts) + " |"
    lines = [header, "|---|" + "---:|---:|" * len(counts)]
    stages: list[str] = []
    for per in results["clients"].values():
        for side in ("server", "worker"):
            stages += [s for s in per[side] if s not in stages]
    for stage in stages:
        cells = []
        for per in results["clients"].values():
            side = per["worker" if stage.startswith("worker") else "server"]
            n, wall, cpu = side.get(stage, [0, 0, 0])
            requests = per["server"].get("server: the request handled (total)", [1])[0] or 1
            per_what = n if stage.startswith("worker") else requests
            cells += [f"{wall / 1000 / max(per_what, 1):.0f}", f"{cpu / 1000 / max(per_what, 1):.0f}"]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    lines.append("| client: latency p50 (µs) | " + " | ".join(
        f"{per['load']['latency_ms']['p50'] * 1000:.0f} | " for per in results["clients"].values()) + " |")
    lines.append("| requests/s | " + " | ".join(
        f"{per['load']['requests_per_s']:,.0f} | " for per in results["clients"].values()) + " |")
    engine = results.get("engine_us") or {}
    if engine:
        lines.append("")
        lines.append("One thread, no server (medians, µs): " + ", ".join(f"{k} {v:.0f}" for k, v in engine.items()))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
