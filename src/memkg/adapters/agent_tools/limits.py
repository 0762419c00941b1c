"""How much one agent-tool call may ask for: sizes, list lengths, result sizes and time.

The endpoint's hostile-input rules, for the agent tools, in one place. The tools take no RDF or
SPARQL text, so :mod:`memkg.guard.limits`' RDF and SPARQL nesting has nothing to parse here; its literal
bound still holds: a message's content, a literal, may not pass
``memkg.guard.limits.Limits().max_literal``. The sizes become ``maxLength`` / ``maxItems`` / ``maximum``
in the tools' input schemas (so a model sees them before it calls) and are enforced by each
tool's argument validator; the JSON nesting of a request (:func:`memkg.guard.limits.json_depth`) by
:mod:`memkg.adapters.agent_tools.wire` before the SDK parses it; the time limit and the number of calls
running at once by :mod:`memkg.adapters.agent_tools.server`; the request size by the transport.

>>> DEFAULT_LIMITS.max_content
1000000
"""

from __future__ import annotations

from dataclasses import dataclass

from ...guard import limits as input_limits


@dataclass(frozen=True)
class ToolLimits:
    max_content: int = 1_000_000  #: characters of one message's content
    max_iri: int = 2048  #: characters of one IRI
    max_text: int = 4096  #: characters of a query, a reason, a name, a literal value
    max_items: int = 64  #: recipients, supporting sources, contexts
    max_k: int = 100  #: recall hits
    max_rows: int = 1000  #: rows of a view
    max_packet_vertices: int = 200  #: vertices of an evidence packet
    timeout: float | None = 30.0  #: seconds a call may take before it is answered with an error
    max_concurrent: int = 8  #: calls running at once; more wait their turn
    max_body: int = 4 * 1024 * 1024  #: bytes of one request (HTTP body, stdio line; the content, JSON-escaped, fits)
    max_json_depth: int = 64  #: nesting of a request's JSON (the tools' arguments nest 4 deep)

    def __post_init__(self) -> None:
        literal = input_limits.Limits().max_literal or input_limits.PARSER_TOKEN_LIMIT
        if not 0 < self.max_content <= literal:
            raise ValueError(f"max_content must be between 1 and {literal:,}, the literal size memkg.guard.limits allows")
        if not 8 <= self.max_json_depth <= 128:
            raise ValueError("max_json_depth must be between 8 (the protocol's own nesting) and 128 (the SDK parses ~200)")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError("timeout must be positive, or None for no limit")


DEFAULT_LIMITS = ToolLimits()
