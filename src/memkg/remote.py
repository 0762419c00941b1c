"""Remote stores, now :mod:`memkg.backends.sparql` under one :class:`~memkg.store.MemoryStore`;
this name stays for one release.

``RemoteStore(endpoint, …)`` is ``MemoryStore.connect(endpoint, …)``: a store whose backend is a
SPARQL server. Every name taken from this module warns (DeprecationWarning) and names its new home.
"""

from __future__ import annotations

import warnings
from typing import Any

from .backends import sparql

#: The names this module had, and where they are now.
_MOVED = {name: name for name in (
    "DIALECTS", "REGISTRY_GRAPH", "SHARED_GRAPH", "RemoteError", "RemoteUnsupported", "SparqlClient",
    "detect_dialect", "is_memkg_server", "recall_url", "token_from_env", "wait_until_up",
)} | {"RemoteBackend": "ServerStore"}


def __getattr__(name: str) -> Any:
    if name == "RemoteStore":
        warnings.warn("memkg.remote.RemoteStore is deprecated: use MemoryStore.connect(endpoint, …)",
                      DeprecationWarning, stacklevel=2)
        return _remote_store
    if name in _MOVED:
        warnings.warn(f"memkg.remote.{name} is deprecated: use memkg.backends.sparql.{_MOVED[name]}",
                      DeprecationWarning, stacklevel=2)
        return getattr(sparql, _MOVED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _remote_store(endpoint: str, **options: Any) -> Any:
    """``MemoryStore.connect(endpoint, **options)`` (the old ``RemoteStore``)."""
    from .store import MemoryStore

    return MemoryStore.connect(endpoint, **options)
