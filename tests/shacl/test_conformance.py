"""The W3C SHACL test suites, run against memkg's native SHACL engine.

One test per manifest entry (pytest id = the entry's path in the suite):
SHACL 1.0 Core and SHACL-SPARQL (``shacl10/tests``), the SHACL 1.2
triple-term subset (``shacl12-subset/tests``) and the whole SHACL 1.2 suite
(``shacl12/tests``: core, SHACL-SPARQL, node expressions, inference rules).
Entries of a test type memkg does not provide (``sht:Infer``) are expected
failures; ``sht:EvalNodeExpr`` entries evaluate the node expression with
``Shapes.evaluate`` (:func:`evaluate_node_expression`); entries whose files the shared copy
lacks (its ``MISSING.md``) are skipped, saying which file. A test compares ``sh:conforms``
and the multiset of results — (focusNode, resultPath, value, sourceShape,
sourceConstraintComponent, resultSeverity) — with the expected report. Blank
nodes are compared by structure (their outgoing triples, a few levels deep);
a blank node the expected report does not describe matches any blank node.
Paths are compared in their SPARQL form. Terms compare exactly as written:
the data is validated with its literals as written (a pyoxigraph store would
rewrite ``"01"^^xsd:integer`` to ``"1"``; :mod:`memkg.core.written`), and the
expected report is read from the parsed manifest, not from a store.
``sht:Failure`` entries expect the shapes to be refused with ``ShapeError``.

The suites are read in place from ``../shared/w3c`` (or ``$MEMKG_W3C_DIR``);
they are never copied into the project. ``EXPECTED_FAILURES`` is strict: an
entry listed there that passes fails the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Store, parse

from memkg.shacl import ShapeError, Shapes, WrittenForms
from memkg.shacl.graph import ShapesGraph, format_for
from memkg.shacl.paths import parse_path
from memkg.core.written import stored_form

pytestmark = pytest.mark.slow

W3C = Path(os.environ.get("MEMKG_W3C_DIR") or Path(__file__).resolve().parents[3] / "shared" / "w3c")

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
SHT = "http://www.w3.org/ns/shacl-test#"
SH = "http://www.w3.org/ns/shacl#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

#: suite name → (folder, IRI base that test IRIs are resolved against)
SUITES = {
    "shacl10": (W3C / "shacl10" / "tests", "urn:x-shacl-test:/"),
    "shacl12": (W3C / "shacl12-subset" / "tests", "urn:x-shacl12-test:/"),
    "shacl12-full": (W3C / "shacl12" / "tests", "urn:x-shacl12-full:/"),
}

_S12 = "urn:x-shacl12-full:/"
#: Manifests of a suite that its manifest tree does not include, run as well (node-expr/manifest.ttl
#: includes constraints/ and shnex/ but not the 76 tests of the SPARQL functions beside them).
UNLINKED_MANIFESTS = {"shacl12-full": ("node-expr/shnex-sparql/manifest.ttl",)}
# Why the entries of the SHACL 1.2 suite below fail. Each refused feature raises ShapeError at
# load naming the term (never a silent "conforms"); the test then fails on that refusal.
_RULES = ("needs the SHACL 1.2 Rules language (sh:RuleSet, SHACL Rules syntax): memkg runs SHACL-AF rules "
          "(sh:TripleRule, sh:SPARQLRule: Shapes.apply_rules, memkg validate --advanced), not yet these")
_ADMISSION = ("wrong fixture for the published spec: a third-party proposal (mf:status sht:proposed) that admits "
              "VALUES / sub-queries which SHACL §5.6.1 pre-binding forbids; the engine refuses them as the spec says")
_IN_002 = ("inconsistent fixture: the data types ex:Instance with ex:TestShape, which the file never defines as a "
           "shape (the shape is ex:TestInUnsatisfiableShape), yet the expected result names ex:TestShape")

#: test IRI → why it is expected to fail (strict: a listed test that passes is an error).
EXPECTED_FAILURES: dict[str, str] = {
    "http://example.org/community/admission-hidden-prebound-subquery-draft": _ADMISSION,
    "http://example.org/community/admission-local-values-draft": _ADMISSION,
    _S12 + "core/node/in-002": _IN_002,
    _S12 + "inference-rules/rules-entailment-ruleset-and-all": _RULES,
    _S12 + "inference-rules/rules-entailment-ruleset-includes": _RULES,
    _S12 + "inference-rules/rules-entailment-ruleset-multiple": _RULES,
    _S12 + "inference-rules/rules-entailment-ruleset-validation": _RULES,
    _S12 + "inference-rules/rules-entailment-validation": _RULES,
    _S12 + "node-expr/shnex-sparql/hasLang-example": (
        "wrong fixture: sparql:hasLang with two arguments (\"hello\"@en \"en\"), but SPARQL 1.2's hasLANG takes one "
        "literal (SPARQL 1.2 Query, hasLANG); the engine refuses the call at load with a ShapeError naming sparql:hasLang"
    ),

    "urn:x-shacl12-test:/core/node/reifierShape-001": (
        "stale fixture: the expected result has no sh:resultPath although the constraint sits on a property "
        "shape (SHACL §3.6.2.2 requires it); the newer core/property/reifierShape-001 has the same data with "
        "sh:resultPath, and that one passes"
    ),
    "urn:x-shacl12-test:/core/node/reifierShape-002": (
        "stale fixture: expected result lacks the sh:resultPath every property-shape result carries "
        "(see core/property/reifierShape-002, which passes)"
    ),
    "urn:x-shacl12-test:/core/node/reifiableBy-001": (
        "stale fixture (draft sh:reifiableBy): expected result lacks the sh:resultPath every property-shape "
        "result carries; the engine reports the same focus/value/shape/component plus the path"
    ),
    "urn:x-shacl12-test:/core/node/reifiableBy-002": (
        "stale fixture (draft sh:reifiableBy): expected result lacks the sh:resultPath every property-shape "
        "result carries; the engine reports the same focus/value/shape/component plus the path"
    ),
}


# -- reading the manifests ------------------------------------------------------------------


_STORES: dict[Path, Store] = {}


def _file(iri: str, folder: Path, base: str) -> Path:
    assert iri.startswith(base), iri
    return folder / iri[len(base):]


def load(path: Path, base: str, folder: Path) -> Store:
    """The file's triples in a store (cached); base IRI = the suite base + relative path."""
    if path not in _STORES:
        store = Store()
        rel = path.relative_to(folder).as_posix()
        with path.open("rb") as fh:
            store.extend(parse(fh, format=format_for(path), base_iri=base + rel))
        _STORES[path] = store
    return _STORES[path]


