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
import importlib.metadata
import importlib.util
import json
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder", "HashingEmbedder", "WordLlamaEmbedder", "default_embedder", "embed_question"]


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


def embed_question(embedder: Embedder, text: str) -> np.ndarray:
    """The vector of a question: ``embed_query`` where the embedder has one (a model that embeds
    questions and passages apart, as E5 does), else ``embed``."""
    embed = getattr(embedder, "embed_query", None) or embedder.embed
    vector: np.ndarray = embed([text])[0]
    return vector


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
    download. That loader imports all of WordLlama (its configuration models, half a second
    and more) and parses the tokenizer twice; so the two files are read here directly when
    the wheel has them where version 0.4 puts them (the tokenizer from its file, the token
    table mapped from the safetensors file, float16 rows converted as a text uses them: the
    same float32 values), and through WordLlama's loader otherwise. The model loads on the
    first :meth:`embed`, once per process: the name, which an index is checked against,
    comes from the package's metadata, so opening an index or a write with nothing to
    embed never loads it.
    """

    dim = 256

    def __init__(self) -> None:
        try:
            version = importlib.metadata.version("wordllama")
        except importlib.metadata.PackageNotFoundError as err:  # pragma: no cover - a declared dependency
            raise ImportError("the default recall embedder needs the wordllama package") from err
        self.name = f"wordllama-{version}-l2_supercat-256"
        self._loaded: tuple[Any, np.ndarray] | None = None
        self._loading = threading.Lock()

    def _model(self) -> tuple[Any, np.ndarray]:
        """The tokenizer and the token table, loaded on first use."""
        with self._loading:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> tuple[Any, np.ndarray]:
        tokenizers: Any = importlib.import_module("tokenizers")  # untyped: no stubs
        spec = importlib.util.find_spec("wordllama")
        folder = Path(next(iter(spec.submodule_search_locations or ()), "")) if spec else Path()
        vocabulary = folder / "tokenizers" / "l2_supercat_tokenizer_config.json"
        table = _safetensors_table(folder / "weights" / f"l2_supercat_{self.dim}.safetensors", "embedding.weight")
        if table is not None and vocabulary.is_file():
            tokenizer = tokenizers.Tokenizer.from_file(str(vocabulary))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            return tokenizer, table
        wordllama: Any = importlib.import_module("wordllama")
        model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True, dim=self.dim)
        # WordLlama's own embed() pads every batch to its longest text and tokenizes on the
        # tokenizers thread pool: for the few texts of one write that costs more than the
        # arithmetic (threads woken on a busy machine). The same mean of token rows is computed
        # here from an unpadded copy of its tokenizer, one text at a time.
        tokenizer = tokenizers.Tokenizer.from_str(model.tokenizer.to_str())
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return tokenizer, np.ascontiguousarray(model.embedding, dtype=np.float32)


    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The mean of each text's token rows, L2-normalised (WordLlama's ``embed(norm=True)``)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenizer, table = self._model()
        encode = tokenizer.encode
        tokens = [encode(text, add_special_tokens=False).ids for text in texts]
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        ids = np.fromiter((i for t in tokens for i in t), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(table) - 1, out=ids)
        sums = np.zeros((len(texts), self.dim), dtype=np.float32)
        some = lengths > 0
        if some.any():
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[some]
            sums[some] = np.add.reduceat(table[ids].astype(np.float32), starts, axis=0)
        return _normalised(sums / np.maximum(lengths, 1)[:, None])


def _safetensors_table(path: Path, key: str) -> np.ndarray | None:
    """The float16 matrix ``key`` of a safetensors file, mapped (None: no such file or tensor).
    The format: an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
    shape and byte range, then the data."""
    try:
        with open(path, "rb") as f:
            length = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(length))
        entry = header[key]
        start, end = entry["data_offsets"]
        rows, columns = entry["shape"]
        if entry["dtype"] != "F16" or end - start != rows * columns * 2:
            return None
        table: np.ndarray = np.memmap(path, dtype=np.float16, mode="r", offset=8 + length + start, shape=(rows, columns))
        return table
    except (OSError, ValueError, KeyError, TypeError):
        return None


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
    """The process-wide default embedder (WordLlama), its model loaded on its first embedding."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WordLlamaEmbedder()
        return _default
