"""Run one validated query against a catalog's database, read-only, with limits that hold.

Layers, so that no one of them has to be perfect:

1. :func:`execute_sql` runs only what :func:`~schema_search.sql.validate.validate_sql`
   accepts (one read-only query, known tables, built-in side-effect-free functions
   only), and runs the statement re-generated from its parse tree rather than the
   text it was given; on PostgreSQL with every table schema-qualified, so that only
   ``pg_catalog`` needs to be on the search path.
2. The statement runs in a child process (:mod:`schema_search.sandbox`) capped in
   memory and killed at the deadline, so no query can outlive its time limit by more
   than a moment or take the serving process down with it.
3. There, each engine is opened so that it cannot write and runs one statement only
   (:mod:`.engines`); PostgreSQL's role and the functions its views call are checked
   first (:mod:`.pg_role`).

Other databases are refused rather than run with weaker guarantees.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field

from ..errors import QueryRefused
from ..sandbox import GRACE_S, Stopped, raise_reply, shared_child
from ..sql.validate import Validation, qualified_sql, validate_sql
from ..tables.catalog import Catalog
from .target import dialect_of, target

# Seconds a PostgreSQL query may spend connecting and checking its role, beyond its own limit.
CONNECT_ALLOWANCE_S = 12
# What the query process imports when it starts, on its own deadline rather than the first query's.
WARM = (
    "schema_search.execute.engines",
    "schema_search.execute.on_sqlite",
    "schema_search.execute.on_duckdb",
    "schema_search.execute.on_postgres",
    "schema_search.execute.pg_guard",
    "duckdb",
    "psycopg",
)
_TIME_HINT = "Narrow it (filters, LIMIT), or raise SCHEMA_SEARCH_EXECUTE_TIMEOUT_S."
# Defaults of the limits for callers that do not pass settings (tests, scripts).
DEFAULT_MAX_BYTES = 10_000_000
DEFAULT_MEMORY_MB = 2048


class QueryResult(BaseModel):
    sql: str = Field(description="The statement that ran (re-generated from its parse tree).")
    columns: list[str]
    rows: list[list[Any]] = Field(description="At most `row_limit` rows; values made JSON-friendly.")
    truncated: bool = Field(description="True when the query had more rows than `row_limit`.")
    row_limit: int
    seconds: float
    warnings: list[str] = Field(
        default_factory=list, description="What the operator should know, e.g. a role that could write."
    )


def execute_sql(
    url: str,
    sql: str,
    catalog: Catalog,
    *,
    max_rows: int,
    timeout_s: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
    memory_mb: int = DEFAULT_MEMORY_MB,
    allow_privileged: bool = False,
    trusted_objects: tuple[str, ...] = (),
) -> QueryResult:
    """Validate ``sql`` against ``catalog`` and run it read-only against ``url``.

    Raises:
        QueryRefused: the SQL failed validation, or the database kind is unsupported.
        RoleRefused: (PostgreSQL) the role could change something.
        QueryStopped: a limit stopped the query (time, memory, result bytes).
        QueryFailed: the database refused or failed the query.
    """
    validation = validate_sql(sql, dialect_of(url), catalog)
    return run_validated(
        url,
        validation,
        catalog,
        max_rows=max_rows,
        timeout_s=timeout_s,
        max_bytes=max_bytes,
        memory_mb=memory_mb,
        allow_privileged=allow_privileged,
        trusted_objects=trusted_objects,
    )


def run_validated(
    url: str,
    validation: Validation,
    catalog: Catalog,
    *,
    max_rows: int,
    timeout_s: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
    memory_mb: int = DEFAULT_MEMORY_MB,
    allow_privileged: bool = False,
    trusted_objects: tuple[str, ...] = (),
) -> QueryResult:
    """Run what ``validation`` checked (against ``catalog``, in ``url``'s dialect), read-only.

    Raises:
        QueryRefused: the validation refused the SQL, or was made for another dialect.
        and what :func:`execute_sql` raises.
    """
    dialect = dialect_of(url)
    if not validation.ok or validation.parsed is None:
        raise QueryRefused(f"Refusing to run this SQL: {validation.problems()}", hint="Fix it and validate again.")
    if validation.dialect != dialect:
        raise QueryRefused(
            f"The SQL was checked as {validation.dialect or 'generic SQL'}, but the database speaks {dialect}.",
            hint="Validate it again for this database.",
        )
    statement = qualified_sql(validation.parsed) if dialect == "postgres" else validation.sql
    tables = [(t.schema, t.name) for t in map(catalog.table, validation.tables) if t is not None]
    result = run_read_only(
        url,
        statement,
        max_rows=max_rows,
        timeout_s=timeout_s,
        max_bytes=max_bytes,
        memory_mb=memory_mb,
        allow_privileged=allow_privileged,
        trusted_objects=trusted_objects,
        tables=tables,
    )
    return result.model_copy(update={"sql": validation.sql})


def run_read_only(
    url: str,
    sql: str,
    *,
    max_rows: int,
    timeout_s: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
    memory_mb: int = DEFAULT_MEMORY_MB,
    allow_privileged: bool = False,
    trusted_objects: tuple[str, ...] = (),
    tables: list[tuple[str, str]] | None = None,
) -> QueryResult:
    """Run ``sql`` in the sandbox's child on a connection that cannot write. Does not validate:
    see :func:`execute_sql`; the engines still refuse writes and more than one statement.

    ``tables`` are the (schema, table) pairs the query reads, for PostgreSQL's check of
    the functions their views call.
    """
    dialect = dialect_of(url)
    request = {
        "op": "schema_search.execute.engines:serve",
        "target": target(url),
        "sql": sql,
        "max_rows": max_rows,
        "max_bytes": max_bytes,
        "timeout_s": timeout_s,
        "memory_mb": memory_mb,
        "allow_privileged": allow_privileged,
        "trusted_objects": list(trusted_objects),
        "tables": tables or [],
    }
    limit_s = timeout_s + GRACE_S + (CONNECT_ALLOWANCE_S if dialect == "postgres" else 0)
    child = shared_child("database", memory_mb * 2**20, warm=WARM)
    started = time.perf_counter()
    with child.lock:
        try:
            reply = child.call(request, limit_s=limit_s)
        except Stopped as stopped:
            raise stopped.as_query_error(
                timeout_s,
                time_hint=_TIME_HINT,
                memory_hint=(
                    "Narrow it: select fewer or shorter values, filter first; or raise SCHEMA_SEARCH_EXECUTE_PROCESS_MEMORY_MB."
                ),
            ) from None
    raise_reply(reply)
    return QueryResult(
        sql=sql,
        columns=reply["columns"],
        rows=reply["rows"],
        truncated=reply["truncated"],
        row_limit=max_rows,
        seconds=round(time.perf_counter() - started, 3),
        warnings=reply["warnings"],
    )
