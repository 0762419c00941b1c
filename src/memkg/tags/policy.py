"""Lanes and source types: which edge properties a record may carry.

A *lane* groups records (``crm``, ``notes``); a lane that declares *source
types* is closed: each of its records names one of them, and each source type
names the labels its records may carry, optionally with the values (a list, or
a regular expression) each label may take. A lane that declares none is open:
any label. Records written without a lane are in the lane ``default``, open
unless the policy declares it.

The policy file is TOML (read with :mod:`tomllib`)::

    [lanes.crm]
    description = "Customer relationship records"

    [lanes.crm.source_types.email]
    labels = { org = "*", person = "*", topic = ["renewal", "pricing", "support"] }

    [lanes.crm.source_types.call]
    labels.org = "*"
    labels.stage = { pattern = "^(lead|qualified|won|lost)$" }

    [lanes.notes]                 # open: no source types, any label

A label maps to ``"*"`` (any value), a list of allowed values, or a table with
``values`` (a list) or ``pattern`` (a regular expression that must match
somewhere in the value, as SPARQL's ``REGEX`` and SHACL's ``sh:pattern`` do;
anchor it with ``^…$``), and an optional ``description``. Reserved labels
(``e_…``) are the engine's and are never named in a policy.

:class:`memkg.tags.Tags` checks every write that adds a property against its
policy and refuses it whole with a :class:`PolicyError`; :meth:`Policy.to_shapes`
turns the same rules into SHACL shapes (SPARQL constraints that pySHACL and
memkg's native engine both run), so that ``memkg validate --shapes
policy-shapes.ttl`` enforces them on a whole store too. The shapes judge each
record's *current* version: earlier versions were written under the policy of
their time.

>>> policy = Policy.loads('''
... [lanes.crm.source_types.email]
... labels = { org = "*", topic = ["renewal", "pricing"] }
... ''')
>>> policy.check("crm", "email", [("org", "Acme"), ("topic", "renewal")])
>>> policy.check("crm", "email", [("topic", "gossip")])
Traceback (most recent call last):
...
memkg.tags.policy.PolicyError: edge properties refused by the policy: lane 'crm', source type 'email': value 'gossip' of label 'topic' is not allowed (allowed: pricing, renewal)
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, RdfFormat, parse, serialize

from ..core.errors import MemkgError, ParseError, Refused
from ..core.resources import data_dir
from ..core.vocab import MEM, RDF, RDFS, SH, XSD, sh
from .properties import (
    DEFAULT_LANE,
    RESERVED_PREFIX,
    EdgeProperty,
    check_name,
    normalize_label,
    normalize_value,
)

#: Where the generated shapes' IRIs live unless :meth:`Policy.to_shapes` is told otherwise.
SHAPES_BASE = "urn:memkg:policy:"


class PolicyError(Refused):
    """A write that breaks the policy's lanes and source types; nothing was written.

    ``problems`` lists each broken rule, naming lane, source type, label and value.
    """

    def __init__(self, problems: list[str], *, record: object = None) -> None:
        self.problems = list(problems)
        self.record = record
        head = f"{record}: " if record is not None else ""
        super().__init__(f"{head}edge properties refused by the policy: " + "; ".join(self.problems))


class PolicyFormatError(MemkgError, ValueError):
    """A policy file that is well-formed TOML but not a valid policy (the key path says where)."""


@dataclass(frozen=True)
class LabelRule:
    """What values a label may take: any (``values`` and ``pattern`` None), a list, or a pattern."""

    label: str
    values: frozenset[str] | None = None
    pattern: str | None = None
    description: str | None = None

    def allows(self, value: str) -> bool:
        if self.values is not None and value not in self.values:
            return False
        if self.pattern is not None and re.search(self.pattern, value) is None:
            return False
        return True

    def explain(self) -> str:
        if self.values is not None:
            return "allowed: " + ", ".join(sorted(self.values))
        return f"must match {self.pattern}"


@dataclass(frozen=True)
class SourceType:
    """A source type of a closed lane: the labels its records may carry."""

    lane: str
    name: str
    labels: Mapping[str, LabelRule]
    description: str | None = None

    @property
    def schema(self) -> str:
        return f"{self.lane}/{self.name}"


@dataclass(frozen=True)
class Lane:
    """A lane: closed when it declares source types, open otherwise."""

    name: str
    source_types: Mapping[str, SourceType] = field(default_factory=dict)
    description: str | None = None

    @property
    def closed(self) -> bool:
        return bool(self.source_types)


@dataclass(frozen=True)
class Policy:
    """The lanes and source types of a memory, read from a TOML policy file."""

    lanes: Mapping[str, Lane]
    source: str | None = None

    # -- reading ---------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> "Policy":
        """Read a policy file. Raises :class:`~memkg.core.errors.ParseError` (with line and column) for bad TOML,
        :class:`PolicyFormatError` for a valid TOML file that is not a policy."""
        path = Path(path)
        return cls.loads(path.read_text(encoding="utf-8"), source=str(path))

    @classmethod
    def loads(cls, text: str, *, source: str = "<policy>") -> "Policy":
        """Read a policy from TOML text."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
            reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
            line, column = (int(m.group(1)), int(m.group(2))) if m else (None, None)
            raise ParseError(reason, file=source, line=line, column=column) from None
        return cls.from_dict(data, source=source)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "<policy>") -> "Policy":
        """A policy from the structure the TOML file holds (see the module documentation)."""

        def fail(where: str, message: str) -> PolicyFormatError:
            return PolicyFormatError(f"{source}: {where}: {message}")

        def table(value: Any, where: str, allowed: set[str]) -> Mapping[str, Any]:
            if not isinstance(value, Mapping):
                raise fail(where, "expected a table")
            unknown = sorted(set(value) - allowed)
            if unknown:
                raise fail(where, f"unknown key(s) {', '.join(unknown)} (expected: {', '.join(sorted(allowed))})")
            return value

        def text(value: Any, where: str) -> str | None:
            if value is not None and not isinstance(value, str):
                raise fail(where, "expected a string")
            return value

        def name(kind: str, value: str, where: str) -> str:
            try:
                return check_name(kind, value)
            except ValueError as err:
                raise fail(where, str(err)) from None

        top = table(data, "(top level)", {"lanes", "description", "version"})
        lanes: dict[str, Lane] = {}
        for lane_name, lane_data in table(top.get("lanes", {}), "lanes", set(top.get("lanes", {}))).items():
            where = f"lanes.{lane_name}"
            name("lane", lane_name, where)
            lane_table = table(lane_data, where, {"description", "source_types"})
            sources: dict[str, SourceType] = {}
            if "source_types" in lane_table:
                raw_sources = lane_table["source_types"]
                if not isinstance(raw_sources, Mapping) or not raw_sources:
                    raise fail(f"{where}.source_types", "declare at least one source type, or leave the key out "
                               "for an open lane")
                for source_name, source_data in raw_sources.items():
                    swhere = f"{where}.source_types.{source_name}"
                    name("source type", source_name, swhere)
                    st = table(source_data, swhere, {"description", "labels"})
                    labels: dict[str, LabelRule] = {}
                    raw_labels = st.get("labels", {})
                    if not isinstance(raw_labels, Mapping):
                        raise fail(f"{swhere}.labels", "expected a table of label = rule")
                    for label, rule in raw_labels.items():
                        lwhere = f"{swhere}.labels.{label}"
                        try:
                            norm = normalize_label(label)
                        except ValueError as err:
                            raise fail(lwhere, str(err)) from None
                        if norm != label:
                            raise fail(lwhere, f"write the label as stored: {norm!r}")
                        if label.startswith(RESERVED_PREFIX):
                            raise fail(lwhere, f"labels starting {RESERVED_PREFIX!r} are reserved for the engine")
                        labels[label] = _rule(label, rule, lwhere, fail)
                    sources[source_name] = SourceType(lane_name, source_name, labels, text(st.get("description"),
                                                                                          f"{swhere}.description"))
            lanes[lane_name] = Lane(lane_name, sources, text(lane_table.get("description"), f"{where}.description"))
        return cls(lanes, source)

    # -- checking ----------------------------------------------------------------------

    def lane(self, name: str) -> Lane | None:
        """The lane by that name; the default lane is open unless declared; None for an unknown lane."""
        if name in self.lanes:
            return self.lanes[name]
        return Lane(DEFAULT_LANE) if name == DEFAULT_LANE else None

    def violations(
        self,
        lane: str | None,
        source_type: str | None,
        properties: Iterable[EdgeProperty | tuple[str, str] | str],
    ) -> list[str]:
        """Every rule a record in ``lane`` / ``source_type`` carrying ``properties`` breaks (empty: none)."""
        lane = lane or DEFAULT_LANE
        the_lane = self.lane(lane)
        if the_lane is None:
            known = ", ".join(sorted({*self.lanes, DEFAULT_LANE}))
            return [f"unknown lane {lane!r} (the policy's lanes: {known})"]
        if not the_lane.closed:
            if source_type is not None:
                return [f"lane {lane!r} declares no source types, so its records name none (not {source_type!r})"]
            return []
        declared = ", ".join(sorted(the_lane.source_types))
        if source_type is None:
            return [f"lane {lane!r} is closed: a record in it names one of its source types ({declared})"]
        st = the_lane.source_types.get(source_type)
        if st is None:
            return [f"lane {lane!r} has no source type {source_type!r} (declared: {declared})"]
        problems = []
        where = f"lane {lane!r}, source type {source_type!r}"
        for prop in sorted({EdgeProperty.of(p) for p in properties}):
            if prop.reserved:
                continue  # the engine's own hyperedges go everywhere
            rule = st.labels.get(prop.label)
            if rule is None:
                allowed = ", ".join(sorted(st.labels)) or "none"
                problems.append(f"{where}: label {prop.label!r} is not allowed (allowed labels: {allowed})")
            elif not rule.allows(prop.value):
                problems.append(f"{where}: value {prop.value!r} of label {prop.label!r} is not allowed "
                                f"({rule.explain()})")
        return problems

    def check(
        self,
        lane: str | None,
        source_type: str | None,
        properties: Iterable[EdgeProperty | tuple[str, str] | str],
        *,
        record: object = None,
    ) -> None:
        """Raise :class:`PolicyError` if a record in ``lane`` / ``source_type`` may not carry ``properties``."""
        problems = self.violations(lane, source_type, properties)
        if problems:
            raise PolicyError(problems, record=record)

    # -- shapes --------------------------------------------------------------------------

    def to_shapes(self, *, base: str = SHAPES_BASE, include_base: bool = True) -> list[Quad]:
        """The policy as SHACL shapes (with memkg's edge-property invariants unless ``include_base`` is False).

        SPARQL constraints without VALUES or MINUS, over full IRIs, so that
        pySHACL and memkg's native engine both run them; each judges the current
        version of each record (the one no ``mem:revises`` points at).

        >>> quads = Policy.loads('[lanes.notes]').to_shapes(include_base=False)
        >>> sorted({q.subject.value for q in quads if isinstance(q.subject, NamedNode)})
        ['urn:memkg:policy:lane:default', 'urn:memkg:policy:lane:notes', 'urn:memkg:policy:lanes']
        """
        out = _ShapeWriter(base)
        _lanes_shape(out, sorted({*self.lanes, DEFAULT_LANE}))
        lanes = dict(self.lanes)
        lanes.setdefault(DEFAULT_LANE, Lane(DEFAULT_LANE))
        for lane in sorted(lanes.values(), key=lambda lane: lane.name):
            _lane_shapes(out, lane)
        quads = out.quads
        if include_base:
            quads = list(base_shapes()) + quads
        return quads

    def shapes_turtle(self, *, base: str = SHAPES_BASE, include_base: bool = True) -> str:
        """:meth:`to_shapes` as Turtle text, for ``memkg validate --shapes``."""
        triples = [q.triple for q in self.to_shapes(base=base, include_base=include_base)]
        prefixes = {"sh": SH, "mem": MEM, "rdfs": RDFS, "xsd": XSD}
        return (serialize(triples, format=RdfFormat.TURTLE, prefixes=prefixes) or b"").decode("utf-8")

    def write_shapes(self, path: str | Path, *, base: str = SHAPES_BASE, include_base: bool = True) -> Path:
        """Write :meth:`shapes_turtle` to ``path`` (returned)."""
        path = Path(path)
        path.write_text(self.shapes_turtle(base=base, include_base=include_base), encoding="utf-8")
        return path


