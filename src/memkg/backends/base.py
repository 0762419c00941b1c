"""What a storage backend is: the quads it reads (:class:`QuadStore`), the writes it applies
(:class:`Backend`) and what it can do (:class:`Capabilities`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, Triple


class QuadStore(Protocol):
    """The part of pyoxigraph's ``Store`` API memkg reads with: a pyoxigraph ``Store`` is one,
    and so is a SPARQL server seen through :class:`memkg.backends.sparql.ServerStore`."""

    def quads_for_pattern(
        self,
        subject: NamedNode | BlankNode | Triple | None,
        predicate: NamedNode | None,
        object: NamedNode | BlankNode | Literal | Triple | None,
        graph_name: NamedNode | BlankNode | DefaultGraph | None = None,
    ) -> Iterator[Quad]: ...

    def query(self, query: str, *, prefixes: dict[str, str] | None = None,
              use_default_graph_as_union: bool = False, default_graph: Any = None, named_graphs: Any = None,
              substitutions: Any = None, base_iri: str | None = None) -> QuerySolutions | QueryBoolean | QueryTriples: ...

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]: ...

    def contains_named_graph(self, graph_name: NamedNode | BlankNode | DefaultGraph) -> bool: ...

    def __len__(self) -> int: ...

    def __contains__(self, quad: Any) -> bool: ...

    def __iter__(self) -> Any: ...
