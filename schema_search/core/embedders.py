"""The embedding models behind the dense channel: all-MiniLM-L6-v2, run by ONNX Runtime or torch.

Three backends, one model:

* ``onnx`` (default): the float graph under ONNX Runtime: the same vectors as torch
  (cosine 1.0000), ~2.3x faster to build with, and no torch import at search time.
* ``onnx-int8``: int8 weights, ~4.5x faster than torch; vectors within cosine 0.99
  of the float model's (and, as the activations' scale is taken per batch, not quite
  the same for a text encoded beside other texts). It cost 0.4 points of pooled
  Spider recall@10 (0.958 -> 0.954) and gained 0.1 on BIRD (0.954 -> 0.955), so it
  is an option, not the default (``eval/README.md``, "Speed").
* ``torch``: sentence-transformers, the reference.

Vectors of one model are comparable across its backends (``family``); a re-index
reuses stored vectors only when they came from the very same backend (``name``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import ModelUnavailable
from . import onnx_export

BATCH = 64
# ONNX Runtime ran fastest on small batches here (3.8 s per 1,000 table texts at 16,
# 4.5 s at 64, 5.1 s at 128): the activations of a small batch stay in cache.
ONNX_BATCH = 16
BACKENDS = ("onnx-int8", "onnx", "torch")


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""


class TokenCounter(Protocol):
    """What an embedder with a word-piece tokenizer can also say about a text."""

    max_tokens: int

    def count_tokens(self, text: str) -> int:
        """Word pieces the model reads for ``text``, its special tokens included."""

    def unknown_share(self, text: str) -> float:
        """Share of the word pieces of ``text`` the model has no embedding for (``[UNK]``)."""


def family(model: str) -> str:
    """The model a stored vector name belongs to, whatever backend made it.

    >>> family("all-MiniLM-L6-v2/int8"), family("all-MiniLM-L6-v2")
    ('all-MiniLM-L6-v2', 'all-MiniLM-L6-v2')
    """
    return model.split("/", 1)[0]


class OnnxMiniLM:
    """all-MiniLM-L6-v2 under ONNX Runtime: word pieces from ``tokenizers``, mean pooling in numpy."""

    def __init__(self, cache: Path, precision: str = "fp32", threads: int | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        source = onnx_export.model_dir()
        options = onnxruntime.SessionOptions()
        # 0 lets ONNX Runtime take every core; a server worker or a test asks for one.
        options.intra_op_num_threads = threads or 0
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: a spinning pool kept the cores busy for
        # milliseconds after each question, and the numpy and tantivy work that follows
        # ran 2.5x slower beside it (ranking 5.8 ms instead of 2.3 ms at 10,000 tables).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = _session(onnxruntime, cache, precision, options)
        self.name = onnx_export.MODEL if precision == "fp32" else f"{onnx_export.MODEL}/{precision}"
        self.max_tokens = int(_max_seq_length(source))
        # The shipped tokenizer.json pads and cuts at 128: sentence-transformers reads 256.
        self._tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._counter = Tokenizer.from_file(str(source / "tokenizer.json"))
        self._counter.no_truncation()
        self._counter.no_padding()
        self._unknown = self._counter.token_to_id("[UNK]")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.empty((len(texts), 384), np.float32)
        # Similar lengths batched together: padding is work the model does for nothing.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), ONNX_BATCH):
            rows = order[start : start + ONNX_BATCH]
            encodings = self._tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encodings], np.int64)
            mask = np.array([e.attention_mask for e in encodings], np.int64)
            (states,) = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )
            pooled = (states * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=True).ids)

    def unknown_share(self, text: str) -> float:
        ids = self._counter.encode(text, add_special_tokens=False).ids
        return sum(i == self._unknown for i in ids) / len(ids) if ids else 0.0


def _session(onnxruntime, cache: Path, precision: str, options):
    """The inference session; a cached file that does not load (damaged) is exported once more."""
    for fresh in (False, True):
        path = onnx_export.cached_model(cache, precision, fresh=fresh)
        try:
            return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own kinds (InvalidProtobuf, Fail)
            failure = error
    raise ModelUnavailable(
        f"ONNX Runtime cannot load {path} ({type(failure).__name__}: {failure}).",
        hint="Delete that file to export it again, or set SCHEMA_SEARCH_EMBEDDING_BACKEND=torch.",
    )


def _max_seq_length(source: Path) -> int:
    import json

    config = source / "sentence_bert_config.json"
    return json.loads(config.read_text()).get("max_seq_length", 256) if config.exists() else 256


class MiniLM:
    """all-MiniLM-L6-v2 through sentence-transformers and torch, on the CPU, offline."""

    name = onnx_export.MODEL

    def __init__(self, threads: int | None = None) -> None:
        _offline()
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as error:  # pragma: no cover - depends on the install
            raise ModelUnavailable(
                f"The torch backend needs sentence-transformers ({error}).",
                hint="Run `bash scripts/setup.sh`, or set SCHEMA_SEARCH_EMBEDDING_BACKEND=onnx.",
            ) from error
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # a bar per model load clutters CLI output
        # Counting a long chunk's tokens is not an error: the chunker splits what is over the cap.
        transformers_logging.set_verbosity_error()
        if threads:
            torch.set_num_threads(threads)
        self._model = SentenceTransformer(str(onnx_export.model_dir()), device="cpu")
        self._tokenizer = self._model.tokenizer
        self.max_tokens = int(self._model.max_seq_length)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts), batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return vectors.astype(np.float32, copy=False)

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=True, truncation=False)["input_ids"])

    def unknown_share(self, text: str) -> float:
        ids = self._tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"]
        unknown = self._tokenizer.unk_token_id
        return sum(i == unknown for i in ids) / len(ids) if ids else 0.0


def _offline() -> None:
    # Never reach for the hub: the weights are in site-packages.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


_shared: dict[tuple, Embedder] = {}


def load_embedder(backend: str, cache: Path, threads: int | None = None) -> Embedder:
    """A new embedder for ``backend`` (one of :data:`BACKENDS`)."""
    _offline()
    if backend == "torch":
        return MiniLM(threads)
    if backend in ("onnx", "onnx-int8"):
        try:
            return OnnxMiniLM(cache, "fp32" if backend == "onnx" else "int8", threads)
        except ImportError as error:  # pragma: no cover - depends on the install
            raise ModelUnavailable(
                f"The {backend} backend needs onnxruntime, onnx and tokenizers ({error}).",
                hint="Run `bash scripts/setup.sh`, or set SCHEMA_SEARCH_EMBEDDING_BACKEND=torch.",
            ) from error
    raise ValueError(f"unknown embedding backend {backend!r}; use one of {', '.join(BACKENDS)}")


def default_model_cache() -> Path:
    """Where exported model files are kept: per user, shared by every data directory."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("schema-search", appauthor=False)) / "models"


def shared_embedder(backend: str = "onnx", cache: Path | None = None, threads: int | None = None) -> Embedder:
    """One model per process and backend: loading it costs seconds, encoding a question a millisecond."""
    cache = Path(cache) if cache else default_model_cache()
    key = (backend, str(cache), threads)
    if key not in _shared:
        _shared[key] = load_embedder(backend, cache, threads)
    return _shared[key]
