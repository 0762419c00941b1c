"""Normal clients and hostile clients at once against one ``memkg serve --tokens``.

    python benchmarks/bench_hostile.py                        # 3 rounds of 10 s quiet, 10 s under attack
    python benchmarks/bench_hostile.py --seconds 5 --rounds 2 --json out.json

One server on 127.0.0.1 (``--timeout 2``), on a store of the two examples plus a few
thousand claims of each tenant's own. Phases alternate (quiet, attack, quiet, …) so
the machine's load falls on both alike; every loop stops by itself at its phase's end.

* normal clients (Lia's and Bob's tokens): the ``current`` view of their tenant, and
  one write in five (a one-triple Graph Store POST); requests/s and p50/p95 latency.
* hostile clients (Mallory's token, her own empty tenant; and no token): runaway
  queries and updates (four-way cross joins, killed at the time limit), triple terms
  nested 100,000 deep, a 2 MiB query, SERVICE and LOAD aimed at a local listener,
  ``"TO" * 1500``, 200,000 brackets the depth scan misreads, a 4,000-word recall question,
  and tokenless requests declaring a 60 MiB body.

Reports normal traffic quiet vs under attack (the goal: within 1.5x), the statuses
the hostile requests got, the peak memory of the server and of its workers (VmHWM),
and the connections the listener saw (must be 0).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memkg import MemoryStore  # noqa: E402
from memkg.recall import RECALL_INDEX  # noqa: E402

EXAMPLES = ROOT / "examples"
LIA = "https://example.org/tenants/lia"
BOB = "https://example.org/tenants/bob"
MALLORY = "https://example.org/tenants/mallory"
TOKENS = {
    "lia-token": {"tenants": [LIA], "write": True, "name": "lia"},
    "bob-token": {"tenants": [BOB], "write": True, "name": "bob"},
    "mallory-token": {"tenants": [MALLORY], "write": True, "name": "mallory"},
}
RUNAWAY_QUERY = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?a ?b ?c . ?d ?e ?f . ?h ?i ?j . ?k ?l ?m } }"
RUNAWAY_UPDATE = (f"INSERT {{ GRAPH <{MALLORY}> {{ <urn:x> <urn:y> ?n }} }} WHERE {{ {{ {RUNAWAY_QUERY} }} }}")


def build_store(path: Path, claims: int) -> None:
    """The examples, plus ``claims`` claims in each of Lia's and Bob's graphs (Bob's written as Lia's are)."""
    lines = ["@prefix mem: <https://w3id.org/memkg#> .", "@prefix prov: <http://www.w3.org/ns/prov#> .",
             "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> ."]
    for tenant, short in ((LIA, "lia"), (BOB, "bob")):
        lines.append(f"<{tenant}> {{")
        lines.append(f"  <https://example.org/{short}/bench-me> a mem:Person ; mem:displayName \"{short}\" .")
        lines.append(f"  <https://example.org/{short}/bench-msg> a mem:Message .")
        lines.append(f"  <https://example.org/{short}/bench-likes> a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> .")
        for n in range(claims):
            lines.append(
                f"  <https://example.org/{short}/bench-claim-{n}> a mem:Claim ; mem:assertedBy <https://example.org/{short}/bench-msg> ; "
                f"mem:recordedAt \"2026-01-01T00:00:00Z\"^^xsd:dateTime ; "
                f"<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <https://example.org/{short}/bench-me> "
                f"<https://example.org/{short}/bench-likes> \"thing {n}\" )>> ."
            )
        lines.append("}")
    data = path.parent / "bench-hostile.trig"
    data.write_text("\n".join(lines) + "\n")
    with MemoryStore(path) as store:
        store.load(EXAMPLES / "lia-tea.trig", EXAMPLES / "postgres-migration.trig", data)
        # Built now, so that the recall attack measures recall, not the one-time build (memkg's own
        # work, done by the server under the write lock on the first /recall of a store without one).
        store.follower(RECALL_INDEX, create=True)


class Listener:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()


def start_server(store: Path, tokens: Path, workers: int, timeout: float) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memkg", "--store", str(store), "serve", "--port", "0", "--tokens", str(tokens),
         "--timeout", str(timeout), "--workers", str(workers)],
        stderr=subprocess.PIPE, text=True, env=env,
    )
    first = proc.stderr.readline()  # type: ignore[union-attr]
    found = re.search(r"listening on http://[^:]+:(\d+)/", first)
    if not found:
        raise RuntimeError(f"memkg serve did not start: {first}")
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    return proc, int(found.group(1))


def request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | str | None = None,
            headers: dict[str, str] | None = None) -> int:
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    r.read()
    return r.status


def normal_client(port: int, token: str, tenant: str, start: float, until: float, out: multiprocessing.Queue) -> None:
    time.sleep(max(0.0, start - time.time()))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    auth = {"Authorization": f"Bearer {token}"}
    latencies: list[float] = []
    errors: dict[str, int] = {}
    n = 0
    while time.time() < until:
        n += 1
        started = time.monotonic()
        try:
            if n % 5 == 0:
                status = request(conn, "POST", f"/store?graph={tenant}",
                                 f"<{tenant}#note-{os.getpid()}-{n}> <urn:memkg:bench:seen> \"{n}\" .",
                                 {"Content-Type": "text/turtle", **auth})
            else:
                status = request(conn, "GET", f"/views/current?tenant={tenant}",
                                 headers={"Accept": "text/csv", **auth})
        except (OSError, http.client.HTTPException) as err:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            status = type(err).__name__
        latencies.append(time.monotonic() - started)
        if status not in (200, 201, 204):
            errors[str(status)] = errors.get(str(status), 0) + 1
    out.put(("normal", latencies, errors))


def attacks(listener_port: int) -> list[tuple[str, str, str, bytes | str, dict[str, str]]]:
    mallory = {"Authorization": "Bearer mallory-token"}
    query, update = {"Content-Type": "application/sparql-query"}, {"Content-Type": "application/sparql-update"}
    deep = "<urn:a> <urn:b> <<( " * 100_000 + "<urn:a> <urn:b> <urn:c>" + " )>>" * 100_000 + " ."
    service = (f"SELECT * WHERE {{ BIND(1 AS ?a) BIND(2 AS ?b) FILTER(?a<?b&&'>'!='') "
               f"SERVICE <http://127.0.0.1:{listener_port}/sparql> {{ ?s ?p ?o }} BIND('' AS ?z) }} #'")
    return [
        ("runaway query", "POST", "/sparql", RUNAWAY_QUERY, {**query, **mallory}),
        ("runaway update", "POST", "/update", RUNAWAY_UPDATE, {**update, **mallory}),
        ("deep body", "POST", f"/store?graph={MALLORY}", deep, {"Content-Type": "application/n-triples", **mallory}),
        ("2 MiB query", "POST", "/sparql", "SELECT * { ?s ?p ?o } #" + "x" * (2 << 20), {**query, **mallory}),
        ("SERVICE", "POST", "/sparql", service, {**query, **mallory}),
        ("LOAD", "POST", "/update", f"LOAD <http://127.0.0.1:{listener_port}/x.ttl>", {**update, **mallory}),
        ("TO*1500", "POST", "/update", "TO" * 1500, {**update, **mallory}),
        ("deep brackets", "POST", "/sparql", "ASK { FILTER(" + "(" * 20000 + "1" + ")" * 20000 + ") }",
         {**query, **mallory}),
        # the depth scan reads <?b&&'> as an IRI and the rest as a string; Oxigraph reads "<" as less-than
        ("misread brackets", "POST", "/sparql", "SELECT * WHERE { BIND(1 AS ?a) BIND(2 AS ?b) FILTER(?a<?b&&'>'!='' "
         "|| " + "(" * 200_000 + "1" + ")" * 200_000 + ") }", {**query, **mallory}),
        ("recall, 4,000 words", "GET", "/recall?q=" + "+".join(f"word{i}" for i in range(4000)), None, mallory),
        ("no token, 60 MiB declared", "RAW", "/update", b"", {}),
    ]


def hostile_client(
    port: int, listener_port: int, offset: int, start: float, until: float, out: multiprocessing.Queue,
    only: tuple[str, ...] = (), nice: bool = True,
) -> None:
    plan = [a for a in attacks(listener_port) if not only or a[0] in only]
    if nice:
        os.nice(19)  # the attacker's own CPU stands apart from the server's, as on another machine
    time.sleep(max(0.0, start - time.time()))
    statuses: dict[str, dict[int, int]] = {}
    n = offset
    while time.time() < until:
        name, method, path, body, headers = plan[n % len(plan)]
        n += 1
        try:
            if method == "RAW":
                with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                    s.sendall(b"POST /update HTTP/1.1\r\nHost: x\r\nContent-Length: 62914560\r\n\r\n" + b"x" * 65536)
                    status = int(s.recv(64).split()[1])
            else:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                try:
                    status = request(conn, method, path, body, headers)
                finally:
                    conn.close()
        except (OSError, http.client.HTTPException, ValueError, IndexError):
            status = 0
        statuses.setdefault(name, {}).setdefault(status, 0)
        statuses[name][status] += 1
    out.put(("hostile", statuses, {}))


def peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def phase(
    port: int, listener_port: int, seconds: float, normal: int, hostile: int, only: tuple[str, ...] = (),
    nice: bool = True,
) -> dict:
    start = time.time() + 5  # the clients start (imports) first, then all begin at once
    until = start + seconds
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()
    procs = []
    for i in range(normal):
        token, tenant = (("lia-token", LIA), ("bob-token", BOB))[i % 2]
        procs.append(ctx.Process(target=normal_client, args=(port, token, tenant, start, until, out)))
    for i in range(hostile):
        procs.append(ctx.Process(target=hostile_client, args=(port, listener_port, i * 3, start, until, out, only, nice)))
    for p in procs:
        p.start()
    latencies: list[float] = []
    errors: dict[str, int] = {}
    statuses: dict[str, dict[int, int]] = {}
    for _ in procs:
        kind, data, errs = out.get(timeout=seconds + 180)
        if kind == "normal":
            latencies += data
            for status, count in errs.items():
                errors[status] = errors.get(status, 0) + count
        else:
            for name, counts in data.items():
                for status, count in counts.items():
                    statuses.setdefault(name, {}).setdefault(status, 0)
                    statuses[name][status] += count
    for p in procs:
        p.join(30)
    return {"requests": len(latencies), "errors": errors, "seconds": seconds, "latencies": latencies,
            "statuses": statuses}


def summary(phases: list[dict]) -> dict:
    latencies = sorted(x for p in phases for x in p["latencies"])
    seconds = sum(p["seconds"] for p in phases)
    return {
        "requests_per_s": len(latencies) / seconds,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else None,
        "p95_ms": 1000 * latencies[int(0.95 * (len(latencies) - 1))] if latencies else None,
        "errors": sum(n for p in phases for n in p["errors"].values()),
        "error_statuses": {k: sum(p["errors"].get(k, 0) for p in phases) for p in phases for k in p["errors"]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="quiet/attack pairs")
    parser.add_argument("--normal", type=int, default=4, help="normal client processes")
    parser.add_argument("--hostile", type=int, default=2, help="hostile client processes")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--claims", type=int, default=2000, help="claims per tenant besides the examples")
    parser.add_argument("--only", action="append", default=[], metavar="ATTACK",
                        help="run only this attack (repeatable; names as in the report)")
    parser.add_argument("--hostile-nice", type=int, default=1, choices=[0, 1],
                        help="1 (default): hostile clients run at nice 19, their own CPU standing for another "
                             "machine's; 0: at normal priority, competing with the server for the same cores")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="memkg-bench-hostile-") as tmp:
        root = Path(tmp)
        build_store(root / "store", args.claims)
        tokens = root / "tokens.json"
        tokens.write_text(json.dumps(TOKENS))
        listener = Listener()
        server, port = start_server(root / "store", tokens, args.workers, args.timeout)
        try:
            quiet, attack = [], []
            for r in range(args.rounds):
                quiet.append(phase(port, listener.port, args.seconds, args.normal, 0))
                attack.append(phase(port, listener.port, args.seconds, args.normal, args.hostile, tuple(args.only),
                                    bool(args.hostile_nice)))
                print(f"round {r + 1}: quiet {summary(quiet[-1:])}, attack {summary(attack[-1:])}", file=sys.stderr)
            alive = server.poll() is None
            server_peak = peak_kib(server.pid)
            worker_peak = max((peak_kib(c) for c in children(server.pid)), default=0)
        finally:
            server.terminate()
            server.wait(60)
            listener.stop.set()
    q, a = summary(quiet), summary(attack)
    statuses: dict[str, dict[int, int]] = {}
    for p in attack:
        for name, counts in p["statuses"].items():
            for status, count in counts.items():
                statuses.setdefault(name, {}).setdefault(status, 0)
                statuses[name][status] += count
    result = {
        "settings": vars(args), "quiet": q, "attack": a,
        "throughput_ratio": q["requests_per_s"] / a["requests_per_s"] if a["requests_per_s"] else None,
        "p95_ratio": a["p95_ms"] / q["p95_ms"] if q["p95_ms"] and a["p95_ms"] else None,  # None: nothing answered
        "server_peak_mib": server_peak / 1024, "worker_peak_mib": worker_peak / 1024,
        "hostile_statuses": statuses, "listener_connections": listener.connections, "server_alive": alive,
    }
    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    def ratio(x: float | None) -> str:
        return "none answered" if x is None else f"{x:.2f}x"

    print(f"| phase | normal requests/s | p50 ms | p95 ms | errors |\n|---|---|---|---|---|")
    for name, s in (("quiet", q), ("under attack", a)):
        print(f"| {name} | {s['requests_per_s']:.1f} | {ms(s['p50_ms'])} | {ms(s['p95_ms'])} | {s['errors']} |")

    print(f"\nthroughput quiet/attack: {ratio(result['throughput_ratio'])}; p95 attack/quiet: {ratio(result['p95_ratio'])}")
    print(f"server peak memory {result['server_peak_mib']:.0f} MiB, worker peak {result['worker_peak_mib']:.0f} MiB; "
          f"listener connections {listener.connections}; server alive through the attack: {alive}")
    print("hostile requests:", json.dumps(statuses))
    print("normal requests that failed, quiet:", json.dumps(q["error_statuses"]), "under attack:",
          json.dumps(a["error_statuses"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
