"""Does Oxigraph's loading run beside Python's work, on a second core? (the first load counts on it)

    python benchmarks/bench_overlap.py [--claims 20000] [--repeat 3]

The first load (``memkg.loading.first_load``) and any plan to "overlap the copy with validation"
count on pyoxigraph's loaders running on their own thread while Python works on the main
one. This measures it, in one process, on the synthetic memory of ``--claims`` claims
(``synthetic.py``, cached as ``bench_load.py`` caches it):

* each operation alone on a thread (wall seconds);
* a pure-Python loop alone (wall seconds);
* both at once: the loop on the main thread, the operation on its own.

``overlap`` = (operation alone + loop alone) / both at once: 1.0 means they took turns; the
best possible, on two free cores, is (operation + loop) / the longer of the two. ``hashlib.sha256`` (which releases the GIL for the
whole digest) is the control: it shows what the machine allows. The machine's other work is
reported beside each row (CPU seconds used by other processes); compare rows from one run.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pyoxigraph import RdfFormat, Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import ForeignCpu, dataset  # noqa: E402

LOOP = 12_000_000


def python_loop() -> None:
    total = 0
    for i in range(LOOP):
        total += i


def timed(call: Callable[[], object]) -> float:
    t = time.perf_counter()
    call()
    return time.perf_counter() - t


def on_thread(call: Callable[[], object]) -> float:
    worker = threading.Thread(target=call)
    t = time.perf_counter()
    worker.start()
    worker.join()
    return time.perf_counter() - t


def together(call: Callable[[], object]) -> float:
    worker = threading.Thread(target=call)
    t = time.perf_counter()
    worker.start()
    python_loop()
    worker.join()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the median is reported (default 3)")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "memkg-bench-cache")
    args = ap.parse_args(argv)
    path, _ = dataset(args.claims, 0, 1, args.cache_dir)
    data = path.read_bytes()
    work = Path(tempfile.mkdtemp(prefix="memkg-overlap-"))

    def on_disk() -> None:
        target = work / "store"
        shutil.rmtree(target, ignore_errors=True)
        store = Store(str(target))
        store.bulk_load(path=str(path), format=RdfFormat.TRIG)
        store.flush()
        del store

    operations: dict[str, Callable[[], object]] = {
        "hashlib.sha256 (control)": lambda: hashlib.sha256(data * 8).digest(),
        "Store().load(path=…), in memory": lambda: Store().load(path=str(path), format=RdfFormat.TRIG),
        "Store().load(bytes), in memory": lambda: Store().load(data, format=RdfFormat.TRIG),
        "Store(dir).bulk_load(path=…), on disk": on_disk,
    }
    rows: dict[str, dict[str, list[float]]] = {n: {"alone": [], "loop": [], "both": [], "foreign": []} for n in operations}
    try:
        for r in range(args.repeat):
            for name, call in operations.items():
                with ForeignCpu() as foreign:
                    rows[name]["alone"].append(on_thread(call))
                    rows[name]["loop"].append(timed(python_loop))
                    rows[name]["both"].append(together(call))
                rows[name]["foreign"].append(foreign.seconds or 0.0)
                print(f"[bench_overlap] round {r + 1}: {name}: both {rows[name]['both'][-1]:.2f} s", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"### Overlap of a pyoxigraph operation on a thread with Python work, {args.claims:,} claims "
          f"({len(data) / 1e6:.1f} MB), median of {args.repeat}\n")
    print("| operation | alone s | Python loop alone s | both at once s | overlap | best possible | other processes CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        alone, loop, both = (statistics.median(r[k]) for k in ("alone", "loop", "both"))
        print(f"| {name} | {alone:.2f} | {loop:.2f} | {both:.2f} | {(alone + loop) / both:.2f} | "
              f"{(alone + loop) / max(alone, loop):.2f} | {statistics.median(r['foreign']):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
