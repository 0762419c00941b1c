"""``/pictures``: the pictures of :mod:`memkg.adapters.pictures` over HTTP, for the query page and any client.

| path | does |
|---|---|
| ``GET /pictures`` | JSON: the picture kinds, the formats, and the store's prefixes (for compact IRIs) |
| ``GET /pictures/KIND?claim=IRI[&claim=…][&tenant=IRI][&format=svg|dot|json]`` | one picture |

KIND is ``history``, ``lineage``, ``support`` or ``packet`` (which takes several
``claim``). IRIs may be written in any form an IRI argument takes (``prefix:name`` with
the store's prefixes, ``<iri>``, a bare ``https://…``, ``‹iri›``). A token limited to
tenants must name one of them (or have exactly one); a picture reads that tenant's
graph and the shared ones only, as a view does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from ...guard.access import Grant
from ...store import MemoryStore, views
from .. import pictures
from . import rights
from .failures import BadRequest


def answer(store: MemoryStore, grant: Grant, kind: str, params: Mapping[str, Sequence[str]]) -> tuple[str, bytes]:
    """The content type and body answering ``GET /pictures/KIND`` (``kind`` "" for the index)."""
    prefixes = store.prefixes
    if not kind:
        visible = {p: ns for p, ns in prefixes.items()}
        body = {"kinds": list(pictures.KINDS), "formats": list(pictures.FORMATS), "prefixes": visible}
        return "application/json", json.dumps(body).encode()
    if kind not in pictures.KINDS:
        raise LookupError(f"no picture at /pictures/{kind}; there are {', '.join(pictures.KINDS)}")
    claims = [store.read_iri(c, what="claim", graphs=grant.readable_graphs()).value
              for c in params.get("claim", []) if c.strip()]
    if not claims or (kind != "packet" and len(claims) != 1):
        raise BadRequest(f"/pictures/{kind} needs {'one or more' if kind == 'packet' else 'exactly one'} claim=IRI")
    fmt = _one(params, "format") or "svg"
    if fmt not in pictures.FORMATS:
        raise BadRequest(f"format={fmt!r}: pictures come as {', '.join(pictures.FORMATS)}")
    tenant = _tenant(store, grant, _one(params, "tenant"))
    drawing = pictures.picture(store, kind, claims if kind == "packet" else claims[0], tenant=tenant,
                               prefixes=prefixes)
    return pictures.CONTENT_TYPES[fmt], pictures.render(drawing, fmt).encode("utf-8")


def _one(params: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = [v for v in params.get(name, []) if v.strip()]
    if len(values) > 1:
        raise BadRequest(f"the request has {len(values)} {name!r} parameters; give one")
    return values[0].strip() if values else None


def _tenant(store: MemoryStore, grant: Grant, given: str | None) -> str | None:
    """The tenant the picture reads: the one given (checked against the grant and the store), the
    grant's only tenant, or (an open server) every graph."""
    named = None if given is None else store.read_iri(given, what="tenant", graphs=grant.readable_graphs())
    tenant = rights.picture_tenant(grant, named)
    if given is not None and tenant is not None and not store.raw.contains_named_graph(tenant):
        views.require_graph(tenant, rights.seen(grant, store.named_graphs()))
    return None if tenant is None else tenant.value
