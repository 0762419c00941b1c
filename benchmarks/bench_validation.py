"""Validation cost: the whole store (native against pySHACL) and one write (native).

    python benchmarks/bench_validation.py                           # (a) at 100k claims, (b) at 1M
    python benchmarks/bench_validation.py --claims 20000 --store-claims 100000 --writes 500
    python benchmarks/bench_validation.py --skip-whole --json out.json
    python benchmarks/bench_validation.py --skip-whole --skip-incremental --file-and-store 100000 --repeat 1
    python benchmarks/bench_validation.py --skip-whole --skip-incremental --peers 1000,10000,50000

(a) **Whole store.** A synthetic memory of ``--claims`` claims
(``benchmarks/synthetic.py``, valid by construction) is loaded once into an
on-disk store with ``MemoryStore(path, validation=None)`` (cached under
``--dir``), then validated in this process with
``validate_store(store, engine="native")`` (``--repeat`` times, median) and with
``validate_store(store, engine="pyshacl")`` (once: it is slow) on the same data
and shapes. Before that, ``--violations`` violations of each of 8 kinds are seeded
into the store (removed again afterwards), so both engines have results to agree
on. The two results must be identical (as ``Violation.key()``), leaving out
mem:TenantIsolationShape, which pySHACL cannot run (it reads other graphs); a
difference the differential test documents as one engine's known error (its
``ALLOWANCES``, each citing the clause that decides) is named, not hidden.
Goal: native at least 20x faster.

pySHACL hands rdflib the text of each SHACL-SPARQL constraint once per focus node,
and rdflib parses it again every time (~0.1 s each with pyparsing): ~90 % of its
time, ~220 ms per claim, ~6 h at 100k claims. ``--pyshacl-mode prepared`` (the
default) lets rdflib parse each distinct text once, as ``prepareQuery`` does (same
results, ~10x faster: the baseline most favourable to pySHACL);
``--pyshacl-mode stock`` measures it as shipped.

(b) **One write.** A store of ``--store-claims`` claims is built once on disk
(``validation=None``, cached by size under ``--dir``; the build time is reported
against ``--build-budget``). Then, for ``--writes`` random single-claim writes
(a claim about an existing person, on a declared predicate, about an existing
entity, asserted by an existing message), it times two things:

* **the validation of the write**: ``WriteValidator("native")(store, batch)``, where
  ``batch`` is exactly what ``store.add`` hands its validator (the claim's quads,
  stamped, with its index triples: 9 quads), split into ``stage`` (reading the
  context from the store and building the scratch store) and the engine's
  ``validate`` on it (the verdict). Building the batch is not timed. Goal: p95 <= 2 ms;
* **the whole write**: ``store.add(Claim(…))`` (mint, stamp, index, validate, commit
  to disk), the figure a caller sees.

The claims ``store.add`` wrote are erased again afterwards, so the cached store
stays as built.

(c) **A file against its store** (``--file-and-store CLAIMS``). ``validate_files``
of the synthetic TriG (parse, then judge every literal as written) and
``validate_store`` of the on-disk store built from it, alternating in one process;
with ``--on-disk``, the store also validated without the in-memory copy. Goals: the
store at least as fast as the file; >= 20k claims/s at 100k claims for both.

(e) **The peers** (``--peers SIZES``): memkg, pyshifty, pyshacl-turbo, TopQuadrant's engine
(with Java) and pySHACL, each in a process of its own, on the same RDF 1.1 files (the projection
of the synthetic memory with seeded violations, and memkg's shapes as pySHACL gets them): CPU
seconds, peak memory, the number of results and their agreement with pySHACL's on (focus, path,
shape, component). See ``benchmarks/peers.py``. Goal: memkg's CPU at most 1/3 of the fastest peer's.

Markdown tables go to stdout, progress to stderr; ``--json`` also writes every
figure (``-`` for stdout). Timings are wall clock with CPU time beside them: on a
shared machine the load average (reported) moves wall time far more than CPU time.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import dataclasses
import io
import json
import os
import platform
import pstats
import random
import shutil
import signal
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyoxigraph
from pyoxigraph import NamedNode

import memkg
from memkg import Claim, MemoryStore
from memkg.store import claim_index
from memkg import validation
from memkg.validation import WriteValidator, validate_store

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402
import synthetic  # noqa: E402

TENANT = synthetic.TENANT_BASE + "0"
EX = synthetic.EX
TENANT_ISOLATION = "https://w3id.org/memkg#TenantIsolationShape"
#: Predicates of the synthetic memory whose object is an entity (and which are not functional).
ENTITY_PREDICATES = [p for p, _, kind, functional, _ in synthetic.CLAIM_PREDICATES if kind == "entity" and not functional]
GOAL_RATIO = 20.0
GOAL_P95_MS = 2.0
GOAL_CLAIMS_PER_S = 20_000


def log(message: str) -> None:
    print(f"[bench_validation {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def percentile(samples: list[float], q: float) -> float:
    xs = sorted(samples)
    k = max(0, min(len(xs) - 1, round(q * (len(xs) - 1))))
    return xs[k]


@contextmanager
def timed() -> Any:
    """``with timed() as t:`` … ``t["wall"]``, ``t["cpu"]`` in seconds."""
    out: dict[str, float] = {}
    w, c = time.perf_counter(), time.process_time()
    try:
        yield out
    finally:
        out["wall"] = time.perf_counter() - w
        out["cpu"] = time.process_time() - c


# -- the stores -------------------------------------------------------------------------------


def built_store(claims: int, seed: int, folder: Path, *, rebuild: bool = False,
                keep_file: bool = False) -> tuple[Path, dict[str, Any]]:
    """An on-disk memkg store of the synthetic memory, built once (validation=None) and cached by size.

    ``keep_file``: keep the generated TriG beside it (``memory.trig``; generated again if missing)."""
    digest = hashlib.sha256(Path(synthetic.__file__).read_bytes()).hexdigest()[:10]
    key = folder / f"validation-c{claims}-s{seed}-g{synthetic.GENERATOR_VERSION}-{digest}"
    marker = key / "built.json"
    if marker.exists() and not rebuild:
        info = json.loads(marker.read_text())
        log(f"reusing the store of {claims:,} claims in {key} (built in {info['build_s']:.0f} s)")
        info["cached"] = True
        if keep_file and not (key / "memory.trig").exists():
            log(f"generating {claims:,} claims -> {key / 'memory.trig'} again (the same bytes)")
            synthetic.generate(claims, key / "memory.trig", seed=seed)
        return key / "store", info
    if key.exists():
        shutil.rmtree(key)
    key.mkdir(parents=True)
    trig = key / "memory.trig"
    log(f"generating {claims:,} claims -> {trig}")
    with timed() as gen:
        stats = synthetic.generate(claims, trig, seed=seed)
    log(f"  {stats.bytes / 1e6:.0f} MB in {gen['wall']:.0f} s; loading it (validation=None)…")
    with timed() as load:
        with MemoryStore(key / "store", validation=None) as store:
            report = store.load(trig)
            quads = len(store)
    if not keep_file:
        trig.unlink()
    info = dict(claims=claims, seed=seed, people=stats.people, entities=stats.entities, messages=stats.messages,
                quads=quads, added=report.added, bulk=report.bulk, generate_s=round(gen["wall"], 1),
                load_s=round(load["wall"], 1), build_s=round(gen["wall"] + load["wall"], 1))
    marker.write_text(json.dumps(info, indent=2))
    log(f"  loaded {quads:,} quads in {load['wall']:.0f} s")
    info["cached"] = False
    return key / "store", info


# -- (a) the whole store ---------------------------------------------------------------------------


def seeded_violations(store: MemoryStore, per_kind: int, seed: int) -> list[pyoxigraph.Quad]:
    """Quads that break invariants, ``per_kind`` of each kind, on random existing nodes.

    With a valid store both engines report nothing, and "identical results" would be
    an empty comparison: these give both engines the same violations to find.
    """
    from pyoxigraph import Literal, Quad, Triple

    from memkg.core.vocab import mem, memx, prov, rdf, xsd

    graph = NamedNode(TENANT)
    rng = random.Random(seed + 11)
    pool = 50 * per_kind
    claims, messages = [], []
    for q in store.raw.quads_for_pattern(None, rdf.type, mem.Claim, graph):
        claims.append(q.subject)
        if len(claims) >= pool:
            break
    for q in store.raw.quads_for_pattern(None, rdf.type, mem.Message, graph):
        messages.append(q.subject)
        if len(messages) >= pool:
            break
    c = rng.sample(claims, 6 * per_kind)
    m = rng.sample(messages, 3 * per_kind)
    event_ids = [next(iter(store.raw.quads_for_pattern(x, mem.eventId, None, graph))).object for x in m[per_kind:2 * per_kind]]
    out: list[tuple[Any, Any, Any]] = []
    for i in range(per_kind):
        out.append((c[i], mem.confidence, Literal("1.5", datatype=xsd.decimal)))  # 10: outside [0, 1]
        out.append((c[per_kind + i], mem.validFrom, Literal("2026-01-01T00:00:00", datatype=xsd.dateTime)))  # 6: no zone
        out.append((c[2 * per_kind + i], mem.context, NamedNode(f"{EX}untyped{i}")))  # 2: untyped far end
        a, b = c[3 * per_kind + i], c[4 * per_kind + i]
        out += [(a, mem.supersedes, b), (b, mem.supersedes, a)]  # 8: a version cycle
        out.append((c[5 * per_kind + i], prov.wasDerivedFrom, c[5 * per_kind + i]))  # 8: derived from itself
        out.append((m[i], mem.eventId, event_ids[i]))  # 9: an event id held twice
        out.append((m[2 * per_kind + i], mem.assertedBy, m[i]))  # 3: only a claim is asserted by
        fresh = NamedNode(f"{EX}badclaim{i}")
        undeclared = NamedNode(f"{EX}undeclared{i}")
        subject, obj = NamedNode(f"{EX}p{i}"), NamedNode(f"{EX}n{i}")
        out += [(fresh, rdf.type, mem.Claim), (fresh, rdf.reifies, Triple(subject, undeclared, obj)),  # 4 and 5
                (fresh, memx.subject, subject), (fresh, memx.predicate, undeclared), (fresh, memx.object, obj)]
    quads = [Quad(s, p, o, graph) for s, p, o in out]
    return [q for q in dict.fromkeys(quads) if q not in store.raw]


@contextmanager
def _nothing() -> Any:
    yield


def compared_keys(report: validation.Report) -> set[tuple[str, ...]]:
    return {r.key() for r in report.results if str(r.shape).strip("<>") != TENANT_ISOLATION}


def allowances(store: MemoryStore, native: validation.Report, pyshacl: validation.Report,
               n: set[tuple[str, ...]], p: set[tuple[str, ...]]) -> tuple[dict[str, int], int]:
    """The differences the differential test documents as one engine's known error (its
    ``ALLOWANCES``, each citing the clause that decides), by name; and how many are left unexplained."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.validation.test_engines_differential import explained

    used: dict[str, int] = {}
    unexplained = 0
    for side, report, keys in (("native", native, n - p), ("pyshacl", pyshacl, p - n)):
        for r in report.results:
            if r.key() in keys:
                a = explained(r, side, store.raw)
                if a is None:
                    unexplained += 1
                else:
                    used[a.name] = used.get(a.name, 0) + 1
    return used, unexplained


