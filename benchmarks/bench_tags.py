"""Latency of edge-property set queries (memkg.tags) on a large synthetic memory.

Builds (once, cached on disk) an on-disk memkg store of ``--records`` records
(messages) in one tenant graph, each carrying three edge properties in its
current version (``org:``, ``person:``, ``topic:``); 5 % of the records also have
an earlier version (a different topic) that the current one revises. Then it
measures p50/p95 latency of :meth:`memkg.tags.Tags.intersect` (and a few other
reads) over many repetitions with random properties, against a baseline
measured in the same process over the same data: the plain pyoxigraph SPARQL
query with the same meaning::

    SELECT ?r WHERE { GRAPH <tenant> {
        ?v mem:hasEdgeProperty <P1> . ?v mem:hasEdgeProperty <P2> .
        FILTER NOT EXISTS { ?newer mem:revises ?v }
        ?v mem:versionOf ?r } }

    python benchmarks/bench_tags.py                        # 100k records
    python benchmarks/bench_tags.py --records 1000000      # 1M records
    python benchmarks/bench_tags.py --json results.json    # also write the figures as JSON

Goal: intersect of two properties over 1M records, p95 <= 10 ms when the result is small.

Value distributions (deterministic for ``(records, seed)``): 2,000 organisations,
Zipf-like (the most common is on ~12 % of the records, the rarest on a few
dozen); 50,000 people, uniform (~20 records each at 1M); 20 topics, uniform
(~5 % of the records each).

The store is built with N-Quads through ``MemoryStore(path, validation=None).load(…)``,
then compacted (``--no-optimize`` to skip that; see :func:`build_store`):
validating a load of this size through the write validator holds every quad in
Python and takes far longer than the benchmark itself (``--validate`` does it
anyway). The data is what :class:`memkg.tags.Tags` writes, minus the lane
(every record is in the default lane).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import platform
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

from memkg import MemoryStore
from memkg.tags import EdgeProperty, Tags

GENERATOR_VERSION = 1
EX = "https://example.org/bench/"
TENANT = "https://example.org/tenants/bench"
MEM = "https://w3id.org/memkg#"
XSD_DT = "http://www.w3.org/2001/XMLSchema#dateTime"
EPOCH = 1735689600  # 2025-01-01T00:00:00Z
N_ORGS, N_PEOPLE, N_TOPICS = 2_000, 50_000, 20


class Population:
    """Which properties record ``i`` carries: deterministic for ``(records, seed)``."""

    def __init__(self, records: int, seed: int) -> None:
        self.records = records
        rng = random.Random(seed)
        weights = [1 / (k + 1) for k in range(N_ORGS)]
        total = sum(weights)
        self._cum = list(itertools.accumulate(w / total for w in weights))
        self.orgs = [min(bisect.bisect_left(self._cum, rng.random()), N_ORGS - 1) for _ in range(records)]
        self.people = [rng.randrange(N_PEOPLE) for _ in range(records)]
        self.topics = [rng.randrange(N_TOPICS) for _ in range(records)]
        self.revised = {i for i in range(records) if rng.random() < 0.05}

    def props(self, i: int) -> list[EdgeProperty]:
        return [EdgeProperty("org", f"org{self.orgs[i]}"), EdgeProperty("person", f"person{self.people[i]}"),
                EdgeProperty("topic", f"topic{self.topics[i]}")]

    def old_props(self, i: int) -> list[EdgeProperty]:
        return [*self.props(i)[:2], EdgeProperty("topic", f"topic{(self.topics[i] + 1) % N_TOPICS}")]


def _dt(seconds: int) -> str:
    return '"' + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds)) + f'"^^<{XSD_DT}>'


def generate(pop: Population, path: Path) -> dict[str, int]:
    """Write the memory as N-Quads; returns counts."""
    g = f"<{TENANT}>"
    t_msg, t_ver, t_edge = f"<{MEM}Message>", f"<{MEM}RecordVersion>", f"<{MEM}EdgeProperty>"
    a = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    rec_at, ver_of, has, rev = (f"<{MEM}{n}>" for n in ("recordedAt", "versionOf", "hasEdgeProperty", "revises"))
    edges: set[EdgeProperty] = set()
    lines = 0
    with path.open("w", encoding="utf-8") as out:
        for i in range(pop.records):
            r, t = f"<{EX}r{i}>", EPOCH + 30 * i
            buf = [f"{r} {a} {t_msg} {g} .", f"{r} {rec_at} {_dt(t)} {g} ."]
            v = f"<urn:memkg:version:b{i}>"
            previous = None
            if i in pop.revised:
                previous = f"<urn:memkg:version:b{i}a>"
                buf += [f"{previous} {a} {t_ver} {g} .", f"{previous} {ver_of} {r} {g} .",
                        f"{previous} {rec_at} {_dt(t + 1)} {g} ."]
                for p in pop.old_props(i):
                    buf.append(f"{previous} {has} <{p.iri.value}> {g} .")
                    edges.add(p)
            buf += [f"{v} {a} {t_ver} {g} .", f"{v} {ver_of} {r} {g} .", f"{v} {rec_at} {_dt(t + 2)} {g} ."]
            if previous:
                buf.append(f"{v} {rev} {previous} {g} .")
            for p in pop.props(i):
                buf.append(f"{v} {has} <{p.iri.value}> {g} .")
                edges.add(p)
            out.write("\n".join(buf) + "\n")
            lines += len(buf)
        for p in sorted(edges):
            e = f"<{p.iri.value}>"
            out.write(f'{e} {a} {t_edge} {g} .\n{e} <{MEM}edgeLabel> "{p.label}" {g} .\n'
                      f'{e} <{MEM}edgeValue> "{p.value}" {g} .\n')
            lines += 3
    return dict(records=pop.records, revised=len(pop.revised), edge_properties=len(edges), quads=lines)


def build_store(records: int, seed: int, folder: Path, rebuild: bool = False, *,
                validate: bool = False, optimize: bool = True) -> tuple[Path, dict]:
    """The on-disk store for ``(records, seed)``, built once and cached under ``folder``.

    ``optimize`` compacts the store after the bulk load: the bulk loader leaves
    many sorted files, which makes every point lookup probe many of them (3-7x
    slower at 1M records); a store that grew by ordinary writes is compacted by
    RocksDB in the background, so the compacted store is the representative one."""
    key = folder / f"tags-v{GENERATOR_VERSION}-{records}-s{seed}{'-opt' if optimize else ''}"
    marker = key / "built.json"
    if marker.exists() and not rebuild:
        return key / "store", json.loads(marker.read_text())
    if key.exists():
        shutil.rmtree(key)
    key.mkdir(parents=True)
    nq = key / "memory.nq"
    t0 = time.perf_counter()
    counts = generate(Population(records, seed), nq)
    t1 = time.perf_counter()
    with MemoryStore(key / "store", validation="native" if validate else None) as store:
        report = store.load(nq)
        t2 = time.perf_counter()
        if optimize:
            store.raw.optimize()
    t3 = time.perf_counter()
    info = dict(counts=counts, quads=report.added, bytes=nq.stat().st_size, validated=validate,
                bulk=report.bulk, optimized=optimize, generate_s=round(t1 - t0, 1), load_s=round(t2 - t1, 1),
                optimize_s=round(t3 - t2, 1))
    nq.unlink()
    marker.write_text(json.dumps(info))
    return key / "store", info


def _percentile(samples: list[float], q: float) -> float:
    xs = sorted(samples)
    return xs[max(0, min(len(xs) - 1, round(q * (len(xs) - 1))))]


BASELINE = (
    "SELECT ?r WHERE {{ GRAPH <{g}> {{ ?v <{m}hasEdgeProperty> <{a}> . ?v <{m}hasEdgeProperty> <{b}> . "
    "FILTER NOT EXISTS {{ ?newer <{m}revises> ?v }} ?v <{m}versionOf> ?r }} }}"
)


def _timed(run, items: list) -> tuple[list[float], list[int]]:
    for item in items[:5]:  # warm-up
        run(item)
    samples, rows = [], []
    for item in items:
        t0 = time.perf_counter()
        k = run(item)
        samples.append((time.perf_counter() - t0) * 1000)
        rows.append(k)
    return samples, rows


def measure(store: MemoryStore, pop: Population, reps: int, baseline_reps: int, seed: int) -> list[dict]:
    """Each case runs on the same random inputs for memkg and (the first ``baseline_reps`` of them) the baseline,
    and the two must return the same records."""
    rng = random.Random(seed + 1)
    tags = Tags(store, graph=TENANT)
    raw = store.raw

    def same_record(labels: tuple[int, int]) -> tuple[EdgeProperty, EdgeProperty]:
        props = pop.props(rng.randrange(pop.records))
        return props[labels[0]], props[labels[1]]

    def tail_orgs() -> tuple[EdgeProperty, EdgeProperty]:
        a, b = rng.sample(range(N_ORGS // 2, N_ORGS), 2)
        return EdgeProperty("org", f"org{a}"), EdgeProperty("org", f"org{b}")

    def head_org_and_person() -> tuple[EdgeProperty, EdgeProperty]:
        return EdgeProperty("org", "org0"), EdgeProperty("person", f"person{rng.randrange(N_PEOPLE)}")

    def baseline(pair: tuple[EdgeProperty, EdgeProperty]) -> list[str]:
        q = BASELINE.format(g=TENANT, m=MEM, a=pair[0].iri.value, b=pair[1].iri.value)
        return sorted(row["r"].value for row in raw.query(q))

    def result(name: str, kind: str, samples: list[float], rows: list[int]) -> dict:
        r = dict(case=name, kind=kind, reps=len(samples), p50_ms=round(_percentile(samples, 0.5), 3),
                 p95_ms=round(_percentile(samples, 0.95), 3), mean_rows=round(statistics.fmean(rows), 1),
                 max_rows=max(rows))
        print(f"  {name} [{kind}, {len(samples)} reps]: p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
              f"rows {r['mean_rows']}", file=sys.stderr)
        return r

    from datetime import datetime, timezone
    as_of = datetime.fromtimestamp(EPOCH + 30 * pop.records // 2, timezone.utc)
    pair_cases = {
        "org ∩ person (one record's)": lambda: same_record((0, 1)),
        "topic ∩ person (one record's)": lambda: same_record((2, 1)),
        "head org (~12 %) ∩ person": head_org_and_person,
        "two rare orgs (empty)": tail_orgs,
    }
    results = []
    for name, make in pair_cases.items():
        pairs = [make() for _ in range(reps)]
        results.append(result(f"intersect: {name}", "tags", *_timed(lambda p: len(tags.intersect(p)), pairs)))
        few = pairs[:baseline_reps]
        results.append(result(f"intersect: {name}", "baseline", *_timed(lambda p: len(baseline(p)), few)))
        for p in few[:20]:
            assert [r.value for r in tags.intersect(p)] == baseline(p), f"tags and baseline disagree on {p}"
    others = [
        ("intersect as_of: org ∩ person (one record's)",
         lambda p: len(tags.intersect(p, as_of=as_of)), [same_record((0, 1)) for _ in range(reps)]),
        ("union: two people",
         lambda p: len(tags.union(p)),
         [[EdgeProperty("person", f"person{rng.randrange(N_PEOPLE)}") for _ in range(2)] for _ in range(reps)]),
        ("properties of a record", lambda r: len(tags.properties(r)),
         [f"{EX}r{rng.randrange(pop.records)}" for _ in range(reps)]),
    ]
    for name, run, items in others:
        results.append(result(name, "tags", *_timed(run, items)))
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=100_000, help="records in the synthetic store (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=300, help="repetitions of each case (default 300)")
    ap.add_argument("--baseline-reps", type=int, default=30,
                    help="repetitions of each baseline query (default 30: some take seconds at 1M records)")
    ap.add_argument("--dir", type=Path, default=Path(os.environ.get("MEMKG_BENCH_DIR", "/tmp/memkg-bench")),
                    help="where built stores are cached (default /tmp/memkg-bench or $MEMKG_BENCH_DIR)")
    ap.add_argument("--rebuild", action="store_true", help="build the store again even if cached")
    ap.add_argument("--validate", action="store_true", help="validate the load (slow at 1M records)")
    ap.add_argument("--no-optimize", dest="optimize", action="store_false",
                    help="measure the store as the bulk loader leaves it, without compacting it")
    ap.add_argument("--json", nargs="?", const="-", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)

    print(f"building/opening a store of {args.records:,} records…", file=sys.stderr)
    path, info = build_store(args.records, args.seed, args.dir, args.rebuild, validate=args.validate,
                             optimize=args.optimize)
    print(f"  {info}", file=sys.stderr)
    pop = Population(args.records, args.seed)
    store = MemoryStore(path, read_only=True)
    load_before = os.getloadavg()[0]
    results = measure(store, pop, args.reps, args.baseline_reps, args.seed)
    load_after = os.getloadavg()[0]

    base = {r["case"]: r for r in results if r["kind"] == "baseline"}
    lines = [f"### memkg edge properties, {args.records:,} records ({info['quads']:,} quads"
             f"{', validated load' if info['validated'] else ', unvalidated load'}"
             f"{', compacted' if info.get('optimized') else ', not compacted'})", "",
             f"on-disk store, one tenant graph; load average {load_before:.1f} → {load_after:.1f} "
             f"on {os.cpu_count()} CPUs; {args.reps} reps per case ({args.baseline_reps} for the baseline, "
             f"on the same inputs)", "",
             "| case | p50 ms | p95 ms | baseline p50 ms | baseline p95 ms | p95 vs baseline | rows (mean / max) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if r["kind"] != "tags":
            continue
        b = base.get(r["case"])
        cols = (f"{b['p50_ms']:.3f} | {b['p95_ms']:.3f} | {r['p95_ms'] / b['p95_ms']:.2f}x" if b
                else "– | – | –")
        lines.append(f"| {r['case']} | {r['p50_ms']:.3f} | {r['p95_ms']:.3f} | {cols} | "
                     f"{r['mean_rows']:g} / {r['max_rows']} |")
    small = [r for r in results if r["kind"] == "tags" and r["case"].startswith("intersect:")]
    worst = max(small, key=lambda r: r["p95_ms"])
    goal = 10.0
    lines += ["", f"Goal (intersect of two properties, small result, p95 <= {goal:g} ms at 1M records): "
              f"{'met' if worst['p95_ms'] <= goal else 'NOT met'} (worst case {worst['p95_ms']:.3f} ms, "
              f"{worst['case']})"]
    print("\n".join(lines))
    if args.json:
        doc = dict(records=args.records, seed=args.seed, store=info, goal_p95_ms=goal, results=results,
                   loadavg=[load_before, load_after], python=platform.python_version(),
                   machine=platform.machine(), pyoxigraph=__import__("pyoxigraph").__version__)
        text = json.dumps(doc, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
