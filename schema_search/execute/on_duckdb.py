"""DuckDB, read-only: ``read_only=True`` with external access, extension loading and further
configuration switched off (``read_only`` alone still reads files and runs ``COPY ... TO``), no
spill files, a memory limit, and a timer that interrupts.

A database file can define macros, and a macro named like a built-in shadows it: with
``CREATE MACRO reverse(x) AS (SELECT ... FROM duckdb_settings())`` in the file,
``SELECT reverse(name) FROM customers`` returned the engine's settings. So before a query runs,
the functions it calls, and those of every view it reads, are read off DuckDB's own parse
(``json_serialize_sql``: parsed, not run), and a call to a function the file defines is refused.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from ..errors import QueryFailed, QueryRefused, QueryStopped, first_line
from .engines import Limits, batches, refused


def run(target: dict, sql: str, limits: Limits, request: dict) -> tuple[list[str], list[list[Any]]]:
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
        shadowed = defined_functions_called(connection, sql)
        if shadowed:
            raise QueryRefused(
                f"The database file defines {', '.join(f'{name}()' for name in shadowed)}, which this query would "
                "call instead of DuckDB's own: a function defined in the file can read what the query may not.",
                hint="Ask the operator to drop those macros from the file, or write the query without them.",
            )
        cursor = connection.execute(statements[0])
        return [d[0] for d in cursor.description or ()], limits.collect(batches(cursor.fetchmany))
    except duckdb.Error as error:
        if isinstance(error, duckdb.InterruptException) or limits.timed_out():
            raise limits.stopped() from None
        if isinstance(error, duckdb.OutOfMemoryException):
            raise QueryStopped(
                f"The query was stopped: it needed more memory than a query may ({first_line(error)}).",
                hint="Narrow it: filter first, select fewer values.",
            ) from None
        raise refused(error) from None
    finally:
        timer.cancel()
        connection.close()


def defined_functions_called(connection: Any, sql: str) -> list[str]:
    """The functions (macros) the database file defines that ``sql`` calls, itself or through its views.

    Raises:
        QueryRefused: DuckDB cannot parse a statement it would run (refused rather than unchecked).
    """
    defined = {
        name.lower()
        for (name,) in connection.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() WHERE NOT internal"
            " AND database_name NOT IN ('system', 'temp')"
        ).fetchall()
    }
    if not defined:
        return []
    views = {
        (schema.lower(), name.lower()): text
        for schema, name, text in connection.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
    }
    called: set[str] = set()
    pending, read = [sql], set()
    while pending:
        found = json.loads(connection.execute("SELECT json_serialize_sql(?)", [pending.pop()]).fetchone()[0])
        if found.get("error"):
            raise QueryRefused(f"DuckDB cannot parse the query: {found.get('error_message')}", hint="Fix the SQL.")
        for node in _nodes(found):
            # system.main.fn() is DuckDB's own, whatever the file defines
            if node.get("type") == "FUNCTION" and str(node.get("catalog") or "").lower() != "system":
                name = str(node.get("function_name", "")).lower()
                if name in defined:
                    called.add(name)
            elif node.get("type") == "BASE_TABLE":
                key = (str(node.get("schema_name") or "main").lower(), str(node.get("table_name", "")).lower())
                if key in views and key not in read:
                    read.add(key)
                    pending.append(_view_query(views[key]))
    return sorted(called)


def _view_query(create: str) -> str:
    """The query of a ``CREATE VIEW ... AS query`` statement, as DuckDB stores a view's SQL.

    Only a file that defines functions gets here, so sqlglot is imported here, not when the child starts.
    """
    import sqlglot

    tree = sqlglot.parse_one(create, read="duckdb")
    query = tree.expression if isinstance(tree, sqlglot.exp.Create) else None
    if query is None:
        raise QueryRefused("A view of the database file cannot be read for the functions it calls.", hint="")
    return query.sql(dialect="duckdb")


def _nodes(tree: Any) -> Iterator[dict]:
    """Every object of a parsed statement's JSON, depth first, without recursion."""
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
