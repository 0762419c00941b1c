"""Requests the endpoint refuses before any work: the protocol's own errors (4xx).

Raised by the routes and the workers alike; :mod:`memkg.adapters.endpoint.failures` maps
each to its status.
"""

from __future__ import annotations

from ...core.errors import MemkgError


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