@contextmanager
def prepared_sparql() -> Any:
    """rdflib parses each distinct SPARQL text once (what ``rdflib.plugins.sparql.prepareQuery`` does)."""
    from rdflib.plugins.sparql import processor

    original = processor.SPARQLProcessor.query
    cache: dict[tuple[Any, ...], Any] = {}

    def query(self: Any, strOrQuery: Any, initBindings: Any = None, initNs: Any = None, base: Any = None,  # noqa: N803
              DEBUG: bool = False) -> Any:  # noqa: N803
        if isinstance(strOrQuery, str):
            key = (strOrQuery, base, frozenset((initNs or {}).items()))
            if key not in cache:
                cache[key] = processor.translateQuery(processor.parseQuery(strOrQuery), base, initNs)
            strOrQuery = cache[key]
        return original(self, strOrQuery, initBindings, initNs, base, DEBUG)

    processor.SPARQLProcessor.query = query
    try:
        yield
    finally:
        processor.SPARQLProcessor.query = original


def whole_store(claims: int, seed: int, folder: Path, repeat: int, rebuild: bool, pyshacl_mode: str,
                violations: int) -> dict[str, Any]:
    path, info = built_store(claims, seed, folder, rebuild=rebuild)
    store = MemoryStore(path, validation=None)
    seeded = seeded_violations(store, violations, seed) if violations else []
    store.raw.extend(seeded)
    log(f"  seeded {len(seeded)} invariant-breaking quads ({violations} of each kind); removed again at the end")
    try:
        return _whole_store(store, info, claims, repeat, pyshacl_mode, len(seeded))
    finally:
        for q in seeded:
            store.raw.remove(q)
        store.close()


