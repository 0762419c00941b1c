"""Latency of the bitemporal views (queries/*.rq) on large synthetic memories.

Builds (once, cached on disk) an on-disk memkg store of ``--claims`` claims in
one tenant graph, then measures p50/p95 latency of each view over many
repetitions with random subjects and times, against a floor measured in the
same process: the plain pyoxigraph lookup of a subject's claims through the
claim index, ``SELECT ?c WHERE { GRAPH ?g { ?c memx:subject <S> } }``.

    python benchmarks/bench_views.py                      # 100k claims
    python benchmarks/bench_views.py --claims 1000000     # 1M claims
    python benchmarks/bench_views.py --json results.json  # also write the figures as JSON
    python benchmarks/bench_views.py --standing           # the standing column against its floor

Goals (a subject's current claims): p95 <= 2 ms at 100k claims, <= 10 ms at 1M.

The selective views (one subject, one claim) run interleaved, round after
round, after warm-up rounds, so that cache warm-up and the machine's load fall
on all of them alike; wall-clock and CPU time are both reported (CPU time is
the query's own cost when other processes compete for the CPUs). The
whole-tenant views run once each (``--whole-reps``). The store is loaded
unvalidated (``--validate`` to validate: this benchmark times views, not
writes) and as the bulk loader leaves it; ``--optimize`` measures a compacted
copy (``Store.optimize()``), which matters on large stores.

The synthetic memory (:func:`generate`) is deterministic for ``(claims, seed)``
and shaped like an agent's memory: ~20 claims per person (the subjects), a
pool of entities as objects, 12 predicates of which 4 are declared
``owl:FunctionalProperty``; claims on those supersede the previous version of
the same (subject, predicate) most of the time (otherwise they conflict: the
contradictions view finds them); ~25 % of claims carry a ``mem:context``,
~70 % a ``mem:validFrom``, ~15 % a ``mem:validUntil``, ~2 % are retracted by a
``mem:Retraction``, ~0.5 % state an explicit ``mem:contradicts``, ~1 % are
``mem:IdentityCandidate`` (a subclass of ``mem:Claim``). Every claim has a
``mem:recordedAt`` and is asserted by a ``mem:Message``; ~60 % are
``mem:supportedBy`` that message, ~10 % have a ``mem:SupportGroup`` of it and an
earlier message, ~5 % are ``mem:supportedBy`` an earlier claim (support through
claims, what a claim's standing unfolds), and ~1 % of the messages are later
withdrawn by a ``mem:Retraction`` (the claims resting on them alone fall).
Times run from 2023-01-01 over three years.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import platform
import random
import shutil
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path


from memkg import MemoryStore

GENERATOR_VERSION = 3
EX = "https://example.org/bench/"
TENANT = "https://example.org/tenants/bench"
EPOCH = 1672531200  # 2023-01-01T00:00:00Z
SPAN = 3 * 365 * 86400
DAY = 86400

PLAIN = [f"p{i}" for i in range(8)]  # ordinary predicates
FUNCTIONAL = [f"f{i}" for i in range(4)]  # declared owl:FunctionalProperty
CONTEXTS = [f"ctx{i}" for i in range(8)]

HEADER = f"""VERSION "1.2"
PREFIX mem:  <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf:  <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl:  <http://www.w3.org/2002/07/owl#>
PREFIX xsd:  <http://www.w3.org/2001/XMLSchema#>
PREFIX ex:   <{EX}>
"""


def _dt(seconds: int) -> str:
    return '"' + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds)) + '"^^xsd:dateTime'


def generate(n_claims: int, path: str | os.PathLike[str], *, seed: int = 0) -> dict[str, int]:
    """Write a synthetic memory of ``n_claims`` claims (TriG 1.2) to ``path``; returns counts."""
    rng = random.Random(seed)
    n_people = max(1, n_claims // 20)
    n_entities = max(1, n_claims // 10)
    counts = dict(claims=0, people=n_people, entities=n_entities, messages=0, supersessions=0,
                  retractions=0, contradicts=0, functional_conflicts=0, groups=0,
                  withdrawn_messages=0)
    latest: dict[tuple[int, str], int] = {}
    by_subject_last: dict[int, int] = {}
    tmp = Path(str(path) + ".partial")
    with open(tmp, "w", encoding="utf-8", buffering=1 << 20) as out:
        out.write(HEADER)
        out.write(f"\nGRAPH <{TENANT}> {{\n")
        for p in PLAIN:
            out.write(f"ex:{p} a rdf:Property ; rdfs:label \"{p}\" .\n")
        for p in FUNCTIONAL:
            out.write(f"ex:{p} a rdf:Property , owl:FunctionalProperty ; rdfs:label \"{p}\" .\n")
        for c in CONTEXTS:
            out.write(f"ex:{c} a mem:Context ; mem:displayName \"{c}\" .\n")
        for i in range(n_people):
            out.write(f"ex:person{i} a mem:Person ; mem:displayName \"person {i}\" .\n")
        for i in range(n_entities):
            out.write(f"ex:e{i} a mem:Entity ; mem:displayName \"entity {i}\" .\n")
        buf: list[str] = []
        msg = -1
        for i in range(n_claims):
            rec = EPOCH + (i * SPAN) // n_claims + rng.randrange(60)
            if i % 2 == 0:  # one message asserts two claims
                msg += 1
                counts["messages"] += 1
                content = f"message {msg}"
                digest = hashlib.sha256(content.encode()).hexdigest()
                buf.append(f'ex:m{msg} a mem:Message ; mem:content "{content}" ; mem:contentHash "{digest}" ; '
                           f'mem:eventId "evt-{msg}" ; mem:recordedAt {_dt(rec)} .\n')
            s = rng.randrange(n_people)
            functional = rng.random() < 0.3
            p = rng.choice(FUNCTIONAL if functional else PLAIN)
            o = rng.randrange(n_entities)
            cls = "mem:IdentityCandidate" if rng.random() < 0.01 else "mem:Claim"
            lines = [f"ex:c{i} a {cls} ; rdf:reifies <<( ex:person{s} ex:{p} ex:e{o} )>> ;",
                     f" mem:confidence {rng.uniform(0.3, 1.0):.3f} ; mem:recordedAt {_dt(rec)} ;",
                     f" mem:assertedBy ex:m{msg} "]
            if rng.random() < 0.7:
                start = rec - rng.randrange(30 * DAY)
                lines.append(f"; mem:validFrom {_dt(start)} ")
                if rng.random() < 0.2:
                    lines.append(f"; mem:validUntil {_dt(start + DAY + rng.randrange(400 * DAY))} ")
            if rng.random() < 0.25:
                lines.append(f"; mem:context ex:{rng.choice(CONTEXTS)} ")
            support = rng.random()
            if support < 0.6:
                lines.append(f"; mem:supportedBy ex:m{msg} ")
            elif support < 0.7 and msg > 0:
                lines.append(f"; mem:supportGroup ex:g{i} ")
                buf.append(f"ex:g{i} a mem:SupportGroup ; mem:member ex:m{msg} , ex:m{rng.randrange(msg)} .\n")
                counts["groups"] += 1
            elif support < 0.75 and i > 0:
                lines.append(f"; mem:supportedBy ex:c{rng.randrange(i)} ")
            if functional:
                prev = latest.get((s, p))
                if prev is not None:
                    if rng.random() < 0.85:
                        lines.append(f"; mem:supersedes ex:c{prev} ")
                        counts["supersessions"] += 1
                    else:
                        counts["functional_conflicts"] += 1
                latest[(s, p)] = i
            prev_any = by_subject_last.get(s)
            if prev_any is not None and rng.random() < 0.005:
                lines.append(f"; mem:contradicts ex:c{prev_any} ")
                counts["contradicts"] += 1
            by_subject_last[s] = i
            buf.append("".join(lines) + ".\n")
            if rng.random() < 0.02:
                counts["retractions"] += 1
                r = counts["retractions"]
                buf.append(f'ex:r{r} a mem:Retraction ; mem:retracts ex:c{i} ; mem:reason "corrected" ; '
                           f"mem:recordedAt {_dt(rec + 1 + rng.randrange(90 * DAY))} .\n")
            if i % 2 == 1 and rng.random() < 0.01:  # the message of the last two claims, withdrawn
                counts["withdrawn_messages"] += 1
                buf.append(f'ex:w{msg} a mem:Retraction ; mem:retracts ex:m{msg} ; mem:reason "withdrawn" ; '
                           f"mem:recordedAt {_dt(rec + 1 + rng.randrange(90 * DAY))} .\n")
            counts["claims"] += 1
            if len(buf) > 2000:
                out.write("".join(buf))
                buf.clear()
        out.write("".join(buf))
        out.write("}\n")
    os.replace(tmp, path)
    return counts


def open_store(path: Path, *, validate: bool = False, read_only: bool = False) -> MemoryStore:
    """A MemoryStore on ``path``; unvalidated unless asked (this benchmark times views, not writes)."""
    if read_only or validate or "validation" not in inspect.signature(MemoryStore).parameters:
        return MemoryStore(path, read_only=read_only)
    return MemoryStore(path, validation=None)


def build_store(n_claims: int, seed: int, folder: Path, rebuild: bool = False, *,
                validate: bool = False, optimize: bool = False) -> tuple[Path, dict]:
    """The on-disk store for ``(n_claims, seed)``, built once and cached under ``folder``.

    ``optimize`` compacts the store after the bulk load (RocksDB would do it in the
    background over time; the bulk loader leaves many sorted files)."""
    key = folder / f"views-v{GENERATOR_VERSION}-{n_claims}-s{seed}{'-opt' if optimize else ''}"
    marker = key / "built.json"
    if marker.exists() and not rebuild:
        return key / "store", json.loads(marker.read_text())
    if key.exists():
        shutil.rmtree(key)
    plain = folder / f"views-v{GENERATOR_VERSION}-{n_claims}-s{seed}"
    if optimize and (plain / "built.json").exists() and not rebuild:
        # the same store, compacted: copy the cached build rather than load again
        info = json.loads((plain / "built.json").read_text())
        key.mkdir(parents=True)
        shutil.copytree(plain / "store", key / "store")
        t0 = time.perf_counter()
        with open_store(key / "store") as store:
            store.raw.optimize()
        info.update(optimized=True, optimize_s=round(time.perf_counter() - t0, 1))
        marker.write_text(json.dumps(info))
        return key / "store", info
    key.mkdir(parents=True)
    trig = key / "memory.trig"
    t0 = time.perf_counter()
    counts = generate(n_claims, trig, seed=seed)
    t1 = time.perf_counter()
    with open_store(key / "store", validate=validate) as store:
        report = store.load(trig)
        t2 = time.perf_counter()
        if optimize:
            store.raw.optimize()
    t3 = time.perf_counter()
    info = dict(counts=counts, quads=report.added, bytes=trig.stat().st_size, validated=validate,
                optimized=optimize, generate_s=round(t1 - t0, 1), load_s=round(t2 - t1, 1),
                optimize_s=round(t3 - t2, 1))
    trig.unlink()
    marker.write_text(json.dumps(info))
    return key / "store", info


def _percentile(samples: list[float], q: float) -> float:
    xs = sorted(samples)
    k = max(0, min(len(xs) - 1, round(q * (len(xs) - 1))))
    return xs[k]


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def measure(store: MemoryStore, n_claims: int, reps: int, seed: int, whole_reps: int = 3) -> list[dict]:
    rng = random.Random(seed + 1)
    n_people = max(1, n_claims // 20)
    floor_q = "SELECT ?c WHERE {{ GRAPH ?g {{ ?c <https://w3id.org/memkg/index#subject> <{}> }} }}"
    raw = store.raw

    def subject() -> str:
        return f"{EX}person{rng.randrange(n_people)}"

    def past() -> str:
        return _iso(EPOCH + rng.randrange(SPAN))

    cases = [
        ("floor: index lookup (pyoxigraph)", reps,
         lambda: raw.query(floor_q.format(subject()))),
        ("current, subject, tenant", reps,
         lambda: store.view("current", {"subject": subject(), "tenant": TENANT})),
        ("current, subject, all graphs", reps,
         lambda: store.view("current", {"subject": subject()})),
        ("historical, subject", reps,
         lambda: store.view("historical", {"subject": subject(), "valid_at": past(), "tenant": TENANT})),
        ("audit, subject", reps,
         lambda: store.view("audit", {"subject": subject(), "known_at": past(), "tenant": TENANT})),
        ("audit, subject, known_at + valid_at", reps,
         lambda: store.view("audit", {"subject": subject(), "known_at": past(), "valid_at": past(),
                                      "tenant": TENANT})),
        ("history, random claim", reps,
         lambda: store.view("history", {"claim": f"{EX}c{rng.randrange(n_claims)}", "tenant": TENANT})),
        ("current, whole tenant (count)", whole_reps,
         lambda: store.view("current", {"tenant": TENANT})),
        ("contradictions, whole tenant", whole_reps,
         lambda: store.view("contradictions", {"tenant": TENANT})),
    ]
    whole = {"current, whole tenant (count)", "contradictions, whole tenant"}

    def timed(run) -> tuple[float, float, int]:
        t0, c0 = time.perf_counter(), time.process_time()
        k = sum(1 for _ in run())
        return (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000, k

    # The selective views run interleaved, round after round, so that cache warm-up
    # and the machine's load fall on all of them alike; the first rounds warm up.
    selective = [c for c in cases if c[0] not in whole]
    samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name, _, _ in selective}
    warmup = min(50, max(5, reps // 10))
    for i in range(warmup + reps):
        for name, _, run in selective:
            sample = timed(run)
            if i >= warmup:
                samples[name].append(sample)
    for name, n, run in cases:
        if name in whole:  # long: measured one after the other, without warm-up
            samples[name] = [timed(run) for _ in range(n)]
    results = []
    for name, n, _ in cases:
        wall = [s[0] for s in samples[name]]
        cpu = [s[1] for s in samples[name]]
        rows = [s[2] for s in samples[name]]
        results.append(dict(view=name, reps=n, p50_ms=round(_percentile(wall, 0.5), 3),
                            p95_ms=round(_percentile(wall, 0.95), 3),
                            cpu_p50_ms=round(_percentile(cpu, 0.5), 3), cpu_p95_ms=round(_percentile(cpu, 0.95), 3),
                            mean_rows=round(statistics.fmean(rows), 1)))
        print(f"  {name}: p50 {results[-1]['p50_ms']} ms, p95 {results[-1]['p95_ms']} ms", file=sys.stderr)
    return results


#: The standing column's per-row test, as the templates write it, and the floor it is measured
#: against: the same row without the test (a claim with support counted "supported").
STANDING_TEST = "  BIND(IF(COALESCE(?alternatives, 0) = 0, \"unrecorded\","
STANDING_FLOOR = '  BIND(IF(COALESCE(?alternatives, 0) = 0, "unrecorded", "supported") AS ?standing)'


def without_standing(text: str) -> str:
    """A view's text with the standing column's per-row test replaced by its floor: what the
    template costs when standing is one read per claim, not computed from the support links."""
    start = text.index(STANDING_TEST)
    end = text.index("AS ?standing)", start) + len("AS ?standing)")
    return text[:start] + STANDING_FLOOR + text[end:]


def measure_standing(store: MemoryStore, n_claims: int, reps: int, seed: int) -> list[dict]:
    """The subject views with the standing column against the same templates without it,
    interleaved round after round on random subjects (the same subject for both)."""
    from memkg.guard.access import dataset_for
    from memkg.store import views

    rng = random.Random(seed + 2)
    n_people = max(1, n_claims // 20)
    shapes = {"with the standing column": lambda text: text, "floor: without it": without_standing}
    params = {"current": lambda: {"tenant": TENANT},
              "audit": lambda: {"tenant": TENANT, "known_at": _iso(EPOCH + rng.randrange(SPAN))}}
    samples: dict[str, list[tuple[float, float, int]]] = {f"{v}, subject, {s}": [] for v in params for s in shapes}
    warmup = min(50, max(5, reps // 10))
    for i in range(warmup + reps):
        subject = f"{EX}person{rng.randrange(n_people)}"
        for name, given in params.items():
            bound = views.bind(views.get_view(name), {**given(), "subject": subject})
            for shape, rewrite in shapes.items():
                text = rewrite(bound.text)
                t0, c0 = time.perf_counter(), time.process_time()
                k = sum(1 for _ in store.query(text, **dataset_for(bound.tenant)))
                sample = ((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000, k)
                if i >= warmup:
                    samples[f"{name}, subject, {shape}"].append(sample)
    return [dict(view=name, reps=reps, p50_ms=round(_percentile([s[0] for s in got], 0.5), 3),
                 p95_ms=round(_percentile([s[0] for s in got], 0.95), 3),
                 cpu_p50_ms=round(_percentile([s[1] for s in got], 0.5), 3),
                 cpu_p95_ms=round(_percentile([s[1] for s in got], 0.95), 3),
                 mean_rows=round(statistics.fmean(s[2] for s in got), 1)) for name, got in samples.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=100_000, help="claims in the synthetic store (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=500, help="repetitions of each selective view (default 500)")
    ap.add_argument("--dir", type=Path, default=Path(os.environ.get("MEMKG_BENCH_DIR", "/tmp/memkg-bench")),
                    help="where built stores are cached (default /tmp/memkg-bench or $MEMKG_BENCH_DIR)")
    ap.add_argument("--whole-reps", type=int, default=3, help="repetitions of the whole-tenant views (default 3)")
    ap.add_argument("--rebuild", action="store_true", help="build the store again even if cached")
    ap.add_argument("--validate", action="store_true", help="validate the load (default: unvalidated load)")
    ap.add_argument("--optimize", action="store_true", help="compact the store after loading it")
    ap.add_argument("--json", nargs="?", const="-", metavar="FILE",
                    help="also write the results as JSON to FILE (or stdout)")
    ap.add_argument("--standing", action="store_true",
                    help="only the subject views with the standing column against the same without it")
    args = ap.parse_args(argv)

    print(f"building/opening a store of {args.claims:,} claims…", file=sys.stderr)
    path, info = build_store(args.claims, args.seed, args.dir, args.rebuild,
                             validate=args.validate, optimize=args.optimize)
    print(f"  {info}", file=sys.stderr)
    store = open_store(path, read_only=True)
    load_before = os.getloadavg()[0]
    if args.standing:
        results = measure_standing(store, args.claims, args.reps, args.seed)
        print(f"load average {load_before:.1f} → {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
        print("| view | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | rows (mean) |\n|---|---:|---:|---:|---:|---:|")
        for r in results:
            print(f"| {r['view']} | {r['p50_ms']:.3f} | {r['p95_ms']:.3f} | {r['cpu_p50_ms']:.3f} | "
                  f"{r['cpu_p95_ms']:.3f} | {r['mean_rows']:g} |")
        return 0
    results = measure(store, args.claims, args.reps, args.seed, args.whole_reps)
    load_after = os.getloadavg()[0]
    floor = results[0]["p95_ms"]
    goal = 2.0 if args.claims <= 100_000 else 10.0

    lines = [f"### memkg views, {args.claims:,} claims ({info['quads']:,} quads incl. index"
             f"{', compacted' if info.get('optimized') else ''})", "",
             f"on-disk store, tenant dataset; load average {load_before:.1f} → {load_after:.1f} "
             f"on {os.cpu_count()} CPUs", "",
             "| view | reps | p50 ms | p95 ms | p95 / floor | CPU p50 ms | CPU p95 ms | rows (mean) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        ratio = r["p95_ms"] / floor if floor else float("nan")
        lines.append(f"| {r['view']} | {r['reps']} | {r['p50_ms']:.3f} | {r['p95_ms']:.3f} | "
                     f"{ratio:.1f}x | {r['cpu_p50_ms']:.3f} | {r['cpu_p95_ms']:.3f} | {r['mean_rows']:g} |")
    cur = next(r for r in results if r["view"] == "current, subject, tenant")
    lines += ["", f"Goal (a subject's current claims, p95 <= {goal:g} ms): "
              f"{'met' if cur['p95_ms'] <= goal else 'NOT met'} ({cur['p95_ms']:.3f} ms wall, "
              f"{cur['cpu_p95_ms']:.3f} ms CPU)"]
    print("\n".join(lines))

    if args.json:
        doc = dict(claims=args.claims, seed=args.seed, store=info, goal_p95_ms=goal, results=results,
                   loadavg=[load_before, load_after],
                   python=platform.python_version(), machine=platform.machine(),
                   pyoxigraph=__import__("pyoxigraph").__version__)
        text = json.dumps(doc, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
