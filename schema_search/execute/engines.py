"""The database side of read-only execution; runs in the sandbox's child process.

Each engine is opened so that it cannot write, runs exactly one statement per call
whatever validation let through (SQLite's ``execute``, DuckDB's parsed statements,
PostgreSQL's extended protocol all refuse a second one), and is stopped at the time
limit by its own means; the parent kills the child for what those cannot reach.

* SQLite: the file opened with ``mode=ro``, ``PRAGMA query_only``, an authorizer that
  allows reading and nothing else (no ATTACH, PRAGMA, writes), a progress handler for
  the time limit, and a cap on the length of any one value (``randomblob(1000000000)``
  is refused at once instead of allocating a gigabyte in one VM step).
* DuckDB: ``read_only=True`` with external access, extension loading and further
  configuration switched off (``read_only`` alone still reads files and runs
  ``COPY ... TO``), no spill files, a memory limit, and a timer that interrupts.
* PostgreSQL: the role checked first (:mod:`.pg_role`), a ``READ ONLY`` transaction
  that is always rolled back, ``statement_timeout`` and a client-side cancel at the
  deadline (a planted function can set the timeout to 0; a cancel reaches it anyway),
  only ``pg_catalog`` on the search path (tables arrive schema-qualified), and a
  cursor fetched in batches until the row or byte limit.

Rows come back JSON-friendly and counted in bytes: past ``max_bytes`` the query is
stopped instead of growing the child's memory and the reply.
"""

from __future__ import annotations

import datetime
import decimal
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

from ..errors import QueryFailed, QueryStopped, first_line, ran_too_long

CONNECT_TIMEOUT_S = 10
_BATCH = 100


def serve(request: dict, _state: dict) -> dict:
    """The sandbox request ``schema_search.execute.engines:serve``: run one statement and return its rows."""
    target = request["target"]
    limits = _Limits(request["max_rows"], request["max_bytes"], request["timeout_s"])
    warnings: list[str] = []
    columns, rows = _RUNNERS[target["dialect"]](target, request["sql"], limits, {**request, "warnings": warnings})
    return {
        "columns": columns,
        "rows": rows[: limits.max_rows],
        "truncated": len(rows) > limits.max_rows,
        "warnings": warnings,
    }


class _Limits:
    """Rows (one past the cap, to tell truncation), bytes and time for one query."""

    def __init__(self, max_rows: int, max_bytes: int, timeout_s: float) -> None:
        self.max_rows, self.max_bytes, self.timeout_s = max_rows, max_bytes, timeout_s
        self.deadline = time.monotonic() + timeout_s

    def collect(self, batches: Iterator[list[tuple]]) -> list[list[Any]]:
        """Rows from ``batches`` until one past the row cap; past the byte cap, the query is stopped."""
        rows: list[list[Any]] = []
        size = 0
        for batch in batches:
            for row in batch:
                values = [jsonable(v) for v in row]
                size += sum(_size(v) for v in values)
                if size > self.max_bytes:
                    raise QueryStopped(
                        f"The result is larger than {self.max_bytes:,} bytes and was stopped.",
                        hint="Select fewer or shorter columns, add a LIMIT, or aggregate.",
                    )
                rows.append(values)
                if len(rows) > self.max_rows:
                    return rows
        return rows

    def timed_out(self) -> bool:
        return time.monotonic() > self.deadline

    def stopped(self) -> QueryStopped:
        return ran_too_long(self.timeout_s, "Narrow it (filters, LIMIT), or raise SCHEMA_SEARCH_EXECUTE_TIMEOUT_S.")


