"""Every parameter the framework adapters take reaches memkg: a differential test per adapter.

The parameters are collected from the adapters themselves: the retriever's fields and
``invoke``'s keywords, the LangGraph ``BaseStore`` methods' signatures, the chat history's and
session's constructors and ``get_items``. Each one is given a value that changes the answer,
and the answer must be the reference's given the same value:

- ``MemkgRetriever``: memkg's recall (:func:`memkg.recall.answer`) given the same parameters;
- ``MemkgStore``: LangGraph's own ``InMemoryStore`` holding the same items (filters, limits,
  offsets, namespaces work as in LangGraph's own stores; memkg lists the latest first), and
  memkg's recall for a ``query``;
- ``MemkgChatMessageHistory``, ``MemkgSession``: what the library reads back of what they wrote
  (the messages' graph, episode and sender), and the items themselves for limits.

A parameter an adapter drops or mangles gives the answer without it, which is another answer.
A new parameter fails here until it has a value below, or a reason in its ``NO_EFFECT`` list.
The memory: two tenants with the same IRIs and different facts (:mod:`tests.support.parameters`).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any

import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore
from memkg.core.terms import parse_datetime
from memkg.core.vocab import mem, prov
from memkg.recall import answer, recall
from tests.support.parameters import A, B, EX, FEBRUARY, JANUARY, two_tenants

pytestmark = pytest.mark.slow


def _keywords(fn: Any, *, skip: tuple[str, ...] = ("self",)) -> set[str]:
    return {p.name for p in inspect.signature(fn).parameters.values()
            if p.name not in skip and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


@pytest.fixture(scope="module")
def memory() -> MemoryStore:
    store: MemoryStore = two_tenants()
    return store


# -- LangChain's retriever ----------------------------------------------------------------------

RETRIEVER_BASE: dict[str, Any] = {"tenant": A, "k": 3, "packet": False}
#: The retriever's parameters (its fields and invoke's keywords), each with an answer-changing value.
RETRIEVER_VARIED: dict[str, Any] = {
    "tenant": B, "k": 8, "valid_at": parse_datetime(JANUARY), "known_at": parse_datetime(FEBRUARY), "packet": True,
    "invoke:k": 6,
}
RETRIEVER_NO_EFFECT = {
    "store": "the memory itself, which every call reads",
    "name": "LangChain's label for the runnable, in traces",
    "tags": "LangChain's labels for callbacks and traces",
    "metadata": "LangChain's metadata for callbacks and traces",
}
QUESTION = "Lia likes green tea and orange juice, note 3"


def _retriever_parameters() -> set[str]:
    from memkg.integrations.langchain import MemkgRetriever

    fields = set(MemkgRetriever.model_fields)
    invoked = {f"invoke:{p}" for p in _keywords(MemkgRetriever._get_relevant_documents, skip=("self", "query", "run_manager"))}
    return fields | invoked


def _documents(memory: MemoryStore, options: dict[str, Any]) -> list[tuple[Any, ...]]:
    from memkg.integrations.langchain import MemkgRetriever

    fields = {k: v for k, v in options.items() if not k.startswith("invoke:")}
    per_call = {k.split(":", 1)[1]: v for k, v in options.items() if k.startswith("invoke:")}
    docs = MemkgRetriever(memory, **fields).invoke(QUESTION, **per_call)
    return [(d.metadata["iri"], d.metadata["status"], d.metadata.get("evidence", {}).get("seed")) for d in docs]


def _recalled(memory: MemoryStore, options: dict[str, Any]) -> list[tuple[Any, ...]]:
    k = options.get("invoke:k", options.get("k", 4))
    found = answer(memory, QUESTION, tenant=options.get("tenant"), k=k, valid_at=options.get("valid_at"),
                   known_at=options.get("known_at"), packet=options.get("packet", True))
    return [(h.node, h.status, h.node if found.packet is not None else None) for h in found.hits]


def test_every_retriever_parameter_has_a_value_or_a_reason() -> None:
    assert _retriever_parameters() == set(RETRIEVER_VARIED) | set(RETRIEVER_NO_EFFECT)


@pytest.mark.parametrize("name", sorted(RETRIEVER_VARIED))
def test_each_retriever_parameter_gives_recalls_answer(memory: MemoryStore, name: str) -> None:
    given = {**RETRIEVER_BASE, name: RETRIEVER_VARIED[name]}
    without, ours = _documents(memory, RETRIEVER_BASE), _documents(memory, given)
    assert ours != without, f"{name}={RETRIEVER_VARIED[name]!r} does not change the documents; choose a value that does"
    assert ours == _recalled(memory, given), f"MemkgRetriever({name}=…) does not answer as recall given it"


# -- LangGraph's store --------------------------------------------------------------------------

#: The items both stores hold, in order: two users with the same keys and different values, and a
#: dozen notes of Lia's.
ITEMS = [(("users", "lia", "prefs"), "drink", {"text": "green tea in the evening", "kind": "drink", "n": 1}),
         (("users", "bo", "prefs"), "drink", {"text": "orange juice at breakfast", "kind": "drink", "n": 2}),
         (("users", "bo", "prefs"), "food", {"text": "noodles for lunch", "kind": "food", "n": 3}),
         *((("users", "lia", "notes"), f"note{i}", {"text": f"Lia wrote note {i} about the garden", "kind": "note", "n": i})
           for i in range(12))]

#: Each method's call without the parameter, and the parameter's answer-changing value.
STORE_BASE: dict[str, dict[str, Any]] = {
    "get": {"namespace": ("users", "lia", "prefs"), "key": "drink"},
    "search": {"namespace_prefix": ("users",), "limit": 20},
    "list_namespaces": {},
}
STORE_VARIED: dict[tuple[str, str], Any] = {
    ("get", "namespace"): ("users", "bo", "prefs"),
    ("get", "key"): "food",
    ("search", "namespace_prefix"): ("users", "lia"),
    ("search", "filter"): {"kind": "drink"},
    ("search", "limit"): 4,
    ("search", "offset"): 5,
    ("search", "query"): "orange juice at breakfast",
    ("list_namespaces", "prefix"): ("users", "bo"),
    ("list_namespaces", "suffix"): ("notes",),
    ("list_namespaces", "max_depth"): 2,
    ("list_namespaces", "limit"): 1,
    ("list_namespaces", "offset"): 1,
    ("put", "index"): False,
    ("MemkgStore", "index"): {"fields": ["kind"]},
    ("MemkgStore", "tenant_base"): "urn:x:graphs:",
}
STORE_NO_EFFECT = {
    ("get", "refresh_ttl"): "TTLs are not supported (supports_ttl is false): memkg keeps history",
    ("search", "refresh_ttl"): "the same",
    ("put", "ttl"): "the same",
    ("put", "namespace"): "every put names one: the gets and searches above read where they went",
    ("put", "key"): "the same",
    ("put", "value"): "the same: the values are what the gets and searches answer",
    ("delete", "namespace"): "a delete is a put of None (BaseStore.delete): as put's",
    ("delete", "key"): "the same",
    ("MemkgStore", "store"): "the memory itself, which every call reads",
}


def _store_parameters() -> set[tuple[str, str]]:
    from langgraph.store.base import BaseStore

    from memkg.integrations.langgraph import MemkgStore

    methods = {m: _keywords(getattr(BaseStore, m)) for m in ("get", "search", "put", "delete", "list_namespaces")}
    methods["MemkgStore"] = _keywords(MemkgStore.__init__)
    return {(m, p) for m, names in methods.items() for p in names}


def _filled(store: Any) -> Any:
    for namespace, key, value in ITEMS:
        store.put(namespace, key, value)
        time.sleep(0.002)  # distinct update times, so that "latest first" is one order
    return store


def _graph_store(**options: Any) -> Any:
    from memkg.integrations.langgraph import MemkgStore

    return _filled(MemkgStore(MemoryStore(), **options))


def _shown(found: Any) -> Any:
    if found is None or isinstance(found, (list, tuple)) and found and isinstance(found[0], tuple):
        return found
    if isinstance(found, list):
        return [(tuple(i.namespace), i.key, i.value) for i in found]
    return (tuple(found.namespace), found.key, found.value)


def _reference(method: str, args: dict[str, Any]) -> Any:
    """LangGraph's InMemoryStore given the same call; a search without a query listed latest first,
    as memkg documents (LangGraph's lists oldest first)."""
    from langgraph.store.memory import InMemoryStore

    reference = _filled(InMemoryStore())
    if method == "search":
        found = reference.search(args["namespace_prefix"], filter=args.get("filter"), limit=10_000)
        found.sort(key=lambda i: i.updated_at, reverse=True)
        offset = args.get("offset", 0)
        return _shown(found[offset:offset + args.get("limit", 10)])
    if method == "list_namespaces":
        return reference.list_namespaces(**args)
    return _shown(getattr(reference, method)(**args))


def _recall_reference(store: Any, args: dict[str, Any]) -> Any:
    """memkg's recall over the namespace's tenants: the first current version it finds, and its item."""
    graphs = [g for g in store.memory.named_graphs() if g.value.startswith(store.tenant(args["namespace_prefix"]))]
    hits = recall(store.memory, args["query"], tenants=[g.value for g in graphs], k=20)
    return next(h.node for h in hits if h.kind == "Claim" and h.status == "current")


#: What the current version of Lia's drink states (what recall reads of it) under each write option.
WRITTEN = {("put", "index"): "", ("MemkgStore", "index"): "drink",
           ("MemkgStore", "tenant_base"): "green tea in the evening\ndrink"}
DRINK = ("users", "lia", "prefs")


def _check_what_is_written(method: str, name: str, value: Any) -> None:
    """A write option, read back through the library: the current version's graph and statement."""
    def stated(store: Any) -> tuple[str, str]:
        claim = NamedNode(store.version(DRINK, "drink"))
        found, graph = store.memory.get_claim(claim)
        return graph.value, found.triple().object.value

    options = {name: value} if method == "MemkgStore" else {}
    store, without = _graph_store(**options), _graph_store()
    if method == "put":
        store.put(DRINK, "drink", {**ITEMS[0][2], "n": 9}, index=value)
        without.put(DRINK, "drink", {**ITEMS[0][2], "n": 9})
    ours = stated(store)
    assert ours != stated(without), f"{method}({name}={value!r}) changes nothing written; choose a value that does"
    assert ours == (store.tenant(DRINK), WRITTEN[(method, name)]), f"{method}({name}={value!r}) is not written as given"
    assert ours[0].startswith(value if name == "tenant_base" else "urn:memkg:langgraph:")


def test_every_store_parameter_has_a_value_or_a_reason() -> None:
    assert _store_parameters() == set(STORE_VARIED) | set(STORE_NO_EFFECT)


@pytest.mark.parametrize(("method", "name"), sorted(STORE_VARIED), ids=[f"{m}-{n}" for m, n in sorted(STORE_VARIED)])
def test_each_store_parameter_answers_as_the_reference(method: str, name: str) -> None:
    value = STORE_VARIED[(method, name)]
    if method in ("put", "MemkgStore"):
        _check_what_is_written(method, name, value)
        return
    store = _graph_store()
    base = STORE_BASE[method]
    given = {**base, name: value}
    call = getattr(store, method)
    if method == "search":
        prefix = given.pop("namespace_prefix")
        ours, without = _shown(call(prefix, **given)), _shown(call(base["namespace_prefix"], **{k: v for k, v in base.items() if k != "namespace_prefix"}))
        given["namespace_prefix"] = prefix
    else:
        ours, without = _shown(call(**given)), _shown(call(**base))
    assert ours != without, f"{method}: {name}={value!r} does not change the answer; choose a value that does"
    if name == "query":
        top = _recall_reference(store, given)
        assert store.version(ours[0][0], ours[0][1]) == top, f"search(query=…) does not lead with recall's first hit {top}"
    else:
        assert ours == _reference(method, given), f"{method}({name}={value!r}) does not answer as LangGraph's store"


# -- the chat history and the session -----------------------------------------------------------

CONVERSATION_NO_EFFECT = {
    ("MemkgChatMessageHistory", "store"): "the memory itself, which every call reads",
    ("MemkgSession", "store"): "the same",
}


def _conversation_parameters() -> set[tuple[str, str]]:
    from memkg.integrations.langchain import MemkgChatMessageHistory
    from memkg.integrations.openai_agents import MemkgSession

    return ({("MemkgChatMessageHistory", p) for p in _keywords(MemkgChatMessageHistory.__init__)}
            | {("MemkgSession", p) for p in _keywords(MemkgSession.__init__)}
            | {("get_items", p) for p in _keywords(MemkgSession.get_items)})


#: Each constructor's arguments without the parameter, and the parameter's answer-changing value.
CONVERSATION_BASE = {"session_id": "s-1", "tenant": A}
CONVERSATION_VARIED: dict[tuple[str, str], Any] = {
    **{(kind, "session_id"): "s-2" for kind in ("MemkgChatMessageHistory", "MemkgSession")},
    **{(kind, "tenant"): B for kind in ("MemkgChatMessageHistory", "MemkgSession")},
    # the speakers are vertices the tenant declares (the shared data's Lia and Aurora)
    **{(kind, "speakers"): {"user": EX + "lia", "assistant": EX + "aurora"} for kind in ("MemkgChatMessageHistory", "MemkgSession")},
    ("MemkgSession", "session_settings"): 2,
    ("get_items", "limit"): 1,
}
EPISODES = {"MemkgChatMessageHistory": "urn:memkg:langchain:session:", "MemkgSession": "urn:memkg:openai-agents:session:"}
SAID = ["I like green tea", "Noted: green tea.", "And orange juice in the morning"]


def _kept(memory: MemoryStore) -> list[tuple[str, str, str, str]]:
    """What the library reads back of every message written: (content, graph, episode, sender)."""
    out = []
    for q in memory.quads(None, mem.content, None):
        if q.object.value not in SAID:
            continue
        one = {p: next((x.object.value for x in memory.quads(q.subject, p, None, q.graph_name)), "")
               for p in (prov.wasGeneratedBy, prov.wasAttributedTo)}
        out.append((q.object.value, q.graph_name.value, one[prov.wasGeneratedBy], one[prov.wasAttributedTo]))
    return sorted(out)


def _converse(kind: str, options: dict[str, Any], limit: int | None = None) -> tuple[list[Any], list[Any]]:
    """Three messages through the adapter on a fresh memory: (what the library reads back, what
    the adapter gives back)."""
    memory = two_tenants()
    if kind == "MemkgChatMessageHistory":
        from langchain_core.messages import AIMessage, HumanMessage

        from memkg.integrations.langchain import MemkgChatMessageHistory

        history = MemkgChatMessageHistory(memory, **options)
        history.add_messages([HumanMessage(SAID[0]), AIMessage(SAID[1]), HumanMessage(SAID[2])])
        return _kept(memory), [m.content for m in history.messages]
    from agents.memory import SessionSettings

    from memkg.integrations.openai_agents import MemkgSession

    if "session_settings" in options:
        options = {**options, "session_settings": SessionSettings(limit=options["session_settings"])}
    session = MemkgSession(memory, **options)
    roles = ("user", "assistant", "user")
    asyncio.run(session.add_items([{"role": r, "content": t} for r, t in zip(roles, SAID)]))
    items = asyncio.run(session.get_items(limit))
    return _kept(memory), [i["content"] for i in items]


def _expected(kind: str, options: dict[str, Any], limit: int | None) -> tuple[list[Any], list[Any]]:
    """What the parameters say the library must read back, and the adapter give back."""
    speakers = options.get("speakers") or {}
    roles = ("user", "assistant", "user")
    kept = sorted((text, options.get("tenant") or "", EPISODES[kind] + options["session_id"],
                   speakers.get(role, f"urn:memkg:speaker:{role}")) for text, role in zip(SAID, roles))
    shown = SAID[-(limit or options.get("session_settings") or len(SAID)):]
    return kept, shown


def test_every_conversation_parameter_has_a_value_or_a_reason() -> None:
    assert _conversation_parameters() == set(CONVERSATION_VARIED) | set(CONVERSATION_NO_EFFECT)


@pytest.mark.parametrize(("kind", "name"), sorted(CONVERSATION_VARIED), ids=[f"{k}-{n}" for k, n in sorted(CONVERSATION_VARIED)])
def test_each_conversation_parameter_is_kept_as_given(kind: str, name: str) -> None:
    value = CONVERSATION_VARIED[(kind, name)]
    adapter = "MemkgSession" if kind == "get_items" else kind
    limit = value if kind == "get_items" else None
    options = CONVERSATION_BASE if kind == "get_items" else {**CONVERSATION_BASE, name: value}
    ours = _converse(adapter, options, limit)
    assert ours != _converse(adapter, CONVERSATION_BASE), f"{kind}: {name}={value!r} changes nothing; choose a value that does"
    assert ours == _expected(adapter, options, limit), f"{kind}({name}={value!r}) is not kept as given"
