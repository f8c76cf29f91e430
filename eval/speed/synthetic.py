"""A synthetic catalog of any size, with realistic names, foreign keys and comments, and questions for it.

Deterministic for a seed, so every run of the speed benchmark measures the same catalog.
"""

from __future__ import annotations

import dataclasses
import random

from schema_search.tables.catalog import Catalog, Column, ForeignKey, Table, table_id

VOCABULARY = """account address adjustment agent alert allocation approval asset attachment audit balance
batch benefit billing budget campaign card carrier case category channel charge claim client code comment
commission company contact contract cost country coupon credit currency customer dashboard deal delivery
department deposit device discount dispute document donation driver email employee enrollment entry event
expense export facility fee feedback file forecast fund grant group hold import incident inventory invoice
item job journal label lead ledger license line list location log loyalty manager member message metric
milestone note notification offer order organization owner package partner payment payroll period permission
phone plan policy portal position price product profile project promotion provider purchase quota quote rate
receipt record refund region registration release renewal report request reservation resource return review
reward risk role route rule sale schedule segment service session setting shipment shift site skill sku
source stage statement status stock store subscription supplier survey task tax team template tenant term
territory ticket tier timesheet token transaction transfer trip unit usage user vendor visit voucher warehouse
webhook workflow""".split()
TYPES = ("BIGINT", "INTEGER", "TEXT", "VARCHAR(255)", "NUMERIC(12,2)", "DATE", "TIMESTAMP", "BOOLEAN")


def synthetic_catalog(n_tables: int, seed: int = 7) -> Catalog:
    """A catalog of ``n_tables`` tables with realistic-looking names, FKs and comments."""
    rng = random.Random(seed)
    tables: list[Table] = []
    names: set[str] = set()
    while len(tables) < n_tables:
        schema = f"app{len(tables) // 500}"
        name = "_".join(rng.sample(VOCABULARY, rng.choice((1, 2, 2, 3))))
        if (schema, name) in names:
            continue
        names.add((schema, name))
        columns = [Column("id", "BIGINT", False)]
        columns += [
            Column(
                "_".join(rng.sample(VOCABULARY, rng.choice((1, 2)))) + rng.choice(("", "_id", "_at", "_code")),
                rng.choice(TYPES),
                comment=" ".join(rng.sample(VOCABULARY, 6)) if rng.random() < 0.2 else None,
            )
            for _ in range(rng.randint(4, 20))
        ]
        columns = list({c.name: c for c in columns}.values())
        fks = ()
        if tables and rng.random() < 0.7:
            target = rng.choice(tables[-200:])
            columns.append(Column(f"{target.name}_id", "BIGINT"))
            fks = (ForeignKey((f"{target.name}_id",), table_id(target.schema, target.name), ("id",)),)
        comment = " ".join(rng.sample(VOCABULARY, rng.randint(5, 15))).capitalize() if rng.random() < 0.5 else None
        tables.append(
            Table(schema, name, columns=tuple(columns), primary_key=("id",), foreign_keys=fks, comment=comment)
        )
    return Catalog("bench", tuple(tables))


def questions(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    templates = ("how many {} per {} last month", "which {} have no {}", "total {} by {} and {}", "list {} with {}")
    out = []
    for _ in range(n):
        template = rng.choice(templates)
        out.append(template.format(*rng.sample(VOCABULARY, template.count("{}"))))
    return out


def changed(catalog: Catalog, share: float, seed: int = 5) -> tuple[Catalog, int]:
    """The catalog after a migration touched ``share`` of its tables (a column added, the comment reworded).

    >>> before = synthetic_catalog(200)
    >>> after, n = changed(before, 0.01)
    >>> n, sum(a != b for a, b in zip(before.tables, after.tables))
    (2, 2)
    """
    rng = random.Random(seed)
    touched = set(rng.sample(range(len(catalog.tables)), max(1, round(len(catalog.tables) * share))))
    tables = list(catalog.tables)
    for i in touched:
        table = tables[i]
        column = Column(f"{rng.choice(VOCABULARY)}_{rng.choice(VOCABULARY)}_migrated", rng.choice(TYPES))
        tables[i] = dataclasses.replace(
            table, columns=(*table.columns, column), comment=f"{table.comment or ''} Changed by a migration.".strip()
        )
    return dataclasses.replace(catalog, tables=tuple(tables)), len(touched)