def _rule(label: str, rule: Any, where: str, fail: Any) -> LabelRule:
    if rule == "*":
        return LabelRule(label)
    if isinstance(rule, list):
        return LabelRule(label, values=_values(rule, where, fail))
    if isinstance(rule, Mapping):
        unknown = sorted(set(rule) - {"values", "pattern", "description"})
        if unknown:
            raise fail(where, f"unknown key(s) {', '.join(unknown)} (expected: description, pattern, values)")
        values = _values(rule["values"], f"{where}.values", fail) if "values" in rule else None
        pattern = rule.get("pattern")
        if pattern is not None:
            if not isinstance(pattern, str):
                raise fail(f"{where}.pattern", "expected a string")
            try:
                re.compile(pattern)
            except re.error as err:
                raise fail(f"{where}.pattern", f"not a regular expression: {err}") from None
        description = rule.get("description")
        if description is not None and not isinstance(description, str):
            raise fail(f"{where}.description", "expected a string")
        return LabelRule(label, values, pattern, description)
    raise fail(where, 'expected "*" (any value), a list of values, or a table with values / pattern')


def _values(values: Any, where: str, fail: Any) -> frozenset[str]:
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise fail(where, "expected a non-empty list of strings")
    try:
        return frozenset(normalize_value(v) for v in values)
    except ValueError as err:
        raise fail(where, str(err)) from None


