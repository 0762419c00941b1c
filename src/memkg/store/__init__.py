"""The store: an agent's memory in Oxigraph, written atomically, over one backend.

The store knows its backends (:mod:`memkg.store.backends`), the claim index, the clock,
the view templates, the one commit path every write takes (:mod:`memkg.store.commit`) and
the small plug-in protocol (:mod:`memkg.store.plugins`) through which the features above it
(validation, the recall index, the support index, the first load) are plugged in. It
never imports those features.
"""

from typing import TYPE_CHECKING

from ..core.lazy import attributes_from

if TYPE_CHECKING:  # imported when used: opening a store needs neither the loader nor the server client
    from .clock import Clock
    from .formats import FORMAT_NAMES, as_graph, rdf_format
    from .loads import BULK_THRESHOLD, STREAM_THRESHOLD_BYTES, gc_paused
    from .backends.embedded import DEFAULT_STORE_PATH
    from .memory import MemoryStore
    from .plugins import plug_in
    from .report import LoadReport
    from .stats import StoreStats

__all__ = [
    "BULK_THRESHOLD",
    "DEFAULT_STORE_PATH",
    "FORMAT_NAMES",
    "STREAM_THRESHOLD_BYTES",
    "Clock",
    "LoadReport",
    "MemoryStore",
    "StoreStats",
    "as_graph",
    "gc_paused",
    "plug_in",
    "rdf_format",
]

__getattr__, __dir__ = attributes_from(__name__, {
    "Clock": ".clock",
    "FORMAT_NAMES": ".formats",
    "as_graph": ".formats",
    "rdf_format": ".formats",
    "BULK_THRESHOLD": ".loads",
    "STREAM_THRESHOLD_BYTES": ".loads",
    "gc_paused": ".loads",
    "DEFAULT_STORE_PATH": ".backends.embedded",
    "MemoryStore": ".memory",
    "plug_in": ".plugins",
    "LoadReport": ".report",
    "StoreStats": ".stats",
})
