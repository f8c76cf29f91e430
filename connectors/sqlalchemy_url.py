"""Live databases by SQLAlchemy URL: PostgreSQL, SQLite, DuckDB, MySQL.

Only reads, and makes sure of it where the database allows: SQLite files are opened
with ``mode=ro``, DuckDB files ``read_only``, PostgreSQL sessions start with
``default_transaction_read_only=on`` and MySQL ones with ``SET SESSION TRANSACTION
READ ONLY``. Missing database files are refused rather than created.

Passwords never leave this module: error messages and ``Catalog.source`` carry the
URL as ``render_as_string(hide_password=True)`` prints it.

On PostgreSQL every statement, SQLAlchemy's reflection queries included, is checked before it
runs (:func:`~schema_search.execute.pg_guard.checked_statement`): a cast or operator someone
planted in the database would otherwise run inside them (``$1::VARCHAR || '%'``). The driver is
always psycopg 3, whose protocol-level Parse the check needs.

With ``value_hints``, a bounded sample of short text columns' values is read over the
same read-only connection (:mod:`.values`).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from sqlalchemy import URL, Engine, create_engine, event, inspect, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from ..core.build import Progress
from ..errors import QueryRefused, SourceError
from ..execute import pg_guard
from ..execute.target import check_one_at, masked
from ..tables.catalog import Catalog, Table
from . import duckdb_tables, inspector_tables
from .values import ValueHints, sample_values

CONNECT_TIMEOUT_S = 10
STATEMENT_TIMEOUT_S = 60
_IN_MEMORY = (None, "", ":memory:")

# Per backend, the drivers a bare "postgresql://" or "mysql://" may use, in SQLAlchemy's
# order of preference, with the module each imports. SQLAlchemy 2.1 picks the first
# even when only the second (the one this project installs) is there.
_DRIVERS = {
    "mysql": (("mysqldb", "MySQLdb"), ("pymysql", "pymysql")),
    "mariadb": (("mysqldb", "MySQLdb"), ("pymysql", "pymysql")),
}

# (words in the driver's message, what the person should check), first match wins.
_CONNECT_HINTS = (
    (("password", "authentication", "access denied"), "Check the user name and password in the URL."),
    (("does not exist", "unknown database"), "Check the database name in the URL."),
    (("not a valid", "not a database"), "Check that the file is a database of the kind the URL names."),
    (
        ("refused", "timeout", "timed out", "could not translate host", "name or service", "can't connect"),
        "Check the host and port, and that the server is running and reachable from here.",
    ),
)
_DEFAULT_HINT = "Check the URL, that the server is running, and the credentials."


def matches(source: str) -> bool:
    """Whether ``source`` is a SQLAlchemy URL (``dialect[+driver]://...``).

    >>> matches("postgresql://u@localhost/crm"), matches("schemas/crm.sql")
    (True, False)
    """
    if "://" not in source:
        return False
    try:
        make_url(source)
    except ArgumentError:
        return False
    return True


def introspect(
    source: str,
    *,
    catalog: str,
    dialect: str | None = None,
    db: str | None = None,
    progress: Progress | None = None,
    value_hints: ValueHints | None = None,
    trusted_objects: tuple[str, ...] = (),
) -> Catalog:
    """Read the tables, views, keys and comments of the database at ``source``.

    Args:
        source: a SQLAlchemy URL.
        catalog: the name of the catalog to build.
        dialect: unused; the URL names its dialect.
        db: the schema to read, or several separated by commas. By default, every
            schema that is not the database's own (PostgreSQL: all but ``pg_*`` and
            ``information_schema``; SQLite: ``main``; DuckDB: ``main`` and the other
            user schemas; MySQL: the database the URL names).
        progress: wraps the schemas while their tables are read (and the tables while
            their values are sampled).
        value_hints: sample the values of short text columns within these bounds;
            ``None`` reads no rows.
        trusted_objects: PostgreSQL code that is not built in but may run while the
            database is read (``SCHEMA_SEARCH_EXECUTE_TRUSTED_OBJECTS``).

    Raises:
        SourceError: the URL is malformed or names an unknown driver, the database
            cannot be reached or read, a schema in ``db`` does not exist, or no
            tables were found.
    """
    engine = read_only_engine(source, trusted_objects)
    shown = _redacted(make_url(source))  # as given: the engine's URL may be rewritten
    try:
        _check_connection(engine, shown)
        schemas, tables = _read(engine, db, shown, progress)
        kept, warnings = _distinct(tables)
        if kept and value_hints is not None:
            kept, sampled = sample_values(engine, kept, value_hints, progress, trusted_objects)
            warnings += sampled
    except QueryRefused as refused:  # the guard refused a reflection query: planted code would run in it
        raise SourceError(f"Could not read the schema of {shown}: {refused.detail}", hint=refused.hint) from None
    except SQLAlchemyError as error:
        raise SourceError(
            f"Could not read the schema of {shown}: {_reason(error, engine.url)}",
            hint="Check that the URL points at a database and that the user may read its catalog.",
        ) from None
    finally:
        engine.dispose()
    if not tables:
        raise SourceError(
            f"No tables found in {shown} (schemas: {', '.join(schemas) or 'none'}).",
            hint="Check the schema (db=...) and that the user can see its tables.",
        )
    return Catalog(
        name=catalog,
        tables=tuple(kept),
        source={"kind": "sqlalchemy", "url": shown, "dialect": engine.dialect.name, "schemas": schemas},
        warnings=tuple(warnings),
    )


def read_only_engine(source: str, trusted_objects: tuple[str, ...] = ()) -> Engine:
    """An engine for ``source`` whose connections cannot write, with timeouts set (and on
    PostgreSQL, whose statements run only built-in code, or ``trusted_objects``).

    Raises:
        SourceError: the URL is malformed, names an unknown dialect or a driver that is
            not installed, or names a database file that does not exist.
    """
    check_one_at(source)
    try:
        url = make_url(source)
    except ArgumentError:
        raise SourceError(
            f"{masked(source)!r} is not a database URL.",
            hint=(
                "Write it as dialect[+driver]://user:password@host:port/database, e.g. postgresql://me@localhost/crm."
            ),
        ) from None
    url = _installed_driver(url)
    try:
        backend, driver = url.get_backend_name(), url.get_driver_name()
    except NoSuchModuleError:
        raise SourceError(
            f"Unknown database dialect in {_redacted(url)}.",
            hint="Use sqlite:///, duckdb:///, postgresql:// or mysql+pymysql://.",
        ) from None
    url, connect_args = _read_only(url, backend, driver)
    try:
        engine = create_engine(url, connect_args=connect_args)
    except (ArgumentError, ImportError) as error:
        raise SourceError(
            f"Cannot open {_redacted(url)}: {error}",
            hint="Check the URL's form, and install the database driver it names.",
        ) from None
    if backend == "postgresql":

        @event.listens_for(engine, "before_cursor_execute", retval=True)
        def checked(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool):
            return pg_guard.checked_statement(cursor.connection, statement, parameters, trusted_objects)

    return engine


def _installed_driver(url: URL) -> URL:
    """``url`` with an installed driver named, when it names none; PostgreSQL's is always psycopg 3."""
    if url.drivername.split("+")[0] == "postgresql":
        return url.set(drivername="postgresql+psycopg")
    for driver, module in _DRIVERS.get(url.drivername, ()):
        if find_spec(module) is not None:
            return url.set(drivername=f"{url.drivername}+{driver}")
    return url


