"""Run one validated query against a catalog's database, read-only, with limits.

Two layers, so that neither alone has to be perfect:

1. :func:`execute_sql` runs only what :func:`~schema_search.agent.sqlcheck.validate_sql`
   accepts (one read-only query, known tables), and runs the statement re-generated
   from its parse tree rather than the text it was given.
2. :func:`run_read_only` opens the database so that it cannot write:

   * SQLite: the file opened with ``mode=ro``, ``PRAGMA query_only``, and an authorizer
     that allows reading and nothing else (no ATTACH, PRAGMA, writes); a progress
     handler enforces the time limit.
   * DuckDB: ``read_only=True`` with external access, extension loading and further
     configuration switched off (``read_only`` alone still reads files and runs
     ``COPY ... TO``); a timer interrupts a query past the time limit.
   * PostgreSQL: a ``READ ONLY`` transaction that is always rolled back, a
     ``statement_timeout``, and a server-side cursor (``DECLARE ... CURSOR``, which
     accepts only queries) that fetches at most the row limit.

Other databases are refused rather than run with weaker guarantees.
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from pydantic import BaseModel, Field
from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError

from ..errors import SchemaSearchError, first_line
from ..tables.catalog import Catalog
from .sqlcheck import Validation, validate_sql

CONNECT_TIMEOUT_S = 10
_DIALECTS = {"sqlite": "sqlite", "duckdb": "duckdb", "postgresql": "postgres"}


class QueryRefused(SchemaSearchError):
    """The SQL is not one read-only query over the catalog, or the database kind is not supported."""

    status = 422
    title = "Query refused"


class QueryFailed(SchemaSearchError):
    """The database could not run the query (an error, the time limit, a refused write)."""

    status = 400
    title = "Query failed"


class QueryResult(BaseModel):
    sql: str = Field(description="The statement that ran (re-generated from its parse tree).")
    columns: list[str]
    rows: list[list[Any]] = Field(description="At most `row_limit` rows; values made JSON-friendly.")
    truncated: bool = Field(description="True when the query had more rows than `row_limit`.")
    row_limit: int
    seconds: float


def dialect_of(url: str) -> str:
    """The sqlglot dialect of a database URL.

    >>> dialect_of("sqlite:////tmp/shop.db"), dialect_of("postgresql+psycopg2://u@h/db")
    ('sqlite', 'postgres')
    """
    backend = _url(url).get_backend_name()
    if backend not in _DIALECTS:
        raise QueryRefused(
            f"Running queries against {backend} is not supported.",
            hint="Read-only execution supports sqlite:///, duckdb:/// and postgresql:// URLs.",
        )
    return _DIALECTS[backend]


def source_url(catalog: Catalog, configured: str | None = None) -> str:
    """The URL to run queries on: ``configured`` (from ``--url`` or settings) if given,
    else the one the catalog was indexed from, when it kept everything needed.

    A catalog stores its URL with the password masked; file databases (SQLite, DuckDB)
    and password-less servers are usable as stored.

    >>> source_url(Catalog("shop", source={"kind": "sqlalchemy", "url": "sqlite:///shop.db"}))
    'sqlite:///shop.db'
    """
    if configured:
        return configured
    source = catalog.source or {}
    setting = f"SCHEMA_SEARCH_SOURCE_URLS='{{\"{catalog.name}\": \"postgresql://user:pass@host/db\"}}'"
    if source.get("kind") != "sqlalchemy" or not source.get("url"):
        where = ", ".join(source.get("files") or []) or source.get("kind") or "an unknown source"
        raise QueryRefused(
            f"Catalog {catalog.name!r} was indexed from {where}, not from a database: there is nothing to run SQL on.",
            hint=f"Give the database URL with --url, or set {setting}.",
        )
    url = source["url"]
    if _url(url).password is not None:
        raise QueryRefused(
            f"Catalog {catalog.name!r} keeps its URL without the password ({url}).",
            hint=f"Give the full URL with --url, or set {setting}.",
        )
    return url


def execute_sql(url: str, sql: str, catalog: Catalog, *, max_rows: int, timeout_s: float) -> QueryResult:
    """Validate ``sql`` against ``catalog`` and run it read-only against ``url``.

    Raises:
        QueryRefused: the SQL failed validation, or the database kind is unsupported.
        QueryFailed: the database refused or failed the query, or it ran too long.
    """
    validation = validate_sql(sql, dialect_of(url), catalog)
    if not validation.ok:
        raise QueryRefused(f"Refusing to run this SQL: {problems(validation)}", hint="Fix it and validate again.")
    return run_read_only(url, validation.sql, max_rows=max_rows, timeout_s=timeout_s)


def problems(validation: Validation) -> str:
    """What is wrong with a validation, as one line."""
    return "; ".join([*validation.errors, *(issue.message for issue in validation.issues)]) or "no problems"


def run_read_only(url: str, sql: str, *, max_rows: int, timeout_s: float) -> QueryResult:
    """Run ``sql`` on a connection that cannot write. Does not validate: see :func:`execute_sql`."""
    run = _RUNNERS[dialect_of(url)]
    started = time.perf_counter()
    columns, rows = run(_url(url), sql, max_rows + 1, timeout_s)
    return QueryResult(
        sql=sql,
        columns=columns,
        rows=[[jsonable(v) for v in row] for row in rows[:max_rows]],
        truncated=len(rows) > max_rows,
        row_limit=max_rows,
        seconds=round(time.perf_counter() - started, 3),
    )


# -- SQLite --------------------------------------------------------------------------

_SQLITE_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
_SQLITE_FORBIDDEN_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}


def _sqlite_authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _trigger: str | None) -> int:
    if action not in _SQLITE_ALLOWED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _SQLITE_FORBIDDEN_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _sqlite(url: URL, sql: str, fetch: int, timeout_s: float) -> tuple[list[str], list[tuple]]:
    path = _database_file(url)
    # A URI with mode=ro: SQLite refuses every write and never creates the file.
    connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=timeout_s)
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.set_authorizer(_sqlite_authorizer)
        deadline = time.monotonic() + timeout_s
        connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            cursor = connection.execute(sql)
            rows = cursor.fetchmany(fetch)
        except (sqlite3.Error, sqlite3.Warning) as error:
            timed_out = time.monotonic() > deadline
            raise _failed(error, timed_out, timeout_s) from None
        return [d[0] for d in cursor.description or ()], rows
    finally:
        connection.close()


# -- DuckDB --------------------------------------------------------------------------


def _duckdb(url: URL, sql: str, fetch: int, timeout_s: float) -> tuple[list[str], list[tuple]]:
    import duckdb

    path = _database_file(url)
    config = {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "lock_configuration": True,
        "memory_limit": "1GB",
        "threads": 1,
    }
    try:
        connection = duckdb.connect(str(path), read_only=True, config=config)
    except duckdb.Error as error:
        raise QueryFailed(f"Cannot open {path} read-only: {first_line(error)}", hint=_FILE_HINT) from None
    timer = threading.Timer(timeout_s, connection.interrupt)
    timer.start()
    try:
        cursor = connection.execute(sql)
        return [d[0] for d in cursor.description or ()], cursor.fetchmany(fetch)
    except duckdb.Error as error:
        raise _failed(error, isinstance(error, duckdb.InterruptException), timeout_s) from None
    finally:
        timer.cancel()
        connection.close()


# -- PostgreSQL ----------------------------------------------------------------------


def _postgres(url: URL, sql: str, fetch: int, timeout_s: float) -> tuple[list[str], list[tuple]]:
    from sqlalchemy import create_engine
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.pool import NullPool

    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg2")
    if url.get_driver_name() != "psycopg2":
        raise QueryRefused(f"Read-only execution on PostgreSQL uses psycopg2, not {url.get_driver_name()}.",
                           hint="Write the URL as postgresql:// or postgresql+psycopg2://.")  # fmt: skip
    timeout_ms = max(1, int(timeout_s * 1000))
    options = (
        f"-c default_transaction_read_only=on -c statement_timeout={timeout_ms} "
        f"-c idle_in_transaction_session_timeout={timeout_ms * 2}"
    )
    engine = create_engine(
        url, poolclass=NullPool, connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "options": options}
    )
    try:
        # The DBAPI connection itself: no parameter layer, so a % in the SQL stays a %.
        raw = engine.raw_connection()
    except SQLAlchemyError as error:
        raise _failed(RuntimeError(_pg_reason(error, url)), False, timeout_s) from None
    connection = raw.dbapi_connection
    try:
        with connection.cursor() as setup:
            setup.execute("SET TRANSACTION READ ONLY")
        # A named cursor is DECLARE ... CURSOR FOR <sql> on the server, which accepts a
        # query and nothing else, and sends rows in batches rather than all at once.
        with connection.cursor(name=f"schema_search_{uuid.uuid4().hex[:12]}") as cursor:
            cursor.itersize = fetch
            cursor.execute(sql)
            rows = [tuple(row) for row in cursor.fetchmany(fetch)]
            return [d[0] for d in cursor.description or ()], rows
    except engine.dialect.loaded_dbapi.Error as error:
        reason = _pg_reason(error, url)
        raise _failed(RuntimeError(reason), "statement timeout" in reason, timeout_s) from None
    finally:
        with contextlib.suppress(engine.dialect.loaded_dbapi.Error):  # a dropped connection has nothing to undo
            connection.rollback()
        raw.close()
        engine.dispose()


def _pg_reason(error: BaseException, url: URL) -> str:
    reason = first_line(getattr(error, "orig", None) or error)
    return reason.replace(url.password, "***") if url.password else reason


_RUNNERS: dict[str, Callable[[URL, str, int, float], tuple[list[str], list[tuple]]]] = {
    "sqlite": _sqlite,
    "duckdb": _duckdb,
    "postgres": _postgres,
}

# -- helpers -------------------------------------------------------------------------

_FILE_HINT = "Check the path in the URL: sqlite:///relative/path or sqlite:////absolute/path (four slashes)."


def _url(url: str) -> URL:
    try:
        return make_url(url)
    except ArgumentError:
        raise QueryRefused(
            "The database URL is not a SQLAlchemy URL.", hint="Write it as dialect://..., e.g. sqlite:///shop.db."
        ) from None


def _database_file(url: URL) -> Path:
    database = (url.database or "").removeprefix("file:")
    if database in ("", ":memory:"):
        raise QueryRefused("An in-memory database has no tables to query.", hint="Point the URL at a database file.")
    path = Path(database).expanduser().resolve()
    if not path.is_file():
        raise QueryFailed(f"Database file {path} does not exist.", hint=_FILE_HINT)
    return path


def _failed(error: BaseException, timed_out: bool, timeout_s: float) -> QueryFailed:
    if timed_out:
        return QueryFailed(
            f"The query ran longer than {timeout_s:g} s and was stopped.",
            hint="Narrow it (filters, LIMIT), or raise SCHEMA_SEARCH_EXECUTE_TIMEOUT_S.",
        )
    return QueryFailed(f"The database refused the query: {first_line(error)}", hint="Fix the SQL and try again.")



def jsonable(value: Any) -> Any:
    """A value as JSON can carry it: exact decimals as text, dates as ISO 8601.

    >>> jsonable(decimal.Decimal("1.10")), jsonable(datetime.date(2024, 1, 31)), jsonable(b"ab")
    ('1.10', '2024-01-31', '0x6162')
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)
