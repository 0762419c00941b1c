"""memkg.integrations.langgraph: MemkgStore against LangGraph itself (a compiled graph, its
store API and batches) and LangChain's standard key-value suite; never a mock."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph", reason="langgraph is not installed (pip install 'memkg[langgraph]')")
pytest.importorskip("langchain_tests", reason="langchain-tests is not installed (it comes with the test extra)")

from langchain_core.stores import BaseStore as KeyValueStore  # noqa: E402
from langchain_tests.integration_tests import BaseStoreAsyncTests, BaseStoreSyncTests  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchItem, SearchOp  # noqa: E402
from pyoxigraph import NamedNode  # noqa: E402

from memkg import MemoryStore, mem  # noqa: E402
from memkg.integrations.langgraph import MemkgStore, StoreWriteRefused  # noqa: E402
from memkg.integrations.shared import PAYLOAD  # noqa: E402
from memkg.recall import HashingEmbedder, recall_index  # noqa: E402

LIA = ("users", "lia", "memories")
BOB = ("users", "bob", "memories")


@pytest.fixture
def memory() -> MemoryStore:
    return MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])


@pytest.fixture
def lg(memory: MemoryStore) -> MemkgStore:
    return MemkgStore(memory)


# -- versions, never overwrites ------------------------------------------------------------


def test_a_new_value_supersedes_and_the_old_one_stays(lg: MemkgStore, memory: MemoryStore) -> None:
    lg.put(LIA, "drink", {"text": "Lia drinks coffee after dinner"})
    first = lg.version(LIA, "drink")
    lg.put(LIA, "drink", {"text": "Lia switched to chamomile tea"})
    item = lg.get(LIA, "drink")
    assert item is not None and item.value == {"text": "Lia switched to chamomile tea"}
    assert item.key == "drink" and item.namespace == LIA and item.created_at < item.updated_at
    current = lg.version(LIA, "drink")
    assert first is not None and current is not None and current != first
    # memkg's own history view reads both versions, oldest first; the old value is still stored.
    rows: Any = memory.view("history", {"claim": current, "tenant": lg.tenant(LIA)})
    assert [r["claim"].value for r in rows] == [first, current]
    assert any(memory.quads(NamedNode(current), mem.supersedes, NamedNode(first)))
    assert [(v.status, v.value["text"]) for v in lg.history(LIA, "drink")] == [
        ("superseded", "Lia drinks coffee after dinner"), ("current", "Lia switched to chamomile tea")]


def test_putting_the_current_value_again_writes_nothing(lg: MemkgStore, memory: MemoryStore) -> None:
    lg.put(LIA, "drink", {"text": "tea"})
    before = len(memory)
    lg.put(LIA, "drink", {"text": "tea"})
    assert len(memory) == before and len(lg.history(LIA, "drink")) == 1


def test_a_delete_is_a_retraction_and_a_later_put_starts_again(lg: MemkgStore, memory: MemoryStore) -> None:
    lg.put(LIA, "drink", {"text": "tea"})
    claim = lg.version(LIA, "drink")
    lg.delete(LIA, "drink")
    assert lg.get(LIA, "drink") is None and lg.version(LIA, "drink") is None
    retractions = [q.subject for q in memory.quads(None, mem.retracts, NamedNode(claim or ""))]
    assert len(retractions) == 1 and any(memory.quads(retractions[0], None, None, NamedNode(lg.tenant(LIA))))
    lg.delete(LIA, "drink")  # deleting what is gone records nothing more
    assert len(list(memory.quads(None, mem.retracts, None))) == 1
    lg.put(LIA, "drink", {"text": "water"})
    again = lg.get(LIA, "drink")
    assert again is not None and again.value == {"text": "water"} and again.created_at == again.updated_at
    assert [v.status for v in lg.history(LIA, "drink")] == ["deleted", "current"]


def test_keys_are_stable_iris_of_their_namespace(lg: MemkgStore) -> None:
    assert lg.iri(LIA, "drink") == lg.iri(LIA, "drink") == "urn:memkg:langgraph:users/lia/memories#drink"
    odd = "../bob/memories#drink?x=1 é"
    lg.put(LIA, odd, {"text": "odd"})
    assert lg.get(LIA, odd) is not None and lg.get(BOB, "drink") is None
    assert [i.key for i in lg.search(LIA)] == [odd]


def test_a_store_path_keeps_the_memory(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "memory", followers=[recall_index(embedder=HashingEmbedder())]) as memory:
        MemkgStore(memory).put(LIA, "drink", {"text": "tea"})
    reopened = MemkgStore(tmp_path / "memory")
    item = reopened.get(LIA, "drink")
    assert item is not None and item.value == {"text": "tea"}
    reopened.memory.close()


# -- search is recall --------------------------------------------------------------------


def _fill(lg: MemkgStore) -> None:
    lg.put(LIA, "drink", {"text": "Lia drinks coffee after dinner", "topic": "food", "stars": 2})
    lg.put(LIA, "drink", {"text": "Lia drinks chamomile tea after dinner", "topic": "food", "stars": 4})
    lg.put(LIA, "build", {"text": "the build server broke again", "topic": "work", "stars": 1})
    lg.put(LIA, "trip", {"text": "Lia flies to Lisbon in May", "topic": "travel", "stars": 5})


def test_search_with_a_query_is_recall_with_scores(lg: MemkgStore) -> None:
    _fill(lg)
    found = lg.search(LIA[:2], query="what does Lia drink after dinner?", limit=3)
    assert found and all(isinstance(i, SearchItem) and i.score is not None for i in found)
    assert found[0].key == "drink" and found[0].value["text"] == "Lia drinks chamomile tea after dinner"
    assert [i.score for i in found] == sorted((i.score or 0.0 for i in found), reverse=True)
    assert len({i.key for i in found}) == len(found)  # one item once, however many nodes led to it
    assert all("coffee" not in i.value["text"] for i in found)  # the superseded value is never an item


def test_search_filters_and_pages_as_langgraph_does(lg: MemkgStore) -> None:
    _fill(lg)
    assert [i.key for i in lg.search(LIA, filter={"topic": "work"})] == ["build"]
    assert {i.key for i in lg.search(LIA, filter={"stars": {"$gte": 4}})} == {"drink", "trip"}
    assert {i.key for i in lg.search(LIA, filter={"topic": {"$ne": "food"}})} == {"build", "trip"}
    assert [i.key for i in lg.search(LIA, query="Lisbon", filter={"topic": "travel"})] == ["trip"]
    listed = lg.search(LIA)  # no query: the current items, latest first, without scores
    assert [i.key for i in listed] == ["trip", "build", "drink"] and all(i.score is None for i in listed)
    assert [i.key for i in lg.search(LIA, limit=1, offset=1)] == ["build"]


def test_recall_reads_the_string_fields_or_the_fields_the_index_names(memory: MemoryStore) -> None:
    def words(lg: MemkgStore, key: str) -> str:
        claim = NamedNode(lg.version(LIA, key) or "")
        reified: Any = next(memory.quads(claim, NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"), None))
        return str(reified.object.object.value)

    every = MemkgStore(memory)
    every.put(LIA, "a", {"text": "alpha", "tags": ["beta", {"deep": "gamma"}], "n": 7})
    assert words(every, "a") == "alpha\nbeta\ngamma"
    named = MemkgStore(memory, index={"fields": ["text", "tags[0]"]})
    named.put(LIA, "b", {"text": "alpha", "tags": ["beta", "gamma"], "other": "zebra"})
    assert words(named, "b") == "alpha\nbeta"
    named.put(LIA, "c", {"text": "alpha", "other": "zebra"}, index=["other"])
    assert words(named, "c") == "zebra"
    named.put(LIA, "d", {"text": "alpha"}, index=False)
    assert words(named, "d") == ""
    with pytest.raises(ValueError, match="embedder"):
        MemkgStore(memory, index={"dims": 3, "embed": lambda texts: [[0.0] * 3 for _ in texts]})


# -- tenancy ---------------------------------------------------------------------------------


def test_two_namespaces_never_see_each_other_whatever_the_key_says(lg: MemkgStore) -> None:
    lg.put(LIA, "drink", {"text": "Lia drinks tea"})
    lg.put(BOB, "drink", {"text": "Bob drinks tea"})
    lg.put(("users", "lia2"), "drink", {"text": "Lia2 drinks tea"})
    lg.put(BOB, "../../lia/memories#drink", {"text": "Bob's key names Lia's item"})
    assert lg.tenant(LIA) != lg.tenant(BOB)
    lia_items = lg.search(("users", "lia"), query="who drinks tea?", limit=50)
    assert [(i.namespace, i.value["text"]) for i in lia_items] == [(LIA, "Lia drinks tea")]
    assert {i.value["text"] for i in lg.search(("users", "lia"))} == {"Lia drinks tea"}
    item = lg.get(LIA, "drink")
    assert item is not None and item.value == {"text": "Lia drinks tea"}
    assert lg.list_namespaces(prefix=("users",)) == [("users", "bob", "memories"), LIA, ("users", "lia2")]
    assert lg.list_namespaces(prefix=("users",), max_depth=2) == [("users", "bob"), ("users", "lia"), ("users", "lia2")]
    assert lg.list_namespaces(suffix=("*", "memories")) == [BOB, LIA]


def test_namespace_labels_are_checked_as_langgraph_checks_them(lg: MemkgStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        lg.batch([GetOp(("users.lia",), "drink")])
    with pytest.raises(InvalidNamespaceError):
        lg.put(("langgraph",), "k", {"text": "reserved"})
    with pytest.raises(InvalidNamespaceError):
        lg.batch([PutOp((), "k", {"text": "nowhere"})])
    assert lg.batch([GetOp((), "k")]) == [None]


# -- batches -----------------------------------------------------------------------------------


def test_a_batch_reads_before_it_writes_and_the_last_put_wins(lg: MemkgStore) -> None:
    lg.put(LIA, "drink", {"text": "tea"})
    results = lg.batch([
        PutOp(LIA, "drink", {"text": "coffee"}),
        GetOp(LIA, "drink"),
        PutOp(LIA, "drink", {"text": "water"}),
        SearchOp(LIA, query="tea"),
    ])
    assert results[0] is None and results[2] is None
    assert results[1].value == {"text": "tea"}  # type: ignore[union-attr]
    assert [i.value["text"] for i in results[3]] == ["tea"]  # type: ignore[union-attr]
    assert [v.value["text"] for v in lg.history(LIA, "drink")] == ["tea", "water"]


def test_a_batch_with_bad_input_writes_nothing(lg: MemkgStore, memory: MemoryStore) -> None:
    lg.put(LIA, "drink", {"text": "tea"})
    before = len(memory)
    with pytest.raises(ValueError, match="key 'bad' is not JSON"):
        lg.batch([PutOp(BOB, "good", {"text": "fine"}), PutOp(BOB, "bad", {"x": math.nan})])
    with pytest.raises(ValueError, match="not valid text"):
        lg.put(BOB, "bad", {"text": "\ud800"})
    with pytest.raises(TypeError, match="mapping"):
        lg.batch([PutOp(BOB, "bad", ["not", "a", "dict"])])  # type: ignore[arg-type]
    assert len(memory) == before and lg.get(BOB, "good") is None


def test_the_refusal_is_langgraphs_error_and_memkgs() -> None:
    # MemkgStore mints every IRI and declares every type its writes link to, in the namespace's
    # own tenant, so no put or delete can break an invariant (the LangChain and Agents SDK
    # adapters, which take the caller's speakers, test a real refusal); what a refusal would
    # raise is both LangGraph's error and memkg's.
    from langgraph.errors import InvalidUpdateError

    from memkg import Refused

    assert issubclass(StoreWriteRefused, InvalidUpdateError) and issubclass(StoreWriteRefused, Refused)


# -- through LangGraph's own entry points ----------------------------------------------------------


class State(TypedDict):
    user: str
    text: str
    answer: str


def remember_or_recall(state: State, runtime: Runtime[None]) -> dict[str, str]:
    """A node: "remember …" stores a memory for the user, anything else recalls one."""
    store = runtime.store
    assert store is not None
    namespace = ("users", state["user"], "memories")
    if state["text"].startswith("remember "):
        store.put(namespace, "latest", {"text": state["text"].removeprefix("remember ")})
        return {"answer": "noted"}
    hits = store.search(namespace, query=state["text"], limit=1)
    return {"answer": hits[0].value["text"] if hits else "nothing remembered"}


def _graph(lg: MemkgStore) -> Any:
    builder = StateGraph(State)
    builder.add_node("memory", remember_or_recall)
    builder.add_edge(START, "memory")
    builder.add_edge("memory", END)
    return builder.compile(store=lg, checkpointer=InMemorySaver())


def test_a_compiled_graph_remembers_across_threads(lg: MemkgStore) -> None:
    app = _graph(lg)
    said = app.invoke({"user": "lia", "text": "remember Lia prefers green tea", "answer": ""},
                      {"configurable": {"thread_id": "monday"}})
    assert said["answer"] == "noted"
    later = app.invoke({"user": "lia", "text": "what does Lia prefer?", "answer": ""},
                       {"configurable": {"thread_id": "friday"}})
    assert later["answer"] == "Lia prefers green tea"
    other = app.invoke({"user": "bob", "text": "what does Lia prefer?", "answer": ""},
                       {"configurable": {"thread_id": "bob-1"}})
    assert other["answer"] == "nothing remembered"


def test_a_compiled_graph_remembers_when_run_async(lg: MemkgStore) -> None:
    app = _graph(lg)

    async def run() -> tuple[str, str]:
        first = await app.ainvoke({"user": "lia", "text": "remember Lia flies to Lisbon", "answer": ""},
                                  {"configurable": {"thread_id": "a"}})
        second = await app.ainvoke({"user": "lia", "text": "where does Lia fly?", "answer": ""},
                                   {"configurable": {"thread_id": "b"}})
        return first["answer"], second["answer"]

    assert asyncio.run(run()) == ("noted", "Lia flies to Lisbon")
    assert lg.get(("users", "lia", "memories"), "latest") is not None


# -- LangChain's standard key-value suite, over one namespace of the store ---------------------------


class OneNamespace(KeyValueStore[str, dict[str, Any]]):
    """LangChain's key-value interface over one MemkgStore namespace, so the standard suite
    judges MemkgStore's put, get, delete and listing (it is not a store of its own)."""

    def __init__(self, lg: MemkgStore, namespace: tuple[str, ...]) -> None:
        self.lg, self.namespace = lg, namespace

    def mget(self, keys: Sequence[str]) -> list[dict[str, Any] | None]:
        items = self.lg.batch([GetOp(self.namespace, k) for k in keys])
        return [None if i is None else i.value for i in items]  # type: ignore[union-attr]

    def mset(self, key_value_pairs: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self.lg.batch([PutOp(self.namespace, k, v) for k, v in key_value_pairs])

    def mdelete(self, keys: Sequence[str]) -> None:
        self.lg.batch([PutOp(self.namespace, k, None) for k in keys])

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        for item in self.lg.search(self.namespace, limit=10_000):
            if prefix is None or item.key.startswith(prefix):
                yield item.key

    async def ayield_keys(self, *, prefix: str | None = None) -> AsyncIterator[str]:
        for key in await asyncio.to_thread(lambda: list(self.yield_keys(prefix=prefix))):
            yield key


THREE = ({"text": "one"}, {"text": "two", "n": 2}, {"text": "three", "tags": ["x"]})


class TestStandardKeyValueSync(BaseStoreSyncTests[dict[str, Any]]):
    @pytest.fixture
    def kv_store(self) -> OneNamespace:
        return OneNamespace(MemkgStore(MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])), LIA)

    @pytest.fixture
    def three_values(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        return THREE


class TestStandardKeyValueAsync(BaseStoreAsyncTests[dict[str, Any]]):
    @pytest.fixture
    async def kv_store(self) -> OneNamespace:
        return OneNamespace(MemkgStore(MemoryStore(followers=[recall_index(embedder=HashingEmbedder())])), LIA)

    @pytest.fixture
    def three_values(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        return THREE
