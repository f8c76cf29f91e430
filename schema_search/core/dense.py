"""The dense channel: sentence embeddings of items, cosine-ranked against the question.

The model (all-MiniLM-L6-v2, see :mod:`embedders`) ships inside the install. Each item
kind says what the model reads for one item (its embedding text); vectors are stored
with each index generation and carried over for items whose embedding text did not
change, so a re-index only encodes what is new.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .embedders import BATCH, Embedder

EMBEDDINGS_FILE = "embeddings.npy"
KEYS_FILE = "embeddings.json"


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# Everyday text that no database schema or technical document is about. Its similarity
# to a collection's items is the model's "unrelated" level for it (see calibrate_floor).
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
    """Item vectors, row ``i`` for ``ids[i]``.

    ``floor``: the cosine that unrelated text reaches against these items; an item
    must beat it to count as a dense match. ``nearest_floor``: the cosine unrelated
    text reaches against its *nearest* item. In a large collection some item is
    always a little nearer than the typical pair, so this is the level a question's
    nearest item must beat for the question to be about the collection at all.
    """

    ids: list[str]
    keys: list[str]
    vectors: np.ndarray
    model: str
    floor: float = -1.0
    nearest_floor: float = -1.0

    def rank(self, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """``(id, cosine)`` of the ``limit`` nearest items, best first."""
        return self.top(self.scores(query), limit)

    def cosines(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of ``query`` with each of ``ids`` (ids not in the index are left out)."""
        return self.pick(self.scores(query), ids)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with every item, row order. One pass over the vectors
        (15 MB at 10,000 items): a search computes it once and reads it three ways."""
        return self.vectors @ query if self.ids else np.zeros(0, np.float32)

    def top(self, scores: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """``(id, cosine)`` of the ``limit`` best of ``scores``, best first."""
        if not self.ids:
            return []
        limit = min(limit, len(self.ids))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top]

    def pick(self, scores: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """The cosines in ``scores`` of ``ids`` (ids not in the index are left out)."""
        rows = self._rows()
        return {i: float(scores[rows[i]]) for i in ids if i in rows}

    def _rows(self) -> dict[str, int]:
        if not hasattr(self, "_row_cache"):
            self._row_cache = {item: row for row, item in enumerate(self.ids)}
        return self._row_cache

    def save(self, folder: Path) -> None:
        np.save(folder / EMBEDDINGS_FILE, self.vectors)
        meta = {
            "model": self.model,
            "floor": self.floor,
            "nearest_floor": self.nearest_floor,
            "ids": self.ids,
            "keys": self.keys,
        }
        (folder / KEYS_FILE).write_text(json.dumps(meta))

    @classmethod
    def load(cls, folder: Path) -> DenseIndex | None:
        if not (folder / KEYS_FILE).exists():
            return None
        meta = json.loads((folder / KEYS_FILE).read_text())
        # Memory-mapped: server workers share one copy in the page cache (150 MB at 100,000 tables).
        vectors = np.load(folder / EMBEDDINGS_FILE, mmap_mode="r")
        floor = meta.get("floor", -1.0)
        return cls(meta["ids"], meta["keys"], vectors, meta["model"], floor, meta.get("nearest_floor", floor))


def build_dense(
    ids: Sequence[str],
    texts: Sequence[str],
    embedder: Embedder,
    previous: DenseIndex | None = None,
    progress: Callable[[Sequence[int], str], Iterable[int]] | None = None,
) -> tuple[DenseIndex, int]:
    """Embed ``texts`` (the embedding text of item ``ids[i]``), reusing ``previous`` vectors of unchanged texts.

    Args:
        progress: wraps the positions of the texts to encode while they are encoded (a progress bar).

    Returns:
        The index, and how many texts were encoded afresh (items with the same text share one).
    """
    keys = [_key(t) for t in texts]
    known: dict[str, np.ndarray] = {}
    if previous is not None and previous.model == embedder.name:
        stored = np.asarray(previous.vectors)  # a plain array view: rows without a memmap object each
        known = {key: stored[i] for i, key in enumerate(previous.keys)}
    # Each new text once (tenants' copies of one table share a vector), shortest first:
    # batches of similar length waste little of the model's work on padding.
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key not in known:
            first.setdefault(key, i)
    missing = sorted(first.values(), key=lambda i: len(texts[i]))
    batch: list[int] = []
    # Encoded a few batches at a time, so a progress bar moves while a corpus embeds.
    for position, i in enumerate(progress(missing, "embedding") if progress else missing, 1):
        batch.append(i)
        if len(batch) == BATCH * 4 or position == len(missing):
            known.update(zip((keys[j] for j in batch), embedder.encode([texts[j] for j in batch])))
            batch = []
    vectors = np.stack([known[key] for key in keys]) if keys else np.zeros((0, 1), np.float32)
    index = DenseIndex(list(ids), keys, vectors.astype(np.float32), embedder.name)
    unrelated = embedder.encode(UNRELATED)
    index.floor = calibrate_floor(index.vectors, unrelated)
    index.nearest_floor = calibrate_nearest_floor(index.vectors, unrelated)
    return index, len(missing)


def calibrate_floor(items: np.ndarray, unrelated: np.ndarray, quantile: float = FLOOR_QUANTILE) -> float:
    """The cosine that unrelated text reaches against these items, at ``quantile``.

    Cosines are not comparable across models or collections (MiniLM puts most pairs of
    unrelated sentences between 0 and 0.2; other models elsewhere), so the floor is
    measured, not fixed: everyday sentences against this collection's own items.

    >>> t = np.eye(3, dtype=np.float32)
    >>> round(calibrate_floor(t, np.array([[0.1, 0.2, 0.3]], np.float32), quantile=1.0), 2)
    0.3
    """
    if items.size == 0:
        return -1.0
    return float(np.quantile(unrelated @ items.T, quantile))


def calibrate_nearest_floor(items: np.ndarray, unrelated: np.ndarray) -> float:
    """The highest cosine any unrelated sentence reaches against its nearest item.

    >>> t = np.eye(3, dtype=np.float32)
    >>> round(calibrate_nearest_floor(t, np.array([[0.1, 0.2, 0.3], [0.5, 0.0, 0.0]], np.float32)), 2)
    0.5
    """
    if items.size == 0:
        return -1.0
    return float((unrelated @ items.T).max(axis=1).max())
