"""Agent tools: the memory served to agents over the Model Context Protocol (``memkg mcp``).

A thin adapter over the library, like the command line and the endpoint:

* :mod:`.tools` – :class:`MemoryTools`, one library call per tool, confined to the caller's
  tenant, returning the library results' JSON (``to_dict()``); refusals as :class:`ToolRefusal`;
* :mod:`.server` – the tools on the official MCP SDK (its low-level ``Server``): typed input
  schemas built once, who is calling (:class:`Callers`: ``--tenant`` over stdio, bearer tokens
  over HTTP), time limits that stop a call (:mod:`memkg.guard.cancellation`), stdio and streamable HTTP;
* :mod:`.wire` – stdio on the event loop, and requests nested too deep answered before the SDK;
* :mod:`.limits` – how much one call may ask for.

The SDK is imported only by :mod:`.server`: ``pip install -e '.[mcp]'`` in a memkg checkout (see docs/agent-tools.md).
"""

from __future__ import annotations

from .limits import DEFAULT_LIMITS, ToolLimits
from .tools import MemoryTools, ToolRefusal, tenant_for

__all__ = ["DEFAULT_LIMITS", "ToolLimits", "MemoryTools", "ToolRefusal", "tenant_for"]
