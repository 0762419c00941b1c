"""The HTTP side of a SPARQL server: the protocol client, its errors, its URLs."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence

from pyoxigraph import (
    NamedNode,
)

from ....core.errors import MemkgError
from ....core.vocab import MEMX, PREFIXES

DIALECTS = ("auto", "rdf12", "rdf11")
SHARED_GRAPH = NamedNode("urn:memkg:default-graph")
REGISTRY_GRAPH = NamedNode(MEMX + "graphs")
GRAPH_CLASS = NamedNode(MEMX + "Graph")
#: quads_for_pattern reads this many rows first (enough for "is there any?"), then the rest.
FIRST_PAGE = 1000
PROLOGUE = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())



class RemoteError(MemkgError, OSError):
    """The server refused or failed a request (HTTP status and the server's message)."""

    def __init__(self, message: str, *, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail  #: the server's whole answer (the message keeps its first lines)


class RemoteUnsupported(MemkgError, ValueError):
    """An operation a SPARQL backend cannot carry out (it needs the embedded store)."""


class SparqlClient:
    """The SPARQL 1.1 Protocol over HTTP (stdlib only): queries and updates, with errors
    turned into :class:`RemoteError` carrying the status and the server's message."""

    def __init__(self, endpoint: str, *, update_url: str | None = None, token: str | None = None,
                 timeout: float = 60.0) -> None:
        parsed = urllib.parse.urlsplit(endpoint)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"not an HTTP(S) endpoint URL: {endpoint!r}")
        self.endpoint = endpoint
        self.update_url = update_url or _default_update_url(endpoint)
        self.timeout = timeout
        self._headers: dict[str, str] = {"User-Agent": "memkg"}
        handlers: list[urllib.request.BaseHandler] = []
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        elif parsed.username:
            # http://user:password@host/… : answered to the server's challenge, digest
            # (Virtuoso's /sparql-auth) or basic.
            netloc = (parsed.hostname or "") + (f":{parsed.port}" if parsed.port else "")
            self.endpoint = urllib.parse.urlunsplit(parsed._replace(netloc=netloc))
            if update_url is None:
                self.update_url = _default_update_url(self.endpoint)
            passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
            passwords.add_password(None, f"{parsed.scheme}://{netloc}/",
                                   urllib.parse.unquote(parsed.username), urllib.parse.unquote(parsed.password or ""))
            handlers += [urllib.request.HTTPDigestAuthHandler(passwords), urllib.request.HTTPBasicAuthHandler(passwords)]
        self._opener = urllib.request.build_opener(*handlers)
        self.requests = 0  #: how many requests this client sent (for tests and diagnostics)
        #: the most bytes an update may carry, once a refusal told (:meth:`ServerStore.apply`)
        self.body_limit: int | None = None
        self.server: str | None = None  #: the last answer's ``Server`` header ("" when it had none)

    def query(self, text: str, *, accept: str, dataset: Sequence[tuple[str, str]] = ()) -> tuple[bytes, dict[str, str]]:
        """POST a query (form-encoded, so long queries fit); returns the body and headers."""
        form = urllib.parse.urlencode([("query", text), *dataset]).encode()
        return self._send(self.endpoint, form, "application/x-www-form-urlencoded", accept)

    def update(self, text: str) -> None:
        self._send(self.update_url, text.encode("utf-8"), "application/sparql-update", "*/*")

    def post(self, url: str, body: bytes, content_type: str) -> None:
        """POST ``body`` to ``url`` (a Graph Store Protocol URL beside the endpoint)."""
        self._send(url, body, content_type, "*/*")

    def get(self, url: str, *, accept: str) -> tuple[bytes, dict[str, str]]:
        """GET ``url`` (absolute, or relative to the endpoint: a memkg server's ``views/NAME``,
        ``pictures``) with this client's credentials; returns the body and headers."""
        return self._send(urllib.parse.urljoin(self.endpoint, url), None, None, accept)

    def _send(self, url: str, body: bytes | None, content_type: str | None, accept: str) -> tuple[bytes, dict[str, str]]:
        headers = {**self._headers, "Accept": accept, **({"Content-Type": content_type} if content_type else {})}
        request = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET", headers=headers)
        self.requests += 1
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                self.server = response.headers.get("Server") or ""
                return response.read(), {k.lower(): v for k, v in response.headers.items()}
        except urllib.error.HTTPError as err:
            detail = err.read().decode("utf-8", "replace").strip()
            raise RemoteError(
                f"{url}: HTTP {err.code} {err.reason}" + (f": {_first_lines(detail)}" if detail else ""),
                status=err.code, detail=detail,
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
            reason = getattr(err, "reason", err)
            raise RemoteError(f"{url}: cannot reach the server ({reason})") from None


def route_url(endpoint: str, route: str) -> str:
    """A memkg server's ``/route`` beside its query URL (``…/sparql`` or ``…/query``).

    >>> route_url("http://h:1/sparql", "pictures"), route_url("http://h:1/x/", "pictures")
    ('http://h:1/pictures', 'http://h:1/x/pictures')
    """
    base = endpoint.split("?")[0].rstrip("/")
    for tail in ("/sparql", "/query"):
        if base.endswith(tail):
            return base[: -len(tail)] + "/" + route
    return base + "/" + route


def _default_update_url(endpoint: str) -> str:
    """Oxigraph answers queries at /query and updates at /update; most servers (Virtuoso,
    Fuseki's /sparql) take both at one URL."""
    if endpoint.rstrip("/").endswith("/query"):
        return endpoint.rstrip("/")[: -len("query")] + "update"
    return endpoint


def _first_lines(text: str, limit: int = 6) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:limit]) + (" …" if len(lines) > limit else "")


def is_memkg_server(client: SparqlClient) -> bool:
    """Whether the server that last answered ``client`` is a ``memkg serve``."""
    return (client.server or "").startswith("memkg")


def wait_until_up(url: str, *, seconds: float = 30.0) -> float:
    """Poll ``url`` with an ``ASK {}`` until it answers; returns the seconds waited.
    Raises :class:`RemoteError` when it does not answer in time (for scripts and tests)."""
    client = SparqlClient(url, timeout=2.0)
    start = time.monotonic()
    while True:
        try:
            client.query("ASK {}", accept="application/sparql-results+json, application/sparql-results+xml")
            return time.monotonic() - start
        except RemoteError as err:
            if time.monotonic() - start > seconds:
                raise RemoteError(f"{url}: no answer after {seconds:.0f} s ({err})") from None
            time.sleep(0.1)


def token_from_env(explicit: str | None) -> str | None:
    """The bearer token: the one given, else ``$MEMKG_TOKEN``."""
    return explicit or os.environ.get("MEMKG_TOKEN") or None
