"""The transport: HTTP/1.1 on a socket, with the standard library's threaded server.

All it does is move bytes: it reads a request's head into a :class:`~.handler.Head`, has
the endpoint admit it (:meth:`.app.Endpoint.admit`, before the body is read), reads the
body within ``--max-body``, and writes what :meth:`.app.Endpoint.answer` returns for the
request :func:`.handler.read` makes of them, or what :func:`.failures.to_http` makes of
its failure. CORS, keep-alive and the shutdown's refusals are its own. Another transport
(an event-driven server, say) makes the same three calls.
"""

from __future__ import annotations

import io
import socket
import sys
import threading
import time
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from . import handler
from .app import Endpoint
from .failures import BadRequest, PayloadTooLarge, ServerBusy, to_http
from .handler import Head, Response

#: What the standard library's header reader allows (http.client): a line's bytes, and lines.
MAX_HEADER_LINE = 65536
MAX_HEADERS = 100

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "Content-Type, Content-Length, Memkg-Added, Memkg-Removed, WWW-Authenticate",
}


class Server(ThreadingHTTPServer):
    """One thread per connection; connections are kept alive (HTTP/1.1)."""

    daemon_threads = True  # an idle keep-alive connection must not hold up shutdown
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], endpoint: Endpoint, *, log_requests: bool = False) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Connection)
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