def _whole_store(store: MemoryStore, info: dict[str, Any], claims: int, repeat: int, pyshacl_mode: str,
                 seeded: int) -> dict[str, Any]:
    native_runs: list[dict[str, float]] = []
    native_report = None
    for i in range(repeat):
        with timed() as t:
            native_report = validate_store(store, engine="native")
        native_runs.append(t)
        log(f"  native run {i + 1}/{repeat}: {t['wall']:.2f} s wall, {t['cpu']:.2f} s CPU, "
            f"{len(native_report.results)} result(s)")
    log(f"  pySHACL run ({pyshacl_mode}: projection, OWL-RL closure of the ontology, then per-focus SPARQL; "
        f"this takes a while)…")
    load_before = os.getloadavg()[0]
    import logging

    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)
    with timed() as py, (prepared_sparql() if pyshacl_mode == "prepared" else _nothing()):
        pyshacl_report = validate_store(store, engine="pyshacl")
    log(f"  pySHACL: {py['wall']:.1f} s wall, {py['cpu']:.1f} s CPU, {len(pyshacl_report.results)} result(s)")
    assert native_report is not None
    n, p = compared_keys(native_report), compared_keys(pyshacl_report)
    allowed, unexplained = allowances(store, native_report, pyshacl_report, n, p)
    native_wall = statistics.median(r["wall"] for r in native_runs)
    native_cpu = statistics.median(r["cpu"] for r in native_runs)
    return dict(
        claims=claims, store=info, quads=len(store), repeat=repeat, pyshacl_mode=pyshacl_mode, seeded_quads=seeded,
        native_wall_s=round(native_wall, 3), native_cpu_s=round(native_cpu, 3),
        native_runs=[{k: round(v, 3) for k, v in r.items()} for r in native_runs],
        pyshacl_wall_s=round(py["wall"], 3), pyshacl_cpu_s=round(py["cpu"], 3),
        ratio_wall=round(py["wall"] / native_wall, 1), ratio_cpu=round(py["cpu"] / native_cpu, 1),
        native_results=len(native_report.results), pyshacl_results=len(pyshacl_report.results),
        compared=len(n), identical=n == p, identical_but_allowances=not unexplained, allowances=allowed,
        native_only=sorted(n - p)[:20], pyshacl_only=sorted(p - n)[:20],
        loadavg_during_pyshacl=[load_before, os.getloadavg()[0]],
    )


