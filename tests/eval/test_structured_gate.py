"""The structured evals as a gate: every count/filter/group question exact, placeholders never wrong.

The whole PEP corpus from ../shared (703 files, BM25 only so nothing is embedded; skipped
where ../shared is absent) and the CRM catalog, whose gold comes from PostgreSQL (the
server scripts/setup_postgres.sh starts).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from eval.structured import placeholders
from eval.structured.gold import read_peps, read_postgres
from eval.structured.questions import CATALOG, PEPS
from eval.structured.run import CRM, evaluate
from eval.structured.run import PEPS as PEPS_FOLDER
from schema_search.settings import Settings
from schema_search.workspace import Workspace

PG_URL = os.environ.get(
    "SCHEMA_SEARCH_TEST_PG_URL", "postgresql://schema_search:schema_search@127.0.0.1:5432/schema_search_test"
)


needs_peps = pytest.mark.skipif(not PEPS_FOLDER.is_dir(), reason=f"PEP corpus not found at {PEPS_FOLDER}")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("gate") / "home", dense=False))
    if PEPS_FOLDER.is_dir():
        workspace.corpora.index(PEPS_FOLDER, corpus="peps")
    workspace.catalogs.index(str(CRM), catalog="crm", dialect="postgres")
    return workspace


@pytest.fixture(scope="module")
def peps() -> list:
    return read_peps(PEPS_FOLDER)


@needs_peps
def test_every_pep_question_is_answered_exactly_and_search_alone_is_not(workspace: Workspace, peps: list) -> None:
    results = [evaluate(workspace, q, peps, 10) for q in PEPS]
    assert [r["id"] for r in results if not r["correct"]] == []
    assert sum(r["top_k_correct"] for r in results) < len(results) / 4


@pytest.mark.postgres
def test_every_catalog_question_is_answered_exactly(workspace: Workspace, tmp_path: Path) -> None:
    tables = read_postgres(PG_URL, CRM, database="structured_gate")
    assert (sum(t.kind == "table" for t in tables), sum(t.kind == "view" for t in tables)) == (212, 9)  # its README
    results = [evaluate(workspace, q, tables, 10) for q in CATALOG]
    assert [r["id"] for r in results if not r["correct"]] == []


@needs_peps
def test_placeholders_pair_every_title_with_its_link(workspace: Workspace, peps: list) -> None:
    gold = {p.title: p.url for p in peps}
    shown = placeholders.run(workspace, True, gold)
    raw = placeholders.run(workspace, False, gold)
    assert shown["answers"] == 20 and shown["pairs"] >= 40 and shown["wrong_pairs"] == 0
    assert raw["pairs"] == shown["pairs"] and raw["wrong_pairs"] > 0
