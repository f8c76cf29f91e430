"""Looking a compared value up in the database, read-only: the checklist's ``database`` source.

A :data:`Probe` answers, for one column and one literal, which stored values the
predicate selects, which contain its text, and a few stored ones. :func:`database_probe`
asks the database through :func:`~schema_search.execute.run.execute_sql`, the guarded
read-only path every query takes, with a small row cap and a short time limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from ..connectors.sensitive import column_kind, value_kind
from ..errors import QueryFailed, QueryRefused, QueryStopped, first_line
from ..execute.run import DEFAULT_MEMORY_MB, execute_sql
from ..execute.target import dialect_of
from ..tables.catalog import Catalog
from .slots import LiteralKind
from .wording import pattern_text

# What a probe is asked: is the literal stored (=), or what does the pattern select (like, ilike, glob).
ProbeOperator = Literal["=", "like", "ilike", "glob"]
# A probe reads a few values of one column: it needs neither long nor many rows.
PROBE_TIMEOUT_S = 2.0
PROBE_VALUES = 10


class ProbeResult(BaseModel):
    """What the database holds for one compared value (at most a few of each)."""

    matched: list[str] = Field(default_factory=list, description="Distinct stored values the predicate selects.")
    near: list[str] = Field(default_factory=list, description="Stored values containing the text, any case.")
    stored: list[str] = Field(default_factory=list, description="Some distinct stored values of the column.")
    error: str | None = Field(None, description="Why the database could not be asked.")


# (column as schema.table.column, literal, operator, how the literal is written) -> what is stored.
Probe = Callable[[str, str, ProbeOperator, LiteralKind], ProbeResult]


def database_probe(
    url: str,
    catalog: Catalog,
    *,
    timeout_s: float = PROBE_TIMEOUT_S,
    max_values: int = PROBE_VALUES,
    memory_mb: int = DEFAULT_MEMORY_MB,
    allow_privileged: bool = False,
    trusted_objects: tuple[str, ...] = (),
) -> Probe:
    """A :data:`Probe` that asks the database, read-only, through :func:`~schema_search.execute.run.execute_sql`.

    One query per look-up, at most ``3 * max_values`` short rows: the distinct values the
    predicate selects, those that contain its text in any case, and a few stored ones.
    The literal is compared as the SQL wrote it: ``'01234'`` as text, ``1234`` as a number.
    Columns whose name marks secrets or personal data are not read, and stored values
    that look like either are dropped, as when values are sampled for the index.
    """
    dialect = dialect_of(url)

    def probe(column: str, value: str, operator: ProbeOperator, kind: LiteralKind = "string") -> ProbeResult:
        schema, table_name, column_name = column.split(".", 2)
        table = catalog.table(f"{schema}.{table_name}")
        found = table.column(column_name) if table is not None else None
        if found is None:
            return ProbeResult(error=f"{column} is not in catalog {catalog.name!r}.")
        if column_kind(found.name) is not None:
            return ProbeResult(
                error=f"{table_name}.{found.name} may hold personal data or secrets; its values are not read."
            )
        sql = _probe_sql(table.schema, table.name, found.name, value, operator, dialect, max_values, kind)
        try:
            result = execute_sql(
                url,
                sql,
                catalog,
                max_rows=3 * max_values,
                timeout_s=timeout_s,
                max_bytes=64_000,
                memory_mb=memory_mb,
                allow_privileged=allow_privileged,
                trusted_objects=trusted_objects,
            )
        except (QueryRefused, QueryStopped, QueryFailed) as error:
            return ProbeResult(error=first_line(error))
        groups: dict[int, list[str]] = {1: [], 2: [], 3: []}
        for shown, group in result.rows:
            if shown is not None and value_kind(str(shown)) is None and str(shown) not in groups[int(group)]:
                groups[int(group)].append(str(shown))
        return ProbeResult(matched=groups[1], near=groups[2], stored=groups[3])

    return probe


def _probe_sql(
    schema: str,
    table: str,
    column: str,
    value: str,
    operator: str,
    dialect: str,
    limit: int,
    kind: LiteralKind = "string",
) -> str:
    """The probe's one query: three capped DISTINCT reads of one column, tagged 1, 2, 3.
    ``value`` is written back as the SQL wrote it (``kind``): a number only if it was one.

    >>> print(_probe_sql("main", "suppliers", "company_name", "Acme", "=", "sqlite", 10))
    ... # doctest: +NORMALIZE_WHITESPACE
    SELECT v, k FROM (SELECT DISTINCT CAST("company_name" AS TEXT) AS v, 1 AS k FROM "main"."suppliers"
    WHERE "company_name" = 'Acme' LIMIT 10) AS matched UNION ALL SELECT v, k FROM (SELECT DISTINCT
    CAST("company_name" AS TEXT) AS v, 2 AS k FROM "main"."suppliers" WHERE LOWER(CAST("company_name" AS TEXT))
    LIKE '%acme%' LIMIT 10) AS near UNION ALL SELECT v, k FROM (SELECT DISTINCT CAST("company_name" AS TEXT) AS v,
    3 AS k FROM "main"."suppliers" WHERE NOT "company_name" IS NULL LIMIT 10) AS stored
    """
    import sqlglot
    from sqlglot import exp

    name = exp.column(exp.to_identifier(column, quoted=True))
    source = exp.table_(exp.to_identifier(table, quoted=True), db=exp.to_identifier(schema, quoted=True))
    given = _given(value, kind)
    selects = {"=": exp.EQ, "like": exp.Like, "ilike": exp.ILike, "glob": exp.Glob}[operator](
        this=name.copy(), expression=given
    )
    text = max(pattern_text(value, operator) if operator != "=" else [value], key=len, default=value)
    contains = exp.Like(
        this=exp.Lower(this=exp.cast(name.copy(), "TEXT")), expression=exp.Literal.string(f"%{text.lower()}%")
    )
    branches = [
        (1, "matched", selects),
        (2, "near", contains),
        (3, "stored", exp.not_(exp.Is(this=name.copy(), expression=exp.null()))),
    ]
    parts = []
    for tag, alias, where in branches:
        inner = (
            exp.select(exp.alias_(exp.cast(name.copy(), "TEXT"), "v"), exp.alias_(exp.Literal.number(tag), "k"))
            .distinct()
            .from_(source.copy())
            .where(where)
            .limit(limit)
        )
        parts.append(exp.select("v", "k").from_(inner.subquery(alias)))
    query = parts[0]
    for part in parts[1:]:
        query = exp.union(query, part, distinct=False)
    return sqlglot.transpile(query.sql(dialect=dialect), read=dialect, write=dialect)[0]


def _given(value: str, kind: LiteralKind):
    """The literal as the SQL wrote it; a number only when it was written as one (and parses as one)."""
    from sqlglot import exp

    if kind == "number":
        try:
            float(value)
            return exp.Literal.number(value)
        except ValueError:
            pass
    if kind == "boolean" and value.lower() in ("true", "false"):
        return exp.Boolean(this=value.lower() == "true")
    return exp.Literal.string(value)
