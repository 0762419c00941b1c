"""The SPARQL that reads edge properties, and the small helpers that order and time its answers."""

from __future__ import annotations

from datetime import datetime, timezone

from pyoxigraph import NamedNode

from ..core.terms import datetime_literal
from .properties import Version

# -- SPARQL ------------------------------------------------------------------------------

#: Every declared property of every current version, with its id computed in
#: SPARQL exactly as :func:`declared_id` does (``?g``: the graph).
DECLARED_QUERY = """
PREFIX mem: <https://w3id.org/memkg#>
SELECT ?g ?record ?schema ?label ?value ?id WHERE {
  GRAPH ?g {
    ?v mem:versionOf ?record ; mem:hasEdgeProperty ?p .
    FILTER NOT EXISTS { ?newer mem:revises ?v }
    ?p mem:edgeLabel ?label ; mem:edgeValue ?value .
    OPTIONAL { ?v mem:lane ?lane0 }
    OPTIONAL { ?v mem:sourceType ?source }
  }
  BIND(COALESCE(?lane0, "default") AS ?lane)
  BIND(COALESCE(CONCAT(?lane, "/", ?source), ?lane) AS ?schema)
  BIND(CONCAT("ep_", SUBSTR(SHA256(CONCAT(STR(?record), "\\u001F", ?schema, "\\u001F", ?label, "\\u001F", ?value)), 1, 32)) AS ?id)
}
ORDER BY ?g ?record ?label ?value
"""


#: Property sizes are first counted up to this many versions (see ``Tags._smallest_first``) …
PROBE_CAP = 1_000
#: … and never beyond this.
PROBE_MAX = 1_000_000


def iri_order(node: NamedNode) -> str:
    return node.value


def live_pattern(known_at: datetime | None) -> str:
    """SPARQL: the version ``?v`` is the current one (``known_at`` None) or was at transaction time ``known_at``."""
    if known_at is None:
        return "FILTER NOT EXISTS { ?newer mem:revises ?v }"
    t = datetime_literal(known_at)
    return (f"?v mem:recordedAt ?vt . FILTER(?vt <= {t}) "
            f"FILTER NOT EXISTS {{ ?newer mem:revises ?v ; mem:recordedAt ?nt . FILTER(?nt <= {t}) }}")


def version_order(v: "Version") -> tuple[bool, datetime, str]:
    # A version without a recordedAt (hand-written data) sorts first, as "recorded since ever".
    return (v.recorded_at is not None, v.recorded_at or SINCE_EVER, v.iri.value)


SINCE_EVER = datetime(1, 1, 1, tzinfo=timezone.utc)


def checked_known_at(t: datetime | None) -> datetime | None:
    if t is not None and t.tzinfo is None:
        raise ValueError(f"known_at {t.isoformat()} has no timezone; memkg times must carry one")
    return t


# -- the API ---------------------------------------------------------------------------
