"""`schemasift csr`: errors a new user can make, and scoring a transcript folder into JSON and HTML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.csr import transcript
from eval.csr.__main__ import main
from eval.csr.judge import JudgeNotReady, make_judge

from .test_score import conversation


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    transcript.append(
        out, conversation("Refunds over 500 euros need approval from finance [Sa7d4b7]. See <b>[S0badd1]</b>.")
    )
    transcript.append(out, conversation("The docs do not cover steak.", gold=(), question_id="off1"))
    transcript.append(
        out, conversation("Finance approves [https://handbook.example.com/policies/refunds/].", cite="urls")
    )
    return out


def test_score_writes_json_and_an_html_page_with_marked_citations(folder: Path, tmp_path: Path, capsys):
    figures, page = tmp_path / "s.json", tmp_path / "r.html"
    assert main(["score", str(folder), "--judge", "none", "--json", str(figures), "--report", str(page)]) == 0
    out = capsys.readouterr().out
    assert (
        "judge: none  (no judge: claims unchecked, CSR not computed" in out and "agent / ids minus agent / urls" in out
    )
    scored = json.loads(figures.read_text())
    assert scored["metric"] == "gold_cited" and len(scored["conversations"]) == 3
    html = page.read_text()
    assert "<mark class='unchecked'" in html and "<mark class='fabricated'" in html
    assert "&lt;b&gt;" in html and "<b>[S0badd1]" not in html  # answer text is escaped
    assert "none: the documents do not answer it" in html


@pytest.mark.parametrize(
    "argv, message",
    [
        (["score", "/nonexistent/run"], "No transcript at"),
        (["run", "q.jsonl", "--corpus", "x", "--model", "local/smollm2", "--pipeline", "agent,chat"], "--pipeline"),
        (["run", "q.jsonl", "--corpus", "x", "--model", "local/smollm2", "--cite", "footnotes"], "--cite"),
        (["run", "/nonexistent/q.jsonl", "--corpus", "x", "--model", "local/smollm2"], "No questions file"),
    ],
)
def test_bad_input_is_one_clear_error(argv, message, capsys):
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_an_unknown_corpus_fails_before_any_server_starts(tmp_path: Path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "a?", "gold_urls": []}\n')
    argv = [
        "--home",
        str(tmp_path / "home"),
        "run",
        str(questions),
        "--corpus",
        "nope",
        "--model",
        "local/smollm2",
        "--out",
        str(tmp_path / "out"),
    ]
    assert main(argv) == 1
    assert "nope" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_a_damaged_transcript_line_is_named(folder: Path, capsys):
    with (folder / "transcripts.jsonl").open("a") as f:
        f.write('{"question_id": "x"}\n')
    assert main(["score", str(folder), "--judge", "none"]) == 1
    assert "transcripts.jsonl:4 is not a transcript line" in capsys.readouterr().err


def test_csr_alone_prints_its_help(capsys):
    assert main([]) == 2  # a wrong call: argparse's code
    assert "run" in capsys.readouterr().err  # a command without its subcommand is a usage error: stderr


def test_the_nli_judge_without_a_model_on_this_machine_says_what_to_do(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("SCHEMA_SEARCH_NLI_MODEL", str(tmp_path / "no-such-model"))
    with pytest.raises(JudgeNotReady, match="is not on this machine") as caught:
        make_judge("nli")
    assert "--judge none" in caught.value.hint


def test_a_bracket_citing_several_sources_shows_the_worst_of_them(tmp_path: Path):
    from eval.csr.judge import NoJudge
    from eval.csr.report import render
    from eval.csr.score import score

    page = render(score([conversation("Finance approves refunds [Sa7d4b7, S0badd1].")], NoJudge()))
    assert "<mark class='fabricated' title='id: Sa7d4b7" in page and "id: S0badd1 (fabricated)" in page
