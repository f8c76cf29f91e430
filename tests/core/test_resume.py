"""A build cut short: its folder goes at once, the live generation stays, and the next build resumes
from the checkpoint without encoding any text twice."""

import hashlib

import numpy as np
import pytest

from schema_search.core.build import ESTIMATE_AFTER, write_indexes
from schema_search.core.checkpoint import Checkpoint, Interrupted
from schema_search.core.dense import UNRELATED, DenseIndex
from schema_search.core.embedders import BATCH
from schema_search.core.kind import ItemKind
from schema_search.core.store import CHECKPOINT_FILE, CURRENT, LOCK_FILE, Shelf, Store, _exclusive
from schema_search.errors import CorpusNotFound

SHELF = Shelf("corpora", "corpus", CorpusNotFound, "schemasift docs index FOLDER --corpus {name}")
PASSAGES: ItemKind[tuple[str, str]] = ItemKind(
    noun="passage",
    fields=("body",),
    id_of=lambda item: item[0],
    document=lambda item: {"body": item[1]},
    embedding_text=lambda item: item[1],
)


class RecordingEmbedder:
    """Deterministic vectors from a text's hash; records each text it encoded, and can be stopped.

    ``stop_after``: the number of ``encode`` calls that succeed; the next raises
    KeyboardInterrupt (Ctrl-C in the middle of an embedding) before encoding anything.
    """

    max_tokens = 256

    def __init__(self, name="recording", stop_after=None, dim=16):
        self.name, self.stop_after, self.dim = name, stop_after, dim
        self.texts: list[str] = []
        self.calls = 0

    def encode(self, texts):
        if self.stop_after is not None and self.calls >= self.stop_after:
            raise KeyboardInterrupt
        self.calls += 1
        texts = list(texts)
        self.texts += texts
        out = np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)
        return out.astype(np.float32)

    def _vector(self, text):
        seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:4], "little")
        vector = np.random.default_rng(seed).standard_normal(self.dim)
        return vector / np.linalg.norm(vector)

    def count_tokens(self, text):
        return len(text.split()) + 2

    def unknown_share(self, text):
        return 0.0

    def items_encoded(self):
        """The texts encoded for items (the floor's calibration sentences aside)."""
        return [t for t in self.texts if t not in UNRELATED]


def passages(n, edited=()):
    return [(f"p{i}", f"passage {i} about topic {i % 7}{' edited' if i in edited else ''}") for i in range(n)]


def build(store, items, embedder, notes=None):
    def write(path):
        previous = _live_vectors(store)
        progress = None
        if notes is not None:

            def progress(sequence, label):
                return sequence

            progress.note = notes.append
        return write_indexes(path, PASSAGES, items, embedder, previous, progress, store.checkpoint("docs"))

    return store.write("docs", write)


def _live_vectors(store):
    return DenseIndex.load(store.current("docs").path) if "docs" in store.names() else None


def test_an_interrupted_build_resumes_without_encoding_any_text_twice(tmp_path):
    items = passages(5 * BATCH + 10)
    clean = build(Store(tmp_path / "clean", SHELF), items, RecordingEmbedder())
    store = Store(tmp_path / "home", SHELF)
    first = RecordingEmbedder(stop_after=2)
    with pytest.raises(Interrupted) as stopped:
        build(store, items, first)
    assert str(stopped.value).startswith(f"{2 * BATCH:,} of {len(items):,} passages embedded and kept")
    notes: list[str] = []
    second = RecordingEmbedder()
    generation = build(store, items, second, notes)
    encoded = first.items_encoded() + second.items_encoded()
    assert len(encoded) == len(set(encoded)) == len(items)  # every text once, across the two runs
    assert notes[0] == f"resuming: {2 * BATCH:,} passages already embedded"
    dense = generation.manifest()["dense"]
    assert (dense["encoded"], dense["resumed"], dense["reused"]) == (len(items) - 2 * BATCH, 2 * BATCH, 0)
    resumed, fresh = DenseIndex.load(generation.path), DenseIndex.load(clean.path)
    assert resumed.ids == fresh.ids and np.array_equal(resumed.vectors, fresh.vectors)
    assert resumed.floor == fresh.floor


