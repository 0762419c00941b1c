"""Every limit admits its value and refuses one past it, generated from the code.

The rule, stated once: **a limit of N admits an input of size N (and N - 1) and refuses N + 1.**
A size is what the limit counts: bytes, characters, nesting levels, items, hits.

The limits are collected from the code: every field named ``max_*`` of every ``*Limits``
class of memkg (the input limits of memkg.guard.limits, the JSON Lines reader's, the agent
tools'), every argument of every MCP tool that one of them bounds, and every module constant
named as a limit or threshold (``MAX_*``, ``*_LIMIT``, ``*_THRESHOLD*``, ``*_CEILING``), and
every parameter of a public function named as one (``limit``, ``threshold``, ``max_*``, …).
Each is probed at a small value (:data:`PROBES`, :data:`PARAMETER_PROBES`), or said to bound no
input (:data:`NOT_PROBED`) or to cap an answer (:data:`CAPS`), with why or where it is checked.
A new one fails until it is one or the other. A threshold follows the same rule: a score equal
to it passes.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import io
import re
from collections.abc import Callable, Iterator
from typing import Annotated, Any, get_args, get_origin

import pytest
from pyoxigraph import Literal

from tests.support.public import callables, modules

#: The size probed around: small, so each probe is quick; the rule does not depend on it.
N = 6


def _limit_classes() -> Iterator[tuple[str, type]]:
    for module in modules():
        for name, cls in vars(module).items():
            if (inspect.isclass(cls) and cls.__module__ == module.__name__ and name.endswith("Limits")
                    and dataclasses.is_dataclass(cls)):
                yield f"{module.__name__}.{name}", cls


_CONSTANT = re.compile(r"^(MAX_\w+|\w+_LIMIT|\w+_THRESHOLD\w*|\w+_CEILING)$")


def collected() -> list[str]:
    """Every limit of memkg: ``module.Class.field`` and ``module.CONSTANT``."""
    out = [f"{name}.{f.name}" for name, cls in _limit_classes() for f in dataclasses.fields(cls)
           if f.name.startswith("max_")]
    for module in modules():
        source = inspect.getsource(module)
        out += [f"{module.__name__}.{m.group(1)}" for m in re.finditer(r"^([A-Z][A-Z_]+)\b[^=\n]*=", source, re.M)
                if _CONSTANT.match(m.group(1)) and isinstance(getattr(module, m.group(1), None), int)]
    return sorted(set(out))


# -- the probes: accepted(limit, size) for each limit -----------------------------------------


def _refused(check: Callable[[], Any], *errors: type[BaseException]) -> bool:
    try:
        check()
    except errors:
        return True
    return False


def _guard(field: str, check: Callable[[Any, int], Any]) -> Callable[[int, int], bool]:
    from memkg.guard.limits import LimitExceeded, Limits

    return lambda limit, size: not _refused(lambda: check(Limits(**{field: limit}), size), LimitExceeded)


def _nested(depth: int) -> bytes:
    inner = '"x"'
    for _ in range(depth):
        inner = f"<<( <urn:a> <urn:b> {inner} )>>"
    return f"<urn:a> <urn:b> {inner} .".encode()


def _json(field: str, text: Callable[[int], str]) -> Callable[[int, int], bool]:
    from memkg.loading.jsonlines import JsonLimits, read_lines

    def accepted(limit: int, size: int) -> bool:
        line = text(size).encode() + b"\n"
        [(_, _, error)] = list(read_lines(io.BytesIO(line), JsonLimits(**{field: limit})))
        return error is None
    return accepted


def _constant(module: str, name: str, probe: Callable[[int], bool]) -> Callable[[int, int], bool]:
    """A module constant set to ``limit`` for the probe (read where it is used, at call time)."""
    def accepted(limit: int, size: int) -> bool:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(importlib.import_module(module), name, limit)
            return probe(size)
    return accepted


def _imports_read(size: int) -> bool:
    """Whether shapes reaching ``size`` documents through owl:imports (a chain of local files) load."""
    import tempfile
    from pathlib import Path

    from memkg.validation.shapes import read_shapes_graph

    with tempfile.TemporaryDirectory() as folder:
        files = [Path(folder) / f"s{i}.ttl" for i in range(size)]
        for here, there in zip(files, files[1:]):
            here.write_text(f"<urn:s> <http://www.w3.org/2002/07/owl#imports> <{there.as_uri()}> .\n")
        files[-1].write_text("<urn:a> <urn:b> <urn:c> .\n")
        return not _refused(lambda: read_shapes_graph([files[0]], imports=True), Exception)


def _import_fetched(size: int) -> bool:
    """Whether shapes importing, over HTTP, a document of ``size`` bytes load."""
    import tempfile
    import threading
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    from pathlib import Path

    from memkg.validation.shapes import read_shapes_graph

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    with tempfile.TemporaryDirectory() as folder:
        body = "<urn:a> <urn:b> <urn:c> .\n"
        (Path(folder) / "imported.ttl").write_text(body + "#" * (size - len(body) - 1) + "\n")
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=folder))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            main = Path(folder) / "main.ttl"
            main.write_text(f"<urn:s> <http://www.w3.org/2002/07/owl#imports> "
                            f"<http://127.0.0.1:{server.server_address[1]}/imported.ttl> .\n")
            return not _refused(lambda: read_shapes_graph([main], imports=True, remote=True), Exception)
        finally:
            server.shutdown()
            server.server_close()


def _bisect_complete(limit: int, size: int) -> bool:
    """Whether bisect asks at every one of ``size`` change times when it may ask ``limit`` questions."""
    from memkg import MemoryStore
    from memkg.history.timeline import bisect

    store = MemoryStore(validation=None)
    store.load_data("PREFIX mem: <https://w3id.org/memkg#> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + "".join(
        f'<urn:c{i}> mem:recordedAt "2026-01-{i + 1:02d}T00:00:00Z"^^xsd:dateTime .\n' for i in range(size)),
        format="turtle")
    return bisect(store, "ASK { ?s ?p ?o }", max_questions=limit).complete


def _headers_read(lines: Callable[[int], bytes]) -> Callable[[int], bool]:
    """Whether the endpoint's transport reads a request head of ``lines(size)`` (431 if not)."""
    def accepted(size: int) -> bool:
        from memkg.adapters.endpoint.transport import Headers, HeadersTooLarge

        return not _refused(lambda: Headers.read(io.BytesIO(lines(size) + b"\r\n")), HeadersTooLarge)
    return accepted


