"""A no-op MCP tool on the SDK alone: the floor under ``memkg mcp`` (bench_mcp.py --floor).

    python benchmarks/mcp_noop_server.py {mcpserver|lowlevel} {stdio|memkg-stdio|http}

``mcpserver``: the SDK's ``MCPServer`` with one decorated tool; ``lowlevel``: the SDK's ``Server``
with a precomputed tool list (what ``memkg mcp`` uses). ``memkg-stdio``: the low-level server over
memkg's stdio streams (:mod:`memkg.adapters.agent_tools.wire`) instead of the SDK's. The tool takes
remember_message's arguments and answers its result's shape, doing nothing else.
"""

from __future__ import annotations

import socket
import sys
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from pydantic_core import to_json


def answer(content: str, event_id: str | None, tenant: str | None) -> dict[str, Any]:
    return {"message": "urn:memkg:message:0", "duplicate": False, "eventId": event_id, "tenant": tenant}


def lowlevel() -> Server:
    tool = types.Tool(name="noop", description="does nothing", output_schema={"type": "object"}, input_schema={
        "type": "object", "required": ["content"], "properties": {
            "content": {"type": "string"}, "event_id": {"type": "string"}, "tenant": {"type": "string"}}})
    listing = types.ListToolsResult(tools=[tool])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        a = params.arguments or {}
        out = answer(a["content"], a.get("event_id"), a.get("tenant"))
        return types.CallToolResult(content=[types.TextContent(type="text", text=to_json(out).decode())],
                                    structured_content=out)

    return Server("noop", on_list_tools=list_tools, on_call_tool=call_tool)


def mcpserver() -> MCPServer:
    server = MCPServer("noop", log_level="WARNING")

    @server.tool()
    async def noop(content: str, event_id: str | None = None, tenant: str | None = None) -> dict[str, Any]:
        """does nothing"""
        return answer(content, event_id, tenant)

    return server


def main(kind: str, transport: str) -> None:
    if transport == "http":
        import uvicorn

        app = (lowlevel() if kind == "lowlevel" else mcpserver()).streamable_http_app(json_response=True)
        sock = socket.socket()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        print(f"memkg mcp: serving http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    elif kind == "mcpserver":
        anyio.run(mcpserver().run_stdio_async)
    else:
        low = lowlevel()

        async def serve() -> None:
            if transport == "memkg-stdio":
                from memkg.adapters.agent_tools.wire import stdio_streams

                async with stdio_streams(64, 1 << 22) as (lines, out), stdio_server(cast(Any, lines), cast(Any, out)) as (
                        read, write):
                    await low.run(read, write, low.create_initialization_options())
            else:
                async with stdio_server() as (read, write):
                    await low.run(read, write, low.create_initialization_options())

        anyio.run(serve)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
