"""The transport's reading of request lines and headers, and its keep-alive, over raw sockets:
what a client's bytes get, whether the standard library or memkg's own reader reads them."""

from __future__ import annotations

import http.client
import socket

import pytest

from tests.support.endpoint_server import Server

pytestmark = pytest.mark.slow  # a server

ASK = "/sparql?query=ASK%7B%7D"


def _exchange(conn: socket.socket, request: bytes) -> http.client.HTTPResponse:
    conn.sendall(request)
    response = http.client.HTTPResponse(conn)
    response.begin()
    response.read()
    return response


def _connect(server: Server) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=20)


def test_header_names_are_read_in_any_case_and_the_first_of_a_repeated_header_counts(server: Server) -> None:
    with _connect(server) as conn:
        response = _exchange(conn, f"GET {ASK} HTTP/1.1\r\nhost: x\r\naCCEPT: text/csv\r\n"
                                   "Accept: application/sparql-results+json\r\n\r\n".encode())
    assert response.status == 200
    assert response.getheader("Content-Type", "").startswith("text/csv")


def test_a_folded_header_line_continues_the_header_before_it(server: Server) -> None:
    with _connect(server) as conn:
        response = _exchange(conn, f"GET {ASK} HTTP/1.1\r\nHost: x\r\nAccept: text/nothing,\r\n text/csv\r\n\r\n".encode())
    assert response.status == 200
    assert response.getheader("Content-Type", "").startswith("text/csv")


@pytest.mark.parametrize("headers", [
    b"".join(b"X-Many-%d: 1\r\n" % i for i in range(101)),
    b"X-Long: " + b"a" * 70_000 + b"\r\n",
], ids=["101 headers", "a 70,000-byte line"])
def test_headers_past_the_limits_get_431_and_the_connection_closes(server: Server, headers: bytes) -> None:
    with _connect(server) as conn:
        response = _exchange(conn, b"GET /health HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
        assert response.status == 431
        assert conn.recv(1) == b"", "the server closed the connection"


def test_keep_alive_follows_the_request_version_and_its_connection_header(server: Server) -> None:
    with _connect(server) as conn:
        first = _exchange(conn, b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        assert (first.status, first.getheader("Connection")) == (200, "keep-alive")
        second = _exchange(conn, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (second.status, second.getheader("Connection")) == (200, None)
        last = _exchange(conn, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (last.status, last.getheader("Connection")) == (200, "close")
        assert conn.recv(1) == b""
    with _connect(server) as conn:
        plain = _exchange(conn, b"GET /health HTTP/1.0\r\n\r\n")
        assert plain.status == 200
        assert conn.recv(1) == b"", "an HTTP/1.0 request without keep-alive closes the connection"


def test_an_expected_100_continue_is_sent_before_the_body_is_read(server: Server) -> None:
    body = b"query=ASK%7B%7D"
    with _connect(server) as conn:
        conn.sendall(b"POST /sparql HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert conn.recv(25).startswith(b"HTTP/1.1 100 Continue")
        response = _exchange(conn, body)
    assert response.status == 200


@pytest.mark.parametrize(("line", "status"), [
    (b"GET /health HTTP/2.0", 505),
    (b"GET /health HTTP/1.x", 400),
    (b"GET /health HTTP/1.1 extra", 400),
])
def test_other_request_lines_get_the_standard_librarys_answers(server: Server, line: bytes, status: int) -> None:
    """Its error page, with or without a status line (it answers what it took for HTTP/0.9 without one)."""
    with _connect(server) as conn:
        conn.sendall(line + b"\r\nHost: x\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert b"Error code: %d" % status in answer