#: limit -> accepted(limit, size): whether an input of ``size`` passes a limit set to ``limit``.
PROBES: dict[str, Callable[[int, int], bool]] = {
    "memkg.guard.limits.Limits.max_depth": _guard("max_depth", lambda lim, n: lim.check_rdf(_nested(n))),
    "memkg.guard.limits.Limits.max_literal": _guard(
        "max_literal", lambda lim, n: lim.check_literals([Literal("x" * n)])),
    "memkg.guard.limits.Limits.max_query": _guard("max_query", lambda lim, n: lim.check_query("#" * n)),
    "memkg.guard.limits.Limits.max_update": _guard("max_update", lambda lim, n: lim.check_update("#" * n)),
    "memkg.guard.limits.Limits.max_body": _guard("max_body", lambda lim, n: lim.check_size("max_body", n, "the body")),
    "memkg.loading.jsonlines.JsonLimits.max_line_bytes": _json("max_line_bytes", lambda n: '"' + "x" * (n - 2) + '"'),
    "memkg.loading.jsonlines.JsonLimits.max_literal": _json("max_literal", lambda n: '"' + "x" * n + '"'),
    "memkg.loading.jsonlines.JsonLimits.max_depth": _json("max_depth", lambda n: "[" * n + "]" * n),
    "memkg.validation.shapes.MAX_IMPORT_BYTES": _constant("memkg.validation.shapes", "MAX_IMPORT_BYTES", _import_fetched),
    "memkg.validation.shapes.MAX_IMPORTS": _constant("memkg.validation.shapes", "MAX_IMPORTS", _imports_read),
    "memkg.history.timeline.MAX_QUESTIONS": _bisect_complete,
    # a header line's bytes, its CRLF included; a head's count of header lines
    "memkg.adapters.endpoint.transport.MAX_HEADER_LINE": _constant(
        "memkg.adapters.endpoint.transport", "MAX_HEADER_LINE",
        _headers_read(lambda n: b"X-Long: " + b"a" * (n - 10) + b"\r\n")),
    "memkg.adapters.endpoint.transport.MAX_HEADERS": _constant(
        "memkg.adapters.endpoint.transport", "MAX_HEADERS",
        _headers_read(lambda n: b"".join(b"X-Many-%d: 1\r\n" % i for i in range(n)))),
}