def _read_only(url: URL, backend: str, driver: str) -> tuple[URL, dict[str, Any]]:
    """The URL and driver arguments that open ``url`` read-only, per database."""
    if backend == "sqlite":
        path = _database_file(url, unquote(url.database.removeprefix("file:")) if url.database else None)
        if path is None:
            return url, {}
        # A SQLite URI filename: mode=ro fails instead of creating or changing the file.
        return url.set(database="file:" + quote(str(path)), query={"mode": "ro", "uri": "true"}), {}
    if backend == "duckdb":
        return url, {} if _database_file(url, url.database) is None else {"read_only": True}
    if backend == "postgresql":
        # With no user schema on the search_path, PostgreSQL names the schema of every
        # foreign-key target; otherwise a key into "public" comes back without one and
        # would be read as pointing into the referencing table's own schema.
        options = (
            f"-c default_transaction_read_only=on -c statement_timeout={STATEMENT_TIMEOUT_S}s -c search_path=pg_catalog"
        )
        return url, {"connect_timeout": CONNECT_TIMEOUT_S, "options": options}
    if backend in ("mysql", "mariadb") and driver in ("pymysql", "mysqldb"):
        return url, {"connect_timeout": CONNECT_TIMEOUT_S, "init_command": "SET SESSION TRANSACTION READ ONLY"}
    return url, {}


