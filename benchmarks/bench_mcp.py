"""Agent-tool latency: remember_message and recall through MCP (stdio, streamable HTTP) beside the
same calls through the Python API, on one store of N messages.

    python benchmarks/bench_mcp.py [--messages 100000] [--calls 200] [--json out.json]
    python benchmarks/bench_mcp.py --floor [--calls 200] [--baseline-src DIR]   # the SDK's own cost: a no-op tool

Three paths, each on its own copy of one store (a store is held by one process): the Python API
(:class:`memkg.adapters.agent_tools.MemoryTools`, the very methods the tools call, in this process),
``memkg mcp`` over stdio (launched by the SDK's client) and ``memkg mcp --http`` with a tokens file
(every request carries its bearer token). Each round makes the same call on every path, in a
shuffled order, so the three share the machine's noise: ``calls`` remember_message with fresh event
ids, and ``calls`` recall (k=10, with the evidence packet) over a fixed list of questions, after a
warm-up (the recall index loaded). Transport overhead is the median of the paired differences
(MCP call minus the same call through the Python API in the same round).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.mcp_servers import HttpServer, http_client, result, stdio_client  # noqa: E402

from memkg import MemoryStore  # noqa: E402
from memkg.guard.access import OPEN  # noqa: E402
from memkg.adapters.agent_tools import MemoryTools  # noqa: E402
from memkg.core.model import content_hash  # noqa: E402

TENANT = "https://example.org/tenants/bench"
TOKEN = "bench-token-0123456789"
WORDS = (
    "tea coffee sugar milk evening morning night project deadline database migration postgres mysql "
    "meeting budget travel berlin paris flight hotel doctor medication allergy peanut running marathon "
    "guitar piano concert birthday sister brother friend colleague manager report invoice contract "
    "garden tomato recipe pasta curry vegan cheese wine beer water yoga sleep headache holiday beach "
    "mountain ski bike train car rent apartment lease insurance tax refund bank loan savings laptop "
    "phone password backup server outage release bug feature review test deploy kubernetes python"
).split()
QUESTIONS = [
    "what does Lia drink in the evening?", "when is the project deadline?", "database migration to postgres",
    "who has a peanut allergy?", "hotel in berlin for the flight", "the marathon training plan",
    "which medication for the headache?", "sister birthday concert", "the server outage after the release",
    "apartment lease and rent", "vegan curry recipe", "tax refund from the bank",
]


def build(path: Path, n: int) -> dict[str, float]:
    """A store of ``n`` messages in one tenant (N-Quads, one bulk load), and its recall index."""
    rng = random.Random(0)
    lines = []
    mem, xsd = "https://w3id.org/memkg#", "http://www.w3.org/2001/XMLSchema#"
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
        node = f"<urn:bench:message:{i}>"
        stamp = f"2026-01-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z"
        for p, o in (
            ("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", f"<{mem}Message>"),
            (f"{mem}content", json.dumps(text)),
            (f"{mem}contentHash", json.dumps(content_hash(text))),
            (f"{mem}eventId", f'"seed-{i}"'),
            (f"{mem}eventTime", f'"{stamp}"^^<{xsd}dateTime>'),
            (f"{mem}recordedAt", f'"{stamp}"^^<{xsd}dateTime>'),
        ):
            lines.append(f"{node} <{p}> {o} <{TENANT}> .\n")
    data = path.parent / "messages.nq"
    data.write_text("".join(lines), encoding="utf-8")
    times = {}
    with MemoryStore(path) as store:
        started = time.perf_counter()
        store.load(data)
        times["load_s"] = time.perf_counter() - started
        started = time.perf_counter()
        store.recall("tea", tenant=TENANT, k=1)  # builds the recall index (kept on disk)
        times["recall_index_s"] = time.perf_counter() - started
    data.unlink()
    return times


def summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {"p50": statistics.median(ms), "p95": ms[max(0, int(round(0.95 * len(ms))) - 1)], "n": len(ms)}


def make_calls(tools: MemoryTools, clients: dict):
    """Per path, the two calls as coroutines: remember_message (fresh event id i) and recall (question i)."""

    def content(i: int) -> str:
        return f"note {i}: {WORDS[i % len(WORDS)]} {WORDS[(7 * i) % len(WORDS)]}"

    async def py_remember(i: int, tag: str) -> None:
        tools.remember_message(OPEN, content=content(i), event_id=f"{tag}-{i}", tenant=TENANT)

    async def py_recall(i: int, tag: str) -> None:
        tools.recall(OPEN, query=QUESTIONS[i % len(QUESTIONS)], k=10, tenant=TENANT)

    def over(client):
        async def remember(i: int, tag: str) -> None:
            result(await client.call_tool("remember_message", {
                "content": content(i), "event_id": f"{tag}-{i}", "tenant": TENANT}))

        async def recall(i: int, tag: str) -> None:
            result(await client.call_tool("recall", {"query": QUESTIONS[i % len(QUESTIONS)], "k": 10,
                                                     "tenant": TENANT}))
        return {"remember_message": remember, "recall": recall}

    return {"python": {"remember_message": py_remember, "recall": py_recall},
            **{path: over(client) for path, client in clients.items()}}


def server_pid(store: Path) -> int:
    """The pid of the ``memkg mcp`` the SDK launched on ``store`` (stdio)."""
    found = subprocess.run(["pgrep", "-f", "--", f"--store {store} mcp"], capture_output=True, text=True)
    return int(found.stdout.split()[0])


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(paths: dict[str, Path], tokens: Path, calls: int, warmup: int, baseline: Path | None = None) -> dict:
    """Every call on every path, interleaved in a shuffled order, so that the paths share the
    machine's noise; each path works on its own copy of the same store. ``baseline``: the paths
    "stdio before" and "http before" run memkg from that source tree."""
    from contextlib import AsyncExitStack

    rng = random.Random(1)
    samples: dict[str, dict[str, list[float]]] = {p: {"remember_message": [], "recall": []} for p in paths}
    cpu = {p: 0.0 for p in paths}  # CPU seconds of the measured calls: this process (python), each server
    client_cpu = {p: 0.0 for p in paths if p != "python"}  # this process's CPU in each path's MCP calls
    async with AsyncExitStack() as stack:
        store = stack.enter_context(MemoryStore(paths["python"]))
        clients, pids = {}, {}
        for path in paths:
            src = baseline if path.endswith(" before") else None
            if path.startswith("stdio"):
                clients[path] = await stack.enter_async_context(stdio_client(paths[path], src=src))
                pids[path] = server_pid(paths[path])
            elif path.startswith("http"):
                server = stack.enter_context(HttpServer(paths[path], "--tokens", str(tokens), src=src))
                clients[path] = await stack.enter_async_context(http_client(server.url, TOKEN))
                pids[path] = server.process.pid
        calls_by_path = make_calls(MemoryTools(store), clients)
        for i in range(warmup + calls):
            if i == warmup:
                cpu.update({p: -process_cpu(pid) for p, pid in pids.items()})
            for tool in ("remember_message", "recall"):
                order = list(paths)
                rng.shuffle(order)
                for path in order:
                    started, started_cpu = time.perf_counter(), time.process_time()
                    await calls_by_path[path][tool](i, path)
                    if i >= warmup:
                        samples[path][tool].append(time.perf_counter() - started)
                        if path == "python":
                            cpu["python"] += time.process_time() - started_cpu
                        else:
                            client_cpu[path] += time.process_time() - started_cpu
        cpu.update({p: cpu[p] + process_cpu(pid) for p, pid in pids.items()})
    out: dict = {"cpu_ms_per_call": {p: c / (2 * calls) * 1000 for p, c in cpu.items()},
                 "client_cpu_ms_per_call": {p: c / (2 * calls) * 1000 for p, c in client_cpu.items()}}
    for path, by_tool in samples.items():
        out[path] = {}
        for tool, xs in by_tool.items():
            out[path][tool] = summary(xs)
            if path != "python":
                paired = [x - y for x, y in zip(xs, samples["python"][tool])]
                out[path][tool]["overhead_p50"] = statistics.median(paired) * 1000
    return out


NOOP = str(Path(__file__).with_name("mcp_noop_server.py"))
#: The floor: a no-op tool on the SDK alone, beside memkg's cheapest call (current_claims, empty store).
FLOOR_PATHS = {
    "stdio": [("SDK MCPServer, SDK stdio", ["mcpserver", "stdio"]), ("SDK Server, SDK stdio", ["lowlevel", "stdio"]),
              ("SDK Server, memkg stdio", ["lowlevel", "memkg-stdio"]), ("memkg mcp", None)],
    "http": [("SDK MCPServer, JSON responses", ["mcpserver", "http"]), ("SDK Server, JSON responses", ["lowlevel", "http"]),
             ("memkg mcp --http", None)],
}


async def measure_floor(store: Path, calls: int, warmup: int, baseline: Path | None = None) -> dict:
    """Latency and CPU (client, server) per call of a no-op tool on the SDK alone, and of memkg's
    current_claims on an empty store (and the same call through the Python API), interleaved."""
    from contextlib import AsyncExitStack

    rng = random.Random(2)
    args = {"content": "note 1: tea coffee", "event_id": "e-1", "tenant": TENANT}
    paths: dict[str, dict] = {}
    async with AsyncExitStack() as stack:
        for transport, configs in FLOOR_PATHS.items():
            if baseline is not None:
                configs = [*configs, (f"memkg mcp{' --http' if transport == 'http' else ''} from {baseline}", None)]
            for name, noop in configs:
                label = f"{transport}: {name}"
                command = None if noop is None else [NOOP, *noop]
                src = baseline if name.endswith(f" from {baseline}") else None
                if src is not None:
                    store = store.with_name(store.name + "-baseline")
                if transport == "stdio":
                    client = await stack.enter_async_context(stdio_client(store, command=command, src=src))
                    pid = server_pid(store) if noop is None else int(subprocess.run(
                        ["pgrep", "-f", "--", " ".join(command)], capture_output=True, text=True).stdout.split()[0])
                else:
                    server = stack.enter_context(HttpServer(store, command=command, src=src))
                    client = await stack.enter_async_context(http_client(server.url))
                    pid = server.process.pid
                tool, arguments = ("noop", args) if noop is not None else ("current_claims", {"limit": 1})
                paths[label] = {"client": client, "pid": pid, "tool": tool, "args": arguments,
                                "wall": [], "client_cpu": 0.0, "server_cpu": 0.0}
            if transport == "stdio":
                store = store.with_name(store.name + "-http")  # a store is held by one process
        tools = MemoryTools(stack.enter_context(MemoryStore(store.with_name("api"))))  # on disk, like the servers'
        api = {"wall": [], "cpu": 0.0}
        for i in range(warmup + calls):
            order = [*paths, "api"]
            rng.shuffle(order)
            for label in order:
                started, started_cpu = time.perf_counter(), time.process_time()
                if label == "api":
                    tools.claims(OPEN, "current", limit=1)
                    if i >= warmup:
                        api["wall"].append(time.perf_counter() - started)
                        api["cpu"] += time.process_time() - started_cpu
                    continue
                path = paths[label]
                server_cpu = process_cpu(path["pid"])
                result(await path["client"].call_tool(path["tool"], path["args"]))
                if i >= warmup:
                    path["wall"].append(time.perf_counter() - started)
                    path["client_cpu"] += time.process_time() - started_cpu
                    path["server_cpu"] += process_cpu(path["pid"]) - server_cpu
    out = {"api": {"p50": summary(api["wall"])["p50"], "cpu_ms": api["cpu"] / calls * 1000}}
    for label, path in paths.items():
        out[label] = {"p50": summary(path["wall"])["p50"], "client_cpu_ms": path["client_cpu"] / calls * 1000,
                      "server_cpu_ms": path["server_cpu"] / calls * 1000}
    return out


def print_floor(floor: dict) -> None:
    print("| path | p50 ms | client CPU ms/call | server CPU ms/call |")
    print("|---|---:|---:|---:|")
    api = floor["api"]
    print(f"| Python API: current_claims, empty store | {api['p50']:.2f} | {api['cpu_ms']:.2f} | |")
    for label, f in floor.items():
        if label != "api":
            print(f"| {label} | {f['p50']:.2f} | {f['client_cpu_ms']:.2f} | {f['server_cpu_ms']:.2f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--json", type=Path, help="write the figures here too")
    ap.add_argument("--floor", action="store_true",
                    help="instead: a no-op tool on the SDK alone beside memkg's cheapest call (per-call CPU too)")
    ap.add_argument("--baseline-src", type=Path, metavar="DIR",
                    help="also memkg mcp from another source tree, e.g. an export of an earlier commit "
                    "(git archive REV | tar -x -C DIR; pass DIR/src)")
    args = ap.parse_args(argv)
    if args.floor:
        with tempfile.TemporaryDirectory(prefix="bench-mcp-floor-") as tmp:
            floor = asyncio.run(measure_floor(Path(tmp) / "store", args.calls, args.warmup, args.baseline_src))
        print_floor(floor)
        if args.json:
            args.json.write_text(json.dumps(floor, indent=2))
        return 0
    names = ["python", "stdio", "http", *(["stdio before", "http before"] if args.baseline_src else [])]
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        paths = {name: Path(tmp) / name.replace(" ", "-") for name in names}
        report: dict = {"messages": args.messages, "calls": args.calls, "build": build(paths["python"], args.messages)}
        print(f"built {args.messages:,} messages: {report['build']}", file=sys.stderr)
        for name in names[1:]:
            shutil.copytree(paths["python"], paths[name])  # the same data, one copy per process
        tokens = Path(tmp) / "tokens.json"
        tokens.write_text(json.dumps({TOKEN: {"tenants": [TENANT], "write": True}}))
        phases = report["phases"] = asyncio.run(measure(paths, tokens, args.calls, args.warmup, args.baseline_src))
    print("| tool | path | p50 ms | p95 ms | overhead p50 ms (paired) |")
    print("|---|---|---:|---:|---:|")
    for tool in ("remember_message", "recall"):
        for phase in names:
            s = phases[phase][tool]
            over = "" if phase == "python" else f"{s['overhead_p50']:+.2f}"
            print(f"| {tool} | {phase} | {s['p50']:.2f} | {s['p95']:.2f} | {over} |")
    per_call = phases["cpu_ms_per_call"]
    print("\nCPU per call (both tools, averaged): " + ", ".join(
        f"{p} {per_call[p]:.2f} ms" + ("" if p == "python" else f" (server process, {per_call[p] - per_call['python']:+.2f})")
        for p in names))
    print("client CPU per MCP call (the SDK's client, this process): " + ", ".join(
        f"{p} {c:.2f} ms" for p, c in phases["client_cpu_ms_per_call"].items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
