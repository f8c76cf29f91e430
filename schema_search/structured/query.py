"""One query over a collection: SQL or the JSON form, guarded, run, and tied back to its rows.

Where a query selects rows of a table that has ``source_id`` (documents, tables),
each row comes back with its source ID, so an agent can cite what it listed. A
count over a filter also returns the IDs of the rows it counted: the answer to
"how many" can cite them too.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ..agent.execute import jsonable
from ..errors import NotStructured
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
            hint=f"Use search_docs for passages; `schema-search docs fields --corpus {collection.name}` shows what was found.",
        )
    if form is not None:
        default = collection.tables[0].name
        lists = frozenset(c.name for t in collection.tables for c in t.columns if c.list)
        sql = compile_query(form, default, lists)
    checked, tree = checked_sql(sql or "", collection)
    statement = checked
    table = _single_table(tree, collection)
    plain_rows = table is not None and not _aggregates(tree)
    hidden = False
    if plain_rows and SOURCE_ID not in _output_names(tree) and not _selects_star(tree):
        tree = tree.copy().select(exp.column(SOURCE_ID, table=_alias(tree)).as_(_HIDDEN))
        statement, hidden = tree.sql(dialect=DIALECT), True
    columns, rows, truncated, seconds = engine.run(
        collection, statement, max_rows=max_rows, timeout_s=timeout_s, memory_limit=memory_limit
    )
    source_ids = None
    if plain_rows:
        at = columns.index(_HIDDEN if hidden else SOURCE_ID) if (hidden or SOURCE_ID in columns) else None
        source_ids = [row[at] for row in rows] if at is not None else None
        if hidden:
            columns, rows = columns[:-1], [row[:-1] for row in rows]
    counted, counted_truncated = None, False
    counting = _counted_sql(tree) if table is not None and not plain_rows else None
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


def _single_table(tree: exp.Expression, collection: Collection) -> str | None:
    """The one collection table a plain SELECT reads, when it has source IDs; else ``None``."""
    if not isinstance(tree, exp.Select) or tree.args.get("joins") or tree.args.get("with"):
        return None
    source = tree.args.get("from_")
    node = source.this if source is not None else None
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier):
        return None
    table = collection.table(node.name)
    return table.name if table is not None and table.column(SOURCE_ID) is not None else None


def _aggregates(tree: exp.Select) -> bool:
    if tree.args.get("group") or tree.args.get("having") or tree.args.get("distinct"):
        return True
    return any(p.find(exp.AggFunc, exp.Window, exp.Explode, exp.Unnest) for p in tree.expressions)


def _counted_sql(tree: exp.Select) -> str | None:
    """The rows behind a count with no grouping: the same FROM and WHERE, selecting source IDs."""
    if tree.args.get("group") or tree.args.get("having") or tree.args.get("distinct"):
        return None
    # Only counts: the rows behind a MIN or an AVG are every row, which says nothing.
    if not all(p.find(exp.Count) for p in tree.expressions) or any(p.find(exp.Window) for p in tree.expressions):
        return None
    source = tree.args.get("from_")
    counting = exp.select(exp.column(SOURCE_ID, table=_alias(tree))).from_(source.this.copy())
    where = tree.args.get("where")
    if where is not None:
        counting = counting.where(where.this.copy())
    return counting.sql(dialect=DIALECT)


def _alias(tree: exp.Select) -> str | None:
    source = tree.args.get("from_")
    return source.this.alias_or_name if source is not None else None


def _output_names(tree: exp.Select) -> list[str]:
    return [p.alias_or_name for p in tree.expressions]


def _selects_star(tree: exp.Select) -> bool:
    return any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in tree.expressions)


def _exact_outputs(tree: exp.Expression, collection: Collection) -> set[str]:
    """Result column names whose values come straight from an exact column."""
    exact = {c.name for t in collection.tables for c in t.columns if c.exact}
    if not isinstance(tree, exp.Select):
        return exact
    names = set(exact) if _selects_star(tree) else set()
    for projection in tree.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(inner, exp.Column) and inner.name in exact:
            names.add(projection.alias_or_name)
    return names
