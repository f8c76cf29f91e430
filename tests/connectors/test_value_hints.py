"""connectors.values and connectors.sensitive: value hints sampled from real SQLite and PostgreSQL rows.

What is sampled (short text columns), what never is (secrets and personal data, by
name and by the values' shape), the bounds (rows, values, length, time), where the
values end up (the generation's catalog.json, the ``values`` field, ``matched_values``)
and where they never do (warnings, logs, printed output).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import uuid
from pathlib import Path

import pytest

from schema_search import connectors
from schema_search.connectors.values import ValueHints
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog
from schema_search.workspace import Workspace

from ..conftest import SAMPLES
from ..shop_db import make_shop_db
from .test_sqlalchemy import PG_URL, pg_admin  # noqa: F401  (pg_admin: a fixture used below)

HEX = "5f4dcc3b5aa765d61d8327deb882cf99"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
FREE_TEXT = "Called about the renewal; wants a quote for the enterprise tier before the end of the quarter."

# Columns never sampled whatever their values, and what is planted in them.
NEVER_BY_NAME = {
    "password_hash": "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
    "api_token": "tok_live_abcdefghij",
    "ssn": "078-05-1120",
    "ip_address": "10.1.2.3",
    "date_of_birth": "1990-04-01",
    "street": "12 Main Street",
}
CONTACTS_BY_NAME = {"email": "ann@xmagnet.example", "phone": "+31 20 555 0100"}

SCHEMA = """
CREATE TABLE accounts (id INTEGER PRIMARY KEY, name VARCHAR(80), industry TEXT, employees INTEGER, notes TEXT);
CREATE TABLE contacts (
    id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts (id), first_name TEXT, title TEXT,
    email TEXT, phone TEXT, password_hash TEXT, api_token TEXT, ssn TEXT, ip_address TEXT, date_of_birth TEXT,
    street TEXT, reference TEXT, session_blob TEXT, extra TEXT, handle TEXT
);
CREATE TABLE tickets (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts (id), priority VARCHAR(8),
    status VARCHAR(12), subject TEXT);
