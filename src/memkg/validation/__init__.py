"""Validation: memkg's invariants (``shapes/``) checked on every write and on demand.

The package, from the bottom up: ``results`` (Report, of :class:`~memkg.core.errors.Violation` results), ``dataset`` (which graphs
a validation reads), ``engines`` (native and pySHACL), ``shapes`` (the shapes, the engine
protocol), ``whole`` (a store or files), ``writes`` (:class:`WriteValidator`). Nothing here
imports the store at run time except :func:`validate_files`, which builds one to read files.

Two engines give the same results:

* ``native`` (the default): the shapes compiled to SPARQL 1.2 and run inside
  Oxigraph by :mod:`memkg.shacl`, over the whole store or only over the focus
  nodes a write touches;
* ``pyshacl``, the reference: pySHACL over the RDF 1.1 projection of the data
  (:mod:`memkg.validation.projection`), with the ontology's OWL-RL closure mixed in, its
  results mapped back to the original terms.

What a data graph is: SHACL validates one graph, memkg keeps one graph per
tenant. Each tenant is validated with its own graph plus the shared default
graph and the ontology as the data graph (so ``rdfs:subClassOf*`` sees the
ontology); the other graphs stay reachable through ``GRAPH``, which is how
:data:`TenantIsolationShape` sees links into another tenant.

On a write, :class:`WriteValidator` copies the write and the part of the store
it needs to judge it (the touched nodes' descriptions, the types of what they
link to, the version and lineage chains they join, the other holders of their
event ids; of the ontology, the class hierarchy and those nodes' types) into a
scratch store and validates only the touched nodes there: the cost follows the
size of the write, not of the store. A first load (into a store with no data) needs
no context and is validated whole; a write of many nodes is judged by validating the
scratch store set at a time and keeping the touched nodes' results
(:meth:`WriteValidator.judge`). That context is what memkg's own shapes
read; a user's extra shapes (``--shapes``) are checked by ``memkg validate``,
not on every write. For a small write the context is read with direct index
look-ups (a SPARQL query costs ~0.1 ms to parse and plan before it reads
anything), and most of the cost left is parsing and planning the few validation
queries (``benchmarks/bench_validation.py``).
"""

from .dataset import data_graph_for, tenant_graphs
from .engines import NativeEngine
from .options import ValidationOptions
from .results import ENGINES, Extent, Report
from .shapes import ValidationEngine, builtin_shapes, make_engine, read_shapes, validate_graphs
from .whole import validate_files, validate_store
from .writes import WriteValidator, install

__all__ = [
    "ENGINES",
    "Extent",
    "ValidationEngine",
    "ValidationOptions",
    "NativeEngine",
    "Report",
    "WriteValidator",
    "builtin_shapes",
    "data_graph_for",
    "install",
    "make_engine",
    "read_shapes",
    "tenant_graphs",
    "validate_files",
    "validate_graphs",
    "validate_store",
]
