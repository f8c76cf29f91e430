"""Sources: which files a folder yields, where each URL and title comes from, warnings, and stable IDs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from schema_search.docs.chunker import Chunking
from schema_search.docs.corpus import IdAllocator, source_id
from schema_search.docs.sources import read_corpus
from schema_search.errors import InvalidInput, SourceError

from ..conftest import HANDBOOK

CHUNKING = Chunking()


def read(folder: Path, **kwargs):
    return read_corpus(folder, "test", CHUNKING, **kwargs)


def test_the_manifest_gives_urls_and_titles_and_anchors_become_fragments():
    corpus = read(HANDBOOK)
    urls = {d.path: d.url for d in corpus.documents}
    assert urls["policies/refunds.md"] == "https://handbook.example.com/policies/refunds/"
    assert {d.title for d in corpus.documents} >= {"Refunds and credits", "客户支持", "On-call rota"}
    window = next(c for c in corpus.chunks if c.headings == ("Refund window",))
    assert window.url == "https://handbook.example.com/policies/refunds/#window"
    assert corpus.warnings == ()


def test_without_a_manifest_front_matter_then_template_then_relative_path(tmp_path):
    (tmp_path / "guide").mkdir()
    (tmp_path / "a.md").write_text("---\nurl: https://site.dev/alpha/\n---\n# Alpha\n\nText a.\n")
    (tmp_path / "guide" / "b.md").write_text("# Beta\n\nText b.\n")
    by_path = {d.path: d.url for d in read(tmp_path, url_template="https://docs.dev/{path}/").documents}
    assert by_path == {"a.md": "https://site.dev/alpha/", "guide/b.md": "https://docs.dev/guide/b/"}
    assert {d.path: d.url for d in read(tmp_path).documents}["guide/b.md"] == "guide/b.md"


def test_a_bad_url_template_is_refused_before_anything_is_read(tmp_path):
    (tmp_path / "a.md").write_text("# A\n")
    with pytest.raises(InvalidInput, match="does not format") as error:
        read(tmp_path, url_template="https://x.dev/{slug}/")
    assert "{path}" in error.value.hint


def test_manifest_paths_relative_to_a_subfolder_and_per_language(tmp_path):
    for lang in ("zh", "ja"):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "index.md").write_text(f"# {lang}\n\n文本。\n")
    (tmp_path / "manifest.jsonl").write_text(
        "\n".join(
            json.dumps({"lang": lang, "path": "index.md", "url": f"https://x.dev/{lang}/"}) for lang in ("zh", "ja")
        )
    )
    assert {d.path: d.url for d in read(tmp_path).documents} == {
        "zh/index.md": "https://x.dev/zh/",
        "ja/index.md": "https://x.dev/ja/",
    }


def test_files_the_manifest_does_not_list_are_skipped_and_reported(tmp_path):
    shutil.copytree(HANDBOOK, tmp_path / "h")
    (tmp_path / "h" / "draft.md").write_text("# Draft\n")
    corpus = read(tmp_path / "h")
    assert "draft.md" not in {d.path for d in corpus.documents}
    assert any("not listed in manifest.jsonl: draft.md" in w for w in corpus.warnings)


def test_an_unreadable_file_is_a_warning_naming_it_and_the_rest_still_indexes(tmp_path):
    (tmp_path / "good.md").write_text("# Good\n\nFine text.\n")
    (tmp_path / "broken.md").write_bytes(b"# Broken \xff\xfe\n")
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4 garbage")
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    corpus = read(tmp_path)
    assert [d.path for d in corpus.documents] == ["good.md"]
    joined = "\n".join(corpus.warnings)
    assert "broken.md: not UTF-8" in joined and "scan.pdf: not a readable PDF" in joined
    assert "types no reader knows: .png (1)" in joined


def test_a_folder_with_nothing_readable_is_a_clear_error(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\x00")
    with pytest.raises(SourceError, match="No readable document") as error:
        read(tmp_path)
    assert ".md" in error.value.hint
    with pytest.raises(SourceError, match="is not a folder"):
        read(tmp_path / "missing")


def test_a_malformed_manifest_line_names_the_line(tmp_path):
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "manifest.jsonl").write_text('{"path": "a.md"}\nnot json\n')
    with pytest.raises(SourceError, match="manifest.jsonl, line 2"):
        read(tmp_path)


def test_source_ids_are_short_stable_and_unique():
    first, again = read(HANDBOOK), read(HANDBOOK)
    assert [c.id for c in first.chunks] == [c.id for c in again.chunks]
    ids = [c.id for c in first.chunks] + [d.id for d in first.documents]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"S[0-9a-f]{6}", i) for i in ids)
    assert first.chunks[0].id == source_id("test", first.documents[0].path, "0")


def test_a_colliding_id_gets_longer_and_the_first_keeps_its_short_one(monkeypatch):
    import schema_search.docs.corpus as corpus

    monkeypatch.setattr(corpus, "source_id", lambda *parts, digits=6: "S" + ("abcdef0123" * 2)[:digits])
    allocate = IdAllocator()
    assert [allocate("c", "a"), allocate("c", "b"), allocate("c", "d")] == ["Sabcdef", "Sabcdef01", "Sabcdef0123"]


def test_document_sizes_count_cjk_characters_as_words():
    documents = {d.path: d for d in read(HANDBOOK).documents}
    assert documents["oncall.txt"].words == 60 and documents["zh/support.md"].words > 80
    assert documents["zh/support.md"].chars > 0
