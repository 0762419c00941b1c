"""The outputs' schemas (``tests/fixtures/schemas``), and a check that data exercised every field.

Each output memkg documents has a schema there: JSON Schema (2020-12) for JSON, written from
what the docs promise, ``required`` listing every field they promise; for the validation
report in Turtle, SHACL shapes. :func:`check` validates one answer against its schema.

A schema passing proves nothing about a field that never appeared. :class:`Coverage` records,
over every answer a test checks, which of the schema's properties appeared with a value (not
null, an array not empty) and, where a schema asks for it with ``"x-cover-branches": true``,
which alternatives of an ``anyOf``/``oneOf`` some answer took. :meth:`Coverage.missing` names
what no answer exercised, so a field that only appears in some cases needs a case that makes
it appear. A property the standard allows but memkg never promises says so with
``"x-not-promised": "why"`` and is not asked for; a property whose value is a document with a
schema (and coverage) of its own says where with ``"x-covered-elsewhere"``: it must appear, and
what is inside it is asked for there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SCHEMAS = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
#: Schemas of shared definitions whose own fields are covered where they are used, not here.
NOT_WALKED = {"terms.json"}


@cache
def registry() -> Registry:
    resources = [(p.name, Resource.from_contents(json.loads(p.read_text()), default_specification=DRAFT202012))
                 for p in sorted(SCHEMAS.glob("*.json"))]
    return Registry().with_resources(resources)


def schema(name: str) -> dict[str, Any]:
    return registry().contents(name)  # type: ignore[no-any-return]


def validator(name: str, pointer: str = "") -> Draft202012Validator:
    root = {"$ref": f"{name}#{pointer}"}
    return Draft202012Validator(root, registry=registry())


def errors(name: str, instance: Any) -> list[str]:
    found = sorted(validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in found]


def check(name: str, instance: Any, what: str = "") -> None:
    """Fail, naming each place, when ``instance`` does not follow schema ``name``."""
    wrong = errors(name, instance)
    assert not wrong, f"{what or name}: not as {name} says:\n" + "\n".join(f"  {e}" for e in wrong[:20]) + (
        f"\n  in {json.dumps(instance)[:2000]}")


# -- which fields the answers exercised -------------------------------------------------------


class Coverage:
    """What answers checked against one schema exercised (see the module doc)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: set[str] = set()
        self.declared = set(_walk(name, "", None, "$", (), branches=False))

    def add(self, instance: Any, what: str = "") -> Any:
        """Check ``instance`` against the schema and record what it exercised; returns it."""
        check(self.name, instance, what)
        self.seen |= set(_walk(self.name, "", instance, "$", (), branches=False, given=True))
        return instance

    def missing(self) -> list[str]:
        return sorted(self.declared - self.seen)

    def assert_complete(self) -> None:
        missing = self.missing()
        assert not missing, (f"{self.name}: no answer exercised {len(missing)} documented field(s) or case(s); "
                             f"add data that makes each appear: {missing}")


def _resolve(base: str, ref: str) -> tuple[str, str]:
    """(file, JSON pointer) of a ``$ref`` made in file ``base``."""
    file, _, pointer = ref.partition("#")
    return (file or base), pointer


def _at(file: str, pointer: str) -> Any:
    node: Any = schema(file)
    for part in [p for p in pointer.split("/") if p]:
        key = part.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def _valid(file: str, pointer: str, instance: Any) -> bool:
    return validator(file, pointer).is_valid(instance)


