"""Unknown and ambiguous columns of a query whose tables are all known.

Works on sqlglot's scopes: ``alias.column`` against the source the alias names, bare
columns through the qualifier, names compared without case (the database still decides
case when the query runs), and the closest real names suggested.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.schema import MappingSchema

from ..errors import first_line
from ..tables.catalog import Table
from .names import NameIssue, close_matches


def _column_issues(tree: exp.Query, resolved: dict[int, Table], dialect: str | None) -> list[NameIssue]:
    """Unknown and ambiguous columns, once every table is known.

    Works on a copy whose identifiers are lower-cased and quoted, over a schema built
    from the catalog the same way: name checks are case-insensitive in every dialect,
    while the database itself still decides case at run time.
    """
    copy = tree.copy()
    tables = {
        id(new): resolved[id(old)]
        for old, new in zip(tree.find_all(exp.Table), copy.find_all(exp.Table))
        if id(old) in resolved
    }
    schema: dict[str, dict[str, dict[str, str]]] = {}
    for node in copy.find_all(exp.Table):
        table = tables.get(id(node))
        if table is not None:
            node.set("db", exp.to_identifier(table.schema.lower()))
            schema.setdefault(table.schema.lower(), {})[table.name.lower()] = {
                c.name.lower(): c.type or "TEXT" for c in table.columns
            }
    for identifier in copy.find_all(exp.Identifier):
        identifier.set("this", identifier.name.lower())
        identifier.set("quoted", True)
    issues = _qualified_column_issues(copy, tables)
    try:
        qualified = qualify(
            copy,
            dialect=dialect,
            schema=MappingSchema(schema, dialect=dialect, normalize=False),
            validate_qualify_columns=False,
            quote_identifiers=False,
            identify=False,
        )
    except OptimizeError as error:
        if issues:
            return issues
        message = first_line(error)
        name = message.rpartition(":")[2].strip() if message.startswith("Unknown column") else ""
        return [NameIssue(kind="unknown_column", name=name, message=message, suggestions=[])]
    return _distinct(issues + _unqualified_column_issues(qualified, tables))


def checked_columns(
    tree: exp.Query, resolved: dict[int, Table], dialect: str | None
) -> tuple[list[NameIssue], list[str]]:
    """Column issues, and a warning instead when the checker itself cannot follow the query.

    The statement is already known to be one read-only query; a column sqlglot cannot
    follow is for the database to judge, not a reason to refuse.
    """
    try:
        return _column_issues(tree, resolved, dialect), []
    except (SqlglotError, KeyError, AttributeError, TypeError, ValueError) as error:
        return [], [f"Column names were not checked: {first_line(error)}"]


def _qualified_column_issues(tree: exp.Expression, tables: dict[int, Table]) -> list[NameIssue]:
    """``alias.column`` references to a column the source lacks; each is replaced by NULL
    so the qualifier can go on to check the rest."""
    issues: list[NameIssue] = []
    for scope in traverse_scope(tree):
        for column in list(scope.columns):
            if not column.table:
                continue
            source = _find_source(scope, column.table)
            if source is None:
                aliases = sorted(_visible_aliases(scope))
                issues.append(
                    NameIssue(
                        kind="unknown_table",
                        name=column.table,
                        message=f"{column.table}.{column.name} names no table or alias in scope "
                        f"({', '.join(aliases) or 'none'}).",
                        suggestions=close_matches(column.table, aliases),
                    )
                )
                column.replace(exp.null())
                continue
            known = _source_columns(source, tables)
            if known is not None and column.name not in known:
                where = tables[id(source)].id if id(source) in tables else column.table
                issues.append(
                    NameIssue(
                        kind="unknown_column",
                        name=f"{column.table}.{column.name}",
                        message=f"{where} has no column {column.name}.",
                        suggestions=[f"{column.table}.{c}" for c in close_matches(column.name, sorted(known))],
                    )
                )
                column.replace(exp.null())
    return issues


def _unqualified_column_issues(tree: exp.Expression, tables: dict[int, Table]) -> list[NameIssue]:
    """Columns the qualifier could not pin to one source: unknown, or in several."""
    issues: list[NameIssue] = []
    for scope in traverse_scope(tree):
        if not isinstance(scope.expression, exp.Select):
            continue  # a UNION's ORDER BY names output columns
        outputs = set(scope.expression.named_selects)
        for column in scope.unqualified_columns:
            name = column.name
            holders = [
                alias
                for alias, source in scope.selected_sources.items()
                if name in (_source_columns(source[1], tables) or ())
            ]
            if len(holders) > 1:
                issues.append(
                    NameIssue(
                        kind="ambiguous_column",
                        name=name,
                        message=f"{name} is a column of {', '.join(holders)}; qualify it.",
                        suggestions=[f"{alias}.{name}" for alias in holders],
                    )
                )
            elif not holders and not _is_output_ref(column, outputs) and not _in_outer_scope(scope, name, tables):
                known = sorted(
                    {
                        f"{alias}.{c}"
                        for alias, source in scope.selected_sources.items()
                        for c in _source_columns(source[1], tables) or ()
                    }
                )
                bare = {k.split(".", 1)[1]: k for k in known}
                suggestions = [bare[c] for c in close_matches(name, sorted(bare))]
                sources = [_shown(alias, source[1], tables) for alias, source in sorted(scope.selected_sources.items())]
                issues.append(
                    NameIssue(
                        kind="unknown_column",
                        name=name,
                        message=f"No column {name} in {', '.join(sources) or 'the FROM clause'}.",
                        suggestions=suggestions,
                    )
                )
    return issues


def _shown(alias: str, source: exp.Expression | Scope, tables: dict[int, Table]) -> str:
    table = tables.get(id(source))
    return f"{alias} ({table.id})" if table is not None and table.id.split(".", 1)[1] != alias else alias


def _is_output_ref(column: exp.Column, outputs: set[str]) -> bool:
    """``ORDER BY n`` where ``n`` is a projection's alias (a projection itself is not one)."""
    return column.name in outputs and column.find_ancestor(exp.Order, exp.Having, exp.Group, exp.Qualify) is not None


