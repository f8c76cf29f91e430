"""connectors.sqlalchemy_url: SQLite and DuckDB files, a live PostgreSQL, bad URLs.

The PostgreSQL tests use ``SCHEMA_SEARCH_TEST_PG_URL`` (``scripts/setup_postgres.sh``
starts a server and prints it). Without a server they skip, except under ``CI``,
where they fail: CI must test real PostgreSQL.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
import uuid
from pathlib import Path

import duckdb
import pytest
from sqlalchemy import create_engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from schema_search.connectors import sqlalchemy_url
from schema_search.errors import SourceError
from schema_search.tables.catalog import Column, ForeignKey
from schema_search.tables.render import create_table_sql

PG_URL = os.environ.get(
    "SCHEMA_SEARCH_TEST_PG_URL", "postgresql://schema_search:schema_search@127.0.0.1:5432/schema_search_test"
)
CRM_SQL = Path(__file__).resolve().parents[2] / "sample_schemas" / "crm.sql"

# Orders have a compound key; their lines point at it with a compound foreign key.
SHOP = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, country VARCHAR DEFAULT 'NL');
CREATE TABLE orders (
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    order_no INTEGER NOT NULL,
    placed_at VARCHAR,
    PRIMARY KEY (customer_id, order_no)
);
CREATE TABLE order_lines (
    customer_id INTEGER, order_no INTEGER, line_no INTEGER, amount NUMERIC(10, 2),
    PRIMARY KEY (customer_id, order_no, line_no),
    FOREIGN KEY (customer_id, order_no) REFERENCES orders (customer_id, order_no)
);
CREATE VIEW big_orders AS SELECT customer_id, order_no FROM order_lines WHERE amount > 100;
"""
SHOP_IDS = ["main.big_orders", "main.customers", "main.order_lines", "main.orders"]


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def assert_shop(catalog, amount_type: str) -> None:
    """The facts both file databases must report about SHOP."""
    schema = "main"
    lines = catalog.table(f"{schema}.order_lines")
    assert lines.primary_key == ("customer_id", "order_no", "line_no")
    assert lines.foreign_keys[0].columns == ("customer_id", "order_no")
    assert lines.foreign_keys[0].ref_table == f"{schema}.orders"
    assert lines.foreign_keys[0].ref_columns == ("customer_id", "order_no")
    assert lines.column("amount").type == amount_type
    orders = catalog.table(f"{schema}.orders")
    assert orders.primary_key == ("customer_id", "order_no")
    assert [(fk.columns, fk.ref_table, fk.ref_columns) for fk in orders.foreign_keys] == [
        (("customer_id",), f"{schema}.customers", ("id",))
    ]
    assert not orders.column("order_no").nullable
    customers = catalog.table(f"{schema}.customers")
    assert not customers.column("name").nullable
    assert customers.column("country").default == "'NL'"
    view = catalog.table(f"{schema}.big_orders")
    assert view.kind == "view"
    assert "amount > 100" in view.definition
    assert [c.name for c in view.columns] == ["customer_id", "order_no"]
    assert view.primary_key == () and view.foreign_keys == ()


# --- SQLite -----------------------------------------------------------------------


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.executescript(SHOP)
    connection.close()
    return path


def test_sqlite_tables_keys_and_views(sqlite_file: Path) -> None:
    catalog = sqlalchemy_url.introspect(f"sqlite:///{sqlite_file}", catalog="shop")
    assert catalog.name == "shop"
    assert [t.id for t in catalog.tables] == SHOP_IDS
    assert catalog.source == {
        "kind": "sqlalchemy",
        "url": f"sqlite:///{sqlite_file}",
        "dialect": "sqlite",
        "schemas": ["main"],
    }
    assert_shop(catalog, amount_type="NUMERIC(10, 2)")
    assert catalog.table("main.customers").columns[1] == Column("name", "VARCHAR", nullable=False)


