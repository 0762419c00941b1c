"""What it costs to look an IRI up before a read, and to answer an unknown one with the nearest.

Every read of an IRI (``support``, ``lineage``, ``dependents``, …) first asks
:func:`memkg.store.scope.locate` which graphs of its scope hold it; an IRI none holds is an
``UnknownIRIError`` naming the nearest IRIs of the scope (:mod:`memkg.core.nearest`). On the
synthetic memory of ``--claims`` claims (the store ``bench_endpoint.py`` builds and caches),
in one process on the same data, this measures:

- the lookup of a known claim (``locate``) against ``support()`` of that claim, which makes it:
  what the check adds to every read;
- ``support()`` of an unknown IRI (a typo of a known claim's, so suggestions are found) against
  ``support()`` of a known claim: the error path, which reads the scope's IRIs and ranks them.

    python benchmarks/bench_unknown_iri.py                 # 100k claims
    python benchmarks/bench_unknown_iri.py --claims 20000 --reps 20

Times are medians of ``--reps`` rounds that interleave the cases, so the machine's load falls
on all alike; say the load (``uptime``) beside any figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_endpoint import cached_store  # noqa: E402

from pyoxigraph import NamedNode  # noqa: E402

from memkg import MemoryStore, UnknownIRIError  # noqa: E402
from memkg.provenance import support  # noqa: E402
from memkg.store import scope  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=11)
    args = parser.parse_args(argv)
    path = cached_store(args.claims)
    with MemoryStore(path, validation=None) as store:
        claims = [q.subject for q in store.quads(None, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"))
                  if isinstance(q.subject, NamedNode)]
        known = claims[len(claims) // 2]
        typo = NamedNode(known.value[:-1] + ("x" if known.value[-1] != "x" else "y"))
        timings: dict[str, list[float]] = {"locate (known)": [], "support (known)": [], "support (unknown)": []}
        suggested: tuple[str, ...] = ()
        for _ in range(args.reps):
            for name in timings:
                start = time.perf_counter()
                if name == "locate (known)":
                    scope.locate(store.raw, known)
                elif name == "support (known)":
                    support(store, known)
                else:
                    try:
                        support(store, typo)
                    except UnknownIRIError as err:
                        suggested = err.nearest
                timings[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in timings.items()}
    load = os.getloadavg()[0]
    print(f"{len(claims):,} claims; load average {load:.1f}; medians of {args.reps} rounds")
    for name, t in median.items():
        print(f"  {name:<20} {t * 1000:9.2f} ms")
    print(f"  locate / support (known)       {median['locate (known)'] / median['support (known)']:.3f}×")
    print(f"  support unknown / known        {median['support (unknown)'] / median['support (known)']:.1f}×")
    print(f"  suggested for {typo.value}: {', '.join(suggested) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
