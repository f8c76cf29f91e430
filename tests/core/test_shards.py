"""Sharded generations served in this process: the same rankings as one index, ballast that never shows."""

from __future__ import annotations

import json
import os
import random
from fractions import Fraction

import pytest

from schema_search.core.shards import ballast, shard_folders
from schema_search.core.store import Generation
from schema_search.docs.search import CorpusSearcher
from schema_search.errors import InvalidInput
from schema_search.settings import Settings
from schema_search.tables.models import ExampleInput
from schema_search.tables.search import CatalogSearcher
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK, SAMPLES

QUESTIONS = [
    "how do I request time off?",
    "who do I call when production is down at night?",
    "expense reimbursement limits for travel",
    "data retention policy for customer records",
    "on call rotation handover",
    "what is the refund policy?",
    "security incident reporting",
    "capital of Mongolia",
]


def test_ballast_brings_every_shard_to_the_collections_averages_exactly():
    chance = random.Random(7)
    for _ in range(300):
        fields = chance.randint(1, 4)
        count = chance.randint(1, 60)
        items = [[chance.choice([0, 0, 1, 2, 5, 40]) for _ in range(fields)] for _ in range(count)]
        shards = chance.randint(2, 5)
        split = [items[i::shards] for i in range(shards)]
        totals = [sum(item[f] for item in items) for f in range(fields)]
        for mine in split:
            added = ballast(mine, totals, count)
            size = len(mine) + len(added)
            assert size <= count  # never more than the collection
            for f in range(fields):
                tokens = sum(item[f] for item in mine) + sum(extra[f] for extra in added)
                if size:
                    assert Fraction(tokens, size) == Fraction(totals[f], count)
                assert all(extra[f] >= 0 for extra in added)


def test_ballast_of_a_shard_of_a_huge_collection_is_bounded_and_within_half_a_token():
    # 1,000,003 items: exact averages would pad this shard of 200,000 to the whole collection.
    mine = [[3, 0]] * 150_000 + [[9, 2]] * 50_000
    totals, count = [5_000_011, 400_001], 1_000_003
    added = ballast(mine, totals, count)
    size = len(mine) + len(added)
    assert len(added) <= len(mine)
    for f in range(2):
        tokens = sum(item[f] for item in mine) + sum(extra[f] for extra in added)
        assert abs(tokens - totals[f] * size / count) <= 0.5


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    """The handbook indexed once whole, then again in 3 shards (its vectors reused): both generations."""
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("shards"), embedding_threads=1))
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    whole = workspace.corpora.store.current("handbook")
    sharded = workspace.corpora.index(HANDBOOK, corpus="handbook", shards=3)
    return workspace, whole, sharded


def test_a_sharded_corpus_ranks_as_one_index(handbook):
    workspace, whole, sharded = handbook
    single = CorpusSearcher.open(Generation("handbook", whole.path), workspace.embedder())
    split = workspace.corpora.searcher("handbook")
    assert split.channels.vectors is not None and split.pages is not None
    config = workspace.corpora.config()
    for question in QUESTIONS:
        one, many = single.search(question, 10, config), split.search(question, 10, config)
        assert [r.id for r in many.ranking.ranked] == [r.id for r in one.ranking.ranked], question
        assert [r.channels for r in many.ranking.ranked] == [r.channels for r in one.ranking.ranked]
        assert many.ranking.off_topic == one.ranking.off_topic
    assert sum(not single.search(q, 10, config).ranking.off_topic for q in QUESTIONS) >= 3  # not all off topic


def test_shards_are_complete_generations_with_their_ballast_out_of_sight(handbook):
    workspace, _, sharded = handbook
    live = workspace.corpora.store.current("handbook")
    manifest = live.manifest()
    assert manifest["shards"] == 3 and sum(manifest["shard_sizes"]) == sharded.corpus.chunks
    folders = shard_folders(live.path)
    assert [f.name for f in folders] == ["0", "1", "2"]
    for folder in folders:
        assert (folder / "index").is_dir() and (folder / "pages").is_dir() and (folder / "embeddings.npy").is_file()
        assert "ballast" in json.loads((folder / "manifest.json").read_text())
    searcher = workspace.corpora.searcher("handbook")
    assert searcher.channels.fields.documents == sharded.corpus.chunks  # ballast is not counted
    # The re-index into shards embedded nothing: the whole generation's vectors were reused.
    assert manifest["dense"]["encoded"] == 0


def test_a_sharded_catalog_ranks_as_one_index_and_keeps_its_shards_when_examples_are_added(tmp_path):
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.catalogs.index(str(SAMPLES / "crm.sql"), catalog="crm")
    whole = workspace.catalogs.store.current("crm")
    workspace.catalogs.index(str(SAMPLES / "crm.sql"), catalog="crm", shards=3)
    single = CatalogSearcher.open(Generation("crm", whole.path))
    config = workspace.catalogs.config()
    questions = [json.loads(line)["question"] for line in (SAMPLES / "crm_cases.jsonl").read_text().splitlines()]
    for question in questions:
        expected = [r.id for r in single.search(question, 10, config).ranked]
        assert [r.id for r in workspace.catalogs.searcher("crm").search(question, 10, config).ranked] == expected
    # A derived generation (past queries added) links the shards, their own manifests included.
    pair = ExampleInput(question="which accounts have contacts?", sql="SELECT * FROM crm.accounts")
    workspace.catalogs.add_examples("crm", [pair])
    live = workspace.catalogs.store.current("crm")
    assert all((folder / "manifest.json").is_file() for folder in shard_folders(live.path))
    assert workspace.catalogs.searcher("crm").channels.fields.documents == len(single.catalog.tables)


def test_shards_of_an_encrypted_data_directory_are_refused_before_anything_is_written(tmp_path):
    kek = tmp_path / "kek.bin"
    kek.write_bytes(os.urandom(32))
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, kek_file=kek))
    with pytest.raises(InvalidInput, match="not encrypted yet"):
        workspace.corpora.index(HANDBOOK, corpus="handbook", shards=3)
    with pytest.raises(InvalidInput, match="1 or more"):
        Workspace(Settings(home=tmp_path / "plain", dense=False)).corpora.index(HANDBOOK, corpus="h", shards=0)
    assert workspace.corpora.names() == []
