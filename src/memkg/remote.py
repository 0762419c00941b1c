"""Remote stores, now :mod:`memkg.backends.sparql` under one :class:`~memkg.store.MemoryStore`;
this name stays for one release.

``RemoteStore(endpoint, …)`` is ``MemoryStore.connect(endpoint, …)``: a store whose backend is a
SPARQL server. Importing this module warns (DeprecationWarning).
"""

from __future__ import annotations

import warnings
from typing import Any

from .backends.sparql import (
    DIALECTS,
    REGISTRY_GRAPH,
    SHARED_GRAPH,
    RemoteError,
    RemoteUnsupported,
    ServerStore,
    SparqlBackend,
    SparqlClient,
    detect_dialect,
    is_memkg_server,
    recall_url,
    token_from_env,
    wait_until_up,
)
from .store import MemoryStore

warnings.warn("memkg.remote is deprecated: use MemoryStore.connect(endpoint, …) and memkg.backends.sparql",
              DeprecationWarning, stacklevel=2)

#: The old name of :class:`~memkg.backends.sparql.ServerStore`.
RemoteBackend = ServerStore


def RemoteStore(endpoint: str, **options: Any) -> MemoryStore:  # noqa: N802  (the old class name)
    """``MemoryStore.connect(endpoint, **options)`` (deprecated name)."""
    return MemoryStore.connect(endpoint, **options)


__all__ = [
    "DIALECTS", "REGISTRY_GRAPH", "SHARED_GRAPH", "RemoteBackend", "RemoteError", "RemoteStore", "RemoteUnsupported",
    "ServerStore", "SparqlBackend", "SparqlClient", "detect_dialect", "is_memkg_server", "recall_url",
    "token_from_env", "wait_until_up",
]
