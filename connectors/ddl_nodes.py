"""What single sqlglot DDL nodes say: a column, key column names, comment text, view columns.

Pure functions over parsed trees, no state: :mod:`connectors.ddl_reader` decides
which table each result belongs to.
"""

from __future__ import annotations

from typing import Iterable

from sqlglot import exp

from schema_search.tables.catalog import Column


def column(node: exp.ColumnDef, dialect: str) -> Column:
    """The column a definition declares, its type written in ``dialect``.

    An explicit ``COMMENT '...'`` (MySQL) is the column's comment; without one, the
    ``--`` notes beside the definition are.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("CREATE TABLE t (n varchar(9) NOT NULL DEFAULT 'x' -- a note\\n)", read="postgres")
    >>> column(tree.find(exp.ColumnDef), "postgres")
    Column(name='n', type='VARCHAR(9)', nullable=False, comment='a note', default="'x'")
    """
    kind = node.args.get("kind")
    nullable, default, comment = True, None, None
    for constraint in node.constraints:
        value = constraint.args.get("kind")
        if isinstance(value, exp.NotNullColumnConstraint):
            nullable = bool(value.args.get("allow_null"))  # a bare NULL says "nullable"
        elif isinstance(value, exp.DefaultColumnConstraint):
            default = value.this.sql(dialect=dialect, comments=False)
        elif isinstance(value, exp.CommentColumnConstraint):
            comment = text(value.this)
    return Column(
        name=node.name,
        type=kind.sql(dialect=dialect, comments=False) if kind else "",
        nullable=nullable,
        comment=comment or line_comment(node),
        default=default,
    )


def line_comment(node: exp.ColumnDef) -> str | None:
    """The ``--`` notes sqlglot attached to a column definition, outside its CHECKs.

    Authors often write the column's meaning, or the key it stands for, as a line
    comment beside it (``artist INTEGER NOT NULL, -- references artist.id``); a
    comment inside a CHECK explains the check instead.
    """
    notes = [
        note.strip()
        for part in node.walk(bfs=False, prune=lambda n: isinstance(n, exp.CheckColumnConstraint))
        for note in part.comments or ()
    ]
    return " ".join(n for n in notes if n) or None


def output_names(tree: exp.Create) -> list[str]:
    """A view's (or CREATE TABLE AS's) column names, where the DDL alone names them.

    An explicit column list names them all; otherwise an alias or a plain (or cast)
    column does. ``count(*)`` or ``1`` only get names the engine makes up, and ``*``
    needs the source tables, so those are left out.

    >>> import sqlglot
    >>> output_names(sqlglot.parse_one("CREATE VIEW v AS SELECT t.a, b AS c, d::text, count(*), t.* FROM t"))
    ['a', 'c', 'd']
    """
    target, query = tree.this, tree.expression
    if isinstance(target, exp.Schema) and target.expressions:
        names = [e.name for e in target.expressions]
    elif isinstance(query, exp.Query):
        names = [e.alias_or_name for e in query.selects if isinstance(e, (exp.Alias, exp.Column, exp.Cast))]
    else:
        names = []
    return [n for n in names if n and n != "*"]


def key_names(nodes: Iterable[exp.Expression]) -> tuple[str, ...]:
    """Column names of a key, given as identifiers, columns or ordered columns (``a DESC``)."""
    return tuple((n.this if isinstance(n, exp.Ordered) else n).name for n in nodes)


def text(node: exp.Expression | None) -> str | None:
    """A comment's text (any string literal kind), stripped; ``None`` for NULL or blank."""
    if node is None or isinstance(node, exp.Null):
        return None
    return node.name.strip() or None
