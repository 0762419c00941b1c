"""memkg.integrations.langchain: MemkgRetriever under LangChain's standard retriever suite and
in a runnable chain, MemkgChatMessageHistory under RunnableWithMessageHistory; fake chat
models from langchain-core drive the chains, never a network call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="langchain-core is not installed (pip install 'memkg[langchain]')")
pytest.importorskip("langchain_tests", reason="langchain-tests is not installed (it comes with the test extra)")

from langchain_core.chat_history import BaseChatMessageHistory  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.exceptions import LangChainException  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder  # noqa: E402
from langchain_tests.integration_tests import RetrieversIntegrationTests  # noqa: E402
from langchain_core.runnables import RunnableConfig, RunnableLambda, RunnablePassthrough  # noqa: E402
from pyoxigraph import Literal, NamedNode  # noqa: E402

from memkg import Claim, MemoryStore, Message, Predicate, Refused, Vertex, mem, prov  # noqa: E402
from memkg.integrations.langchain import HistoryWriteRefused, MemkgChatMessageHistory, MemkgRetriever  # noqa: E402
from memkg.recall import HashingEmbedder, recall_index  # noqa: E402

EX = "https://example.org/"
LIA_T, BOB_T = EX + "tenants/lia", EX + "tenants/bob"
LIA = NamedNode(EX + "lia")


def lia_memory() -> MemoryStore:
    """Lia's memory: a few messages and a claim asserted by one of them; Bob's, beside it."""
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    memory.add_all([Vertex(id=LIA, cls=mem.Person, display_name="Lia"),
                    Vertex(id=EX + "tea", display_name="chamomile tea"),
                    Predicate(id=EX + "drinks", label="drinks")], graph=LIA_T)
    said = [memory.add(Message(content=text, sender=LIA, event_id=f"lia-{i}"), graph=LIA_T)
            for i, text in enumerate(["I drink chamomile tea in the evening", "The build server broke again",
                                      "My flight to Lisbon leaves in May", "Tea without sugar, please",
                                      "I water the plants on Sundays"])]
    memory.add(Claim(subject=LIA, predicate=EX + "drinks", object=NamedNode(EX + "tea"), asserted_by=said[0]),
               graph=LIA_T)
    memory.add(Message(content="Bob drinks tea with lemon", event_id="bob-0"), graph=BOB_T)
    return memory


_SHARED: list[MemoryStore] = []


def shared_memory() -> MemoryStore:
    if not _SHARED:
        _SHARED.append(lia_memory())
    return _SHARED[0]


# -- the retriever ---------------------------------------------------------------------------

class TestStandardRetriever(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[MemkgRetriever]:
        return MemkgRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"store": shared_memory(), "tenant": LIA_T}

    @property
    def retriever_query_example(self) -> str:
        return "what does Lia drink in the evening?"


def test_documents_carry_iri_kind_score_signals_and_evidence() -> None:
    memory = shared_memory()
    docs = MemkgRetriever(memory, tenant=LIA_T, k=5).invoke("what does Lia drink?")
    assert docs and all(isinstance(d, Document) for d in docs)
    for doc in docs:
        meta = doc.metadata
        assert doc.id == meta["iri"] and meta["kind"] in {"Message", "Claim", "Person", "Entity"}
        assert isinstance(meta["score"], float) and meta["signals"] and meta["graph"] == LIA_T
        assert meta["evidence"]["seed"] == meta["iri"] and meta["evidence"]["items"][0]["id"] == meta["iri"]
    claim = next(d for d in docs if d.metadata["kind"] == "Claim")
    assert claim.page_content == "Lia drinks chamomile tea"
    # The claim's evidence reaches the message that asserted it, by IRI, for the answer to cite.
    cited = {i["id"]: i for i in claim.metadata["evidence"]["items"]}
    assert any(v["link"] == "mem:assertedBy" for i in cited.values() for v in i["via"])
    assert any(i.get("content") == "I drink chamomile tea in the evening" for i in cited.values())
    bare = MemkgRetriever(memory, tenant=LIA_T, k=2, packet=False).invoke("tea")
    assert all("evidence" not in d.metadata for d in bare)


def test_a_retriever_keeps_to_its_tenant() -> None:
    memory = shared_memory()
    lia = MemkgRetriever(memory, tenant=LIA_T, k=20).invoke("who drinks tea with lemon?")
    assert lia and all(d.metadata["graph"] == LIA_T for d in lia)
    assert all("lemon" not in d.page_content for d in lia)
    bob = MemkgRetriever(memory, tenant=BOB_T, k=20).invoke("who drinks tea?")
    assert [d.page_content for d in bob] == ["Bob drinks tea with lemon"]


def test_a_retriever_refuses_a_bad_k_clearly() -> None:
    with pytest.raises(ValueError, match="k must be"):
        MemkgRetriever(shared_memory()).invoke("tea", k=0)
    with pytest.raises(ValueError):
        MemkgRetriever(shared_memory(), k=0)


def test_a_retriever_in_a_runnable_chain() -> None:
    retriever = MemkgRetriever(shared_memory(), tenant=LIA_T, k=2)
    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer from these memories, citing their IRIs:\n{context}"), ("human", "{question}")])
    seen: list[str] = []

    def cite(docs: list[Document]) -> str:
        return "\n".join(f"<{d.metadata['iri']}> {d.page_content}" for d in docs)

    def spy(value: Any) -> Any:
        seen.append(value.to_string())
        return value

    model = FakeListChatModel(responses=["Chamomile tea, in the evening."])
    chain = ({"context": retriever | cite, "question": RunnablePassthrough()} | prompt | RunnableLambda(spy)
             | model | StrOutputParser())
    assert chain.invoke("what does Lia drink in the evening?") == "Chamomile tea, in the evening."
    assert "chamomile tea" in seen[0] and "<urn:memkg:" in seen[0]
    assert asyncio.run(chain.ainvoke("what does Lia drink?")) == "Chamomile tea, in the evening."


# -- the chat history ---------------------------------------------------------------------------


def test_each_message_is_a_mem_message_with_sender_episode_and_event_id() -> None:
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    history = MemkgChatMessageHistory(memory, session_id="chat 1", tenant=LIA_T)
    assert isinstance(history, BaseChatMessageHistory)
    sent: list[BaseMessage] = [SystemMessage("Be brief."), HumanMessage("I prefer tea", id="h-1"),
                               AIMessage("Noted: tea.", id="a-1"),
                               ToolMessage("42", tool_call_id="call-1", id="t-1")]
    history.add_messages(sent)
    assert history.messages == sent
    graph = NamedNode(LIA_T)
    node: Any = next(q.subject for q in memory.quads(None, mem.eventId, None, graph)
                     if q.object == Literal("langchain:chat 1:h-1"))

    def one(p: NamedNode) -> Any:
        return next(memory.quads(node, p, None, graph)).object

    assert one(mem.content).value == "I prefer tea" and one(mem.turn).value == "2"
    assert one(prov.wasGeneratedBy) == history.conversation.episode
    assert one(prov.wasAttributedTo) == NamedNode("urn:memkg:speaker:user")
    assert memory.recall("what do I prefer?", tenant=LIA_T, k=1)[0].node == node.value  # recall reads it


def test_a_retried_message_is_one_message() -> None:
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    history = MemkgChatMessageHistory(memory, session_id="s", tenant=LIA_T)
    hello = HumanMessage("hello")  # no id: the history gives it one
    history.add_messages([hello])
    history.add_messages([hello])
    history.add_message(HumanMessage("hello", id=hello.id))
    assert [m.content for m in history.messages] == ["hello"]
    history.add_messages([HumanMessage("hello")])  # the same words said again: another message
    assert [m.content for m in history.messages] == ["hello", "hello"]
    other = MemkgChatMessageHistory(memory, session_id="t", tenant=LIA_T)
    other.add_messages([HumanMessage("hello", id=hello.id)])  # ids are per session
    assert len(other.messages) == 1 and len(history.messages) == 2


def test_clear_retracts_and_keeps_the_record() -> None:
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    history = MemkgChatMessageHistory(memory, session_id="s", tenant=LIA_T)
    history.add_messages([HumanMessage("one"), AIMessage("two")])
    before = len(list(memory.quads(None, mem.content, None)))
    history.clear()
    assert history.messages == [] and len(list(memory.quads(None, mem.content, None))) == before
    assert len(list(memory.quads(None, mem.retracts, None))) == 2
    history.add_messages([HumanMessage("three")])
    assert [m.content for m in history.messages] == ["three"]
    history.messages = [AIMessage("four")]
    assert [m.content for m in history.messages] == ["four"]


def test_sessions_and_tenants_are_apart() -> None:
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    MemkgChatMessageHistory(memory, session_id="s", tenant=LIA_T).add_messages([HumanMessage("Lia's")])
    MemkgChatMessageHistory(memory, session_id="s", tenant=BOB_T).add_messages([HumanMessage("Bob's")])
    MemkgChatMessageHistory(memory, session_id="s2", tenant=LIA_T).add_messages([HumanMessage("Lia's other")])
    assert [m.content for m in MemkgChatMessageHistory(memory, session_id="s", tenant=LIA_T).messages] == ["Lia's"]
    assert [m.content for m in MemkgChatMessageHistory(memory, session_id="s", tenant=BOB_T).messages] == ["Bob's"]


def test_a_refused_write_is_langchains_error_naming_the_rule_with_nothing_written() -> None:
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    bob = EX + "bob"
    memory.add(Vertex(id=bob, cls=mem.Person, display_name="Bob"), graph=BOB_T)
    # Lia's tenant names Bob as its user, but only Bob's tenant says who Bob is (invariant 7).
    history = MemkgChatMessageHistory(memory, session_id="s", tenant=LIA_T, speakers={"user": bob})
    before = len(memory)
    with pytest.raises(HistoryWriteRefused) as refusal:
        history.add_messages([HumanMessage("hello"), AIMessage("hi")])
    assert isinstance(refusal.value, LangChainException) and isinstance(refusal.value, Refused)
    assert "mem:TenantIsolationShape" in str(refusal.value) and bob in str(refusal.value)
    assert len(memory) == before and history.messages == []
    with pytest.raises(ValueError, match="unknown role"):
        MemkgChatMessageHistory(memory, session_id="s", speakers={"customer": bob})


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # RunnableWithMessageHistory is deprecated upstream
@pytest.mark.filterwarnings("ignore::langchain_core._api.deprecation.LangChainDeprecationWarning")
def test_runnable_with_message_history_remembers_across_calls() -> None:
    from langchain_core.runnables.history import RunnableWithMessageHistory

    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")])
    seen: list[list[BaseMessage]] = []

    def spy(value: Any) -> Any:
        seen.append(value.to_messages())
        return value

    model = FakeListChatModel(responses=["Noted: green tea.", "You prefer green tea."])
    chain = RunnableWithMessageHistory(
        prompt | RunnableLambda(spy) | model,
        lambda session_id: MemkgChatMessageHistory(memory, session_id=session_id, tenant=LIA_T),
        input_messages_key="question", history_messages_key="history")
    config: RunnableConfig = {"configurable": {"session_id": "lia-chat"}}
    chain.invoke({"question": "I prefer green tea"}, config)
    answer = chain.invoke({"question": "What do I prefer?"}, config)
    assert answer.content == "You prefer green tea."
    assert [m.content for m in seen[1]] == ["I prefer green tea", "Noted: green tea.", "What do I prefer?"]
    kept = MemkgChatMessageHistory(memory, session_id="lia-chat", tenant=LIA_T).messages
    assert [m.type for m in kept] == ["human", "ai", "human", "ai"]
