"""The agent tools as plain Python: one library call each, confined to the caller's tenant.

:class:`MemoryTools` is what ``memkg mcp`` serves, without the protocol: every
method takes the caller's :class:`~memkg.guard.access.Grant` first, resolves the one
tenant it acts on (:func:`tenant_for`), makes exactly one validated, atomic write
or one read through the library, and returns JSON (the library results'
``to_dict()``, :mod:`memkg.core.json_terms`) whose IRIs the agent can cite back.

A call the memory refuses raises :class:`ToolRefusal`, whose text says which
rule was broken, on which node, and what to do instead; nothing was written.

>>> from memkg import MemoryStore
>>> from memkg.guard.access import OPEN
>>> tools = MemoryTools(MemoryStore())
>>> first = tools.remember_message(OPEN, content="I prefer tea", event_id="chat-1")
>>> again = tools.remember_message(OPEN, content="I prefer tea", event_id="chat-1")
>>> again["message"] == first["message"], again["duplicate"]
(True, True)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import partial
from datetime import datetime
from decimal import Decimal
from typing import Any
from typing import Literal as KindName

from pyoxigraph import DefaultGraph, NamedNode

from ... import provenance
from ...core.errors import MemkgError, NotFoundError, UnreadableName, ValidationError
from ...core.json_terms import rows_json
from ...core.model import Claim, Message, Predicate, Vertex, revision, term
from ...core.names import read_iri
from ...core.terms import ID_BASE, new_id
from ...core.vocab import ONTOLOGY_GRAPH, RDF_REIFIES, mem
from ...guard.access import Forbidden, Grant, Unauthorized, view_options
from ...history import timeline
from ...recall import answer as recall_answer
from ...store import MemoryStore, scope, views
from .limits import DEFAULT_LIMITS, ToolLimits

__all__ = ["ENTITY_KINDS", "MemoryTools", "ToolRefusal", "claim_for_event", "refusal", "tenant_for"]

#: The kinds of thing remember_entity declares, and the class each becomes.
ENTITY_KINDS = {"Person": mem.Person, "Agent": mem.Agent, "Entity": mem.Entity, "Context": mem.Context}
EntityKind = KindName["Person", "Agent", "Entity", "Context", "Predicate"]


class ToolRefusal(MemkgError):
    """A call the memory refused, in words a model can act on; nothing was written."""


# -- who and where -----------------------------------------------------------------------


def tenant_for(grant: Grant, requested: str | None, *, store: MemoryStore | None = None) -> NamedNode | None:
    """The one tenant graph a call acts on; None (unrestricted only) means the whole store
    for reads and the shared default graph for writes. ``requested`` is read as every IRI
    argument is (``store``'s prefixes, else memkg's).

    A restricted caller acts on one of its own tenants, whatever the arguments say:
    the one it names, or its only one.

    >>> from memkg.guard.access import Grant
    >>> lia = Grant(frozenset({NamedNode("urn:t:lia")}), write=True)
    >>> tenant_for(lia, None)
    <NamedNode value=urn:t:lia>
    >>> tenant_for(lia, "urn:t:bob")
    Traceback (most recent call last):
    ...
    memkg.adapters.agent_tools.tools.ToolRefusal: tenant urn:t:bob is not yours: this connection may use urn:t:lia
    """
    if requested is not None:
        graph = _iri(requested, "tenant", store, grant.readable_graphs())
        if graph == ONTOLOGY_GRAPH:
            raise ToolRefusal(f"{requested} is memkg's shared vocabulary, not a tenant")
    else:
        graph = None
    if not grant.restricted:
        return graph
    mine = sorted(grant.tenants or (), key=str)
    names = ", ".join(t.value for t in mine) or "none"
    if graph is None:
        if len(mine) == 1:
            return mine[0]
        raise ToolRefusal(f"this connection may use several tenants ({names}): name one with the tenant argument")
    if graph not in mine:
        raise ToolRefusal(f"tenant {graph.value} is not yours: this connection may use {names}")
    return graph


def _iri(value: str, what: str, store: MemoryStore | None = None,
         graphs: list[NamedNode | DefaultGraph] | None = None) -> NamedNode:
    """An IRI argument in any form memkg reads (:mod:`memkg.core.names`): ``prefix:name`` with
    the store's prefixes, ``<iri>``, a bare ``https://…`` or ``urn:…``, ``‹iri›``; ``graphs``,
    the caller's readable ones, are all that reading it looks at."""
    try:
        return store.read_iri(value, what=what, graphs=graphs) if store is not None else read_iri(value, what=what)
    except UnreadableName as err:
        raise ToolRefusal(str(err)) from None


