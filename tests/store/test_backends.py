"""Storage backends (memkg.store.backends): one MemoryStore over the embedded store or a SPARQL server,
told apart by capability flags, never by type."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import NamedNode, Quad

from memkg import MemoryStore
from memkg.core.errors import ValidationError
from memkg.core.vocab import MEMX, RDF_TYPE, mem
from memkg.store.backends.base import Capabilities
from memkg.store.backends.embedded import EmbeddedBackend
from memkg.store.backends.sparql import SparqlBackend
from memkg.provenance import SUPPORT_INDEX

from tests.support.examples import FarBackend

EX = "https://example.org/"
TENANT = NamedNode(EX + "tenant")


def test_the_embedded_store_and_a_server_differ_in_their_capabilities() -> None:
    assert MemoryStore().capabilities == Capabilities(in_process=True, bulk_load=True, sole_writer=True)
    remote = MemoryStore.connect("http://127.0.0.1:9/sparql", dialect="rdf12", read_only=True)  # asks nothing yet
    assert isinstance(remote.backend, SparqlBackend)
    assert remote.capabilities == SparqlBackend.capabilities
    assert not (remote.capabilities.in_process or remote.capabilities.sole_writer)
    assert remote.capabilities.bulk_load  # a large load goes by the server's Graph Store Protocol
    assert remote.follower(SUPPORT_INDEX, create=True) is None and remote.path is None and remote.read_only


def test_a_store_takes_a_path_or_a_backend_not_both(tmp_path) -> None:
    with pytest.raises(ValueError, match="not both"):
        MemoryStore(tmp_path / "s", backend=EmbeddedBackend())



EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lia-tea.trig"


@pytest.mark.parametrize("validation", [None, "native"])
def test_the_paths_for_a_distant_backend_give_the_embedded_answers(validation: str | None) -> None:
    near = MemoryStore(validation=validation)
    far = MemoryStore(backend=FarBackend(), validation=validation)
    assert not far.capabilities.in_process
    for store in (near, far):
        report = store.load(EXAMPLE)
        assert report.added > 100 and not report.bulk
        assert store.load(EXAMPLE).added == 0
        claim = NamedNode("https://example.org/lia/c0")
        doomed = list(store.quads(claim, with_index=True))
        if validation:  # the same refusal: something refers to the claim
            with pytest.raises(ValidationError):
                store.change(remove=[q for q in doomed if q.predicate == RDF_TYPE])
        assert store.change(remove=doomed) == sum(1 for q in doomed if not q.predicate.value.startswith(MEMX))
        assert store.write([Quad(NamedNode(EX + "x"), RDF_TYPE, mem.Entity)]) == 1
    assert set(near.quads(with_index=True)) == set(far.quads(with_index=True))
    assert sorted((far.export(format="nquads") or b"").splitlines()) == sorted(
        (near.export(format="nquads") or b"").splitlines())  # through a copy, read at once
    assert far.check_index().consistent and near.check_index().consistent
    assert [row["c"] for row in far.view("current")] == [row["c"] for row in near.view("current")]


def test_closing_twice_is_harmless(tmp_path: Path) -> None:
    for store in (MemoryStore(), MemoryStore(tmp_path / "store")):
        store.close()
        store.close()
    assert len(MemoryStore(tmp_path / "store", read_only=True)) > 0  # the ontology, flushed and released
