"""Provenance and support: why a claim may be believed, where it came from, what breaks.

Two relations, never confused:

* **support** (why we may believe a claim): ``mem:supportedBy X`` is a
  one-member group; ``mem:supportGroup G`` with ``G mem:member X, Y`` is a group
  whose members only jointly license the claim. AND inside a group, OR across a
  claim's groups. Support through ``mem:echoOf`` rests on what is echoed.
* **lineage** (where information came from): ``prov:wasDerivedFrom`` (and its
  sub-property ``mem:assertedBy``), ``prov:wasGeneratedBy`` / ``prov:used``,
  ``mem:echoOf``. Lineage is reported, followed by erasure and by the
  independence test of :mod:`memkg.provenance.evidence`, but never counts as support.

**Standing.** A node *stands* when nothing it rests on has been withdrawn. It is
the least fixpoint of::

    stands(n) = not withdrawn(n)                       # no mem:retracts, no mem:supersedes
            and all(stands(e) for e in echoes(n))      # an echo rests on what it echoes
            and (no groups(n) or any(all(stands(m) for m in g) for g in groups(n)))

A node with no support groups (a raw source, or a claim whose provenance is
lineage only) stands unless withdrawn: it never had support to lose. Circular
support grounds nothing (least fixpoint). ``mem:refutes`` is recorded evidence
*against* and does not change standing: it is reported, not resolved. Standing
is about transaction time (what has been withdrawn), not valid time.

**Why a fixpoint in Python.** "Loses *all* support" is an AND/OR recursion
(claims supporting claims, with cycles): SPARQL property paths cannot express
it. The templates ``queries/dependents.rq`` and ``queries/support.rq`` answer
the direct case in SPARQL (one level of support, echo chains, direct
withdrawals); the functions here load the relevant part of the support graph
(the source's downstream cone and the upstream closure of what it touches) and
compute the fixpoint over it. The cone comes from the store's in-memory support
index when it keeps one (``MemoryStore(path, followers=[SUPPORT_INDEX])``,
:mod:`memkg.provenance.support_index`: dictionary lookups), else from a few SPARQL queries
and direct index reads (see ``SupportGraph.downstream_of``).

>>> from memkg import MemoryStore
>>> store = MemoryStore()
>>> _ = store.load_data('''
... PREFIX mem: <https://w3id.org/memkg#>
... PREFIX ex: <https://example.org/>
... ex:knows a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> .
... ex:a a mem:Person . ex:b a mem:Person .
... ex:m1 a mem:Message . ex:m2 a mem:Message .
... ex:c a mem:Claim ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ex:a ex:knows ex:b )>> ;
...     mem:supportedBy ex:m1 .
... ''', format="turtle")
>>> [str(c) for c in dependents(store, "https://example.org/m1")]
['<https://example.org/c>']
>>> dependents(store, "https://example.org/m2")
[]
"""

from .datasets import IRI, Node, dataset, select
from .echoes import (
    STOPWORDS,
    EchoProposal,
    accept_echoes,
    echo_score,
    propose_echoes,
    tokens,
)
from .erasure import ERASURE, Erasure, ErasurePlan, erase, erasure_plan, erasure_plans
from .lineage import LINK_KINDS, Lineage, Link, lineage
from .support import GroupStatus, Support, minimal_support, support
from .support_graph import Group, SupportGraph, WithdrawalEffect
from .support_index import SUPPORT_INDEX
from .withdrawal import (
    NEEDS_REVIEW,
    Impact,
    Withdrawal,
    dependents,
    impact,
    withdraw,
)

__all__ = [
    "ERASURE",
    "IRI",
    "LINK_KINDS",
    "NEEDS_REVIEW",
    "STOPWORDS",
    "SUPPORT_INDEX",
    "Node",
    "dataset",
    "select",
    "tokens",
    "EchoProposal",
    "Erasure",
    "ErasurePlan",
    "Group",
    "GroupStatus",
    "Impact",
    "Lineage",
    "Link",
    "Support",
    "SupportGraph",
    "WithdrawalEffect",
    "Withdrawal",
    "accept_echoes",
    "dependents",
    "echo_score",
    "erase",
    "erasure_plan",
    "erasure_plans",
    "impact",
    "lineage",
    "minimal_support",
    "propose_echoes",
    "support",
    "withdraw",
]
