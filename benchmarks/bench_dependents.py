"""Latency of ``dependents`` (memkg.provenance) for a source with 10,000 dependent claims.

Builds an in-memory memkg store (loaded without write validation, for speed:
the shape of the data is what matters) holding one source, ``ex:S``, and the
claims that rest on it, inside a background memory of unrelated claims:

* ``--dependents`` claims that fall with ``ex:S`` (default 10,000):
  60 % rest on it directly (``mem:supportedBy ex:S``), 20 % through a support
  group ``{ex:S, ex:o_i}`` (ANDed with another source), 20 % recursively, on a
  claim of the first kind (claims supporting claims);
* 2,000 claims that also rest on ``ex:S`` but survive, through a second,
  independent leg (``mem:supportedBy ex:q_j``): the fixpoint must keep them;
* 200 echoes of ``ex:S`` (``mem:echoOf``) with a claim each resting on the
  echo (counted among the dependents);
* ``--background`` unrelated claims (default 100,000), each supported by one
  of 2,000 other sources, and 2 % of them retracted.

Measured, in the same run: ``dependents(store, S, tenant=…)`` (the recursive
fixpoint: the cone and its support structure, then Python), timed on the first
call after a write (the headline: one unrelated retraction written through
``MemoryStore.write`` before each call, untimed), again with no write in
between, and over all graphs; the first and biggest read of the cone alone (the
path query along ``mem:supportedBy`` with each node's legs; rows read); and the
``dependents`` view (the direct case, in SPARQL). All against a baseline, the
plain pyoxigraph query of the direct ``mem:supportedBy`` edges
``SELECT ?c WHERE { GRAPH ?g { ?c mem:supportedBy <S> } }`` with its rows read.

By default the store keeps nothing in memory: every call reads the cone from
Oxigraph. With ``--support-index`` it keeps its support links in memory
(``MemoryStore(followers=[SUPPORT_INDEX])``, :mod:`memkg.provenance.support_index`): built on the
first call (timed apart: "first call after loading") and then maintained by each
write, which is why the headline is the first call after a write.

The cases run interleaved (one round of every case per repetition), so a
burst of load on the shared machine hits them all alike; each row gives wall
p50 and p95 and the p50 of the thread's CPU time (less sensitive to other
processes), with both ratios to the baseline. ``--store DIR`` runs the same on
an on-disk (RocksDB) store, memkg's default, instead of in memory.

    python benchmarks/bench_dependents.py
    python benchmarks/bench_dependents.py --dependents 10000 --background 100000 --reps 30
    python benchmarks/bench_dependents.py --store /tmp/bench-dependents-store
    python benchmarks/bench_dependents.py --support-index

Goal: ``dependents`` of a source with 10k dependent claims in <= 50 ms (p50).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pyoxigraph import NamedNode, Quad

from memkg import MemoryStore
from memkg.provenance import support_graph
from memkg.provenance import SUPPORT_INDEX, dependents

EX = "https://example.org/bench/"
TENANT = "https://example.org/tenants/bench"
HEADER = f"""PREFIX mem:  <https://w3id.org/memkg#>
PREFIX rdf:  <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX ex:   <{EX}>
"""


def generate(n_dependents: int, n_background: int) -> tuple[str, int]:
    """The benchmark memory as TriG 1.2 text, and how many claims depend on ``ex:S``."""
    out = [HEADER, f"GRAPH <{TENANT}> {{", "ex:p a rdf:Property .", "ex:x a mem:Entity .",
           "ex:S a mem:Message ."]

    def claim(name: str, support: str) -> str:
        return f"ex:{name} a mem:Claim ; rdf:reifies <<( ex:x ex:p ex:{name}v )>> ; {support} ."

    n_echo = 200
    rest = n_dependents - n_echo
    direct, grouped = int(rest * 0.6), int(rest * 0.2)
    recursive = rest - direct - grouped
    for i in range(direct):
        out.append(claim(f"d{i}", "mem:supportedBy ex:S"))
    for i in range(grouped):
        out.append(claim(f"g{i}", f"mem:supportGroup ex:grp{i}"))
        out.append(f"ex:grp{i} a mem:SupportGroup ; mem:member ex:S , ex:o{i} . ex:o{i} a mem:Message .")
    for i in range(recursive):
        out.append(claim(f"r{i}", f"mem:supportedBy ex:d{i % max(1, direct)}"))
    for i in range(n_echo):
        out.append(f"ex:echo{i} a mem:Message ; mem:echoOf ex:S .")
        out.append(claim(f"e{i}", f"mem:supportedBy ex:echo{i}"))
    for j in range(2000):
        out.append(f"ex:q{j} a mem:Message .")
        out.append(claim(f"k{j}", f"mem:supportedBy ex:S , ex:q{j}"))
    for i in range(n_background):
        out.append(claim(f"n{i}", f"mem:supportedBy ex:q{i % 2000}"))
        if i % 50 == 0:
            out.append(f"ex:ret{i} a mem:Retraction ; mem:retracts ex:n{i} .")
    out.append("}")
    return "\n".join(out), n_dependents


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


#: A case: its name, what it runs (returning rows), and what to do untimed before each run.
Case = tuple[str, Callable[[], int], Callable[[], None] | None]


def _measure(cases: list[Case], reps: int) -> list[tuple[str, int, list[float], list[float]]]:
    """Wall and thread-CPU milliseconds of every case, interleaved: one round of all cases per rep."""
    for _ in range(3):  # warm-up
        for _name, run, before in cases:
            if before:
                before()
            run()
    wall: list[list[float]] = [[] for _ in cases]
    cpu: list[list[float]] = [[] for _ in cases]
    counts = [0] * len(cases)
    for _ in range(reps):
        for k, (_name, run, before) in enumerate(cases):
            if before:
                before()
            w0, c0 = time.perf_counter(), time.thread_time()
            counts[k] = run()
            cpu[k].append((time.thread_time() - c0) * 1000)
            wall[k].append((time.perf_counter() - w0) * 1000)
    return [(name, counts[k], wall[k], cpu[k]) for k, (name, _run, _before) in enumerate(cases)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dependents", type=int, default=10_000, help="claims that fall with the source")
    ap.add_argument("--background", type=int, default=100_000, help="unrelated claims")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--store", type=Path, help="an empty directory for an on-disk store (default: in memory)")
    ap.add_argument("--support-index", action="store_true",
                    help="keep the support links in memory (MemoryStore(followers=[SUPPORT_INDEX])), "
                         "maintained by writes")
    args = ap.parse_args(argv)
    if args.store is not None and args.store.exists() and any(args.store.iterdir()):
        ap.error(f"{args.store}: not empty (the benchmark fills and then deletes it)")

    text, expected = generate(args.dependents, args.background)
    store = MemoryStore(args.store, validation=None, followers=[SUPPORT_INDEX] if args.support_index else [])
    try:
        return _run(store, text, expected, args)
    finally:
        store.close()
        if args.store is not None:
            shutil.rmtree(args.store, ignore_errors=True)


def _run(store: MemoryStore, text: str, expected: int, args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    store.load_data(text, format="trig")
    print(f"loaded {len(store):,} quads in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    source = EX + "S"
    t0 = time.perf_counter()
    got = dependents(store, source, tenant=TENANT)
    first = (time.perf_counter() - t0) * 1000
    assert len(got) == expected, (len(got), expected)

    raw = store.raw
    baseline_q = f"SELECT ?c WHERE {{ GRAPH ?g {{ ?c <https://w3id.org/memkg#supportedBy> <{source}> }} }}"
    writes = iter(range(10**9))

    def write() -> None:
        """One unrelated write (a retraction of a background claim) through the store's API."""
        k = next(writes)
        store.write([Quad(NamedNode(f"{EX}wr{k}"), NamedNode("https://w3id.org/memkg#retracts"),
                          NamedNode(f"{EX}n{(k * 7919) % args.background}"), NamedNode(TENANT))])

    cases: list[Case] = [
        ("baseline: direct mem:supportedBy edges (pyoxigraph)",
         lambda: len([r[0] for r in raw.query(baseline_q)]), None),
        ("dependents view (direct case, SPARQL)",
         lambda: len([r[0] for r in store.view("dependents", {"source": source, "tenant": TENANT})]), None),
        ("  its first read: the mem:supportedBy cone with each node's legs, rows read",
         lambda: len(support_graph._columns(store, support_graph._ROUND % f"<{source}>",
                                         support_graph._structure_options(store, TENANT), 2)[0]), None),
        ("dependents(), first call after a write (headline)", lambda: len(dependents(store, source, tenant=TENANT)), write),
        ("dependents(), again (no write in between)", lambda: len(dependents(store, source, tenant=TENANT)), None),
        ("dependents(), all graphs, after a write", lambda: len(dependents(store, source)), write),
    ]
    load_before = os.getloadavg()[0]
    rows = _measure(cases, args.reps)
    load_after = os.getloadavg()[0]
    base_wall, base_cpu = statistics.median(rows[0][2]), statistics.median(rows[0][3])
    kind = "on disk (RocksDB)" if args.store is not None else "in memory"
    kind += ", support links kept in memory (SUPPORT_INDEX)" if args.support_index else ", read from the store"
    print(f"### dependents of one source: {expected:,} dependent claims, "
          f"{args.background:,} background claims ({len(store):,} quads, {kind})\n")
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPU(s), reps {args.reps}; "
          f"load average {load_before:.1f} at start, {load_after:.1f} at end "
          "(a shared machine: wall times are noisy, CPU times less so)\n")
    print("| case | rows | p50 ms | p95 ms | CPU p50 ms | p50 / baseline | CPU / baseline |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, n, wall, cpu in rows:
        p50, c50 = statistics.median(wall), statistics.median(cpu)
        print(f"| {name} | {n:,} | {p50:.1f} | {_percentile(wall, 0.95):.1f} | {c50:.1f} "
              f"| {p50 / base_wall:.1f}x | {c50 / base_cpu:.1f}x |")
    what = "loading the store into the support index, then the call" if args.support_index else "the call"
    print(f"\nFirst call after loading ({what}): {first:.0f} ms wall.")
    fix = statistics.median(rows[3][2])
    print(f"\nGoal: dependents() <= 50 ms (p50, first call after a write): {'met' if fix <= 50 else 'NOT met'} ({fix:.1f} ms).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
