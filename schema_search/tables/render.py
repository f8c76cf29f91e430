"""A table as the ``CREATE TABLE`` statement a text-to-SQL prompt expects."""

from __future__ import annotations

import re

from .catalog import Table

# The remark beside a column whose type the source does not say (a view's computed
# column, a typeless SQLite column): a comment keeps the DDL parseable.
UNKNOWN_TYPE = "type unknown"
_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")
# Words that cannot be a bare column or table name: PostgreSQL's reserved keywords, and
# the join and predicate words SQLite and MySQL reserve as well. `order` and `group`
# are real column names (Spider has both); written bare, the DDL shown to a model does
# not parse, and the model copies the bare name into SQL that fails.
RESERVED = frozenset(
    """all analyse analyze and any array as asc asymmetric between both by case cast check collate column
    constraint create cross current_catalog current_date current_role current_time current_timestamp
    current_user default deferrable desc distinct do else end except exists false fetch for foreign
    from full grant group having in index initially inner intersect into is join key lateral leading
    left like limit localtime localtimestamp natural not null offset on only or order outer placing
    primary references returning right select session_user some symmetric table then to trailing true
    union unique user using values variadic when where window with""".split()
)


def quote(identifier: str) -> str:
    """Quote an identifier only when it needs it: not plain lower-case, or a reserved word.

    >>> quote("contacts"), quote("Free Meal Count"), quote('a"b'), quote("order")
    ('contacts', '"Free Meal Count"', '"a""b"', '"order"')
    """
    if _PLAIN.match(identifier) and identifier not in RESERVED:
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
    >>> print(create_table_sql(Table("crm", "v", "view", columns=(Column("n"), Column("id", "INT")))))
    CREATE VIEW crm.v (
      n,  -- type unknown
      id INT
    );
    """
    keep = kept_columns(table, columns)
    lines = []
    for column in table.columns:
        if keep is not None and column.name.lower() not in keep:
            continue
        # No type is shown as none, with a remark: a made-up TEXT would be read as a fact.
        line = f"{quote(column.name)} {column.type}".rstrip()
        if not column.nullable:
            line += " NOT NULL"
        remark = column.comment if column.type else "; ".join(filter(None, (UNKNOWN_TYPE, column.comment)))
        lines.append((line, remark))
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


def kept_columns(table: Table, columns: list[str] | None) -> set[str] | None:
    """The lower-case names ``create_table_sql`` shows for ``columns``: them and every key (None: all)."""
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