def raw_quads(path: Path, base: str, folder: Path) -> list[Quad]:
    """The file's quads as parsed (not canonicalised by a store: ``"1"^^xsd:boolean`` stays ``"1"``)."""
    with path.open("rb") as fh:
        return list(parse(fh, format=format_for(path), base_iri=base + path.relative_to(folder).as_posix()))


_RAW: dict[Path, ShapesGraph] = {}


def raw_graph(path: Path, base: str, folder: Path) -> ShapesGraph:
    """The file's triples as parsed, every literal as written (cached)."""
    if path not in _RAW:
        _RAW[path] = ShapesGraph(raw_quads(path, base, folder))
    return _RAW[path]


def objects(graph: ShapesGraph, s, p: str) -> list:
    return graph.objects(s, NamedNode(p))


def rdf_list(store: ShapesGraph, node) -> list:
    out = []
    while node != NamedNode(RDF + "nil"):
        out.append(objects(store, node, RDF + "first")[0])
        node = objects(store, node, RDF + "rest")[0]
    return out


@dataclass
class Entry:
    iri: str
    suite: str
    folder: Path
    base: str
    manifest: Path
    kind: str  # the local name of the sht: test type: Validate, EvalNodeExpr, Infer
    data: Path | None
    shapes: Path | None
    result: object  # NamedNode sht:Failure or the report node
    missing: tuple[Path, ...] = ()  # files the entry names that the shared copy lacks

    @property
    def name(self) -> str:
        short = self.iri[len(self.base):] if self.iri.startswith(self.base) else self.iri
        return f"{self.suite}/{short}"


#: Test types the runner knows; anything else fails the collection check below.
KINDS = ("Validate", "EvalNodeExpr", "Infer")

#: Test types memkg does not provide: each such entry is an expected failure, with this reason.
UNSUPPORTED_KINDS = {
    "Infer": "SHACL 1.2 Inference Rules (sh:RuleSet, SHACL Rules syntax) are not implemented; memkg runs SHACL-AF rules",
}


def entries(suite: str) -> list[Entry]:
    folder, base = SUITES[suite]
    out: list[Entry] = []
    todo = [folder / "manifest.ttl", *(folder / m for m in UNLINKED_MANIFESTS.get(suite, ()))]
    seen: set[Path] = set()
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        if not path.is_file():
            continue  # a manifest the shared copy lacks (listed in its MISSING.md); its tests cannot be named
        store = raw_graph(path, base, folder)
        for manifest in store.subjects(NamedNode(RDF + "type"), NamedNode(MF + "Manifest")):
            for inc in objects(store, manifest, MF + "include"):
                todo.append(_file(inc.value, folder, base))
            for lst in objects(store, manifest, MF + "entries"):
                for entry in rdf_list(store, lst):
                    types = [t.value[len(SHT):] for t in objects(store, entry, RDF + "type") if t.value.startswith(SHT)]
                    if not types:
                        continue
                    (action,) = objects(store, entry, MF + "action")
                    data = [_file(d.value, folder, base) for d in objects(store, action, SHT + "dataGraph")]
                    shapes = [_file(d.value, folder, base) for d in objects(store, action, SHT + "shapesGraph")]
                    results = objects(store, entry, MF + "result")
                    missing = tuple(f for f in (*data, *shapes) if not f.is_file())
                    out.append(Entry(entry.value, suite, folder, base, path, types[0], data[0] if data else None,
                                     shapes[0] if shapes else None, results[0] if results else None, missing))
    return sorted(out, key=lambda e: e.iri)


