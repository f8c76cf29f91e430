"""Which tables a verbatim name points at: the tables' side of identifier pinning.

``core.pin`` finds the names a question writes verbatim; this maps table and column
names to tables, so ``v_pmpm`` pins ``analytics.v_pmpm``.
"""

from __future__ import annotations

from .catalog import Catalog

# A column name shared by more tables than this says little about which one is meant.
MAX_TABLES_PER_COLUMN = 2


def identifier_map(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Lower-cased table and column names -> the tables they name.

    Table names map to their table (also as ``schema.table``); a column name maps to
    the tables that have it, unless more than ``MAX_TABLES_PER_COLUMN`` do.

    >>> from schema_search.tables.catalog import Column, Table
    >>> names = identifier_map(Catalog("c", (Table("a", "v_pmpm", columns=(Column("plan_id"),)),)))
    >>> names["v_pmpm"], names["a.v_pmpm"], names["plan_id"]
    (('a.v_pmpm',), ('a.v_pmpm',), ('a.v_pmpm',))
    """
    tables: dict[str, list[str]] = {}
    columns: dict[str, list[str]] = {}
    for table in catalog.tables:
        tables.setdefault(table.name.lower(), []).append(table.id)
        tables.setdefault(table.id, []).append(table.id)
        for column in table.columns:
            columns.setdefault(column.name.lower(), []).append(table.id)
    names = {name: tuple(ids) for name, ids in tables.items()}
    for name, ids in columns.items():
        if name not in names and len(ids) <= MAX_TABLES_PER_COLUMN:
            names[name] = tuple(ids)
    return names
