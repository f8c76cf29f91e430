"""The CLI in process: human output, --json equal to the HTTP body, errors on stderr."""

import json

import pytest
from fastapi.testclient import TestClient

from schema_search.cli import main
from schema_search.http import create_app
from schema_search.workspace import Workspace

DDL = """
CREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT, industry TEXT);
CREATE TABLE crm.contacts (id BIGINT PRIMARY KEY, account_id BIGINT REFERENCES crm.accounts(id), email TEXT);
COMMENT ON TABLE crm.contacts IS 'People at customer accounts';
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    ddl = tmp_path / "crm.sql"
    ddl.write_text(DDL)
    assert main(["index", str(ddl), "--catalog", "crm", "--dialect", "postgres"]) == 0
    return tmp_path / "home"


def test_index_search_and_catalogs(home, capsys):
    capsys.readouterr()
    assert main(["search", "people at customer accounts", "--catalog", "crm"]) == 0
    out = capsys.readouterr().out
    assert "crm.contacts" in out and "table" in out.splitlines()[0]
    assert main(["catalogs"]) == 0
    assert "crm" in capsys.readouterr().out
    assert main(["table", "contacts", "--catalog", "crm"]) == 0
    assert "CREATE TABLE crm.contacts" in capsys.readouterr().out


def test_search_json_is_the_http_body(home, capsys):
    capsys.readouterr()
    assert main(["search", "industry", "--catalog", "crm", "-k", "3", "--json"]) == 0
    printed = capsys.readouterr().out.strip()
    client = TestClient(create_app(workspace=Workspace()))
    response = client.post("/v1/catalogs/crm/search", json={"question": "industry", "k": 3})
    assert printed.encode() == response.content
    assert json.loads(printed)["candidates"][0]["table"] == "crm.accounts"


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--catalog", "nope"],
        ["search", "", "--catalog", "crm"],
        ["search", "x", "--catalog", "crm", "-k", "0"],
        ["index", "/no/such/file.sql", "--catalog", "other"],
        ["index", "postgresql://u:secret@127.0.0.1:1/db", "--catalog", "other"],
        ["table", "crm.nope", "--catalog", "crm"],
    ],
)
def test_errors_go_to_stderr_with_exit_1(home, capsys, argv):
    capsys.readouterr()
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "\nerror: " in "\n" + captured.err and "Traceback" not in captured.err
    assert "secret" not in captured.err


@pytest.mark.parametrize(
    "argv, module",
    [
        (["eval"], "eval.tables"),
        (["docs", "eval", "--corpus", "handbook"], "eval.docs"),
        (["csr", "score"], "eval.csr"),
    ],
)
def test_commands_that_moved_to_the_eval_suite_forward_there_with_a_note(argv, module, tmp_path, capfd):
    """``schemasift eval``, ``docs eval`` and ``csr`` run the eval suite's program (a checkout's), same arguments."""
    assert main(["--home", str(tmp_path), *argv, "/nonexistent/input"]) == 1  # the eval suite's own error
    err = capfd.readouterr().err
    assert f"is now `python -m {module}`" in err
    assert "error:" in err and "/nonexistent/input" in err


def test_the_eval_suite_is_never_imported_by_the_product():
    """The suite measures the product from outside: a moved command runs it as a program of its own."""
    import subprocess
    import sys

    code = "import sys, schema_search.cli.main, schema_search.http, schema_search.mcp; print('eval' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert found.stdout.strip() == "False", found.stderr
