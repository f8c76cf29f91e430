"""Run one validated query against a catalog's database, read-only, with limits that hold.

Layers, so that no one of them has to be perfect:

1. :func:`execute_sql` runs only what :func:`~schema_search.agent.sqlcheck.validate_sql`
   accepts (one read-only query, known tables, built-in side-effect-free functions
   only), and runs the statement re-generated from its parse tree rather than the
   text it was given; on PostgreSQL with every table schema-qualified, so that only
   ``pg_catalog`` needs to be on the search path.
2. The statement runs in a child process (:mod:`.sandbox`) capped in memory and killed
   at the deadline, so no query can outlive its time limit by more than a moment or
   take the serving process down with it.
3. There, each engine is opened so that it cannot write and runs one statement only
   (:mod:`.engines`); PostgreSQL's role and the functions its views call are checked
   first (:mod:`.pg_role`).

Other databases are refused rather than run with weaker guarantees.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError

from ..errors import SchemaSearchError
from ..tables.catalog import Catalog
# Re-exported: callers catch them from here (RoleRefused is raised in the sandbox's child).
from .query_errors import QueryFailed, QueryRefused, QueryStopped, RoleRefused  # noqa: F401
from .sqlcheck import Validation, schema_qualified, validate_sql

# Seconds a PostgreSQL query may spend connecting and checking its role, beyond its own limit.
CONNECT_ALLOWANCE_S = 12
_TIME_HINT = "Narrow it (filters, LIMIT), or raise SCHEMA_SEARCH_EXECUTE_TIMEOUT_S."
# Defaults of the limits for callers that do not pass settings (tests, scripts).
DEFAULT_MAX_BYTES = 10_000_000
DEFAULT_MEMORY_MB = 2048
_DIALECTS = {"sqlite": "sqlite", "duckdb": "duckdb", "postgresql": "postgres"}


class QueryResult(BaseModel):
    sql: str = Field(description="The statement that ran (re-generated from its parse tree).")
    columns: list[str]
    rows: list[list[Any]] = Field(description="At most `row_limit` rows; values made JSON-friendly.")
    truncated: bool = Field(description="True when the query had more rows than `row_limit`.")
    row_limit: int
    seconds: float
    warnings: list[str] = Field(default_factory=list, description="What the operator should know, e.g. a role that could write.")


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
) -> QueryResult:
    """Validate ``sql`` against ``catalog`` and run it read-only against ``url``.

    Raises:
        QueryRefused: the SQL failed validation, or the database kind is unsupported.
        RoleRefused: (PostgreSQL) the role could change something.
        QueryStopped: a limit stopped the query (time, memory, result bytes).
        QueryFailed: the database refused or failed the query.
    """
    dialect = dialect_of(url)
    validation = validate_sql(sql, dialect, catalog)
    if not validation.ok:
        raise QueryRefused(f"Refusing to run this SQL: {problems(validation)}", hint="Fix it and validate again.")
    statement = schema_qualified(validation.sql, dialect, catalog) if dialect == "postgres" else validation.sql
    tables = [(t.schema, t.name) for t in map(catalog.table, validation.tables) if t is not None]
    result = run_read_only(url, statement, max_rows=max_rows, timeout_s=timeout_s, max_bytes=max_bytes,
                           memory_mb=memory_mb, allow_privileged=allow_privileged, tables=tables)  # fmt: skip
    return result.model_copy(update={"sql": validation.sql})


def problems(validation: Validation) -> str:
    """What is wrong with a validation, as one line."""
    return "; ".join([*validation.errors, *(issue.message for issue in validation.issues)]) or "no problems"


def run_read_only(
    url: str,
    sql: str,
    *,
    max_rows: int,
    timeout_s: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
    memory_mb: int = DEFAULT_MEMORY_MB,
    allow_privileged: bool = False,
    tables: list[tuple[str, str]] | None = None,
) -> QueryResult:
    """Run ``sql`` in the sandbox's child on a connection that cannot write. Does not validate:
    see :func:`execute_sql`; the engines still refuse writes and more than one statement.

    ``tables`` are the (schema, table) pairs the query reads, for PostgreSQL's check of
    the functions their views call.
    """
    from .sandbox import GRACE_S, Stopped, shared_child

    dialect = dialect_of(url)
    request = {"op": "database", "target": _target(_url(url), dialect), "sql": sql, "max_rows": max_rows, "max_bytes": max_bytes,
               "timeout_s": timeout_s, "memory_mb": memory_mb, "allow_privileged": allow_privileged,
               "tables": tables or []}  # fmt: skip
    limit_s = timeout_s + GRACE_S + (CONNECT_ALLOWANCE_S if dialect == "postgres" else 0)
    child = shared_child("database", memory_mb * 2**20)
    started = time.perf_counter()
    with child.lock:
        try:
            reply = child.call(request, limit_s=limit_s)
        except Stopped as stopped:
            raise stopped.as_query_error(timeout_s, time_hint=_TIME_HINT, memory_hint=(
                "Narrow it: select fewer or shorter values, filter first; or raise SCHEMA_SEARCH_EXECUTE_PROCESS_MEMORY_MB."
            )) from None
    if not reply["ok"]:
        kind = globals().get(reply["error"])
        kind = kind if isinstance(kind, type) and issubclass(kind, SchemaSearchError) else QueryFailed
        raise kind(reply["detail"], hint=reply["hint"])
    return QueryResult(
        sql=sql,
        columns=reply["columns"],
        rows=reply["rows"],
        truncated=reply["truncated"],
        row_limit=max_rows,
        seconds=round(time.perf_counter() - started, 3),
        warnings=reply["warnings"],
    )


# -- helpers -------------------------------------------------------------------------

FILE_HINT = "Check the path in the URL: sqlite:///relative/path or sqlite:////absolute/path (four slashes)."


def _url(url: str) -> URL:
    from connectors.sqlalchemy_url import check_one_at

    check_one_at(url)  # an unencoded @ in the password would send part of it as the host name
    try:
        return make_url(url)
    except ArgumentError:
        raise QueryRefused(
            "The database URL is not a SQLAlchemy URL.", hint="Write it as dialect://..., e.g. sqlite:///shop.db."
        ) from None


def _target(url: URL, dialect: str) -> dict[str, Any]:
    """What the child needs to open the database: parsed here, so it needs no URL parser."""
    if dialect != "postgres":
        return {"dialect": dialect, "path": str(database_file(url))}
    params = {"host": url.host, "port": url.port, "user": url.username, "password": url.password, "dbname": url.database}
    params.update({k: v if isinstance(v, str) else v[-1] for k, v in url.query.items()})  # sslmode=..., etc.
    return {"dialect": dialect, "params": {k: v for k, v in params.items() if v is not None}}


def database_file(url: URL) -> Path:
    """The file a SQLite or DuckDB URL names; it must exist (read-only opening never creates one)."""
    database = (url.database or "").removeprefix("file:")
    if database in ("", ":memory:"):
        raise QueryRefused("An in-memory database has no tables to query.", hint="Point the URL at a database file.")
    path = Path(database).expanduser().resolve()
    if not path.is_file():
        raise QueryFailed(f"Database file {path} does not exist.", hint=FILE_HINT)
    return path

