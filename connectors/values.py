"""Value hints: a bounded, read-only sample of the distinct values of short text columns.

A question that names a stored value ("contacts of xmagnet", "tickets with priority
urgent") names no table or column; the values are what tie it to ``accounts.name``
or ``tickets.priority``. CodeS and CHESS index cell values for that; this module
takes a small sample of them while a live database is introspected, to be indexed
as the tables' ``values`` field.

Bounded every way, since it reads rows of a database someone else runs:

* only columns whose type is text and whose name is not a secret's or personal
  data's (:mod:`.sensitive`); a column whose sampled values look like one is
  dropped whole;
* one query per table, over its first ``max_rows`` rows (a ``LIMIT`` subquery), each
  value cut to ``max_chars + 1`` characters by the database; longer values are free
  text, not hints, and a column made mostly of them is dropped;
* at most ``max_values`` distinct values per column, the most frequent first;
* nothing a view could reach beyond its rows: on PostgreSQL a table whose reading
  calls a function that is not a side-effect-free built-in (a view's, a row-level
  policy's) or reaches a foreign table is skipped, as ``ask --execute`` refuses it; on
  DuckDB files, URLs and extensions are switched off; SQLite caps the length of a value;
* a time limit per query, enforced by the database (PostgreSQL ``statement_timeout``
  in the transaction, a SQLite progress handler, a DuckDB interrupt), and a budget for
  the whole catalog; a table that runs out of time is skipped with a warning that
  names the table. Other databases are not sampled: nothing here could stop a slow
  query on them.

Values never appear in a warning, message or log: only table names, counts and seconds
do, and the rows are fetched over the driver's connection, out of SQLAlchemy's logging.
That connection is a read-only one from :func:`.sqlalchemy_url.read_only_engine`.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Dialect, Engine, PoolProxiedConnection, column, func, select, table

from ..core.build import Progress
from ..errors import QueryRefused

# The checks read-only execution makes on PostgreSQL before a query (the role, the
# functions a view calls) are made before values are sampled too.
from ..execute import pg_guard, pg_role
from ..tables.catalog import Column, Table
from . import sensitive

_TEXT_TYPE = re.compile(r"char|text|string|clob|enum", re.I)
# Not text however the type name reads: documents, arrays, nested DuckDB types
# (``STRUCT(a VARCHAR)``, ``MAP(VARCHAR, INT)``), binary data.
_NOT_TEXT = re.compile(r"json|xml|tsvector|tsquery|\[\]|array|struct|map\s*\(|union\s*\(|bytea|blob|binary|uuid", re.I)
SUPPORTED = ("sqlite", "postgresql", "duckdb")
# A column is free text, not a list of names or codes, when most of its values are too long.
_LONG_SHARE = 0.5
# SQLite runs the progress handler every this many virtual-machine steps.
_SQLITE_STEPS = 1000
# Longest string or blob SQLite may build while sampling: far past any hint, far below memory.
_SQLITE_MAX_LENGTH = 10_000_000
_DUCKDB_LOCKED = ("enable_external_access", "autoinstall_known_extensions", "autoload_known_extensions")


@dataclass(frozen=True)
class ValueHints:
    """How much to sample; the settings' ``value_hints_*`` fields, passed down.

    Attributes:
        max_rows: rows read per table (the first ones the database returns).
        max_values: distinct values kept per column, the most frequent first.
        max_chars: longest value kept; longer ones are free text.
        timeout_s: longest one table's query may run.
        budget_s: longest all the catalog's queries together may run.
        allow_contacts: sample e-mail addresses and phone numbers too (secrets never).
    """

    max_rows: int = 1000
    max_values: int = 50
    max_chars: int = 40
    timeout_s: float = 2.0
    budget_s: float = 30.0
    allow_contacts: bool = False

    @property
    def allowed(self) -> frozenset[str | None]:
        """The kinds of column and value (``sensitive``) that may be sampled."""
        return frozenset({None, sensitive.CONTACT} if self.allow_contacts else {None})


def sample_values(
    engine: Engine,
    tables: Sequence[Table],
    hints: ValueHints,
    progress: Progress | None = None,
    trusted_objects: tuple[str, ...] = (),
) -> tuple[list[Table], list[str]]:
    """``tables`` with the sampled values on their columns, and warnings (table names, never values).

    Tables of a database this module cannot time-limit come back as they were. ``trusted_objects``:
    PostgreSQL code that is not built in but may run (:mod:`~schema_search.execute.pg_guard`).
    """
    if engine.dialect.name not in SUPPORTED:
        return list(tables), []
    try:
        return _sample(engine, tables, hints, progress, trusted_objects)
    except Exception as error:  # noqa: BLE001 - hints are extra: indexing goes on without them
        # A driver that lacks what the lock-down needs (a SQLite build without
        # ``setlimit``), a setting the server refuses: the catalog is still indexed.
        # The message is left out: a driver's message can quote a value.
        return list(tables), [
            f"Value hints: none sampled: the database could not be read for them ({type(error).__name__})."
        ]


def _sample(
    engine: Engine, tables: Sequence[Table], hints: ValueHints, progress: Progress | None, trusted: tuple[str, ...]
) -> tuple[list[Table], list[str]]:
    deadline = time.monotonic() + hints.budget_s
    out, warnings, unsampled = [], [], 0
    # The driver's own connection, not SQLAlchemy's: with its engine logging on at DEBUG
    # (``echo="debug"``, or the ``sqlalchemy.engine`` logger), SQLAlchemy logs every row
    # it fetches, and these rows must never reach a log.
    with closing(engine.raw_connection()) as connection, _locked_down(connection, engine.dialect.name):
        for table_ in progress(tables, "sampling values") if progress else tables:
            chosen = sampled_columns(table_, hints)
            left = deadline - time.monotonic()
            if not chosen or left <= 0:
                unsampled += bool(chosen)
                out.append(table_)
                continue
            limit = min(hints.timeout_s, left)
            started = time.monotonic()
            try:
                sql = _query(table_, chosen, hints, engine.dialect)
                rows = _read(connection, engine.dialect, table_, sql, limit, trusted)
            except QueryRefused:
                warnings.append(
                    f"Value hints: skipped {table_.schema}.{table_.name}: reading it runs code that is not a "
                    "side-effect-free built-in, reaches another server, or grows too large through its views."
                )
                out.append(table_)
                continue
            except engine.dialect.loaded_dbapi.Error as error:
                warnings.append(_skipped(table_, error, limit, time.monotonic() - started))
                out.append(table_)
                continue
            sampled = {c.name: kept_values([row[i] for row in rows], hints) for i, c in enumerate(chosen)}
            out.append(with_values(table_, sampled))
    if unsampled:
        warnings.append(
            f"Value hints: {unsampled} table{'s' if unsampled != 1 else ''} not sampled: the {hints.budget_s:g} s "
            "budget for the catalog ran out (SCHEMA_SEARCH_VALUE_HINTS_BUDGET_S)."
        )
    return out, warnings


def sampled_columns(table_: Table, hints: ValueHints) -> list[Column]:
    """The columns of ``table_`` worth sampling: text, and not named like a secret or personal data.

    >>> t = Table("crm", "accounts", columns=(Column("id", "INTEGER"), Column("name", "VARCHAR(80)"),
    ...     Column("email", "TEXT"), Column("password_hash", "TEXT"), Column("tags", "TEXT[]")))
    >>> [c.name for c in sampled_columns(t, ValueHints())]
    ['name']
    >>> [c.name for c in sampled_columns(t, ValueHints(allow_contacts=True))]
    ['name', 'email']
    """
    return [
        c
        for c in table_.columns
        if _TEXT_TYPE.search(c.type) and not _NOT_TEXT.search(c.type) and sensitive.column_kind(c.name) in hints.allowed
    ]


def kept_values(raw: Iterable[object], hints: ValueHints) -> tuple[str, ...]:
    """The hints one column's sampled values give: none when any of them is a secret or personal datum.

    >>> kept_values(["paid", "paid", "cancelled", None, " ", "delivered", "paid", "42"], ValueHints(max_values=2))
    ('paid', 'cancelled')
    >>> kept_values(["Ann", "ann@example.com"], ValueHints()), kept_values(["Ann", "ann@example.com"], ValueHints(allow_contacts=True))
    ((), ('Ann', 'ann@example.com'))
    >>> kept_values(["Ann", "$2b$12$abcdefghijklmnopqrstuv"], ValueHints(allow_contacts=True))
    ()
    >>> kept_values(["ok", "a long sentence of free text", "another long sentence"], ValueHints(max_chars=10))
    ()
    """
    # Line breaks and invisible characters: no name or code has them, and they would hide in a prompt.
    values = [v.strip() for v in raw if isinstance(v, str) and v.strip() and v.strip().isprintable()]
    if any(sensitive.value_kind(v) not in hints.allowed for v in values):
        return ()
    short = [v for v in values if len(v) <= hints.max_chars]
    if len(short) < len(values) * (1 - _LONG_SHARE):
        return ()
    # Values without a letter (numbers, codes of digits) match no question word usefully;
    # a phone number the operator opted in to is one to look up all the same.
    counts = Counter(v for v in short if any(c.isalpha() for c in v) or sensitive.value_kind(v) == sensitive.CONTACT)
    # Ties by value: rows come in no set order, and an unchanged table must give the same sample.
    ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0].casefold(), pair[0]))
    return tuple(v for v, _ in ranked[: hints.max_values])


def with_values(table_: Table, values: dict[str, tuple[str, ...]]) -> Table:
    """``table_`` with ``values`` (column name -> values) on its columns."""
    columns = tuple(replace(c, values=values[c.name]) if values.get(c.name) else c for c in table_.columns)
    return replace(table_, columns=columns)


def _query(table_: Table, chosen: list[Column], hints: ValueHints, dialect: Dialect) -> str:
    """SQL for the first ``max_rows`` rows of ``chosen``, each value cut to ``max_chars + 1`` characters.

    Its only literals are these two numbers, written inline: the statement goes to the
    driver as it is, with no parameters.
    """
    source = table(table_.name, *(column(c.name) for c in chosen), schema=table_.schema)
    first = select(*source.columns).limit(hints.max_rows).subquery("sample")
    query = select(*(func.substr(first.columns[c.name], 1, hints.max_chars + 1) for c in chosen))
    return str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


def _read(
    connection: PoolProxiedConnection,
    dialect: Dialect,
    table_: Table,
    sql: str,
    limit_s: float,
    trusted: tuple[str, ...] = (),
) -> list[tuple]:
    """Run ``sql`` within ``limit_s`` seconds and fetch its rows; always rolled back.

    Raises:
        QueryRefused: (PostgreSQL) reading ``table_`` would run code that is not a
            side-effect-free built-in, reach a foreign table, or grow too large through views.
    """
    cursor = connection.cursor()
    try:
        with _time_limit(connection, cursor, dialect.name, limit_s):
            if dialect.name == "postgresql":
                # A view runs its functions, a row-level policy its expression, as the role
                # that reads them, and a cast or operator may be one someone planted: the
                # checks ``ask --execute`` makes before any query.
                kinds = pg_role.check_tables(pg_guard.CheckedCursor(cursor, trusted), [(table_.schema, table_.name)])
                pg_guard.check(cursor.connection, sql, reads_views="v" in kinds, trusted=trusted)
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()]
    finally:
        cursor.close()
        if dialect.name != "duckdb":  # DuckDB's driver commits each statement: no transaction is open
            connection.rollback()  # nothing to keep (the session is read-only anyway), and none left open


@contextmanager
def _locked_down(connection: PoolProxiedConnection, dialect: str) -> Iterator[None]:
    """What a view could reach beyond its rows, switched off for the whole sample.

    DuckDB: files, URLs and extensions (a view can ``read_csv('/etc/passwd')``); the
    setting cannot be switched back on, and the engine is disposed after introspection.
    SQLite: a value longer than the cap is refused instead of allocated
    (``randomblob(1000000000)`` is one virtual-machine step, the progress handler never runs).
    """
    driver = connection.driver_connection
    if dialect == "duckdb":
        cursor = connection.cursor()
        for setting in _DUCKDB_LOCKED:
            cursor.execute(f"SET {setting} = false")
        cursor.close()
        yield
    elif dialect == "sqlite":
        previous = driver.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _SQLITE_MAX_LENGTH)
        try:
            yield
        finally:
            driver.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, previous)
    else:
        yield


@contextmanager
def _time_limit(connection: PoolProxiedConnection, cursor: Any, dialect: str, seconds: float) -> Iterator[None]:
    """Stop the statements run inside after ``seconds``, by the database's own means."""
    driver = connection.driver_connection
    if dialect == "postgresql":
        # SET LOCAL: the limit ends with the transaction; the session keeps its own.
        cursor.execute(f"SET LOCAL statement_timeout = {max(1, int(seconds * 1000))}")
        yield
    elif dialect == "sqlite":
        deadline = time.monotonic() + seconds
        driver.set_progress_handler(lambda: int(time.monotonic() > deadline), _SQLITE_STEPS)
        try:
            yield
        finally:
            driver.set_progress_handler(None, 0)
    else:  # duckdb
        timer = threading.Timer(seconds, driver.interrupt)
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


def _skipped(table_: Table, error: Exception, limit_s: float, elapsed_s: float) -> str:
    """The warning for a table whose sample failed. The driver's message is left out: it can quote a value."""
    where = f"{table_.schema}.{table_.name}"
    if elapsed_s >= limit_s * 0.9:
        return f"Value hints: skipped {where}: its sample took longer than {limit_s:g} s (SCHEMA_SEARCH_VALUE_HINTS_TIMEOUT_S)."
    return f"Value hints: skipped {where}: the database refused the sample query ({type(error).__name__})."