class Connection(BaseHTTPRequestHandler):
    """One client connection: its requests one after the other (keep-alive)."""

    server: Server
    raw_requestline: bytes  #: read by the standard library's handle_one_request
    protocol_version = "HTTP/1.1"
    server_version = "memkg"
    timeout = 120  # seconds an idle keep-alive connection stays open

    def setup(self) -> None:
        super().setup()
        # Headers and body leave in two writes; without this, Nagle's algorithm holds the
        # second until the client's delayed ACK: 40 ms per request on keep-alive connections.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def parse_request(self) -> bool:
        """An HTTP/1.1 or 1.0 request line and its headers, read here into a plain mapping: the
        standard library's reader (``email.parser``) costs more than a small query does. Any
        other request line goes to the standard library, which reads it and answers its errors."""
        words = self.raw_requestline.split()
        if len(words) != 3 or words[2] not in (b"HTTP/1.1", b"HTTP/1.0"):
            return super().parse_request()
        self.command, self.path, self.request_version = (w.decode("iso-8859-1") for w in words)
        self.requestline = self.raw_requestline.decode("iso-8859-1").rstrip("\r\n")
        if self.path.startswith("//"):  # as the standard library reads it: a path, not a network location
            self.path = "/" + self.path.lstrip("/")
        try:
            self.headers = Headers.read(self.rfile)  # type: ignore[assignment]  # .get is all anyone calls
        except HeadersTooLarge as err:
            self.close_connection = True
            self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, str(err))
            return False
        connection = (self.headers.get("Connection") or "").lower()
        self.close_connection = connection == "close" or (self.request_version == "HTTP/1.0" and connection != "keep-alive")
        if (self.headers.get("Expect") or "").lower() == "100-continue" and self.request_version == "HTTP/1.1":
            return self.handle_expect_100()
        return True

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
        self._send(Response(204, None, b"", headers))

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        host, port = self.server.server_address[:2]
        head = Head(
            method, url.path, url.query, self.headers.get("Authorization"), self.headers.get("Content-Type"),
            self.headers.get("Accept"), self.headers.get("Host") or f"{host!s}:{port}",
        )
        endpoint = self.server.endpoint
        try:
            grant = endpoint.admit(head)
        except Exception as err:  # noqa: BLE001 - 401/403, answered without reading the body
            self.close_connection = True
            self._fail(head, err)
            return
        try:
            body = self._read_body(endpoint.settings.max_body)  # always, so that a keep-alive connection stays in step
        except PayloadTooLarge as err:
            self.close_connection = True  # the rest of the body is never read
            self._fail(head, err)
            return
        except ValueError as err:  # a Content-Length or chunk size that is not a number
            self.close_connection = True  # where the next request starts is anyone's guess
            self._fail(head, BadRequest(f"unreadable request body: {err}"))
            return
        if not self.server.begin():
            self.close_connection = True
            self._fail(head, ServerBusy("the server is shutting down"))
            return
        try:
            self._send(endpoint.answer(handler.read(head, body, grant)), head=method == "HEAD")
        except Exception as err:  # noqa: BLE001 - every error becomes an HTTP answer, here only
            self._fail(head, err)
        finally:
            self.server.end()
            if self.server.closing.is_set():
                self.close_connection = True

    def _read_body(self, limit: int | None) -> bytes:
        """The request body, refused (:class:`PayloadTooLarge`) past ``limit`` bytes before
        it is read: a declared length is checked first, a chunked body as it arrives."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(limit)
        length = int(self.headers.get("Content-Length") or 0)
        if limit is not None and length > limit:
            raise PayloadTooLarge(f"the request body has {length:,} bytes; this server takes at most {limit:,} (--max-body)")
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self, limit: int | None) -> bytes:
        parts: list[bytes] = []
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

    def _fail(self, head: Head, err: BaseException) -> None:
        http = to_http(err)
        if http.status >= 500 and not isinstance(err, ServerBusy):
            self.log_error("%s %s: %s", head.method, self.path, http.message)
        content_type, body = http.body(head.accept)
        self._send(Response(http.status, content_type, body, http.headers), head=head.method == "HEAD")

    def _send(self, response: Response, *, head: bool = False) -> None:
        """The response in one write of its head and one of its body (no header buffer, no
        date formatted per response: they cost more than a small query's answer)."""
        if self.server.log_requests:
            self.log_request(response.status)
        if self.request_version == "HTTP/0.9":  # no status line, no headers
            if response.body and not head:
                self.wfile.write(response.body)
            return
        lines = [
            f"{self.protocol_version} {response.status} {self.responses.get(response.status, ('',))[0]}",
            f"Server: {self.version_string()}",
            f"Date: {_http_date()}",
        ]
        if response.content_type:
            lines.append(f"Content-Type: {response.content_type}")
        if response.body or not head:  # a HEAD answer computed without its body has no length to tell
            lines.append(f"Content-Length: {len(response.body)}")
        lines += [f"{name}: {value}" for name, value in {**CORS_HEADERS, **response.headers}.items()]
        if self.close_connection:
            lines.append("Connection: close")
        elif self.request_version == "HTTP/1.0":  # an HTTP/1.0 client asked for keep-alive: confirm it
            lines.append("Connection: keep-alive")
        lines.append("\r\n")
        self.wfile.write("\r\n".join(lines).encode("latin-1"))
        if response.body and not head:
            self.wfile.write(response.body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.server.log_requests:
            super().log_request(code, size)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"memkg serve: {self.address_string()} {format % args}\n")


class HeadersTooLarge(ValueError):
    """A header line or the count of header lines past the standard library's limits."""


class Headers:
    """A request's headers, by lower-case name (the first of a repeated one, as ``email`` reads them)."""

    def __init__(self, fields: dict[str, str]) -> None:
        self._fields = fields

    @classmethod
    def read(cls, stream: io.BufferedIOBase) -> Headers:
        fields: dict[str, str] = {}
        last: str | None = None
        for _ in range(MAX_HEADERS + 1):
            line = stream.readline(MAX_HEADER_LINE + 1)
            if len(line) > MAX_HEADER_LINE:
                raise HeadersTooLarge("Line too long")
            if line in (b"\r\n", b"\n", b""):
                return cls(fields)
            text = line.decode("iso-8859-1")
            if text[0] in " \t" and last is not None:  # an obsolete folded line continues the last header
                fields[last] = f"{fields[last]} {text.strip()}"
                continue
            name, colon, value = text.partition(":")
            if colon:
                last = name.strip().lower()
                fields.setdefault(last, value.strip())
        raise HeadersTooLarge("Too many headers")

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._fields.get(name.lower(), default)


_date: tuple[int, str] = (0, "")


def _http_date() -> str:
    """The Date header's value, formatted once a second."""
    global _date
    now = int(time.time())
    if _date[0] != now:
        _date = (now, formatdate(now, usegmt=True))
    return _date[1]
