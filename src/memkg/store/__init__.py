"""The store: an agent's memory in Oxigraph, written atomically, over one backend.

The store knows its backends (:mod:`memkg.store.backends`), the claim index, the clock,
the view templates and the small write protocol through which the features above it
(validation, the recall index, the support index, the first load) are plugged in. It
never imports those features.
"""

from .memory import (
    BULK_THRESHOLD,
    DEFAULT_STORE_PATH,
    FORMAT_NAMES,
    STREAM_THRESHOLD_BYTES,
    Clock,
    LoadReport,
    MemoryStore,
    as_graph,
    gc_paused,
    rdf_format,
)

__all__ = [
    "BULK_THRESHOLD",
    "DEFAULT_STORE_PATH",
    "FORMAT_NAMES",
    "STREAM_THRESHOLD_BYTES",
    "Clock",
    "LoadReport",
    "MemoryStore",
    "as_graph",
    "gc_paused",
    "rdf_format",
]
