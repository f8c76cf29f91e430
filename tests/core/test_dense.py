import numpy as np
import pytest

from schema_search.core.dense import DenseIndex, build_dense, calibrate_floor
from schema_search.tables.documents import embedding_text

from ..conftest import tiny_catalog


class CountingEmbedder:
    """A deterministic stand-in: hashes words into 16 dimensions."""

    name = "counting"

    def __init__(self):
        self.encoded = 0

    def encode(self, texts):
        self.encoded += len(texts)
        out = np.zeros((len(texts), 16), np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hash(word) % 16] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_unchanged_tables_are_not_encoded_again(tmp_path):
    from dataclasses import replace

    tables = tiny_catalog().tables
    embedder = CountingEmbedder()
    first, encoded = build_dense([t.id for t in tables], [embedding_text(t) for t in tables], embedder)
    assert encoded == len(tables)
    first.save(tmp_path)
    changed = (replace(tables[0], comment="Different now"), *tables[1:])
    second, encoded = build_dense(
        [t.id for t in changed], [embedding_text(t) for t in changed], embedder, DenseIndex.load(tmp_path)
    )
    assert encoded == 1
    assert np.allclose(second.vectors[1:], first.vectors[1:])


def test_rank_returns_nearest_first_and_cosines_for_given_ids():
    index = DenseIndex(["a", "b", "c"], ["", "", ""], np.eye(3, dtype=np.float32), "m")
    query = np.array([0.1, 0.9, 0.3], np.float32)
    assert [t for t, _ in index.rank(query, 2)] == ["b", "c"]
    assert index.cosines(query, ["c", "zz"]) == pytest.approx({"c": 0.3})


def test_floor_is_a_high_quantile_of_unrelated_similarity():
    tables = np.eye(4, dtype=np.float32)
    unrelated = np.array([[0.5, 0.1, 0.0, 0.0]], np.float32)
    assert calibrate_floor(tables, unrelated, quantile=1.0) == pytest.approx(0.5)


def test_table_embedding_text_has_a_context_header():
    text = embedding_text(tiny_catalog().tables[1])
    assert text.startswith("crm contacts. People at customer accounts.")
    assert "Columns: id, account id, email." in text


def test_real_model_relates_questions_to_tables_and_rejects_unrelated_text():
    from schema_search.core.embedders import shared_embedder

    embedder = shared_embedder(threads=1)
    tables = tiny_catalog().tables
    index, _ = build_dense([t.id for t in tables], [embedding_text(t) for t in tables], embedder)
    question = embedder.encode(["which people work at which customer company?"])[0]
    assert index.rank(question, 1)[0][0] in {"crm.contacts", "crm.accounts"}
    assert index.rank(question, 1)[0][1] > index.floor
    joke = embedder.encode(["tell me a joke about penguins on holiday"])[0]
    assert index.rank(joke, 1)[0][1] <= index.floor + 0.05
