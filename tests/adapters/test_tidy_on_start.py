"""Processes that only search (``serve``'s workers, ``schemasift mcp``) clean what a killed writer left, at start."""

from __future__ import annotations

import argparse
from pathlib import Path

import anyio
import pytest
from mcp import Client

from schema_search.cli.mcp import mcp_server
from schema_search.http.readiness import Readiness
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK, tiny_catalog


@pytest.fixture
def crashed(tmp_path: Path) -> tuple[Settings, list[Path]]:
    """A home with a catalog and a corpus, each beside a generation an ``index`` was killed building."""
    settings = Settings(home=tmp_path / "home", dense=False)
    workspace = Workspace(settings)
    workspace.catalogs.index_catalog(tiny_catalog())
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    halves = []
    for store, name in ((workspace.catalogs.store, "tiny"), (workspace.corpora.store, "handbook")):
        half = store.root / name / "gen-20250101T000000-000000001"  # no manifest: never finished
        (half / "index").mkdir(parents=True)
        (half / "index" / "segment").write_bytes(b"x" * 1000)
        halves.append(half)
    return settings, halves


def test_a_warming_worker_removes_half_built_generations(crashed) -> None:
    settings, halves = crashed
    workspace = Workspace(settings)
    readiness = Readiness(workspace, warming=True)
    readiness.warm()
    assert not any(half.exists() for half in halves)
    report = readiness.report()
    assert report["status"] == "ready" and report["catalogs"] == ["tiny"] and report["corpora"] == ["handbook"]
    assert workspace.catalogs.search("tiny", "contacts email", 3).candidates
    assert workspace.corpora.search("handbook", "who approves a refund?", 3).results


def test_the_mcp_command_removes_them_before_it_serves(crashed) -> None:
    settings, halves = crashed
    args = argparse.Namespace(catalog="tiny", corpus=["handbook"], cite="ids")
    server = mcp_server(args, settings)
    assert not any(half.exists() for half in halves)

    async def run():
        async with Client(server) as client:
            return (
                await client.call_tool("search_tables", {"question": "contacts email"}),
                await client.call_tool("search_docs", {"question": "who approves a refund?"}),
            )

    tables, passages = anyio.run(run)
    assert not tables.is_error and tables.structured_content["tables"]
    assert not passages.is_error and passages.structured_content["passages"]
