# The part of owlrl that memkg calls (memkg.validation.pyshacl_engine), typed: owlrl ships
# no type information, and this keeps its one call site checked under ``mypy --strict``.
from rdflib import Graph

class OWLRL_Semantics: ...

class DeductiveClosure:
    def __init__(
        self,
        closure_class: type[OWLRL_Semantics],
        improved_datatypes: bool = ...,
        rdfs_closure: bool = ...,
        axiomatic_triples: bool = ...,
        datatype_axioms: bool = ...,
    ) -> None: ...
    def expand(self, graph: Graph) -> None: ...
