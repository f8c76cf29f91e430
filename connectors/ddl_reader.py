"""Read DDL scripts into tables: statements in, :class:`Table` objects out.

Each statement is parsed on its own with sqlglot, so one statement sqlglot cannot
read costs that statement only, with a warning naming its file and line. The
statements are applied in order to mutable table drafts, as a database would apply
them; foreign keys are resolved at the end, once every table and primary key is known.

Unqualified names take the first schema of the current search path: the last
``SET search_path`` (any dialect), for MySQL-like dialects the last ``USE db`` or
``CREATE DATABASE db``, and otherwise the dialect's default schema (``public`` for
PostgreSQL-like dialects, ``dbo`` for T-SQL, ``main`` for the rest, as in SQLite and
DuckDB). The path starts afresh in each script, like a new database session.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from ..core.build import Progress
from ..tables.catalog import Column, ForeignKey, Table, TableKind, table_id
from . import ddl_nodes
from .ddl_statements import Statement, split_statements, statement_label, unwrap_mysql_executable_comments

DEFAULT_SCHEMAS = {
    "postgres": "public",
    "redshift": "public",
    "materialize": "public",
    "risingwave": "public",
    "snowflake": "public",
    "tsql": "dbo",
    "fabric": "dbo",
}
FALLBACK_SCHEMA = "main"
# Dialects in which a database is what other dialects call a schema.
DATABASE_IS_SCHEMA = frozenset({"mysql", "doris", "starrocks"})
# Dialects whose scripts end batches with a ``GO`` line rather than ``;``.
GO_BATCHES = frozenset({"tsql", "fabric"})

_SEARCH_PATH = re.compile(r"SET\s+(?:SESSION\s+|LOCAL\s+)?search_path\s*(?:=|TO)\s*(?P<path>.*)", re.I | re.S)
_PG_DUMP_SEARCH_PATH = re.compile(r"SELECT\s+pg_catalog\.set_config\(\s*'search_path'\s*,\s*'(?P<path>[^']*)'", re.I)
_COMMENT_VALUE = re.compile(r"(?P<head>COMMENT\s+ON\s+.+?)\s+IS\s+(?P<value>.+)", re.I | re.S)
_USE_DATABASE = re.compile(r"(?:USE|CREATE\s+(?:DATABASE|SCHEMA)(?:\s+IF\s+NOT\s+EXISTS)?)\s+(?P<name>[^\s;]+)", re.I)


class Script(NamedTuple):
    """One DDL text to read: its name for messages, its text, its sqlglot dialect."""

    name: str
    text: str
    dialect: str


@dataclass(frozen=True)
class DdlResult:
    """What the scripts declared, what was skipped, and the first statement sqlglot could not parse."""

    tables: tuple[Table, ...]
    warnings: tuple[str, ...]
    first_error: str | None


def read_ddl(scripts: Iterable[Script], progress: Progress | None = None) -> DdlResult:
    """Apply the scripts' statements, in order, to one set of tables.

    Never raises for bad input: statements that fail are reported in ``warnings``,
    and the first that sqlglot could not parse, phrased as an error, in ``first_error``.

    Args:
        progress: wraps each script's statements while they are parsed (~1 s per 1,000 tables).
    """
    reader = _Reader()
    with _quiet_sqlglot():
        for script in scripts:
            reader.read(script, progress)
    return DdlResult(tuple(reader.tables()), tuple(reader.warnings), reader.first_error)


@dataclass(frozen=True)
class _PendingKey:
    """A foreign key whose target is resolved once all tables are known."""

    columns: tuple[str, ...]
    targets: tuple[str, ...]  # candidate table ids, in search-path order
    ref_columns: tuple[str, ...]
    name: str | None


@dataclass
class _Draft:
    schema: str
    name: str
    kind: TableKind
    columns: dict[str, Column] = field(default_factory=dict)  # keyed by lower-cased name
    primary_key: tuple[str, ...] = ()
    foreign_keys: list[_PendingKey] = field(default_factory=list)
    comment: str | None = None
    definition: str | None = None
    # A view's parsed statement and the search path it was read under: its column
    # types are looked up once every table is known (see _Reader.type_views).
    view: tuple[exp.Create, tuple[str, ...], str] | None = None


@dataclass
class _Session:
    script: Script
    search_path: tuple[str, ...]

    @property
    def schema(self) -> str:
        return self.search_path[0]

    def candidates(self, node: exp.Table) -> tuple[str, ...]:
        """The table ids an (optionally qualified) name may refer to, in lookup order."""
        if node.db:
            return (table_id(node.db, node.name),)
        return tuple(table_id(schema, node.name) for schema in self.search_path)


class _Reader:
    def __init__(self) -> None:
        self.drafts: dict[str, _Draft] = {}
        self.warnings: list[str] = []
        self.first_error: str | None = None

    def read(self, script: Script, progress: Progress | None = None) -> None:
        session = _Session(script, (_default_schema(script.dialect),))
        tokenizer = Dialect.get_or_raise(script.dialect).tokenizer_class
        text = script.text
        if script.dialect in DATABASE_IS_SCHEMA:
            text = unwrap_mysql_executable_comments(text)
        statements = list(
            split_statements(
                text,
                backslash_escapes="\\" in tokenizer.STRING_ESCAPES,
                hash_comments="#" in tokenizer.COMMENTS,
                go_batches=script.dialect in GO_BATCHES,
            )
        )
        for statement in progress(statements, "parsing") if progress else statements:
            if not _change_session(statement.text, session):
                self._apply(statement, session)

    def _apply(self, statement: Statement, session: _Session) -> None:
        label = statement_label(statement.text)
        if label is None:
            return
        parsed = False
        try:
            tree = _parse(statement.text, session.script.dialect or None)
            parsed = not isinstance(tree, exp.Command)  # sqlglot's "kept as raw text"
            problem = self._dispatch(tree, statement, session)
        # Whatever sqlglot raises on odd input (ParseError, TokenError, or worse)
        # must cost this one statement, never the whole import.
        except Exception as error:  # noqa: BLE001
            problem = _describe_error(error, statement.line)
        if problem:
            self._skip(statement, session, label, problem, parsed)

    def _skip(self, statement: Statement, session: _Session, label: str, problem: str, parsed: bool) -> None:
        where = f"{session.script.name}:{statement.line}"
        self.warnings.append(f"{where}: skipped {_shorten(label, 80)}: {problem}")
        if not parsed and self.first_error is None:
            self.first_error = f"{where}: could not parse {_shorten(label, 80)}: {problem}"

    def _dispatch(self, tree: exp.Expression, statement: Statement, session: _Session) -> str | None:
        """Apply one parsed statement; return why it was not applied, if it was not."""
        if isinstance(tree, exp.Create) and tree.kind in ("TABLE", "VIEW"):
            return self._create(tree, statement, session)
        if isinstance(tree, exp.Alter):
            return self._alter(tree, session)
        if isinstance(tree, exp.Comment):
            return self._comment(tree, session)
        return "sqlglot does not support this syntax in this dialect"

    def _create(self, tree: exp.Create, statement: Statement, session: _Session) -> str | None:
        target = tree.this
        node = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(node, exp.Table) or not node.name:
            return "no table name"
        draft = _Draft(schema=node.db or session.schema, name=node.name, kind="table")
        if tree.kind == "VIEW":
            draft.kind, draft.definition = "view", statement.text
            draft.view = (tree, session.search_path, session.script.dialect)
            _add_named_columns(draft, ddl_nodes.output_names(tree))
        else:
            self._fill_table(draft, tree, session)
        key = table_id(draft.schema, draft.name)
        if key in self.drafts and tree.args.get("exists"):
            return None  # CREATE ... IF NOT EXISTS leaves the first definition alone
        self.drafts[key] = draft
        return None

    def _fill_table(self, draft: _Draft, tree: exp.Create, session: _Session) -> None:
        properties = tree.args.get("properties")
        for prop in properties.expressions if properties else ():
            if isinstance(prop, exp.SchemaCommentProperty):
                draft.comment = ddl_nodes.text(prop.this)
            elif isinstance(prop, (exp.InheritsProperty, exp.PartitionedOfProperty, exp.LikeProperty)):
                self._copy_columns(draft, prop, session)
        if isinstance(tree.expression, exp.Query):  # CREATE TABLE ... AS SELECT
            _add_named_columns(draft, ddl_nodes.output_names(tree))
        schema = tree.this if isinstance(tree.this, exp.Schema) else None
        for item in schema.expressions if schema else ():
            if isinstance(item, exp.ColumnDef):
                self._add_column(draft, item, session)
            elif isinstance(item, exp.Identifier):  # SQLite lets a column go without a type
                _add_named_columns(draft, [item.name])
            elif isinstance(item, exp.LikeProperty):
                self._copy_columns(draft, item, session)
            else:
                _add_constraint(draft, item, session)

    def _copy_columns(self, draft: _Draft, prop: exp.Expression, session: _Session) -> None:
        """Start a child table (INHERITS), a partition (PARTITION OF) or a copy (LIKE)
        with the columns of the table(s) it names."""
        sources = prop.expressions if isinstance(prop, exp.InheritsProperty) else [prop.this]
        for source in filter(None, (self._find(s, session) for s in sources)):
            for key, column in source.columns.items():
                draft.columns.setdefault(key, column)

    def _add_column(self, draft: _Draft, node: exp.ColumnDef, session: _Session) -> None:
        column = ddl_nodes.column(node, session.script.dialect)
        draft.columns[column.name.lower()] = column
        for constraint in node.constraints:
            kind = constraint.args.get("kind")
            if isinstance(kind, exp.PrimaryKeyColumnConstraint):
                draft.primary_key = (column.name,)
            elif isinstance(kind, exp.Reference):
                draft.foreign_keys.append(_pending_key((column.name,), kind, constraint.name or None, session))

    def _alter(self, tree: exp.Alter, session: _Session) -> str | None:
        draft = self._find(tree.this, session)
        if draft is None:
            return f"no table {tree.this.sql()} was created before"
        for action in tree.args.get("actions") or ():
            if isinstance(action, exp.ColumnDef):
                self._add_column(draft, action, session)
            elif isinstance(action, exp.AddConstraint):
                for item in action.expressions:
                    _add_constraint(draft, item, session)
        return None

    def _comment(self, tree: exp.Comment, session: _Session) -> str | None:
        target, text = tree.this, ddl_nodes.text(tree.expression)
        if str(tree.args.get("kind")).upper() != "COLUMN":
            draft = self._find(target, session)
            if draft is None:
                return f"no table or view {target.sql()} was created before"
            draft.comment = text
            return None
        draft = self._find(exp.Table(this=target.args.get("table"), db=target.args.get("db")), session)
        column = draft.columns.get(target.name.lower()) if draft else None
        if column is None:
            return f"no column {target.sql()} was created before"
        draft.columns[target.name.lower()] = replace(column, comment=text)
        return None

    def _find(self, node: exp.Table, session: _Session) -> _Draft | None:
        return next((self.drafts[c] for c in session.candidates(node) if c in self.drafts), None)

    def type_views(self) -> None:
        """Give view columns the types of the table columns they are taken from.

        In creation order, so a view over an earlier view sees its types. What cannot
        be traced to a typed column (an expression, a subquery) stays untyped: unknown.
        """
        for draft in self.drafts.values():
            if draft.view is None:
                continue
            tree, path, dialect = draft.view

            def columns_of(node: exp.Table, path: tuple[str, ...] = path, draft=draft) -> dict[str, Column] | None:
                ids = (table_id(node.db, node.name),) if node.db else tuple(table_id(s, node.name) for s in path)
                source = next((self.drafts[i] for i in ids if i in self.drafts), None)
                return source.columns if source is not None and source is not draft else None

            try:
                found = ddl_nodes.view_columns(tree, columns_of, dialect)
            except Exception:  # noqa: BLE001 - an odd tree costs the types, never the view
                continue
            columns: dict[str, Column] = {}
            for column in found:  # a name twice (an engine refuses that view): the first one counts
                columns.setdefault(
                    column.name.lower(), replace(draft.columns.get(column.name.lower(), column), type=column.type)
                )
            for key, column in draft.columns.items():  # named by the DDL but not traced: kept as they were
                columns.setdefault(key, column)
            draft.columns = columns

    def tables(self) -> Iterator[Table]:
        self.type_views()
        for draft in self.drafts.values():
            key = {name.lower() for name in draft.primary_key}
            yield Table(
                schema=draft.schema,
                name=draft.name,
                kind=draft.kind,
                # Key columns cannot hold NULL, whether or not they say NOT NULL.
                columns=tuple(
                    replace(c, nullable=False) if c.name.lower() in key else c for c in draft.columns.values()
                ),
                primary_key=draft.primary_key,
                foreign_keys=tuple(dict.fromkeys(self._resolve(k) for k in draft.foreign_keys)),
                comment=draft.comment,
                definition=draft.definition,
            )

    def _resolve(self, key: _PendingKey) -> ForeignKey:
        target_id = next((t for t in key.targets if t in self.drafts), key.targets[0])
        ref_columns = key.ref_columns
        target = self.drafts.get(target_id)
        if not ref_columns and target and len(target.primary_key) == len(key.columns):
            ref_columns = target.primary_key  # REFERENCES t without columns means t's key
        return ForeignKey(columns=key.columns, ref_table=target_id, ref_columns=ref_columns, name=key.name)


def _parse(text: str, dialect: str | None) -> exp.Expression:
    match = _COMMENT_VALUE.match(text)
    if match is None:
        return sqlglot.parse_one(text, read=dialect)
    # sqlglot reads neither ``IS NULL`` nor E'...' strings in COMMENT ON, so the
    # target and the value are parsed apart.
    tree = sqlglot.parse_one(f"{match['head']} IS ''", read=dialect)
    tree.set("expression", sqlglot.parse_one(f"SELECT {match['value']}", read=dialect).selects[0])
    return tree


def _default_schema(dialect: str) -> str:
    return DEFAULT_SCHEMAS.get(dialect, FALLBACK_SCHEMA)


def _change_session(text: str, session: _Session) -> bool:
    """Follow ``SET search_path`` and ``USE db``; say whether ``text`` was one of them."""
    match = _SEARCH_PATH.match(text) or _PG_DUMP_SEARCH_PATH.match(text)
    if match:
        names = [_unquote(n) for n in match["path"].split(",")]
        # "$user" names a schema per login, which a script cannot know.
        path = tuple(n for n in names if n and n != "$user" and n.lower() != "default")
        session.search_path = path or (_default_schema(session.script.dialect),)
        return True
    if session.script.dialect in DATABASE_IS_SCHEMA and (match := _USE_DATABASE.match(text)):
        session.search_path = (_unquote(match["name"]),)
        return True
    return False


def _add_constraint(draft: _Draft, item: exp.Expression, session: _Session) -> None:
    """Apply a table-level PRIMARY KEY or FOREIGN KEY; other constraints say nothing we keep."""
    named = isinstance(item, exp.Constraint)  # CONSTRAINT name PRIMARY KEY (...)
    name = (item.name or None) if named else None
    for node in item.expressions if named else (item,):
        if isinstance(node, exp.PrimaryKey):
            draft.primary_key = ddl_nodes.key_names(node.expressions)
        elif isinstance(node, exp.ForeignKey) and node.args.get("reference"):
            columns = ddl_nodes.key_names(node.expressions)
            draft.foreign_keys.append(_pending_key(columns, node.args["reference"], name, session))


def _pending_key(
    columns: tuple[str, ...], reference: exp.Reference, name: str | None, session: _Session
) -> _PendingKey:
    target = reference.this
    node = target.this if isinstance(target, exp.Schema) else target
    ref_columns = ddl_nodes.key_names(target.expressions) if isinstance(target, exp.Schema) else ()
    return _PendingKey(columns, session.candidates(node), ref_columns, name)


def _add_named_columns(draft: _Draft, names: list[str]) -> None:
    for name in names:
        draft.columns.setdefault(name.lower(), Column(name=name))


def _unquote(name: str) -> str:
    return name.strip().strip("\"'`[]")


def _describe_error(error: Exception, line: int) -> str:
    """A one-line account of a sqlglot failure, with the line it points at."""
    details = getattr(error, "errors", None)
    if details:
        first = details[0]
        where = f" at line {line + first.get('line', 1) - 1}" if first.get("line") else ""
        near = f" near {first['highlight']!r}" if first.get("highlight") else ""
        return _shorten(f"{first.get('description', error)}{where}{near}", 160)
    message = str(error) or type(error).__name__
    return _shorten(message.splitlines()[0], 160)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    # sqlglot logs a warning for each statement it keeps as an opaque Command;
    # those statements are reported as warnings on the catalog instead.
    logger = logging.getLogger("sqlglot")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous)
