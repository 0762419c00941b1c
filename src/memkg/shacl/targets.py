"""The target kinds of a shape (SHACL §2.1.3, SHACL-AF custom targets, SHACL 1.2 node expressions):
each writes the SPARQL pattern that binds a variable to the nodes it targets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pyoxigraph import NamedNode

from ..core.terms import Term, has_blank, sparql_term
from ..core.vocab import rdf, rdfs
from .sparqltext import UserQuery


class Target:
    """Base class of the target kinds (SHACL §2.1.3)."""

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        """A pattern binding ``var`` to the targeted nodes (maybe with repeats)."""
        raise NotImplementedError  # pragma: no cover


@dataclass(frozen=True)
class NodeTarget(Target):
    """``sh:targetNode``: the given nodes (as a store holds them; ``written``: as the shapes graph writes them)."""

    nodes: tuple[Term, ...]
    written: tuple[Term, ...] = ()

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        named = [sparql_term(n) for n in self.nodes if not has_blank(n)]
        return f"VALUES {var} {{ {' '.join(named)} }}"


@dataclass(frozen=True)
class ClassTarget(Target):
    """``sh:targetClass`` (and implicit class targets): SHACL instances of the class in the data graph."""

    cls: NamedNode

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        return f"{var} <{rdf.type.value}>/<{rdfs.subClassOf.value}>* <{self.cls.value}> ."


@dataclass(frozen=True)
class SubjectsOfTarget(Target):
    """``sh:targetSubjectsOf``: subjects of triples with the predicate."""

    predicate: NamedNode

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        return f"{var} <{self.predicate.value}> {fresh('o')} ."


@dataclass(frozen=True)
class ObjectsOfTarget(Target):
    """``sh:targetObjectsOf``: objects of triples with the predicate."""

    predicate: NamedNode

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        return f"{fresh('s')} <{self.predicate.value}> {var} ."


@dataclass(frozen=True)
class SparqlTarget(Target):
    """``sh:target [ sh:select "SELECT ?this ..." ]`` (SHACL-AF SPARQL-based target), or an instance
    of a ``sh:SPARQLTargetType`` (``consts``: its parameters' values as SPARQL terms, by variable)."""

    query: UserQuery = field(compare=False)
    node: Term
    consts: tuple[tuple[str, str], ...] = ()

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        return "{ " + self.query.render(consts=dict(self.consts), renames={"this": var}) + " }"


@dataclass(frozen=True)
class ExpressionTarget(Target):
    """``sh:targetNode`` with a SHACL 1.2 node expression: its output nodes, as a SPARQL pattern."""

    pattern: str
    node: Term | None = None

    def sparql(self, var: str, fresh: Callable[[str], str]) -> str:
        return self.pattern.replace("?_nextarget", var)
