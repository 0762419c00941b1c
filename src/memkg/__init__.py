"""memkg: an AI agent's memory as an RDF 1.2 knowledge graph.

Everything a user needs is importable from here::

    from memkg import MemoryStore, Claim, Message
    store = MemoryStore("./memkg-store")      # on disk; MemoryStore() in memory
    store.load("examples/lia-tea.trig")
    for row in store.query("SELECT ?c WHERE { GRAPH ?g { ?c a mem:Claim } }"):
        print(row["c"])
"""

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
    Episode,
    Extraction,
    Message,
    Occurrence,
    Outcome,
    Predicate,
    Retraction,
    Vertex,
)
from .provenance.evidence import BudgetError, EvidencePacket, assess, packet, verify
from .loading.extraction import ABSTAINING, CONSTRAINED, SENTENCES, extract
from .tags.policy import Policy, PolicyError
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
from .recall import Embedder, Hit, RecallConfig, recall
from .store import DEFAULT_STORE_PATH, LoadReport, MemoryStore
from .tags import EdgeProperty, LaneError, ReservedLabelError, Tags
from .core.vocab import MEM, PROV, mem, prov

__version__ = "0.1.0"

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
    "EdgeProperty",
    "Embedder",
    "Episode",
    "EvidencePacket",
    "Extraction",
    "Hit",
    "LaneError",
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
    "Retraction",
    "StoreLockedError",
    "Tags",
    "UnknownFormatError",
    "ValidationError",
    "Vertex",
    "Violation",
    "accept_echoes",
    "assess",
    "dependents",
    "erase",
    "extract",
    "impact",
    "lineage",
    "mem",
    "minimal_support",
    "packet",
    "propose_echoes",
    "recall",
    "prov",
    "support",
    "verify",
    "withdraw",
]