def test_a_view_column_of_no_type_is_unknown_not_nulltype(tmp_path: Path) -> None:
    db = tmp_path / "sales.db"
    with sqlite3.connect(db) as connection:
        connection.executescript(
            "CREATE TABLE sales (product TEXT, units INTEGER);"
            "CREATE VIEW totals AS SELECT product, sum(units) AS units_sold FROM sales GROUP BY product;"
        )
    view = sqlalchemy_url.introspect(f"sqlite:///{db}", catalog="sales").table("main.totals")
    assert view.column("units_sold").type == ""  # rendered `-- type unknown`, `"type": null` in JSON
    assert "NULLTYPE" not in create_table_sql(view) and "units_sold  -- type unknown" in create_table_sql(view)


def test_sqlite_file_is_not_touched(sqlite_file: Path) -> None:
    before = fingerprint(sqlite_file)
    files = set(sqlite_file.parent.iterdir())
    time.sleep(0.01)  # so a write would show in the mtime
    sqlalchemy_url.introspect(f"sqlite:///{sqlite_file}", catalog="shop")
    assert fingerprint(sqlite_file) == before
    assert set(sqlite_file.parent.iterdir()) == files  # no journal or WAL left behind


def test_sqlite_relative_path(sqlite_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(sqlite_file.parent)
    assert len(sqlalchemy_url.introspect("sqlite:///shop.db", catalog="shop").tables) == 4


def test_sqlite_missing_file_is_refused_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    with pytest.raises(SourceError, match="does not exist"):
        sqlalchemy_url.introspect(f"sqlite:///{missing}", catalog="x")
    assert not missing.exists()


def test_sqlite_read_only_engine_cannot_write(sqlite_file: Path) -> None:
    engine = sqlalchemy_url.read_only_engine(f"sqlite:///{sqlite_file}")
    try:
        with engine.connect() as connection, pytest.raises(OperationalError, match="readonly"):
            connection.exec_driver_sql("CREATE TABLE sneaky (i INTEGER)")
    finally:
        engine.dispose()


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "duckdb:///:memory:"])
def test_in_memory_database_is_empty_so_refused(url: str) -> None:
    with pytest.raises(SourceError, match="No tables found"):
        sqlalchemy_url.introspect(url, catalog="x")


# --- DuckDB -----------------------------------------------------------------------


@pytest.fixture
def duckdb_file(tmp_path: Path) -> Path:
    path = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute(SHOP)
    connection.execute(
        """
        COMMENT ON TABLE customers IS 'People and companies that buy from us';
        COMMENT ON COLUMN customers.country IS 'ISO 3166 country code';
        CREATE SCHEMA audit;
        CREATE TABLE audit.events (id INTEGER PRIMARY KEY, customer_id INTEGER, happened_at TIMESTAMP);
        """
    )
    connection.close()
    return path


def test_duckdb_tables_keys_views_and_comments(duckdb_file: Path) -> None:
    catalog = sqlalchemy_url.introspect(f"duckdb:///{duckdb_file}", catalog="shop")
    assert [t.id for t in catalog.tables] == SHOP_IDS + ["audit.events"]
    assert catalog.source["dialect"] == "duckdb" and catalog.source["schemas"] == ["main", "audit"]
    assert_shop(catalog, amount_type="DECIMAL(10,2)")
    customers = catalog.table("main.customers")
    assert customers.comment == "People and companies that buy from us"
    assert customers.column("country") == Column("country", "VARCHAR", comment="ISO 3166 country code", default="'NL'")
    assert catalog.table("audit.events").column("happened_at").type == "TIMESTAMP"


def test_duckdb_db_selects_schemas(duckdb_file: Path) -> None:
    url = f"duckdb:///{duckdb_file}"
    assert [t.id for t in sqlalchemy_url.introspect(url, catalog="x", db="AUDIT").tables] == ["audit.events"]
    with pytest.raises(SourceError, match="No schema nope") as raised:
        sqlalchemy_url.introspect(url, catalog="x", db="nope")
    assert "main, audit" in str(raised.value)


