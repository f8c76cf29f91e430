"""What single sqlglot DDL nodes say: a column, key column names, comment text, view columns.

Pure functions over parsed trees, no state: :mod:`connectors.ddl_reader` decides
which table each result belongs to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from sqlglot import exp

from ..tables.catalog import Column


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


def view_columns(
    tree: exp.Create, columns_of: Callable[[exp.Table], Mapping[str, Column] | None], dialect: str
) -> list[Column]:
    """A view's columns with the types the DDL shows, in output order.

    A column taken straight from a table (``t.a``, ``a AS b``) has that column's type,
    a cast has the type it casts to, and ``*`` / ``t.*`` stand for the source tables'
    columns. Anything else (``count(*)``, ``a + b``, a column of a subquery or a CTE,
    a set operation) keeps the empty type: unknown, not guessed. ``columns_of``
    gives a source table's columns by lower-cased name, or ``None`` when unknown.

    >>> import sqlglot
    >>> tables = {"t": {"a": Column("a", "INT"), "b": Column("b", "TEXT")}}
    >>> tree = sqlglot.parse_one("CREATE VIEW v AS SELECT t.a, b AS c, a::text AS d, count(*) AS n FROM t")
    >>> [(c.name, c.type) for c in view_columns(tree, lambda n: tables.get(n.name), "postgres")]
    [('a', 'INT'), ('c', 'TEXT'), ('d', 'TEXT'), ('n', '')]
    """
    query = tree.expression
    if not isinstance(query, exp.Select):
        return [Column(name) for name in output_names(tree)]
    ctes = {cte.alias_or_name.lower() for cte in query.ctes}
    sources: dict[str, Mapping[str, Column] | None] = {}
    for node in _sources(query):
        known = isinstance(node, exp.Table) and node.name.lower() not in ctes
        sources[node.alias_or_name.lower()] = columns_of(node) if known else None
    found: list[Column] = []
    for select in query.selects:
        found += _output_columns(select, sources, dialect)
    target = tree.this
    if isinstance(target, exp.Schema) and target.expressions:  # CREATE VIEW v (x, y): the list renames
        names = [e.name for e in target.expressions]
        types = [c.type for c in found] if len(found) == len(names) else [""] * len(names)
        return [Column(name, type_) for name, type_ in zip(names, types)]
    return [c for c in found if c.name and c.name != "*"]


def _sources(query: exp.Select) -> list[exp.Expression]:
    """The tables and subqueries the outermost FROM and JOINs read."""
    clause = query.args.get("from_") or query.args.get("from")
    nodes = [clause.this] if clause is not None else []
    nodes += [join.this for join in query.args.get("joins") or ()]
    return [leaf for node in nodes for leaf in _joined(node)]


def _joined(node: exp.Expression) -> list[exp.Expression]:
    """A parenthesised join (MySQL writes ``FROM ((a s JOIN b p) JOIN c r)``) as the tables it joins."""
    if isinstance(node, exp.Subquery) and isinstance(node.this, (exp.Table, exp.Subquery)) and not node.alias:
        return _joined(node.this)
    joins = node.args.get("joins") or () if isinstance(node, exp.Table) else ()
    if joins:
        bare = node.copy()
        bare.set("joins", None)
        return [bare] + [leaf for join in joins for leaf in _joined(join.this)]
    return [node]


def _output_columns(
    select: exp.Expression, sources: Mapping[str, Mapping[str, Column] | None], dialect: str
) -> list[Column]:
    name = select.alias_or_name
    inner = select.this if isinstance(select, exp.Alias) else select
    if isinstance(inner, exp.Cast):
        to = inner.args.get("to")
        return [Column(name, to.sql(dialect=dialect, comments=False) if to else "")]
    if isinstance(inner, exp.Star) or (isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star)):
        wanted = [inner.table.lower()] if isinstance(inner, exp.Column) and inner.table else list(sources)
        tables = [sources.get(alias) for alias in wanted]
        if any(t is None for t in tables):  # some columns are unknown: leave ``*`` out rather than half of it
            return []
        return [Column(c.name, c.type) for t in tables for c in t.values()]
    if isinstance(inner, exp.Column):
        return [Column(name, _source_type(inner, sources))]
    # ``count(*)`` or ``1`` without an alias get a name the engine makes up: left out.
    return [Column(name)] if isinstance(select, exp.Alias) else []


def _source_type(column: exp.Column, sources: Mapping[str, Mapping[str, Column] | None]) -> str:
    key = column.name.lower()
    if column.table:
        table = sources.get(column.table.lower())
        found = table.get(key) if table else None
        return found.type if found else ""
    # Unqualified: the one known source with such a column (two would make the view ambiguous).
    matches = [t[key] for t in sources.values() if t is not None and key in t]
    return matches[0].type if len(matches) == 1 else ""


def key_names(nodes: Iterable[exp.Expression]) -> tuple[str, ...]:
    """Column names of a key, given as identifiers, columns or ordered columns (``a DESC``)."""
    return tuple((n.this if isinstance(n, exp.Ordered) else n).name for n in nodes)


def text(node: exp.Expression | None) -> str | None:
    """A comment's text (any string literal kind), stripped; ``None`` for NULL or blank."""
    if node is None or isinstance(node, exp.Null):
        return None
    return node.name.strip() or None