def _size(value: Any) -> int:
    """About how many bytes a JSON-friendly value takes; lists and objects by their contents."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return 2 + sum(_size(v) for v in value)
    if isinstance(value, dict):
        return 2 + sum(len(k) + _size(v) for k, v in value.items())
    return 8


def _batches(fetch: Callable[[int], list[tuple]]) -> Iterator[list[tuple]]:
    while batch := fetch(_BATCH):
        yield batch


# -- SQLite --------------------------------------------------------------------------

_SQLITE_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
# printf/format too, as validation refuses them: a width of a billion asks for a gigabyte in one
# call, which ends as an error or, when the allocation fails under the child's memory cap, a
# silent NULL after seconds, depending on how much of the cap is in use.
_SQLITE_FORBIDDEN_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "printf", "format"}


def _sqlite_authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _trigger: str | None) -> int:
    if action not in _SQLITE_ALLOWED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _SQLITE_FORBIDDEN_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _sqlite(target: dict, sql: str, limits: _Limits, _request: dict) -> tuple[list[str], list[list[Any]]]:
    path = target["path"]
    # A URI with mode=ro: SQLite refuses every write and never creates the file.
    connection = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=limits.timeout_s)
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.set_authorizer(_sqlite_authorizer)
        # One value may not exceed the result's byte cap: the engine refuses to build it.
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, min(limits.max_bytes, 1_000_000_000))
        connection.set_progress_handler(lambda: int(limits.timed_out()), 10_000)
        try:
            cursor = connection.execute(sql)  # refuses a second statement ("one statement at a time")
            rows = limits.collect(_batches(cursor.fetchmany))
        except (sqlite3.Error, sqlite3.Warning) as error:
            if limits.timed_out():
                raise limits.stopped() from None
            if "too big" in str(error):
                raise QueryStopped(
                    f"The query built a value longer than {limits.max_bytes:,} bytes and was stopped.",
                    hint="Select shorter values.",
                ) from None
            raise _refused(error) from None
        return [d[0] for d in cursor.description or ()], rows
    finally:
        connection.close()


# -- DuckDB --------------------------------------------------------------------------


def _duckdb(target: dict, sql: str, limits: _Limits, request: dict) -> tuple[list[str], list[list[Any]]]:
    import duckdb

    path = target["path"]
    config = {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "lock_configuration": True,
        "memory_limit": f"{max(64, request['memory_mb'] // 2)}MB",  # half the child's cap: the rest is Python's
        "temp_directory": "",  # no spill files beside the database
        "threads": 1,
    }
    try:
        connection = duckdb.connect(path, read_only=True, config=config)
    except duckdb.Error as error:
        raise QueryFailed(
            f"Cannot open {path} read-only: {first_line(error)}", hint="Check the path in the URL."
        ) from None
    timer = threading.Timer(limits.timeout_s, connection.interrupt)
    timer.start()
    try:
        statements = duckdb.extract_statements(sql)  # DuckDB's execute would run every one of several
        # Refusals here are the engine layer's (QueryFailed), as SQLite's and PostgreSQL's are.
        if len(statements) != 1:
            raise QueryFailed(f"Exactly one statement may run; found {len(statements)}.", hint="Send one query.")
        if statements[0].type != duckdb.StatementType.SELECT:
            raise QueryFailed(f"Only a query may run; found {statements[0].type.name}.", hint="Send one SELECT.")
        cursor = connection.execute(statements[0])
        return [d[0] for d in cursor.description or ()], limits.collect(_batches(cursor.fetchmany))
    except duckdb.Error as error:
        if isinstance(error, duckdb.InterruptException) or limits.timed_out():
            raise limits.stopped() from None
        if isinstance(error, duckdb.OutOfMemoryException):
            raise QueryStopped(
                f"The query was stopped: it needed more memory than a query may ({first_line(error)}).",
                hint="Narrow it: filter first, select fewer values.",
            ) from None
        raise _refused(error) from None
    finally:
        timer.cancel()
        connection.close()


# -- PostgreSQL ----------------------------------------------------------------------


def _postgres(target: dict, sql: str, limits: _Limits, request: dict) -> tuple[list[str], list[list[Any]]]:
    import psycopg

    from . import pg_role

    timeout_ms = max(1, int(limits.timeout_s * 1000))
    options = (
        f"-c default_transaction_read_only=on -c statement_timeout={timeout_ms} -c lock_timeout={timeout_ms} "
        f"-c idle_in_transaction_session_timeout={timeout_ms * 2 + 10_000} "
        # Functions, operators and types resolve in pg_catalog only: one planted in
        # another schema cannot shadow a built-in (tables arrive schema-qualified).
        "-c search_path=pg_catalog,pg_temp"
    )
    params = dict(target["params"])
    # The URL's own options (a pooler's endpoint id, say) come first; ours are applied after.
    options = f"{params.pop('options', '')} {options}".strip()
    connect_timeout = min(int(params.pop("connect_timeout", CONNECT_TIMEOUT_S) or CONNECT_TIMEOUT_S), CONNECT_TIMEOUT_S)
    try:
        connection = psycopg.connect(**params, connect_timeout=connect_timeout, options=options)
    except psycopg.Error as error:
        raise QueryFailed(
            f"Cannot connect: {_pg_reason(error, target)}", hint="Check the URL, user and password."
        ) from None
    except (TypeError, ValueError) as error:  # a URL parameter libpq does not take
        raise QueryFailed(f"Cannot connect: {error}", hint="Check the parameters after '?' in the URL.") from None
    try:
        if connection.info.server_version >= 140000:
            # A query whose client is gone is ended within a second, not when it next sends a row.
            connection.execute("SET client_connection_check_interval = 1000")
        with connection.cursor() as cursor:
            request["warnings"] += pg_role.check(
                cursor, request["tables"], allow_privileged=request["allow_privileged"]
            )
        limits.deadline = time.monotonic() + limits.timeout_s  # the checks are not the query's time
        timer = threading.Timer(limits.timeout_s, connection.cancel_safe)
        timer.start()
        try:
            with connection.cursor() as cursor:
                name = f"schema_search_{uuid.uuid4().hex[:12]}"
                # prepare=True: the extended protocol, whose Parse refuses more than one statement.
                cursor.execute(f"DECLARE {name} NO SCROLL CURSOR FOR {sql}", prepare=True)
                columns: list[str] = []

                def fetch(n: int) -> list[tuple]:
                    if limits.timed_out():  # each FETCH gets a fresh statement_timeout; the deadline is one
                        raise limits.stopped()
                    cursor.execute(f"FETCH FORWARD {n} FROM {name}")
                    columns[:] = [d.name for d in cursor.description or ()]
                    return cursor.fetchall()

                rows = limits.collect(_batches(fetch))
                return columns, rows
        finally:
            timer.cancel()
    except psycopg.Error as error:
        if isinstance(error, psycopg.errors.QueryCanceled) or limits.timed_out():
            raise limits.stopped() from None
        raise QueryFailed(
            f"The database refused the query: {_pg_reason(error, target)}", hint="Fix the SQL and try again."
        ) from None
    finally:
        try:
            connection.rollback()
        except psycopg.Error:  # a dropped connection has nothing to undo
            pass
        connection.close()


def _pg_reason(error: BaseException, target: dict) -> str:
    """The server's first line about ``error``. libpq does not echo passwords; a long one is
    masked should it appear anyway (masking a short one would show where its letters stand)."""
    reason = first_line(error)
    password = target["params"].get("password")
    return reason.replace(password, "***") if password and len(password) >= 8 else reason


_RUNNERS: dict[str, Callable[[dict, str, _Limits, dict], tuple[list[str], list[list[Any]]]]] = {
    "sqlite": _sqlite,
    "duckdb": _duckdb,
    "postgres": _postgres,
}


def _refused(error: BaseException) -> QueryFailed:
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