# -- SHACL ---------------------------------------------------------------------------------

#: The judged version is current: no version revises it.
_CURRENT = f"FILTER NOT EXISTS {{ ?newer <{MEM}revises> $this }}"


def _in_lane(name: str) -> str:
    if name == DEFAULT_LANE:  # no mem:lane, or mem:lane "default"
        return f'FILTER NOT EXISTS {{ $this <{MEM}lane> ?otherLane . FILTER(?otherLane != "{DEFAULT_LANE}") }}'
    return f"$this <{MEM}lane> {Literal(name)} ."


def _list(items: Iterable[str]) -> str:
    return ", ".join(str(Literal(i)) for i in items)


class _ShapeWriter:
    def __init__(self, base: str) -> None:
        self.base = base
        self.quads: list[Quad] = []

    def shape(self, key: str, label: str, select: str, message: str) -> None:
        self.shapes(key, label, [(select, message)])

    def shapes(self, key: str, label: str, constraints: list[tuple[str, str]]) -> None:
        node = NamedNode(self.base + key)
        self.quads += [
            Quad(node, NamedNode(RDF + "type"), sh.NodeShape),
            Quad(node, NamedNode(RDFS + "label"), Literal(label, language="en")),
            Quad(node, sh.targetClass, NamedNode(MEM + "RecordVersion")),
        ]
        for select, message in constraints:
            c = BlankNode()
            self.quads += [
                Quad(node, sh.sparql, c),
                Quad(c, NamedNode(RDF + "type"), sh.SPARQLConstraint),
                Quad(c, sh.message, Literal(message, language="en")),
                Quad(c, sh.select, Literal(_dedent(select))),
            ]


