"""`memkg mcp`: the memory's agent tools over the Model Context Protocol (memkg.adapters.agent_tools)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from ...guard.access import Tokens
from ..agent_tools import DEFAULT_LIMITS, MemoryTools
from .arguments import open_store, tenant_option
from .exit_codes import EXIT_OK, UsageError
from .registry import AddCommand


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765 (0 picks a free port), not {text!r}")
    return host.strip("[]"), int(port)


def cmd_mcp(args: argparse.Namespace) -> int:
    try:  # the MCP SDK is an extra (memkg[mcp]): imported only when serving
        from ..agent_tools.server import Callers, build_server, serve_http, serve_stdio
    except ImportError as err:
        raise UsageError(f"memkg mcp needs the MCP SDK ({err.name}): pip install -e '.[mcp]' in a memkg checkout") from None

    if args.tokens and not args.http:
        raise UsageError("--tokens is for --http; over stdio name the one tenant with --tenant IRI")
    if args.tokens and args.tenant:
        raise UsageError("--tokens already says each token's tenants; leave out --tenant")
    if args.timeout is not None and args.timeout < 0:
        raise UsageError("--timeout takes a number of seconds (0: no limit)")
    address = _host_port(args.http) if args.http else None
    tokens = Tokens.load(args.tokens) if args.tokens else None
    callers = Callers(tokens=tokens) if tokens is not None else Callers.for_tenant(args.tenant)
    limits = DEFAULT_LIMITS if args.timeout is None else replace(DEFAULT_LIMITS, timeout=args.timeout or None)
    with open_store(args, write=True) as store:
        server = build_server(MemoryTools(store, limits=limits), callers)
        if address is None:
            serve_stdio(server, limits)
        else:
            serve_http(server, *address, tokens=tokens, limits=limits,
                       ready=lambda url: print(f"memkg mcp: serving {url}", file=sys.stderr, flush=True))
    return EXIT_OK


def register(command: AddCommand) -> None:
    p = command(
        "mcp",
        "Serve the memory to agents over the Model Context Protocol: remember, recall, explain, correct, forget.",
        "memkg mcp --tenant https://example.org/tenants/lia",
        cmd_mcp,
    )
    p.epilog = f"{p.epilog}\n\n{MCP_EPILOG}"
    p.add_argument("--http", metavar="HOST:PORT",
                   help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0 picks a free one)")
    p.add_argument(
        "--tokens", metavar="FILE",
        help='with --http: bearer tokens, JSON {"TOKEN": {"tenants": [GRAPH-IRI, …], "write": true|false}} '
        "(the file memkg serve reads); without it every caller may read and write everything",
    )
    tenant_option(p, "confine every call to this tenant's graph (stdio's one caller)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop a tool call running longer than this, before it writes, and answer with an error "
                   "(default: 30; 0: no limit)")


MCP_EPILOG = """\
tools: remember_message, remember_entity, remember_claim, recall, explain_claim, correct_claim,
       forget, current_claims, claims_valid_at, claims_known_at (see docs/agent-tools.md)

an agent host's configuration (stdio):
  {"mcpServers": {"memkg": {"command": "memkg",
    "args": ["--store", "/home/me/memkg-store", "mcp", "--tenant", "https://example.org/tenants/me"]}}}
"""
