"""memkg.integrations.openai_agents: MemkgSession under the Agents SDK's own Runner, driven by
the SDK's ScriptedModel (agents.testing), never a network call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agents", reason="openai-agents is not installed (pip install 'memkg[openai-agents]')")

from agents import Agent, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.exceptions import UserError  # noqa: E402
from agents.memory import Session, SessionSettings  # noqa: E402
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from pyoxigraph import NamedNode  # noqa: E402

from memkg import MemoryStore, Refused, Vertex, mem, prov  # noqa: E402
from memkg.integrations.openai_agents import MemkgSession, SessionWriteRefused  # noqa: E402
from memkg.recall import HashingEmbedder, recall_index  # noqa: E402

EX = "https://example.org/"
LIA_T, BOB_T = EX + "tenants/lia", EX + "tenants/bob"

set_tracing_disabled(True)  # the SDK would otherwise send traces over the network


@pytest.fixture
def memory() -> MemoryStore:
    return MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def add(session: MemkgSession, *items: Any) -> None:
    """``session.add_items``, with items written as plain dicts (the SDK's are TypedDicts)."""
    run(session.add_items(list(items)))


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def test_a_runner_keeps_the_conversation_across_runs(memory: MemoryStore) -> None:
    model = ScriptedModel([
        [function_call("weather", {"city": "Lisbon"}, call_id="call-1")],
        [assistant_message("It is sunny in Lisbon.", item_id="msg-1")],
        [assistant_message("You asked about Lisbon.", item_id="msg-2")],
    ])
    agent = Agent(name="Aurora", model=model, tools=[weather])
    session = MemkgSession(memory, session_id="lia-1", tenant=LIA_T)
    assert isinstance(session, Session)
    first = run(Runner.run(agent, "What is the weather in Lisbon?", session=session))
    assert first.final_output == "It is sunny in Lisbon."
    second = run(Runner.run(agent, "What did I ask about?", session=session))
    assert second.final_output == "You asked about Lisbon."
    model.assert_complete()
    # The second run's model saw the first run's turns, read back from memkg.
    seen = model.last_call.input  # type: ignore[union-attr]
    assert [i.get("type", "message") for i in seen] == [
        "message", "function_call", "function_call_output", "message", "message"]
    assert seen[0]["content"] == "What is the weather in Lisbon?" and seen[-1]["content"] == "What did I ask about?"
    items = run(session.get_items())
    assert len(items) == 6 and items[-1]["id"] == "msg-2"
    # The whole conversation is one episode of messages, each with its sender.
    graph = NamedNode(LIA_T)
    messages = [q.subject for q in memory.quads(None, prov.wasGeneratedBy, session.conversation.episode, graph)]
    senders = {next(memory.quads(m, prov.wasAttributedTo, None, graph)).object for m in messages}
    assert len(messages) == 6 and senders == {NamedNode("urn:memkg:speaker:" + role) for role in ("user", "assistant", "tool")}
    assert memory.recall("sunny in Lisbon", tenant=LIA_T, k=1)[0].kind == "Message"


def test_items_come_back_exactly_and_limits_count_from_the_latest(memory: MemoryStore) -> None:
    items: list[Any] = [
        {"role": "user", "content": "I prefer tea"},
        {"role": "assistant", "type": "message", "id": "msg-1", "status": "completed",
         "content": [{"type": "output_text", "text": "Noted: tea.", "annotations": []}]},
        {"type": "function_call", "id": "fc-1", "call_id": "call-1", "name": "remember", "arguments": '{"x": 1}'},
        {"type": "function_call_output", "call_id": "call-1", "output": "ok"},
    ]
    session = MemkgSession(memory, session_id="s", tenant=LIA_T, session_settings=SessionSettings(limit=3))
    add(session, *items)
    assert run(session.get_items()) == items[1:]
    assert run(session.get_items(limit=10)) == items and run(session.get_items(limit=1)) == items[3:]
    assert run(MemkgSession(memory, session_id="s", tenant=LIA_T).get_items()) == items


def test_an_item_added_again_by_its_id_is_one_message(memory: MemoryStore) -> None:
    session = MemkgSession(memory, session_id="s", tenant=LIA_T)
    said = {"role": "assistant", "type": "message", "id": "msg-1",
            "content": [{"type": "output_text", "text": "hi", "annotations": []}]}
    output = {"type": "function_call_output", "call_id": "call-1", "output": "ok"}
    add(session, said, output)
    add(session, said, output)  # a retry
    assert run(session.get_items()) == [said, output]
    plain = {"role": "user", "content": "yes"}
    add(session, plain)
    add(session, plain)  # no id: said twice is twice
    assert len(run(session.get_items())) == 4
    fake = {"role": "assistant", "type": "message", "id": "__fake_id__", "content": "a"}
    add(session, fake, dict(fake, content="b"))  # the SDK's placeholder id is no event id
    assert len(run(session.get_items())) == 6


def test_pop_and_clear_retract_and_the_history_stays(memory: MemoryStore) -> None:
    session = MemkgSession(memory, session_id="s", tenant=LIA_T)
    assert run(session.pop_item()) is None
    add(session, {"role": "user", "content": "one"}, {"role": "user", "content": "two"})
    assert run(session.pop_item()) == {"role": "user", "content": "two"}
    assert run(session.get_items()) == [{"role": "user", "content": "one"}]
    run(session.clear_session())
    assert run(session.get_items()) == [] and run(session.pop_item()) is None
    assert len(list(memory.quads(None, mem.content, None))) == 2  # nothing deleted
    reasons = {str(getattr(q.object, "value", "")) for q in memory.quads(None, mem.reason, None)}
    assert reasons == {"popped through the OpenAI Agents SDK", "cleared through the OpenAI Agents SDK"}


def test_sessions_in_two_tenants_never_meet(memory: MemoryStore) -> None:
    lia = MemkgSession(memory, session_id="same", tenant=LIA_T)
    bob = MemkgSession(memory, session_id="same", tenant=BOB_T)
    item = {"role": "assistant", "type": "message", "id": "msg-1", "content": "Lia's"}
    add(lia, item)
    add(bob, dict(item, content="Bob's"))  # the same id, in another tenant
    assert [i["content"] for i in run(lia.get_items())] == ["Lia's"]
    assert [i["content"] for i in run(bob.get_items())] == ["Bob's"]
    run(bob.clear_session())
    assert [i["content"] for i in run(lia.get_items())] == ["Lia's"]


def test_a_refused_write_is_the_sdks_error_naming_the_rule_with_nothing_written(memory: MemoryStore) -> None:
    lia = EX + "lia"
    session = MemkgSession(memory, session_id="s", tenant=LIA_T, speakers={"user": lia})
    before = len(memory)
    # Lia is named as the user but declared nowhere: a recipient must be a typed vertex (invariant 2).
    with pytest.raises(SessionWriteRefused) as refusal:
        add(session, {"role": "assistant", "content": "hello"})
    assert isinstance(refusal.value, UserError) and isinstance(refusal.value, Refused)
    assert "mem:TypedVertexShape" in str(refusal.value) and lia in str(refusal.value)
    assert len(memory) == before and run(session.get_items()) == []
    memory.add(Vertex(id=lia, cls=mem.Person, display_name="Lia"), graph=LIA_T)
    add(session, {"role": "assistant", "content": "hello"})
    assert len(run(session.get_items())) == 1
    with pytest.raises(ValueError, match="not JSON"):
        add(session, {"role": "user", "content": {1, 2}})
