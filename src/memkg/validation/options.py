"""What a validation is asked to do beyond memkg's invariants: pySHACL's options, by pySHACL's names.

:class:`ValidationOptions` is one value for :func:`memkg.validation.validate_files` and
:func:`memkg.validation.validate_store`; ``memkg validate`` builds it from its flags
(``docs/validation.md`` lays them beside pySHACL's, option by option).

>>> ValidationOptions(inference="owl")
Traceback (most recent call last):
...
ValueError: inference must be one of none, rdfs, owlrl; got 'owl'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyoxigraph import NamedNode

from ..core.terms import Term
from ..core.vocab import SH

INFERENCE = ("none", "rdfs", "owlrl")
#: Most rounds of rules (and of RDFS closure) before a validation gives up on a fixpoint.
MAX_RULE_ROUNDS = 100


@dataclass(frozen=True)
class ValidationOptions:
    """pySHACL's options (``pyshacl.validate``'s keyword of the same meaning in brackets).

    * ``shapes_only``: judge only the shapes given, not memkg's invariants; the data graph is
      then the files as written (no claim index, no memkg ontology);
    * ``ontology`` (``ont_graph``): files mixed into every data graph, so class targets
      follow their ``rdfs:subClassOf``;
    * ``inference`` (``inference``): ``none``, ``rdfs`` or ``owlrl``, computed on a copy;
    * ``advanced`` (``advanced``): SHACL-AF / SHACL 1.2 rules run before validation;
    * ``imports`` (``do_owl_imports``): follow ``owl:imports`` of the shapes graph and
      ontology to local files; ``remote_imports`` to URLs as well;
    * ``meta_shacl`` (``meta_shacl``): first judge the shapes graph against SHACL's shapes
      for shapes, and stop there if it fails;
    * ``focus`` (``focus_nodes``), ``shapes`` (``use_shapes``): restrict to these focus nodes
      or these named shapes;
    * ``allow_warnings``, ``allow_infos`` (the same): results of those severities do not
      make the data nonconforming (by default any result does, as in pySHACL);
    * ``max_rule_rounds``: the bound on rule (and inference) rounds before a fixpoint;
    * ``strict_prefixes``: refuse SPARQL in the shapes that uses a prefix no ``sh:prefixes`` or
      ``sh:declare`` gives (SHACL §5.2.1 to the letter) instead of borrowing the shapes file's
      ``@prefix`` with a warning, as pySHACL does.
    """

    shapes_only: bool = False
    ontology: tuple[Path, ...] = ()
    inference: str = "none"
    advanced: bool = False
    imports: bool = False
    remote_imports: bool = False
    meta_shacl: bool = False
    focus: tuple[Term, ...] = ()
    shapes: tuple[Term, ...] = ()
    allow_warnings: bool = False
    allow_infos: bool = False
    max_rule_rounds: int = MAX_RULE_ROUNDS
    strict_prefixes: bool = False

    def __post_init__(self) -> None:
        if self.inference not in INFERENCE:
            raise ValueError(f"inference must be one of {', '.join(INFERENCE)}; got {self.inference!r}")
        if self.max_rule_rounds < 1:
            raise ValueError(f"max_rule_rounds must be at least 1; got {self.max_rule_rounds}")

    @property
    def allowed(self) -> frozenset[NamedNode]:
        """The severities that leave the data conforming (SHACL 1.2: sh:Debug and sh:Trace always)."""
        allowed = {NamedNode(SH + "Debug"), NamedNode(SH + "Trace")}
        if self.allow_warnings:  # pySHACL: allow_warnings lets infos pass too
            allowed |= {NamedNode(SH + "Warning"), NamedNode(SH + "Info")}
        if self.allow_infos:
            allowed.add(NamedNode(SH + "Info"))
        return frozenset(allowed)