def test_duckdb_file_is_not_touched(duckdb_file: Path) -> None:
    before = fingerprint(duckdb_file)
    files = set(duckdb_file.parent.iterdir())
    time.sleep(0.01)
    sqlalchemy_url.introspect(f"duckdb:///{duckdb_file}", catalog="shop")
    assert fingerprint(duckdb_file) == before
    assert set(duckdb_file.parent.iterdir()) == files  # no .wal


def test_duckdb_read_only_engine_cannot_write(duckdb_file: Path) -> None:
    engine = sqlalchemy_url.read_only_engine(f"duckdb:///{duckdb_file}")
    try:
        with engine.connect() as connection, pytest.raises(DBAPIError, match="read-only"):
            connection.exec_driver_sql("CREATE TABLE sneaky (i INTEGER)")
    finally:
        engine.dispose()


def test_duckdb_missing_file_is_refused_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "nope.duckdb"
    with pytest.raises(SourceError, match="does not exist"):
        sqlalchemy_url.introspect(f"duckdb:///{missing}", catalog="x")
    assert not missing.exists()


# --- URLs that cannot work --------------------------------------------------------


@pytest.mark.parametrize("scheme", ["sqlite", "duckdb"])
def test_file_that_is_not_a_database(tmp_path: Path, scheme: str) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database, just text " * 200)
    with pytest.raises(SourceError, match="not a .*database"):
        sqlalchemy_url.introspect(f"{scheme}:///{path}", catalog="x")


def test_matches_urls_only() -> None:
    assert sqlalchemy_url.matches("postgresql://me@localhost/crm")
    assert sqlalchemy_url.matches("sqlite:///shop.db")
    assert not sqlalchemy_url.matches("not a url")
    assert not sqlalchemy_url.matches("sample_schemas/crm.sql")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "is not a database URL"),
        ("foo://x", "Unknown database dialect in foo://x"),
        ("mysql+nosuchdriver://u:secret@localhost/db", "Cannot open mysql\\+nosuchdriver://u:\\*\\*\\*@localhost/db"),
    ],
)
def test_bad_url(url: str, message: str) -> None:
    with pytest.raises(SourceError, match=message) as raised:
        sqlalchemy_url.introspect(url, catalog="x")
    assert "secret" not in str(raised.value)


@pytest.mark.parametrize("url", ["postgresql://nobody:secret@127.0.0.1:1/db", "mysql://nobody:secret@127.0.0.1:1/db"])
def test_connection_refused_hides_password(url: str) -> None:
    with pytest.raises(SourceError, match="Could not connect to .*nobody:\\*\\*\\*@127.0.0.1:1/db") as raised:
        sqlalchemy_url.introspect(url, catalog="x")
    assert "secret" not in str(raised.value)
    assert "Check the host and port" in str(raised.value)


