"""What judging literals as written costs: the load's rewrite scan, and file validation.

    python benchmarks/bench_literals.py [--claims 20000] [--rewritten 0.01] [--repeat 3]

On a synthetic memory of ``--claims`` claims (``benchmarks/synthetic.py``; it writes
some confidences as ``0.740``, which the store keeps as ``0.74``), and on a copy where a fraction ``--rewritten`` of the claims'
confidences are also written non-canonically (``0.50`` for ``0.5``: the store keeps
``0.5``), it measures in this process, interleaved, median of ``--repeat``:

parse      ``pyoxigraph.parse`` of the file into a list: the floor a load pays anyway
scan       ``WrittenForms.of(quads)``: what every load adds to count and locate rewrites
written    ``validate_store(store, written=...)``: the loaded data validated with its
           literals as written (what ``memkg validate FILE`` runs after its load)
stored     ``validate_store(store)``: the same store, the store's own record of the literals

and prints a markdown table (figures for benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pyoxigraph import RdfFormat, parse

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic  # noqa: E402

from memkg import MemoryStore  # noqa: E402
from memkg.core.written import WrittenForms  # noqa: E402
from memkg.validation import validate_store  # noqa: E402


def rewrite_some(src: Path, dst: Path, fraction: float) -> int:
    """A copy of ``src`` where every n-th confidence gets a trailing zero (non-canonical)."""
    every = max(1, round(1 / fraction)) if fraction > 0 else 0
    seen = changed = 0

    def pad(m: re.Match[str]) -> str:
        nonlocal seen, changed
        seen += 1
        if every and seen % every == 0:
            changed += 1
            return m.group(1) + m.group(2) + "0"
        return m.group(0)

    text = re.sub(r"(mem:confidence )(\d\.\d+)", pad, src.read_text())
    dst.write_text(text)
    return changed


def timed(fn) -> float:  # noqa: ANN001
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=20_000)
    ap.add_argument("--rewritten", type=float, default=0.01, help="fraction of confidences written non-canonically")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-literals-"))
    plain = tmp / "plain.trig"
    synthetic.generate(args.claims, plain, seed=0, tenants=1)
    padded = tmp / "padded.trig"
    changed = rewrite_some(plain, padded, args.rewritten)
    print(f"{args.claims:,} claims; {changed:,} confidences written non-canonically in the second file", file=sys.stderr)
    rows = []
    for name, path in (("synthetic", plain), (f"synthetic, {changed:,} more padded", padded)):
        times: dict[str, list[float]] = {k: [] for k in ("parse", "scan", "written", "stored")}
        quads: list = []
        store = MemoryStore(validation=None)
        written = store.load(path).rewrites.written
        reports: dict[str, object] = {}
        for _ in range(args.repeat):
            times["parse"].append(timed(lambda: quads.__setitem__(slice(None), list(parse(path=str(path), format=RdfFormat.TRIG)))))
            times["scan"].append(timed(lambda: WrittenForms.of(quads)))
            times["written"].append(timed(lambda: reports.__setitem__("w", validate_store(store, written=written))))
            times["stored"].append(timed(lambda: reports.__setitem__("s", validate_store(store))))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((name, len(quads), len(written), med, reports["w"].conforms))  # type: ignore[attr-defined]
    print("| file | quads | rewritten | parse s | scan s | scan / parse | validate as written s | validate as stored s | ratio | conforms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, n, rewritten, med, conforms in rows:
        print(f"| {name} | {n:,} | {rewritten:,} | {med['parse']:.2f} | {med['scan']:.2f} | "
              f"{med['scan'] / med['parse']:.2f} | {med['written']:.2f} | {med['stored']:.2f} | "
              f"{med['written'] / med['stored']:.2f} | {conforms} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
