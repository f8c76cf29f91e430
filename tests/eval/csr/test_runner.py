"""The runner with a scripted model through a real stdio MCP session against `schemasift mcp`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eval.csr import transcript
from eval.csr.judge import ModelJudge
from eval.csr.questions import Question, load_questions
from eval.csr.runner import RunConfig, run
from eval.csr.score import score
from schema_search.agent.ask import AgentFailed
from schema_search.errors import InvalidInput
from schema_search.workspace import Workspace

REFUNDS = "https://handbook.example.com/policies/refunds/"
QUESTIONS = [
    Question(id="refund", question="Who has to approve a refund of 800 euros?", gold_urls=[REFUNDS]),
    Question(id="steak", question="How long should a grilled steak rest?", gold_urls=[]),
]


def reply(content: str = "", calls: list | None = None) -> dict:
    message = {"content": content} | ({"tool_calls": calls} if calls else {})
    return {"choices": [{"message": message}]}


def scripted(**kwargs):
    """Searches once (agent), then answers citing the first passage as the system prompt asks."""
    messages = kwargs["messages"]
    question = messages[1]["content"]
    if kwargs.get("tools") and not any(m["role"] == "tool" for m in messages):
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "search_docs", "arguments": json.dumps({"question": question, "k": 3})},
        }
        return reply(calls=[call])
    if "steak" in question:
        return reply("The documentation does not cover that.")
    results = messages[-1]["content"]
    by_url = "by its URL" in messages[0]["content"]
    # The first passage's heading line: "[S3fa21c] Title > Section - URL", or "[URL] Title > Section".
    cite = re.search(r"^\[(https://[^\]]+)\]" if by_url else r"^\[(S[0-9a-f]{6})\]", results, re.M)
    return reply(f"Refunds over 500 euros need approval from finance [{cite.group(1)}].")


@pytest.fixture
def stdio_env(monkeypatch, handbook_workspace: Workspace) -> Path:
    monkeypatch.setenv("SCHEMA_SEARCH_EMBEDDING_THREADS", "1")
    return handbook_workspace.settings.home


def config(home: Path, **kw) -> RunConfig:
    return RunConfig(
        corpus="handbook",
        model="scripted",
        pipelines=kw.pop("pipelines", ["single-shot", "agent"]),
        cites=kw.pop("cites", ["ids", "urls"]),
        home=home,
        k=3,
        **kw,
    )


def test_both_pipelines_and_styles_through_stdio_mcp_into_transcripts(stdio_env: Path, tmp_path: Path):
    seen = []
    new = run(QUESTIONS, config(stdio_env), tmp_path, scripted, progress=seen.append)
    assert len(new) == 8 and len(seen) == 8 and not any(c.error for c in new)
    lines = (tmp_path / "transcripts.jsonl").read_text().splitlines()
    assert len(lines) == 8 and all(json.loads(line)["question_id"] for line in lines)
    conversations = transcript.read(tmp_path)

    agent_ids = next(c for c in conversations if c.key == ("refund", "agent", "ids", 1))
    assert "schema_search.cli" in agent_ids.server and "--cite ids" in agent_ids.server
    kinds = [e.kind for e in agent_ids.events]
    assert kinds == ["model", "tool", "model"]
    tool = agent_ids.events[1]
    assert tool.name == "search_docs" and "<document-data" in tool.text and tool.structured["passages"]
    assert agent_ids.messages[agent_ids.events[2].sent - 1]["role"] == "tool"  # the call saw the tool result
    assert {t["function"]["name"] for t in agent_ids.tools} >= {"search_docs", "get_document", "resolve_citations"}

    urls = next(c for c in conversations if c.key == ("refund", "single-shot", "urls", 1))
    shown = urls.events[0].text
    assert not re.search(r"\[S[0-9a-f]{6}\]", shown) and REFUNDS in shown  # shown by URL, no IDs

    report = score(conversations, ModelJudge("yes-judge", lambda **kw: reply("Yes")))
    pooled = {(c.pipeline, c.cite): c for c in report.configs if c.run is None}
    assert pooled[("agent", "ids")].csr.mean == 1.0 and pooled[("agent", "urls")].csr.mean == 1.0
    assert pooled[("agent", "ids")].format_adherence == 1.0 and pooled[("single-shot", "urls")].declined == 1.0
    assert pooled[("agent", "ids")].mean_searches == 1.0

    # A re-run into the same folder adds nothing; a new run number adds only its own conversations.
    assert run(QUESTIONS, config(stdio_env), tmp_path, scripted) == []
    more = run(QUESTIONS[:1], config(stdio_env, runs=2, cites=["ids"], pipelines=["agent"]), tmp_path, scripted)
    assert [c.key for c in more] == [("refund", "agent", "ids", 2)]


def test_a_model_that_never_answers_has_given_up(stdio_env: Path, tmp_path: Path):
    def searches_forever(**kwargs):
        call = {
            "id": "c",
            "type": "function",
            "function": {"name": "search_docs", "arguments": '{"question": "refund"}'},
        }
        return reply(calls=[call])

    (c,) = run(
        QUESTIONS[:1], config(stdio_env, pipelines=["agent"], cites=["ids"], max_turns=2), tmp_path, searches_forever
    )
    assert c.gave_up and c.answer == "" and c.error is None
    assert [e.kind for e in c.events] == ["model", "tool", "model", "tool"]


def test_one_running_server_cannot_show_two_styles(tmp_path: Path):
    with pytest.raises(InvalidInput, match="one citation style"):
        run(QUESTIONS, config(tmp_path, mcp_url="http://127.0.0.1:9/mcp"), tmp_path, scripted)


def test_questions_files_are_checked(tmp_path: Path):
    good = tmp_path / "q.jsonl"
    good.write_text('{"question": "a?", "gold_urls": []}\n\n{"id": 7, "question": "b?", "gold_urls": ["https://x"]}\n')
    assert [(q.id, q.in_docs) for q in load_questions(good)] == [("q1", False), ("7", True)]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "a?"}\n')
    with pytest.raises(InvalidInput, match=r"bad.jsonl:1 is not a question \(gold_urls: Field required\)"):
        load_questions(bad)
    twice = tmp_path / "twice.jsonl"
    twice.write_text('{"id": "a", "question": "x", "gold_urls": []}\n{"id": "a", "question": "y", "gold_urls": []}\n')
    with pytest.raises(InvalidInput, match="Two questions"):
        load_questions(twice)
    with pytest.raises(InvalidInput, match="No questions file"):
        load_questions(tmp_path / "missing.jsonl")


def test_the_shipped_fastapi_questions_load():
    questions = load_questions(Path(__file__).resolve().parents[3] / "eval" / "csr" / "fastapi.jsonl")
    assert len(questions) == 30 and sum(not q.in_docs for q in questions) == 6
    assert all(u.startswith("https://fastapi.tiangolo.com/") for q in questions for u in q.gold_urls)


def test_a_running_streamable_http_server(stdio_env: Path, tmp_path: Path):
    import os
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "schema_search.cli",
            "--home",
            str(stdio_env),
            "mcp",
            "--corpus",
            "handbook",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env=dict(os.environ),
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.3)
        url = f"http://127.0.0.1:{port}/mcp"
        (c,) = run(
            QUESTIONS[:1], config(stdio_env, mcp_url=url, cites=["ids"], pipelines=["agent"]), tmp_path, scripted
        )
        assert c.server == url and not c.error and re.search(r"\[S[0-9a-f]{6}\]", c.answer)
        with pytest.raises(InvalidInput, match="shows passages by ids"):
            run(
                QUESTIONS[:1],
                config(stdio_env, mcp_url=url, cites=["urls"], pipelines=["single-shot"]),
                tmp_path,
                scripted,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_an_unreachable_server_is_a_clear_error(tmp_path: Path):
    from eval.csr.runner import ServerUnreachable

    with pytest.raises(ServerUnreachable, match="127.0.0.1:9/mcp"):
        run(
            QUESTIONS[:1], config(tmp_path, mcp_url="http://127.0.0.1:9/mcp", cites=["ids"]), tmp_path / "out", scripted
        )


def test_a_folder_holds_one_model(tmp_path: Path):
    (tmp_path / "run.json").write_text('{"corpus": "handbook", "model": "gpt-4o-mini"}')
    with pytest.raises(InvalidInput, match="holds a run with model 'gpt-4o-mini'"):
        run(QUESTIONS, config(tmp_path), tmp_path, scripted)


def test_a_failed_conversation_is_tried_again_on_resume_and_replaces_its_failure(stdio_env: Path, tmp_path: Path):
    def broken(**kwargs):
        raise AgentFailed("Calling 'scripted' failed: the provider is down.")

    cfg = config(stdio_env, pipelines=["single-shot"], cites=["ids"])
    (failed,) = run(QUESTIONS[:1], cfg, tmp_path, broken)
    assert failed.error.startswith("Calling 'scripted' failed")
    with (tmp_path / "transcripts.jsonl").open("a") as f:
        f.write('{"question_id": "refund", "pipel')  # a crash mid-line
    with pytest.warns(UserWarning, match="cut short"):
        (retried,) = run(QUESTIONS[:1], cfg, tmp_path, scripted)
    assert retried.error is None
    with pytest.warns(UserWarning, match="cut short"):
        (only,) = transcript.read(tmp_path)
    assert only.error is None and only.answer


def test_a_server_that_dies_stops_the_run_instead_of_feeding_errors_to_the_model(stdio_env: Path, tmp_path: Path):
    import os
    import signal

    from eval.csr.runner import ServerUnreachable

    def kill_the_server(**kwargs):
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"schema_search.cli" in cmdline and str(stdio_env).encode() in cmdline:
                os.kill(int(pid), signal.SIGKILL)
        call = {
            "id": "c",
            "type": "function",
            "function": {"name": "search_docs", "arguments": '{"question": "refund"}'},
        }
        return reply(calls=[call])

    with pytest.raises(ServerUnreachable, match="closed the connection"):
        run(QUESTIONS[:1], config(stdio_env, pipelines=["agent"], cites=["ids"]), tmp_path, kill_the_server)
    assert not (tmp_path / "transcripts.jsonl").exists()  # nothing half-answered was kept


def test_a_conversation_outgrowing_the_context_has_given_up(stdio_env: Path, tmp_path: Path):
    from schema_search.agent.ask import ContextTooLong

    def too_long(**kwargs):
        if any(m["role"] == "tool" for m in kwargs["messages"]):
            raise ContextTooLong("The conversation outgrew 'scripted''s context.")
        return scripted(**kwargs)

    (c,) = run(QUESTIONS[:1], config(stdio_env, pipelines=["agent"], cites=["ids"]), tmp_path, too_long)
    assert c.gave_up and c.answer == "" and c.error is None