# --- PostgreSQL -------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_admin():
    """An engine with write access for building scratch schemas; skips without a server."""
    url = make_url(PG_URL).set(drivername="postgresql+psycopg2")
    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect():
            pass
    except OperationalError as error:
        engine.dispose()
        message = (
            f"PostgreSQL at {url.render_as_string()} is not reachable "
            f"({str(error.orig).strip().splitlines()[0]}); "
            "start one with scripts/setup_postgres.sh"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    yield engine
    engine.dispose()


@pytest.fixture
def scratch(pg_admin):
    """Two fresh schemas (``sales``, ``ref``) and a table in ``public``, dropped afterwards.

    Keys cross schemas twice: a compound key from sales into ref, and one from
    sales into public, which is on the default search_path.
    """
    tag = f"ss_test_{uuid.uuid4().hex[:8]}"
    names = {"sales": f"{tag}_sales", "ref": f"{tag}_ref", "currencies": f"{tag}_currencies"}
    ddl = """
        CREATE SCHEMA {ref};
        CREATE SCHEMA {sales};
        CREATE TABLE public.{currencies} (code char(3) PRIMARY KEY);
        CREATE TABLE {ref}.regions (
            country_code char(2), region_code varchar(8), name text NOT NULL,
            PRIMARY KEY (country_code, region_code)
        );
        COMMENT ON TABLE {ref}.regions IS 'Sales regions within a country';
        COMMENT ON COLUMN {ref}.regions.name IS 'Name shown on invoices';
        CREATE TABLE {sales}.customers (
            id serial PRIMARY KEY, name text NOT NULL, country_code char(2), region_code varchar(8),
            FOREIGN KEY (country_code, region_code) REFERENCES {ref}.regions
        );
        CREATE TABLE {sales}.orders (
            id bigint PRIMARY KEY,
            customer_id int NOT NULL REFERENCES {sales}.customers (id),
            currency char(3) REFERENCES public.{currencies},
            total numeric(12, 2) DEFAULT 0
        );
        COMMENT ON COLUMN {sales}.orders.total IS 'Including tax';
        CREATE VIEW {sales}.big_orders AS SELECT id, total FROM {sales}.orders WHERE total > 1000;
        CREATE MATERIALIZED VIEW {sales}.order_totals AS
            SELECT customer_id, sum(total) AS total FROM {sales}.orders GROUP BY customer_id;
    """.format(**names)
    with pg_admin.begin() as connection:
        connection.exec_driver_sql(ddl)
    yield names
    with pg_admin.begin() as connection:
        connection.exec_driver_sql(
            "DROP SCHEMA {sales} CASCADE; DROP SCHEMA {ref} CASCADE; DROP TABLE public.{currencies}".format(**names)
        )


@pytest.mark.postgres
def test_postgres_tables_keys_views_and_comments(scratch) -> None:
    sales, ref = scratch["sales"], scratch["ref"]
    catalog = sqlalchemy_url.introspect(PG_URL, catalog="shop", db=f"{sales},{ref}")
    assert [t.id for t in catalog.tables] == [
        f"{sales}.big_orders",
        f"{sales}.customers",
        f"{sales}.order_totals",
        f"{sales}.orders",
        f"{ref}.regions",
    ]
    assert catalog.source == {
        "kind": "sqlalchemy",
        "url": make_url(PG_URL).render_as_string(hide_password=True),
        "dialect": "postgresql",
        "schemas": [sales, ref],
    }
    regions = catalog.table(f"{ref}.regions")
    assert regions.primary_key == ("country_code", "region_code")
    assert regions.comment == "Sales regions within a country"
    assert regions.column("name") == Column("name", "TEXT", nullable=False, comment="Name shown on invoices")
    customers = catalog.table(f"{sales}.customers")
    assert customers.foreign_keys == (
        ForeignKey(
            ("country_code", "region_code"),
            f"{ref}.regions",
            ("country_code", "region_code"),
            "customers_country_code_region_code_fkey",
        ),
    )
    assert customers.column("id").default.startswith("nextval(")
    orders = catalog.table(f"{sales}.orders")
    assert {(fk.columns, fk.ref_table) for fk in orders.foreign_keys} == {
        (("customer_id",), f"{sales}.customers"),
        (("currency",), f"public.{scratch['currencies']}"),
    }
    assert orders.column("total") == Column("total", "NUMERIC(12, 2)", comment="Including tax", default="0")
    assert orders.column("id").type == "BIGINT" and not orders.column("id").nullable
    for name, fragment in (("big_orders", "1000"), ("order_totals", "GROUP BY")):
        view = catalog.table(f"{sales}.{name}")
        assert view.kind == "view" and fragment in view.definition


@pytest.mark.postgres
def test_postgres_db_selects_one_schema_and_default_reads_all(scratch) -> None:
    sales, ref = scratch["sales"], scratch["ref"]
    one = sqlalchemy_url.introspect(PG_URL, catalog="x", db=ref)
    assert [t.id for t in one.tables] == [f"{ref}.regions"]
    everything = sqlalchemy_url.introspect(PG_URL, catalog="x")
    ids = {t.id for t in everything.tables}
    assert {f"{ref}.regions", f"{sales}.orders", f"public.{scratch['currencies']}"} <= ids
    assert not any(t.schema in ("pg_catalog", "information_schema") for t in everything.tables)


@pytest.mark.postgres
def test_postgres_session_is_read_only(scratch) -> None:
    engine = sqlalchemy_url.read_only_engine(PG_URL)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW default_transaction_read_only").scalar() == "on"
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar() == "1min"
            with pytest.raises(DBAPIError, match="read-only transaction"):
                connection.exec_driver_sql(f"CREATE TABLE {scratch['sales']}.sneaky (i int)")
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("change", "hint"),
    [
        ({"password": "wrong-secret"}, "Check the user name and password"),
        ({"database": "no_such_database"}, "Check the database name"),
    ],
)
def test_postgres_connection_errors_say_what_to_check(pg_admin, change: dict, hint: str) -> None:
    url = make_url(PG_URL).set(**change)
    with pytest.raises(SourceError, match=hint) as raised:
        sqlalchemy_url.introspect(url.render_as_string(hide_password=False), catalog="x")
    assert url.render_as_string(hide_password=True) in str(raised.value)
    assert "wrong-secret" not in str(raised.value)