def _tenant_text(tenant: NamedNode | None) -> str | None:
    return None if tenant is None else tenant.value


def _stamp(t: datetime | None, what: str) -> str | None:
    if t is None:
        return None
    if t.tzinfo is None:
        raise ToolRefusal(f"{what} {t.isoformat()} has no time zone: write it as 2026-01-01T09:00:00Z")
    return t.isoformat().replace("+00:00", "Z")


# -- refusals ------------------------------------------------------------------------------

#: What to do about a broken invariant, by shape (the local name of its IRI).
_HINTS = {
    "TypedVertexShape": "declare the node first with remember_entity (kind Person, Agent, Entity or Context)",
    "ClaimPropositionShape": "declare the predicate first with remember_entity (kind Predicate)",
    "ClaimProvenanceShape": "say where the claim comes from: asserted_by (a message IRI) or supported_by",
    "TenantIsolationShape": "link only to nodes of your own tenant",
    "RoleTypesShape": "use a node of the right kind for that role (a person or agent as sender or recipient)",
    "UnitIntervalShape": "give a number between 0 and 1",
    "TimeShape": "give times with a time zone, valid_from before valid_until",
    "AcyclicShape": "a claim cannot replace itself or one of its own successors",
    "UniqueEventIdShape": "reuse the message already stored under that event id",
    "ClosedVocabularyShape": "use the mem: term the message names, or an IRI of your own namespace",
    "VersionChainShape": "correct the claim's current version (explain_claim's history names it), "
                         "or record a disagreement between two claims as a contradiction",
}


def refusal(err: BaseException) -> ToolRefusal:
    """A library error as a refusal a model can act on (the rule, the node, what to do)."""
    if isinstance(err, ToolRefusal):
        return err
    if isinstance(err, ValidationError):
        lines = ["refused, nothing was written: the write breaks the memory's rules"]
        for v in err.violations[:10]:
            shape = str(v.shape).rsplit("#", 1)[-1].rstrip(">")
            hint = _HINTS.get(shape)
            lines.append(f"- rule {shape} on node {str(v.focus).strip('<>')}: {v.message}" + (f" (fix: {hint})" if hint else ""))
        if len(err.violations) > 10:
            lines.append(f"- … and {len(err.violations) - 10} more")
        return ToolRefusal("\n".join(lines))
    if isinstance(err, NotFoundError):
        return ToolRefusal(f"not found in your memory: {err}")
    if isinstance(err, (Forbidden, Unauthorized)):
        return ToolRefusal(f"not allowed: {err}")
    if isinstance(err, PermissionError):
        return ToolRefusal(f"not allowed: {err}")
    if isinstance(err, (ValueError, TypeError)):
        return ToolRefusal(f"invalid argument: {err}")
    raise err


# -- the tools -----------------------------------------------------------------------------


