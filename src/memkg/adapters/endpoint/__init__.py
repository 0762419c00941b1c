"""The SPARQL endpoint (``memkg serve``): a separate program over the library, not logic inside it.

A request goes in a straight line: the transport reads it, the handler makes it one
value, the app decides, a worker runs what reads the store::

    transport.Connection._handle            bytes on a socket -> handler.Head
      app.Endpoint.admit(head)              who sent it (rights.admit), before the body is read
      handler.read(head, body, grant)       -> one request value (handler.Query, …)
      app.Endpoint.answer(request)          decides: rights, limits, which job -> handler.Response
        pool.WorkerPool.run(snapshot, job)  one pipe round trip
          worker.run(snapshot, job)         the query, serialized there; a failure as its failures.HttpError
      transport.Connection._send(response)  (a failure: failures.to_http, the one table of statuses)

* :mod:`.server` – open the store, start the workers, serve, shut down cleanly;
* :mod:`.transport` – HTTP/1.1 on a socket (the standard library's threaded server), CORS;
* :mod:`.handler` – the routes and the SPARQL 1.1 and Graph Store Protocols: a request as one value;
* :mod:`.app` – decides each request over one open store: reads in the workers, writes here;
* :mod:`.rights` – every decision about who may do what (over :mod:`memkg.guard.access`);
* :mod:`.failures` – the endpoint's errors, and the one table from an error to its HTTP status;
* :mod:`.snapshots` – immutable checkpoints of the store that the workers read;
* :mod:`.pool`, :mod:`.jobs` and :mod:`.worker` – query worker processes, killed past the deadline;
* :mod:`.negotiation` – Accept headers and result formats;
* :mod:`.pictures_route` – ``/pictures``, drawn in a worker.
"""

from __future__ import annotations

from .server import ServeOptions, serve

__all__ = ["ServeOptions", "serve"]
