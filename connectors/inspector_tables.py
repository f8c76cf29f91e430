"""The tables of one schema through SQLAlchemy's ``Inspector`` (PostgreSQL, SQLite, MySQL).

Each aspect (columns, primary keys, foreign keys, comments) is read for the whole
schema at once with ``get_multi_*``: on PostgreSQL that is one query per aspect
instead of one per table, which matters with hundreds of tables. A dialect that
lacks the bulk form is asked table by table; one that lacks an aspect altogether
(SQLite has no table comments) leaves it empty.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Dialect, Inspector
from sqlalchemy.engine.reflection import ObjectKind
from sqlalchemy.types import NullType

from ..tables.catalog import Column, ForeignKey, Table, table_id

SYSTEM_SCHEMAS = frozenset({"information_schema", "pg_catalog", "mysql", "performance_schema", "sys"})


def schemas(inspector: Inspector) -> list[str]:
    """The schemas that can hold user tables: all but the database's own.

    PostgreSQL reserves the ``pg_`` prefix for its system schemas (``pg_toast``,
    ``pg_temp_3``, ...), so no user schema can start with it.
    """
    return [
        name
        for name in inspector.get_schema_names()
        if name.lower() not in SYSTEM_SCHEMAS and not name.lower().startswith("pg_")
    ]


def schema_tables(inspector: Inspector, schema: str) -> list[Table]:
    """The tables and views (materialized ones too) of one schema, in name order."""
    views = _view_names(inspector, schema)
    names = inspector.get_table_names(schema=schema) + sorted(views)
    columns = _reflect(inspector, "columns", schema, names)
    primary_keys = _reflect(inspector, "pk_constraint", schema, names)
    foreign_keys = _reflect(inspector, "foreign_keys", schema, names)
    comments = _reflect(inspector, "table_comment", schema, names)
    return [
        Table(
            schema=schema,
            name=name,
            kind="view" if name in views else "table",
            columns=tuple(_column(c, inspector.dialect) for c in columns[name]),
            primary_key=tuple((primary_keys.get(name) or {}).get("constrained_columns") or ()),
            foreign_keys=tuple(_foreign_key(fk, schema) for fk in foreign_keys.get(name) or ()),
            comment=(comments.get(name) or {}).get("text") or None,
            definition=_view_definition(inspector, schema, name) if name in views else None,
        )
        for name in sorted(columns)
    ]


def _view_names(inspector: Inspector, schema: str) -> set[str]:
    names = set(inspector.get_view_names(schema=schema))
    try:
        names.update(inspector.get_materialized_view_names(schema=schema))
    except NotImplementedError:  # only PostgreSQL and Oracle have them
        pass
    return names


def _reflect(inspector: Inspector, aspect: str, schema: str, names: list[str]) -> dict[str, Any]:
    """One aspect of every table in ``schema``, keyed by table name."""
    try:
        found = getattr(inspector, f"get_multi_{aspect}")(schema=schema, kind=ObjectKind.ANY)
        return {name: value for (_, name), value in found.items()}
    except NotImplementedError:
        pass
    by_name: dict[str, Any] = {}
    for name in names:
        try:
            by_name[name] = getattr(inspector, f"get_{aspect}")(name, schema=schema)
        except NotImplementedError:
            return {}
    return by_name


def _view_definition(inspector: Inspector, schema: str, name: str) -> str | None:
    try:
        return inspector.get_view_definition(name, schema=schema)
    except NotImplementedError:
        return None


def _column(column: dict[str, Any], dialect: Dialect) -> Column:
    default = column.get("default")
    return Column(
        name=column["name"],
        type=_type_name(column["type"], dialect),
        nullable=bool(column.get("nullable", True)),
        comment=column.get("comment") or None,
        default=None if default is None else str(default),
    )


def _type_name(type_: Any, dialect: Dialect) -> str:
    """The column's type as the database writes it; empty when the database gives none.

    >>> from sqlalchemy.dialects import sqlite
    >>> from sqlalchemy.types import NullType, Integer
    >>> _type_name(NullType(), sqlite.dialect()), _type_name(Integer(), sqlite.dialect())
    ('', 'INTEGER')
    """
    # NullType is SQLAlchemy's "no type given" (a SQLite view's computed column): unknown,
    # rendered as such, never as a type named NULLTYPE.
    if isinstance(type_, NullType):
        return ""
    # Some reflected types (unknown to SQLAlchemy, or needing arguments the database
    # did not give) cannot be compiled; their class name still says what they are.
    try:
        return type_.compile(dialect=dialect)
    except Exception:
        return type(type_).__name__.upper()


def _foreign_key(fk: dict[str, Any], schema: str) -> ForeignKey:
    # Dialects leave referred_schema empty when the target is in the table's own schema.
    return ForeignKey(
        columns=tuple(fk["constrained_columns"]),
        ref_table=table_id(fk.get("referred_schema") or schema, fk["referred_table"]),
        ref_columns=tuple(fk["referred_columns"]),
        name=fk.get("name"),
    )
