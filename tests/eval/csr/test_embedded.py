"""`csr run` then `csr score` as a new user runs them: the embedded model, no key, the real CLI and MCP server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.csr.__main__ import main
from schema_search.workspace import Workspace

pytestmark = pytest.mark.slow


def test_two_questions_end_to_end_with_the_embedded_model(
    handbook_workspace: Workspace, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("SCHEMA_SEARCH_EMBEDDING_THREADS", "1")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        '{"id": "refund", "question": "Who has to approve a refund of 800 euros?", '
        '"gold_urls": ["https://handbook.example.com/policies/refunds/"]}\n'
        '{"id": "steak", "question": "How long should a grilled steak rest?", "gold_urls": []}\n'
    )
    out = tmp_path / "run"
    home = ["--home", str(handbook_workspace.settings.home)]
    assert (
        main(
            [
                *home,
                "run",
                str(questions),
                "--corpus",
                "handbook",
                "--model",
                "local/smollm2",
                "--cite",
                "ids",
                "--max-turns",
                "3",
                "--temperature",
                "0",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    conversations = [json.loads(line) for line in (out / "transcripts.jsonl").read_text().splitlines()]
    assert sorted((c["question_id"], c["pipeline"]) for c in conversations) == [
        ("refund", "agent"),
        ("refund", "single-shot"),
        ("steak", "agent"),
        ("steak", "single-shot"),
    ]
    for c in conversations:
        assert c["model"] == "local/smollm2" and any(e["kind"] == "model" for e in c["events"])
        assert c["answer"] is not None or c["error"]
    single = next(c for c in conversations if c["pipeline"] == "single-shot" and c["question_id"] == "refund")
    assert single["events"][0]["name"] == "search_docs" and "handbook.example.com" in single["events"][0]["text"]

    capsys.readouterr()
    report, figures = tmp_path / "report.html", tmp_path / "score.json"
    assert (
        main([*home, "score", str(out), "--judge", "local/smollm2", "--json", str(figures), "--report", str(report)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "judge: local/smollm2" in printed and "CSR [95% CI]" in printed
    scored = json.loads(figures.read_text())
    assert scored["judge"] == "local/smollm2" and len(scored["conversations"]) == 4
    assert {(c["pipeline"], c["cite"], c["run"]) for c in scored["configs"]} == {
        ("single-shot", "ids", 1),
        ("single-shot", "ids", None),
        ("agent", "ids", 1),
        ("agent", "ids", None),
    }
    page = report.read_text()
    assert "<h1>Citation survival</h1>" in page and "Who has to approve a refund of 800 euros?" in page
