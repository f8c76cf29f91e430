"""The committed benchmark descriptions still fit the benchmark tables; the experiment's helpers."""

from __future__ import annotations

import pytest

from eval.tables.benchmarks import Database
from eval.tables.describe_benchmarks import BENCHMARKS, DESCRIPTIONS, pooled_catalog, with_descriptions
from eval.tables.enrichment import described, markdown
from schema_search.describe.descriptions import read_descriptions
from schema_search.tables.catalog import Description

from ..conftest import tiny_catalog


@pytest.mark.skipif(not BENCHMARKS.is_dir(), reason="needs ../shared/benchmarks")
@pytest.mark.parametrize("name", ["spider", "bird"])
def test_the_committed_descriptions_cover_the_pooled_catalogs(name):
    catalog = with_descriptions(pooled_catalog(name))
    done = [t for t in catalog.tables if t.description]
    # A few tables get no description: the small model only echoed their DDL.
    assert len(done) >= 0.9 * len(catalog.tables)
    assert {t.description.model for t in done} == {"local/smollm2"}
    assert all(t.comment == u.comment for t, u in zip(catalog.tables, pooled_catalog(name).tables))


def test_described_databases_and_the_markdown_table():
    tables = tiny_catalog().tables
    account = tables[0]
    found = {(account.id, account.content_hash()): Description("About.", "m", "v1", "t", account.content_hash())}
    (database,) = described([Database("crm", tables, ({},) * len(tables))], found)
    assert database.tables[0].description.text == "About." and database.tables[1].description is None
    result = {
        "benchmark": "spider",
        "questions": 2,
        "tables": 5,
        "described": 1,
        "recall": {"none": {"recall@5": 0.5, "recall@10": 1.0}, "separate": {"recall@5": 1.0, "recall@10": 1.0}},
        "crossed_half": [{"word": "table", "field": "text", "before": 0, "after": 5, "documents": 5}],
    }
    text = markdown([result])
    assert "| none | 0.500 | 1.000 |" in text and "- `table`: text 0→5/5" in text


def test_the_data_file_has_one_line_per_table_and_hash():
    lines = DESCRIPTIONS.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(read_descriptions(DESCRIPTIONS))