def test_an_interrupted_build_removes_its_folder_at_once_and_leaves_the_live_one_and_the_lock(tmp_path):
    store = Store(tmp_path, SHELF)
    live = build(store, passages(50), RecordingEmbedder())
    with pytest.raises(KeyboardInterrupt):
        build(store, passages(3 * BATCH, edited=range(3 * BATCH)), RecordingEmbedder(stop_after=1))
    folder = store.root / "docs"
    assert {p.name for p in folder.iterdir()} == {CURRENT, LOCK_FILE, CHECKPOINT_FILE, live.id}
    assert store.current("docs").id == live.id
    assert DenseIndex.load(live.path).ids == [f"p{i}" for i in range(50)]
    with _exclusive(folder / LOCK_FILE, "docs"):  # released: taken at once, no Busy
        pass


def test_a_checkpoint_outlives_the_sweep_of_a_killed_builds_folder_and_goes_once_a_build_is_live(tmp_path):
    store = Store(tmp_path, SHELF)
    items = passages(3 * BATCH)
    with pytest.raises(KeyboardInterrupt):
        build(store, items, RecordingEmbedder(stop_after=2))
    folder = store.root / "docs"
    killed = folder / "gen-20250101T000000-000000001"  # what a kill -9 leaves
    (killed / "index").mkdir(parents=True)
    (killed / "index" / "segment").write_bytes(b"x" * 100)
    assert store.tidy() == 100 and not killed.exists()
    assert (folder / CHECKPOINT_FILE).is_file()
    second = RecordingEmbedder()
    build(store, items, second)
    assert len(second.items_encoded()) == BATCH
    assert not (folder / CHECKPOINT_FILE).exists()


def test_a_checkpoint_of_another_model_is_not_used(tmp_path):
    store = Store(tmp_path, SHELF)
    items = passages(3 * BATCH)
    with pytest.raises(KeyboardInterrupt):
        build(store, items, RecordingEmbedder(name="other model", stop_after=2))
    second = RecordingEmbedder()
    generation = build(store, items, second)
    assert len(second.items_encoded()) == len(items)
    assert generation.manifest()["dense"]["resumed"] == 0


def test_a_rebuild_that_embeds_nothing_keeps_the_checkpoint_for_the_index_it_interrupted(tmp_path):
    store = Store(tmp_path, SHELF)
    build(store, passages(10), RecordingEmbedder())
    with pytest.raises(KeyboardInterrupt):
        build(store, passages(3 * BATCH), RecordingEmbedder(stop_after=1))
    store.derive("docs", ["fields.json"], lambda path, live: {})
    assert Checkpoint(store.checkpoint("docs"), "recording").load()


def test_the_estimate_is_said_once_after_the_first_batches_with_what_is_reused(tmp_path):
    store = Store(tmp_path, SHELF)
    build(store, passages(50), RecordingEmbedder())
    notes: list[str] = []
    todo = BATCH + ESTIMATE_AFTER + 10  # the first batch is not timed; the pace is taken on the next ones
    items = passages(50 + todo)
    generation = build(store, items, RecordingEmbedder(), notes)
    assert len(notes) == 1, notes
    assert notes[0].startswith(f"embedding {todo:,} of {len(items):,} passages (50 reused): about ")
    assert notes[0].endswith("/s")
    dense = generation.manifest()["dense"]
    assert (dense["encoded"], dense["reused"]) == (todo, 50)
    assert dense["seconds"] >= 0 and dense["rate"] > 0


def test_no_estimate_for_an_embedding_done_before_it_could_be_taken(tmp_path):
    notes: list[str] = []
    build(Store(tmp_path, SHELF), passages(BATCH + ESTIMATE_AFTER), RecordingEmbedder(), notes)
    assert notes == []
