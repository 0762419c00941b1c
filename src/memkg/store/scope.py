"""Where an IRI is: which graphs of a command's scope hold it, and the one graph a command acts on.

One rule for every command, read or write, on every way in (the command line, the agent
tools, the endpoint, Python):

- with a tenant, the scope is that tenant's graph and the shared default graph; without one,
  every graph the caller may read (every graph, or a token's tenants and the default graph);
- an IRI that no graph of the scope holds (as subject, predicate or object, the claim index
  included, so an IRI inside a claim's proposition counts) is an
  :class:`~memkg.core.errors.UnknownIRIError` naming the IRI, the scope, and the nearest IRIs
  the scope holds (:mod:`memkg.core.nearest`): never an empty answer;
- without a tenant, a command about one node (:func:`locate`) acts on the tenant whose graph
  holds it, or on the shared graph when only that one does; an IRI that several tenants'
  graphs hold is an :class:`~memkg.core.errors.AmbiguousIRIError` naming them.

>>> from memkg import MemoryStore
>>> store = MemoryStore()
>>> _ = store.load_data('<urn:ex:a> a <urn:ex:Thing> .', format="turtle", graph="urn:t:one")
>>> locate(store.raw, NamedNode("urn:ex:a"))
<NamedNode value=urn:t:one>
>>> locate(store.raw, NamedNode("urn:ex:c"))
Traceback (most recent call last):
...
memkg.core.errors.UnknownIRIError: urn:ex:c is in no graph of the scope (every graph you may read); nearest known: urn:ex:a
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from pyoxigraph import DefaultGraph, NamedNode, QueryResultsFormat, QuerySolutions

from ..core.errors import AmbiguousIRIError, UnknownIRIError
from ..core.terms import IRI, Graph, tenant_iri
from .backends.base import QuadStore
from .exports import named_graphs
from .views import require_graph

#: How the scope without a tenant is named in errors.
EVERY_GRAPH = "every graph you may read"
#: At most this many IRIs of a scope are compared to find the nearest ones, so that an error
#: costs a bounded time on any store (benchmarks/bench_unknown_iri.py measures it).
NEAREST_POOL = 500_000


def scope_graphs(raw: QuadStore, tenant: NamedNode | None = None,
                 readable: Collection[NamedNode] | None = None) -> list[Graph]:
    """The graphs a command reads: ``tenant``'s and the shared one, or (no tenant) the shared one
    and every named graph in ``readable`` (None: every graph)."""
    if tenant is not None:
        return [tenant, DefaultGraph()]
    return [DefaultGraph(), *(g for g in named_graphs(raw) if readable is None or g in readable)]


def scope_name(tenant: NamedNode | None) -> str:
    """How an error names the scope: the tenant and the shared graph, or every graph."""
    return EVERY_GRAPH if tenant is None else f"tenant {tenant.value} and the shared default graph"


def graph_scope(graph: NamedNode | DefaultGraph) -> tuple[list[Graph], str]:
    """The scope of a command that acts on one graph (a tenant's, or the shared default graph):
    the graphs it reads and how an error names them."""
    if isinstance(graph, NamedNode):
        return [graph, DefaultGraph()], scope_name(graph)
    return [DefaultGraph()], "the shared default graph"


def unknown_iri(raw: QuadStore, iri: NamedNode, graphs: Sequence[Graph], scope: str) -> UnknownIRIError:
    """The error for ``iri``, which none of ``graphs`` (the scope ``scope`` names) holds: it names the
    IRI, the scope and the nearest IRIs the scope does hold."""
    from ..core.nearest import nearest  # numpy, loaded only when an error needs suggestions

    near = nearest(iri.value, sorted(known_iris(raw, graphs)))  # sorted: ties come in IRI order
    return UnknownIRIError(iri.value, scope, tuple(near))


def holders(raw: QuadStore, iri: NamedNode, graphs: Iterable[Graph]) -> list[Graph]:
    """Those of ``graphs`` that hold ``iri`` anywhere in a quad (index seeks, at most three per graph)."""
    patterns = ((iri, None, None), (None, None, iri), (None, iri, None))
    return [g for g in graphs if any(next(iter(raw.quads_for_pattern(s, p, o, g)), None) is not None
                                     for s, p, o in patterns)]


def require(raw: QuadStore, iri: NamedNode, *, tenant: IRI | None = None,
            readable: Collection[NamedNode] | None = None) -> list[Graph]:
    """The graphs of the scope (``tenant``, a graph's IRI; or every graph in ``readable``, None:
    every graph) that hold ``iri``; :class:`~memkg.core.errors.UnknownIRIError` (with the nearest
    known IRIs) when none does."""
    graph = tenant_iri(tenant)
    if graph is not None and not raw.contains_named_graph(graph):  # a tenant that is not there is named first
        require_graph(graph, [g for g in named_graphs(raw) if readable is None or g in readable])
    graphs = scope_graphs(raw, graph, readable)
    held = holders(raw, iri, graphs)
    if not held:
        raise unknown_iri(raw, iri, graphs, scope_name(graph))
    return held


def require_all(raw: QuadStore, iris: Iterable[NamedNode], *, tenant: IRI | None = None,
                readable: Collection[NamedNode] | None = None) -> None:
    """:func:`require` for each of ``iris`` (a view's IRI parameters, a packet's seeds)."""
    for iri in iris:
        require(raw, iri, tenant=tenant, readable=readable)


def locate(raw: QuadStore, iri: NamedNode, *, tenant: IRI | None = None,
           readable: Collection[NamedNode] | None = None) -> NamedNode | None:
    """The tenant a command about ``iri`` acts on: ``tenant`` when given (the IRI must be in its
    scope); else the one tenant whose graph holds it, or None when only the shared graph does.
    :class:`~memkg.core.errors.UnknownIRIError` when the scope does not hold it,
    :class:`~memkg.core.errors.AmbiguousIRIError` when several tenants' graphs do."""
    held = require(raw, iri, tenant=tenant, readable=readable)
    if tenant is not None:
        return tenant_iri(tenant)
    tenants = sorted((g for g in held if isinstance(g, NamedNode)), key=str)
    if len(tenants) > 1:
        raise AmbiguousIRIError(iri.value, tuple(g.value for g in tenants))
    return tenants[0] if tenants else None


def locate_all(raw: QuadStore, iris: Iterable[NamedNode], *, tenant: IRI | None = None,
               readable: Collection[NamedNode] | None = None) -> NamedNode | None:
    """:func:`locate` for several nodes a command takes together (a packet's seeds, a
    retraction's targets): the one tenant they are in; several is an AmbiguousIRIError."""
    found: dict[NamedNode | None, NamedNode] = {}
    for iri in iris:
        found.setdefault(locate(raw, iri, tenant=tenant, readable=readable), iri)
    tenants = sorted((g for g in found if g is not None), key=str)
    if len(tenants) > 1:
        raise AmbiguousIRIError(", ".join(found[g].value for g in tenants), tuple(g.value for g in tenants))
    return tenants[0] if tenants else None


def known_iris(raw: QuadStore, graphs: Sequence[Graph]) -> set[str]:
    """The IRIs of ``graphs`` an error may suggest: their typed nodes (every claim, message and
    vertex the invariants require typed), at most :data:`NEAREST_POOL`. Read as one query whose
    answer Oxigraph writes as TSV: a row costs no Python object (about 3x faster than iterating)."""
    named = [g for g in graphs if isinstance(g, NamedNode)]
    answer = raw.query(f"SELECT ?s WHERE {{ {{ ?s a ?t }} UNION {{ GRAPH ?g {{ ?s a ?t }} }} }} LIMIT {NEAREST_POOL}",
                       default_graph=DefaultGraph(), named_graphs=named)  # a scope always holds the shared graph
    if not isinstance(answer, QuerySolutions):  # pragma: no cover - a SELECT answers with rows
        return set()
    text = answer.serialize(format=QueryResultsFormat.TSV)
    assert text is not None  # serialize returns the bytes when given no output
    return {line[1:-1] for line in text.decode("utf-8").split("\n")[1:] if line.startswith("<")}  # no blank nodes
