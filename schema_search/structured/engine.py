"""Run checked SQL over a collection in a fresh in-memory DuckDB that can reach nothing else.

Each query gets its own database: the collection's tables are loaded into memory,
and the connection was opened with external access off (no file, no network, no
``ATTACH``/``COPY``/``INSTALL``), extension autoloading off, the configuration
locked (``SET`` cannot undo any of it), a memory limit and one thread. A timer
interrupts a query past the time limit. Nothing a query does outlives it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import duckdb

from ..errors import QueryFailed, first_line, ran_too_long
from .collection import Collection, Table


def _config(memory_limit: str) -> dict[str, Any]:
    return {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "lock_configuration": True,
        # No spill files: DuckDB would otherwise write them under the working directory (and let
        # queries read files there); a query that needs more than memory_limit fails instead.
        "temp_directory": "",
        "memory_limit": memory_limit,
        "threads": 1,
    }


def run(
    collection: Collection, sql: str, *, max_rows: int, timeout_s: float, memory_limit: str = "256MB"
) -> tuple[list[str], list[tuple], bool, float]:
    """Columns, at most ``max_rows`` rows, whether there were more, and the seconds it took.

    ``sql`` must already have passed :func:`~schema_search.structured.guard.checked_sql`.

    Raises:
        QueryFailed: DuckDB refused or failed the query, or it ran past ``timeout_s``.
    """
    started = time.perf_counter()
    connection = duckdb.connect(":memory:", config=_config(memory_limit))
    try:
        for table in collection.tables:
            load_table(connection, table)
        timer = threading.Timer(timeout_s, connection.interrupt)
        timer.start()
        try:
            cursor = connection.execute(sql)
            rows = cursor.fetchmany(max_rows + 1)
        except duckdb.InterruptException:
            raise ran_too_long(
                timeout_s, "Narrow it: avoid joining the table to itself; filter first, or add a LIMIT."
            ) from None
        except duckdb.Error as error:
            raise QueryFailed(f"The query failed: {first_line(error)}", hint="Fix the SQL and try again.") from None
        finally:
            timer.cancel()
        columns = [d[0] for d in cursor.description or ()]
        return columns, rows[:max_rows], len(rows) > max_rows, round(time.perf_counter() - started, 4)
    finally:
        connection.close()


def load_table(connection: duckdb.DuckDBPyConnection, table: Table) -> None:
    """Create ``table`` and fill it in one statement: each column passed whole, as a list parameter."""
    names = ", ".join(f'"{c.name}" {c.sql_type}' for c in table.columns)
    connection.execute(f'CREATE TABLE "{table.name}" ({names})')
    if not table.rows:
        return
    columns = ", ".join(f"unnest(${i}::{c.sql_type}[])" for i, c in enumerate(table.columns, 1))
    connection.execute(f'INSERT INTO "{table.name}" SELECT {columns}', [list(v) for v in table.values])
