"""The checkpoint file: vectors come back as appended, and nothing it cannot vouch for is read."""

import numpy as np

from schema_search.core.checkpoint import Checkpoint
from schema_search.core.dense import _key


def _rows(n, start=0, dim=4):
    return np.arange(start, start + n * dim, dtype=np.float32).reshape(n, dim)


def _keys(*texts):
    return [_key(t) for t in texts]


def test_vectors_come_back_as_appended_and_a_missing_file_is_empty(tmp_path):
    saved = Checkpoint(tmp_path / "embeddings.partial", "model-a")
    assert saved.load() == {}
    saved.append(_keys("a", "b"), _rows(2))
    saved.append(_keys("c"), _rows(1, start=8))
    found = Checkpoint(tmp_path / "embeddings.partial", "model-a").load()
    assert set(found) == set(_keys("a", "b", "c"))
    assert np.array_equal(np.stack([found[k] for k in _keys("a", "b", "c")]), _rows(3))


def test_another_models_checkpoint_is_ignored_and_started_over(tmp_path):
    path = tmp_path / "embeddings.partial"
    Checkpoint(path, "all-MiniLM-L6-v2/int8").append(_keys("a"), _rows(1))
    other = Checkpoint(path, "all-MiniLM-L6-v2")
    assert other.load() == {}
    other.append(_keys("b"), _rows(1, start=4))
    assert list(Checkpoint(path, "all-MiniLM-L6-v2").load()) == _keys("b")
    assert Checkpoint(path, "all-MiniLM-L6-v2/int8").load() == {}


def test_a_tail_cut_short_by_a_crash_is_ignored_and_cut_off_before_the_next_append(tmp_path):
    path = tmp_path / "embeddings.partial"
    Checkpoint(path, "m").append(_keys("a"), _rows(1))
    Checkpoint(path, "m").append(_keys("b"), _rows(1, start=4))
    with open(path, "r+b") as handle:  # the second write got only part way
        handle.truncate(path.stat().st_size - 3)
    resumed = Checkpoint(path, "m")
    assert list(resumed.load()) == _keys("a")
    resumed.append(_keys("c"), _rows(1, start=8))
    found = Checkpoint(path, "m").load()
    assert list(found) == _keys("a", "c")  # "c" readable: the torn record was cut off, not appended after
    assert np.array_equal(found[_key("c")], _rows(1, start=8)[0])


def test_a_damaged_record_and_everything_after_it_are_ignored(tmp_path):
    path = tmp_path / "embeddings.partial"
    saved = Checkpoint(path, "m")
    saved.append(_keys("a"), _rows(1))
    good = path.stat().st_size
    saved.append(_keys("b"), _rows(1, start=4))
    saved.append(_keys("c"), _rows(1, start=8))
    data = bytearray(path.read_bytes())
    data[good + 30] ^= 0xFF  # a flipped byte in b's vector: a wrong vector must never be read back
    path.write_bytes(bytes(data))
    assert list(Checkpoint(path, "m").load()) == _keys("a")
    path.write_bytes(bytes(data[:good]) + bytes(4096))  # zeros past the data, as a power cut may leave
    assert list(Checkpoint(path, "m").load()) == _keys("a")


def test_a_file_that_is_not_a_checkpoint_is_ignored(tmp_path):
    path = tmp_path / "embeddings.partial"
    path.write_bytes(b"not a checkpoint at all")
    saved = Checkpoint(path, "m")
    assert saved.load() == {}
    saved.append(_keys("a"), _rows(1))
    assert list(Checkpoint(path, "m").load()) == _keys("a")
