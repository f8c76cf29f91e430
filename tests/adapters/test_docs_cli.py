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


def test_errors_go_to_stderr_with_a_hint_and_exit_2(handbook_workspace, monkeypatch, capsys, tmp_path):
    use(monkeypatch, handbook_workspace)
    assert main(["docs", "search", "x", "--corpus", "nope"]) == 2
    err = capsys.readouterr().err
    assert "No corpus named 'nope'" in err and "schemasift docs index FOLDER --corpus nope" in err
    assert main(["docs", "show", "S000000", "--corpus", "handbook"]) == 2
    assert "No chunk or document" in capsys.readouterr().err
    assert main(["docs", "index", str(tmp_path / "missing"), "--corpus", "x"]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["docs"]) == 2  # the group alone prints its help
