"""Arguments no tool can take, sent to every MCP tool: each answers a tool error that says why, and keeps serving.

A lone UTF-16 surrogate (``"\\ud800"``, valid JSON, decoded by Python to a ``str``
that cannot be written back out) and absurd nesting, in process through the SDK's
own client and over stdio as raw lines, where the SDK's parser refuses them before
any tool runs.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from schema_search.mcp.arguments import MAX_DEPTH
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK
from ..shop_db import make_shop_db

REPO = Path(__file__).resolve().parents[2]
LONE = "\ud800"
# Valid arguments for each tool; one at a time is then replaced by a hostile value.
VALID = {
    "list_sources": {},
    "search_tables": {"question": "orders"},
    "get_table": {"table_or_source_id": "main.orders"},
    "validate_sql": {"sql": "SELECT 1", "dialect": "sqlite"},
    "resolve_citations": {"text": "No citations."},
    "search_docs": {"question": "refund", "corpus": "handbook"},
    "get_document": {"id": "S000000", "corpus": "handbook"},
    "describe_collection": {"collection": "handbook"},
    "query_collection": {"sql": "SELECT 1", "query": {"count": True}, "collection": "handbook"},
    "render_answer": {"text": "No placeholders."},
}


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@pytest.fixture
def served(tmp_path: Path) -> Workspace:
    """The shop catalog and the handbook corpus, dense channel off: this is about arguments, not ranking."""
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.catalogs.index(f"sqlite:///{make_shop_db(tmp_path / 'shop.db')}", catalog="shop")
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    return workspace


def test_every_tool_refuses_a_lone_surrogate_or_deep_nesting_in_any_argument(served: Workspace) -> None:
    async def run():
        async with Client(create_server(served, "shop", ["handbook"])) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(listed) == set(VALID)  # a new tool gets its row above
            answers = []
            for name, tool in listed.items():
                for argument in tool.input_schema["properties"]:
                    # (The SDK's client cannot send a surrogate in a key: the stdio test below does.)
                    for label, hostile in (("surrogate", f"refund {LONE}"), ("deep", _nested(MAX_DEPTH + 40))):
                        with anyio.fail_after(30):
                            result = await client.call_tool(name, {**VALID[name], argument: hostile})
                        answers.append((name, argument, label, result))
            with anyio.fail_after(30):
                after = await client.call_tool("search_tables", {"question": "orders"})
            return answers, after

    answers, after = anyio.run(run)
    assert {name for name, *_ in answers} == set(VALID) - {"list_sources"}  # it takes no argument
    for name, argument, label, result in answers:
        assert result.is_error, (name, argument, label)
        text = result.content[0].text
        text.encode("utf-8")  # the message itself can be written out
        if label == "deep":
            assert f"The argument {argument} nests more than {MAX_DEPTH} levels deep" in text, text
        else:
            assert f'The argument {argument} holds "\\ud800", half of a UTF-16 surrogate pair' in text, text
    assert not after.is_error and after.structured_content["tables"]


def _line(request_id: int, tool: str, arguments: str) -> bytes:
    # Written by hand: json.dumps would never write these lines.
    envelope = (
        f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {{"name": "{tool}", "arguments": '
    )
    return f"{envelope}{arguments}}}}}\n".encode()


def test_stdio_answers_lines_the_sdk_cannot_parse_and_keeps_serving(served: Workspace) -> None:
    env = {**os.environ, "SCHEMA_SEARCH_HOME": str(served.settings.home), "SCHEMA_SEARCH_DENSE": "false"}
    server = subprocess.Popen(
        [sys.executable, "-m", "schema_search.cli", "mcp", "--catalog", "shop", "--corpus", "handbook"],
        env=env,
        cwd=str(REPO),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )

    def ask(line: bytes) -> dict:
        server.stdin.write(line)
        server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], 60)
        assert ready, "no answer within 60 s"
        return json.loads(server.stdout.readline())

    deep = '{"a": ' * 5000 + "1" + "}" * 5000
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
        assert "result" in ask(
            json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}).encode() + b"\n"
        )
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        cases = [
            ("search_tables", '{"question": "\\ud800"}', 'The argument question holds "\\ud800"'),
            ("validate_sql", '{"sql": "SELECT \'\\udfff\'"}', 'The argument sql holds "\\udfff"'),
            ("search_docs", '{"question": "refund", "corpus": "\\ud800"}', 'The argument corpus holds "\\ud800"'),
            (
                "query_collection",
                '{"query": {"where": ["\\ud800"]}, "collection": "handbook"}',
                "The argument query holds",
            ),
            (
                "query_collection",
                '{"query": {"where\\ud800": 1}, "collection": "handbook"}',
                "The argument query holds",
            ),
            ("render_answer", '{"text": "x", "\\udc00": 1}', 'An argument name holds "\\udc00"'),
            (
                "query_collection",
                f'{{"query": {deep}, "collection": "handbook"}}',
                "The request nests 5,003 levels deep",
            ),
            ("search_tables", f'{{"question": {deep}}}', "The request nests 5,003 levels deep"),
        ]
        for request_id, (tool, arguments, expected) in enumerate(cases, 1):
            answer = ask(_line(request_id, tool, arguments))
            assert answer["id"] == request_id and answer["result"]["isError"], answer
            assert expected in answer["result"]["content"][0]["text"], answer
        broken = ask(b'{"jsonrpc": "2.0", "id": 98, "method": "tools/list", "params": {"cursor": "\\ud800"}}\n')
        assert broken["id"] == 98 and 'The request holds "\\ud800"' in broken["error"]["message"]
        after = ask(_line(99, "search_tables", '{"question": "orders"}'))
        assert after["id"] == 99 and not after["result"].get("isError")
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
        server.stderr.close()
