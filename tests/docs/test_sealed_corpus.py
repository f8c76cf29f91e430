"""A sealed corpus: nothing readable in its files, the same rankings as in plain text, only results decrypted."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from eval.security.at_rest import found_in, phrases, use
from schema_search.docs.corpus import CHUNKS_FILE, CORPUS_FILE, TEXTS_FILE
from schema_search.errors import IndexUnreadable, KeyUnavailable
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK

QUESTIONS = [
    "how long do we keep invoices?",
    "紧急工单多久回复？",
    "who is on call at night?",
    "what does Policy 12 say about refunds?",
    "how do I report a security incident",
    "capital of Mongolia",
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The handbook indexed twice in one run: in plain text, and sealed with a KEK."""
    root = tmp_path_factory.mktemp("sealed")
    kek = root / "kek.bin"
    kek.write_bytes(os.urandom(32))
    plain = Workspace(Settings(home=root / "plain", embedding_threads=1))
    sealed = Workspace(Settings(home=root / "sealed", embedding_threads=1, kek_file=kek))
    for workspace in (plain, sealed):
        workspace.corpora.index(HANDBOOK, corpus="handbook")
    return plain, sealed, root


def test_no_distinctive_phrase_is_found_in_the_sealed_data_directory(pair):
    plain, _, root = pair
    folder = plain.corpora.store.current("handbook").path
    texts = {r["id"]: r["text"] for r in map(json.loads, (folder / TEXTS_FILE).read_text().splitlines())}
    wanted = phrases(texts, 50)
    assert len(wanted) >= 30
    for workspace in pair[:2]:
        use(
            workspace, texts, wanted, corpus="handbook"
        )  # a turn kept, a review entry approved: every file a server writes
    assert found_in(root / "sealed", wanted) == []
    assert len(found_in(root / "plain", wanted)) == len(wanted)  # the reference: the check can find them
    assert found_in(root / "plain" / "turns.sqlite3", wanted) and found_in(root / "plain" / "review.sqlite3", wanted)


def test_rankings_are_identical_and_only_results_are_decrypted(pair):
    plain, sealed, _ = pair
    searcher = sealed.corpora.searcher("handbook")
    for question in QUESTIONS:
        before = searcher.decrypted
        expected = plain.corpora.search("handbook", question, 10)
        got = sealed.corpora.search("handbook", question, 10)
        assert [r.model_dump() for r in got.results] == [r.model_dump() for r in expected.results]
        assert got.off_topic == expected.off_topic
        # The returned passages only: a pin looks references up by their verbatim keys (docs.verbatim).
        # A coverage second pass reads its own search's passages too, to judge them: at most k more.
        decrypted = searcher.decrypted - before
        assert decrypted == len(got.results) if got.coverage is None else decrypted <= len(got.results) + 10


PAGES = {
    "style.md": "# PEP 8: Style Guide\n\nIndent with 4 spaces; pep-8 says so since Python 3.12.\n\n"
    "## Errors\n\nRaise `fastapi.HTTPException` from `get_db`.",
    "errors.md": "# HTTPException\n\nHTTPException carries a status code. See PEP 8 and PEP 80.\n\n"
    "## Handlers\n\nCall `Depends(get_db)` in a handler.",
    "release.md": "# Release notes\n\n## 3.12\n\nPython 3.12 adds this; 3.12.1 fixes it. v3.12 is a tag.",
    "db.md": "# app.get_db\n\nThe get_db dependency yields a session.",
    "other.md": "# Other\n\nNothing about PEP 88, 3.121 or HTTPExceptions here.",
}


@pytest.fixture(scope="module")
def referenced(tmp_path_factory):
    """Pages that cite labelled numbers, versions and names, indexed in plain text and sealed (no dense channel)."""
    root = tmp_path_factory.mktemp("verbatim")
    (root / "docs").mkdir()
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    (root / "kek.bin").write_bytes(os.urandom(32))
    plain = Workspace(Settings(home=root / "plain", dense=False))
    sealed = Workspace(Settings(home=root / "sealed", dense=False, kek_file=root / "kek.bin"))
    for workspace in (plain, sealed):
        workspace.corpora.index(root / "docs", corpus="docs")
    return plain, sealed


@pytest.mark.parametrize(
    ("question", "keyed"),
    [
        ("what does PEP 8 say about indenting?", True),
        ("what changed in 3.12", True),
        ("when do I raise HTTPException", True),
        ("how does `get_db` yield a session", True),
        ("what is app.get_db", True),
        ("what does `Depends(get_db)` do", False),  # no key for its shape: its candidates are read
    ],
)
def test_references_are_pinned_as_in_plain_text_decrypting_only_the_results(referenced, question, keyed):
    plain, sealed = referenced
    searcher = sealed.corpora.searcher("docs")
    before = searcher.decrypted
    expected = plain.corpora.search("docs", question, 3)
    got = sealed.corpora.search("docs", question, 3)
    assert [r.model_dump() for r in got.results] == [r.model_dump() for r in expected.results]
    assert got.results and got.results[0].pinned
    decrypted = searcher.decrypted - before
    assert decrypted == len(got.results) if keyed else decrypted > len(got.results)


