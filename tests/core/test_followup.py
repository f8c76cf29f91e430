"""The follow-up trigger and the deterministic rewrite: pure, no model, no index."""

from __future__ import annotations

import pytest

from schema_search.core.followup import MAX_HISTORY_MESSAGES, accepted, rewrite, subject, trigger

WEBSOCKET = ["How do I open a WebSocket endpoint?"]


@pytest.mark.parametrize(
    "question",
    [
        "How do I test it?",
        "Can I do the same for headers?",
        "If I add two of those, which one runs first?",
        "And for cookies?",
        "What about query parameters?",
        "how about async tests?",
        "Also with a timeout?",
        "Testing?",
        "defaults?",
    ],
)
def test_english_follow_ups_trigger(question: str) -> None:
    assert trigger(question, WEBSOCKET)


@pytest.mark.parametrize(
    "question",
    [
        "怎么测试它？",
        "这个怎么部署？",
        "那个参数是必须的吗？",
        "测试呢？",
        "部署？",
        "それをテストするには？",
        "これはどう使う？",
        "そのヘッダーは？",
        "テストは？",
    ],
)
def test_chinese_and_japanese_follow_ups_trigger(question: str) -> None:
    assert trigger(question, ["如何打开WebSocket端点？"])


@pytest.mark.parametrize(
    "question",
    [
        "How do I declare a path parameter with a type and a default value in FastAPI?",
        "How can I limit uploaded files to 10 MB in FastAPI?",
        "如何在FastAPI中声明带类型的路径参数并进行数据校验？",
        "FastAPIでパスパラメータに型を宣言してバリデーションする方法を教えてください",
    ],
)
def test_self_contained_questions_do_not_trigger(question: str) -> None:
    assert trigger(question, WEBSOCKET) is None


def test_a_question_with_few_words_of_its_own_is_rewritten_even_without_a_referring_word() -> None:
    # Over-triggering on purpose: five content words may still omit the subject.
    assert trigger("Which status code do validation errors return?", WEBSOCKET) == "short (5 content words)"


@pytest.mark.parametrize("history", [[], [""], ["   "]])
def test_no_history_never_triggers(history: list[str]) -> None:
    assert trigger("How do I test it?", history) is None
    assert rewrite("How do I test it?", history) == "How do I test it?"


def test_the_rewrite_keeps_the_question_and_carries_the_subject_in() -> None:
    assert rewrite("How do I test it?", WEBSOCKET) == "How do I test it? (about open a WebSocket endpoint)"
    assert rewrite("怎么测试它？", ["如何打开WebSocket端点？"]) == "怎么测试它？（如何打开WebSocket端点）"


def test_a_chain_of_follow_ups_points_back_to_the_message_that_stands_alone() -> None:
    history = ["How do I stream a large CSV file as a response?", "And with a custom filename?"]
    assert subject(history) == "stream a large CSV file as a response"
    assert subject(["Why?", "And then?"]) in {"Why", "And then"}  # nothing stands alone: the wordiest, newest first


def test_a_models_rewrite_is_checked() -> None:
    assert accepted("How do I test it?", "How do I test a WebSocket endpoint?", 200) is None
    assert accepted("How do I test it?", "", 200) == "empty rewrite"
    assert accepted("How do I test it?", "y" * 201, 200) == "rewrite longer than 200 characters"
    assert "drops every content word" in accepted("How do I test it?", "Open a WebSocket endpoint.", 200)


def test_history_is_bounded() -> None:
    assert MAX_HISTORY_MESSAGES == 20
