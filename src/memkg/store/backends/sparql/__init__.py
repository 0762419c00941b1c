"""The SPARQL backend: the memory in a running SPARQL 1.1 (or 1.2) server instead of an embedded store.

:class:`SparqlBackend` is a :class:`~memkg.store.backends.base.Backend` whose quads are on a
server reached over the SPARQL 1.1 Protocol (queries by GET/POST, updates by POST).
A :class:`~memkg.store.MemoryStore` over it (``MemoryStore.connect(endpoint)``) runs every
command and view; what memkg does with the quads is the same code as on the embedded store:

* writes are completed with their index triples (:mod:`memkg.store.claim_index`) and validated
  *client side* by the same :class:`~memkg.validation.WriteValidator`, which reads the
  context it needs from the server with a few queries; a refused write sends nothing. An
  accepted write is sent as ONE update request, which a SPARQL server applies atomically;
* results come back as pyoxigraph objects (``QuerySolutions``, ``QueryBoolean``,
  ``QueryTriples``), so callers format them unchanged.

Layout on the server. The SPARQL 1.1 Protocol cannot name the default graph in
``default-graph-uri``, and Virtuoso has no separate default graph at all, so a
remote store keeps every memkg graph as a named graph:

* memkg's shared default graph is the named graph ``<urn:memkg:default-graph>``;
* each tenant graph and the ontology graph keep their IRIs;
* the graphs memkg wrote are listed in ``<https://w3id.org/memkg/index#graphs>``
  (``GRAPH-IRI a memx:Graph``), written in the same update as the data, so memkg
  never mistakes a server's own graphs (Virtuoso's system graphs) for memory.

A ``memkg serve`` (told by its ``Server: memkg`` header) is the exception: it
serves a store laid out as the embedded one, so there the shared graph is the
server's default graph and every named graph is memory. Views are run by the
server itself (``/views/NAME``, the embedded code), and a query over a dataset the
protocol cannot name (the union of every graph, ``--union``) is evaluated here
over a copy, so every command answers as on the embedded store.

Every query is sent with its dataset spelled out in protocol parameters: a plain
query sees the shared graph as its default graph and the memkg graphs as named
graphs, exactly as on an embedded store; a view for one tenant sees that tenant,
the shared graph and the ontology; ``--union`` sees all of them. A query that
names its own dataset (``FROM``) is sent as written.

Dialects: ``rdf12`` servers (Oxigraph) store triple terms natively; ``rdf11``
servers (Virtuoso 7) store the documented encoding of :mod:`memkg.store.backends.rdf11`, with
queries rewritten to SPARQL 1.1 and results decoded back to triple terms. On
``rdf11`` servers a *view* is evaluated by memkg over its neighbourhood read from
the server, a request per level of links (see :attr:`SparqlBackend.view_site`:
Virtuoso 7.2 answers most view templates wrongly); plain queries, and the views
whose template it answers rightly, still run on the server.
``auto`` asks the server an ``ASK`` with a triple term and picks ``rdf12`` if it
answers. Nothing is asked of the server before the first read or write:

>>> SparqlBackend("http://127.0.0.1:9/sparql", dialect="rdf12", read_only=True).endpoint
'http://127.0.0.1:9/sparql'
"""

from __future__ import annotations

from .backend import ServerOptions, SparqlBackend
from .client import (
    DIALECTS,
    REGISTRY_GRAPH,
    SHARED_GRAPH,
    RemoteError,
    RemoteUnsupported,
    SparqlClient,
    is_memkg_server,
    route_url,
    token_from_env,
    wait_until_up,
)
from .server_store import ServerStore, detect_dialect

__all__ = [
    "DIALECTS",
    "REGISTRY_GRAPH",
    "SHARED_GRAPH",
    "RemoteError",
    "RemoteUnsupported",
    "ServerStore",
    "ServerOptions",
    "SparqlBackend",
    "SparqlClient",
    "detect_dialect",
    "is_memkg_server",
    "route_url",
    "token_from_env",
    "wait_until_up",
]