def params() -> list:
    out = []
    for suite, (folder, _) in SUITES.items():
        if not (folder / "manifest.ttl").exists():
            print(f"test_conformance_shacl: W3C suite folder not found, {suite} skipped: {folder}")
            out.append(pytest.param(None, id=f"{suite}-missing",
                                    marks=pytest.mark.skip(reason=f"W3C suite folder not found: {folder}")))
            continue
        for e in entries(suite):
            marks = []
            if e.missing:
                marks.append(pytest.mark.skip(reason="the shared copy of the suite lacks "
                                              + ", ".join(str(m) for m in e.missing) + " (see its MISSING.md)"))
            elif e.iri in EXPECTED_FAILURES:
                marks.append(pytest.mark.xfail(strict=True, reason=EXPECTED_FAILURES[e.iri]))
            elif e.kind in UNSUPPORTED_KINDS:
                marks.append(pytest.mark.xfail(strict=True, reason=UNSUPPORTED_KINDS[e.kind]))
            out.append(pytest.param(e, id=e.name, marks=marks))
    return out


if not W3C.is_dir():
    print(f"test_conformance_shacl: W3C suites folder not found: {W3C} (set MEMKG_W3C_DIR)")
    pytest.skip(f"W3C suites folder not found: {W3C} (set MEMKG_W3C_DIR)", allow_module_level=True)

PARAMS = params()


# -- comparing reports -------------------------------------------------------------------------


def describe(term, graph: ShapesGraph, depth: int = 4):
    """A structural key for a term: blank nodes by their outgoing triples, "_:" if undescribed."""
    if not isinstance(term, BlankNode):
        return str(term)
    if depth == 0:
        return "_:"
    pairs = [(p, o) for p in graph.predicates(term) for o in graph.objects(term, p)]
    if not pairs:
        return "_:"
    return tuple(sorted((str(p), describe(o, graph, depth - 1)) for p, o in pairs if p.value != SH + "result"))


def same(expected, actual) -> bool:
    """Equal keys; an undescribed expected blank node ("_:") matches any blank node."""
    return expected == actual or (expected == "_:" and (actual == "_:" or isinstance(actual, tuple)))


def matches(expected: tuple, actual: tuple) -> bool:
    return all(same(e, a) for e, a in zip(expected, actual))


def multiset_match(expected: list[tuple], actual: list[tuple]) -> bool:
    if len(expected) != len(actual):
        return False
    used = [False] * len(actual)

    def go(i: int) -> bool:
        if i == len(expected):
            return True
        for j, a in enumerate(actual):
            if not used[j] and matches(expected[i], a):
                used[j] = True
                if go(i + 1):
                    return True
                used[j] = False
        return False

    return go(0)


def expected_results(entry: Entry) -> tuple[bool, list[tuple]]:
    graph = raw_graph(entry.manifest, entry.base, entry.folder)
    report = entry.result
    (conforms,) = graph.objects(report, NamedNode(SH + "conforms"))
    out = []
    for r in graph.objects(report, NamedNode(SH + "result")):
        def one(p: str):
            vals = graph.objects(r, NamedNode(SH + p))
            return vals[0] if vals else None

        path = one("resultPath")
        out.append((
            describe(one("focusNode"), graph),
            parse_path(graph, path).sparql() if path is not None else "",
            describe(one("value"), graph) if one("value") is not None else "",
            describe(one("sourceShape"), graph),
            describe(one("sourceConstraintComponent"), graph),
            describe(one("resultSeverity"), graph),
        ))
    return conforms.value == "true", out