@pytest.mark.postgres
def test_postgres_unknown_schema_lists_known_ones(scratch) -> None:
    with pytest.raises(SourceError, match="No schema nope") as raised:
        sqlalchemy_url.introspect(PG_URL, catalog="x", db="nope")
    assert scratch["sales"] in str(raised.value)


@pytest.mark.postgres
def test_postgres_names_differing_only_in_case_keep_the_first(pg_admin) -> None:
    schema = f"ss_test_{uuid.uuid4().hex[:8]}_case"
    with pg_admin.begin() as connection:
        connection.exec_driver_sql(
            f'CREATE SCHEMA {schema}; CREATE TABLE {schema}."Notes" (id int); CREATE TABLE {schema}.notes (id int)'
        )
    try:
        catalog = sqlalchemy_url.introspect(PG_URL, catalog="x", db=schema)
    finally:
        with pg_admin.begin() as connection:
            connection.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
    assert [t.name for t in catalog.tables] == ["Notes"]
    assert catalog.warnings == (f"Skipped {schema}.notes: its name differs from {schema}.Notes only in case.",)


@pytest.fixture
def crm_database(pg_admin):
    """A scratch database holding ``sample_schemas/crm.sql``, dropped afterwards."""
    if not CRM_SQL.is_file():
        pytest.skip(f"{CRM_SQL} is not there yet")
    name = f"ss_test_crm_{uuid.uuid4().hex[:8]}"
    with pg_admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    url = make_url(PG_URL).set(database=name)
    loader = create_engine(url.set(drivername="postgresql+psycopg2"))
    try:
        with loader.begin() as connection:
            # Straight to the driver: through SQLAlchemy, a "%" in the DDL reads as a parameter.
            connection.connection.cursor().execute(CRM_SQL.read_text(encoding="utf-8"))
        yield url.render_as_string(hide_password=False)
    finally:
        loader.dispose()
        with pg_admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.mark.postgres
def test_postgres_crm_sample(crm_database: str) -> None:
    ddl = CRM_SQL.read_text(encoding="utf-8")
    declared = re.findall(
        r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNLOGGED\s+)?(?:MATERIALIZED\s+)?(?:TABLE|VIEW)\b",
        ddl,
        flags=re.IGNORECASE | re.MULTILINE,
    )
    catalog = sqlalchemy_url.introspect(crm_database, catalog="crm")
    assert len(catalog.tables) == len(declared)
    assert sum(len(t.foreign_keys) for t in catalog.tables) > len(catalog.tables) / 2
    for table in catalog.tables:
        for fk in table.foreign_keys:
            assert catalog.table(fk.ref_table) is not None, f"{table.id} -> {fk.ref_table}"
