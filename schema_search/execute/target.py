"""A database URL as execution reads it: its dialect, the file or server it names, checked first.

Connectors' value sampling and read-only execution open databases from the same URLs,
so the checks on a URL live here, beneath both: an unencoded ``@`` or ``/`` in a
password (which the parser would split into a host), a password kept out of messages,
and what the sandbox's child needs to open the database without a URL parser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError

from ..errors import QueryFailed, QueryRefused, SourceError
from ..tables.catalog import Catalog

_DIALECTS = {"sqlite": "sqlite", "duckdb": "duckdb", "postgresql": "postgres"}
# scheme://user:password@ (or with fewer slashes, as typos write it), up to the last @.
_CREDENTIALS = re.compile(r"(?i)^([a-z][\w+.-]*:/{0,2}[^/:@\s]*:)\S*@")


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
    setting = f'SCHEMA_SEARCH_SOURCE_URLS=\'{{"{catalog.name}": "postgresql://user:pass@host/db"}}\''
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


def target(url: str) -> dict[str, Any]:
    """What the sandbox's child needs to open the database ``url`` names: parsed here, so it needs no URL parser.

    >>> target("postgresql://reader@db:5433/shop?sslmode=require")["params"]
    {'host': 'db', 'port': 5433, 'user': 'reader', 'dbname': 'shop', 'sslmode': 'require'}
    """
    return _target(_url(url), dialect_of(url))


FILE_HINT = "Check the path in the URL: sqlite:///relative/path or sqlite:////absolute/path (four slashes)."


def _url(url: str) -> URL:
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
    params = {
        "host": url.host,
        "port": url.port,
        "user": url.username,
        "password": url.password,
        "dbname": url.database,
    }
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


def check_one_at(source: str) -> None:
    """Refuse a URL whose password holds an unencoded ``@`` or ``/``: the parser would read
    part of the password as the host, and connect there with the rest.

    Raises:
        SourceError: the part before the host has more than one ``@``, or ``/`` in the password.
    """
    scheme, sep, rest = source.partition("://")
    if not sep or rest.startswith("/"):  # no user or host: a file path, which may hold any character
        return
    credentials = rest.rpartition("@")[0]
    if "@" in credentials or "/" in credentials:
        raise SourceError(
            f"The database URL {masked(source)} has an unencoded '@' or '/' in its user or password.",
            hint="URL-encode them in the password: '@' as %40, '/' as %2F (Python: urllib.parse.quote(password, safe='')).",
        )


def masked(source: str) -> str:
    """``source`` with whatever stands where a URL's password would be masked, even when it
    does not parse as a URL (``postgresql:/me:secret@db``, a password with an unencoded ``@``).

    >>> masked("postgresql:/me:secret@db/crm"), masked("postgresql://me:p@ss/w@db/crm")
    ('postgresql:/me:***@db/crm', 'postgresql://me:***@db/crm')
    >>> masked("schemas/crm.sql")
    'schemas/crm.sql'
    """
    return _CREDENTIALS.sub(r"\1***@", source)
