"""Corpus search end to end on the sample handbook: right passages, CJK, pins, the floor, distances, IDs."""

from __future__ import annotations

import shutil

import pytest

from schema_search.docs.search import keep_nearest
from schema_search.errors import CorpusNotFound, DocumentNotFound, SourceError
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK


@pytest.fixture(scope="module")
def handbook(tmp_path_factory) -> Workspace:
    # Its own copy: some tests here re-index it.
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("home"), embedding_threads=1))
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    return workspace


def top(workspace: Workspace, question: str, k: int = 3):
    return workspace.corpora.search("handbook", question, k).results


def test_the_passage_that_answers_comes_first_with_its_section_url(handbook):
    first = top(handbook, "how long do we keep invoices?")[0]
    assert first.url == "https://handbook.example.com/policies/data-retention/#retention-periods"
    assert first.heading_path == ["Retention periods"] and "ten years" in first.text
    assert first.title == "Data retention" and first.channels["dense"] == 1


def test_a_chinese_question_finds_the_chinese_page(handbook):
    first = top(handbook, "紧急工单多久回复？")[0]
    assert first.url == "https://handbook.example.com/zh/support/#response-times"


def test_a_question_the_corpus_does_not_cover_is_off_topic(handbook):
    response = handbook.corpora.search("handbook", "what is the best sourdough bread recipe?", 5)
    assert response.off_topic and response.results == []


def test_every_result_carries_its_distance_next_to_the_unrelated_level(handbook):
    results = top(handbook, "who approves a large refund?")
    assert all(r.distance is not None and r.unrelated_distance == results[0].unrelated_distance for r in results)
    assert results[0].distance < results[0].unrelated_distance
    assert handbook.corpora.info("handbook").unrelated_distance == results[0].unrelated_distance


def test_a_labelled_reference_pins_the_passage_that_contains_it(handbook):
    first = top(handbook, "What does Policy 12 say?", 2)[0]
    assert first.pinned and "Policy 12" in first.text


def test_pins_never_push_out_the_nearest_passage():
    assert keep_nearest(["pin1", "pin2", "x", "nearest"], 2, "nearest") == [
        ("pin1", False),
        ("pin2", False),
        ("nearest", True),
    ]
    assert keep_nearest(["pin1", "nearest"], 2, "nearest") == [("pin1", False), ("nearest", False)]
    assert keep_nearest(["pin1"], 2, None) == [("pin1", False)]


def test_show_a_chunk_or_a_whole_document_by_source_id(handbook):
    hit = top(handbook, "who is on call?")[0]
    chunk = handbook.corpora.source("handbook", f"[{hit.source_id}]")
    assert chunk.kind == "chunk" and chunk.text == hit.text and chunk.url == hit.url
    document = handbook.corpora.source("handbook", hit.document_id.lower())
    assert document.kind == "document" and document.title == "On-call rota"
    assert "fifteen minutes" in document.text and hit.source_id in document.chunks
    with pytest.raises(DocumentNotFound, match="S000000") as error:
        handbook.corpora.source("handbook", "S000000")
    assert "S3fa21c" in error.value.hint


def test_unknown_corpus_names_the_command_that_creates_one(handbook):
    with pytest.raises(CorpusNotFound) as error:
        handbook.corpora.search("nope", "anything")
    assert "schemasift docs index FOLDER --corpus nope" in error.value.hint and "handbook" in error.value.hint


def test_a_failed_reindex_leaves_the_live_corpus_searchable(handbook, tmp_path):
    before = handbook.corpora.info("handbook").generation
    (tmp_path / "junk.bin").write_bytes(b"\x00")
    with pytest.raises(SourceError):
        handbook.corpora.index(tmp_path, corpus="handbook")
    assert handbook.corpora.info("handbook").generation == before
    assert top(handbook, "how long do we keep invoices?")


def test_reindexing_reuses_the_embeddings_of_unchanged_chunks(handbook, tmp_path):
    copy = tmp_path / "handbook"
    shutil.copytree(HANDBOOK, copy)
    (copy / "oncall.txt").write_text((copy / "oncall.txt").read_text() + "\nA new paragraph about pagers.\n")
    handbook.corpora.index(copy, corpus="handbook")
    manifest = handbook.corpora.store.current("handbook").manifest()
    assert 0 < manifest["dense"]["encoded"] <= 2
    handbook.corpora.index(HANDBOOK, corpus="handbook")


def test_without_the_dense_channel_search_still_works_and_says_no_distance(tmp_path):
    workspace = Workspace(Settings(home=tmp_path, dense=False))
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    first = workspace.corpora.search("handbook", "who approves a large refund?", 3).results[0]
    assert "approval" in first.url and first.distance is None and first.unrelated_distance is None
    assert workspace.corpora.info("handbook").dense is False
