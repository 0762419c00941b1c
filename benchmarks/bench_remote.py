"""Remote stores against the embedded store: view latency, load and server startup.

Loads the two examples into an embedded in-memory store, an Oxigraph server and
Virtuoso (each started here, as tests/store/test_remote.py does), then runs each view
call of the remote tests' parameter sets, interleaved across the three stores,
ROUNDS times, and prints the median per store and the ratio to embedded.

    PYTHONPATH=src python3 benchmarks/bench_remote.py [ROUNDS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memkg import MemoryStore  # noqa: E402
from tests.support.remote_servers import start_oxigraph, start_virtuoso  # noqa: E402
from tests.store.test_remote import FILES, VIEW_CASES  # noqa: E402


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    MemoryStore().load(*FILES)  # warm-up: the validator compiles memkg's shapes once per process
    stores: dict[str, MemoryStore] = {"embedded": MemoryStore()}
    loads = {"embedded": timed(lambda: stores["embedded"].load(*FILES))}
    servers = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, starter in (("oxigraph", start_oxigraph), ("virtuoso", start_virtuoso)):
            folder = Path(tmp) / name
            folder.mkdir()
            server = starter(folder)
            if isinstance(server, str):
                print(f"{name}: skipped ({server})")
                continue
            servers.append(server)
            print(f"{name}: started in {server.startup_seconds:.2f} s")
            stores[name] = MemoryStore.connect(server.endpoint)
            loads[name] = timed(lambda s=stores[name]: s.load(*FILES))
        try:
            per_call: dict[str, list[float]] = {name: [] for name in stores}
            for _ in range(rounds):
                for view, params in VIEW_CASES:
                    for name, store in stores.items():  # interleaved: the same load on each
                        per_call[name].append(timed(lambda: list(store.view(view, params))))
            base = statistics.median(per_call["embedded"])
            print(f"{len(VIEW_CASES)} view calls x {rounds} rounds")
            for name, times in per_call.items():
                med = statistics.median(times)
                print(f"{name:>9}: load {loads[name] * 1000:7.1f} ms   view median {med * 1000:6.2f} ms"
                      f"   ({med / base:5.1f}x embedded)")
        finally:
            for server in servers:
                server.stop()


if __name__ == "__main__":
    main()
