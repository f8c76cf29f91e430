"""The DDL shown to a model parses: reserved words and odd names are quoted."""

import pytest
import sqlglot

from schema_search.tables.catalog import Column, ForeignKey, Table
from schema_search.tables.render import create_table_sql

from ..conftest import SHARED


def test_reserved_words_are_quoted_and_the_ddl_parses():
    table = Table(
        "main",
        "order",
        columns=(Column("select", "TEXT"), Column("group", "INT"), Column("name", "TEXT")),
        foreign_keys=(ForeignKey(("group",), "main.user", ("key",)),),
    )
    ddl = create_table_sql(table)
    assert 'CREATE TABLE main."order"' in ddl and '"select" TEXT' in ddl and "  name TEXT" in ddl
    for dialect in ("postgres", "sqlite", "duckdb"):
        assert [type(e).__name__ for e in sqlglot.parse(ddl, read=dialect)] == ["Create"], dialect


@pytest.mark.parametrize("benchmark", ["spider_dev", "bird_dev"])
def test_every_benchmark_table_renders_as_ddl_that_parses(benchmark):
    from eval.tables.benchmarks import load_databases

    folder = SHARED / "benchmarks" / benchmark
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    failed = []
    for database in load_databases(folder):
        for table in database.tables:
            try:
                sqlglot.parse(create_table_sql(table), read="postgres")
            except sqlglot.errors.ParseError:
                failed.append(table.id)
    assert not failed, failed[:10]


def test_an_unknown_type_is_said_so_and_the_ddl_still_parses():
    view = Table(
        "main", "v", "view", columns=(Column("n"), Column("id", "INT"), Column("total", comment="Sum of lines"))
    )
    ddl = create_table_sql(view)
    assert "TEXT" not in ddl
    assert "  n,  -- type unknown\n" in ddl and "  total  -- type unknown; Sum of lines\n" in ddl
    for dialect in ("postgres", "sqlite", "duckdb"):
        assert [type(e).__name__ for e in sqlglot.parse(ddl, read=dialect)] == ["Create"], dialect
