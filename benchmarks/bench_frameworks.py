"""The framework adapters' cost: each adapter call beside the same memkg call made directly.

    python benchmarks/bench_frameworks.py [--items 1000] [--calls 200] [--hashing] [--json out.json]

One in-memory store holds ``items`` LangGraph items (three versions each) in one namespace and
``items`` messages in one tenant. Each round makes every pair of calls below once, the two calls
of a pair in a shuffled order so that they share the machine's noise:

| pair | the adapter | the same memkg call, made directly |
|---|---|---|
| LangGraph put | ``MemkgStore.put`` (a new version of an item) | ``MemoryStore.supersede`` with the same claim |
| LangGraph get | ``MemkgStore.get`` | the ``current`` view for the item, and its value read |
| LangGraph search | ``MemkgStore.search(query=…, limit=5)`` | ``memkg.recall.recall(k=10)`` over the tenant |
| LangChain retriever | ``MemkgRetriever.invoke`` (k=4, evidence) | ``memkg.recall.answer(k=4, packet=True)`` |
| LangChain history | ``MemkgChatMessageHistory.add_messages([m])`` | ``MemoryStore.add(Message(…))`` with the same fields |
| Agents SDK session | ``await MemkgSession.add_items([item])`` | ``MemoryStore.add(Message(…))`` with the same fields |
| (floor) thread hop | ``await asyncio.to_thread(f)``, ``f`` doing nothing | ``f()`` |
| (floor) LangChain retriever | ``invoke`` of a ``BaseRetriever`` that returns no document | nothing |

The async adapters (the session, the retriever's ``ainvoke``, ``abatch``) run memkg on a worker
thread, as the SDK's own ``SQLiteSession`` does: the first floor row is that hop alone, from a
synchronous caller into the event loop and back. The second is LangChain's own cost of a
retriever call (its callbacks and tracing set-up), which any retriever pays.

The overhead of a pair is the median (and 95th percentile) of the paired differences, adapter
minus direct, in the same round. Progress goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage, message_to_dict
from langchain_core.retrievers import BaseRetriever
from langgraph.store.base import PutOp
from pyoxigraph import Literal, NamedNode

from memkg import Claim, MemoryStore, Message
from memkg.integrations.langchain import MemkgChatMessageHistory, MemkgRetriever
from memkg.integrations.langgraph import CREATED, OF_ITEM, VALUE, MemkgStore
from memkg.integrations.openai_agents import MemkgSession
from memkg.integrations.shared import PAYLOAD, json_literal
from memkg.recall import HashingEmbedder, answer, recall, recall_index

TENANT = "https://example.org/tenants/bench"
NAMESPACE = ("users", "bench", "memories")
WORDS = ("tea coffee sugar milk evening morning night project deadline database migration postgres meeting "
         "budget travel berlin paris flight hotel doctor medication allergy running marathon guitar piano "
         "concert birthday sister friend report invoice garden recipe pasta curry cheese water yoga sleep").split()
QUESTIONS = ["what does Lia drink in the evening?", "when is the project deadline?", "the flight to berlin",
             "who has an allergy?", "marathon running plan", "sister birthday concert", "curry recipe"]


def progress(text: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{text:<60}", end="", file=sys.stderr, flush=True)


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


def build(items: int, hashing: bool) -> tuple[MemoryStore, MemkgStore]:
    memory = MemoryStore(followers=[recall_index(embedder=HashingEmbedder() if hashing else None)])
    lg = MemkgStore(memory)
    rng = random.Random(0)
    for version in range(3):
        progress(f"building: LangGraph items, version {version + 1} of 3")
        lg.batch([PutOp(NAMESPACE, f"item-{i}", {"text": sentence(rng), "version": version}) for i in range(items)])
    progress("building: messages")
    memory.add_all([Message(content=sentence(rng), event_id=f"seed-{i}") for i in range(items)], graph=TENANT)
    memory.recall("warm up", tenant=TENANT, k=1)  # the recall index built and the embedder loaded
    return memory, lg


def item(text: str, event: str) -> Any:
    """An Agents SDK input item (a TypedDict the SDK types strictly; a plain dict here)."""
    return {"role": "user", "content": text, "id": event}


def nothing() -> None:
    """The floor's call: no work at all."""


