"""Data on which every parameter an adapter passes on changes the answer, and what compares answers.

Two tenants hold the same IRIs with different facts (A's Lia prefers ex:first, green tea, then
ex:second, espresso; B's Lia prefers ex:second, water, then ex:first, juice). Within a tenant, claims are valid and known at different times: a
preference recorded in January and superseded in March, a claim valid only in January, a claim
retracted in April, one held since ever. A dozen messages mention the drink, so ``k`` and limits matter. A parameter
that an adapter drops or mangles then gives another answer than the library call given it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

EX = "https://example.org/p/"
A = "https://example.org/tenants/a"
B = "https://example.org/tenants/b"
#: Times that fall between the records: before anything, in February (c1 known and valid, c2
#: not yet), and after everything.
JANUARY, FEBRUARY, MAY = "2025-01-20T00:00:00Z", "2025-02-15T00:00:00Z", "2025-05-01T00:00:00Z"

_TENANT = """
GRAPH <{graph}> {{
  ex:lia a mem:Person ; mem:displayName "Lia" .
  ex:aurora a mem:Agent ; mem:displayName "Aurora" .
  ex:first a mem:Entity ; mem:displayName "{first}" .
  ex:second a mem:Entity ; mem:displayName "{second}" .
  ex:night a mem:Context ; mem:displayName "night" .
  ex:prefers a rdf:Property ; rdfs:label "prefers" .
  ex:avoids a rdf:Property ; rdfs:label "avoids" .
  ex:talk a mem:Episode ; mem:eventTime "2025-01-05T10:00:00Z"^^xsd:dateTime .
  ex:m0 a mem:Message ; mem:content "I like {first} very much" ; mem:eventId "m0" ; prov:wasAttributedTo ex:lia ;
      prov:wasGeneratedBy ex:talk ; mem:eventTime "2025-01-05T10:00:00Z"^^xsd:dateTime ;
      mem:recordedAt "2025-01-05T10:00:01Z"^^xsd:dateTime .
  ex:m1 a mem:Message ; mem:content "Actually I now prefer {second}" ; mem:eventId "m1" ; prov:wasAttributedTo ex:lia ;
      mem:eventTime "2025-03-01T10:00:00Z"^^xsd:dateTime ; mem:recordedAt "2025-03-01T10:00:01Z"^^xsd:dateTime .
  ex:c1 a mem:Claim ; rdf:reifies <<( ex:lia ex:prefers ex:{was} )>> ; mem:confidence 0.9 ;
      mem:validFrom "2025-01-05T00:00:00Z"^^xsd:dateTime ; mem:recordedAt "2025-01-05T10:00:02Z"^^xsd:dateTime ;
      mem:assertedBy ex:m0 ; mem:supportedBy ex:m0 .
  ex:c2 a mem:Claim ; rdf:reifies <<( ex:lia ex:prefers ex:{now} )>> ; mem:supersedes ex:c1 ;
      mem:validFrom "2025-03-01T00:00:00Z"^^xsd:dateTime ; mem:recordedAt "{c2_recorded}"^^xsd:dateTime ;
      mem:assertedBy ex:m1 ; mem:supportedBy ex:{c2_support} .
  ex:c3 a mem:Claim ; rdf:reifies <<( ex:aurora ex:prefers ex:{was} )>> ; mem:context ex:night ;
      mem:validFrom "2025-01-01T00:00:00Z"^^xsd:dateTime ; mem:validUntil "2025-02-01T00:00:00Z"^^xsd:dateTime ;
      mem:recordedAt "2025-01-01T00:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m0 ; mem:supportedBy ex:m0 .
  ex:c4 a mem:Claim ; rdf:reifies <<( ex:aurora ex:prefers ex:{now} )>> ;
      mem:recordedAt "2025-02-01T00:00:00Z"^^xsd:dateTime ; mem:supportedBy {c4_support} .
  ex:r4 a mem:Retraction ; mem:retracts ex:c4 ; mem:recordedAt "2025-04-01T00:00:00Z"^^xsd:dateTime .
  ex:c5 a mem:Claim ; rdf:reifies <<( ex:aurora ex:prefers ex:{now} )>> ;{c5_valid}
      mem:recordedAt "2025-01-02T00:00:00Z"^^xsd:dateTime ; mem:assertedBy ex:m1 .
{mentions}
{extra}
}}
"""
_MENTION = ('  ex:n{i} a mem:Message ; mem:content "Lia mentioned {first} again{today}, note {i}" ; mem:eventId "n{i}" ;\n'
            '      mem:eventTime "2025-01-{day:02d}T12:00:00Z"^^xsd:dateTime ; mem:recordedAt "2025-01-{day:02d}T12:00:01Z"^^xsd:dateTime .')

PREFIXES = """PREFIX mem: <https://w3id.org/memkg#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX ex: <https://example.org/p/>
"""


def tenant_trig(graph: str, first: str, second: str, *, other: bool = False, extra: str = "") -> str:
    """One tenant's graph; ``other``: every preference the other way, and other times and sources."""
    today = " today at lunch" if other else ""
    mentions = "\n".join(_MENTION.format(i=i, day=6 + i, first=first, today=today) for i in range(12))
    return _TENANT.format(
        graph=graph, first=first, second=second, mentions=mentions, extra=extra,
        was="second" if other else "first", now="first" if other else "second",
        c2_recorded="2025-03-02T10:00:02Z" if other else "2025-03-01T10:00:02Z",
        c2_support="m0" if other else "m1", c4_support="ex:m1" if other else "ex:m0, ex:m1",
        c5_valid=' mem:validFrom "2025-02-01T00:00:00Z"^^xsd:dateTime ;' if other else "")


