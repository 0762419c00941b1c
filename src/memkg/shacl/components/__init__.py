"""The registry of constraint components, grouped by the spec section they implement.

``CORE`` lists the parsers in the order shapes are read; :func:`registry`
maps every activating parameter to its component class. SPARQL-based
components declared in a shapes graph are added per shapes graph
(:func:`memkg.shacl.components.sparql.component_definitions`).

>>> from memkg.core.vocab import sh
>>> registry()[sh.minCount].__name__
'MinCountComponent'
>>> sorted(s for s, _ in SECTIONS)[:2]
['SHACL 1.2 List Constraint Components', 'SHACL 1.2 Node Expression Constraint Components']
"""

from __future__ import annotations

from pyoxigraph import NamedNode

from . import (
    cardinality,
    expression_based,
    list_based,
    logical,
    other,
    property_pair,
    reification,
    shape_based,
    sparql,
    string_based,
    value_range,
    value_type,
)
from .base import Component, Ctx, Fragment, Reader

_MODULES = (value_type, cardinality, value_range, string_based, property_pair, logical, shape_based, other,
            list_based, reification, expression_based, sparql)

#: (section title, component classes) in spec order.
SECTIONS: tuple[tuple[str, tuple[type[Component], ...]], ...] = tuple((m.SECTION, m.COMPONENTS) for m in _MODULES)

#: Every core parser, in the order they are applied to a shape.
CORE: tuple[type[Component], ...] = tuple(c for _, classes in SECTIONS for c in classes)


def registry(extra: tuple[type[Component], ...] = ()) -> dict[NamedNode, type[Component]]:
    """Activating parameter → component class (core first, then ``extra``)."""
    out: dict[NamedNode, type[Component]] = {}
    for cls in (*CORE, *extra):
        for p in cls.activators():
            out.setdefault(p, cls)
    return out


__all__ = ["CORE", "SECTIONS", "Component", "Ctx", "Fragment", "Reader", "registry"]