#: The value a limit is probed at where :data:`N` is too small for a valid input.
SIZES = {"memkg.validation.shapes.MAX_IMPORT_BYTES": 64, "memkg.adapters.endpoint.transport.MAX_HEADER_LINE": 64}

#: What is collected as a limit but bounds no input, or is probed elsewhere; and why.
NOT_PROBED = {
    "memkg.guard.limits.PARSER_TOKEN_LIMIT": "the RDF parsers' own buffer: max_literal may not exceed it "
                                             "(tests/adapters/endpoint/test_hostile_requests.py, limits_reject_bad_settings)",
    "memkg.guard.limits.MAX_SPARQL_BRACKETS": "derived from the parser's stack; max_depth bounds the input",
    "memkg.loading.jsonlines.DEPTH_CEILING": "a bound on the setting max_depth, not on input",
    "memkg.store.loads.BULK_THRESHOLD": "chooses a load's code path; both paths write the same quads",
    "memkg.store.loads.STREAM_THRESHOLD_BYTES": "chooses a load's code path; both paths write the same quads",
    "memkg.recall.index.PENDING_LIMIT": "when the recall index flushes its pending rows, not what it holds",
    "memkg.shacl.compiler.INLINE_LIMIT": "when the compiler inlines a list of values, not what it accepts",
    "memkg.validation.writes.SCAN_FOCUS_LIMIT": "when write validation scans instead of looking up",
    "memkg.shacl.compiler.MAX_BRANCHES": "how many UNION branches one compiled query holds: a split of the work",
    "memkg.core.nearest.MAX_WORD": "how many trailing characters an edit distance compares, not a size of input",
    "memkg.validation.options.MAX_RULE_ROUNDS": "the default of the setting max_rule_rounds (checked by its own tests)",
    "memkg.integrations.langgraph.MAX_RECALL_HITS": "how deep a LangGraph search asks recall before filtering",
    "memkg.shacl.expressions.MAX_CALLS": "SHACL-AF function calls per node expression: the native engine's own tests",
    "memkg.adapters.pictures.build.MAX_IMPACT_QUESTIONS": "how many sources a picture asks what falls of; past "
                                                          "it the picture says how many it left out",
}


def _tool_bounds() -> list[tuple[str, str, str, str]]:
    """(tool, parameter, limit, bound) for every MCP tool argument a ToolLimits field bounds."""
    from memkg.adapters.agent_tools import server

    out = []
    for tool in server._TOOLS:
        for p in list(inspect.signature(getattr(server._ServedTools, tool)).parameters.values())[1:]:
            for bounded, in_list in _bounded(p.annotation):
                out.append((tool, p.name, bounded.limit, "item" if in_list else bounded.bound))
    return out


def _bounded(tp: Any, in_list: bool = False) -> Iterator[tuple[Any, bool]]:
    """The Bounded markers inside a type, each with whether it bounds an item of a list."""
    from memkg.adapters.agent_tools.server import Bounded

    if get_origin(tp) is Annotated:
        yield from ((m, in_list) for m in get_args(tp)[1:] if isinstance(m, Bounded))
    inner = in_list or get_origin(tp) is list
    for arg in get_args(tp):
        if not isinstance(arg, Bounded):
            yield from _bounded(arg, inner)


TOOL_BOUNDS = _tool_bounds()
#: ToolLimits fields that bound the transport or the answer, not a tool's argument: probed by
#: the agent tools' own tests.
TRANSPORT = {"max_concurrent", "max_body", "max_json_depth", "max_packet_vertices"}