def _walk(file: str, pointer: str, instance: Any, path: str, stack: tuple[str, ...], *,
          branches: bool, given: bool = False) -> Iterator[str]:
    """The ids of the properties (``$.results[].file``) and flagged alternatives
    (``$.hits[].status|anyOf:1``) under one schema node: all of them (``given`` False), or
    those ``instance`` exercises."""
    node = _at(file, pointer)
    if not isinstance(node, dict):
        return
    if "x-covered-elsewhere" in node:  # a document with a schema and coverage of its own
        return
    branches = branches or bool(node.get("x-cover-branches"))
    if "$ref" in node:
        target_file, target_pointer = _resolve(file, node["$ref"])
        key = f"{target_file}#{target_pointer}"
        if key not in stack and target_file not in NOT_WALKED:
            yield from _walk(target_file, target_pointer, instance, path, (*stack, key), branches=branches, given=given)
    for keyword in ("anyOf", "oneOf"):  # alternatives are asked for (each, and what is inside) only when flagged
        for i, _ in enumerate(node.get(keyword, ()) if branches else ()):
            if given and not _valid(file, f"{pointer}/{keyword}/{i}", instance):
                continue
            yield f"{path}|{keyword}:{i}"
            yield from _walk(file, f"{pointer}/{keyword}/{i}", instance, path, stack, branches=False, given=given)
    for i, _ in enumerate(node.get("allOf", ())):
        yield from _walk(file, f"{pointer}/allOf/{i}", instance, path, stack, branches=branches, given=given)
    if not given or isinstance(instance, dict):
        properties = node.get("properties", {})
        for name, sub in properties.items():
            if isinstance(sub, dict) and "x-not-promised" in sub:
                continue
            if given and (name not in instance or instance[name] is None or instance[name] == []):
                continue
            yield f"{path}.{name}"
            yield from _walk(file, f"{pointer}/properties/{_escape(name)}", instance[name] if given else None,
                             f"{path}.{name}", stack, branches=False, given=given)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            keys = [k for k in instance if k not in properties] if given else [None]
            for k in keys:
                if given and instance[k] is None:
                    continue
                yield from _walk(file, f"{pointer}/additionalProperties", instance[k] if given else None, f"{path}.*",
                                 stack, branches=False, given=given)
    if "items" in node and isinstance(node["items"], dict) and (not given or isinstance(instance, list)):
        for item in (instance if given else [None]):
            yield from _walk(file, f"{pointer}/items", item, f"{path}[]", stack, branches=False, given=given)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


# -- data that makes every documented field appear ------------------------------------------------

EX = "https://example.org/lia/"
ACME = "https://example.org/acme/"
ACME_GRAPH = "https://example.org/tenants/acme"

#: A claim on two alternative logs (one withdrawn below: a failing group) valid until 2027, an
#: echo of the first log (it falls with it), and a guess resting on an undescribed IRI (an open end).
UPTIME = f"""PREFIX mem: <https://w3id.org/memkg#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX acme: <{ACME}>
acme:s1 a mem:Message ; mem:content "the first uptime log" .
acme:s2 a mem:Message ; mem:content "the second uptime log" .
acme:s1copy a mem:Message ; mem:content "the first uptime log, forwarded" ; mem:echoOf acme:s1 .
acme:hasUptime a rdf:Property .
acme:cUptime a mem:Claim ; rdf:reifies <<( acme:postgres acme:hasUptime "99.9" )>> ;
    mem:validUntil "2027-01-01T00:00:00Z"^^xsd:dateTime ;
    mem:supportGroup acme:gFirst, acme:gSecond .
acme:gFirst a mem:SupportGroup ; mem:member acme:s1 .
acme:gSecond a mem:SupportGroup ; mem:member acme:s2 .
acme:cGuess a mem:Claim ; rdf:reifies <<( acme:postgres acme:hasUptime "99" )>> ; mem:supportedBy <urn:x:nowhere> .
"""


def varied_store(path: Path) -> Path:
    """A store on disk (closed again) holding both examples, then a retracted claim, a withdrawn
    message, a sentence said twice, a claim on two groups one of which lost its source, an echo,
    an open end, a withdrawn claim and a fallen one: every status and optional field of the outputs shows
    somewhere in it."""
    from pyoxigraph import NamedNode

    from memkg import MemoryStore, Message
    from memkg.provenance import withdraw

    from .examples import EXAMPLES, LIA, LIA_GRAPH

    with MemoryStore(path) as memory:
        memory.load(LIA, EXAMPLES / "postgres-migration.trig")
        memory.retract(NamedNode(EX + "c2"), reason="Lia corrected it", graph=LIA_GRAPH)
        for i in range(2):  # one sentence, said twice: one hit, the other its duplicate
            memory.add(Message(content="I drink chamomile tea every evening", event_id=f"again-{i}"), graph=LIA_GRAPH)
        okapi = memory.add(Message(content="The okapi sanctuary opens on Sunday", event_id="okapi"), graph=LIA_GRAPH)
        withdraw(memory, okapi, reason="sent by mistake", graph=LIA_GRAPH)
        memory.load_data(UPTIME, format="turtle", graph=ACME_GRAPH)
        withdraw(memory, ACME + "s2", reason="the second log was misread", graph=ACME_GRAPH)
        withdraw(memory, ACME + "cAnswerThroughput", reason="answered from stale figures", graph=ACME_GRAPH)
        # cCutover's two legs both echo the runbook: it falls, and stays known
        withdraw(memory, ACME + "runbook", reason="the runbook was superseded by a new plan", graph=ACME_GRAPH)
    return path
