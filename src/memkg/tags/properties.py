"""Edge properties as values: parsing, normalising, stable ids, and the result types of writes and reads."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias, Union
from urllib.parse import quote, unquote

from pyoxigraph import NamedNode

from ..core.errors import Refused
from ..core.terms import IRI, iri

#: Labels starting with this are reserved for the engine.
RESERVED_PREFIX = "e_"
CONNECT, GROUP, ADJUSTMENT = "e_connect", "e_group", "e_adjustment"
RESERVED_LABELS = (CONNECT, GROUP, ADJUSTMENT)
#: The label of a property written without a colon.
GENERAL = "general"
#: The lane of a record written without one; also the schema of such a record.
DEFAULT_LANE = "default"
#: Joins the parts hashed into a declared property's id.
SEPARATOR = "\x1f"
#: Edge property IRIs: this, the percent-encoded label, ``:``, the percent-encoded value.
EDGE_BASE = "urn:memkg:edge:"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_RESERVED_VALUE = re.compile(r"^(e_connect|e_group|e_adjustment)_[0-9a-f]{32}$")

Record = IRI


class ReservedLabelError(Refused):
    """A write names an ``e_`` label outside the engine's own operations; nothing was written."""


class LaneError(Refused):
    """A write names a lane or source type that differs from the record's (fixed at its first version)."""


# -- properties and ids ---------------------------------------------------------------


def normalize_label(label: str) -> str:
    """A label as stored: trimmed, each whitespace character (``str.isspace``, so U+001F too) turned into ``_``.

    >>> normalize_label(" contract owner ")
    'contract_owner'
    """
    if not isinstance(label, str):
        raise TypeError(f"an edge property label is a string, got {label!r}")
    text = re.sub(r"\s", "_", label.strip())
    if not text:
        raise ValueError("an edge property label cannot be empty")
    if ":" in text:
        raise ValueError(f"an edge property label cannot contain a colon: {label!r}")
    if SEPARATOR in text:
        raise ValueError(f"an edge property label cannot contain U+001F: {label!r}")
    return text


def normalize_value(value: str) -> str:
    """A value as stored: trimmed, otherwise kept.

    >>> normalize_value("  Acme Corp. ")
    'Acme Corp.'
    """
    if not isinstance(value, str):
        raise TypeError(f"an edge property value is a string, got {value!r}")
    text = value.strip()
    if not text:
        raise ValueError("an edge property value cannot be empty")
    if SEPARATOR in text:
        raise ValueError(f"an edge property value cannot contain U+001F: {value!r}")
    return text


@dataclass(frozen=True, order=True)
class EdgeProperty:
    """One ``label:value`` pair, normalized on construction.

    >>> EdgeProperty.parse("contract owner : Sarah Lee ")
    EdgeProperty(label='contract_owner', value='Sarah Lee')
    >>> str(EdgeProperty.parse("renewal"))
    'general:renewal'
    >>> EdgeProperty("org", "Acme").iri.value
    'urn:memkg:edge:org:Acme'
    """

    label: str
    value: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", normalize_label(self.label))
        object.__setattr__(self, "value", normalize_value(self.value))

    @classmethod
    def parse(cls, text: str) -> "EdgeProperty":
        """``label:value`` split at the first colon; no colon gives the label ``general``."""
        if not isinstance(text, str):
            raise TypeError(f"an edge property is written as a string, got {text!r}")
        label, sep, value = text.partition(":")
        return cls(label, value) if sep else cls(GENERAL, text)

    @classmethod
    def of(cls, prop: PropertyLike) -> EdgeProperty:
        """A property from text, a ``(label, value)`` pair or a property."""
        if isinstance(prop, EdgeProperty):
            return prop
        if isinstance(prop, tuple) and len(prop) == 2:
            return cls(*prop)
        return cls.parse(prop)

    @classmethod
    def from_iri(cls, node: NamedNode) -> "EdgeProperty | None":
        """The property an edge IRI minted by :attr:`iri` stands for (None for another IRI)."""
        text = node.value
        if not text.startswith(EDGE_BASE):
            return None
        label, sep, value = text[len(EDGE_BASE):].partition(":")
        return cls(unquote(label), unquote(value)) if sep else None

    @property
    def iri(self) -> NamedNode:
        """The hyperedge's IRI: one per distinct label:value (percent-encoded as SPARQL's ENCODE_FOR_URI)."""
        return NamedNode(f"{EDGE_BASE}{quote(self.label, safe='')}:{quote(self.value, safe='')}")

    @property
    def reserved(self) -> bool:
        return self.label.startswith(RESERVED_PREFIX)

    def __str__(self) -> str:
        return f"{self.label}:{self.value}"


