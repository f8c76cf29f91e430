"""Several catalogs and a corpus in one MCP server, from a config file, through the SDK's own client.

Also what a client sees before any tool runs: ``initialize`` answers without the
embedding model and without every name existing, it declares only what is offered,
and arguments the input schema refuses are answered in words.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from schema_search.cli.mcp import mcp_server, served
from schema_search.errors import ModelUnavailable
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.tables.catalog import source_id
from schema_search.workspace import Workspace

from ..conftest import SAMPLES
from ..shop_db import make_shop_db

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "s3cret-crm-pw"
NOTES = {
    "refunds.md": "# Refunds\n\nRefunds over 500 euros need the approval of the finance team.\n",
    "oncall.md": "# On call\n\nThe on-call engineer answers pages within fifteen minutes.\n",
}


def _args(catalog=(), corpus=()) -> argparse.Namespace:
    return argparse.Namespace(catalog=list(catalog), corpus=list(corpus), cite="ids")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Catalogs shop (a SQLite database) and crm (sample DDL), corpus notes, indexed without the dense channel."""
    workspace = Workspace(Settings(home=tmp_path / "data", dense=False))
    workspace.catalogs.index(f"sqlite:///{make_shop_db(tmp_path / 'shop.db')}", catalog="shop")
    workspace.catalogs.index(str(SAMPLES / "crm.sql"), catalog="crm")
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    workspace.corpora.index(folder, corpus="notes")
    return tmp_path


@pytest.fixture
def config(home: Path) -> Path:
    path = home / "schema-search.toml"
    path.write_text(
        'home = "data"\ndense = false\n'
        '[catalogs.shop]\nurl = "sqlite:///shop.db"\ninstructions = "Amounts are in EUR."\n'
        '[catalogs.shop.defaults]\ntimezone = "Europe/Berlin"\n'
        '[catalogs.crm]\nurl = "postgresql://reader@db.internal/crm"\npassword_env = "CRM_DB_PASSWORD_TEST"\n'
        "[corpora.notes]\n",
        encoding="utf-8",
    )
    return path


