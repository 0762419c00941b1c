"""The SPARQL endpoint (``memkg serve``): a separate program over the library, not logic inside it.

* :mod:`.server` – open the store, start the workers, serve, shut down cleanly;
* :mod:`.handler` – HTTP routes, the SPARQL 1.1 Protocol's parameters, CORS;
* :mod:`.app` – queries, views, updates and the Graph Store, over one open store;
* :mod:`.snapshots` – immutable checkpoints of the store that the workers read;
* :mod:`.pool` and :mod:`.worker` – query worker processes, killed past the deadline;
* :mod:`.negotiation` – Accept headers and result formats;
* :mod:`.failures` – memkg's errors as HTTP statuses;
* :mod:`.rights` – the seam with :mod:`memkg.guard.access` and :mod:`memkg.history.updates`.
"""

from __future__ import annotations

from .server import ServeOptions, serve

__all__ = ["ServeOptions", "serve"]
