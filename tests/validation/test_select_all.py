"""memkg's shapes: each ``shx:selectAll`` gives exactly the results of its ``sh:select``.

The native engine answers a whole-graph validation (a load, ``memkg validate``)
of a SPARQL constraint with the constraint's ``shx:selectAll``, a set-at-a-time
form of the same query (``shapes/memkg.ttl``; :mod:`memkg.shacl.components.sparql`).
That the two forms agree is a promise the shapes make; this holds them to it on
the randomized memories of ``test_engines_differential`` (memkg's invariants
kept, and broken in the ways they forbid and in nearby ways they allow, over two
tenants and the shared default graph): every graph is validated whole by the
native engine twice, with the shapes as they are and with every ``shx:selectAll``
removed, and the results (focus, path, value, shape, component, message) must
be identical, and not vacuously: each shape that carries a set form must have
reported something in the sample.
"""

from __future__ import annotations

from collections import Counter

import pytest
from pyoxigraph import NamedNode

from memkg.validation import builtin_shapes, make_engine, tenant_graphs

from .test_engines_differential import document, load

pytestmark = pytest.mark.slow

SELECT_ALL = NamedNode("https://w3id.org/memkg/shacl#selectAll")
DOCUMENTS = 40
CASES = 100

_WITH = make_engine("native", builtin_shapes())
_WITHOUT = make_engine("native", [q for q in builtin_shapes() if q.predicate != SELECT_ALL])
_REPORTED: Counter[str] = Counter()


def _results(engine, store) -> set[tuple]:  # type: ignore[no-untyped-def]
    out: set[tuple] = set()
    for g in tenant_graphs(store.raw):
        for r in engine.validate(store.raw, g):
            out.add((str(g), *r.key(), r.message))
    return out


def _shapes_with_a_set_form() -> set[str]:
    owners = {q.subject for q in builtin_shapes() if q.predicate == SELECT_ALL}
    names = _WITH._names  # type: ignore[attr-defined]
    return {str(names.named(node)) for node in owners}


@pytest.mark.parametrize("index", range(DOCUMENTS))
def test_select_all_gives_the_results_of_select(index: int) -> None:
    store = load(document(index, n_cases=CASES).text)
    with_set_forms, without = _results(_WITH, store), _results(_WITHOUT, store)
    assert with_set_forms == without, (
        f"document {index}: only with shx:selectAll: {sorted(with_set_forms - without)}\n"
        f"only with sh:select: {sorted(without - with_set_forms)}"
    )
    _REPORTED.update(_constraint(r) for r in with_set_forms)


def _constraint(result: tuple) -> tuple[str, bool]:
    """Which constraint a result came from, near enough: its shape, and whether its value
    is another node than its focus (mem:RoleTypesShape's two constraints differ in that)."""
    return result[4], result[3] != result[1]


def test_the_sample_exercises_every_set_form() -> None:
    if not _REPORTED:  # run alone
        for index in range(DOCUMENTS):
            _REPORTED.update(_constraint(r) for r in _results(_WITH, load(document(index, n_cases=CASES).text)))
    shapes = _shapes_with_a_set_form()
    assert shapes == {"<https://w3id.org/memkg#" + n + ">" for n in ("TypedVertexShape", "RoleTypesShape", "TenantIsolationShape",
                                                                 "ClosedVocabularyShape")}
    expected = [(s, True) for s in shapes] + [("<https://w3id.org/memkg#RoleTypesShape>", False)]
    silent = sorted(c for c in expected if _REPORTED[c] == 0)
    assert not silent, f"no result from these constraints in the sample, so their set forms went untested: {silent}"