def _lanes_shape(out: _ShapeWriter, known: list[str]) -> None:
    """Record versions name a lane the policy declares (one of ``known``)."""
    out.shape(
        "lanes",
        f"record versions name a lane of the policy ({', '.join(known)})",
        f"""SELECT $this ?value (<{MEM}lane> AS ?path) WHERE {{
            $this <{MEM}lane> ?value .
            {_CURRENT}
            FILTER(?value NOT IN ({_list(known)}))
        }}""",
        "{$this} names the lane {?value}, which the policy does not declare",
    )


def _lane_shapes(out: _ShapeWriter, lane: Lane) -> None:
    """An open lane's records name no source type; a closed lane's name one of its own, and each
    source type's records carry only its labels and values."""
    in_lane = _in_lane(lane.name)
    key = f"lane:{lane.name}"
    if not lane.closed:
        out.shape(
            key,
            f"lane {lane.name} is open: its records name no source type",
            f"""SELECT $this ?value (<{MEM}sourceType> AS ?path) WHERE {{
                {in_lane}
                $this <{MEM}sourceType> ?value .
                {_CURRENT}
            }}""",
            f"{{$this}} is in lane {lane.name}, which declares no source types, but names {{?value}}",
        )
        return
    names = sorted(lane.source_types)
    out.shape(
        key,
        f"lane {lane.name} is closed: its records name one of its source types ({', '.join(names)})",
        f"""SELECT $this (<{MEM}sourceType> AS ?path) WHERE {{
            {in_lane}
            {_CURRENT}
            FILTER NOT EXISTS {{ $this <{MEM}sourceType> ?s . FILTER(?s IN ({_list(names)})) }}
        }}""",
        f"{{$this}} is in the closed lane {lane.name} but names none of its source types "
        f"({', '.join(names)})",
    )
    for st in sorted(lane.source_types.values(), key=lambda s: s.name):
        in_source = f'{in_lane}\n$this <{MEM}sourceType> {Literal(st.name)} .'
        constraints = [_label_constraint(st, in_source)]
        for rule in sorted(st.labels.values(), key=lambda r: r.label):
            constraint = _value_constraint(st, rule, in_source)
            if constraint is not None:
                constraints.append(constraint)
        out.shapes(f"{key}/{st.name}", f"source type {st.schema}: the labels and values its records may carry",
                   constraints)


