"""memkg: an AI agent's memory as an RDF 1.2 knowledge graph.

Everything a user needs is importable from here::

    from memkg import MemoryStore, Claim, Message
    store = MemoryStore("./memkg-store")      # on disk; MemoryStore() in memory
    store.load("examples/lia-tea.trig")
    for row in store.query("SELECT ?c WHERE { GRAPH ?g { ?c a mem:Claim } }"):
        print(row["c"])

Each name is imported when first used (:mod:`memkg.core.lazy`): ``import memkg`` loads
neither numpy nor the SHACL engine, and a command loads what it runs.

This module is also the composition root: it plugs memkg's features into the store
(:func:`memkg.store.plug_in`), which never imports them: the write validator (the judge
of every write), the recall index and the recall that answers ``MemoryStore.recall`` (kept
by every store), and the first load. Each is plugged in by where it lives and imported when
a store first uses it (:class:`memkg.store.plugins.Deferred`). The support index is a store's choice
(``MemoryStore(path, followers=[SUPPORT_INDEX])``, :mod:`memkg.provenance.support_index`).
"""

from typing import TYPE_CHECKING

from .core.lazy import attributes_from
from .store.plugins import Deferred, deferred_judge, plug_in

if TYPE_CHECKING:  # the names as the type checker and the reader see them; imported when used
    from .core.errors import (
        MemkgError,
        NotFoundError,
        ParseError,
        Refused,
        StoreLockedError,
        UnknownFormatError,
        ValidationError,
        Violation,
    )
    from .core.model import (
        Action,
        Attachment,
        Claim,
        Correction,
        Episode,
        Extraction,
        Message,
        Occurrence,
        Outcome,
        Predicate,
        Retraction,
        Supersession,
        Vertex,
        revision,
    )
    from .core.vocab import MEM, PROV, mem, prov
    from .guard.limits import LimitExceeded, Limits
    from .loading.extraction import ABSTAINING, CONSTRAINED, SENTENCES, extract
    from .loading.ingest import IngestError, ingest_file, ingest_lines
    from .loading.jsonlines import JsonLimits
    from .provenance import (
        accept_echoes,
        dependents,
        erase,
        erasure_plan,
        impact,
        lineage,
        minimal_support,
        propose_echoes,
        support,
        withdraw,
    )
    from .provenance.evidence import BudgetError, EvidencePacket, assess, packet, verify
    from .recall import Embedder, Hit, RecallConfig, recall
    from .store import DEFAULT_STORE_PATH, LoadReport, MemoryStore
    from .store.literals import RewrittenLiteralsError
    from .tags import EdgeProperty, LaneError, ReservedLabelError, Tags
    from .tags.policy import Policy, PolicyError
    from .validation import validate_files

__version__ = "0.2.0"

plug_in(
    judge=deferred_judge("memkg.validation:WriteValidator"),
    followers=[Deferred("recall index", "memkg.recall:RECALL_INDEX"), Deferred("recall", "memkg.recall:RECALLER")],
    first_load=Deferred("first load", "memkg.loading.first_load:FIRST_LOAD"),
)

__all__ = [
    "ABSTAINING",
    "CONSTRAINED",
    "DEFAULT_STORE_PATH",
    "MEM",
    "PROV",
    "SENTENCES",
    "Action",
    "Attachment",
    "BudgetError",
    "Claim",
    "Correction",
    "EdgeProperty",
    "Embedder",
    "Episode",
    "EvidencePacket",
    "Extraction",
    "Hit",
    "IngestError",
    "JsonLimits",
    "LaneError",
    "LimitExceeded",
    "Limits",
    "LoadReport",
    "MemkgError",
    "MemoryStore",
    "Message",
    "NotFoundError",
    "Occurrence",
    "Outcome",
    "ParseError",
    "Refused",
    "Policy",
    "PolicyError",
    "Predicate",
    "RecallConfig",
    "ReservedLabelError",
    "RewrittenLiteralsError",
    "Retraction",
    "StoreLockedError",
    "Supersession",
    "Tags",
    "UnknownFormatError",
    "ValidationError",
    "Vertex",
    "Violation",
    "accept_echoes",
    "assess",
    "dependents",
    "erase",
    "erasure_plan",
    "extract",
    "impact",
    "ingest_file",
    "ingest_lines",
    "lineage",
    "mem",
    "minimal_support",
    "packet",
    "propose_echoes",
    "recall",
    "revision",
    "prov",
    "support",
    "validate_files",
    "verify",
    "withdraw",
]

#: Where each name of ``__all__`` lives, imported when first used.
_WHERE = {
    "ABSTAINING": ".loading.extraction",
    "CONSTRAINED": ".loading.extraction",
    "DEFAULT_STORE_PATH": ".store",
    "MEM": ".core.vocab",
    "PROV": ".core.vocab",
    "SENTENCES": ".loading.extraction",
    "Action": ".core.model",
    "Attachment": ".core.model",
    "BudgetError": ".provenance.evidence",
    "Claim": ".core.model",
    "Correction": ".core.model",
    "EdgeProperty": ".tags",
    "Embedder": ".recall",
    "Episode": ".core.model",
    "EvidencePacket": ".provenance.evidence",
    "Extraction": ".core.model",
    "Hit": ".recall",
    "IngestError": ".loading.ingest",
    "JsonLimits": ".loading.jsonlines",
    "LaneError": ".tags",
    "LimitExceeded": ".guard.limits",
    "Limits": ".guard.limits",
    "LoadReport": ".store",
    "MemkgError": ".core.errors",
    "MemoryStore": ".store",
    "Message": ".core.model",
    "NotFoundError": ".core.errors",
    "Occurrence": ".core.model",
    "Outcome": ".core.model",
    "ParseError": ".core.errors",
    "Refused": ".core.errors",
    "Policy": ".tags.policy",
    "PolicyError": ".tags.policy",
    "Predicate": ".core.model",
    "RecallConfig": ".recall",
    "ReservedLabelError": ".tags",
    "RewrittenLiteralsError": ".store.literals",
    "Retraction": ".core.model",
    "StoreLockedError": ".core.errors",
    "Supersession": ".core.model",
    "Tags": ".tags",
    "UnknownFormatError": ".core.errors",
    "ValidationError": ".core.errors",
    "Vertex": ".core.model",
    "Violation": ".core.errors",
    "accept_echoes": ".provenance",
    "assess": ".provenance.evidence",
    "dependents": ".provenance",
    "erase": ".provenance",
    "erasure_plan": ".provenance",
    "extract": ".loading.extraction",
    "impact": ".provenance",
    "ingest_file": ".loading.ingest",
    "ingest_lines": ".loading.ingest",
    "lineage": ".provenance",
    "mem": ".core.vocab",
    "minimal_support": ".provenance",
    "packet": ".provenance.evidence",
    "propose_echoes": ".provenance",
    "recall": ".recall",
    "revision": ".core.model",
    "prov": ".core.vocab",
    "support": ".provenance",
    "validate_files": ".validation",
    "verify": ".provenance.evidence",
    "withdraw": ".provenance",
}

__getattr__, __dir__ = attributes_from(__name__, _WHERE)
