"""The ONNX Runtime backends against the torch reference, the export cache, and backend compatibility."""

from __future__ import annotations

import numpy as np
import pytest

from schema_search.core import onnx_export
from schema_search.core.channels import Channels
from schema_search.core.dense import DenseIndex
from schema_search.core.embedders import MiniLM, default_model_cache, family, load_embedder
from schema_search.core.index import FieldRanker, build
from schema_search.tables.documents import embedding_text

from ..conftest import tiny_catalog

TEXTS = [
    "crm contacts. People at customer accounts. Columns: id, account id, email.",
    "which customers churned last month?",
    "后台任务 in FastAPI",  # word pieces the model lacks: [UNK]
    "x",
    "a " * 400,  # past the 256-token cap: cut the same way by both
]

pytestmark = pytest.mark.slow  # loads torch and the model, and exports it once per machine


@pytest.fixture(scope="module")
def torch_model():
    return MiniLM(threads=1)


def test_the_float_graph_gives_the_torch_vectors_and_token_counts(torch_model):
    onnx = load_embedder("onnx", default_model_cache(), threads=1)
    assert onnx.name == torch_model.name  # stored vectors of one are reused by the other
    cosines = (onnx.encode(TEXTS) * torch_model.encode(TEXTS)).sum(axis=1)
    assert cosines.min() > 0.9999
    for text in TEXTS:
        assert onnx.count_tokens(text) == torch_model.count_tokens(text)
        assert onnx.unknown_share(text) == pytest.approx(torch_model.unknown_share(text))
    assert onnx.max_tokens == torch_model.max_tokens == 256


def test_int8_weights_stay_close_and_say_so_in_their_name(torch_model):
    int8 = load_embedder("onnx-int8", default_model_cache(), threads=1)
    assert int8.name == "all-MiniLM-L6-v2/int8" and family(int8.name) == torch_model.name
    vectors = int8.encode(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (vectors * torch_model.encode(TEXTS)).sum(axis=1).min() > 0.95


def test_an_export_is_written_once_whole_and_found_again(tmp_path, capsys):
    first = onnx_export.cached_model(tmp_path, "fp32")
    assert "once per machine" in capsys.readouterr().err
    assert onnx_export.cached_model(tmp_path, "fp32") == first and capsys.readouterr().err == ""
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no half-written or temporary files left
    with pytest.raises(ValueError, match="precision"):
        onnx_export.cached_model(tmp_path, "int4")


def test_an_export_that_fails_says_what_to_do_and_leaves_nothing_behind(tmp_path, monkeypatch):
    from schema_search.errors import ModelUnavailable

    def full_disk(source, target):
        target.write_bytes(b"half a graph")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(onnx_export, "_export", full_disk)
    with pytest.raises(ModelUnavailable, match="No space left") as caught:
        onnx_export.cached_model(tmp_path, "fp32")
    assert "SCHEMA_SEARCH_MODEL_CACHE" in caught.value.hint and "SCHEMA_SEARCH_DENSE=false" in caught.value.hint
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("")
    with pytest.raises(ModelUnavailable, match="Cannot create the model cache"):
        onnx_export.cached_model(tmp_path / "file" / "models", "fp32")


def test_an_unknown_backend_is_refused_by_name():
    with pytest.raises(ValueError, match="onnx-int8"):
        load_embedder("tensorflow", default_model_cache())


class Named:
    def __init__(self, name):
        self.name = name

    def encode(self, texts):
        return np.ones((len(texts), 2), np.float32) / np.sqrt(2)


@pytest.mark.parametrize(
    ("stored", "searching", "dense"),
    [
        ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2/int8", True),  # another backend of the same model
        ("all-MiniLM-L6-v2/int8", "all-MiniLM-L6-v2", True),
        ("other-model", "all-MiniLM-L6-v2", False),  # another model's vectors are never compared
    ],
)
def test_the_dense_channel_opens_for_any_backend_of_the_stored_model(tmp_path, stored, searching, dense):
    tables = tiny_catalog().tables
    build([{"id": t.id, "body": embedding_text(t)} for t in tables], ["body"], tmp_path / "index")
    DenseIndex([t.id for t in tables], [""] * len(tables), np.eye(len(tables), 2, dtype=np.float32), stored).save(
        tmp_path
    )

    class Generation:
        path, index_path = tmp_path, tmp_path / "index"

    channels = Channels.open(Generation(), ["body"], Named(searching))
    assert ("dense" in channels.rankers) is dense
    assert isinstance(channels.fields, FieldRanker)


def test_a_damaged_cached_model_is_exported_again(tmp_path):
    from schema_search.core.embedders import OnnxMiniLM

    path = onnx_export.cached_model(tmp_path, "fp32")
    path.write_bytes(b"not a graph")  # a crash, a full disk, a copy gone wrong
    assert OnnxMiniLM(tmp_path, "fp32", threads=1).encode(["orders"]).shape == (1, 384)
    assert path.stat().st_size > 1_000_000
