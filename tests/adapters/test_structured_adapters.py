"""Count, filter, group through every adapter: CLI, HTTP and MCP, over a corpus and a catalog."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from schema_search.cli import main
from schema_search.http import create_app
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog
from ..structured.conftest import copy_peps

PROBLEM = "application/problem+json"
COUNT_FINAL = "SELECT count(*) AS n FROM documents WHERE status = 'Final'"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("structured")
    workspace = Workspace(Settings(home=root / "home", dense=False))
    workspace.corpora.index(copy_peps(root / "peps"), corpus="peps")
    plain = root / "plain"
    plain.mkdir()
    for n in range(3):
        (plain / f"note{n}.md").write_text(f"# Note {n}\n\nJust prose, no header: what the team agreed this week.\n")
    workspace.corpora.index(plain, corpus="plain")
    workspace.catalogs.index_catalog(tiny_catalog("tiny"))
    return root / "home"


@pytest.fixture
def cli(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(home))
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    return main


@pytest.fixture
def http(home: Path) -> TestClient:
    return TestClient(create_app(Settings(home=home, dense=False)))


def finals(home: Path) -> int:
    """The answer computed from the files themselves, not through the index."""
    pages = (home.parent / "peps" / "pages").glob("*.rst")
    return sum("\nStatus: Final\n" in page.read_text(encoding="utf-8").split("\n\n", 1)[0] + "\n" for page in pages)


def test_cli_fields_and_query(cli, home: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli(["docs", "fields", "--corpus", "peps"]) == 0
    out = capsys.readouterr().out
    assert "python_version  VARCHAR" in out and "left out:" in out and "replaces" in out
    assert cli(["docs", "query", COUNT_FINAL, "--corpus", "peps", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["rows"] == [[finals(home)]] and len(body["counted"]) == finals(home)
    form = json.dumps({"filter": [["status", "=", "Final"]], "count": True})
    assert cli(["docs", "query", form, "--form", "--corpus", "peps"]) == 0
    assert f"\n{finals(home)}\n" in capsys.readouterr().out
    assert (
        cli(["query", "SELECT schema, count(*) AS n FROM tables GROUP BY schema ORDER BY n DESC", "--catalog", "tiny"])
        == 0
    )
    assert "crm      4\nbilling  1" in capsys.readouterr().out


def test_cli_errors_are_one_message_and_exit_1(cli, capsys: pytest.CaptureFixture) -> None:
    assert cli(["docs", "query", "DROP TABLE documents", "--corpus", "peps"]) == 1
    assert "Only read-only queries" in capsys.readouterr().err
    assert cli(["docs", "query", "{not json", "--form", "--corpus", "peps"]) == 1
    assert "--form needs a JSON object" in capsys.readouterr().err


def test_a_corpus_without_any_header_counts_its_documents(cli, http: TestClient, capsys) -> None:
    # Every document has a path, a title, headings and a size, header or not.
    assert cli(["docs", "query", "SELECT count(*) AS n, sum(words) AS words FROM documents", "--corpus", "plain"]) == 0
    out = capsys.readouterr().out
    assert "\n3  36\n" in out  # 12 words each: the title's two, then the prose
    assert "\n1 row (" in out  # not "1 rows"
    sql = "SELECT title, language, modified IS NOT NULL, fetched FROM documents ORDER BY title"
    found = http.post("/v1/corpora/plain/query", json={"sql": sql})
    assert found.status_code == 200, found.text
    assert found.json()["rows"] == [[f"Note {n}", "en", True, None] for n in range(3)]


def test_cli_json_is_the_http_body(cli, http: TestClient, capsys: pytest.CaptureFixture) -> None:
    assert cli(["docs", "fields", "--corpus", "peps", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == http.get("/v1/corpora/peps/fields").json()


def test_http_fields_and_query(http: TestClient, home: Path) -> None:
    fields = http.get("/v1/corpora/peps/fields").json()
    assert fields["structured"] and fields["tables"][0]["name"] == "documents"
    assert {d["name"] for d in fields["dropped"]} == {"title", "bdfl_delegate", "resolution", "sponsor", "replaces"}
    found = http.post("/v1/corpora/peps/query", json={"sql": COUNT_FINAL}).json()
    assert found["rows"] == [[finals(home)]]
    by_form = http.post("/v1/corpora/peps/query", json={"query": {"filter": [["status", "=", "Final"]], "count": True}})
    assert by_form.json()["rows"] == [[finals(home)]]
    tables = http.post("/v1/catalogs/tiny/query", json={"sql": "SELECT name FROM columns WHERE name = 'email'"}).json()
    assert tables["rows"] == [["email"]]
    assert http.get("/v1/catalogs/tiny/fields").json()["tables"][1]["name"] == "columns"


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/corpora/peps/query", {"sql": "SELECT * FROM read_text('/etc/passwd')"}, 422),
        ("/v1/corpora/peps/query", {"sql": "SELECT 1", "query": {"count": True}}, 422),
        ("/v1/corpora/peps/query", {"query": {"filter": "status"}}, 422),
        ("/v1/corpora/nope/query", {"sql": "SELECT 1"}, 404),
    ],
)
def test_http_refusals_are_problem_json(http: TestClient, path: str, body: dict, status: int) -> None:
    response = http.post(path, json=body)
    assert response.status_code == status and response.headers["content-type"] == PROBLEM, response.text
    assert response.json()["detail"]


def test_rebuilding_the_fields_shares_the_index_and_leaves_the_live_one_searchable(tmp_path: Path) -> None:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.corpora.index(copy_peps(tmp_path / "peps"), corpus="peps")
    before = workspace.corpora.store.current("peps")
    searcher = workspace.corpora.searcher("peps")  # opened on the old generation, like a search in flight
    rebuilt = workspace.corpora.rebuild_fields("peps", exact=["status"])
    after = workspace.corpora.store.current("peps")
    assert after.id != before.id and (before.path / "structured.json").exists()
    status = next(c for c in rebuilt.tables[0].columns if c.name == "status")
    assert status.exact and after.manifest()["derived_from"] == before.id
    shared = [p.relative_to(before.path) for p in before.index_path.rglob("*") if p.is_file()]
    assert shared and all((after.path / p).stat().st_ino == (before.path / p).stat().st_ino for p in shared)
    assert searcher.search("assignment expressions", 3, workspace.corpora.config()).ranking
    assert workspace.corpora.search("peps", "assignment expressions", 3).results

    # The choice outlives a plain rebuild and a re-index; a later --plain-fields undoes it.
    def exact(response) -> set[str]:
        return {c.name for c in response.tables[0].columns if c.exact}

    assert "status" in exact(workspace.corpora.rebuild_fields("peps"))
    workspace.corpora.index(tmp_path / "peps", corpus="peps")
    assert "status" in exact(workspace.corpora.fields("peps"))
    assert "status" not in exact(workspace.corpora.rebuild_fields("peps", plain=["status"]))


def test_mcp_describe_query_and_placeholders_round_trip(home: Path) -> None:
    server = create_server(Workspace(Settings(home=home, dense=False)), "tiny", ["peps"])

    async def session() -> dict:
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            described = await client.call_tool("describe_collection", {"collection": "peps"})
            rows = await client.call_tool(
                "query_collection",
                {
                    "sql": "SELECT pep, title, url FROM documents WHERE pep IN (8, 572) ORDER BY pep",
                    "collection": "peps",
                },
            )
            unnamed = await client.call_tool("query_collection", {"sql": "SELECT 1"})
            tables = await client.call_tool(
                "query_collection", {"sql": "SELECT count(*) FROM columns WHERE name = 'email'", "collection": "tiny"}
            )
            first, second = rows.structured_content["result"]["rows"]
            answer = f"{first[1]}: {first[2]} {rows.structured_content['cites'][0]}; and {{{{link:99}}}}"
            rendered = await client.call_tool("render_answer", {"text": answer})
            resolved = await client.call_tool("resolve_citations", {"text": answer})
            return {
                "tools": tools,
                "described": described,
                "rows": rows,
                "tables": tables,
                "rendered": rendered,
                "resolved": resolved,
                "unnamed": unnamed,
            }

    found = anyio.run(session)
    assert {"describe_collection", "query_collection", "render_answer", "search_docs", "search_tables"} <= found[
        "tools"
    ]
    assert "python_version VARCHAR" in found["described"].content[0].text
    assert found["unnamed"].is_error and "say which" in found["unnamed"].content[0].text
    text = found["rows"].content[0].text
    assert "https://" not in text and "{{link:1}}" in text and "<collection-data" in text
    assert found["tables"].structured_content["result"]["rows"] == [[1]]
    rendered = found["rendered"].structured_content
    assert rendered["text"].startswith("Style Guide for Python Code: https://peps.python.org/pep-0008/ ")
    assert rendered["unknown"] == ["{{link:99}}"] and "[unverified: {{link:99}}]" in rendered["text"]
    resolved = found["resolved"].structured_content
    assert resolved["cited"][0]["ref"] == "https://peps.python.org/pep-0008/"
    assert resolved["placeholders_filled"] == ["{{link:1}}"] and not resolved["ok"]


def test_mcp_refuses_hostile_sql_as_a_tool_error(home: Path) -> None:
    server = create_server(Workspace(Settings(home=home, dense=False)), None, ["peps"])

    async def session():
        async with Client(server) as client:
            return await client.call_tool("query_collection", {"sql": "COPY documents TO '/tmp/out.csv'"})

    result = anyio.run(session)
    assert result.is_error and "read-only" in result.content[0].text


def test_the_hostile_corpus_over_mcp_reads_and_writes_nothing(home: Path, tmp_path: Path) -> None:
    from ..structured.test_query import HOSTILE, RUNAWAY, SECRET

    (tmp_path / "secret.csv").write_text(f"key\n{SECRET}\n")
    before = {str(p): p.stat().st_mtime for p in tmp_path.rglob("*")}
    server = create_server(Workspace(Settings(home=home, dense=False, query_timeout_s=0.5)), None, ["peps"])
    statements = [sql.format(dir=tmp_path, secret=tmp_path / "secret.csv") for sql in HOSTILE + RUNAWAY]

    async def session() -> list:
        async with Client(server) as client:
            return [await client.call_tool("query_collection", {"sql": sql}) for sql in statements]

    results = anyio.run(session)
    assert all(r.is_error for r in results), [s for s, r in zip(statements, results) if not r.is_error]
    assert not any(SECRET in r.content[0].text for r in results)
    assert {str(p): p.stat().st_mtime for p in tmp_path.rglob("*")} == before


def test_a_stdio_mcp_client_counts_and_gets_placeholders_filled(home: Path) -> None:
    import os
    import sys

    from mcp import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "schema_search.cli", "mcp", "--corpus", "peps", "--catalog", "tiny"],
        env={**os.environ, "SCHEMA_SEARCH_HOME": str(home), "SCHEMA_SEARCH_DENSE": "false"},
        cwd=str(Path(__file__).resolve().parents[2]),
    )

    async def session() -> tuple:
        with anyio.fail_after(90):
            async with Client(params) as client:
                described = await client.call_tool("describe_collection", {"collection": "tiny"})
                found = await client.call_tool(
                    "query_collection",
                    {"sql": "SELECT title, url FROM documents WHERE pep = 572", "collection": "peps"},
                )
                link = found.structured_content["result"]["rows"][0][1]
                rendered = await client.call_tool("render_answer", {"text": f"PEP 572: {link}"})
                return described, found, rendered

    described, found, rendered = anyio.run(session)
    assert "table columns" in described.content[0].text and "is_foreign_key" in described.content[0].text
    assert found.structured_content["result"]["rows"] == [["Assignment Expressions", "{{link:1}}"]]
    assert rendered.structured_content["text"] == "PEP 572: https://peps.python.org/pep-0572/"


def test_a_corpus_stored_before_every_corpus_had_a_documents_table_gets_one(tmp_path: Path) -> None:
    from schema_search.structured.collection import Collection, write_collection
    from schema_search.structured.fields import FieldReport
    from schema_search.structured.models import QueryRequest

    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nProse.\n")
    workspace.corpora.index(notes, corpus="notes")
    live = workspace.corpora.store.current("notes")
    # What an older release stored for a corpus without a shared header: the report, no table.
    write_collection(live.path, Collection("notes", "corpus", (), FieldReport(documents=1, with_header=0, sampled=1)))
    fresh = Workspace(Settings(home=tmp_path / "home", dense=False))
    assert fresh.corpora.query("notes", QueryRequest(sql="SELECT count(*) FROM documents")).rows == [[1]]