class MemoryTools:
    """The agent tools over one store (see the module doc)."""

    def __init__(self, store: MemoryStore, *, limits: ToolLimits = DEFAULT_LIMITS) -> None:
        self.store = store
        self.limits = limits

    def _iri(self, grant: Grant, value: str, what: str) -> NamedNode:
        return _iri(value, what, self.store, grant.readable_graphs())

    def _iris(self, grant: Grant, values: list[str] | None, what: str) -> list[str | NamedNode]:  # Claim fields take either
        return [self._iri(grant, v, what) for v in values or ()]

    def _writing(self, grant: Grant, tenant: str | None) -> NamedNode | None:
        if not grant.write:
            raise ToolRefusal("not allowed: this connection is read-only; it may recall and explain, not change the memory")
        return tenant_for(grant, tenant, store=self.store)

    # -- remembering -------------------------------------------------------------------

    def remember_message(
        self,
        grant: Grant,
        *,
        content: str,
        sender: str | None = None,
        recipients: list[str] | None = None,
        event_id: str | None = None,
        episode: str | None = None,
        event_time: datetime | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """Keep a message verbatim. A retry under the same ``event_id`` writes nothing and
        returns the message already stored (``duplicate``: true)."""
        graph = self._writing(grant, tenant)
        _stamp(event_time, "event_time")
        minted = new_id("message")
        message = Message(
            id=minted, content=content, event_id=event_id or None, event_time=event_time,
            sender=self._iri(grant, sender, "sender") if sender is not None else None,
            recipients=self._iris(grant, recipients, "recipient"),
            episode=self._iri(grant, episode, "episode") if episode is not None else None,
        )
        node = self.store.add(message, graph=graph)
        return {"message": node.value, "duplicate": node != minted, "eventId": event_id, "tenant": _tenant_text(graph)}

    def remember_entity(
        self,
        grant: Grant,
        *,
        id: str,
        kind: EntityKind,
        name: str | None = None,
        functional: bool = False,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """Declare who or what a node is (Person, Agent, Entity, Context) or declare a predicate."""
        graph = self._writing(grant, tenant)
        node = self._iri(grant, id, "id")
        if kind == "Predicate":
            item: Any = Predicate(id=node, label=name, functional=functional)
        elif kind in ENTITY_KINDS:
            item = Vertex(id=node, cls=ENTITY_KINDS[kind], display_name=name)
        else:
            raise ToolRefusal(f"kind {kind!r} is none of {', '.join([*ENTITY_KINDS, 'Predicate'])}")
        self.store.add(item, graph=graph)
        return {"node": node.value, "kind": kind, "tenant": _tenant_text(graph)}

    def remember_claim(
        self,
        grant: Grant,
        *,
        subject: str,
        predicate: str,
        object_iri: str | None = None,
        object_value: str | float | bool | None = None,
        confidence: float | None = None,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        asserted_by: str | None = None,
        supported_by: list[str] | None = None,
        context: list[str] | None = None,
        event_id: str | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """Record a proposition (subject, predicate, object) attributed to its source.

        With ``event_id`` (a key the caller chooses for this claim) a retry writes nothing
        and returns the claim already stored (``duplicate``: true): the claim's IRI is
        derived from the tenant and the key, and looked up and written under the store's
        write lock, so concurrent retries store it once. The same key for another
        proposition is refused."""
        graph = self._writing(grant, tenant)
        fields = _claim_fields(partial(self._iri, grant), object_iri, object_value, confidence, valid_from, valid_until, asserted_by)
        if "object" not in fields:
            raise ToolRefusal(_ONE_OBJECT)
        claim = Claim(subject=self._iri(grant, subject, "subject"), predicate=self._iri(grant, predicate, "predicate"),
                      supported_by=self._iris(grant, supported_by, "supported_by"), context=self._iris(grant, context, "context"), **fields)
        answer = {"eventId": event_id, "tenant": _tenant_text(graph)}
        if not event_id:
            return {"claim": self.store.add(claim, graph=graph).value, "duplicate": False, **answer}
        claim.id = claim_for_event(graph, event_id)
        where = graph if graph is not None else DefaultGraph()
        with self.store.lock():  # look up, then write, as one step: concurrent retries meet here
            if next(self.store.quads(claim.id, RDF_REIFIES, None, where), None) is None:
                return {"claim": self.store.add(claim, graph=graph).value, "duplicate": False, **answer}
            stored, _ = self.store.get_claim(claim.id, graph=where)
        if stored.triple() != claim.triple():
            raise ToolRefusal(
                f"event_id {event_id!r} already recorded claim {claim.id.value} about another proposition "
                f"({_said(stored.triple())}): use a new event_id for a new claim, or correct_claim to change it")
        return {"claim": claim.id.value, "duplicate": True, **answer}

    def correct(
        self,
        grant: Grant,
        *,
        claim: str,
        object_iri: str | None = None,
        object_value: str | float | bool | None = None,
        confidence: float | None = None,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        asserted_by: str | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """Record a new version of ``claim`` that supersedes it: what it states is carried over
        with the changes given; its source is the one given, never the old version's (without
        one, the change is recorded as a correction made through the agent tools). Changing
        nothing writes nothing (``written`` false)."""
        graph = self._writing(grant, tenant)
        old_node = self._iri(grant, claim, "claim")
        changes = _claim_fields(partial(self._iri, grant), object_iri, object_value, confidence, valid_from, valid_until, asserted_by)
        with self.store.lock():  # read the old version and write the new one in one step
            old, where = self.store.get_claim(old_node, graph=graph)
            recorded = self.store.supersede(old_node, revision(old, **changes), graph=where, interface="mcp")
        return {**recorded.to_dict(), "tenant": _tenant_text(graph)}

    # -- forgetting ----------------------------------------------------------------------

    def forget(
        self,
        grant: Grant,
        *,
        target: str,
        erase: bool = False,
        reason: str | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """Withdraw a claim or source (kept for the record, no longer believed), or, with
        ``erase``, remove it and what was derived only from it (consent revoked; needs a reason)."""
        graph = self._writing(grant, tenant)
        node = self._iri(grant, target, "target")
        if erase:
            if not reason:
                raise ToolRefusal("an erasure needs a reason (why the content must go, e.g. 'consent revoked')")
            return {"erased": True, **provenance.erase(self.store, node, reason=reason, graph=graph).to_dict()}
        return {"erased": False, **provenance.withdraw(self.store, node, reason=reason, graph=graph).to_dict()}

    # -- reading -------------------------------------------------------------------------

    def recall(
        self,
        grant: Grant,
        *,
        query: str,
        k: int = 10,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        packet: bool = True,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """Ask the memory in words: ranked hits and (``packet``) the evidence around them."""
        graph = tenant_for(grant, tenant, store=self.store)
        _stamp(valid_at, "valid_at")
        _stamp(known_at, "known_at")

        found = recall_answer(self.store, query, tenant=graph, k=k, valid_at=valid_at, known_at=known_at,
                              packet=packet, max_vertices=self.limits.max_packet_vertices)
        return {**found.to_dict(), "tenant": _tenant_text(graph)}

    def explain(self, grant: Grant, *, claim: str, tenant: str | None = None) -> dict[str, Any]:
        """A claim's versions, lineage and support, and whether it still stands and holds now."""
        graph = tenant_for(grant, tenant, store=self.store)
        node = self._iri(grant, claim, "claim")
        with self.store.lock():  # one consistent reading: no write lands between its parts
            found, where = self.store.get_claim(node, graph=graph)
            scope = graph if graph is not None else (where if isinstance(where, NamedNode) else None)
            versions = timeline.history(self.store, node, tenant=_tenant_text(scope))
            sup = provenance.support(self.store, node, tenant=scope)
            lin = provenance.lineage(self.store, node, tenant=scope)
            subject = found.triple().subject
            about = {"subject": subject.value} if isinstance(subject, NamedNode) else {}
            current = [row["claim"] for row in self._view(grant, "current", about, scope)]
        newer = [v.claim.value for v in versions if v.claim != node and v.claim in current]
        return {
            "claim": node.value,
            "tenant": _tenant_text(scope),
            "stands": sup.stands,
            "status": sup.status,
            "current": node in current,
            "currentVersions": newer,
            "history": [v.to_dict() for v in versions],
            "support": sup.to_dict(),
            "lineage": lin.to_dict(),
        }

    def claims(
        self,
        grant: Grant,
        view: KindName["current", "historical", "audit"],
        *,
        subject: str | None = None,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        standing: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """The ``current``, ``historical`` (valid at ``valid_at``) or ``audit`` (known at
        ``known_at``, valid at ``valid_at``) claims, about ``subject`` if given, of ``standing``
        (``supported``, ``fallen``, ``unrecorded``) if given."""
        graph = tenant_for(grant, tenant, store=self.store)
        params: dict[str, str] = {}
        if subject is not None:
            params["subject"] = self._iri(grant, subject, "subject").value
        for name, value in (("valid_at", valid_at), ("known_at", known_at)):
            stamp = _stamp(value, name)
            if stamp is not None:
                params[name] = stamp
        if standing is not None:
            params["standing"] = standing
        rows, truncated = rows_json(self._view(grant, view, params, graph), limit=min(limit, self.limits.max_rows))
        for row in rows:  # a word of the contract's (supported, fallen, unrecorded), not an RDF literal
            row["standing"] = row["standing"]["value"]
        return {"view": view, "tenant": _tenant_text(graph), "claims": rows, "truncated": truncated}

    def _view(self, grant: Grant, name: str, params: dict[str, str], tenant: NamedNode | None) -> Any:
        # The dataset comes from memkg.guard.access, the one place that decides what a grant sees.
        bound = views.bind(views.get_view(name), params)
        scope.require_all(self.store.raw, bound.iris, tenant=tenant, readable=grant.tenants)
        return self.store.query(bound.text, **view_options(grant, tenant))


def claim_for_event(tenant: NamedNode | None, event_id: str) -> NamedNode:
    """The IRI of the claim recorded under ``event_id`` in ``tenant``: the same on every retry.

    >>> claim_for_event(NamedNode("urn:t:lia"), "c-1") == claim_for_event(NamedNode("urn:t:lia"), "c-1")
    True
    >>> claim_for_event(NamedNode("urn:t:lia"), "c-1") == claim_for_event(NamedNode("urn:t:bob"), "c-1")
    False
    """
    key = uuid.uuid5(_CLAIM_EVENTS, f"{tenant.value if tenant is not None else ''}\n{event_id}")
    return NamedNode(f"{ID_BASE}claim:event-{key.hex}")


_CLAIM_EVENTS = uuid.UUID("6f1c1a52-8d1e-4c1b-9a57-3d0f8f0b7c21")  # the namespace of claim_for_event's keys


def _said(triple: Any) -> str:
    return " ".join(getattr(t, "value", str(t)) for t in (triple.subject, triple.predicate, triple.object))


_ONE_OBJECT = "give the claim's object once: object_iri for a node, or object_value for a text, number or boolean"


def _claim_fields(
    read: Callable[[str, str], NamedNode],
    object_iri: str | None,
    object_value: str | float | bool | None,
    confidence: float | None,
    valid_from: datetime | None,
    valid_until: datetime | None,
    asserted_by: str | None,
) -> dict[str, Any]:
    """The :class:`~memkg.core.model.Claim` fields given (None: not given), checked and converted."""
    fields: dict[str, Any] = {}
    if object_iri is not None and object_value is not None:
        raise ToolRefusal(_ONE_OBJECT)
    if object_iri is not None:
        fields["object"] = read(object_iri, "object_iri")
    elif object_value is not None:
        fields["object"] = _value(object_value)
    if confidence is not None:
        fields["confidence"] = Decimal(repr(float(confidence)))
    for name, t in (("valid_from", valid_from), ("valid_until", valid_until)):
        if t is not None:
            _stamp(t, name)
            fields[name] = t
    if asserted_by is not None:
        fields["asserted_by"] = read(asserted_by, "asserted_by")
    return fields


def _value(value: str | float | bool) -> Any:
    """A literal object: a whole float as an integer-valued decimal (JSON has one number type)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return term(Decimal(str(value)))
    return term(value)
