"""sandbox: queries the engine cannot interrupt are ended with their child process; the next one runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schema_search.errors import QueryFailed, QueryRefused
from schema_search.settings import Settings
from schema_search.structured.models import QueryRequest
from schema_search.workspace import Workspace

from .conftest import copy_peps

DOUBLING = "SELECT 1 AS a0, " + ", ".join(f"a{i} + a{i} AS a{i + 1}" for i in range(24)) + " FROM documents"
STRINGS = "SELECT " + ", ".join([f"'{'e' * 100}' AS s0"] + [f"s{i} || s{i} AS s{i + 1}" for i in range(26)])

# Each is one expression DuckDB cannot interrupt, or a plan it is still building, or both.
UNSTOPPABLE = [
    DOUBLING,
    STRINGS + " FROM documents",
    "SELECT length(" + "replace(" * 9 + "title" + ", 'e', 'eeeeeeeeee')" * 9 + ") FROM documents",
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("sandbox")
    workspace = Workspace(Settings(home=root / "home", dense=False, query_timeout_s=0.5))
    workspace.corpora.index(copy_peps(root / "peps"), corpus="peps")
    return workspace


def count(workspace: Workspace) -> list[list]:
    return workspace.corpora.query("peps", QueryRequest(sql="SELECT count(*) FROM documents")).rows


@pytest.mark.parametrize("sql", UNSTOPPABLE)
def test_an_unstoppable_query_is_killed_and_the_next_one_runs(workspace: Workspace, sql: str) -> None:
    # The deadline or the memory cap; a chain of doubling names is refused before it expands.
    with pytest.raises((QueryFailed, QueryRefused), match="stopped|Out of Memory|expands to about"):
        workspace.corpora.query("peps", QueryRequest(sql=sql))
    assert count(workspace) == [[14]]


def test_refusals_and_errors_cross_the_process_boundary_as_themselves(workspace: Workspace) -> None:
    with pytest.raises(QueryRefused, match="No table pg_settings"):
        workspace.corpora.query(
            "peps", QueryRequest(sql="WITH pg_settings AS (SELECT * FROM pg_settings) SELECT * FROM pg_settings")
        )
    with pytest.raises(QueryRefused, match="lpad|pad"):  # a string of any length in one call: not allowed
        workspace.corpora.query("peps", QueryRequest(sql="SELECT length(lpad('x', 2000000000, 'y'))"))
    with pytest.raises(QueryFailed, match="The query failed"):
        workspace.corpora.query("peps", QueryRequest(sql="SELECT CAST(title AS INTEGER) FROM documents"))


def test_no_spill_file_is_written_where_the_server_runs(workspace: Workspace, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    sql = (
        "SELECT a.title || b.source_id AS k, count(*) AS n FROM documents a, documents b GROUP BY k ORDER BY n LIMIT 1"
    )
    workspace.corpora.query("peps", QueryRequest(sql=sql))
    assert os.listdir(tmp_path) == []


def test_oversized_or_absurdly_nested_requests_are_refused_unsent(workspace: Workspace) -> None:
    from schema_search.errors import InvalidInput, PayloadTooLarge

    with pytest.raises(PayloadTooLarge):
        workspace.corpora.query(
            "peps", QueryRequest(sql="SELECT count(*) FROM documents WHERE title = '" + "x" * 2_000_000 + "'")
        )
    deep: list = ["x"]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InvalidInput, match="nested too deeply"):
        workspace.corpora.query("peps", QueryRequest(query={"filter": [["title", "=", deep]]}))
    assert count(workspace) == [[14]]
