"""SPARQL Update through memkg (planned, confined, validated, atomic) against Oxigraph's own ``Store.update``.

Builds a synthetic memory (``synthetic.py``, one tenant) twice in memory: a
memkg store with native write validation, and a raw pyoxigraph store with the
same quads. Each round runs the same request pair on both, interleaved
(memkg, raw, memkg-unvalidated, …), then its inverse, so every round starts
from the same data:

* ``insert-claim``: INSERT DATA of one new, valid claim (9 quads), then DELETE DATA of it;
* ``modify-where``: DELETE/INSERT … WHERE over one person's claims (~20 solutions), then back;
* ``multi-op``: INSERT DATA then a WHERE reading what it wrote (the copy-on-read path), then cleanup.

Reported: median milliseconds per request for memkg (validated), memkg with
``validation=None`` (planning only) and raw Oxigraph, and the median of the
per-round ratios memkg / raw.

    python benchmarks/bench_updates.py [--claims 20000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pyoxigraph import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic  # noqa: E402

from memkg import MemoryStore  # noqa: E402
from memkg.guard.access import OPEN  # noqa: E402
from memkg.history.updates import apply_update  # noqa: E402

TENANT = f"{synthetic.TENANT_BASE}0"
HEAD = (f"PREFIX mem: <https://w3id.org/memkg#> PREFIX prov: <http://www.w3.org/ns/prov#> "
        f"PREFIX ex: <{synthetic.EX}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
        f"PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n")


def workloads(person: str, predicate: str, message: str, extraction: str, entity: str) -> dict[str, tuple[str, str]]:
    claim = (f"GRAPH <{TENANT}> {{ ex:benchClaim a mem:Claim ; rdf:reifies <<( {person} {predicate} {entity} )>> ; "
             f"mem:confidence 0.5 ; mem:recordedAt \"2026-01-01T00:00:00Z\"^^xsd:dateTime ; "
             f"mem:assertedBy {message} ; prov:wasGeneratedBy {extraction} }}")
    return {
        "insert-claim": (f"INSERT DATA {{ {claim} }}", f"DELETE DATA {{ {claim} }}"),
        "modify-where": (
            f"WITH <{TENANT}> DELETE {{ ?c mem:confidence ?x }} INSERT {{ ?c mem:confidence 0.25 ; ex:was ?x }} "
            f"WHERE {{ ?c mem:subjectIndexPlaceholder ?none OPTIONAL {{ }} }}".replace(
                "?c mem:subjectIndexPlaceholder ?none OPTIONAL { }",
                f"?c <https://w3id.org/memkg/index#subject> {person} ; mem:confidence ?x"),
            f"WITH <{TENANT}> DELETE {{ ?c mem:confidence 0.25 ; ex:was ?x }} INSERT {{ ?c mem:confidence ?x }} "
            f"WHERE {{ ?c ex:was ?x }}"),
        "multi-op": (
            f"INSERT DATA {{ {claim} }} ; WITH <{TENANT}> INSERT {{ ?c ex:seen true }} "
            f"WHERE {{ ?c mem:assertedBy {message} }}",
            f"DELETE DATA {{ {claim} }} ; WITH <{TENANT}> DELETE {{ ?c ex:seen true }} WHERE {{ ?c ex:seen true }}"),
    }


def pick(store: MemoryStore) -> tuple[str, ...]:
    row = next(iter(store.query(
        f"SELECT ?p ?pred ?m ?x ?e WHERE {{ GRAPH <{TENANT}> {{ ?c <https://w3id.org/memkg/index#subject> ?p ; "
        f"<https://w3id.org/memkg/index#predicate> ?pred ; mem:assertedBy ?m ; prov:wasGeneratedBy ?x . "
        f"?e a mem:Entity }} }} LIMIT 1")))
    return tuple(str(row[v]) for v in ("p", "pred", "m", "x", "e"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args(argv)
    cache = Path(tempfile.gettempdir()) / "memkg-bench"
    cache.mkdir(exist_ok=True)
    source = cache / f"updates-{args.claims}-v{synthetic.GENERATOR_VERSION}.trig"
    if not source.exists():
        synthetic.generate(args.claims, source)
    validated = MemoryStore()
    validated.load(source)
    unvalidated = MemoryStore(validation=None)
    unvalidated.load(source)
    raw = Store()
    raw.extend(validated.raw)
    jobs = workloads(*pick(validated))
    print(f"# bench_updates: {args.claims:,} claims, {len(raw):,} quads, {args.rounds} rounds; "
          f"python {platform.python_version()}, load {os.getloadavg()[0]:.2f}")
    print("| request | memkg validated (ms) | memkg unvalidated (ms) | raw Store.update (ms) | ratio validated/raw |")
    print("|---|---|---|---|---|")
    for name, (forward, backward) in jobs.items():
        times: dict[str, list[float]] = {"v": [], "u": [], "r": []}
        ratios = []
        for _ in range(args.rounds):
            round_times = {}
            for key, run in (("v", lambda t: apply_update(validated, HEAD + t, grant=OPEN)),
                             ("r", lambda t: raw.update(HEAD + t)),
                             ("u", lambda t: apply_update(unvalidated, HEAD + t, grant=OPEN))):
                started = time.perf_counter()
                run(forward)
                round_times[key] = time.perf_counter() - started
                run(backward)
            for key, value in round_times.items():
                times[key].append(value * 1000)
            ratios.append(round_times["v"] / round_times["r"])
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"| {name} | {med['v']:.2f} | {med['u']:.2f} | {med['r']:.2f} | {statistics.median(ratios):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