#: One property as a caller may write it: ``"label:value"``, a ``(label, value)`` pair or an :class:`EdgeProperty`.
PropertyLike: TypeAlias = Union[str, EdgeProperty, tuple[str, str]]
#: Properties as the writes and set questions take them: one, or an iterable of them.
Properties: TypeAlias = Union[Iterable[PropertyLike], str, EdgeProperty]


def as_properties(props: Properties) -> list[EdgeProperty]:
    if isinstance(props, (str, EdgeProperty)):
        props = [props]
    return list(dict.fromkeys(EdgeProperty.of(p) for p in props))


def schema_name(lane: str | None = None, source_type: str | None = None) -> str:
    """The schema a record's declared ids are computed in: ``lane`` or ``lane/source_type``.

    >>> schema_name(), schema_name("crm"), schema_name("crm", "email")
    ('default', 'crm', 'crm/email')
    """
    lane = lane or DEFAULT_LANE
    return f"{lane}/{source_type}" if source_type else lane


def declared_id(record: Record, label: str, value: str, *, schema: str = DEFAULT_LANE) -> str:
    """The stable id of a property declared on a record: ``ep_`` + 32 hex of SHA-256.

    Hashes the UTF-8 bytes of record IRI, schema, label and value joined with
    U+001F (label and value normalized first).

    >>> declared_id("https://example.org/m1", "org", "Acme")
    'ep_...'
    >>> len(declared_id("https://example.org/m1", "org", "Acme"))
    35
    """
    node = iri(record, kind="record")
    data = SEPARATOR.join([node.value, schema, normalize_label(label), normalize_value(value)])
    return "ep_" + hashlib.sha256(data.encode("utf-8")).hexdigest()[:32]


def check_name(kind: str, name: str) -> str:
    """A lane or source-type name: letters, digits, ``_ . -``, starting with a letter or digit."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{kind} name {name!r}: use letters, digits, '_', '.', '-' (starting with a letter or digit)")
    return name


def connect_value(a: NamedNode, b: NamedNode) -> str:
    """The ``e_connect`` value of two records: derived from the pair, so connecting twice is one edge."""
    first, second = sorted([a.value, b.value])
    digest = hashlib.sha256(SEPARATOR.join([CONNECT, first, second]).encode("utf-8")).hexdigest()
    return f"{CONNECT}_{digest[:32]}"


def minted_value(label: str) -> str:
    return f"{label}_{uuid.uuid4().hex}"


# -- results --------------------------------------------------------------------------


@dataclass(frozen=True)
class Declared:
    """A property declared on a record, with its stable id."""

    id: str
    record: NamedNode
    edge: EdgeProperty
    schema: str

    @property
    def label(self) -> str:
        return self.edge.label

    @property
    def value(self) -> str:
        return self.edge.value


@dataclass(frozen=True)
class Version:
    """One version of a record's edge properties (a ``mem:RecordVersion``)."""

    iri: NamedNode
    record: NamedNode
    #: None for a hand-written version without ``mem:recordedAt``.
    recorded_at: datetime | None
    properties: frozenset[EdgeProperty]
    lane: str = DEFAULT_LANE
    source_type: str | None = None
    revises: NamedNode | None = None

    @property
    def schema(self) -> str:
        return schema_name(self.lane, self.source_type)

    def declared(self) -> list[Declared]:
        """The version's properties with their ids, sorted by label and value."""
        return [
            Declared(declared_id(self.record, p.label, p.value, schema=self.schema), self.record, p, self.schema)
            for p in sorted(self.properties)
        ]


@dataclass(frozen=True)
class Rejected:
    """A property a write skipped (as it was written), and why."""

    text: str
    reason: str


@dataclass(frozen=True)
class Change:
    """What a write did to one record. ``version`` is None when nothing changed (nothing was written)."""

    record: NamedNode
    version: NamedNode | None = None
    added: tuple[EdgeProperty, ...] = ()
    removed: tuple[EdgeProperty, ...] = ()
    already_held: tuple[EdgeProperty, ...] = ()  #: asked to add, but the record had it
    not_held: tuple[EdgeProperty, ...] = ()  #: asked to remove, but the record did not have it
    rejected: tuple[Rejected, ...] = ()  #: skipped (reserved labels)

    @property
    def changed(self) -> bool:
        return self.version is not None


@dataclass(frozen=True)
class Link:
    """What connect, group or adjusts (or their inverses) did: the reserved hyperedge and each record's change."""

    edge: EdgeProperty | None
    changes: tuple[Change, ...] = ()

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes)

    @property
    def value(self) -> str | None:
        return self.edge.value if self.edge else None


@dataclass(frozen=True)
class LabelCount:
    """A label, how many records carry it and with how many distinct values."""

    label: str
    records: int
    values: int


@dataclass(frozen=True)
class Step:
    """A record reached by :meth:`Tags.traverse`: at ``depth``, from ``source`` along ``via``."""

    record: NamedNode
    depth: int
    via: EdgeProperty
    source: NamedNode
