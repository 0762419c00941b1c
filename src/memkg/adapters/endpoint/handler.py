"""HTTP: routes, the SPARQL 1.1 Protocol's parameters, CORS; everything else is :mod:`.app`.

| path | methods | does |
|---|---|---|
| ``/`` | GET | the query page (no network needed: inline HTML and JS) |
| ``/sparql`` (alias ``/query``) | GET, POST | SPARQL query (POST form or ``application/sparql-query``); a POSTed update too |
| ``/update`` | POST | SPARQL Update (form or ``application/sparql-update``) |
| ``/store`` | GET, HEAD, PUT, POST, DELETE | Graph Store Protocol, ``?default`` or ``?graph=IRI`` |
| ``/views`` | GET | the view templates and their parameters, as JSON |
| ``/views/NAME`` | GET | run a view; its parameters as query parameters |
| ``/views/NAME/query`` | GET | the SPARQL text that view runs with those parameters (``application/sparql-query``) |
| ``/recall`` | GET | recall (SPEC section 7): ``?q=…&tenant=…&k=…&valid_at=…&known_at=…&packet=true``, JSON |
| ``/health`` | GET | liveness, as JSON |
| ``/pictures``, ``/pictures/KIND`` | GET | pictures of a claim (:mod:`.pictures_route`) |

With ``--tokens`` every route needs a token, decided from the headers before the body
is read (401, or 403 for a write by a read-only token, and the connection is closed);
``/health`` without a token answers ``{"status": "ok"}`` and nothing more.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pyoxigraph import DefaultGraph, NamedNode

from ...guard.access import Forbidden, Grant
from ...store import views
from .app import Endpoint, GraphWrite
from .failures import to_http
from .jobs import Answer
from .pool import ServerBusy
from .request_errors import (
    BadRequest,
    MethodNotAllowed,
    PayloadTooLarge,
    UnsupportedMediaType,
)

FORM = "application/x-www-form-urlencoded"
SPARQL_QUERY = "application/sparql-query"
SPARQL_UPDATE = "application/sparql-update"
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "Content-Type, Content-Length, Memkg-Added, Memkg-Removed, WWW-Authenticate",
}
ALLOWED = {
    "/": ("GET", "HEAD"),
    "/health": ("GET", "HEAD"),
    "/sparql": ("GET", "POST"),
    "/query": ("GET", "POST"),
    "/update": ("POST",),
    "/store": ("GET", "HEAD", "PUT", "POST", "DELETE"),
    "/views": ("GET",),
    "/recall": ("GET",),
}


class Server(ThreadingHTTPServer):
    """One thread per connection; connections are kept alive (HTTP/1.1)."""

    daemon_threads = True  # an idle keep-alive connection must not hold up shutdown
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], endpoint: Endpoint, *, log_requests: bool = False) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        self.endpoint = endpoint
        self.log_requests = log_requests
        self.closing = threading.Event()
        self._active = 0
        self._idle = threading.Condition()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away mid-answer: nothing to tell anyone
        super().handle_error(request, client_address)

    def begin(self) -> bool:
        """Count a request in; False once shutting down."""
        with self._idle:
            if self.closing.is_set():
                return False
            self._active += 1
            return True

    def end(self) -> None:
        with self._idle:
            self._active -= 1
            self._idle.notify_all()

    def drain(self, timeout: float) -> bool:
        """Refuse new requests and wait up to ``timeout`` s for those in flight; True if all ended."""
        self.closing.set()
        with self._idle:
            return self._idle.wait_for(lambda: self._active == 0, timeout)


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"
    server_version = "memkg"
    timeout = 120  # seconds an idle keep-alive connection stays open

    def setup(self) -> None:
        super().setup()
        # Headers and body leave in two writes; without this, Nagle's algorithm holds the
        # second until the client's delayed ACK: 40 ms per request on keep-alive connections.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # -- dispatch --------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._handle("GET")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_OPTIONS(self) -> None:
        """CORS preflight: any origin may call, with the headers a SPARQL client sends.

        A preflight carries no token and needs no body: one that declares a body has it
        left unread, and its connection is closed after the answer."""
        if self.headers.get("Content-Length", "0").strip() not in ("", "0") or self.headers.get("Transfer-Encoding"):
            self.close_connection = True
        requested = self.headers.get("Access-Control-Request-Headers")
        headers = {
            "Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, DELETE, OPTIONS",
            "Access-Control-Allow-Headers": requested or "Authorization, Content-Type, Accept",
            "Access-Control-Max-Age": "86400",
            "Allow": "GET, HEAD, POST, PUT, DELETE, OPTIONS",
        }
        self._send(204, None, b"", headers)

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        self.params = parse_qs(url.query, keep_blank_values=True)
        try:
            self.grant = self._authorize(method, url.path)
        except Exception as err:  # noqa: BLE001 - 401/403 (or 400), answered without reading the body
            self.close_connection = True
            self._error(method, err)
            return
        try:
            self.body = self._read_body()  # always, so that a keep-alive connection stays in step
        except PayloadTooLarge as err:
            self.close_connection = True  # the rest of the body is never read
            self._error(method, err)
            return
        except ValueError as err:  # a Content-Length or chunk size that is not a number
            self.close_connection = True  # where the next request starts is anyone's guess
            self._error(method, BadRequest(f"unreadable request body: {err}"))
            return
        if not self.server.begin():
            self.close_connection = True
            self._error(method, ServerBusy("the server is shutting down"))
            return
        try:
            self._route(method, url.path)
        except Exception as err:  # noqa: BLE001 - every error becomes an HTTP answer, here only
            self._error(method, err)
        finally:
            self.server.end()
            if self.server.closing.is_set():
                self.close_connection = True

    def _authorize(self, method: str, path: str) -> Grant | None:
        """Who sent the request, from its headers alone; None: no token, on ``/health``."""
        endpoint = self.server.endpoint
        authorization = self.headers.get("Authorization")
        if endpoint.tokens is not None and path == "/health" and not authorization:
            return None
        grant = endpoint.grant(authorization)
        if not grant.write and self._writes(method, path):
            raise Forbidden(f"{grant.who} may not write")
        return grant

    def _writes(self, method: str, path: str) -> bool:
        """Whether the request is a write, as far as its method, path and Content-Type tell."""
        if path == "/update":
            return True
        if path == "/store":
            return method in ("PUT", "POST", "DELETE")
        return path in ("/sparql", "/query") and method == "POST" and self._content_type() == SPARQL_UPDATE

    def _route(self, method: str, path: str) -> None:
        endpoint = self.server.endpoint
        if path.startswith("/views/"):
            self._allow(method, path, ("GET",))
            name = path[len("/views/"):]
            params = {k: self._one(k) for k in self.params if k != "format"}
            if name.endswith("/query"):  # the text the view runs, not its rows
                text = endpoint.view_query(self._grant(), name[:-len("/query")], params)
                self._send(200, "application/sparql-query; charset=utf-8", text.encode("utf-8"))
                return
            self._answer(method, endpoint.view(self._grant(), name, params, **self._negotiation()))
            return
        if path == "/pictures" or path.startswith("/pictures/"):
            self._allow(method, path, ("GET",))
            self._answer(method, endpoint.picture(self._grant(), path[len("/pictures/"):], self.params))
            return
        if path not in ALLOWED:
            raise LookupError(f"nothing at {path}; try /sparql, /update, /store, /views, /recall, /pictures or /health")
        self._allow(method, path, ALLOWED[path])
        if path == "/":
            self._send(200, "text/html; charset=utf-8", _page(), head=method == "HEAD")
        elif path == "/health":
            self._json(endpoint.health(self.grant), head=method == "HEAD")
        elif path == "/views":
            self._json([_describe(v) for v in views.list_views()])
        elif path == "/recall":
            self._recall()
        elif path in ("/sparql", "/query"):
            self._sparql(method)
        elif path == "/update":
            self._update()
        else:
            self._graph_store(method)

    def _recall(self) -> None:
        grant = self._grant()
        optional = {name: self._one(name) for name in ("tenant", "k", "valid_at", "known_at", "packet")
                    if name in self.params}
        self._answer("GET", self.server.endpoint.recall(grant, self._one("q"), **optional))

    # -- SPARQL 1.1 Protocol ---------------------------------------------------------------

    def _sparql(self, method: str) -> None:
        params = self.params
        kind = self._content_type()
        if method == "POST":
            if kind == FORM:
                params = {**params, **self._form()}
            elif kind == SPARQL_QUERY:
                params = {**params, "query": [self._text()]}
            elif kind == SPARQL_UPDATE:
                self._update()
                return
            else:
                raise UnsupportedMediaType(
                    f"a POSTed query is {FORM} or {SPARQL_QUERY}, not {kind or 'a body without Content-Type'}"
                )
        if "update" in params and method == "POST":
            self._update(params)
            return
        if method == "GET" and "query" not in params and "text/html" in (self.headers.get("Accept") or ""):
            self._send(200, "text/html; charset=utf-8", _page())  # a browser opening the endpoint's URL
            return
        endpoint = self.server.endpoint
        answer = endpoint.query(
            self._grant(),
            self._one("query", params),
            default_graph_uris=params.get("default-graph-uri", []),
            named_graph_uris=params.get("named-graph-uri", []),
            base_iri=self._own_url(),
            **self._negotiation(params),
        )
        self._answer(method, answer)

    def _update(self, params: dict[str, list[str]] | None = None) -> None:
        params = dict(self.params if params is None else params)
        kind = self._content_type()
        if kind == FORM:
            params.update(self._form())
        elif kind == SPARQL_UPDATE:
            params["update"] = [self._text()]
        else:
            raise UnsupportedMediaType(f"an update is {FORM} or {SPARQL_UPDATE}, not {kind or 'a body without Content-Type'}")
        endpoint = self.server.endpoint
        summary = endpoint.update(
            self._grant(),
            self._one("update", params),
            using_graphs=params.get("using-graph-uri", []),
            using_named_graphs=params.get("using-named-graph-uri", []),
            base_iri=self._own_url(),
        )
        counts = {"Memkg-Removed": summary.removed, "Memkg-Added": summary.added}
        self._send(204, None, b"", {k: str(v) for k, v in counts.items() if v is not None})

    # -- Graph Store Protocol ----------------------------------------------------------------

    def _graph_store(self, method: str) -> None:
        endpoint = self.server.endpoint
        grant = self._grant()
        graph = self._target_graph()
        if method in ("GET", "HEAD"):
            answer = endpoint.get_graph(grant, graph, **self._negotiation(), head=method == "HEAD")
            self._answer(method, answer)
            return
        if graph is None and method != "POST":
            raise BadRequest(f"{method} /store needs ?default or ?graph=IRI")
        # Relative IRIs in the body resolve against the graph's IRI, or the store's URL.
        base = graph.value if isinstance(graph, NamedNode) else f"http://{self.headers.get('Host', 'localhost')}/store"
        write: GraphWrite
        if method == "PUT":
            write = endpoint.put_graph(grant, graph, self.body, self.headers.get("Content-Type"), base_iri=base)
        elif method == "POST":
            write = endpoint.post_graph(grant, graph, self.body, self.headers.get("Content-Type"), base_iri=base)
        else:
            write = endpoint.delete_graph(grant, graph)
        headers = {"Memkg-Removed": str(write.removed), "Memkg-Added": str(write.added)}
        self._send(201 if write.created else 204, None, b"", headers)

    def _target_graph(self) -> NamedNode | DefaultGraph | None:
        has_default = "default" in self.params
        graphs = self.params.get("graph", [])
        if has_default and graphs:
            raise BadRequest("name one graph: ?default or ?graph=IRI, not both")
        if has_default:
            return DefaultGraph()
        if not graphs:
            return None
        iri = self._one("graph")
        try:
            return NamedNode(iri)
        except ValueError as err:
            raise BadRequest(f"graph={iri!r} is not an IRI: {err}") from None

    # -- request helpers -----------------------------------------------------------------------

    def _grant(self) -> Grant:
        assert self.grant is not None  # only /health goes without one
        return self.grant

    def _allow(self, method: str, path: str, allowed: tuple[str, ...]) -> None:
        if method not in allowed:
            raise MethodNotAllowed(method, path, allowed)

    def _read_body(self) -> bytes:
        """The request body, refused (:class:`PayloadTooLarge`) past ``--max-body`` before
        it is read: a declared length is checked first, a chunked body as it arrives."""
        limit = self.server.endpoint.settings.max_body
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(limit)
        length = int(self.headers.get("Content-Length") or 0)
        if limit is not None and length > limit:
            raise PayloadTooLarge(f"the request body has {length:,} bytes; this server takes at most {limit:,} (--max-body)")
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self, limit: int | None) -> bytes:
        parts = []
        total = 0
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline().strip():  # trailers
                    pass
                return b"".join(parts)
            total += size
            if limit is not None and total > limit:
                raise PayloadTooLarge(f"the chunked request body passed {limit:,} bytes, this server's limit (--max-body)")
            parts.append(self.rfile.read(size))
            self.rfile.readline()

    def _content_type(self) -> str:
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()

    def _text(self) -> str:
        try:
            return self.body.decode("utf-8")
        except UnicodeDecodeError as err:
            raise BadRequest(f"the request body is not UTF-8: {err}") from None

    def _form(self) -> dict[str, list[str]]:
        return parse_qs(self._text(), keep_blank_values=True)

    def _one(self, name: str, params: dict[str, list[str]] | None = None) -> str:
        values = (self.params if params is None else params).get(name, [])
        if len(values) != 1:
            raise BadRequest(f"the request needs exactly one {name!r} parameter, it has {len(values)}")
        return values[0]

    def _own_url(self) -> str:
        """This request's URL without its query string: the base IRI of a query or update sent
        to it, as the SPARQL Protocol leaves it to the service (relative IRIs must resolve)."""
        host = self.headers.get("Host") or f"{self.server.server_address[0]}:{self.server.server_address[1]}"
        return f"http://{host}{urlsplit(self.path).path}"

    def _negotiation(self, params: dict[str, list[str]] | None = None) -> dict[str, Any]:
        formats = (self.params if params is None else params).get("format", [])
        return {"accept": self.headers.get("Accept"), "format": formats[0] if formats else None}

    # -- responses -----------------------------------------------------------------------------

    def _answer(self, method: str, answer: Answer) -> None:
        self._send(answer.status, answer.content_type, answer.body, {"Vary": "Accept"}, head=method == "HEAD")

    def _json(self, data: object, *, head: bool = False) -> None:
        self._send(200, "application/json", json.dumps(data).encode(), head=head)

    def _error(self, method: str, err: BaseException) -> None:
        http = to_http(err)
        if http.status >= 500 and not isinstance(err, ServerBusy):
            self.log_error("%s %s: %s", method, self.path, http.message)
        content_type, body = http.body(self.headers.get("Accept"))
        self._send(http.status, content_type, body, http.headers, head=method == "HEAD")

    def _send(
        self, status: int, content_type: str | None, body: bytes, headers: dict[str, str] | None = None, *, head: bool = False
    ) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if body or not head:  # a HEAD answer computed without its body has no length to tell
            self.send_header("Content-Length", str(len(body)))
        for name, value in {**CORS_HEADERS, **(headers or {})}.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        elif self.request_version == "HTTP/1.0":  # an HTTP/1.0 client asked for keep-alive: confirm it
            self.send_header("Connection", "keep-alive")
        self.end_headers()
        if body and not head:
            self.wfile.write(body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.server.log_requests:
            super().log_request(code, size)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"memkg serve: {self.address_string()} {format % args}\n")


def _describe(view: views.View) -> dict[str, Any]:
    return {
        "name": view.name,
        "description": view.description,
        "params": [
            {"name": p.name, "type": p.type, "required": p.required, "description": p.description}
            for p in view.params
        ],
    }


_PAGE: bytes | None = None


def _page() -> bytes:
    global _PAGE
    if _PAGE is None:
        _PAGE = resources.files(__package__).joinpath("page.html").read_bytes()
    return _PAGE

