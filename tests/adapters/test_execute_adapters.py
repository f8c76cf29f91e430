"""``execute_sql`` as agents and HTTP clients reach it: the checklist first, rows only after an approval
bound to its values, on the sample shop database (sample_schemas/shop.sql + shop_data.sql) named in a
config file.

The MCP calls go through the SDK's own client; the HTTP calls through the app. Expected revenue is
computed in Python from the raw rows (tests/sample_shop.py), not by the SQL under test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from schema_search.cli.mcp import mcp_server
from schema_search.errors import ModelUnavailable
from schema_search.http import create_app
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .. import sample_shop

QUESTION = "What was the revenue of Acme last month?"
VAGUE = (
    f"SELECT SUM(oi.quantity * oi.unit_price) AS revenue {sample_shop.JOINS} "
    "WHERE s.company_name LIKE '%Acme%' AND o.placed_at >= date('now', 'start of month', '-1 month') "
    "AND o.placed_at < date('now', 'start of month')"
)
EXACT = (
    f"SELECT SUM(oi.quantity * oi.unit_price) AS revenue {sample_shop.JOINS} "
    "WHERE s.company_name = 'Acme GmbH' AND o.placed_at >= '2026-11-01' AND o.placed_at < '2026-12-01'"
)
ANSWERS = {
    "value:main.suppliers.company_name": "Acme GmbH",
    "time:main.orders.placed_at": "November 2026, Europe/Berlin",
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """shop (with its database configured for queries) and crm (search only), indexed without the dense channel."""
    database = sample_shop.build(tmp_path / "shop.db")
    workspace = Workspace(Settings(home=tmp_path / "data", dense=False))
    workspace.catalogs.index(f"sqlite:///{database}", catalog="shop")
    workspace.catalogs.index(str(Path(sample_shop.REPO) / "sample_schemas" / "crm.sql"), catalog="crm")
    path = tmp_path / "schema-search.toml"
    path.write_text('home = "data"\ndense = false\n[catalogs.shop]\nurl = "sqlite:///shop.db"\n[catalogs.crm]\n')
    return path


def _args() -> argparse.Namespace:
    return argparse.Namespace(catalog=[], corpus=[], cite="ids")


def test_mcp_execute_sql_asks_first_then_runs_only_the_approved_values(config: Path) -> None:
    settings = Settings(config_file=config)
    expected = sample_shop.revenue(config.parent / "shop.db", "Acme GmbH", "2026-11-01", "2026-12-01")

    async def run():
        async with Client(mcp_server(_args(), settings)) as client:
            tool = {t.name: t for t in (await client.list_tools()).tools}["execute_sql"]
            vague = await client.call_tool("execute_sql", {"sql": VAGUE, "question": QUESTION, "catalog": "shop"})
            unapproved = await client.call_tool(
                "execute_sql",
                {
                    "sql": VAGUE,
                    "question": QUESTION,
                    "catalog": "shop",
                    "approval": vague.structured_content["verdict"],
                },
            )
            # The session keeps the user's answers: the next call need not repeat them.
            ready = await client.call_tool(
                "execute_sql", {"sql": EXACT, "question": QUESTION, "catalog": "shop", "answers": ANSWERS}
            )
            verdict = ready.structured_content["verdict"]
            changed = await client.call_tool(
                "execute_sql",
                {
                    "sql": EXACT.replace("Acme GmbH", "Acme Ltd"),
                    "question": QUESTION,
                    "catalog": "shop",
                    "approval": verdict,
                },
            )
            ran = await client.call_tool(
                "execute_sql", {"sql": EXACT, "question": QUESTION, "catalog": "shop", "approval": verdict}
            )
            cites = " ".join(t["cite"] for t in ran.structured_content["tables"])
            resolved = await client.call_tool("resolve_citations", {"text": f"Revenue {cites}."})
            off = await client.call_tool("execute_sql", {"sql": "SELECT 1", "question": "one", "catalog": "crm"})
            return tool, vague, unapproved, ready, changed, ran, resolved, off

    tool, vague, unapproved, ready, changed, ran, resolved, off = anyio.run(run)
    # The [required] tag is binding in the input schema, and the [confirm] tag is in the description.
    assert "question" in tool.input_schema["required"] and tool.input_schema["properties"]["question"]["minLength"] == 1
    assert "[confirm]" in tool.description
    assert vague.structured_content["status"] == "needs_answers"
    questions = vague.structured_content["checklist"]["questions"]
    assert len(questions) == 2
    assert "Acme Ltd" in questions[0] and "Acme GmbH" in questions[0]
    assert "last month" in questions[1] and "time zone" in questions[1]
    assert "Ask the user, all at once" in vague.content[0].text
    assert unapproved.structured_content["status"] == "not_approved" and unapproved.structured_content["result"] is None
    assert ready.structured_content["status"] == "ready"
    assert changed.structured_content["status"] == "not_approved"
    assert "value:main.suppliers.company_name" in changed.structured_content["message"]
    assert ran.structured_content["status"] == "executed"
    assert ran.structured_content["result"]["rows"] == [[expected]]
    # The tables a query read are citable, as search results are.
    assert resolved.structured_content["fabricated"] == [] and "main.suppliers" in resolved.structured_content["text"]
    assert off.is_error and "no database is configured" in off.content[0].text


def test_mcp_offers_execute_sql_only_where_a_database_is_configured(tmp_path: Path) -> None:
    workspace = Workspace(Settings(home=tmp_path / "data", dense=False))
    workspace.catalogs.index(str(Path(sample_shop.REPO) / "sample_schemas" / "shop.sql"), catalog="shop")
    path = tmp_path / "schema-search.toml"
    path.write_text('home = "data"\ndense = false\n[catalogs.shop]\n')

    async def run():
        async with Client(mcp_server(_args(), Settings(config_file=path))) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert "execute_sql" not in anyio.run(run)


def test_http_execute_checklist_then_rows_and_the_log_keeps_the_blocked_verdict(config: Path) -> None:
    workspace = Workspace(Settings(config_file=config))
    client = TestClient(create_app(workspace=workspace))
    url = "/v1/catalogs/shop/execute"
    vague = client.post(url, json={"sql": VAGUE, "question": QUESTION})
    assert vague.status_code == 200 and vague.json()["status"] == "needs_answers"
    assert len(vague.json()["checklist"]["questions"]) == 2
    # HTTP keeps no session: the answers come with every call.
    ready = client.post(url, json={"sql": EXACT, "question": QUESTION, "answers": ANSWERS}).json()
    assert ready["status"] == "ready"
    ran = client.post(url, json={"sql": EXACT, "question": QUESTION, "answers": ANSWERS, "approval": ready["verdict"]})
    expected = sample_shop.revenue(config.parent / "shop.db", "Acme GmbH", "2026-11-01", "2026-12-01")
    assert ran.json()["status"] == "executed" and ran.json()["result"]["rows"] == [[expected]]
    # The approved query is kept as a past query of the catalog (the checklists before it are not).
    workspace.catalogs.wait_for_kept()
    kept = client.get("/v1/catalogs/shop/examples").json()["examples"]
    assert [(e["question"], e["sql"], e["origin"]) for e in kept] == [(QUESTION, EXACT, "approved")]
    assert kept[0]["tables"] == [t["table"] for t in ran.json()["tables"]]
    log = [json.loads(line) for line in (config.parent / "data" / "verdicts.jsonl").read_text().splitlines()]
    blocked = [e for e in log if e.get("verdict") == vague.json()["verdict"]]
    assert blocked and blocked[0]["status"] == "needs_answers" and blocked[0]["unknowns"]
    off = client.post("/v1/catalogs/crm/execute", json={"sql": "SELECT 1", "question": "one"})
    assert off.status_code == 403 and off.headers["content-type"].startswith("application/problem+json")
    assert off.json()["code"] == "execution_off"
    missing = client.post("/v1/catalogs/nope/execute", json={"sql": "SELECT 1", "question": "one"})
    assert missing.status_code == 404


def test_http_execute_needs_the_admin_key_where_the_server_sets_one(config: Path) -> None:
    client = TestClient(create_app(Settings(config_file=config, admin_key="k3y")))
    body = {"sql": EXACT, "question": QUESTION, "answers": ANSWERS}
    assert client.post("/v1/catalogs/shop/execute", json=body).status_code == 403
    assert client.post("/v1/catalogs/shop/execute", json=body, headers={"X-Admin-Key": "k3y"}).status_code == 200


class NoModel(Workspace):
    """A workspace whose embedding model cannot be had: checking and running SQL must not need it."""

    def embedder(self):
        raise ModelUnavailable("No embedding model in this test.", hint="Only a search needs it.")


def test_validate_and_execute_sql_need_no_embedding_model(config: Path) -> None:
    workspace = NoModel(Settings(config_file=config, dense=True))

    async def run():
        async with Client(create_server(workspace, ["shop"])) as client:
            checked = await client.call_tool("validate_sql", {"sql": EXACT})
            checklist = await client.call_tool("execute_sql", {"sql": EXACT, "question": QUESTION, "answers": ANSWERS})
            search = await client.call_tool("search_tables", {"question": "revenue"})
            return checked, checklist, search

    checked, checklist, search = anyio.run(run)
    assert not checked.is_error and checked.structured_content["ok"]
    assert checklist.structured_content["status"] == "ready"
    assert search.is_error and "No embedding model" in search.content[0].text  # the search did need it
