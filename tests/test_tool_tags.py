"""tool_tags: [required] / [confirm] / [notice] parsed from descriptions and enforced by the code."""

from __future__ import annotations

import pytest

from schema_search.preflight.gate import description
from schema_search.tool_tags import missing, parse, unconfirmed, with_required

TEXT = (
    "Run a query.\n"
    "[required] question: the user's words.\n"
    "[required] `sql`: one read-only query.\n"
    "[confirm] Runs only with `approval` set to a ready verdict.\n"
    "[notice] Rows are capped at 7."
)


def test_tags_are_parsed_and_the_text_keeps_the_rest() -> None:
    tags = parse(TEXT)
    assert tags.required == ["question", "sql"]
    assert tags.required_why == {"question": "the user's words.", "sql": "one read-only query."}
    assert tags.confirm == ["Runs only with `approval` set to a ready verdict."]
    assert tags.confirm_arguments == ["approval"]
    assert tags.notice == ["Rows are capped at 7."]
    assert tags.text == "Run a query."


def test_a_call_is_checked_against_its_tags() -> None:
    tags = parse(TEXT)
    assert missing(tags, {"sql": "SELECT 1"}) == "The argument `question` is required: the user's words."
    assert missing(tags, {"question": " ", "sql": "SELECT 1"}).startswith("The argument `question` is required")
    assert missing(tags, {"question": "q", "sql": "SELECT 1"}) is None
    assert (
        unconfirmed(tags, {"question": "q", "sql": "SELECT 1"})
        == "Not confirmed: Runs only with `approval` set to a ready verdict."
    )
    assert missing(tags, {"sql": "SELECT 1", "approval": "V1"}).startswith("The argument `question`")
    assert unconfirmed(tags, {"question": "q", "sql": "SELECT 1", "approval": ""}).startswith("Not confirmed")
    assert unconfirmed(tags, {"question": "q", "sql": "SELECT 1", "approval": "V1"}) is None


def test_malformed_tags_fail_when_the_description_is_parsed() -> None:
    with pytest.raises(ValueError, match="argument's name"):
        parse("[required] give the question")
    with pytest.raises(ValueError, match="in backticks"):
        parse("[confirm] only after the user agreed")


def test_required_arguments_become_required_in_the_input_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"question": {"type": "string"}, "sql": {"type": "string"}},
        "required": ["sql"],
    }
    out = with_required(schema, parse(TEXT))
    assert out["required"] == ["sql", "question"]
    assert out["properties"]["question"] == {"type": "string", "minLength": 1}
    assert schema["properties"]["question"] == {"type": "string"}  # the input is not changed
    with pytest.raises(ValueError, match="'question'"):
        with_required({"type": "object", "properties": {}}, parse(TEXT))


def test_the_execute_sql_description_carries_the_tags_the_tool_enforces() -> None:
    tags = parse(description(25))
    assert tags.required == ["question"]
    assert tags.confirm_arguments == ["approval"]
    assert tags.notice == ["Rows are capped at 25; the result says when truncated."]
    assert "[" not in tags.text
