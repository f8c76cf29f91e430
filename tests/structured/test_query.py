"""query: guarded SQL and the JSON form over a collection; hostile SQL refused or stopped, nothing read or written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schema_search.errors import InvalidInput, NotStructured, QueryFailed, QueryRefused
from schema_search.structured import engine
from schema_search.structured.collection import Collection
from schema_search.structured.jsonquery import compile_query
from schema_search.structured.query import run_query
from schema_search.structured.sources import catalog_collection

from ..conftest import tiny_catalog

SECRET = "7f3c-secret-marker"


def run(collection: Collection, sql: str | None = None, **kwargs):
    return run_query(
        collection, sql=sql, max_rows=kwargs.pop("max_rows", 50), timeout_s=kwargs.pop("timeout_s", 5), **kwargs
    )


def test_counts_and_groups_are_exact(peps_collection: Collection) -> None:
    result = run(peps_collection, "SELECT status, count(*) AS n FROM documents GROUP BY status ORDER BY n DESC, status")
    assert result.columns == ["status", "n"]
    assert sum(n for _, n in result.rows) == 14
    assert result.source_ids is None  # groups are not rows of documents


def test_selected_rows_carry_their_source_ids_even_when_not_selected(peps_collection: Collection) -> None:
    result = run(peps_collection, "SELECT title, url FROM documents WHERE pep = 572")
    assert result.rows == [["Assignment Expressions", "https://peps.python.org/pep-0572/"]]
    assert result.columns == ["title", "url"] and result.exact_columns == ["url"]
    table = peps_collection.table("documents")
    ids = dict(zip(table.values[[c.name for c in table.columns].index("pep")], table.values[0]))
    assert result.source_ids == [ids[572]]
    assert result.sql == "SELECT title, url FROM documents WHERE pep = 572"


def test_a_count_over_a_filter_returns_the_rows_it_counted(peps_collection: Collection) -> None:
    result = run(peps_collection, "SELECT count(*) FROM documents WHERE created >= '2018-01-01'")
    found = run(peps_collection, "SELECT source_id FROM documents WHERE created >= '2018-01-01'")
    assert result.rows == [[len(found.rows)]]
    assert sorted(result.counted) == sorted(r[0] for r in found.rows)


def test_rows_stop_at_the_cap(peps_collection: Collection) -> None:
    result = run(peps_collection, "SELECT pep FROM documents ORDER BY pep", max_rows=5)
    assert result.rows == [[8], [20], [254], [257], [286]] and result.truncated and result.row_count == 5


def test_the_json_form_compiles_to_the_same_guarded_sql(peps_collection: Collection) -> None:
    form = {"filter": [["type", "=", "Standards Track"], ["python_version", "is not null"]], "count": True}
    by_form = run_query(peps_collection, form=form, max_rows=5, timeout_s=5)
    by_sql = run(
        peps_collection, "SELECT count(*) FROM documents WHERE type = 'Standards Track' AND python_version IS NOT NULL"
    )
    assert by_form.rows == by_sql.rows and by_form.rows[0][0] > 0
    assert compile_query({"filter": [["tags", "contains", "x"]]}, "documents", frozenset({"tags"})) == (
        "SELECT * FROM documents WHERE ARRAY_CONTAINS(tags, 'x')"
    )


def test_list_columns_filter_with_list_functions(notes_collection: Collection) -> None:
    result = run(notes_collection, "SELECT title FROM documents WHERE list_contains(tags, 'x') ORDER BY title")
    assert [r[0] for r in result.rows] == ["Alpha", "Delta", "Gamma", "Zeta"]
    form = run_query(
        notes_collection, form={"filter": [["tags", "contains", "x"]], "count": True}, max_rows=5, timeout_s=5
    )
    assert form.rows == [[4]]


@pytest.mark.parametrize(
    "form",
    [
        {"filter": [["a"]]},
        {"filter": [["a", "~", 1]]},
        {"limit": -1},
        {"drop": True},
        {"order_by": [["a", "sideways"]]},
    ],
)
def test_malformed_json_forms_say_what_is_wrong(peps_collection: Collection, form: dict) -> None:
    with pytest.raises(InvalidInput):
        run_query(peps_collection, form=form, max_rows=5, timeout_s=5)


def test_unknown_columns_are_named_with_the_closest_real_ones(peps_collection: Collection) -> None:
    with pytest.raises(QueryRefused, match="python_version"):
        run(peps_collection, "SELECT count(*) FROM documents WHERE pyhton_version = '3.8'")


def test_a_corpus_without_a_shared_header_has_no_table_and_says_so() -> None:
    from schema_search.structured.fields import FieldReport

    bare = Collection("plain", "corpus", (), FieldReport(documents=3, with_header=0, sampled=3))
    with pytest.raises(NotStructured, match="no machine-readable"):
        run(bare, "SELECT 1")


def test_the_catalog_is_a_collection_of_tables_and_columns() -> None:
    catalog = catalog_collection(tiny_catalog())
    email = run(catalog, "SELECT count(DISTINCT table_id) FROM columns WHERE lower(name) LIKE '%email%'")
    assert email.rows == [[1]]
    per_schema = run(catalog, "SELECT schema, count(*) AS n FROM tables GROUP BY schema ORDER BY n DESC")
    assert per_schema.rows == [["crm", 4], ["billing", 1]]
    keys = run(catalog, "SELECT name, references_table FROM columns WHERE is_foreign_key ORDER BY name")
    assert keys.rows == [
        ["account_id", "crm.accounts"],
        ["contact_id", "crm.contacts"],
        ["list_id", "crm.contact_lists"],
    ]
    listed = run(catalog, "SELECT name FROM tables WHERE column_count > 2 ORDER BY name")
    assert [r[0] for r in listed.rows] == ["InvoiceLines", "accounts", "contacts"] and len(listed.source_ids) == 3


# Refused by the guard, before DuckDB sees them. {dir} is the test's folder, {secret} a file holding SECRET.
HOSTILE = [
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_csv_auto('{secret}')",
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM read_blob('{secret}')",
    "SELECT * FROM read_json('{secret}')",
    "SELECT * FROM read_parquet('{secret}')",
    "SELECT * FROM '{secret}'",
    "SELECT * FROM glob('{dir}/*')",
    "SELECT * FROM sniff_csv('{secret}')",
    "SELECT count(*) FROM documents, read_text('{secret}')",
    "SELECT (SELECT content FROM read_text('{secret}')) FROM documents",
    "SELECT * FROM query('SELECT 1')",
    "SELECT * FROM range(100000000000)",
    "SELECT * FROM generate_series(1, 100000000000)",
    "ATTACH '{dir}/evil.duckdb' AS evil",
    "ATTACH ':memory:' AS evil",
    "DETACH documents",
    "COPY documents TO '{dir}/out.csv'",
    "COPY (SELECT * FROM documents) TO '{dir}/out.parquet' (FORMAT parquet)",
    "COPY documents FROM '{secret}'",
    "EXPORT DATABASE '{dir}/export'",
    "IMPORT DATABASE '{dir}'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "FORCE INSTALL httpfs",
    "SET enable_external_access = true",
    "SET memory_limit = '100GB'",
    "RESET lock_configuration",
    "PRAGMA enable_profiling",
    "PRAGMA database_list",
    "SELECT getenv('HOME')",
    "SELECT current_setting('home_directory')",
    "SELECT * FROM duckdb_settings()",
    "SELECT * FROM duckdb_extensions()",
    "CALL pragma_version()",
    "CREATE TABLE evil AS SELECT * FROM documents",
    "CREATE MACRO evil() AS 1",
    "CREATE SECRET evil (TYPE s3)",
    "INSERT INTO documents (title) VALUES ('x')",
    "UPDATE documents SET title = 'x'",
    "DELETE FROM documents",
    "DROP TABLE documents",
    "SELECT 1; DROP TABLE documents",
    "WITH gone AS (DELETE FROM documents RETURNING *) SELECT * FROM gone",
    "SELECT * INTO evil FROM documents",
    "CHECKPOINT",
    "VACUUM",
    "SELECT repeat('x', 1000000000)",
    "SELECT string_agg(repeat(title, 100000), '') FROM documents",
    "SELECT * FROM documents, (SELECT 1) AS t(x) UNION ALL SELECT * FROM read_csv('{secret}')",
    "SELECT load_extension('{dir}/evil.so')",
    "WITH pg_settings AS (SELECT * FROM pg_settings) SELECT * FROM pg_settings",
    "WITH duckdb_settings AS (SELECT * FROM duckdb_settings) SELECT * FROM duckdb_settings",
    'WITH "{secret}" AS (SELECT * FROM "{secret}") SELECT * FROM "{secret}"',
    "SELECT * FROM x, (WITH x AS (SELECT 1 AS a) SELECT a FROM x) AS s",
    "SELECT lpad(title, 2000000000, 'y') FROM documents",
    "WITH RECURSIVE pg_settings AS (SELECT * FROM pg_settings) SELECT * FROM pg_settings",
    "WITH RECURSIVE s AS (SELECT name FROM pg_settings UNION SELECT name FROM pg_settings), pg_settings AS (SELECT 1) "
    "SELECT * FROM s",
    'SELECT * FROM documents, LATERAL (WITH RECURSIVE "PG_SETTINGS" AS (SELECT * FROM "PG_SETTINGS") SELECT 1)',
    "",
]

# Pass the guard, and are stopped by the time limit instead.
RUNAWAY = [
    "SELECT count(*) FROM documents a, documents b, documents c, documents d, documents e, documents f, "
    "documents g, documents h, documents i, documents j WHERE a.title || j.title LIKE '%never%'",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "secret.csv").write_text(f"key\n{SECRET}\n")
    return tmp_path


def snapshot(folder: Path) -> dict[str, tuple[int, float]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime) for p in folder.rglob("*")}


@pytest.mark.parametrize("sql", HOSTILE)
def test_hostile_sql_is_refused_and_nothing_is_read_or_written(
    peps_collection: Collection, folder: Path, sql: str
) -> None:
    before = snapshot(folder)
    text = sql.format(dir=folder, secret=folder / "secret.csv")
    with pytest.raises(QueryRefused) as refused:
        run(peps_collection, text)
    assert SECRET not in str(refused.value) and snapshot(folder) == before


@pytest.mark.parametrize("sql", [h for h in HOSTILE if h and "DROP TABLE documents" != h])
def test_the_engine_alone_refuses_file_and_config_access_too(
    peps_collection: Collection, folder: Path, sql: str
) -> None:
    """The second layer: fed the hostile SQL directly, DuckDB's lockdown still reads and writes nothing."""
    before = snapshot(folder)
    text = sql.format(dir=folder, secret=folder / "secret.csv")
    try:
        columns, rows, _, _ = engine.run(peps_collection, text, max_rows=5, timeout_s=2, memory_limit="64MB")
    except QueryFailed as error:
        assert SECRET not in str(error)
    else:
        assert SECRET not in repr(rows)  # what ran harmlessly (a write to the query's own memory) shows nothing
    assert snapshot(folder) == before
    assert not any(name.startswith("evil") for name in os.listdir(folder))


