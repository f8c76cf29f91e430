"""Chunker: token-sized chunks at section boundaries, paragraphs whole, CJK sentence ends, the model's cap held."""

from __future__ import annotations

import pytest

from schema_search.docs.chunker import Chunking, chars_per_token, chunk_section, estimate_tokens
from schema_search.docs.corpus import Block, Section, embedding_input

from ..conftest import SHARED


def section(*blocks: Block) -> Section:
    return Section(("Usage",), "usage", blocks)


def test_characters_per_token_follow_the_cjk_share():
    assert chars_per_token("plain English words") == 4.0
    assert chars_per_token("后台任务在返回响应后运行") == 1.0
    mixed = "在返回响应后运行 BackgroundTasks 任务"
    assert 1.0 < chars_per_token(mixed) < 4.0
    assert estimate_tokens("x" * 400) == 100 and estimate_tokens("字" * 100) == 100


def test_paragraphs_are_kept_whole_and_accumulated_up_to_the_target():
    paragraphs = [Block(f"Paragraph {i} " + "word " * 30) for i in range(6)]  # ~40 tokens each
    chunks = chunk_section(section(*paragraphs), "Guide > Usage", Chunking(target_tokens=100, overlap_tokens=0))
    assert [c.count("Paragraph") for c in chunks] == [2, 2, 2]
    assert all(p.text.strip() in "\n\n".join(chunks) for p in paragraphs)


def test_an_oversized_paragraph_is_split_at_sentence_ends_including_cjk_ones():
    english = " ".join(f"Sentence number {i} says something." for i in range(40))
    pieces = chunk_section(section(Block(english)), "G", Chunking(target_tokens=60, overlap_tokens=0))
    assert len(pieces) > 1 and all(p.endswith(".") for p in pieces)
    chinese = "".join(f"第{i}句话说了一些内容。" for i in range(60))
    pieces = chunk_section(section(Block(chinese)), "指南", Chunking(target_tokens=60, overlap_tokens=0))
    assert len(pieces) > 1 and all(p.endswith("。") for p in pieces)
    assert all(estimate_tokens(p) <= 60 for p in pieces)


def test_code_is_split_only_at_line_ends_and_never_repeated_as_overlap():
    code = Block("\n".join(f"print({i})  # line {i}" for i in range(80)), code=True)
    pieces = chunk_section(section(code, Block("After the code.")), "G", Chunking(target_tokens=80, overlap_tokens=20))
    lines = [line for piece in pieces for line in piece.split("\n")]
    assert all(line.startswith("print(") or line in ("", "After the code.") for line in lines)
    assert sum(line.startswith("print(") for line in lines) == 80  # each line once: no overlap of code


def test_the_next_chunk_of_a_section_starts_with_the_previous_ones_last_sentences():
    blocks = [Block(f"Point {i} is made here. It ends with fact {i}.") for i in range(12)]
    pieces = chunk_section(section(*blocks), "G", Chunking(target_tokens=60, overlap_tokens=10))
    assert len(pieces) > 2
    for before, after in zip(pieces, pieces[1:]):
        assert after.startswith(before.split("\n\n")[-1].split(". ")[-1])


@pytest.fixture(scope="module")
def tokenizer():
    from schema_search.core.embedders import shared_embedder

    return shared_embedder(threads=1)


def test_the_real_tokenizer_holds_every_chunk_within_the_cap(tokenizer):
    # Dense code with short identifiers runs far above 1 token per 4 characters.
    code = Block("\n".join("x[i]=f(a,b);y.z+=q(w)*2//3;" * 4 for _ in range(40)), code=True)
    chunking = Chunking(target_tokens=200, overlap_tokens=30, max_tokens=tokenizer.max_tokens, counter=tokenizer)
    header = "Guide > Usage"
    pieces = chunk_section(section(code), header, chunking)
    assert max(tokenizer.count_tokens(embedding_input(header, p)) for p in pieces) <= tokenizer.max_tokens
    unchecked = chunk_section(section(code), header, Chunking(target_tokens=200, overlap_tokens=30))
    assert max(tokenizer.count_tokens(embedding_input(header, p)) for p in unchecked) > tokenizer.max_tokens


@pytest.mark.skipif(not (SHARED / "docs_corpora").is_dir(), reason="docs corpora not found")
@pytest.mark.parametrize("folder", ["fastapi/pages/tutorial", "fastapi_cjk/zh/tutorial", "fastapi_cjk/ja/advanced"])
def test_real_pages_in_every_language_chunk_within_the_cap(tokenizer, folder):
    from schema_search.docs import readers
    from schema_search.docs.corpus import context_header

    chunking = Chunking(target_tokens=200, overlap_tokens=30, max_tokens=tokenizer.max_tokens, counter=tokenizer)
    counts = []
    for path in sorted((SHARED / "docs_corpora" / folder).glob("*.md"))[:15]:
        _, doc = readers.read(path)
        for s in doc.sections:
            header = context_header(doc.title or path.stem, s.headings)
            counts += [tokenizer.count_tokens(embedding_input(header, t)) for t in chunk_section(s, header, chunking)]
    assert counts and max(counts) <= tokenizer.max_tokens
    assert sorted(counts)[len(counts) // 2] > 40  # not cut into crumbs