def test_every_limit_is_probed_or_said_to_be_no_limit_of_input() -> None:
    bounded = {f"memkg.adapters.agent_tools.limits.ToolLimits.{limit}" for _, _, limit, _ in TOOL_BOUNDS}
    transport = {f"memkg.adapters.agent_tools.limits.ToolLimits.{f}" for f in TRANSPORT}
    left = [name for name in collected() if name not in PROBES and name not in NOT_PROBED
            and name not in bounded and name not in transport]
    assert not left, f"limits neither probed nor explained: {left}: add a probe to PROBES (or why not to NOT_PROBED)"
    assert not set(NOT_PROBED) - set(collected()), "NOT_PROBED names limits memkg has no more"


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_limit_admits_its_value_and_refuses_one_past_it(name: str) -> None:
    accepted, n = PROBES[name], SIZES.get(name, N)
    assert accepted(n, n - 1), f"{name} = {n} refuses {n - 1}"
    assert accepted(n, n), f"{name} = {n} refuses {n}, its own value"
    assert not accepted(n, n + 1), f"{name} = {n} admits {n + 1}"


def _argument(limit: str, bound: str, size: int) -> Any:
    """A valid argument of ``size`` under ``limit``: a number, a text, an IRI."""
    if bound == "le":
        return size
    if limit == "max_iri":
        return "urn:x:" + "a" * (size - len("urn:x:"))
    return "x" * size


@pytest.mark.parametrize(("tool", "param", "limit", "bound"), TOOL_BOUNDS,
                         ids=[f"{t}-{p}-{lim}" for t, p, lim, _ in TOOL_BOUNDS])
def test_an_mcp_argument_admits_its_limit_and_refuses_one_past_it(tool: str, param: str, limit: str,
                                                                  bound: str) -> None:
    from memkg.adapters.agent_tools import server
    from memkg.adapters.agent_tools.limits import ToolLimits
    from memkg.adapters.agent_tools.tools import ToolRefusal

    size = 12 if limit in ("max_iri", "max_text", "max_content") else N  # an IRI needs room for its scheme
    spec = server.ToolSpec.of(getattr(server._ServedTools(None), tool), server._TOOLS[tool],  # type: ignore[arg-type]
                              ToolLimits(**{limit: size}))
    items = limit == "max_items"

    def accepted(n: int) -> bool:
        value = ["urn:x:a"] * n if items else _argument(limit, bound, n)
        if bound == "item":
            value = [value]
        try:
            spec.validate({param: value})
        except ToolRefusal as refusal:
            return f"{param}:" not in str(refusal) and f"{param}." not in str(refusal)
        return True
    assert accepted(size - 1) and accepted(size), f"{tool}.{param} refuses {size} under {limit} = {size}"
    assert not accepted(size + 1), f"{tool}.{param} admits {size + 1} under {limit} = {size}"


# -- parameters that bound or threshold an answer ---------------------------------------------

#: A parameter named as a bound or threshold, on a public function or method of memkg.
_BOUND_PARAMETER = re.compile(r"^(threshold|floor|limit|budget|max_\w+|min_\w+|\w+_limit)$")


def bound_parameters() -> list[str]:
    """Every ``module.function.parameter`` (``module.Class.method.parameter``) of memkg that bounds
    or thresholds something, collected from the signatures."""
    return sorted(f"{module.__name__}.{name}.{p}" for module, name, fn, _ in callables()
                  for p in inspect.signature(fn).parameters if _BOUND_PARAMETER.match(p))


def _echo_proposed(threshold_above: float) -> Callable[[int, int], bool]:
    """propose_echoes at the exact score of a pair, and a step either side: the rule for a
    threshold (a score equal to it passes) in the limits' terms: size is the threshold, in steps."""
    from memkg import MemoryStore
    from memkg.provenance import propose_echoes
    from memkg.provenance.echoes import echo_score

    first, second = "we move the database to postgres next week", "we move the database to postgres soon"
    score = echo_score(first, second)

    def accepted(limit: int, size: int) -> bool:
        store = MemoryStore(validation=None)
        store.load_data(f"""PREFIX mem: <https://w3id.org/memkg#>
            <urn:m1> a mem:Message ; mem:content "{first}" ; mem:eventId "1" .
            <urn:m2> a mem:Message ; mem:content "{second}" ; mem:eventId "2" .""", format="turtle")
        # threshold a step under the score (size < limit), at it, or a step over it
        return bool(propose_echoes(store, threshold=score + (size - limit) * threshold_above))
    return accepted


