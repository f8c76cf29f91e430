"""The tables of a DuckDB database, read from DuckDB's own catalog functions.

duckdb-engine reflects through PostgreSQL-style ``pg_catalog`` queries, which DuckDB
only partly emulates: with SQLAlchemy 2.1 and DuckDB 2.0, its column, primary-key and
foreign-key reflection fail (no ``pg_collation``, no ``REGCLASS``), bulk and per
table alike. ``duckdb_tables()``, ``duckdb_views()``, ``duckdb_columns()`` and
``duckdb_constraints()`` state the same facts directly, in one query each.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import Connection, text

from ..tables.catalog import Column, ForeignKey, Table, table_id

_SCHEMAS = text(
    "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database() "
    "ORDER BY schema_name <> 'main', schema_name"
)
_RELATIONS = text(
    "SELECT table_name AS name, 'table' AS kind, comment, NULL AS definition FROM duckdb_tables() "
    "WHERE database_name = current_database() AND schema_name = :schema "
    "UNION ALL "
    "SELECT view_name, 'view', comment, sql FROM duckdb_views() "
    "WHERE database_name = current_database() AND schema_name = :schema AND NOT internal "
    "ORDER BY name"
)
_COLUMNS = text(
    "SELECT table_name, column_name, data_type, is_nullable, column_default, comment "
    "FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = :schema "
    "ORDER BY table_name, column_index"
)
_KEYS = text(
    "SELECT table_name, constraint_type, constraint_column_names, constraint_name, "
    "referenced_table, referenced_column_names "
    "FROM duckdb_constraints() WHERE database_name = current_database() AND schema_name = :schema "
    "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') ORDER BY constraint_index"
)


def schemas(connection: Connection) -> list[str]:
    """The schemas of the open database file, ``main`` first.

    DuckDB's system schemas (``information_schema``, ``pg_catalog``) belong to its
    ``system`` database, so they never appear here.
    """
    return list(connection.execute(_SCHEMAS).scalars())


def schema_tables(connection: Connection, schema: str) -> list[Table]:
    """The tables and views of one schema, in name order."""
    params = {"schema": schema}
    columns: dict[str, list[Column]] = defaultdict(list)
    for table, name, type_, nullable, default, comment in connection.execute(_COLUMNS, params):
        columns[table].append(
            Column(name=name, type=type_, nullable=nullable, default=default, comment=comment or None)
        )
    primary_keys: dict[str, tuple[str, ...]] = {}
    foreign_keys: dict[str, list[ForeignKey]] = defaultdict(list)
    for table, kind, names, key_name, ref_table, ref_columns in connection.execute(_KEYS, params):
        if kind == "PRIMARY KEY":
            primary_keys[table] = tuple(names)
        else:
            # DuckDB refuses foreign keys across schemas, so the target is in this one.
            foreign_keys[table].append(
                ForeignKey(tuple(names), table_id(schema, ref_table), tuple(ref_columns), key_name)
            )
    return [
        Table(
            schema=schema,
            name=name,
            kind=kind,
            columns=tuple(columns[name]),
            primary_key=primary_keys.get(name, ()),
            foreign_keys=tuple(foreign_keys[name]),
            comment=comment or None,
            definition=definition,
        )
        for name, kind, comment, definition in connection.execute(_RELATIONS, params)
    ]
