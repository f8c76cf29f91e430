"""The docs eval: the peer's splitter, page recall and off-topic figures on fake rankings."""

from __future__ import annotations

import json

from eval.docs.configs import DocsConfig
from eval.docs.questions import DocQuestion, QuestionSet, load_questions, page
from eval.docs.runner import evaluate
from eval.docs.splitter import split_text

from ..conftest import REPO, SHARED


def test_the_peer_splitter_splits_exactly_as_langchain_does():
    # Expected values recorded from langchain-text-splitters 1.1.3's RecursiveCharacterTextSplitter
    # (run in a separate environment; LangChain is not a dependency of this project).
    text = "Para one is here.\n\nPara two is a bit longer than one.\n\nThree."
    assert split_text(text, chunk_size=30, chunk_overlap=0) == [
        "Para one is here.",
        "Para two is a bit longer than",
        "one.",
        "Three.",
    ]
    assert split_text("a b c d e f g h", chunk_size=5, chunk_overlap=2) == ["a b c", "c d", "d e", "e f", "f g", "g h"]
    page = SHARED / "docs_corpora" / "fastapi" / "pages" / "tutorial" / "background-tasks.md"
    if page.is_file():
        recorded = json.loads((REPO / "tests" / "fixtures" / "langchain_split_background-tasks.json").read_text())
        assert split_text(page.read_text(encoding="utf-8")) == recorded


def test_page_recall_counts_distinct_pages_and_off_topic_is_scored_apart():
    questions = QuestionSet(
        "s",
        (
            DocQuestion("q1", ("https://x/a/",)),
            DocQuestion("q2", ("https://x/b/", "https://x/c/")),
            DocQuestion("nothing", ()),
        ),
    )
    answers = {"q1": (["https://x/z/", "https://x/a/"], False), "q2": (["https://x/b/"], False), "nothing": ([], True)}
    run = evaluate({"fake": DocsConfig("fake", lambda q, k: answers[q])}, [questions], (1, 3))
    result = run.sets["s"][0]
    assert result.recall == {1: 0.0, 3: 0.5} and result.mrr == (1 / 2 + 1 / 1) / 2
    assert result.unanswerable == 1 and result.flagged_off_topic == 1.0 and result.false_off_topic == 0.0
    assert run.to_json()["sets"]["s"][0]["page_recall@3"] == 0.5


def test_the_committed_question_sets_are_well_formed_and_name_real_pages():
    sets = {p.stem: load_questions(p) for p in (REPO / "eval" / "docs_questions").glob("*.jsonl")}
    assert {len(s.questions) for s in sets.values()} and len(sets["fastapi"].questions) >= 60
    assert len(sets["fastapi_cjk"].questions) >= 20 and len(sets["peps"].questions) >= 20
    assert len(sets["off_topic"].questions) >= 10 and not any(q.answerable for q in sets["off_topic"].questions)
    kinds = [q.kind for q in sets["peps"].questions]
    assert kinds.count("named") >= 10 and kinds.count("paraphrase") >= 10
    assert {q.lang for q in sets["fastapi_cjk"].questions} == {"zh", "ja"}
    assert all(url == page(url) for s in sets.values() for q in s.questions for url in q.gold)
    shared = REPO.parent / "shared" / "docs_corpora"
    if shared.is_dir():
        known = {
            json.loads(line)["url"] for m in shared.glob("*/manifest.jsonl") for line in m.read_text().splitlines()
        }
        vite = REPO / "eval" / "data" / "vite_docs" / "pages"  # indexed with --url-template https://vite.dev/{path}
        known |= {f"https://vite.dev/{p.relative_to(vite).with_suffix('').as_posix()}" for p in vite.rglob("*.md")}
        samples = (REPO / "sample_docs").glob("*/manifest.jsonl")  # the product docs of the aspect questions
        known |= {json.loads(line)["url"] for m in samples for line in m.read_text().splitlines() if line.strip()}
        assert all(url in known for s in sets.values() for q in s.questions for url in q.gold)