def _find_source(scope: Scope, alias: str) -> exp.Expression | Scope | None:
    while scope is not None:
        if alias in scope.sources:
            return scope.sources[alias]
        scope = scope.parent
    return None


def _visible_aliases(scope: Scope) -> set[str]:
    aliases: set[str] = set()
    while scope is not None:
        aliases.update(scope.sources)
        scope = scope.parent
    return aliases


def _in_outer_scope(scope: Scope, name: str, tables: dict[int, Table]) -> bool:
    parent = scope.parent
    while parent is not None:
        if any(name in (_source_columns(s, tables) or ()) for s in parent.sources.values()):
            return True
        parent = parent.parent
    return False


def _source_columns(source: exp.Expression | Scope, tables: dict[int, Table]) -> set[str] | None:
    """The column names a FROM source offers; ``None`` when unknowable (``SELECT *`` of a
    derived table, a VALUES list)."""
    if isinstance(source, exp.Table):
        table = tables.get(id(source))
        return {c.name.lower() for c in table.columns} if table else None
    if isinstance(source, Scope) and isinstance(source.expression, exp.Query):
        names = source.expression.named_selects
        if "*" in names or any(isinstance(e, exp.Star) for e in source.expression.selects):
            return None
        alias_columns = _alias_columns(source)
        return set(alias_columns or names)
    return None


def _alias_columns(scope: Scope) -> list[str]:
    """``WITH t(a, b) AS (...)``: the column names the alias gives."""
    parent = scope.expression.parent
    alias = parent.args.get("alias") if parent is not None else None
    return [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []


def _distinct(issues: list[NameIssue]) -> list[NameIssue]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for issue in issues:
        if (issue.kind, issue.name) not in seen:
            seen.add((issue.kind, issue.name))
            kept.append(issue)
    return kept