# -- (c) a file against the store it loads into -------------------------------------------------------


def file_and_store(claims: int, seed: int, folder: Path, repeat: int, rebuild: bool, on_disk: bool) -> dict[str, Any]:
    """``memkg validate FILE`` against ``memkg validate`` of the same data in an on-disk store,
    in this process, alternating, ``repeat`` times each (median); optionally the store validated
    on disk, without the in-memory copy (the way before it: the baseline)."""
    from memkg.validation import validate_files

    path, info = built_store(claims, seed, folder, rebuild=rebuild, keep_file=True)
    trig = path.parent / "memory.trig"
    runs: dict[str, list[dict[str, float]]] = {"file": [], "store": []}
    if on_disk:
        runs["store on disk"] = []
    results: dict[str, list[tuple[str, ...]]] = {}

    def run(kind: str) -> None:
        with timed() as t:
            if kind == "file":
                report = validate_files([trig])
            else:
                with MemoryStore(path, validation=None, read_only=True) as store:
                    report = validate_store(store, in_memory=None if kind == "store" else False)
        runs[kind].append(t)
        results[kind] = sorted(r.key() for r in report.results)
        log(f"  {kind}: {t['wall']:.1f} s wall, {t['cpu']:.1f} s CPU, {len(report.results)} result(s)")

    for i in range(repeat):
        log(f"  round {i + 1}/{repeat}")
        for kind in runs:
            run(kind)
    out: dict[str, Any] = dict(claims=claims, quads=info["quads"], bytes=trig.stat().st_size, repeat=repeat,
                               loadavg=os.getloadavg()[0])
    for kind, rs in runs.items():
        wall, cpu = statistics.median(r["wall"] for r in rs), statistics.median(r["cpu"] for r in rs)
        out[kind] = dict(wall_s=round(wall, 2), cpu_s=round(cpu, 2), claims_per_s_wall=round(claims / wall),
                         claims_per_s_cpu=round(claims / cpu), results=len(results[kind]),
                         runs=[{k: round(v, 2) for k, v in r.items()} for r in rs])
    out["store_over_file_wall"] = round(out["store"]["wall_s"] / out["file"]["wall_s"], 2)
    out["store_over_file_cpu"] = round(out["store"]["cpu_s"] / out["file"]["cpu_s"], 2)
    out["same_results"] = len({tuple(v) for v in results.values()}) == 1
    return out


def positions(claims: int, seed: int, folder: Path, repeat: int, rebuild: bool, bad: int) -> dict[str, Any]:
    """What placing results in the text costs (``memkg.core.positions``): the synthetic file
    validated as it is (it conforms: the files are never read again) and with ``bad`` claims
    without provenance appended (each result then placed), with the placing timed apart."""
    from memkg.validation import validate_files
    from memkg.validation.locations import place

    path, info = built_store(claims, seed, folder, rebuild=rebuild, keep_file=True)
    trig = path.parent / "memory.trig"
    broken = path.parent / "memory-broken.trig"
    tail = "".join(f"GRAPH <{EX}tenant> {{ <{EX}bad{i}> a <https://w3id.org/memkg#Claim> ; "
                   f"<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <{EX}p0> <{EX}knows> <{EX}n{i}> )>> . }}\n"
                   for i in range(bad))
    broken.write_text(trig.read_text() + tail)
    out: dict[str, Any] = dict(claims=claims, bytes=trig.stat().st_size, bad=bad, repeat=repeat,
                               loadavg=os.getloadavg()[0])
    for kind, file in (("conforming", trig), ("with violations", broken)):
        rs = []
        for _ in range(repeat):
            with timed() as t:
                report = validate_files([file])
            rs.append(t)
        out[kind] = dict(cpu_s=round(statistics.median(r["cpu"] for r in rs), 2), results=len(report.results),
                         placed=sum(r.line is not None for r in report.results))
        if report.results:
            bare = [dataclasses.replace(r, file=None, line=None, column=None) for r in report.results]
            with timed() as t:
                place(bare, [file])
            out[kind]["placing_cpu_s"] = round(t["cpu"], 3)
        log(f"  {kind}: {out[kind]}")
    return out