"""


def _rows(connection) -> None:
    accounts = [(1, "xmagnet", "Software", 40), (2, "Acme Corp", "Retail", 900), (3, "Globex", "Energy", 70)]
    connection.executemany(
        "INSERT INTO accounts VALUES (?, ?, ?, ?, ?)", [(*a, FREE_TEXT + str(a[0])) for a in accounts]
    )
    for i in range(1, 7):
        connection.execute(
            "INSERT INTO contacts VALUES (" + ", ".join("?" * 16) + ")",
            (
                i,
                1 + i % 3,
                ["Ann", "Bob", "Cleo"][i % 3],
                ["CTO", "Buyer"][i % 2],
                f"person{i}@xmagnet.example",
                f"+31 20 555 010{i}",
                NEVER_BY_NAME["password_hash"],
                f"tok_live_abcdefghij{i}",
                NEVER_BY_NAME["ssn"],
                f"10.1.2.{i}",
                NEVER_BY_NAME["date_of_birth"],
                f"{i} Main Street",
                HEX if i == 6 else f"ref{i}",  # one token among plain words: the column goes
                JWT if i == 1 else "none",
                f"call +31 6 1234 567{i}" if i == 2 else "vip",  # one phone number: the column goes
                f"user{i}@example.org" if i == 3 else f"handle{i}",  # one e-mail: gone unless opted in
            ),
        )
    tickets = ["urgent", "normal", "normal", "low", "normal", "urgent", "normal"]
    connection.executemany(
        "INSERT INTO tickets VALUES (?, ?, ?, ?, ?)",
        [(i, 1 + i % 3, p, "open" if i % 2 else "solved", f"Ticket {i}") for i, p in enumerate(tickets, 1)],
    )


@pytest.fixture
def crm_db(tmp_path: Path) -> Path:
    path = tmp_path / "crm.db"
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA)
    _rows(connection)
    connection.commit()
    connection.close()
    return path


def _values(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """``table.column`` -> sampled values, for the columns that have some."""
    return {f"{t.name}.{c.name}": c.values for t in catalog.tables for c in t.columns if c.values}


def _sample(url: str, **options) -> Catalog:
    return connectors.introspect(url, catalog="crm", value_hints=ValueHints(**options))


# --- what is sampled ----------------------------------------------------------------


def test_short_text_columns_lend_their_distinct_values_most_frequent_first(crm_db: Path) -> None:
    values = _values(_sample(f"sqlite:///{crm_db}"))
    assert values["accounts.name"] == ("Acme Corp", "Globex", "xmagnet")  # once each: ties go by value
    assert values["tickets.priority"] == ("normal", "urgent", "low")
    assert values["tickets.status"] == ("open", "solved")
    assert set(values["contacts.first_name"]) == {"Ann", "Bob", "Cleo"}
    assert "accounts.employees" not in values and "accounts.id" not in values  # not text
    assert "accounts.notes" not in values  # free text, not a hint
    assert "tickets.subject" in values  # "Ticket 1": short, with a letter


def test_the_shop_sample_database_lends_its_names_and_statuses(tmp_path: Path) -> None:
    values = _values(_sample(f"sqlite:///{make_shop_db(tmp_path / 'shop.db')}"))
    assert values["orders.status"] == ("cancelled", "delivered", "paid")
    assert values["categories.name"] == ("Garden", "Kitchen")
    assert "customers.email" not in values


def test_secrets_and_personal_data_are_never_sampled_by_name(crm_db: Path) -> None:
    values = _values(_sample(f"sqlite:///{crm_db}"))
    for name in [*NEVER_BY_NAME, *CONTACTS_BY_NAME]:
        assert f"contacts.{name}" not in values, name


def test_a_column_whose_values_look_sensitive_is_dropped_whole(crm_db: Path) -> None:
    values = _values(_sample(f"sqlite:///{crm_db}"))
    # A hex token, a JWT, a phone number, an e-mail address among plain words: nothing of the column is kept.
    for name in ("reference", "session_blob", "extra", "handle"):
        assert f"contacts.{name}" not in values, name
    assert "contacts.title" in values  # a plain column of the same table still is


def test_opting_in_lets_emails_and_phones_through_but_never_secrets(crm_db: Path) -> None:
    values = _values(_sample(f"sqlite:///{crm_db}", allow_contacts=True))
    assert "person1@xmagnet.example" in values["contacts.email"]
    assert "+31 20 555 0101" in values["contacts.phone"]
    assert "user3@example.org" in values["contacts.handle"]
    for name in [*NEVER_BY_NAME, "reference", "session_blob"]:
        assert f"contacts.{name}" not in values, name


def test_rows_values_and_length_are_capped(crm_db: Path) -> None:
    # The first 3 rows only: "low" (row 4) is never read.
    assert set(_values(_sample(f"sqlite:///{crm_db}", max_rows=3))["tickets.priority"]) == {"urgent", "normal"}
    assert _values(_sample(f"sqlite:///{crm_db}", max_values=2))["tickets.priority"] == ("normal", "urgent")
    # Over 7 characters: "Acme Corp" goes, "xmagnet" (7) and "Globex" stay.
    assert _values(_sample(f"sqlite:///{crm_db}", max_chars=7))["accounts.name"] == ("Globex", "xmagnet")


def test_a_huge_value_is_left_out_and_the_short_ones_kept(tmp_path: Path) -> None:
    path = tmp_path / "big.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, label TEXT)")
        connection.executemany("INSERT INTO docs VALUES (?, ?)", [(1, "x" * 5_000_000), (2, "short"), (3, "tiny")])
    connection.close()
    # 5 MB in one cell: a third of the column is too long, the rest is kept.
    assert _values(_sample(f"sqlite:///{path}"))["docs.label"] == ("short", "tiny")


# --- time ---------------------------------------------------------------------------

# A text column joined with a recursive CTE that never yields a row: reading its first row takes forever.
ENDLESS = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
    "SELECT accounts.name AS label FROM accounts, n WHERE n.i < 0"
)


def test_a_slow_sqlite_table_is_skipped_with_a_warning_naming_it(crm_db: Path) -> None:
    with sqlite3.connect(crm_db) as connection:
        connection.execute(f"CREATE VIEW endless AS {ENDLESS}")
    connection.close()
    catalog = _sample(f"sqlite:///{crm_db}", timeout_s=0.5)
    assert [w for w in catalog.warnings if "endless" in w] == [
        "Value hints: skipped main.endless: its sample took longer than 0.5 s (SCHEMA_SEARCH_VALUE_HINTS_TIMEOUT_S)."
    ]
    assert "tickets.priority" in _values(catalog)  # the others were sampled


def test_the_catalog_budget_bounds_all_samples_together(crm_db: Path) -> None:
    with sqlite3.connect(crm_db) as connection:
        for name in ("a_endless", "b_endless", "c_endless"):
            connection.execute(f"CREATE VIEW {name} AS {ENDLESS}")
    connection.close()
    catalog = _sample(f"sqlite:///{crm_db}", timeout_s=0.5, budget_s=0.8)
    # In name order: a_endless takes 0.5 s, accounts is quick, b_endless takes what is left.
    assert [w.split(":")[1] for w in catalog.warnings[:2]] == [" skipped main.a_endless", " skipped main.b_endless"]
    assert catalog.warnings[2:] == (
        "Value hints: 3 tables not sampled: the 0.8 s budget for the catalog ran out "
        "(SCHEMA_SEARCH_VALUE_HINTS_BUDGET_S).",
    )
    values = _values(catalog)
    assert "accounts.name" in values and "tickets.priority" not in values


# --- nothing beyond the rows --------------------------------------------------------


def test_a_duckdb_view_over_a_file_is_not_read(tmp_path: Path) -> None:
    import duckdb

    secret = tmp_path / "secret.csv"
    secret.write_text("word\nhunter2\n")
    path = tmp_path / "x.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("CREATE TABLE accounts (id INT, name VARCHAR); INSERT INTO accounts VALUES (1, 'xmagnet')")
    connection.execute(
        f"CREATE VIEW v_file AS SELECT word FROM read_csv('{secret}', header = true, columns = {{'word': 'VARCHAR'}})"
    )
    connection.close()
    catalog = _sample(f"duckdb:///{path}")
    assert _values(catalog) == {"accounts.name": ("xmagnet",)}
    assert catalog.warnings == (
        "Value hints: skipped main.v_file: the database refused the sample query (PermissionException).",
    )


def test_a_sqlite_view_that_builds_a_huge_value_is_refused_not_allocated(crm_db: Path) -> None:
    with sqlite3.connect(crm_db) as connection:
        connection.execute(
            "CREATE VIEW v_huge AS SELECT a.name AS label FROM accounts a, (SELECT randomblob(300000000) AS b) big "
            "WHERE length(big.b) > 0"
        )
    connection.close()
    catalog = _sample(f"sqlite:///{crm_db}")
    assert [w for w in catalog.warnings if "v_huge" in w] == [
        "Value hints: skipped main.v_huge: the database refused the sample query (DataError)."
    ]


# --- off ----------------------------------------------------------------------------


def test_no_value_hints_means_no_rows_read(crm_db: Path) -> None:
    assert _values(connectors.introspect(f"sqlite:///{crm_db}", catalog="crm")) == {}


def test_the_setting_off_gives_no_values(crm_db: Path, tmp_path: Path) -> None:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, value_hints=False))
    workspace.catalogs.index(f"sqlite:///{crm_db}", catalog="crm")
    stored = (workspace.catalogs.store.current("crm").path / "catalog.json").read_text()
    assert '"values"' not in stored
    assert workspace.catalogs.store.current("crm").manifest()["coverage"]["values"] == 0.0


def test_a_ddl_source_gives_no_values_and_keeps_its_json(tmp_path: Path) -> None:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.catalogs.index(str(SAMPLES / "shop.sql"), catalog="shop", dialect="sqlite")
    generation = workspace.catalogs.store.current("shop")
    assert '"values"' not in (generation.path / "catalog.json").read_text()
    assert generation.manifest()["coverage"]["values"] == 0.0


# --- where values go, and where they never do ---------------------------------------------


def test_values_are_stored_with_the_generation_and_never_logged_or_printed(
    crm_db: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture
) -> None:
    with sqlite3.connect(crm_db) as connection:
        connection.execute(f"CREATE VIEW endless AS {ENDLESS}")
    connection.close()
    settings = Settings(home=tmp_path / "home", dense=False, value_hints_timeout_s=0.3)
    # SQLAlchemy's own logging at DEBUG too: it would log every row fetched through it.
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="sqlalchemy"):
        workspace = Workspace(settings)
        result = workspace.catalogs.index(f"sqlite:///{crm_db}", catalog="crm", progress=lambda items, label: items)
        workspace.catalogs.search("crm", "contacts of xmagnet", 5)
    stored = json.loads((workspace.catalogs.store.current("crm").path / "catalog.json").read_text())
    accounts = next(t for t in stored["tables"] if t["name"] == "accounts")
    assert next(c for c in accounts["columns"] if c["name"] == "name")["values"] == ["Acme Corp", "Globex", "xmagnet"]
    assert workspace.catalogs.store.current("crm").manifest()["coverage"]["values"] > 0
    shown = caplog.text + capsys.readouterr().err + "\n".join(result.catalog.warnings)
    assert "endless" in shown  # the warning is there, naming the table
    for value in ("xmagnet", "Acme Corp", "Globex", "urgent", "Ann", "CTO"):
        assert value not in shown, value


def test_values_stay_out_of_the_other_fields_and_the_embedding_text(crm_db: Path) -> None:
    from schema_search.tables.documents import embedding_text, table_document

    accounts = _sample(f"sqlite:///{crm_db}").table("main.accounts")
    document = table_document(accounts)
    assert "xmagnet" in document.values
    assert "xmagnet" not in document.names + document.text + document.body + embedding_text(accounts)


# --- end to end ---------------------------------------------------------------------


def test_a_question_naming_a_stored_value_finds_its_table_sqlite(crm_db: Path, tmp_path: Path) -> None:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.catalogs.index(f"sqlite:///{crm_db}", catalog="crm")
    found = {c.table: c for c in workspace.catalogs.search("crm", "contacts of xmagnet", 5).candidates}
    assert "main.accounts" in found
    assert [m.model_dump() for m in found["main.accounts"].matched_values] == [
        {"column": "name", "values": ["xmagnet"]}
    ]
    assert found["main.accounts"].channels["values"] == 1
    tickets = workspace.catalogs.search("crm", "tickets with priority urgent", 5).candidates[0]
    assert tickets.table == "main.tickets"
    assert [m.model_dump() for m in tickets.matched_values] == [{"column": "priority", "values": ["urgent"]}]


def test_a_value_written_as_one_word_names_a_value_of_several(crm_db: Path, tmp_path: Path) -> None:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.catalogs.index(f"sqlite:///{crm_db}", catalog="crm")
    accounts = next(
        c for c in workspace.catalogs.search("crm", "deals with acmecorp", 5).candidates if c.table == "main.accounts"
    )
    assert [m.model_dump() for m in accounts.matched_values] == [{"column": "name", "values": ["Acme Corp"]}]


# --- PostgreSQL ---------------------------------------------------------------------


@pytest.fixture
def pg_crm(pg_admin):  # noqa: F811  (the imported fixture)
    """A scratch schema: accounts, contacts and tickets with rows, a slow view, views that call functions."""
    schema = f"ss_test_{uuid.uuid4().hex[:8]}_values"
    ddl = f"""
        CREATE SCHEMA {schema};
        CREATE TABLE {schema}.accounts (id int PRIMARY KEY, name varchar(80), tier char(6), notes text);
        CREATE TABLE {schema}.contacts (
            id int PRIMARY KEY, account_id int REFERENCES {schema}.accounts, first_name text, email text,
            mobile text, api_key text, reference text
        );
        CREATE TABLE {schema}.tickets (id int PRIMARY KEY, account_id int REFERENCES {schema}.accounts,
            priority varchar(8));
        INSERT INTO {schema}.accounts VALUES (1, 'xmagnet', 'gold', '{FREE_TEXT}'), (2, 'Initech', 'silver', NULL);
        INSERT INTO {schema}.contacts VALUES
            (1, 1, 'Ann', 'ann@xmagnet.example', '+31 6 1234 5678', 'sk_live_0123456789abcdef', 'r1'),
            (2, 2, 'Bob', 'bob@initech.example', '+31 6 8765 4321', 'sk_live_fedcba9876543210', '{HEX}');
        INSERT INTO {schema}.tickets VALUES (1, 1, 'urgent'), (2, 2, 'normal'), (3, 1, 'normal');
        CREATE VIEW {schema}.slow_report AS SELECT a.name AS label FROM {schema}.accounts a,
            generate_series(1, 100000) x, generate_series(1, 100000) y WHERE x + y < 0;
        CREATE VIEW {schema}.v_sleep AS SELECT 'late'::text AS label FROM pg_sleep(30);
        CREATE TABLE {schema}.audit (note text);
        CREATE FUNCTION {schema}.planted() RETURNS text LANGUAGE sql AS $$ SELECT 'planted'::text $$;
        CREATE VIEW {schema}.v_planted AS SELECT {schema}.planted() AS label, name FROM {schema}.accounts;
    """
    with pg_admin.begin() as connection:
        connection.exec_driver_sql(ddl)
    yield schema
    with pg_admin.begin() as connection:
        connection.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")


@pytest.mark.postgres
def test_postgres_values_are_sampled_and_sensitive_columns_are_not(pg_crm: str) -> None:
    catalog = connectors.introspect(PG_URL, catalog="crm", db=pg_crm, value_hints=ValueHints(timeout_s=1))
    values = _values(catalog)
    assert values["accounts.name"] == ("Initech", "xmagnet")
    assert values["accounts.tier"] == ("gold", "silver")  # char(6) comes back padded: stripped
    assert values["tickets.priority"] == ("normal", "urgent")
    assert values["contacts.first_name"] == ("Ann", "Bob")
    for name in ("contacts.email", "contacts.mobile", "contacts.api_key", "contacts.reference", "accounts.notes"):
        assert name not in values, name
    opted = _values(
        connectors.introspect(
            PG_URL, catalog="crm", db=pg_crm, value_hints=ValueHints(timeout_s=1, allow_contacts=True)
        )
    )
    assert "ann@xmagnet.example" in opted["contacts.email"] and "contacts.api_key" not in opted


@pytest.mark.postgres
def test_postgres_slow_view_is_stopped_by_the_statement_timeout(pg_crm: str) -> None:
    catalog = connectors.introspect(PG_URL, catalog="crm", db=pg_crm, value_hints=ValueHints(timeout_s=1))
    assert [w for w in catalog.warnings if "slow_report" in w] == [
        f"Value hints: skipped {pg_crm}.slow_report: its sample took longer than 1 s "
        "(SCHEMA_SEARCH_VALUE_HINTS_TIMEOUT_S)."
    ]
    assert catalog.table(f"{pg_crm}.slow_report").columns[0].values == ()


@pytest.mark.postgres
def test_postgres_views_calling_user_or_volatile_functions_are_not_read(pg_crm: str) -> None:
    catalog = connectors.introspect(PG_URL, catalog="crm", db=pg_crm, value_hints=ValueHints(timeout_s=1))
    # Refused before reading, not stopped by the time limit: pg_sleep() never ran.
    for view in ("v_planted", "v_sleep"):
        assert [w for w in catalog.warnings if view in w] == [
            f"Value hints: skipped {pg_crm}.{view}: reading it runs code that is not a side-effect-free "
            "built-in, reaches another server, or grows too large through its views."
        ]
        assert all(c.values == () for c in catalog.table(f"{pg_crm}.{view}").columns)


@pytest.mark.postgres
def test_postgres_end_to_end(pg_crm: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, value_hints_timeout_s=1))
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="sqlalchemy"):
        result = workspace.catalogs.index(PG_URL, catalog="pgcrm", db=pg_crm)
        found = {c.table: c for c in workspace.catalogs.search("pgcrm", "contacts of xmagnet", 5).candidates}
    assert f"{pg_crm}.accounts" in found
    assert [m.model_dump() for m in found[f"{pg_crm}.accounts"].matched_values] == [
        {"column": "name", "values": ["xmagnet"]}
    ]
    stored = (workspace.catalogs.store.current("pgcrm").path / "catalog.json").read_text()
    assert '"xmagnet"' in stored and "ann@xmagnet.example" not in stored and "sk_live" not in stored
    shown = caplog.text + "\n".join(result.catalog.warnings)
    assert "slow_report" in shown and "xmagnet" not in shown and "Initech" not in shown
