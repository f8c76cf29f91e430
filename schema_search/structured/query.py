"""One query over a collection: SQL or the JSON form, guarded, run, and tied back to its rows.

Where a query selects rows of a table that has ``source_id`` (documents, tables),
each row comes back with its source ID, so an agent can cite what it listed. A
count over a filter also returns the IDs of the rows it counted: the answer to
"how many" can cite them too.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ..errors import NotStructured
from ..execute.engines import jsonable
from . import engine
from .collection import Collection
from .guard import DIALECT, checked_sql
from .jsonquery import compile_query
from .models import QueryResponse

SOURCE_ID = "source_id"
_HIDDEN = "__source_id"


def run_query(
    collection: Collection,
    *,
    sql: str | None = None,
    form: dict[str, Any] | None = None,
    max_rows: int,
    timeout_s: float,
    memory_limit: str = "256MB",
) -> QueryResponse:
    """Run ``sql`` (or the JSON ``form``) over ``collection``, read-only and within limits.

    Raises:
        NotStructured: the collection has no tables (a corpus without a shared header).
        InvalidInput: the JSON form is malformed.
        QueryRefused: the SQL is not one allowed SELECT over the collection.
        QueryFailed: DuckDB failed it, or it ran past ``timeout_s``.
    """
    if not collection.tables:
        raise NotStructured(
            f"Corpus {collection.name!r} has no structured index: its documents share no machine-readable "
            "header (front matter, Key: value block, <meta>).",
            hint=f"Use search_docs for passages; `schemasift docs fields --corpus {collection.name}` shows what was found.",
        )
    if form is not None:
        default = collection.tables[0].name
        lists = frozenset(c.name for t in collection.tables for c in t.columns if c.list)
        sql = compile_query(form, default, lists)
    checked, tree = checked_sql(sql or "", collection)
    one_table = _reads_one_table(tree, collection)
    plain_rows = one_table and not _aggregates(tree)
    statement = checked
    if plain_rows:
        # Always our own column: an output *named* source_id may hold anything (a title, a constant).
        statement = tree.copy().select(exp.column(SOURCE_ID, table=_alias(tree)).as_(_HIDDEN)).sql(dialect=DIALECT)
    columns, rows, truncated, seconds = engine.run(
        collection, statement, max_rows=max_rows, timeout_s=timeout_s, memory_limit=memory_limit
    )
    source_ids = None
    if plain_rows:
        source_ids = [row[-1] for row in rows]
        columns, rows = columns[:-1], [row[:-1] for row in rows]
    counted, counted_truncated = None, False
    counting = _counted_sql(tree) if one_table and not plain_rows else None
    if counting is not None:
        _, found, counted_truncated, more = engine.run(
            collection, counting, max_rows=max_rows, timeout_s=timeout_s, memory_limit=memory_limit
        )
        counted, seconds = [row[0] for row in found], round(seconds + more, 4)
    exact = _exact_outputs(tree, collection)
    return QueryResponse(
        collection=collection.name,
        sql=checked,
        columns=columns,
        rows=[[jsonable(v) for v in row] for row in rows],
        row_count=len(rows),
        truncated=truncated,
        row_limit=max_rows,
        exact_columns=[c for c in columns if c in exact],
        source_ids=source_ids,
        counted=counted,
        counted_truncated=counted_truncated,
        seconds=seconds,
    )


def _reads_one_table(tree: exp.Expression, collection: Collection) -> bool:
    """Whether a plain SELECT reads just one collection table, and that table has source IDs."""
    if not isinstance(tree, exp.Select) or tree.args.get("joins") or tree.find(exp.With):
        return False
    source = tree.args.get("from_")
    node = source.this if source is not None else None
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier):
        return False
    table = collection.table(node.name)
    return table is not None and table.column(SOURCE_ID) is not None


def _aggregates(tree: exp.Select) -> bool:
    if tree.args.get("group") or tree.args.get("having") or tree.args.get("distinct"):
        return True
    return any(p.find(exp.AggFunc, exp.Window, exp.Explode, exp.Unnest) for p in tree.expressions)


def _counted_sql(tree: exp.Select) -> str | None:
    """The rows behind a count with no grouping: the same FROM and WHERE, selecting source IDs."""
    if any(tree.args.get(k) for k in ("group", "having", "distinct", "limit", "offset", "sample", "qualify")):
        return None
    if (tree.args.get("from_").this.args.get("sample")) is not None:
        return None
    # Only a bare count(*): the rows behind count(x), count(DISTINCT x), a FILTER, a MIN or an
    # AVG are not the rows the WHERE kept.
    if not all(_bare_count(p) for p in tree.expressions):
        return None
    source = tree.args.get("from_")
    counting = exp.select(exp.column(SOURCE_ID, table=_alias(tree))).from_(source.this.copy())
    where = tree.args.get("where")
    if where is not None:
        counting = counting.where(where.this.copy())
    return counting.sql(dialect=DIALECT)


def _bare_count(projection: exp.Expression) -> bool:
    inner = projection.this if isinstance(projection, exp.Alias) else projection
    return isinstance(inner, exp.Count) and isinstance(inner.this, exp.Star) and not inner.args.get("distinct")


def _alias(tree: exp.Select) -> str | None:
    source = tree.args.get("from_")
    return source.this.alias_or_name if source is not None else None


def _selects_star(tree: exp.Select) -> bool:
    return any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in tree.expressions)


def _exact_outputs(tree: exp.Expression, collection: Collection) -> set[str]:
    """Result columns that may carry an exact value: any output computed from an exact column
    (``trim(sku)``, ``list(url)``), or a whole row (``SELECT d FROM documents d``)."""
    exact = {c.name for t in collection.tables for c in t.columns if c.exact}
    if not isinstance(tree, exp.Select):  # a UNION: every output may come from an exact column
        return set(tree.named_selects) | exact
    sources = {t.alias_or_name.lower() for t in tree.find_all(exp.Table)}
    names = set(exact) if _selects_star(tree) else set()
    for projection in tree.expressions:
        columns = list(projection.find_all(exp.Column))
        if any(c.name in exact or (not c.table and c.name.lower() in sources) for c in columns):
            names.add(projection.alias_or_name)
    return names