# -- (b) one write ---------------------------------------------------------------------------------


class Writes:
    """Random single-claim writes against the synthetic store: existing person, entity and message."""

    def __init__(self, info: dict[str, Any], seed: int) -> None:
        self.rng = random.Random(seed + 7)
        self.info = info

    def claim(self) -> Claim:
        r, info = self.rng, self.info
        # One tenant: ids are minted in order, people p0…, entities n0…, messages m0….
        return Claim(
            subject=NamedNode(f"{EX}p{r.randrange(info['people'])}"),
            predicate=EX + r.choice(ENTITY_PREDICATES),
            object=NamedNode(f"{EX}n{r.randrange(info['entities'])}"),
            confidence=round(r.uniform(0.3, 1.0), 3),
            valid_from=datetime(2026, 1, 1 + r.randrange(28), tzinfo=timezone.utc),
            asserted_by=NamedNode(f"{EX}m{r.randrange(info['messages'])}"),
        )


def _timed_helpers() -> tuple[dict[str, list[float]], Callable[[], None]]:
    """Wrap the helpers WriteValidator.stage calls (module globals, looked up at call time) with timers."""
    names = ["_read_subjects", "_describe", "_chains", "_event_id_holders", "_types", "_incompleteness", "_hierarchy"]
    spent: dict[str, list[float]] = {n: [] for n in names}
    originals = {n: getattr(validation.writes, n) for n in names}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name][-1] += time.perf_counter() - t
        return inner

    for n, fn in originals.items():
        setattr(validation.writes, n, wrap(n, fn))

    def restore() -> None:
        for n, fn in originals.items():
            setattr(validation.writes, n, fn)

    return spent, restore


def incremental(claims: int, seed: int, folder: Path, n_writes: int, budget: float, rebuild: bool,
                profile: bool) -> dict[str, Any]:
    path, info = built_store(claims, seed, folder, rebuild=rebuild)
    graph = NamedNode(TENANT)
    store = MemoryStore(path)  # validation="native": store.add validates like in production
    validator = WriteValidator("native")
    writes = Writes(info, seed)
    warmup = min(20, n_writes)

    def batch() -> list[pyoxigraph.Quad]:
        # Exactly what MemoryStore.add -> write hands to the validator.
        return list(claim_index.with_index(writes.claim().quads(graph, store.clock.tick())))

    for _ in range(warmup):
        assert validator(store, batch()) == []

    # 1. the validator alone, split into stage and engine; helper timings on the side.
    spent, restore = _timed_helpers()
    rows: dict[str, list[float]] = {k: [] for k in ("total", "stage", "engine", "total_cpu", "stage_cpu", "engine_cpu",
                                                   "scratch_quads")}
    profiler = cProfile.Profile() if profile else None
    try:
        for _ in range(n_writes):
            b = batch()
            for v in spent.values():
                v.append(0.0)
            t0, c0 = time.perf_counter(), time.process_time()
            if profiler:
                profiler.enable()
            scratch, focus, graphs = validator.stage(store.raw, b)
            t1, c1 = time.perf_counter(), time.process_time()
            results = validation.validate_graphs(validator.engine, scratch, graphs, focus)
            t2, c2 = time.perf_counter(), time.process_time()
            if profiler:
                profiler.disable()
            assert not [r for r in results if str(r.shape).strip("<>") != TENANT_ISOLATION], results
            rows["stage"].append((t1 - t0) * 1000)
            rows["engine"].append((t2 - t1) * 1000)
            rows["total"].append((t2 - t0) * 1000)
            rows["total_cpu"].append((c2 - c0) * 1000)
            rows["stage_cpu"].append((c1 - c0) * 1000)
            rows["engine_cpu"].append((c2 - c1) * 1000)
            rows["scratch_quads"].append(len(scratch))
    finally:
        restore()
    profile_text = None
    if profiler:
        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(30)
        profile_text = buf.getvalue()
        print(profile_text, file=sys.stderr)

    # 2. the full write path, store.add(Claim(...)): then erase what it wrote.
    added: list[NamedNode] = []
    add_ms: list[float] = []
    add_cpu: list[float] = []
    try:
        for i in range(n_writes + warmup):
            c = writes.claim()
            t0, c0 = time.perf_counter(), time.process_time()
            added.append(store.add(c, graph=graph))
            if i >= warmup:
                add_ms.append((time.perf_counter() - t0) * 1000)
                add_cpu.append((time.process_time() - c0) * 1000)
    finally:
        log(f"  erasing the {len(added)} claims the add path wrote (the cached store stays as built)")
        doomed = [q for node in added for q in store.raw.quads_for_pattern(node, None, None, None)]
        store.change(remove=doomed)
        store.close()

    def stats(xs: list[float]) -> dict[str, float]:
        return {"p50": round(percentile(xs, 0.5), 3), "p95": round(percentile(xs, 0.95), 3),
                "p99": round(percentile(xs, 0.99), 3), "mean": round(statistics.fmean(xs), 3)}

    helpers = {n: stats([s * 1000 for s in v]) for n, v in spent.items()}
    return dict(
        claims=claims, store=info, writes=n_writes, warmup=warmup, build_budget_s=budget,
        built_within_budget=info["build_s"] <= budget,
        validator=stats(rows["total"]), validator_cpu=stats(rows["total_cpu"]),
        stage=stats(rows["stage"]), engine=stats(rows["engine"]), stage_cpu=stats(rows["stage_cpu"]),
        engine_cpu=stats(rows["engine_cpu"]), stage_helpers=helpers,
        scratch_quads=stats(rows["scratch_quads"]),
        add=stats(add_ms), add_cpu=stats(add_cpu), profile=profile_text,
    )


