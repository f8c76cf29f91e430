"""Connectors turn a schema source into a :class:`~schema_search.tables.catalog.Catalog`.

Each connector is a module with two functions:

* ``matches(source: str) -> bool``: whether this connector reads ``source``;
* ``introspect(source: str, *, catalog: str, dialect: str | None, db: str | None, progress) -> Catalog``;
  ``progress`` (``(items, label) -> items``, or None) wraps the slow part (statements
  parsed, schemas read) so a progress bar moves.

:func:`introspect` asks them in order and uses the first that matches. Connectors
only read: none of them writes to the source.
"""

from __future__ import annotations

from types import ModuleType

from ..core.build import Progress
from ..errors import SourceError
from ..execute.target import masked
from ..tables.catalog import Catalog
from . import benchmark, ddl, sqlalchemy_url
from .values import ValueHints

# Order matters: a URL is recognised by its scheme before any file-based check.
CONNECTORS: tuple[ModuleType, ...] = (sqlalchemy_url, benchmark, ddl)


def shown(source: str) -> str:
    """``source`` as it may be printed or logged: a URL's password is masked.

    >>> shown("postgresql://me:secret@db/crm")
    'postgresql://me:***@db/crm'
    """
    if sqlalchemy_url.matches(source):
        return sqlalchemy_url.redacted(source)
    return masked(source)  # a URL with a typo still carries its password


def introspect(
    source: str,
    *,
    catalog: str,
    dialect: str | None = None,
    db: str | None = None,
    progress: Progress | None = None,
    max_ddl_bytes: int | None = None,
    value_hints: ValueHints | None = None,
    trusted_objects: tuple[str, ...] = (),
) -> Catalog:
    """Read ``source`` with the first connector that accepts it.

    ``max_ddl_bytes`` caps the DDL a file source may hold (the DDL connector's default otherwise).
    ``value_hints`` samples a live database's short text values within its bounds; DDL
    and benchmark sources have no rows, and ignore it. ``trusted_objects``: PostgreSQL code that
    is not built in but may run while a live database is read.

    Raises:
        SourceError: no connector accepts ``source``, or the one that does fails.
    """
    for connector in CONNECTORS:
        if connector.matches(source):
            options: dict = {}
            if connector is ddl and max_ddl_bytes is not None:
                options["max_bytes"] = max_ddl_bytes
            if connector is sqlalchemy_url:
                options.update(value_hints=value_hints, trusted_objects=trusted_objects)
            return connector.introspect(source, catalog=catalog, dialect=dialect, db=db, progress=progress, **options)
    raise SourceError(
        f"Don't know how to read schema source {shown(source)!r}.",
        hint=(
            "Give a SQLAlchemy URL (sqlite:///path.db, duckdb:///path.duckdb, "
            "postgresql://user@host/db, mysql+pymysql://...), a .sql DDL file or folder, "
            "or a benchmark schemas.jsonl (or the folder that holds it)."
        ),
    )
