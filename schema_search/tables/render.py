"""A table as the ``CREATE TABLE`` statement a text-to-SQL prompt expects."""

from __future__ import annotations

import re

from .catalog import Table

_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")


def quote(identifier: str) -> str:
    """Quote an identifier only when it needs it.

    >>> quote("contacts"), quote("Free Meal Count"), quote('a"b')
    ('contacts', '"Free Meal Count"', '"a""b"')
    """
    if _PLAIN.match(identifier):
        return identifier
    return '"' + identifier.replace('"', '""') + '"'


def create_table_sql(table: Table, columns: list[str] | None = None) -> str:
    """Render ``table`` as DDL, with comments as ``--`` remarks.

    Args:
        table: the table.
        columns: only these columns (keys are always kept), for wide tables; all
            when ``None``.

    >>> from schema_search.tables.catalog import Column, ForeignKey
    >>> t = Table("crm", "contacts", columns=(Column("id", "BIGINT", False), Column("account_id", "BIGINT")),
    ...           primary_key=("id",), foreign_keys=(ForeignKey(("account_id",), "crm.accounts", ("id",)),))
    >>> print(create_table_sql(t))
    CREATE TABLE crm.contacts (
      id BIGINT NOT NULL,
      account_id BIGINT,
      PRIMARY KEY (id),
      FOREIGN KEY (account_id) REFERENCES crm.accounts (id)
    );
    """
    keep = _kept_columns(table, columns)
    lines = []
    for column in table.columns:
        if keep is not None and column.name.lower() not in keep:
            continue
        line = f"{quote(column.name)} {column.type or 'TEXT'}".rstrip()
        if not column.nullable:
            line += " NOT NULL"
        lines.append((line, column.comment))
    if table.primary_key:
        lines.append((f"PRIMARY KEY ({_names(table.primary_key)})", None))
    for fk in table.foreign_keys:
        ref = ".".join(quote(part) for part in fk.ref_table.split(".", 1))
        target = f" ({_names(fk.ref_columns)})" if fk.ref_columns else ""
        lines.append((f"FOREIGN KEY ({_names(fk.columns)}) REFERENCES {ref}{target}", None))
    body = []
    for position, (line, comment) in enumerate(lines):
        comma = "," if position < len(lines) - 1 else ""
        remark = f"  -- {_one_line(comment)}" if comment else ""
        body.append(f"  {line}{comma}{remark}")
    header = f"-- {_one_line(table.comment)}\n" if table.comment else ""
    keyword = "VIEW" if table.kind == "view" else "TABLE"
    return f"{header}CREATE {keyword} {quote(table.schema)}.{quote(table.name)} (\n" + "\n".join(body) + "\n);"


def _kept_columns(table: Table, columns: list[str] | None) -> set[str] | None:
    if columns is None:
        return None
    keys = set(table.primary_key)
    for fk in table.foreign_keys:
        keys.update(fk.columns)
    return {c.lower() for c in (*columns, *keys)}


def _names(columns: tuple[str, ...]) -> str:
    return ", ".join(quote(c) for c in columns)


def _one_line(text: str) -> str:
    return " ".join(text.split())