def _support_sets(limit: int, size: int) -> bool:
    """Whether minimal_support answers for a claim with ``size`` minimal support sets under ``limit``:
    ``size`` support groups of two members each, the claim's other leg one of two sources."""
    from memkg import MemoryStore
    from memkg.provenance import minimal_support

    store = MemoryStore(validation=None)
    groups = " ".join(f"mem:supportGroup [ a mem:SupportGroup ; mem:member <urn:s{i}> ] ;" for i in range(size))
    store.load_data(f"""PREFIX mem: <https://w3id.org/memkg#> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        <urn:p> a rdf:Property .
        <urn:c> a mem:Claim ; rdf:reifies <<( <urn:a> <urn:p> <urn:b> )>> ; {groups} mem:assertedBy <urn:m> .
        <urn:m> a mem:Message . {" ".join(f"<urn:s{i}> a mem:Message ." for i in range(size))}""", format="turtle")
    return not _refused(lambda: minimal_support(store, "urn:c", limit=limit), ValueError)


PARAMETER_PROBES: dict[str, Callable[[int, int], bool]] = {
    "memkg.provenance.echoes.propose_echoes.threshold": _echo_proposed(1e-9),
    "memkg.provenance.support.minimal_support.limit": _support_sets,
    "memkg.history.timeline.bisect.max_questions": _bisect_complete,
}
#: Parameters that bound how much work is done or how many rows come back (a cap, no refusal),
#: and where they are checked.
CAPS = {
    "memkg.adapters.agent_tools.tools.MemoryTools.claims.limit": "tests/adapters/agent_tools (rows of a view)",
    "memkg.adapters.agent_tools.wire.depth_refusal.limit": "the refusal's text names the limit",
    "memkg.adapters.agent_tools.wire.stdio_streams.max_depth": "ToolLimits.max_json_depth, on the transport",
    "memkg.adapters.agent_tools.wire.stdio_streams.max_line": "ToolLimits.max_body, on the transport",
    "memkg.core.json_terms.rows_json.limit": "rows of an answer",
    "memkg.integrations.openai_agents.MemkgSession.get_items.limit": "tests/integrations/test_openai_agents.py",
    "memkg.integrations.shared.Conversation.turns.limit": "tests/integrations/test_parameters.py",
    "memkg.provenance.evidence.packets.packet.max_vertices": "tests/provenance/test_evidence.py (budgets)",
    "memkg.provenance.evidence.packets.packet.max_hops": "tests/provenance/test_evidence.py (budgets)",
    "memkg.recall.answers.answer.max_vertices": "the packet's max_vertices, passed on",
    "memkg.recall.fulltext.FullText.search.limit": "candidates a text search returns",
    "memkg.recall.fulltext.FullText.search.budget": "postings a text search reads",
    "memkg.recall.index.RecallIndex.lexical.limit": "candidates a text search returns",
    "memkg.recall.index.RecallIndex.lexical.budget": "postings a text search reads",
    "memkg.recall.index.RecallIndex.check.limit": "problems a check lists",
    "memkg.store.claim_index.check.limit": "problems a check lists",
    "memkg.tags.records.Tags.traverse.limit": "records a traversal returns",
    "memkg.shacl.Shapes.apply_rules.max_rounds": "rounds of rules to a fixed point",
    "memkg.validation.engines.NativeEngine.apply_rules.max_rounds": "rounds of rules to a fixed point",
    "memkg.validation.inference.infer_into.max_rounds": "rounds of inference to a fixed point",
    "memkg.validation.whole.in_memory_copy.budget": "bytes of a store copied to memory before it is read on disk",
}


def test_every_bound_parameter_is_probed_or_said_to_be_a_cap() -> None:
    found = bound_parameters()
    left = [p for p in found if p not in PARAMETER_PROBES and p not in CAPS]
    assert not left, f"bound parameters neither probed nor listed as caps: {left}"
    assert not (set(PARAMETER_PROBES) | set(CAPS)) - set(found), "the tables name parameters memkg has no more"


@pytest.mark.parametrize("name", sorted(PARAMETER_PROBES))
def test_a_bound_parameter_admits_its_value_and_refuses_one_past_it(name: str) -> None:
    accepted = PARAMETER_PROBES[name]
    assert accepted(N, N - 1), f"{name} = {N} refuses {N - 1}"
    assert accepted(N, N), f"{name} = {N} refuses {N}, its own value"
    assert not accepted(N, N + 1), f"{name} = {N} admits {N + 1}"
