"""SQLite, read-only: the file opened ``mode=ro`` with ``PRAGMA query_only``, an authorizer that
allows reading and nothing else (no ATTACH, PRAGMA, writes, file or extension functions), a
progress handler for the time limit, and a cap on the length of any one value
(``randomblob(1000000000)`` is refused at once instead of allocating a gigabyte in one VM step).
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote

from ..errors import QueryStopped
from .engines import Limits, batches, refused

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


def run(target: dict, sql: str, limits: Limits, _request: dict) -> tuple[list[str], list[list[Any]]]:
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
            rows = limits.collect(batches(cursor.fetchmany))
        except (sqlite3.Error, sqlite3.Warning) as error:
            if limits.timed_out():
                raise limits.stopped() from None
            if "too big" in str(error):
                raise QueryStopped(
                    f"The query built a value longer than {limits.max_bytes:,} bytes and was stopped.",
                    hint="Select shorter values.",
                ) from None
            raise refused(error) from None
        return [d[0] for d in cursor.description or ()], rows
    finally:
        connection.close()
