"""Follow-up questions with their history through the workspace, HTTP, the CLI and MCP; a fake model only."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from schema_search.cli import main
from schema_search.http import create_app
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.workspace import Workspace
from schema_search.workspace.followups import retrieval_question

QUESTION = "who approves it?"
HISTORY = ["How are large refunds handled?"]
PROBLEM = "application/problem+json"


def answer(text: str):
    """A fake ``litellm.completion`` that answers ``text``."""

    def complete(**_):
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))])

    return complete


def with_model(model: str = "fake/model", timeout: float = 5.0) -> Settings:
    return Settings(rewrite_model=model, rewrite_timeout=timeout)


# -- the rewrite step --------------------------------------------------------------------


def test_the_deterministic_rewrite_is_the_default() -> None:
    text, rewrite = retrieval_question(Settings(), QUESTION, HISTORY)
    assert text == "who approves it? (about large refunds handled)"
    assert (rewrite.triggered, rewrite.by) == (True, "deterministic") and "refers back" in rewrite.why


def test_a_models_rewrite_is_searched() -> None:
    text, rewrite = retrieval_question(with_model(), QUESTION, HISTORY, answer("Who approves a large refund?"))
    assert text == "Who approves a large refund?" and rewrite.by == "fake/model"


def test_no_model_falls_back_to_the_question() -> None:
    def missing(**_):
        raise RuntimeError("LLM Provider NOT provided")

    text, rewrite = retrieval_question(with_model(), QUESTION, HISTORY, missing)
    assert text == QUESTION and rewrite.triggered and rewrite.by == "none" and "searched as asked" in rewrite.why


def test_a_slow_model_falls_back_to_the_question() -> None:
    def slow(**_):
        time.sleep(1.0)
        return answer("Who approves a large refund?")()

    started = time.perf_counter()
    text, rewrite = retrieval_question(with_model(timeout=0.1), QUESTION, HISTORY, slow)
    assert time.perf_counter() - started < 0.9  # not waited for
    assert text == QUESTION and rewrite.by == "none" and "no answer within 0.1 s" in rewrite.why


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("", "empty rewrite"),
        ("Who approves a large refund? " * 20, "rewrite longer than"),
        ("Large refunds.", "drops every content word"),
    ],
)
def test_a_bad_rewrite_falls_back_to_the_question(written: str, why: str) -> None:
    text, rewrite = retrieval_question(with_model(), QUESTION, HISTORY, answer(written))
    assert text == QUESTION and rewrite.by == "none" and why in rewrite.why


def test_without_history_or_trigger_nothing_is_rewritten() -> None:
    assert retrieval_question(Settings(), QUESTION, [])[1].why == "no history"
    asked = "Who approves a refund larger than five hundred euros?"
    text, rewrite = retrieval_question(Settings(), asked, HISTORY)
    assert text == asked and not rewrite.triggered
    assert retrieval_question(Settings(rewrite_model="none"), QUESTION, HISTORY)[0] == QUESTION


# -- the workspace: same results without history ---------------------------------------


def test_a_question_without_history_is_answered_as_before(handbook_workspace: Workspace) -> None:
    before = handbook_workspace.corpora.search("handbook", "who approves a large refund?", 3)
    again = handbook_workspace.corpora.search("handbook", "who approves a large refund?", 3, [])
    assert [r.source_id for r in again.results] == [r.source_id for r in before.results]
    assert [r.score for r in again.results] == [r.score for r in before.results]
    assert again.retrieval_question == again.question and not again.rewrite.triggered


# -- HTTP ----------------------------------------------------------------------------------


def test_http_search_takes_history_and_reports_what_it_searched(handbook_workspace: Workspace) -> None:
    client = TestClient(create_app(workspace=handbook_workspace))
    body = client.post("/v1/corpora/handbook/search", json={"question": QUESTION, "history": HISTORY, "k": 3}).json()
    assert body["question"] == QUESTION
    assert body["retrieval_question"] == "who approves it? (about large refunds handled)"
    assert body["rewrite"] == {"triggered": True, "by": "deterministic", "why": "refers back ('it')"}
    assert body["results"]
    plain = client.post("/v1/corpora/handbook/search", json={"question": QUESTION}).json()
    assert plain["retrieval_question"] == QUESTION and plain["rewrite"]["triggered"] is False


@pytest.mark.parametrize(
    "history",
    [["x"] * 21, "not a list", [1, 2], ["x" * 2001]],
)
def test_http_refuses_a_bad_history(handbook_workspace: Workspace, history) -> None:
    client = TestClient(create_app(workspace=handbook_workspace))
    response = client.post("/v1/corpora/handbook/search", json={"question": QUESTION, "history": history})
    assert response.status_code in (413, 422), response.text
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["detail"]


# -- CLI and MCP ---------------------------------------------------------------------------


def test_cli_history_is_repeatable(handbook_workspace: Workspace, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(handbook_workspace.settings.home))
    monkeypatch.setenv("SCHEMA_SEARCH_EMBEDDING_THREADS", "1")
    argv = ["docs", "search", QUESTION, "--corpus", "handbook", "--history", "Hello", "--history", HISTORY[0]]
    assert main([*argv, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["retrieval_question"] == "who approves it? (about large refunds handled)"
    assert main(argv) == 0
    assert "searched as: who approves it? (about large refunds handled)" in capsys.readouterr().out


def test_mcp_search_docs_takes_history(handbook_workspace: Workspace) -> None:
    async def run():
        async with Client(create_server(handbook_workspace, corpora=["handbook"])) as client:
            found = await client.call_tool("search_docs", {"question": QUESTION, "k": 3, "history": HISTORY})
            plain = await client.call_tool("search_docs", {"question": QUESTION, "k": 3})
            return found, plain

    said, unsaid = anyio.run(run)
    # The agent reads how its question was searched, in the text it gets as well as the structure.
    assert "Searched as a follow-up of the conversation: 'who approves it? (about" in said.content[0].text
    assert "Searched as a follow-up" not in unsaid.content[0].text
    found, plain = said.structured_content, unsaid.structured_content
    assert found["question"] == QUESTION
    assert found["retrieval_question"] == "who approves it? (about large refunds handled)"
    assert found["rewrite"]["by"] == "deterministic" and found["passages"]
    assert plain["retrieval_question"] == QUESTION
