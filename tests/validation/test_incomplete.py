"""A write is judged with the store's SHACL 1.2 incomplete nodes, as the whole store would be.

The write validator copies context into a scratch store (:meth:`WriteValidator.stage`); a
``sh:incompleteURIStart`` stated anywhere in the store, or an ``sh:incomplete`` about a
node the write touches, must come along, or a write would be refused that validating
the store after it accepts (:mod:`memkg.shacl.incomplete`).
"""

from __future__ import annotations

import pytest
from pyoxigraph import RdfFormat, parse

from memkg import MemoryStore
from memkg.validation import WriteValidator, builtin_shapes, make_engine, tenant_graphs, validate_graphs

PREFIXES = """PREFIX mem: <https://w3id.org/memkg#>
PREFIX sh: <http://www.w3.org/ns/shacl#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""
#: Messages of http://ext.example/ are described elsewhere, except ext:complete.
INCOMPLETE = """<http://e/info> sh:incompleteURIStart "http://ext.example/"^^xsd:anyURI .
<http://ext.example/complete> sh:incomplete false .
"""
#: A turn on a node that is no mem:Message and is a turn of no episode: two violations, unless incomplete.
WRITE = "<http://ext.example/m> mem:turn 1 . <http://ext.example/complete> mem:turn 2 . <http://e/m> mem:turn 3 ."


@pytest.mark.parametrize("before", ["", INCOMPLETE], ids=["complete", "incomplete"])
def test_a_write_is_judged_with_the_incomplete_nodes_of_the_store(before: str) -> None:
    store = MemoryStore(validation=None)
    if before:
        store.write(parse((PREFIXES + before).encode(), RdfFormat.TRIG))
    write = list(parse((PREFIXES + WRITE).encode(), RdfFormat.TRIG))
    refused = {str(v.focus) for v in WriteValidator("native")(store, write)}
    store.write(write)
    whole = validate_graphs(make_engine("native", builtin_shapes()), store.raw, tenant_graphs(store.raw), None)
    assert refused == {str(r.focus) for r in whole}
    everyone = {"<http://ext.example/m>", "<http://ext.example/complete>", "<http://e/m>"}
    assert refused == (everyone - {"<http://ext.example/m>"} if before else everyone)


@pytest.mark.parametrize("in_process", [True, False], ids=["local", "server"])
def test_the_scratch_store_gets_the_incomplete_nodes_only_when_the_store_states_them(in_process: bool) -> None:
    store = MemoryStore(validation=None)
    store.write(parse((PREFIXES + "<http://e/old> mem:turn 1 .").encode(), RdfFormat.TRIG))
    write = list(parse((PREFIXES + WRITE).encode(), RdfFormat.TRIG))
    scratch, _, _ = WriteValidator("native").stage(store.raw, write, in_process=in_process)
    assert not any("shacl#incomplete" in str(q) for q in scratch)
    store.write(parse((PREFIXES + INCOMPLETE).encode(), RdfFormat.TRIG))
    scratch, _, _ = WriteValidator("native").stage(store.raw, write, in_process=in_process)
    assert sorted(str(q.object) for q in scratch if "shacl#incomplete" in str(q.predicate)) == [
        '"false"^^<http://www.w3.org/2001/XMLSchema#boolean>',
        '"http://ext.example/"^^<http://www.w3.org/2001/XMLSchema#anyURI>',
    ]