# -- report -----------------------------------------------------------------------------------------


def markdown(record: dict[str, Any]) -> str:
    env = record["environment"]
    lines = [f"memkg {env['memkg']}, pyoxigraph {env['pyoxigraph']}, pySHACL {env['pyshacl']}, Python {env['python']}, "
             f"{env['cpus']} CPU(s); load average {record['loadavg'][0]:.1f} at start, "
             f"{record['loadavg'][1]:.1f} at end (a shared machine: wall times are noisy, CPU times less so)", ""]
    for e in record.get("peers", []):
        lines += [f"### (e) The peers, {e['claims']:,} claims ({e['data_triples']:,} triples as RDF 1.1, "
                  f"{e['seeded_per_kind']} seeded violations of each of 8 kinds; load average {e['loadavg']:.1f})", "",
                  f"| engine | CPU s | × memkg's CPU | peak MiB | results | as {e['reference']} | only here "
                  f"| only {e['reference']}'s |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        ours = next((f["cpu_s"] for f in e["engines"] if f["engine"] == "memkg" and "cpu_s" in f), None)
        for f in e["engines"]:
            if "skipped" in f:
                lines.append(f"| {f['engine']} | {f['skipped']} | | | | | | |")
                continue
            ratio = f"{f['cpu_s'] / ours:.1f}" if ours else "-"
            lines.append(f"| {f['engine']} | {f['cpu_s']:.2f} | {ratio} | {f['peak_mib']:.0f} | {f['results']} | "
                         f"{f.get('agree', '-')} | {f.get('only_here', '-')} | {f.get('only_reference', '-')} |")
        lines.append("")
    d = record.get("positions")
    if d:
        lines += [f"### (d) Results placed in the text, {d['claims']:,} claims ({d['bytes']:,} bytes)", "",
                  "| file | CPU s (median) | results | placed | placing CPU s |", "|---|---:|---:|---:|---:|"]
        for kind in ("conforming", "with violations"):
            k = d[kind]
            lines.append(f"| {kind} | {k['cpu_s']:.2f} | {k['results']} | {k['placed']} | "
                         f"{k.get('placing_cpu_s', 0):.3f} |")
        lines.append("")
    a = record.get("whole")
    if a:
        lines += [
            f"### (a) Whole-store validation, {a['claims']:,} claims ({a['quads']:,} quads incl. index and ontology)",
            "",
            "| engine | wall s | CPU s | results |",
            "|---|---:|---:|---:|",
            f"| native (median of {a['repeat']}) | {a['native_wall_s']:.2f} | {a['native_cpu_s']:.2f} | {a['native_results']} |",
            f"| pySHACL ({a['pyshacl_mode']}) | {a['pyshacl_wall_s']:.1f} | {a['pyshacl_cpu_s']:.1f} | {a['pyshacl_results']} |",
            f"| **ratio** | **{a['ratio_wall']:.0f}x** | **{a['ratio_cpu']:.0f}x** | |",
            "",
            f"{a['seeded_quads']} invariant-breaking quads seeded (removed afterwards). "
            f"Results identical (TenantIsolation excluded; {a['compared']} compared): **{'yes' if a['identical'] else 'NO'}**"
            + ("" if a["identical"] else
               f"; identical but for the differential test's documented allowances {a['allowances']}: "
               f"**{'yes' if a['identical_but_allowances'] else 'NO'}**") + ". "
            f"Goal native >= {GOAL_RATIO:g}x faster: wall **{'met' if a['ratio_wall'] >= GOAL_RATIO else 'NOT met'}**, "
            f"CPU **{'met' if a['ratio_cpu'] >= GOAL_RATIO else 'NOT met'}** (the load can change between the "
            f"native runs and pySHACL's: the CPU ratio is the steadier one).",
            "",
        ]
    c = record.get("file_and_store")
    if c:
        lines += [
            f"### (c) `memkg validate FILE` against `memkg validate` of the same data in an on-disk store, "
            f"{c['claims']:,} claims ({c['quads']:,} quads in the store, {c['bytes'] / 1e6:.0f} MB of TriG)",
            "",
            f"Median of {c['repeat']}, alternating in one process; load average {c['loadavg']:.1f} at the end.",
            "",
            "| validation of | wall s | CPU s | claims/s (wall) | claims/s (CPU) | results |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        names = {"file": "the file (parse, then validate as written)",
                 "store": "the store (copied into memory)", "store on disk": "the store, on disk (no copy)"}
        for kind, name in names.items():
            if kind in c:
                k = c[kind]
                lines.append(f"| {name} | {k['wall_s']:.1f} | {k['cpu_s']:.1f} | {k['claims_per_s_wall']:,} | "
                             f"{k['claims_per_s_cpu']:,} | {k['results']} |")
        lines += ["", f"Store / file: **{c['store_over_file_wall']:.2f}x** wall, **{c['store_over_file_cpu']:.2f}x** CPU "
                      f"(goal <= 1). Same results: **{'yes' if c['same_results'] else 'NO'}**. "
                      f"Goal >= {GOAL_CLAIMS_PER_S:,} claims/s at 100k claims.", ""]
    b = record.get("incremental")
    if b:
        st = b["store"]
        lines += [
            f"### (b) One-claim write into a store of {b['claims']:,} claims ({st['quads']:,} quads; built in "
            f"{st['build_s']:.0f} s{'' if b['built_within_budget'] else ', OVER the ' + str(int(b['build_budget_s'])) + ' s budget'})",
            "",
            f"{b['writes']} random writes after {b['warmup']} warm-up ones; ms per write.",
            "",
            "| step | p50 | p95 | p99 | mean |",
            "|---|---:|---:|---:|---:|",
        ]
        rows = [("WriteValidator (wall)", b["validator"]), ("WriteValidator (CPU)", b["validator_cpu"]),
                ("  stage: scratch store + context (wall)", b["stage"]), ("  stage (CPU)", b["stage_cpu"]),
                ("  engine.validate on the scratch (wall)", b["engine"]), ("  engine (CPU)", b["engine_cpu"])]
        rows += [(f"    stage › {n} (wall)", v) for n, v in b["stage_helpers"].items()]
        rows += [("store.add(Claim(…)) (wall)", b["add"]), ("store.add(Claim(…)) (CPU)", b["add_cpu"]),
                 ("scratch store size (quads)", b["scratch_quads"])]
        for name, s in rows:
            lines.append(f"| {name} | {s['p50']:.3f} | {s['p95']:.3f} | {s['p99']:.3f} | {s['mean']:.3f} |")
        lines += ["", f"Goal (validator p95 <= {GOAL_P95_MS:g} ms): "
                      f"wall **{'met' if b['validator']['p95'] <= GOAL_P95_MS else 'NOT met'}** "
                      f"({b['validator']['p95']:.3f} ms), CPU **{'met' if b['validator_cpu']['p95'] <= GOAL_P95_MS else 'NOT met'}** "
                      f"({b['validator_cpu']['p95']:.3f} ms). With the load average above the CPU count, a process "
                      f"waits for a core now and then: wall p95 then measures the scheduler.", ""]
    return "\n".join(lines)


# -- (e) the peers ---------------------------------------------------------------------------------


def peer_engines(sizes: list[int], seed: int, folder: Path, rebuild: bool, timeout: float,
                 engines: list[str]) -> list[dict[str, Any]]:
    """(e) memkg and the SHACL engines a Python user can install, on the same files (``benchmarks/peers.py``)."""
    out = []
    for claims in sizes:
        path, info = built_store(claims, seed, folder, rebuild=rebuild)
        per_kind = max(1, claims // 200)
        inputs = folder / f"peers-c{claims}-s{seed}"
        with MemoryStore(path, validation=None) as store:
            seeded = seeded_violations(store, per_kind, seed)
            log(f"(e) {claims:,} claims: writing the RDF 1.1 projection and the shapes to {inputs}…")
            sizes_of = peers.write_inputs(store, TENANT, inputs, seeded)
        figures = []
        for engine in engines:
            log(f"(e) {claims:,} claims: {engine}…")
            figures.append(peers.run_engine(engine, inputs, timeout))
            log(f"    {figures[-1]}"[:300])
        reference = peers.compare(figures)
        out.append(dict(claims=claims, seeded_per_kind=per_kind, quads=info["quads"], **sizes_of, engines=figures,
                        reference=reference, loadavg=os.getloadavg()[0]))
    return out


def environment() -> dict[str, Any]:
    import pyshacl

    return dict(memkg=getattr(memkg, "__version__", "?"), pyoxigraph=pyoxigraph.__version__,
                pyshacl=getattr(pyshacl, "__version__", "?"), python=platform.python_version(),
                machine=platform.machine(), cpus=os.cpu_count())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=100_000, help="claims for (a), whole-store validation (default 100000)")
    ap.add_argument("--store-claims", type=int, default=1_000_000,
                    help="claims in the store for (b), one-write validation (default 1000000)")
    ap.add_argument("--writes", type=int, default=500, help="single-claim writes timed in (b) (default 500)")
    ap.add_argument("--repeat", type=int, default=3, help="native whole-store runs, median reported (default 3)")
    ap.add_argument("--pyshacl-mode", choices=("prepared", "stock"), default="prepared",
                    help="prepared: rdflib parses each constraint's SPARQL once (default); stock: as shipped")
    ap.add_argument("--violations", type=int, default=20,
                    help="for (a): seed this many violations of each of 8 kinds into the store before validating, "
                         "removed afterwards (default 20; 0: validate the valid store as built)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", type=Path, default=Path(os.environ.get("MEMKG_BENCH_DIR", "/tmp/memkg-bench")),
                    help="where built stores are cached (default /tmp/memkg-bench or $MEMKG_BENCH_DIR)")
    ap.add_argument("--build-budget", type=float, default=600.0,
                    help="seconds the (b) store may take to build; reported against (default 600)")
    ap.add_argument("--rebuild", action="store_true", help="build the stores again even if cached")
    ap.add_argument("--skip-whole", action="store_true", help="skip (a)")
    ap.add_argument("--skip-incremental", action="store_true", help="skip (b)")
    ap.add_argument("--file-and-store", type=int, nargs="?", const=20_000, metavar="CLAIMS",
                    help="(c): validate a file of CLAIMS claims and the store it loads into, same process (default 20000)")
    ap.add_argument("--positions", type=int, nargs="?", const=10_000, metavar="CLAIMS",
                    help="(d) what placing results at file:line:column costs, at CLAIMS claims (default 10000)")
    ap.add_argument("--on-disk", action="store_true", help="for (c): also validate the store on disk, without the copy")
    ap.add_argument("--profile", action="store_true", help="cProfile the validator loop of (b) (to stderr and --json)")
    ap.add_argument("--json", nargs="?", const="-", metavar="FILE", help="also write the figures as JSON to FILE (or stdout)")
    ap.add_argument("--peers", nargs="?", const="1000,10000,50000", metavar="SIZES",
                    help="(e) memkg against pyshifty, pyshacl-turbo, TopQuadrant's engine and pySHACL on the same files, "
                         "at these numbers of claims (comma-separated; default 1000,10000,50000)")
    ap.add_argument("--peer-timeout", type=float, default=3600.0, help="(e): most seconds one engine may take")
    ap.add_argument("--peer-engines", default="memkg,pyshifty,pyshacl-turbo,topquadrant,pyshacl", metavar="NAMES",
                    help="(e): the engines to run (comma-separated; without pyshacl, agreement is with the first other peer)")
    args = ap.parse_args(argv)
    # Stopped with kill: unwind, so that the seeded violations and the add path's claims are erased.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    record: dict[str, Any] = dict(environment=environment(), seed=args.seed, loadavg=[os.getloadavg()[0]])
    if not args.skip_whole:
        log(f"(a) whole-store validation at {args.claims:,} claims")
        record["whole"] = whole_store(args.claims, args.seed, args.dir, args.repeat, args.rebuild, args.pyshacl_mode,
                                      args.violations)
    if args.file_and_store:
        log(f"(c) a file against its store at {args.file_and_store:,} claims")
        record["file_and_store"] = file_and_store(args.file_and_store, args.seed, args.dir, args.repeat, args.rebuild,
                                                  args.on_disk)
    if args.positions:
        log(f"(d) results placed in the text at {args.positions:,} claims")
        record["positions"] = positions(args.positions, args.seed, args.dir, args.repeat, args.rebuild,
                                        args.violations)
    if args.peers:
        engines = args.peer_engines.split(",")
        unknown = sorted(set(engines) - set(peers.ENGINES))
        if unknown:
            ap.error(f"--peer-engines: unknown {', '.join(unknown)}; known: {', '.join(peers.ENGINES)}")
        record["peers"] = peer_engines([int(n) for n in args.peers.split(",")], args.seed, args.dir, args.rebuild,
                                       args.peer_timeout, engines)
    if not args.skip_incremental:
        log(f"(b) one-write validation in a store of {args.store_claims:,} claims")
        record["incremental"] = incremental(args.store_claims, args.seed, args.dir, args.writes, args.build_budget,
                                            args.rebuild, args.profile)
    record["loadavg"].append(os.getloadavg()[0])
    print(markdown(record))
    if args.json:
        text = json.dumps(record, indent=2, default=str)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