@pytest.mark.parametrize("sql", RUNAWAY)
def test_runaway_queries_are_interrupted(peps_collection: Collection, sql: str) -> None:
    with pytest.raises(QueryFailed, match="was stopped"):
        run(peps_collection, sql, timeout_s=0.5)


def test_counted_rows_are_listed_only_for_a_bare_count(peps_collection: Collection) -> None:
    for sql in [
        "SELECT count(*) FILTER (WHERE pep < 300) FROM documents",
        "SELECT count(python_version) FROM documents",
        "SELECT count(DISTINCT status) FROM documents",
        "SELECT count(*) FROM documents LIMIT 0",
        "SELECT count(*) FROM documents USING SAMPLE 3",
    ]:
        assert run(peps_collection, sql).counted is None, sql


def test_a_column_named_source_id_cannot_stand_in_for_the_real_one(peps_collection: Collection) -> None:
    result = run(peps_collection, "SELECT title AS source_id FROM documents WHERE pep = 8")
    assert result.rows == [["Style Guide for Python Code"]] and result.source_ids[0].startswith("S")


def test_exact_values_are_traced_through_expressions_and_whole_rows(peps_collection: Collection) -> None:
    assert run(peps_collection, "SELECT trim(url) AS u, title FROM documents WHERE pep = 8").exact_columns == ["u"]
    assert run(peps_collection, "SELECT d FROM documents d WHERE pep = 8").exact_columns == ["d"]
    union = "SELECT title FROM documents WHERE pep = 8 UNION ALL SELECT url FROM documents WHERE pep = 20"
    assert run(peps_collection, union).exact_columns == ["title"]


def test_json_form_null_and_wildcards_mean_what_they_say(notes_collection: Collection) -> None:
    def count(form: dict) -> int:
        return run_query(notes_collection, form={**form, "count": True}, max_rows=5, timeout_s=5).rows[0][0]

    assert count({"filter": [["homepage", "=", None]]}) == 0  # IS NULL, and every note has one
    assert count({"filter": [["version", "!=", None]]}) == 6
    assert count({"filter": [["title", "contains", "_"]]}) == 0  # a literal underscore, not "any character"
    assert count({"filter": [["price", "contains", 9]]}) == 1  # numbers compared as text: 19.9


def test_a_cte_named_documents_cannot_forge_citations(peps_collection: Collection) -> None:
    forged = run(
        peps_collection,
        "WITH documents AS (SELECT 'S612076' AS source_id, 'fake' AS title) SELECT title FROM documents",
    )
    assert forged.rows == [["fake"]] and forged.source_ids is None
    union = "WITH documents AS (SELECT source_id FROM documents LIMIT 1 UNION ALL SELECT 'x') SELECT count(*) FROM documents"
    assert run(peps_collection, union).counted is None
