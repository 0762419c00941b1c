"""Edge properties: ``label:value`` pairs on records, joining them as hyperedges.

An agent needs exact questions that meaning alone cannot answer: every record
about Acme, how many records mention the renewal. An *edge property* is a
``label:value`` pair on a record (``org:Acme``, ``person:Sarah``); every record
carrying the same pair is joined by that one pair, an N-ary edge (a
*hyperedge*), with no separate edge table.

The RDF model (``ontology/memkg.ttl``, section "Edge properties")::

    <urn:memkg:edge:org:Acme> a mem:EdgeProperty ;          # one per label:value
        mem:edgeLabel "org" ; mem:edgeValue "Acme" .

    <urn:memkg:version:…> a mem:RecordVersion ;             # one per change
        mem:versionOf ex:m1 ;                               # the record
        mem:recordedAt "2026-03-02T09:00:00Z"^^xsd:dateTime ;
        mem:lane "crm" ; mem:sourceType "email" ;           # optional (lane default)
        mem:hasEdgeProperty <urn:memkg:edge:org:Acme>, … ;  # the complete set
        mem:revises <urn:memkg:version:…> .                 # the version it replaces

Nothing is overwritten: every change to a record's edge properties writes a new
:class:`Version` that ``mem:revises`` the previous one, stamped with
``mem:recordedAt`` from the store clock; an update that changes nothing writes
nothing. A version is current from its ``recordedAt`` until the ``recordedAt``
of the version that revises it, so "the record's properties as of transaction
time T" is a query (every read here takes ``known_at``).

Writing a property as text (:meth:`EdgeProperty.parse`): split at the first
colon; the label is trimmed and each whitespace character in it becomes ``_``;
the value is trimmed and otherwise kept; text with no colon gets the label
``general``. Labels starting ``e_`` are reserved: ``e_connect`` (exactly two
records), ``e_group`` (two or more) and ``e_adjustment`` (a chain of
adjustments over time) carry values only memkg mints (``<label>_<32 hex>``),
through :meth:`Tags.connect`, :meth:`Tags.group` and :meth:`Tags.adjusts`.

Each declared property on a record has a stable id, :func:`declared_id`:
``ep_`` and the first 32 hex digits of SHA-256 over the UTF-8 bytes of
``record IRI ␟ schema ␟ label ␟ value`` (joined with U+001F, which labels and
values may therefore not contain). The *schema* is the record's lane, with its
source type after a slash when it has one (``crm/email``), and ``default`` for a
record in no lane. The same id can be computed in SPARQL (:data:`DECLARED_QUERY`),
so any engine projecting the same state gives the same id.

>>> from memkg import MemoryStore, Message
>>> store = MemoryStore()
>>> m1 = store.add(Message(content="Sarah from Acme asked about the renewal", id="m1"))
>>> m2 = store.add(Message(content="Acme's invoice is late", id="m2"))
>>> tags = Tags(store)
>>> tags.add(m1, ["org:Acme", "person:Sarah", "topic:renewal"]).changed
True
>>> _ = tags.add(m2, ["org: Acme", "topic:billing"])
>>> [r.value for r in tags.intersect(["org:Acme", "person:Sarah"])]
['urn:memkg:message:m1']
>>> tags.count(["org:Acme"])
2
"""

from .properties import (
    ADJUSTMENT,
    CONNECT,
    DEFAULT_LANE,
    GENERAL,
    GROUP,
    RESERVED_LABELS,
    RESERVED_PREFIX,
    Change,
    Declared,
    EdgeProperty,
    LabelCount,
    LaneError,
    Link,
    Rejected,
    ReservedLabelError,
    Step,
    Version,
    check_name,
    connect_value,
    declared_id,
    normalize_label,
    normalize_value,
    schema_name,
)
from .queries import DECLARED_QUERY
from .records import Tags

__all__ = [
    "ADJUSTMENT",
    "CONNECT",
    "DECLARED_QUERY",
    "DEFAULT_LANE",
    "GENERAL",
    "GROUP",
    "RESERVED_LABELS",
    "RESERVED_PREFIX",
    "Change",
    "Declared",
    "EdgeProperty",
    "LabelCount",
    "LaneError",
    "Link",
    "Rejected",
    "ReservedLabelError",
    "Step",
    "Tags",
    "Version",
    "check_name",
    "connect_value",
    "declared_id",
    "normalize_label",
    "normalize_value",
    "schema_name",
]

