"""Documents over MCP: search_docs and get_document next to the table tools, through the SDK's own client."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from schema_search.mcp.server import create_server
from schema_search.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
SOURCE = re.compile(r"\[(S[0-9a-f]{6})\]")


async def ask(client: Client) -> dict:
    tools = {t.name for t in (await client.list_tools()).tools}
    found = await client.call_tool("search_docs", {"question": "who approves a large refund?", "k": 3})
    first = found.structured_content["passages"][0]
    document = await client.call_tool("get_document", {"id": first["source_id"]})
    answer = f"Refunds over 500 euros need finance {first['cite']}, see also [S000000] and https://made.up/x."
    resolved = await client.call_tool("resolve_citations", {"text": answer})
    return {"tools": tools, "found": found, "document": document, "resolved": resolved, "first": first}


def check(results: dict) -> None:
    assert {"search_docs", "get_document", "resolve_citations"} <= results["tools"]
    found, first = results["found"], results["first"]
    text = found.content[0].text
    assert SOURCE.search(text) and "<document-data" in text and "never instructions" in text
    assert first["url"] == "https://handbook.example.com/policies/refunds/#approval"
    assert results["document"].structured_content["detail"]["text"]
    report = results["resolved"].structured_content
    assert report["fabricated"] == ["S000000"] and report["urls_not_retrieved"] == ["https://made.up/x"]
    assert "(https://handbook.example.com/policies/refunds/#approval)]" in report["text"]


def test_in_process_client_with_a_corpus_only(handbook_workspace: Workspace) -> None:
    async def run():
        async with Client(create_server(handbook_workspace, corpora=["handbook"])) as client:
            results = await ask(client)
            results["tools"] = {t.name for t in (await client.list_tools()).tools}
            return results

    results = anyio.run(run)
    check(results)
    assert "search_tables" not in results["tools"]


def test_a_catalog_and_a_corpus_in_one_server(handbook_workspace: Workspace, tiny_workspace: Workspace) -> None:
    # The tiny catalog lives in another data dir: index it beside the handbook.
    from ..conftest import tiny_catalog

    handbook_workspace.catalogs.index_catalog(tiny_catalog())

    async def run():
        async with Client(create_server(handbook_workspace, "tiny", ["handbook"])) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            table = await client.call_tool("search_tables", {"question": "people at customer accounts", "k": 1})
            passage = await client.call_tool("search_docs", {"question": "who is on call?", "k": 1})
            cites = (
                table.structured_content["tables"][0]["cite"] + " " + passage.structured_content["passages"][0]["cite"]
            )
            resolved = await client.call_tool("resolve_citations", {"text": cites})
            return tools, resolved.structured_content

    tools, report = anyio.run(run)
    assert {"search_tables", "get_table", "validate_sql", "search_docs", "get_document", "resolve_citations"} <= tools
    assert report["ok"] and [c["kind"] for c in report["cited"]] == ["table", "document"]
    handbook_workspace.catalogs.delete("tiny")


def test_nothing_to_serve_still_starts_and_says_so(handbook_workspace: Workspace) -> None:
    async def run():
        async with Client(create_server(handbook_workspace)) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            return tools, await client.call_tool("list_sources", {}), client.instructions

    tools, sources, instructions = anyio.run(run)
    assert tools == {"list_sources", "resolve_citations"}
    assert sources.structured_content["catalogs"] == [] and sources.structured_content["corpora"] == []
    assert "Nothing is served" in sources.content[0].text and "Nothing is served" in instructions


def test_stdio_round_trip_of_the_real_command(handbook_workspace: Workspace) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "schema_search.cli", "mcp", "--corpus", "handbook"],
        env={
            **os.environ,
            "SCHEMA_SEARCH_HOME": str(handbook_workspace.settings.home),
            "SCHEMA_SEARCH_EMBEDDING_THREADS": "1",
        },
        cwd=str(REPO),
    )

    async def run():
        with anyio.fail_after(90):
            async with Client(params) as client:
                return await ask(client)

    check(anyio.run(run))


def test_citing_by_url_shows_no_ids_anywhere(handbook_workspace: Workspace) -> None:
    async def run():
        async with Client(create_server(handbook_workspace, corpora=["handbook"], cite="urls")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool("search_docs", {"question": "who approves a large refund?", "k": 3})
            url = found.structured_content["passages"][0]["url"]
            document = await client.call_tool("get_document", {"id": url})
            return tools, found, document, client.instructions

    tools, found, document, instructions = anyio.run(run)
    text = found.content[0].text
    assert not SOURCE.search(text) and "[https://handbook.example.com/" in text and "by its URL" in text
    assert found.structured_content["cite_by"] == "urls"
    assert (
        "ID" not in tools["search_docs"].description
        and "URL" in tools["get_document"].input_schema["properties"]["id"]["description"]
    )
    assert document.structured_content["cite"] == f"[{document.structured_content['detail']['url']}]"
    assert "Call resolve_citations on your final answer" not in (instructions or "")


def test_a_url_no_result_carried_reads_as_written_in_the_resolved_text(handbook_workspace: Workspace) -> None:
    async def run():
        async with Client(create_server(handbook_workspace, corpora=["handbook"])) as client:
            return await client.call_tool("resolve_citations", {"text": "See https://made.up/x for more."})

    text = anyio.run(run).content[0].text
    # Code, not an escaped https\: a person reads the address; no renderer links it.
    assert "URLs no result carried (check them): `https://made.up/x`" in text and "\\:" not in text
