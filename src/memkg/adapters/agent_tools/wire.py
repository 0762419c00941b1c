"""The bytes between an agent and the tools: stdio without thread hops, and JSON too deep to parse.

The SDK parses each JSON-RPC message with pydantic, whose parser stops about 200
levels deep: over stdio such a message was dropped without an answer and the
client waited for its timeout. Here every message is measured first
(:func:`memkg.guard.limits.json_depth`, C speed); one nested past
:attr:`~memkg.adapters.agent_tools.Limits.max_json_depth` is answered at once with a
JSON-RPC error that carries the request's id and names the limit
(:func:`depth_refusal`), and never reaches the SDK: over stdio by
:func:`stdio_streams`, over HTTP by :class:`DepthGate`. Over stdio a line longer
than ``max_body`` is answered likewise (:func:`too_long`); over HTTP the SDK
answers such a body with 413.

:func:`stdio_streams` is also the fast stdio transport: the SDK's own reads and
writes each line through a worker thread (three thread hops per call); these are
asyncio pipes on the event loop, handed to the SDK's ``stdio_server``.

>>> refusal = depth_refusal(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": ' + b"[" * 90 + b"]" * 90 + b"}", 64)
>>> json.loads(refusal)["id"], json.loads(refusal)["error"]["message"][:39]
(7, "the request's JSON nests 91 levels deep")
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import numpy

from ...guard.limits import json_depth

__all__ = ["DepthGate", "depth_refusal", "stdio_streams"]

INVALID_REQUEST = -32600
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"?')


def depth_refusal(raw: bytes, limit: int) -> bytes | None:
    """None when ``raw`` nests at most ``limit`` deep; else the JSON-RPC error answering it."""
    depth = json_depth(raw, over=limit)
    if depth <= limit:
        return None
    message = (f"the request's JSON nests {depth:,} levels deep, past the limit of {limit} (max_json_depth): "
               "nothing was done; send the arguments flat, as the tool's input schema describes")
    error = {"code": INVALID_REQUEST, "message": message, "data": {"limit": "max_json_depth", "value": limit}}
    return json.dumps({"jsonrpc": "2.0", "id": _request_id(raw), "error": error}).encode()


def _request_id(raw: bytes) -> Any:
    """The top-level ``id`` of a message too deep to parse: its nested values cut out, then parsed."""
    blanked = _STRING.sub(lambda m: b'"' + b" " * max(0, len(m.group()) - 2) + b'"'[: len(m.group()) - 1], raw)
    steps = numpy.frombuffer(blanked, dtype=numpy.uint8)
    step = numpy.where((steps == 0x5B) | (steps == 0x7B), 1, numpy.where((steps == 0x5D) | (steps == 0x7D), -1, 0))
    after = numpy.cumsum(step)
    keep = numpy.maximum(after, after - step) <= 1  # the top-level object's own bytes
    edges = numpy.flatnonzero(numpy.diff(numpy.concatenate(([1], keep.astype(numpy.int8), [1]))))
    pieces, start = [], 0
    for cut_from, cut_to in zip(edges[::2], edges[1::2]):  # each nested value becomes null
        pieces += [raw[start:cut_from], b"null"]
        start = cut_to
    pieces.append(raw[start:])
    try:
        found = json.loads(b"".join(pieces))
    except ValueError:
        return None
    request_id = found.get("id") if isinstance(found, dict) else None
    return request_id if isinstance(request_id, (str, int)) else None


# -- stdio ---------------------------------------------------------------------------------


class _Lines:
    """The SDK's ``stdin``: lines read on the event loop. One nested too deep, or longer than
    ``max_line`` bytes, is answered here with an error and not passed on."""

    def __init__(self, reader: asyncio.StreamReader, out: "_Out", max_depth: int, max_line: int) -> None:
        self.reader, self.out, self.max_depth, self.max_line = reader, out, max_depth, max_line
        self.buffer = bytearray()
        self.searched = 0  # the buffer holds no newline before this offset
        self.dropping = False  # the rest of an over-long line is still arriving

    def __aiter__(self) -> "_Lines":
        return self

    async def __anext__(self) -> str:
        while True:
            end = self.buffer.find(b"\n", self.searched)
            if end >= 0:
                line = bytes(self.buffer[: end + 1])
                del self.buffer[: end + 1]
                self.searched = 0
                if self.dropping:
                    self.dropping = False
                    continue
                if len(line) > self.max_line + 1:
                    await self._answer(too_long(line[:65536], self.max_line))
                    continue
                refusal = depth_refusal(line, self.max_depth)
                if refusal is None:
                    return line.decode("utf-8", "replace")
                await self._answer(refusal)
                continue
            self.searched = len(self.buffer)
            if len(self.buffer) > self.max_line:
                if not self.dropping:
                    await self._answer(too_long(bytes(self.buffer[:65536]), self.max_line))
                self.buffer.clear()
                self.searched = 0
                self.dropping = True
            chunk = await self.reader.read(1 << 16)
            if not chunk:
                if self.buffer and not self.dropping:  # a last line without its newline
                    self.buffer += b"\n"
                    continue
                raise StopAsyncIteration
            self.buffer += chunk

    async def _answer(self, refusal: bytes) -> None:
        await self.out.write(refusal.decode() + "\n")
        await self.out.flush()


_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def too_long(head: bytes, limit: int) -> bytes:
    """The JSON-RPC error answering a line longer than ``limit`` bytes; its id is read from the
    line's first bytes (JSON-RPC clients write it before the parameters), else null."""
    found = _ID.search(head)
    request_id = json.loads(found.group(1)) if found else None
    message = (f"the request is longer than {limit:,} bytes, the limit (max_body): nothing was done; "
               "send less content in one call")
    error = {"code": INVALID_REQUEST, "message": message, "data": {"limit": "max_body", "value": limit}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()


class _Out:
    """The SDK's ``stdout``: a pipe written on the event loop, drained on flush."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode())

    async def flush(self) -> None:
        await self.writer.drain()


@asynccontextmanager
async def stdio_streams(max_depth: int, max_line: int) -> AsyncIterator[tuple[_Lines, _Out]]:
    """The process's stdin and stdout for the SDK's ``stdio_server(stdin, stdout)``.

    The wire moves to private descriptors: fd 0 reads /dev/null and fd 1 writes to
    stderr while serving, so a stray print cannot corrupt the protocol.
    """
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    sys.stdout.flush()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = asyncio.StreamReader()
    read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                     os.fdopen(wire_in, "rb", buffering=0))
    write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                              os.fdopen(wire_out, "wb", buffering=0))
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    out = _Out(writer)
    try:
        yield _Lines(reader, out, max_depth, max_line), out
    finally:
        read_transport.close()
        write_transport.close()


# -- HTTP ----------------------------------------------------------------------------------


class DepthGate:
    """ASGI middleware: a POST body nested past the limit is answered here (HTTP 200, the
    JSON-RPC error for its id), before the SDK parses it."""

    def __init__(self, app: Any, max_depth: int, max_body: int) -> None:
        self.app = app
        self.max_depth = max_depth
        self.max_body = max_body  # past it the body is not scanned: the SDK refuses it (413)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        messages, more, size = [], True, 0
        while more and size <= self.max_body:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
        refusal = depth_refusal(b"".join(chunks), self.max_depth) if not more else None
        if refusal is not None:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(refusal)).encode())]})
            await send({"type": "http.response.body", "body": refusal})
            return
        replay = iter(messages)

        async def replayed() -> Any:
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)
