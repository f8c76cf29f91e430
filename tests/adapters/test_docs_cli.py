"""``schemasift docs ...`` and ``corpora`` in process: human output, --json equal to the HTTP body, errors."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from schema_search.cli import main
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK

QUESTION = "who approves a large refund?"


def use(monkeypatch, workspace: Workspace) -> None:
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(workspace.settings.home))
    monkeypatch.setenv("SCHEMA_SEARCH_EMBEDDING_THREADS", "1")


def test_index_search_show_and_corpora(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    assert main(["docs", "index", str(HANDBOOK), "--corpus", "handbook"]) == 0
    assert "Indexed corpus 'handbook': 6 documents" in capsys.readouterr().out
    assert main(["docs", "search", QUESTION, "--corpus", "handbook", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert "unrelated text sits at distance" in out
    assert "https://handbook.example.com/policies/refunds/#approval" in out
    source_id = out.split("[", 2)[1].split("]")[0]
    assert main(["docs", "show", source_id, "--corpus", "handbook"]) == 0
    assert "500 euros" in capsys.readouterr().out
    assert main(["corpora"]) == 0
    assert "handbook" in capsys.readouterr().out


def test_search_json_is_the_http_body(handbook_workspace, monkeypatch, capsys):
    use(monkeypatch, handbook_workspace)
    assert main(["docs", "search", QUESTION, "--corpus", "handbook", "--json"]) == 0
    printed = capsys.readouterr().out.strip()
    client = TestClient(create_app(Settings(home=handbook_workspace.settings.home, embedding_threads=1)))
    body = client.post("/v1/corpora/handbook/search", json={"question": QUESTION}).text
    assert printed == body
    assert json.loads(printed)["results"][0]["source_id"].startswith("S")


def test_errors_go_to_stderr_with_a_hint_and_exit_1(handbook_workspace, monkeypatch, capsys, tmp_path):
    use(monkeypatch, handbook_workspace)
    assert main(["docs", "search", "x", "--corpus", "nope"]) == 1
    err = capsys.readouterr().err
    assert "No corpus named 'nope'" in err and "schemasift docs index FOLDER --corpus nope" in err
    assert main(["docs", "show", "S000000", "--corpus", "handbook"]) == 1
    assert "No chunk or document" in capsys.readouterr().err
    assert main(["docs", "index", str(tmp_path / "missing"), "--corpus", "x"]) == 1
    assert "is not a folder" in capsys.readouterr().err
    assert main(["docs"]) == 2  # the group alone prints its help: a wrong call, as argparse says


def test_the_help_shows_an_id_that_exists_in_the_handbook(handbook_workspace, monkeypatch, capsys):
    use(monkeypatch, handbook_workspace)
    from schema_search.cli.main import _parser

    shows = [line.split()[3] for line in _parser().format_help().splitlines() if "docs show S" in line]
    shows += [
        line.split()[3]
        for line in _subcommand("docs").format_help().splitlines()
        if line.strip().startswith("schemasift docs show")
    ]
    assert shows and all(main(["docs", "show", source_id, "--corpus", "handbook"]) == 0 for source_id in shows)
    assert "Data retention" in capsys.readouterr().out


def _subcommand(name: str):
    from schema_search.cli.main import _parser

    parser = _parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return action.choices[name]


def test_one_passage_is_one_passage(handbook_workspace, monkeypatch, capsys):
    use(monkeypatch, handbook_workspace)
    assert main(["docs", "search", QUESTION, "--corpus", "handbook", "-k", "1"]) == 0
    assert "1 passage in corpus" in capsys.readouterr().out


def test_an_upload_is_listed_as_such_not_as_folder_none(tmp_path, monkeypatch, capsys):
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.corpora.index(HANDBOOK, corpus="uploaded", origin="upload")  # what POST /v1/corpora/NAME does
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    assert main(["corpora"]) == 0
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.startswith("uploaded") and row.endswith("(uploaded)") and "None" not in row
