"""What to write in a file to satisfy each of memkg's shapes: the fix a refused load carries.

The agent tools word the same fixes as tool calls (``remember_entity``); these are worded as
triples, for someone editing a Turtle or TriG file.

>>> fix_for("https://w3id.org/memkg#ClaimProvenanceShape")
'give the claim mem:assertedBy <a message>, prov:wasGeneratedBy <an activity> or mem:supportedBy <a claim>'
>>> fix_for("https://example.org/MyShape") is None
True
"""

from __future__ import annotations

from ..core.vocab import MEM

FIXES: dict[str, str] = {
    "TypedVertexShape": "give the node an rdf:type (mem:Person, mem:Agent, mem:Entity or mem:Context) in the same file",
    "ClaimPropositionShape": "declare the claim's predicate: <predicate> a rdf:Property",
    "ClaimProvenanceShape": "give the claim mem:assertedBy <a message>, prov:wasGeneratedBy <an activity> or mem:supportedBy <a claim>",
    "TenantIsolationShape": "link only to nodes written in the same tenant's graph (or the shared ontology)",
    "RoleTypesShape": "use a node of the right type for that role (a mem:Person or mem:Agent as sender or recipient)",
    "UnitIntervalShape": "write a number between 0 and 1 (\"0.8\"^^xsd:decimal)",
    "TimeShape": "write times with a time zone (\"2026-01-01T00:00:00Z\"^^xsd:dateTime), valid from before valid until",
    "AcyclicShape": "a claim cannot supersede itself or one of its own successors",
    "UniqueEventIdShape": "give each message its own mem:eventId, or reuse the message stored under that id",
    "VersionChainShape": "let only the chain's current version be superseded (memkg history names it); "
                         "link two claims that disagree with mem:contradicts",
    "ClosedVocabularyShape": "write the mem: term the message names (ontology/memkg.ttl lists them), or use your own namespace",
}


def fix_for(shape: object) -> str | None:
    """The fix for a violation of ``shape`` (a node, or an IRI's text, ``<…>`` or not), if it is one of memkg's."""
    iri = str(shape).strip("<>")
    return FIXES.get(iri[len(MEM):]) if iri.startswith(MEM) else None


__all__ = ["FIXES", "fix_for"]
