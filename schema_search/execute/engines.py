"""The database side of read-only execution; runs in the sandbox's child process.

Each engine is opened so that it cannot write, runs exactly one statement per call
whatever validation let through (SQLite's ``execute``, DuckDB's parsed statements,
PostgreSQL's extended protocol all refuse a second one), and is stopped at the time
limit by its own means; the parent kills the child for what those cannot reach. One
module per engine: :mod:`.on_sqlite`, :mod:`.on_duckdb`, :mod:`.on_postgres`.

Rows come back JSON-friendly and counted in bytes: past ``max_bytes`` the query is
stopped instead of growing the child's memory and the reply.
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import QueryFailed, QueryStopped, first_line, ran_too_long

_BATCH = 100


def serve(request: dict, _state: dict) -> dict:
    """The sandbox request ``schema_search.execute.engines:serve``: run one statement and return its rows."""
    target = request["target"]
    limits = Limits(request["max_rows"], request["max_bytes"], request["timeout_s"])
    warnings: list[str] = []
    engine = importlib.import_module(f".{_ENGINES[target['dialect']]}", __package__)
    columns, rows = engine.run(target, request["sql"], limits, {**request, "warnings": warnings})
    return {
        "columns": columns,
        "rows": rows[: limits.max_rows],
        "truncated": len(rows) > limits.max_rows,
        "warnings": warnings,
    }


class Limits:
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


def batches(fetch: Callable[[int], list[tuple]]) -> Iterator[list[tuple]]:
    while batch := fetch(_BATCH):
        yield batch


# The engines, by dialect: each module's run(target, sql, limits, request) -> (columns, rows).
# Imported when a request names it, so a fresh child is ready at once.
_ENGINES = {"sqlite": "on_sqlite", "duckdb": "on_duckdb", "postgres": "on_postgres"}


def refused(error: BaseException) -> QueryFailed:
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