def test_a_config_file_serves_two_catalogs_and_a_corpus_in_one_server(config: Path, monkeypatch) -> None:
    monkeypatch.setenv("CRM_DB_PASSWORD_TEST", PASSWORD)
    settings = Settings(config_file=config)
    crm_contacts = source_id("crm", "crm.contacts")

    async def run():
        async with Client(mcp_server(_args(), settings)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            calls = {
                "shop": await client.call_tool(
                    "search_tables", {"question": "product reviews", "k": 3, "catalog": "shop"}
                ),
                "crm": await client.call_tool(
                    "search_tables", {"question": "contacts email", "k": 3, "catalog": "crm"}
                ),
                "which": await client.call_tool("search_tables", {"question": "orders"}),
                "by_id": await client.call_tool("get_table", {"table_or_source_id": crm_contacts}),
                "by_name": await client.call_tool("get_table", {"table_or_source_id": "main.reviews"}),
                "validate": await client.call_tool(
                    "validate_sql", {"sql": "SELECT rating FROM reviews", "catalog": "shop"}
                ),
                "docs": await client.call_tool("search_docs", {"question": "who approves a large refund?", "k": 2}),
                "sources": await client.call_tool("list_sources", {}),
            }
            cites = (
                f"{calls['by_id'].structured_content['cite']} {calls['docs'].structured_content['passages'][0]['cite']}"
            )
            calls["resolved"] = await client.call_tool("resolve_citations", {"text": cites})
            return tools, calls, client.instructions

    tools, calls, instructions = anyio.run(run)
    assert "catalog" in tools["search_tables"].input_schema["properties"]
    assert (
        "one of 'shop', 'crm'; required" in tools["search_tables"].input_schema["properties"]["catalog"]["description"]
    )
    assert {t["table"] for t in calls["shop"].structured_content["tables"]} >= {"main.reviews"}
    assert calls["shop"].structured_content["catalog"] == "shop"
    assert "crm.contacts" in {t["table"] for t in calls["crm"].structured_content["tables"]}
    which = calls["which"]
    assert (
        which.is_error
        and "2 catalogs are served: say which one. Pass catalog: one of 'shop', 'crm'." in which.content[0].text
    )
    # An ID is a hash of catalog and table: get_table finds it in whichever catalog holds it.
    assert calls["by_id"].structured_content["detail"]["table"] == "crm.contacts"
    assert calls["by_name"].structured_content["detail"]["table"] == "main.reviews"  # only shop has it
    assert calls["validate"].structured_content["ok"] is True
    assert calls["docs"].structured_content["passages"][0]["title"] == "Refunds"
    assert calls["resolved"].structured_content["ok"]
    assert [c["kind"] for c in calls["resolved"].structured_content["cited"]] == ["table", "document"]

    sources = calls["sources"]
    listed = sources.structured_content
    shop, crm = listed["catalogs"]
    workspace = Workspace(settings)
    assert (shop["name"], shop["tables"], shop["views"]) == (
        "shop",
        workspace.catalogs.info("shop").tables,
        workspace.catalogs.info("shop").views,
    )
    assert shop["dialect"] == "sqlite" and shop["execution"] and shop["instructions"] == "Amounts are in EUR."
    assert shop["resource"] == "schema-search://catalogs/shop/tables" and "search_tables" in shop["tools"]
    assert (
        crm["name"] == "crm"
        and crm["available"]
        and crm["tables"] == workspace.catalogs.info("crm").tables
        and crm["execution"]
    )
    [notes] = listed["corpora"]
    assert (notes["name"], notes["documents"], notes["available"]) == ("notes", 2, True) and "search_docs" in notes[
        "tools"
    ]
    assert (
        "catalog 'shop': " in sources.content[0].text
        and "operator's instructions: Amounts are in EUR." in sources.content[0].text
    )
    # Neither the password nor the URL it goes into is shown.
    shown = sources.content[0].text + repr(listed)
    assert PASSWORD not in shown and "db.internal" not in shown
    assert "list_sources" in instructions and "'shop', 'crm'" in instructions


def test_a_catalog_whose_password_is_missing_says_so_in_list_sources(config: Path, monkeypatch) -> None:
    monkeypatch.delenv("CRM_DB_PASSWORD_TEST", raising=False)

    async def run():
        async with Client(mcp_server(_args(), Settings(config_file=config))) as client:
            return (await client.call_tool("list_sources", {})).structured_content

    crm = anyio.run(run)["catalogs"][1]
    assert crm["available"] and not crm["execution"]
    assert "CRM_DB_PASSWORD_TEST" in crm["execution_error"]


def test_one_catalog_served_is_the_default_and_k_is_bounded_by_max_k(home: Path) -> None:
    workspace = Workspace(Settings(home=home / "data", dense=False, max_k=7))

    async def run():
        async with Client(create_server(workspace, ["shop"], ["notes"])) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool("search_tables", {"question": "product reviews", "k": 2})
            over = await client.call_tool("search_tables", {"question": "product reviews", "k": 8})
            return tools, found, over

    tools, found, over = anyio.run(run)
    assert not found.is_error and found.structured_content["catalog"] == "shop"
    assert (
        "default: 'shop', the only one served"
        in tools["search_tables"].input_schema["properties"]["catalog"]["description"]
    )
    for name in ("search_tables", "search_docs"):
        [k] = [option for option in tools[name].input_schema["properties"]["k"]["anyOf"] if option["type"] == "integer"]
        assert (k["minimum"], k["maximum"]) == (1, 7)
    assert (
        over.is_error
        and "the argument k is not accepted (8: input should be less than or equal to 7)" in over.content[0].text
    )


def test_argument_errors_name_the_argument_and_what_it_takes(home: Path) -> None:
    workspace = Workspace(Settings(home=home / "data", dense=False))

    async def run():
        async with Client(create_server(workspace, ["shop"])) as client:
            return [
                await client.call_tool("search_tables", arguments)
                for arguments in (
                    {"question": "orders", "k": "abc"},
                    {"k": 3},
                    {"question": 5},
                    {"question": "x", "k": 0},
                )
            ]

    letters, missing, number, zero = anyio.run(run)
    for result in (letters, missing, number, zero):
        text = result.content[0].text
        assert result.is_error and "validation error" not in text and "Arguments" not in text, text
    assert letters.content[0].text == (
        'search_tables: the argument k is not accepted ("abc": input should be a valid integer, unable to parse string '
        "as an integer); it takes a whole number from 1 to 100, or null. k: How many tables at most, 1 to 100 (default 10)."
    )
    assert missing.content[0].text.startswith("search_tables: the argument question is missing; it takes text.")
    assert (
        "the argument question is not accepted (5: input should be a valid string); it takes text."
        in number.content[0].text
    )
    assert "(0: input should be greater than or equal to 1)" in zero.content[0].text


def test_tables_are_resources_and_no_prompts_are_declared(home: Path) -> None:
    workspace = Workspace(Settings(home=home / "data", dense=False))

    async def run():
        async with Client(create_server(workspace, ["shop", "crm"])) as client:
            listed = await client.list_resources()
            read = await client.read_resource("schema-search://catalogs/shop/tables")
            return client.server_capabilities, listed.resources, read.contents

    capabilities, resources, contents = anyio.run(run)
    assert capabilities.prompts is None
    assert capabilities.resources is not None and capabilities.tools is not None
    assert [str(r.uri) for r in resources] == [
        "schema-search://catalogs/shop/tables",
        "schema-search://catalogs/crm/tables",
    ]
    [content] = contents
    shop = workspace.catalogs.searcher("shop").catalog
    for table in shop.tables:
        assert f"[{source_id('shop', table.id)}] {table.id} ({table.kind})" in content.text
    assert content.text.count("\n[T") == len(shop.tables)
    assert '<schema-data origin="catalog shop: tables">' in content.text


def test_a_corpus_only_server_declares_neither_resources_nor_prompts(home: Path) -> None:
    async def run():
        async with Client(
            create_server(Workspace(Settings(home=home / "data", dense=False)), corpora=["notes"])
        ) as client:
            return client.server_capabilities

    capabilities = anyio.run(run)
    assert capabilities.prompts is None and capabilities.resources is None and capabilities.tools is not None


class CountingWorkspace(Workspace):
    """A workspace whose embedding model cannot be had here: each time it is asked for, counted and refused."""

    asked = 0

    def embedder(self):
        self.asked += 1
        raise ModelUnavailable("No embedding model in this test.", hint="It must not be needed before a search.")


def test_initialize_does_not_wait_for_the_embedding_model(home: Path) -> None:
    workspace = CountingWorkspace(Settings(home=home / "data", dense=True))

    async def run():
        async with Client(create_server(workspace, ["shop", "crm"], ["notes"])) as client:
            await client.list_tools()
            await client.list_resources()
            before = workspace.asked
            search = await client.call_tool("search_tables", {"question": "orders", "catalog": "shop"})
            return before, search

    before, search = anyio.run(run)
    assert before == 0
    # It is asked for at the first search, and its absence is that tool's error alone.
    assert workspace.asked == 1 and search.is_error and "No embedding model in this test." in search.content[0].text


def test_an_unknown_corpus_beside_known_sources_is_reported_not_fatal(home: Path) -> None:
    workspace = Workspace(Settings(home=home / "data", dense=False))

    async def run():
        async with Client(create_server(workspace, ["shop"], ["notes", "wiki"])) as client:
            return (
                await client.call_tool("search_docs", {"question": "refund", "corpus": "wiki"}),
                await client.call_tool("search_docs", {"question": "refund", "corpus": "notes"}),
                await client.call_tool("search_tables", {"question": "orders"}),
                (await client.call_tool("list_sources", {})).structured_content["corpora"],
            )

    wiki, notes, tables, corpora = anyio.run(run)
    assert wiki.is_error and "No corpus named 'wiki'. Known: notes." in wiki.content[0].text
    assert not notes.is_error and not tables.is_error
    assert [(c["name"], c["available"]) for c in corpora] == [("notes", True), ("wiki", False)]


def test_the_real_command_with_an_unknown_catalog_answers_initialize(home: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "schema_search.cli", "mcp", "--catalog", "shop", "--catalog", "nope"],
        env={**os.environ, "SCHEMA_SEARCH_HOME": str(home / "data"), "SCHEMA_SEARCH_DENSE": "false"},
        cwd=str(REPO),
    )

    async def run():
        with anyio.fail_after(60):
            async with Client(params) as client:
                return (
                    await client.call_tool("search_tables", {"question": "orders", "catalog": "nope"}),
                    await client.call_tool("search_tables", {"question": "orders", "catalog": "shop"}),
                )

    nope, shop = anyio.run(run)
    assert nope.is_error and "No catalog named 'nope'" in nope.content[0].text
    assert not shop.is_error and shop.structured_content["tables"]


def test_what_the_command_serves_flags_then_config_then_data_directory(config: Path, home: Path, monkeypatch) -> None:
    monkeypatch.chdir(home / "notes")  # no schema-search.toml here
    from_config = Settings(config_file=config)
    plain = Settings(home=home / "data", dense=False)
    assert served(_args(catalog=["crm"]), from_config, Workspace(from_config)) == (["crm"], [])
    assert served(_args(corpus=["notes"]), from_config, Workspace(from_config)) == ([], ["notes"])
    assert served(_args(), from_config, Workspace(from_config)) == (["shop", "crm"], ["notes"])
    assert served(_args(), plain, Workspace(plain)) == (["crm", "shop"], ["notes"])
