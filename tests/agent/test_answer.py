"""The document agent, driven by a scripted model: counts go to query_collection, passages to search, all cited."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from schema_search.agent import ask as agent
from schema_search.agent.answer import SYSTEM, TOOL_SPECS, answer
from schema_search.cli import main
from schema_search.settings import Settings
from schema_search.structured.models import QueryRequest
from schema_search.tools.collections import DESCRIPTIONS, CollectionTools
from schema_search.tools.docs import DESCRIPTIONS as DOC_DESCRIPTIONS
from schema_search.tools.docs import DocTools
from schema_search.workspace import Workspace

from ..structured.conftest import copy_peps
from .test_agent import ScriptedModel, call

COUNTED = re.compile(r"Rows counted: (.*)")
ROW = re.compile(r"^(\[S[0-9a-f]+\]) \| (.+) \| (\{\{link:\d+\}\})$", re.M)


class DocModel(ScriptedModel):
    def __call__(
        self, *, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], tool_choice: Any = None
    ) -> dict[str, Any]:
        self.calls.append(json.loads(json.dumps(messages)))
        self.choices.append(tool_choice)
        self.tools = {t["function"]["name"] for t in tools}
        return self.steps.pop(0)(messages)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("answer")
    workspace = Workspace(Settings(home=root / "home", dense=False))
    workspace.corpora.index(copy_peps(root / "peps"), corpus="peps")
    return workspace


def tools(workspace: Workspace) -> tuple[CollectionTools, DocTools]:
    return CollectionTools(workspace, ["peps"]), DocTools(workspace, ["peps"])


def test_the_routing_is_written_where_the_model_reads_it() -> None:
    assert "query_collection" in DOC_DESCRIPTIONS["search_docs"] and "search_docs" in DESCRIPTIONS["query_collection"]
    assert "never" in SYSTEM and "count search results" in SYSTEM
    assert {s["function"]["name"] for s in TOOL_SPECS} == {
        "search_docs",
        "get_document",
        "describe_collection",
        "query_collection",
        "answer",
    }


def test_a_count_is_answered_by_sql_and_cites_the_rows_it_counted(workspace: Workspace) -> None:
    def final(messages: list[dict[str, Any]]) -> dict[str, Any]:
        cites = COUNTED.search(messages[-1]["content"]).group(1).split()
        count = re.search(r"\n(\d+)\n", messages[-1]["content"]).group(1)
        return call("answer", {"text": f"{count} of them are Final: {' '.join(cites)}."}, "c3")

    model = DocModel(
        lambda m: call("describe_collection", {}),
        lambda m: call("query_collection", {"query": {"filter": [["status", "=", "Final"]], "count": True}}, "c2"),
        final,
    )
    collections, docs = tools(workspace)
    result = answer("How many PEPs are Final?", collections=collections, docs=docs, model="x", complete=model)
    finals = workspace.corpora.query("peps", QueryRequest(sql="SELECT source_id FROM documents WHERE status = 'Final'"))
    assert result.tools == ["describe_collection", "query_collection", "answer"]
    assert result.ok and {c.id for c in result.cited} == {row[0] for row in finals.rows}
    assert result.text.startswith(f"{len(finals.rows)} of them are Final: [")
    assert "describe_collection" in model.tools and "search_docs" in model.tools


def test_links_reach_the_model_only_as_placeholders_and_come_back_filled(workspace: Workspace) -> None:
    def final(messages: list[dict[str, Any]]) -> dict[str, Any]:
        shown = messages[-1]["content"]
        assert "https://" not in shown
        lines = [f"{title}: {link} {cite}" for cite, title, link in ROW.findall(shown)]
        return call("answer", {"text": "\n".join(lines) + "\nAlso {{link:42}}."}, "c2")

    model = DocModel(
        lambda m: call(
            "query_collection", {"sql": "SELECT title, url FROM documents WHERE pep IN (8, 572) ORDER BY pep"}
        ),
        final,
    )
    collections, docs = tools(workspace)
    result = answer("Links of PEP 8 and 572?", collections=collections, docs=docs, model="x", complete=model)
    assert result.text.splitlines()[0].startswith("Style Guide for Python Code: https://peps.python.org/pep-0008/ [")
    assert "Assignment Expressions: https://peps.python.org/pep-0572/" in result.text
    assert result.placeholders_unknown == ["{{link:42}}"] and not result.ok


def test_a_passage_question_goes_to_search(workspace: Workspace) -> None:
    def final(messages: list[dict[str, Any]]) -> dict[str, Any]:
        cite = re.search(r"^\[S[0-9a-f]+\]", messages[-1]["content"], re.M).group(0)  # a passage's line
        return call("answer", {"text": f"The walrus operator assigns inside expressions {cite}."}, "c2")

    model = DocModel(
        lambda m: call("search_docs", {"question": "walrus operator assignment expressions", "k": 3}), final
    )
    collections, docs = tools(workspace)
    result = answer("What does := do?", collections=collections, docs=docs, model="x", complete=model)
    assert result.ok and result.cited and result.cited[0].ref.startswith("https://peps.python.org/pep-0572/")


def test_ask_with_a_corpus_prints_the_resolved_answer(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    model = DocModel(
        lambda m: call("query_collection", {"sql": "SELECT title, url FROM documents WHERE pep = 8"}),
        lambda m: call("answer", {"text": "PEP 8 is {{link:1}}."}, "c2"),
    )
    monkeypatch.setattr(agent, "litellm_complete", lambda name, api_base=None, **_: model)
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    home = str(workspace.settings.home)
    assert main(["--home", home, "ask", "Link of PEP 8?", "--corpus", "peps", "--model", "scripted"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PEP 8 is https://peps.python.org/pep-0008/.") and "query_collection, answer" in out
    assert main(["--home", home, "ask", "anything", "--model", "scripted"]) == 1
    assert "Give --catalog NAME (SQL) or --corpus NAME" in capsys.readouterr().err


def test_a_plain_text_reply_is_the_answer(workspace: Workspace) -> None:
    # Small models (the embedded one) answer in text instead of calling the answer tool.
    model = DocModel(lambda m: {"choices": [{"message": {"content": "PEP 572 adds := [S000000]."}}]})
    collections, docs = tools(workspace)
    result = answer("What does := do?", collections=collections, docs=docs, model="x", complete=model)
    assert result.text.startswith("PEP 572 adds :=") and result.fabricated == ["S000000"] and result.turns == 1


def test_ask_takes_the_embedded_model_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    complete = agent.litellm_complete("local/smollm2")  # no ModelNotReady: local/ needs no key
    import litellm

    assert any(entry["provider"] == "local" for entry in litellm.custom_provider_map) and callable(complete)


def test_a_repeated_search_makes_the_next_turn_answer(workspace: Workspace) -> None:
    search = lambda m: call("search_docs", {"question": "walrus operator", "k": 3})  # noqa: E731
    model = DocModel(search, search, lambda m: call("answer", {"text": "PEP 572 adds :=."}, "c3"))
    collections, docs = tools(workspace)
    result = answer("What does := do?", collections=collections, docs=docs, model="x", complete=model)
    assert result.text == "PEP 572 adds :=." and result.turns == 3
    assert model.choices == [None, None, {"type": "function", "function": {"name": "answer"}}]
    assert model.calls[2][-1]["content"] == agent.REPEATED.format(final="answer")