def _database_file(url: URL, database: str | None) -> Path | None:
    """The database file a SQLite or DuckDB URL names; ``None`` when it is in memory."""
    backend = url.get_backend_name()
    if database in _IN_MEMORY or database.startswith(":memory:"):
        return None
    path = Path(database).resolve()
    if not path.is_file():
        raise SourceError(
            f"Database file {path} does not exist (from {_redacted(url)}).",
            hint=f"Check the path: {backend}:///relative/path or {backend}:////absolute/path (four slashes).",
        )
    return path


def _check_connection(engine: Engine, shown: str) -> None:
    try:
        with engine.connect():
            pass
    except SQLAlchemyError as error:
        reason = _reason(error, engine.url)
        lowered = reason.lower()
        hint = next((h for words, h in _CONNECT_HINTS if any(w in lowered for w in words)), _DEFAULT_HINT)
        raise SourceError(f"Could not connect to {shown}: {reason}", hint=hint) from None


def _read(engine: Engine, db: str | None, shown: str, progress: Progress | None) -> tuple[list[str], list[Table]]:
    """The schemas chosen and their tables."""

    def each(schemas: list[str]):
        return progress(schemas, "reading schemas") if progress else schemas

    if engine.dialect.name == "duckdb":
        with engine.connect() as connection:
            schemas = _chosen(db, duckdb_tables.schemas(connection), shown)
            return schemas, [t for s in each(schemas) for t in duckdb_tables.schema_tables(connection, s)]
    inspector = inspect(engine)
    if db is None and engine.dialect.name in ("mysql", "mariadb") and engine.url.database:
        # MySQL's schemas are its databases; the one in the URL is the one meant.
        known = [inspector.default_schema_name]
    else:
        known = inspector_tables.schemas(inspector)
    schemas = _chosen(db, known, shown)
    return schemas, [t for s in each(schemas) for t in inspector_tables.schema_tables(inspector, s)]


def _chosen(db: str | None, known: list[str], shown: str) -> list[str]:
    """The schemas ``db`` names (comma-separated, any case), or all ``known`` ones."""
    if db is None:
        return known
    by_lower = {name.lower(): name for name in known}
    wanted = [part.strip() for part in db.split(",") if part.strip()]
    missing = [name for name in wanted if name.lower() not in by_lower]
    if missing or not wanted:
        raise SourceError(
            f"No schema {', '.join(missing) or repr(db)} in {shown}.",
            hint=f"Known schemas: {', '.join(known) or 'none'}.",
        )
    return [by_lower[name.lower()] for name in wanted]


def _distinct(tables: list[Table]) -> tuple[list[Table], list[str]]:
    """Tables whose ids differ; the catalog lower-cases ids, PostgreSQL is case-sensitive."""
    kept: dict[str, Table] = {}
    warnings = []
    for table in tables:
        if table.id in kept:
            warnings.append(
                f"Skipped {table.schema}.{table.name}: its name differs from "
                f"{kept[table.id].schema}.{kept[table.id].name} only in case."
            )
        else:
            kept[table.id] = table
    return list(kept.values()), warnings


def _reason(error: SQLAlchemyError, url: URL) -> str:
    """The driver's own first line about ``error``, with the password blanked out."""
    reason = str(getattr(error, "orig", None) or error).strip().partition("\n")[0].strip()
    return reason.replace(url.password, "***") if url.password else reason


def _redacted(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def redacted(source: str) -> str:
    """The URL ``source`` with its password masked, for messages and logs."""
    if source.count("@") > 1:  # an unencoded @ in the password: the parser's split would show part of it
        return masked(source)
    return _redacted(make_url(source))
