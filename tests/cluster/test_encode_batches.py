"""An embedder that encodes many batches at once (``encode_batches``, a cluster's): the batches it is given,
what is kept as they come back in any order, the progress they move, and Ctrl-C between two of them.

No Ray here: a fake pool that answers in reverse order stands for one.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from schema_search.core.build import ESTIMATE_AFTER, EncodeProgress, write_indexes
from schema_search.core.checkpoint import Checkpoint, Interrupted
from schema_search.core.dense import DenseIndex, encode_missing, plan_dense
from schema_search.core.embedders import BATCH

from ..core.test_resume import PASSAGES


def vector(text: str, dim: int = 8) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:4], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    return (v / np.linalg.norm(v)).astype(np.float32)


class InTurn:
    """A model that encodes one batch at a time, and records the batches it was given."""

    name = "fake"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def encode(self, texts):
        self.batches.append(list(texts))
        return np.stack([vector(t) for t in texts])


class Pool(InTurn):
    """A fake actor pool: takes every batch at once and hands them back last first; ``stop_after`` of them, then Ctrl-C."""

    concurrency = 3

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__()
        self.stop_after = stop_after
        self.given: list[list[str]] = []
        self.returned = 0

    def encode_batches(self, batches):
        self.given = [list(b) for b in batches]
        for n in reversed(range(len(batches))):
            if self.returned == self.stop_after:
                raise KeyboardInterrupt
            self.returned += 1
            yield n, np.stack([vector(t) for t in batches[n]])


def texts(n: int) -> list[str]:
    return [f"passage {i} " + "word " * (i % 13) for i in range(n)]


def test_a_pool_is_given_the_batches_one_model_encodes_in_turn_and_its_vectors_land_on_their_texts():
    words = texts(3 * BATCH + 5)
    alone, pool = InTurn(), Pool()
    plan_alone, plan_pool = plan_dense(words, "fake"), plan_dense(words, "fake")
    encode_missing(plan_alone, words, alone)
    encode_missing(plan_pool, words, pool)
    assert pool.given == alone.batches and [len(b) for b in pool.given] == [BATCH] * 3 + [5]
    assert all(np.array_equal(plan_pool.known[k], plan_alone.known[k]) for k in plan_alone.keys)


def test_progress_moves_by_each_batch_as_it_comes_back_counted_once():
    words = texts(2 * BATCH + 1)
    moved: list[int] = []

    def progress(items, label):
        for n, item in enumerate(items):
            yield item
            moved.append(n + 1)

    counted = EncodeProgress(Pool(), progress)
    encode_missing(plan_dense(words, "fake"), words, counted, counted.start)
    # Pulled once at the start; then up to each batch's end as it is back (1, then 1 + 64, then all);
    # the very last only once the phase is done (the floor's calibration comes after it).
    assert moved == list(range(1, len(words)))
    counted.done()
    assert moved == list(range(1, len(words) + 1))
    assert counted.rate is not None


def test_ctrl_c_keeps_the_batches_already_back_and_the_next_build_encodes_only_the_rest(tmp_path):
    items = [(f"p{i}", t) for i, t in enumerate(texts(4 * BATCH))]
    checkpoint = tmp_path / "embeddings.partial"
    with pytest.raises(Interrupted) as stopped:
        write_indexes(tmp_path / "first", PASSAGES, items, Pool(stop_after=2), checkpoint=checkpoint)
    assert str(stopped.value).startswith(f"{2 * BATCH:,} of {len(items):,} passages embedded and kept")
    kept = Checkpoint(checkpoint, "fake").load()
    assert len(kept) == 2 * BATCH  # the last two batches: the first to come back
    again = Pool()
    manifest = write_indexes(tmp_path / "second", PASSAGES, items, again, checkpoint=checkpoint)
    assert (manifest["dense"]["resumed"], manifest["dense"]["encoded"]) == (2 * BATCH, 2 * BATCH)
    assert sum(map(len, again.given)) == 2 * BATCH
    stored = DenseIndex.load(tmp_path / "second")
    assert np.array_equal(stored.vectors, np.stack([vector(t) for _, t in items]))


def test_the_estimate_is_timed_from_the_end_of_the_pools_first_round():
    # The first batch of each actor waits for its model to load, and they come back together.
    words = texts(20 * BATCH)
    pool, paced_at = Pool(), []
    counted = EncodeProgress(pool, None, lambda pace: paced_at.append(pool.returned))
    encode_missing(plan_dense(words, "fake"), words, counted, counted.start)
    assert paced_at == [Pool.concurrency + Pool.concurrency * ESTIMATE_AFTER // BATCH]  # 3 untimed, then 9
    model, paced_after = InTurn(), []
    alone = EncodeProgress(model, None, lambda pace: paced_after.append(len(model.batches)))
    encode_missing(plan_dense(words, "fake"), words, alone, alone.start)
    assert paced_after == [1 + ESTIMATE_AFTER // BATCH]  # one model: its first batch untimed, as before
