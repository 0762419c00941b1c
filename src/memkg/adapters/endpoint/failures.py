"""From memkg's errors to HTTP statuses: the one place that decides it.

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
from ...validation.writes import WriteTimeout
from . import negotiation as neg
from .jobs import Failure
from .pool import QueryTimeout, ServerBusy, WorkerCrashed
from .request_errors import (
    BadRequest,
    MethodNotAllowed,
    PayloadTooLarge,
    UnsupportedMediaType,
    WritesRefused,
)
from .rights import UnsupportedUpdate


@dataclass(frozen=True)
class HttpError:
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


def to_http(err: BaseException) -> HttpError:
    """The status, message and headers answering ``err``."""
    status = next((code for kind, code in _STATUS if isinstance(err, kind)), 500)
    if isinstance(err, LimitExceeded):
        status = err.status
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
    line = getattr(err, "line", None) if isinstance(err, ParseError) else None
    column = getattr(err, "column", None) if isinstance(err, ParseError) else None
    return HttpError(status, message, headers, line, column)


def raise_failure(failure: Failure) -> None:
    """Raise, in the server, the error a worker reported as data."""
    if failure.kind == "parse":
        raise ParseError(failure.message, file=failure.source or "<query>", line=failure.line, column=failure.column)
    if failure.kind == "limit":
        raise LimitExceeded(failure.message, limit=failure.limit or "?", value=failure.value or 0)
    if failure.kind == "forbidden":
        raise Forbidden(failure.message)
    if failure.kind == "unsupported":
        raise UnsupportedUpdate(failure.message)
    if failure.kind == "bad-request":
        raise BadRequest(failure.message)
    if failure.kind == "not-acceptable":
        raise neg.NotAcceptable(failure.message)
    if failure.kind == "not-found":
        raise NotFoundError(failure.message)
    raise RuntimeError(failure.message)