@pytest.mark.parametrize("entry", PARAMS)
def test_w3c(entry: Entry) -> None:
    assert entry.kind in KINDS, f"unknown test type sht:{entry.kind}: teach this runner about it"
    if entry.kind in UNSUPPORTED_KINDS:
        pytest.fail(UNSUPPORTED_KINDS[entry.kind])
    if entry.kind == "EvalNodeExpr":
        evaluate_node_expression(entry)
        return
    assert entry.data is not None and entry.shapes is not None
    data_quads = raw_quads(entry.data, entry.base, entry.folder)
    data_store = Store()
    data_store.extend(data_quads)
    shape_quads = raw_quads(entry.shapes, entry.base, entry.folder)
    if entry.result == NamedNode(SHT + "Failure"):
        with pytest.raises(ShapeError):
            Shapes.from_quads(shape_quads).validate(data_store)
        return
    shapes = Shapes.from_quads(shape_quads)
    # SHACL 1.2: the severities that make the graph nonconforming, as the expected report states them.
    manifest = raw_graph(entry.manifest, entry.base, entry.folder)
    disallows = objects(manifest, entry.result, SH + "conformanceDisallows") or None
    report = shapes.validate(data_store, written=WrittenForms.of(data_quads), disallows=disallows)
    data_graph, shapes_graph = ShapesGraph(data_quads), ShapesGraph(shape_quads)
    actual = [
        (
            describe(r.focus, data_graph),
            r.path.sparql() if r.path is not None else "",
            describe(r.value, data_graph) if r.value is not None else "",
            describe(r.source_shape, shapes_graph),
            describe(r.component, shapes_graph),
            describe(r.severity, shapes_graph),
        )
        for r in report.results
    ]
    conforms, expected = expected_results(entry)
    detail = "\nexpected:\n  " + "\n  ".join(map(str, expected)) + "\nactual:\n  " + "\n  ".join(map(str, actual))
    assert report.conforms == conforms, f"sh:conforms {report.conforms}, expected {conforms}{detail}"
    assert multiset_match(expected, actual), f"results differ{detail}"
    assert all(isinstance(r.message, str) for r in report.results)


def evaluate_node_expression(entry: Entry) -> None:
    """An ``sht:EvalNodeExpr`` entry: the test file is both shapes graph and data graph; the
    action names the expression (``sht:nodeExpr``), the focus node and ``sht:scope-NAME``
    variables; the output nodes must equal the ``mf:result`` list (as a multiset under
    ``sht:ignoreOrder``). Literals compare in the form a store gives them back, so ``4.0``
    and ``4`` (both xsd:decimal) are one value, while the count of nodes stays exact."""
    quads = raw_quads(entry.manifest, entry.base, entry.folder)
    graph = ShapesGraph(quads)  # one parse: the expression's blank nodes are the shapes graph's
    test = NamedNode(entry.iri)
    (action,) = objects(graph, test, MF + "action")
    (expression,) = objects(graph, action, SHT + "nodeExpr")
    focus = objects(graph, action, SHT + "focusNode")
    scope = {p.value[len(SHT + "scope-"):]: objects(graph, action, p.value)[0]
             for p in graph.predicates(action) if p.value.startswith(SHT + "scope-")}
    ignore_order = [o.value for o in objects(graph, action, SHT + "ignoreOrder")] == ["true"]
    (result,) = objects(graph, test, MF + "result")
    expected = [stored_form(t) for t in rdf_list(graph, result)]
    store = Store()
    store.extend(quads)
    actual = [stored_form(t) for t in Shapes.from_quads(quads).evaluate(
        expression, store, focus=focus[0] if focus else None, scope=scope)]
    detail = f"\nexpected: {[str(t) for t in expected]}\nactual:   {[str(t) for t in actual]}"
    blank = lambda ts: [("_:" if isinstance(t, BlankNode) else t) for t in ts]  # noqa: E731
    if ignore_order:
        assert sorted(map(str, blank(actual))) == sorted(map(str, blank(expected))), detail
    else:
        assert blank(actual) == blank(expected), detail


def test_expected_failures_name_real_tests() -> None:
    known = {p.values[0].iri for p in PARAMS if p.values[0] is not None}
    assert not set(EXPECTED_FAILURES) - known, "stale EXPECTED_FAILURES entries"


def test_comparison_is_strict() -> None:
    """The comparison itself catches wrong results (it is not vacuous)."""
    a = ("<http://e/f>", "<http://e/p>", '"1"', "<http://e/S>", "<http://www.w3.org/ns/shacl#C>", "<http://www.w3.org/ns/shacl#Violation>")
    assert multiset_match([a], [a])
    for i in range(len(a)):
        changed = tuple("<http://e/other>" if j == i else x for j, x in enumerate(a))
        assert not multiset_match([a], [changed])
    assert not multiset_match([a], [a, a]), "a duplicated result is a difference"
    blank = ((("<http://e/p>", '"x"'),),)
    assert multiset_match([("_:", *a[1:])], [(blank, *a[1:])]), "an undescribed blank node matches any blank node"
    assert not multiset_match([(blank, *a[1:])], [(a[0], *a[1:])])