#: In B, every preference runs the other way (the same claims' IRIs say other things), Lia's
#: change was recorded a day later and rests on her first message, Aurora's lasting claim starts
#: in February and her retracted one rests on one message. In A,
#: Aurora's January claim contradicts her lasting one.
TRIG = (PREFIXES + tenant_trig(A, "green tea", "espresso coffee", extra="  ex:c3 mem:contradicts ex:c5 .")
        + tenant_trig(B, "orange juice", "sparkling water", other=True))


def two_tenants(path: Path | None = None) -> Any:
    """A store (on disk at ``path``, closed again and its path returned; else in memory, open)
    holding both tenants."""
    from memkg import MemoryStore

    store = MemoryStore(path) if path is not None else MemoryStore()
    store.load_data(TRIG, format="trig")
    if path is None:
        return store
    store.close()
    return path


# -- comparing answers ---------------------------------------------------------------------------

#: The identifiers memkg mints and the times it stamps: they differ between two runs of one write.
_MINTED = re.compile(r"urn:memkg:([a-z-]+):[0-9a-f]{16,}")
RECORDED_AT = "https://w3id.org/memkg#recordedAt"


def written(store: Any, graphs: Iterable[Any] | None = None) -> list[str]:
    """The data quads of ``store`` (no ontology graph, no index), minted IRIs and ``recordedAt``
    stamps blanked, sorted: two stores that took the same writes compare equal."""
    from memkg.core.vocab import MEMX, ONTOLOGY_GRAPH

    out = []
    for q in store.quads():
        if q.graph_name == ONTOLOGY_GRAPH or q.predicate.value.startswith(MEMX):
            continue
        obj = "*" if q.predicate.value == RECORDED_AT else str(q.object)
        out.append(_MINTED.sub(r"urn:memkg:\1:*", f"{q.subject} {q.predicate} {obj} {q.graph_name}"))
    return sorted(out)


def blank_minted(data: Any) -> Any:
    """A JSON answer with minted IRIs blanked (see :func:`written`)."""
    import json

    return json.loads(_MINTED.sub(r"urn:memkg:\1:*", json.dumps(data)))
