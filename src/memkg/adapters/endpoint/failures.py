"""The endpoint's failures: its own errors, and the one table from any error to an HTTP status.

An error becomes an :class:`HttpError` (status, message, headers) where it is caught, by
:func:`to_http` and its one table: in a query worker by the worker, which sends the
``HttpError`` back as data; in the server process by the transport. A worker's failure
reaches the transport as :class:`WorkerFailure`, which carries that ``HttpError`` as it
was made: no error is turned into a code and back.

The body of an error is the error's message as plain text, or, for a client that
accepts JSON but not text, ``{"error": {"status": …, "message": …, "line": …,
"column": …}}``. Parse errors keep their line and column, refused writes their
shapes and focus nodes, because the message already names them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...core.errors import MemkgError, NotFoundError, ParseError, Refused
from ...guard.access import Forbidden, Unauthorized
from ...guard.limits import LimitExceeded
from ...history.updates import UnsupportedUpdate
from ...validation.writes import WriteTimeout
from . import negotiation as neg

# -- the endpoint's own errors ---------------------------------------------------------------


class BadRequest(MemkgError, ValueError):
    """A request the protocol does not allow (a missing or repeated parameter, …): 400."""


class WritesRefused(MemkgError, PermissionError):
    """A write to a server started with ``--read-only``: 403."""


class MethodNotAllowed(MemkgError):
    """405, with the methods the resource does allow."""

    def __init__(self, method: str, path: str, allowed: tuple[str, ...]) -> None:
        super().__init__(f"{method} is not allowed on {path}; use {', '.join(allowed)}")
        self.allowed = allowed


class PayloadTooLarge(MemkgError):
    """A request body over the server's ``--max-body``: 413 (the connection is closed)."""


class UnsupportedMediaType(MemkgError, ValueError):
    """A request body in a format the server does not read: 415."""


class QueryTimeout(MemkgError, TimeoutError):
    """A query ran past the server's ``--timeout`` and was stopped (HTTP 503)."""

    def __init__(self, seconds: float, what: str = "query") -> None:
        super().__init__(f"the {what} exceeded the server's time limit of {seconds:g} s (--timeout) and was stopped")
        self.seconds = seconds


class ServerBusy(MemkgError, RuntimeError):
    """No worker came free in time, or the server is shutting down (HTTP 503)."""


class WorkerCrashed(MemkgError, RuntimeError):
    """A worker died while running a query (HTTP 500, the message says how); a new one replaces it."""


# -- the one table ---------------------------------------------------------------------------

# Most specific first: the first class an error is an instance of decides.
_STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (Unauthorized, 401),
    (Forbidden, 403),
    (WritesRefused, 403),
    (MethodNotAllowed, 405),
    (neg.NotAcceptable, 406),
    (PayloadTooLarge, 413),
    (LimitExceeded, 400),  # 413 for a body: its own status (to_http)
    (UnsupportedMediaType, 415),
    (QueryTimeout, 503),
    (WriteTimeout, 503),
    (ServerBusy, 503),
    (WorkerCrashed, 500),
    (UnsupportedUpdate, 501),
    (ParseError, 400),
    (Refused, 400),
    (BadRequest, 400),
    (NotFoundError, 404),
    (LookupError, 404),
    (ValueError, 400),
)


@dataclass(frozen=True)
class HttpError:
    """A failure as an HTTP answer: plain data, so a worker sends it back as it is."""

    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    line: int | None = None
    column: int | None = None

    def body(self, accept: str | None) -> tuple[str, bytes]:
        """Content type and body: JSON for a client that takes JSON but not text, else text."""
        ranges = neg.parse_accept(accept)
        text = neg.weight(ranges, neg.Format("text", "text/plain"))
        as_json = neg.weight(ranges, neg.Format("json", "application/json", ("application/sparql-results+json",)))
        if as_json > 0 and text == 0:
            error = {"status": self.status, "message": self.message, "line": self.line, "column": self.column}
            return "application/json", json.dumps({"error": error}).encode()
        return "text/plain; charset=utf-8", (self.message.rstrip("\n") + "\n").encode()


class WorkerFailure(Exception):
    """The :class:`HttpError` a worker answered with, raised in the server to end the request."""

    def __init__(self, error: HttpError) -> None:
        super().__init__(error.message)
        self.error = error


def to_http(err: BaseException) -> HttpError:
    """The status, message and headers answering ``err``."""
    if isinstance(err, WorkerFailure):
        return err.error
    status = err.status if isinstance(err, LimitExceeded) else next(
        (code for kind, code in _STATUS if isinstance(err, kind)), 500)
    headers: dict[str, str] = {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="memkg"'
    elif isinstance(err, MethodNotAllowed):
        headers["Allow"] = ", ".join(err.allowed)
    elif isinstance(err, ServerBusy):
        headers["Retry-After"] = "1"
    message = str(err.args[0]) if isinstance(err, (NotFoundError, LookupError)) and err.args else str(err)
    if status == 500 and not isinstance(err, MemkgError):
        message = f"internal error: {type(err).__name__}: {err}"
    if isinstance(err, ParseError):
        return HttpError(status, message, headers, err.line, err.column)
    return HttpError(status, message, headers)
