"""SHACL-AF / SHACL 1.2 rules before validation (pySHACL's ``advanced=True``), on a copy.

The rules of the shapes graph (:mod:`memkg.shacl.rules`) run over each data graph of the
validation's copy, their conclusions written into that data graph's graph of inferred
triples (beside the data, never into it), round after round until nothing new follows
or ``options.max_rule_rounds`` is reached (then :class:`memkg.shacl.rules.RuleError`
names the rules still concluding something new).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pyoxigraph import Store

from ..core.terms import GraphName
from .options import ValidationOptions
from .shapes import ValidationEngine


def run_rules(
    engine: ValidationEngine, store: Store, graphs: Sequence[GraphName], data_graph: Callable[[GraphName], list[GraphName]],
    options: ValidationOptions, progress: Callable[[str], None] | None,
) -> int:
    """Run the shapes' rules for every graph; the number of triples they added."""
    apply = getattr(engine, "apply_rules", None)
    if apply is None:  # the pySHACL engine runs the rules itself, inside pySHACL
        return 0
    added = 0
    for g in graphs:
        graph = data_graph(g)
        if progress is not None:
            progress(f"rules for graph {g}…")
        added += apply(store, graph[:-1], graph[-1], max_rounds=options.max_rule_rounds)
    return int(added)