def _label_constraint(st: SourceType, in_source: str) -> tuple[str, str]:
    """The records of source type ``st`` carry only its labels (the engine's ``e_`` labels aside)."""
    allowed = sorted(st.labels)
    label_filter = f"FILTER(?label NOT IN ({_list(allowed)}))" if allowed else ""
    return (
        f"""SELECT $this ?value ?label (<{MEM}hasEdgeProperty> AS ?path) WHERE {{
            {in_source}
            {_CURRENT}
            $this <{MEM}hasEdgeProperty> ?value .
            ?value <{MEM}edgeLabel> ?label .
            FILTER(!STRSTARTS(?label, "{RESERVED_PREFIX}"))
            {label_filter}
        }}""",
        f"{{$this}} ({st.schema}) carries {{?value}}: label {{?label}} is not allowed for source type "
        f"{st.schema} (allowed labels: {', '.join(allowed) or 'none'})",
    )


def _value_constraint(st: SourceType, rule: LabelRule, in_source: str) -> tuple[str, str] | None:
    """The values label ``rule.label`` may take in source type ``st`` (None: any value)."""
    tests = []
    if rule.values is not None:
        tests.append(f"?v NOT IN ({_list(sorted(rule.values))})")
    if rule.pattern is not None:
        tests.append(f"!REGEX(?v, {Literal(rule.pattern)})")
    if not tests:
        return None
    return (
        f"""SELECT $this ?value ?v (<{MEM}hasEdgeProperty> AS ?path) WHERE {{
            {in_source}
            {_CURRENT}
            $this <{MEM}hasEdgeProperty> ?value .
            ?value <{MEM}edgeLabel> {Literal(rule.label)} ; <{MEM}edgeValue> ?v .
            FILTER({' || '.join(tests)})
        }}""",
        f"{{$this}} ({st.schema}) carries {{?value}}: value {{?v}} of label {rule.label} is not "
        f"allowed ({rule.explain()})",
    )


def _dedent(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines()]
    return "\n".join(line for line in lines if line)


def base_shapes_path() -> Path:
    """The file of memkg's edge-property invariants, ``shapes/policy/edge-properties.ttl``.

    It sits in a folder of its own so that the store's invariants (``shapes/*.ttl``) do
    not include it: these shapes judge records only when a policy asks for them.
    """
    return data_dir("shapes") / "policy" / "edge-properties.ttl"


@cache
def base_shapes() -> tuple[Quad, ...]:
    """memkg's edge-property invariants as SHACL shapes (:func:`base_shapes_path`), whatever the policy."""
    return tuple(parse(path=str(base_shapes_path()), format=RdfFormat.TURTLE))


__all__ = [
    "SHAPES_BASE",
    "LabelRule",
    "Lane",
    "Policy",
    "PolicyError",
    "PolicyFormatError",
    "SourceType",
    "base_shapes",
    "base_shapes_path",
]