def test_documents_fields_and_sources_read_as_in_plain_text(pair):
    plain, sealed, _ = pair
    first = plain.corpora.search("handbook", "how long do we keep invoices?", 1).results[0]
    assert sealed.corpora.source("handbook", first.source_id) == plain.corpora.source("handbook", first.source_id)
    document = first.document_id
    assert sealed.corpora.source("handbook", document) == plain.corpora.source("handbook", document)
    assert sealed.corpora.fields("handbook") == plain.corpora.fields("handbook")
    manifest = sealed.corpora.store.current("handbook").manifest()
    assert manifest["sealed"] is True and manifest["data_key"]


def test_a_sealed_corpus_without_its_key_is_a_clear_error_and_nothing_is_lost(pair, tmp_path):
    _, sealed, root = pair
    copy = tmp_path / "home"
    shutil.copytree(root / "sealed", copy)
    with pytest.raises(KeyUnavailable, match="no key-encryption key is configured"):
        Workspace(Settings(home=copy, dense=False)).corpora.search("handbook", "invoices")
    other = tmp_path / "other.bin"
    other.write_bytes(os.urandom(32))
    with pytest.raises(KeyUnavailable, match="another key-encryption key"):
        Workspace(Settings(home=copy, dense=False, kek_file=other)).corpora.search("handbook", "invoices")
    key = sealed.settings.kek_file
    assert Workspace(Settings(home=copy, dense=False, kek_file=key)).corpora.search("handbook", "invoices").results


def test_a_plain_corpus_stays_readable_with_a_kek_and_is_sealed_by_a_reindex(tmp_path):
    settings = Settings(home=tmp_path / "home", dense=False)
    Workspace(settings).corpora.index(HANDBOOK, corpus="handbook")
    kek = tmp_path / "kek.bin"
    kek.write_bytes(os.urandom(32))
    keyed = Workspace(Settings(home=tmp_path / "home", dense=False, kek_file=kek))
    assert keyed.corpora.search("handbook", "invoices").results  # the existing install reads as before
    assert not keyed.corpora.store.current("handbook").manifest().get("sealed")
    keyed.corpora.index(HANDBOOK, corpus="handbook")
    assert keyed.corpora.store.current("handbook").manifest()["sealed"] is True
    assert keyed.corpora.search("handbook", "invoices").results


def _copy(root, tmp_path):
    copy = tmp_path / "home"
    shutil.copytree(root / "sealed", copy)
    return copy


def test_a_plain_chunk_swapped_into_a_sealed_corpus_is_refused(pair, tmp_path):
    plain, sealed, root = pair
    copy = _copy(root, tmp_path)
    folder = copy / sealed.corpora.store.current("handbook").path.relative_to(root / "sealed")
    lines = (folder / CHUNKS_FILE).read_text(encoding="utf-8").splitlines()
    mine = json.loads((plain.corpora.store.current("handbook").path / CHUNKS_FILE).read_text().splitlines()[0])
    assert "sealed" in json.loads(lines[0]) and "sealed" not in mine
    (folder / CHUNKS_FILE).write_text("\n".join([json.dumps(mine), *lines[1:]]) + "\n", encoding="utf-8")
    keyed = Workspace(Settings(home=copy, dense=False, kek_file=sealed.settings.kek_file))
    with pytest.raises(IndexUnreadable, match="plain text in a sealed generation") as error:
        keyed.corpora.search("handbook", "invoices")
    assert "damaged or was tampered with" in str(error.value) and "Re-index" in error.value.hint


def test_a_changed_byte_in_a_sealed_corpus_is_a_clear_error(pair, tmp_path):
    _, sealed, root = pair
    copy = _copy(root, tmp_path)
    folder = copy / sealed.corpora.store.current("handbook").path.relative_to(root / "sealed")
    meta = json.loads((folder / CORPUS_FILE).read_text(encoding="utf-8"))
    blob = meta["sealed"]
    meta["sealed"] = blob[:20] + ("A" if blob[20] != "A" else "B") + blob[21:]
    (folder / CORPUS_FILE).write_text(json.dumps(meta), encoding="utf-8")
    keyed = Workspace(Settings(home=copy, dense=False, kek_file=sealed.settings.kek_file))
    with pytest.raises(IndexUnreadable, match="does not open .*damaged or was tampered with"):
        keyed.corpora.search("handbook", "invoices")
