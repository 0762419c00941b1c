"""`memkg mcp`: the agent tools, driven by the MCP SDK's own client over stdio and streamable HTTP.

Each test bounds its time (anyio.fail_after); the servers are real subprocesses
(`python -m memkg mcp`), except where a test needs a slow tool (in-process).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from memkg import MemoryStore
from memkg.guard.access import OPEN
from memkg.adapters.agent_tools import ToolLimits, MemoryTools, ToolRefusal
from memkg.core.vocab import mem
from memkg.recall import recall_index

from tests.support.mcp_servers import ENV, HttpServer, error, http_client, result, stdio_client

pytestmark = pytest.mark.slow

LIA = "https://example.org/tenants/lia"
BOB = "https://example.org/tenants/bob"
LIA_TOKEN, BOB_TOKEN, READER_TOKEN = "lia-token-0123456789", "bob-token-0123456789", "reader-token-0123456789"
TOOLS = {
    "remember_message", "remember_entity", "remember_claim", "recall", "explain_claim", "correct_claim",
    "forget", "current_claims", "claims_valid_at", "claims_known_at",
}
READ_TOOLS = {"recall", "explain_claim", "current_claims", "claims_valid_at", "claims_known_at"}
LIMIT = 90  # seconds any one test may take


def seed(tools: MemoryTools, tenant: str, who: str) -> dict[str, str]:
    """A person, a drink, a predicate, a message and a claim drawn from it, in ``tenant``."""
    person, tea, prefers = f"urn:x:{who}", f"urn:x:{who}-tea", "urn:x:prefers"
    tools.remember_entity(OPEN, id=person, kind="Person", name=who, tenant=tenant)
    tools.remember_entity(OPEN, id=tea, kind="Entity", name="tea", tenant=tenant)
    tools.remember_entity(OPEN, id=prefers, kind="Predicate", name="prefers", tenant=tenant)
    message = tools.remember_message(OPEN, content=f"{who}: I prefer tea", event_id=f"{who}-1", sender=person,
                                     tenant=tenant)["message"]
    claim = tools.remember_claim(OPEN, subject=person, predicate=prefers, object_iri=tea, asserted_by=message,
                                 confidence=0.9, tenant=tenant)["claim"]
    return {"person": person, "tea": tea, "prefers": prefers, "message": message, "claim": claim}


@pytest.fixture
def memory(tmp_path: Path) -> tuple[Path, dict[str, dict[str, str]]]:
    """A store on disk with two tenants, lia and bob, closed again (the server opens it)."""
    path = tmp_path / "store"
    with MemoryStore(path) as store:
        tools = MemoryTools(store)
        seeded = {"lia": seed(tools, LIA, "lia"), "bob": seed(tools, BOB, "bob")}
    return path, seeded


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({
        LIA_TOKEN: {"tenants": [LIA], "write": True},
        BOB_TOKEN: {"tenants": [BOB], "write": True},
        READER_TOKEN: {"tenants": [LIA], "write": False},
    }))
    return path


def run(test: Any) -> None:
    """Run an async test body within the time limit."""
    async def bounded() -> None:
        with anyio.fail_after(LIMIT):
            await test()
    anyio.run(bounded)


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


async def refused_as_too_deep(call: Any) -> None:
    """JSON nested past max_json_depth, below and beyond the ~200 levels where the SDK's parser
    stops: answered at once with an error naming the limit (before, stdio dropped it unanswered)."""
    from mcp import MCPError

    for depth in (ToolLimits().max_json_depth + 1, 250):  # the SDK's client serialises at most ~250
        started = time.monotonic()
        with pytest.raises(MCPError, match=f"past the limit of {ToolLimits().max_json_depth} \\(max_json_depth\\)"):
            await call("remember_message", {"content": nested(depth)}, read_timeout_seconds=20)
        assert time.monotonic() - started < 10


def _graph(tenant: str) -> Any:
    from pyoxigraph import NamedNode
    return NamedNode(tenant)


# -- stdio -----------------------------------------------------------------------------------


def test_stdio_lists_every_tool_with_a_typed_schema_and_a_description(memory) -> None:
    store, _ = memory

    async def body() -> None:
        async with stdio_client(store, "--tenant", LIA) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == TOOLS
        for tool in listed.values():
            assert len(tool.description or "") > 60, tool.name
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None
        content = listed["remember_message"].input_schema["properties"]["content"]
        assert content["type"] == "string" and content["maxLength"] == ToolLimits().max_content
        assert listed["remember_message"].input_schema["required"] == ["content"]
        assert listed["recall"].input_schema["properties"]["k"]["maximum"] == ToolLimits().max_k
        assert listed["explain_claim"].annotations.read_only_hint is True
        assert listed["forget"].annotations.destructive_hint is True

    run(body)


def test_stdio_calls_each_tool_and_the_memory_changes_as_told(memory) -> None:
    store, seeded = memory
    lia = seeded["lia"]

    async def body() -> None:
        async with stdio_client(store, "--tenant", LIA) as client:
            call = client.call_tool
            said = result(await call("remember_message", {
                "content": "Actually I switched to coffee", "event_id": "lia-2", "sender": lia["person"],
                "recipients": [lia["person"]], "episode": "urn:x:episode-2", "event_time": "2026-03-01T09:00:00Z"}))
            assert said["duplicate"] is False and said["tenant"] == LIA
            assert result(await call("remember_entity", {"id": "urn:x:coffee", "kind": "Entity"}))["node"] == "urn:x:coffee"
            drinks = result(await call("remember_claim", {
                "subject": lia["person"], "predicate": lia["prefers"], "object_value": "green tea",
                "asserted_by": lia["message"], "valid_from": "2026-01-01T00:00:00Z", "confidence": 0.5}))["claim"]

            recalled = result(await call("recall", {"query": "what does lia prefer to drink? tea", "k": 5}))
            nodes = [h["node"] for h in recalled["hits"]]
            assert lia["message"] in nodes or lia["claim"] in nodes
            assert not {seeded["bob"]["message"], seeded["bob"]["claim"]} & set(nodes)
            assert recalled["hits"][0]["signals"] and recalled["tenant"] == LIA
            assert set(nodes) <= set(recalled["packet"]["seeds"])
            bare = result(await call("recall", {"query": "tea", "packet": False, "k": 1}))
            assert "packet" not in bare and len(bare["hits"]) == 1

            now = result(await call("current_claims", {"subject": lia["person"]}))
            assert {r["claim"] for r in now["claims"]} == {lia["claim"], drinks}
            assert not now["truncated"]

            explained = result(await call("explain_claim", {"claim": lia["claim"]}))
            assert explained["stands"] and explained["current"]
            assert explained["history"][0]["assertedBy"] == [lia["message"]]
            assert explained["lineage"]["claim"] == lia["claim"]
            assert explained["support"]["status"] in ("unrecorded", "supported")

            corrected = result(await call("correct_claim", {
                "claim": lia["claim"], "object_iri": "urn:x:coffee", "asserted_by": said["message"]}))
            assert corrected["supersedes"] == lia["claim"]
            after = result(await call("explain_claim", {"claim": lia["claim"]}))
            assert after["current"] is False and after["currentVersions"] == [corrected["claim"]]
            assert [v["claim"] for v in after["history"]] == [lia["claim"], corrected["claim"]]

            then = result(await call("claims_valid_at", {"valid_at": "2025-06-01T00:00:00Z", "subject": lia["person"]}))
            assert {r["claim"] for r in then["claims"]} == {corrected["claim"]}  # green tea only from 2026
            known = result(await call("claims_known_at", {"known_at": after["history"][0]["recordedAt"]["value"],
                                                          "subject": lia["person"]}))
            assert {r["claim"] for r in known["claims"]} == {lia["claim"]}  # before the correction

            withdrawn = result(await call("forget", {"target": drinks, "reason": "was a joke"}))
            assert withdrawn["erased"] is False and withdrawn["retraction"].startswith("urn:memkg:retraction:")
            erased = result(await call("forget", {"target": said["message"], "erase": True,
                                                  "reason": "consent revoked"}))
            assert erased["erased"] is True and said["message"] in erased["removed"]  # citable: the IRI as text
            assert corrected["claim"] in erased["removed"]  # it rested only on the erased message
            # The correction rested only on the erased message: gone with it, the first version holds again.
            left = result(await call("current_claims", {"subject": lia["person"]}))
            assert {r["claim"] for r in left["claims"]} == {lia["claim"]}

    run(body)
    with MemoryStore(store) as opened:
        text = opened.export(format="nquads").decode()
    assert "Actually I switched to coffee" not in text


def test_a_retried_message_is_stored_once(memory) -> None:
    store, _ = memory

    async def body() -> None:
        async with stdio_client(store, "--tenant", LIA) as client:
            args = {"content": "see you at 5", "event_id": "chat-77"}
            first = result(await client.call_tool("remember_message", args))
            again = result(await client.call_tool("remember_message", args))
            assert again["message"] == first["message"]
            assert (first["duplicate"], again["duplicate"]) == (False, True)

    run(body)
    with MemoryStore(store) as opened:
        from pyoxigraph import Literal
        assert len(list(opened.quads(None, mem.eventId, Literal("chat-77")))) == 1


def test_a_refused_write_names_the_rule_and_the_node_and_writes_nothing(memory) -> None:
    store, seeded = memory
    with MemoryStore(store) as opened:
        before = set(opened.quads())

    async def body() -> None:
        async with stdio_client(store, "--tenant", LIA) as client:
            text = error(await client.call_tool("remember_claim", {
                "subject": seeded["lia"]["person"], "predicate": "urn:x:undeclared", "object_value": "x"}))
            assert "nothing was written" in text
            assert "ClaimPropositionShape" in text and "urn:x:undeclared" in text
            assert "remember_entity" in text  # what to do about it
            assert "ClaimProvenanceShape" in text and "asserted_by" in text
            untyped = error(await client.call_tool("remember_claim", {
                "subject": "urn:x:stranger", "predicate": seeded["lia"]["prefers"], "object_value": "x",
                "asserted_by": seeded["lia"]["message"]}))
            assert "TypedVertexShape" in untyped and "urn:x:stranger" in untyped
            nobody = error(await client.call_tool("remember_message", {"content": "hi", "recipients": ["urn:x:nobody"]}))
            assert "urn:x:nobody" in nobody and "remember_entity" in nobody

    run(body)
    with MemoryStore(store) as opened:
        assert set(opened.quads()) == before


def test_malformed_arguments_are_tool_errors_and_the_server_keeps_serving(memory) -> None:
    store, seeded = memory

    async def body() -> None:
        async with stdio_client(store, "--tenant", LIA) as client:
            call = client.call_tool
            assert "content" in error(await call("remember_message", {}))
            assert "valid string" in error(await call("remember_message", {"content": 5}))
            assert "at most" in error(await call("remember_message", {"content": "x" * (ToolLimits().max_content + 1)}))
            assert "timezone" in error(await call("remember_message", {"content": "x", "event_time": "2026-01-01T00:00:00"}))
            assert "claim 'lia' names no IRI" in error(await call("explain_claim", {"claim": "lia"}))
            assert "object" in error(await call("remember_claim", {
                "subject": seeded["lia"]["person"], "predicate": seeded["lia"]["prefers"]}))
            assert "less than or equal to 1" in error(await call("remember_claim", {
                "subject": seeded["lia"]["person"], "predicate": seeded["lia"]["prefers"], "object_value": "x",
                "asserted_by": seeded["lia"]["message"], "confidence": 7}))
            assert "at most" in error(await call("remember_message", {"content": "x", "recipients": ["urn:x:a"] * 65}))
            assert "erasure needs a reason" in error(await call("forget", {"target": seeded["lia"]["message"],
                                                                            "erase": True}))
            assert "valid string" in error(await call("remember_message", {"content": nested(50)}))
            await refused_as_too_deep(call)
            from mcp import MCPError
            with pytest.raises(MCPError, match=f"longer than {ToolLimits().max_body:,} bytes, the limit"):
                await call("remember_message", {"content": "x" * ToolLimits().max_body}, read_timeout_seconds=30)
            assert "not found" in error(await call("explain_claim", {"claim": "urn:x:nothing"}))
            unknown = await call("no_such_tool", {})
            assert unknown.is_error
            assert result(await call("current_claims", {}))["claims"]  # still serving

    run(body)


def test_stdio_tenant_confines_every_call_whatever_the_arguments_say(memory) -> None:
    store, seeded = memory
    bob = seeded["bob"]

    async def body() -> None:
        async with stdio_client(store, "--tenant", LIA) as client:
            call = client.call_tool
            assert "not yours" in error(await call("current_claims", {"tenant": BOB}))
            assert "not found" in error(await call("explain_claim", {"claim": bob["claim"]}))
            assert "not found" in error(await call("forget", {"target": bob["message"]}))
            assert "not found" in error(await call("correct_claim", {"claim": bob["claim"], "object_value": "x"}))
            mine = result(await call("current_claims", {}))["claims"]
            assert {r["claim"] for r in mine} == {seeded["lia"]["claim"]}
            refused = error(await call("current_claims", {"subject": bob["person"]}))  # bob's: not in lia's scope
            assert "not found" in refused and BOB not in refused

    run(body)


def test_stdio_answers_a_line_too_deep_or_too_long_before_the_sdk_reads_it(tmp_path: Path) -> None:
    """Raw lines, no client: 100,000 levels deep (the id is found past the nesting) and 5 MB long;
    each is answered at once, in order, and end of input ends the server."""
    deep = (b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"recall","arguments":{"query":'
            + b"[" * 100_000 + b"]" * 100_000 + b'}},"id":9}\n')
    long = b'{"jsonrpc":"2.0","id":"req-10","method":"tools/call","params":{"x":"' + b"y" * 5_000_000 + b'"}}\n'
    done = subprocess.run([sys.executable, "-m", "memkg", "--store", str(tmp_path / "s"), "mcp"], input=deep + long,
                          capture_output=True, env=ENV, timeout=LIMIT)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [9, "req-10"], done.stderr.decode()[-2000:]
    assert "100,003 levels deep, past the limit of 64 (max_json_depth)" in answers[0]["error"]["message"]
    assert "longer than 4,194,304 bytes, the limit (max_body)" in answers[1]["error"]["message"]
    assert done.returncode == 0


# -- streamable HTTP -----------------------------------------------------------------------


def test_http_tokens_confine_each_caller_to_its_tenants(memory, tokens) -> None:
    store, seeded = memory
    bob = seeded["bob"]

    async def body() -> None:
        with HttpServer(store, "--tokens", str(tokens)) as server:
            async with http_client(server.url, LIA_TOKEN) as lia:
                assert {t.name for t in (await lia.list_tools()).tools} == TOOLS
                call = lia.call_tool
                assert "not yours" in error(await call("explain_claim", {"claim": bob["claim"], "tenant": BOB}))
                assert "not found" in error(await call("explain_claim", {"claim": bob["claim"]}))
                assert "not found" in error(await call("forget", {"target": bob["message"], "erase": True,
                                                                  "reason": "hostile"}))
                # Linking to another tenant's message: refused by the tenant-isolation rule.
                text = error(await call("remember_claim", {
                    "subject": seeded["lia"]["person"], "predicate": seeded["lia"]["prefers"], "object_value": "x",
                    "asserted_by": bob["message"]}))
                assert "TenantIsolationShape" in text and bob["message"] in text
                hits = result(await call("recall", {"query": "bob prefers tea", "k": 20}))["hits"]
                assert hits and all(h["node"] not in (bob["message"], bob["claim"], bob["person"]) for h in hits)
                await refused_as_too_deep(call)  # answered before the protocol: the session lives on
                said = result(await call("remember_message", {"content": "only for lia", "event_id": "h-1"}))
                assert said["tenant"] == LIA
            async with http_client(server.url, BOB_TOKEN) as bob_client:
                assert "not found" in error(await bob_client.call_tool("explain_claim", {"claim": seeded["lia"]["claim"]}))
                mine = result(await bob_client.call_tool("current_claims", {}))["claims"]
                assert {r["claim"] for r in mine} == {bob["claim"]}
            async with http_client(server.url, READER_TOKEN) as reader:
                assert "read-only" in error(await reader.call_tool("remember_message", {"content": "x"}))
                assert result(await reader.call_tool("current_claims", {}))["tenant"] == LIA

    run(body)
    with MemoryStore(store) as opened:
        assert opened.raw.contains_named_graph(_graph(BOB))
        bob_quads = set(opened.quads(graph=_graph(BOB)))
        assert not any("only for lia" in str(q.object) for q in bob_quads)


def test_a_read_only_token_is_shown_only_the_tools_that_read(memory, tokens) -> None:
    store, seeded = memory

    async def body() -> None:
        with HttpServer(store, "--tokens", str(tokens)) as server:
            async with http_client(server.url, READER_TOKEN) as reader:
                listed = (await reader.list_tools()).tools
                assert {t.name for t in listed} == READ_TOOLS
                assert all(t.annotations.read_only_hint for t in listed)
                # A write tool it was not shown is still refused by name, and writes nothing.
                assert "read-only" in error(await reader.call_tool("forget", {"target": seeded["lia"]["claim"]}))
                assert result(await reader.call_tool("explain_claim", {"claim": seeded["lia"]["claim"]}))
            async with http_client(server.url, LIA_TOKEN) as writer:
                assert {t.name for t in (await writer.list_tools()).tools} == TOOLS

    run(body)


def test_http_without_a_known_token_is_401(memory, tokens) -> None:
    store, _ = memory
    with HttpServer(store, "--tokens", str(tokens)) as server:
        for headers in ({}, {"Authorization": "Bearer nope-nope-nope"}):
            request = urllib.request.Request(
                server.url, data=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', method="POST",
                headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
            with pytest.raises(urllib.error.HTTPError) as raised:
                urllib.request.urlopen(request, timeout=30)
            assert raised.value.code == 401
            assert raised.value.headers["WWW-Authenticate"].startswith("Bearer")

        # 100,000 levels, sent raw: answered with the error for its id, in bounded time.
        deep = b'{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"recall","arguments":{"query":' + \
            b"[" * 100_000 + b"]" * 100_000 + b"}}}"
        request = urllib.request.Request(server.url, data=deep, method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {LIA_TOKEN}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            said = json.loads(answer.read())
        assert said["id"] == 41 and "100,003 levels deep, past the limit of 64" in said["error"]["message"]

        async def body() -> None:
            with pytest.raises(Exception):
                async with http_client(server.url, "wrong-token-0123456789") as client:
                    await client.list_tools()

        run(body)


def test_http_concurrent_calls_and_concurrent_retries(memory, tokens) -> None:
    store, seeded = memory

    async def body() -> None:
        with HttpServer(store, "--tokens", str(tokens)) as server:
            async with http_client(server.url, LIA_TOKEN) as client:
                answers: list[dict[str, Any]] = []

                async def remember(n: int, event: str) -> None:
                    answers.append(result(await client.call_tool(
                        "remember_message", {"content": f"note {n}", "event_id": event})))

                async def read() -> None:
                    result(await client.call_tool("current_claims", {}))
                    result(await client.call_tool("explain_claim", {"claim": seeded["lia"]["claim"]}))

                async with anyio.create_task_group() as group:
                    for n in range(16):
                        group.start_soon(remember, n, f"c-{n}")
                        group.start_soon(remember, n, "same-event")  # one event retried 16 times at once
                        group.start_soon(read)
            distinct = {a["message"] for a in answers if a["eventId"] != "same-event"}
            retried = {a["message"] for a in answers if a["eventId"] == "same-event"}
            assert len(distinct) == 16 and len(retried) == 1
            assert sum(not a["duplicate"] for a in answers if a["eventId"] == "same-event") == 1

    run(body)
    with MemoryStore(store) as opened:
        from pyoxigraph import Literal
        assert len(list(opened.quads(None, mem.eventId, Literal("same-event")))) == 1


# -- in process: time limit, the library adapter, the command line ---------------------------


class SlowStore(MemoryStore):
    """A store whose writes first take as long as the test says (Python steps, like validation)."""

    release = threading.Event()
    steps: list[str] = []
    ticks = 0  # turns of the slow step: they stop when the call is stopped

    def write(self, quads: Any, **kwargs: Any) -> int:
        quads = list(quads)
        self.steps.append("validating")
        while not self.release.is_set():
            SlowStore.ticks += 1
            time.sleep(0.005)
        self.steps.append("writing")
        return super().write(quads, **kwargs)


def test_a_call_past_the_time_limit_is_stopped_with_nothing_written_and_the_server_keeps_serving() -> None:
    from mcp import Client

    from memkg.adapters.agent_tools.server import build_server
    from memkg.recall.embedder import HashingEmbedder

    store = SlowStore(followers=[recall_index(embedder=HashingEmbedder())])
    store.release.set()
    tools = MemoryTools(store, limits=ToolLimits(timeout=1.0))
    server = build_server(tools)
    before = len(store)

    async def body() -> None:
        async with Client(server) as client:
            assert result(await client.call_tool("remember_message", {"content": "before"}))["message"]
            store.steps.clear()
            store.release.clear()
            started = time.monotonic()
            text = error(await client.call_tool("remember_message", {"content": "too slow", "event_id": "slow-1"}))
            assert "stopped after 1 s" in text and "before anything was written" in text, text
            assert time.monotonic() - started < LIMIT / 2
            # Stopped for real: the slow step turns no more, it never reached the write, and
            # letting it go now writes nothing.
            stopped_at = SlowStore.ticks
            time.sleep(0.3)
            assert SlowStore.ticks == stopped_at
            store.release.set()
            time.sleep(0.2)
            assert store.steps == ["validating"]
            assert "too slow" not in store.export(format="nquads").decode()
            assert result(await client.call_tool("remember_message", {"content": "too slow", "event_id": "slow-1"}))[
                "duplicate"] is False  # the retry is the first write
            assert result(await client.call_tool("remember_message", {"content": "after"}))["message"]

    try:
        run(body)
    finally:
        store.release.set()
    assert len(store) > before


def test_a_claim_retried_concurrently_under_one_event_id_is_stored_once(memory, tokens) -> None:
    store, seeded = memory
    lia = seeded["lia"]
    claim = {"subject": lia["person"], "predicate": lia["prefers"], "object_value": "oolong",
             "asserted_by": lia["message"], "event_id": "claim-7"}

    async def body() -> None:
        with HttpServer(store, "--tokens", str(tokens)) as server:
            async with http_client(server.url, LIA_TOKEN) as client:
                answers: list[dict[str, Any]] = []

                async def remember() -> None:
                    answers.append(result(await client.call_tool("remember_claim", claim)))

                async with anyio.create_task_group() as group:
                    for _ in range(16):
                        group.start_soon(remember)
                assert len({a["claim"] for a in answers}) == 1
                assert sorted(a["duplicate"] for a in answers) == [False] + [True] * 15
                other = error(await client.call_tool("remember_claim", {**claim, "object_value": "sencha"}))
                assert "claim-7" in other and "another proposition" in other and answers[0]["claim"] in other
            async with http_client(server.url, BOB_TOKEN) as bob:  # the same key in another tenant is another claim
                bobs = seeded["bob"]
                mine = result(await bob.call_tool("remember_claim", {
                    **claim, "subject": bobs["person"], "predicate": bobs["prefers"], "asserted_by": bobs["message"]}))
                assert mine["duplicate"] is False and mine["claim"] != answers[0]["claim"]

    run(body)
    with MemoryStore(store) as opened:
        from pyoxigraph import Literal
        from memkg.core.vocab import RDF_REIFIES
        held = [q for q in opened.quads(None, RDF_REIFIES, None, _graph(LIA)) if q.object.object == Literal("oolong")]
        assert len(held) == 1 and "sencha" not in opened.export(format="nquads").decode()


def test_tenant_resolution_for_a_caller_with_several_tenants() -> None:
    from pyoxigraph import NamedNode

    from memkg.guard.access import Grant
    from memkg.adapters.agent_tools import tenant_for

    both = Grant(frozenset({NamedNode(LIA), NamedNode(BOB)}), write=True)
    with pytest.raises(ToolRefusal, match="several tenants"):
        tenant_for(both, None)
    assert tenant_for(both, BOB) == NamedNode(BOB)
    with pytest.raises(ToolRefusal, match="shared vocabulary"):
        tenant_for(OPEN, "https://w3id.org/memkg")


@pytest.mark.parametrize("args, message", [
    (["mcp", "--tokens", "t.json"], "--tokens is for --http"),
    (["mcp", "--http", "nowhere"], "--http takes HOST:PORT"),
])
def test_command_line_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "memkg", "--store", str(tmp_path / "s"), *args],
                          capture_output=True, text=True, env=ENV, timeout=60)
    assert done.returncode == 2 and message in done.stderr