class Empty(BaseRetriever):
    """A retriever that finds nothing: what LangChain's ``invoke`` costs by itself."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return []


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000, help="LangGraph items and messages in the store")
    parser.add_argument("--calls", type=int, default=200, help="rounds: each pair of calls once a round")
    parser.add_argument("--hashing", action="store_true", help="the hashing embedder instead of the default one")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    memory, lg = build(args.items, args.hashing)
    rng = random.Random(1)
    retriever = MemkgRetriever(memory, tenant=TENANT, k=4)
    empty = Empty()
    history = MemkgChatMessageHistory(memory, session_id="bench", tenant=TENANT)
    session = MemkgSession(memory, session_id="bench", tenant=TENANT)
    graph, tenant = NamedNode(lg.tenant(NAMESPACE)), lg.tenant(NAMESPACE)
    loop = asyncio.new_event_loop()
    history.add_messages([HumanMessage("first")])  # the speakers declared before the timing
    loop.run_until_complete(session.add_items([item("first", "s-first")]))

    def direct_supersede(key: str, value: dict[str, Any]) -> None:
        item = NamedNode(lg.iri(NAMESPACE, key))
        old = lg.version(NAMESPACE, key)
        created = next(memory.quads(NamedNode(old or ""), CREATED, None, graph)).object
        text = "\n".join(v for v in value.values() if isinstance(v, str))
        memory.supersede(old or "", Claim(subject=item, predicate=VALUE, object=Literal(text),
                                          generated_by=NamedNode(tenant + "#/writes"),
                                          extra=[(OF_ITEM, item), (PAYLOAD, json_literal(value)), (CREATED, created)]),
                         graph=tenant)

    def direct_get(key: str) -> Any:
        rows: Any = memory.view("current", {"tenant": tenant, "subject": lg.iri(NAMESPACE, key)})
        claims = [row["claim"] for row in rows]
        return [json.loads(str(getattr(q.object, "value", "null")))
                for c in claims for q in memory.quads(c, PAYLOAD, None, graph)]

    def direct_message(episode: NamedNode, text: str, event: str, payload: Any) -> None:
        memory.add(Message(content=text, event_id=event, sender="urn:memkg:speaker:user",
                           recipients=["urn:memkg:speaker:assistant"], episode=episode,
                           extra=[(PAYLOAD, json_literal(payload))]), graph=TENANT)

    pairs: dict[str, list[tuple[float, float]]] = {name: [] for name in (
        "LangGraph put", "LangGraph get", "LangGraph search", "LangChain retriever", "LangChain history add",
        "Agents SDK session add", "(floor) thread hop", "(floor) LangChain retriever")}
    for n in range(args.calls):
        progress(f"round {n + 1} of {args.calls}")
        key_a, key_d = (f"item-{rng.randrange(args.items)}" for _ in range(2))
        value = {"text": sentence(rng), "version": 10 + n}
        question = rng.choice(QUESTIONS)
        said = sentence(rng)
        calls: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
            "LangGraph put": (lambda: lg.put(NAMESPACE, key_a, value), lambda: direct_supersede(key_d, value)),
            "LangGraph get": (lambda: lg.get(NAMESPACE, key_a), lambda: direct_get(key_a)),
            "LangGraph search": (lambda: lg.search(NAMESPACE, query=question, limit=5),
                                 lambda: recall(memory, question, tenant=tenant, k=10)),
            "LangChain retriever": (lambda: retriever.invoke(question),
                                    lambda: answer(memory, question, tenant=TENANT, k=4, packet=True)),
            "LangChain history add": (
                lambda: history.add_messages([HumanMessage(said, id=f"h-{n}")]),
                lambda: direct_message(history.conversation.episode, said, f"direct-h-{n}",
                                       message_to_dict(HumanMessage(said, id=f"d-{n}")))),
            "Agents SDK session add": (
                lambda: loop.run_until_complete(session.add_items([item(said, f"s-{n}")])),
                lambda: direct_message(session.conversation.episode, said, f"direct-s-{n}",
                                       {"role": "user", "content": said})),
            "(floor) thread hop": (lambda: loop.run_until_complete(asyncio.to_thread(nothing)), nothing),
            "(floor) LangChain retriever": (lambda: empty.invoke(question), nothing),
        }
        for name, (adapter, direct) in calls.items():
            if rng.random() < 0.5:
                a = timed(adapter)
                d = timed(direct)
            else:
                d = timed(direct)
                a = timed(adapter)
            pairs[name].append((a, d))
    progress("")
    if sys.stderr.isatty():
        print(file=sys.stderr)
    loop.close()

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000

    figures = {}
    print(f"{args.items} items and messages, {args.calls} rounds, load average {os.getloadavg()[0]:.1f}, "
          f"embedder {'hashing' if args.hashing else 'default'}")
    print("| call | adapter p50 ms | adapter p95 ms | direct p50 ms | direct p95 ms | overhead p50 ms | overhead p95 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, rows in pairs.items():
        adapter_s, direct_s = [a for a, _ in rows], [d for _, d in rows]
        diffs = [a - d for a, d in rows]
        figures[name] = {k: round(v, 3) for k, v in (
            ("adapter_p50", pct(adapter_s, 0.5)), ("adapter_p95", pct(adapter_s, 0.95)),
            ("direct_p50", pct(direct_s, 0.5)), ("direct_p95", pct(direct_s, 0.95)),
            ("overhead_p50", statistics.median(diffs) * 1000), ("overhead_p95", pct(diffs, 0.95)))}
        f = figures[name]
        print(f"| {name} | {f['adapter_p50']:.3f} | {f['adapter_p95']:.3f} | {f['direct_p50']:.3f} | "
              f"{f['direct_p95']:.3f} | **{f['overhead_p50']:.3f}** | {f['overhead_p95']:.3f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"items": args.items, "calls": args.calls, "figures": figures}, out, indent=2)


if __name__ == "__main__":
    main()
