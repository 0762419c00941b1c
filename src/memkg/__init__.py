"""memkg: an AI agent's memory as an RDF 1.2 knowledge graph.

Everything a user needs is importable from here::

    from memkg import MemoryStore, Claim, Message
    store = MemoryStore("./memkg-store")      # on disk; MemoryStore() in memory
    store.load("examples/lia-tea.trig")
    for row in store.query("SELECT ?c WHERE { GRAPH ?g { ?c a mem:Claim } }"):
        print(row["c"])

This module is also the composition root: it plugs memkg's features into the store
(:func:`memkg.store.plug_in`), which never imports them: the write validator (the judge
of every write), the recall index and the recall that answers ``MemoryStore.recall`` (kept
by every store), and the first load. The support index is a store's choice
(``MemoryStore(path, followers=[SUPPORT_INDEX])``, :mod:`memkg.provenance.support_index`).
"""

from .core.errors import (
    AmbiguousIRIError,
    MemkgError,
    NotAStoreError,
    NotFoundError,
    ParseError,
    Refused,
    StoreLockedError,
    UnknownFormatError,
    UnknownIRIError,
    ValidationError,
    Violation,
)
from .core.model import (
    Action,
    Attachment,
    Claim,
    Episode,
    Extraction,
    Message,
    Occurrence,
    Outcome,
    Predicate,
    Retraction,
    Vertex,
)
from .core.vocab import MEM, PROV, mem, prov
from .guard.limits import LimitExceeded, Limits
from .loading.extraction import ABSTAINING, CONSTRAINED, SENTENCES, extract
from .loading.first_load import FIRST_LOAD
from .loading.ingest import IngestError, ingest_file, ingest_lines
from .loading.jsonlines import JsonLimits
from .provenance import (
    accept_echoes,
    dependents,
    erase,
    impact,
    lineage,
    minimal_support,
    propose_echoes,
    support,
    withdraw,
)
from .provenance.evidence import BudgetError, EvidencePacket, assess, packet, verify
from .recall import RECALL_INDEX, RECALLER, Embedder, Hit, RecallConfig, recall
from .store import DEFAULT_STORE_PATH, LoadReport, MemoryStore, plug_in
from .store.literals import RewrittenLiteralsError
from .tags import EdgeProperty, LaneError, ReservedLabelError, Tags
from .tags.policy import Policy, PolicyError
from .validation import WriteValidator, validate_files

__version__ = "0.2.0"

plug_in(judge=WriteValidator, followers=[RECALL_INDEX, RECALLER], first_load=FIRST_LOAD)

__all__ = [
    "ABSTAINING",
    "CONSTRAINED",
    "DEFAULT_STORE_PATH",
    "MEM",
    "PROV",
    "SENTENCES",
    "Action",
    "AmbiguousIRIError",
    "Attachment",
    "BudgetError",
    "Claim",
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
    "NotAStoreError",
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
    "Tags",
    "UnknownFormatError",
    "UnknownIRIError",
    "ValidationError",
    "Vertex",
    "Violation",
    "accept_echoes",
    "assess",
    "dependents",
    "erase",
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
    "prov",
    "support",
    "validate_files",
    "verify",
    "withdraw",
]
