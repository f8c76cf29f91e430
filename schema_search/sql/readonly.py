"""Whether SQL is one read-only query: the rules as data, each a small check of the parse tree.

:func:`read_only_query` parses the text (one statement, bounded length) and applies
:data:`RULES` in order; each rule takes the tree and the dialect and returns why the
statement is refused, or ``None``, as sqlglot's optimizer applies its rules in turn.
Everything is decided on sqlglot's parse tree, never by matching strings: a ``DROP``
hidden behind a comment, a ``DELETE`` inside a CTE or ``SELECT ... INTO`` are nodes like
any other. Checking is a first line; the engines are still opened read-only.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError
from sqlglot.optimizer.scope import Scope, traverse_scope

from ..errors import first_line
from .functions import allowed_functions, allowed_somewhere, function_name
from .names import identifier_key

# Longer SQL is refused unparsed: no answer to a question needs it, and parsing costs.
MAX_SQL_CHARS = 100_000
# Nodes a query may have once output aliases it reuses are expanded (see expanded_size);
# the column checker and DuckDB expand them, doubling with each chained name.
MAX_EXPANDED_NODES = 50_000
# Schemas whose functions are the engine's own, per dialect, as the dialect folds names
# (PostgreSQL reserves only a lower-case pg_ prefix: "PG_CATALOG" may be anyone's schema).
_BUILT_IN_SCHEMAS = {"postgres": {"pg_catalog"}, "sqlite": {"main"}, "duckdb": {"main", "system", "pg_catalog"}}

# Nodes that write, change session state, or are not plain queries, wherever they appear.
_FORBIDDEN_NODES = tuple(
    getattr(exp, name)
    for name in (
        "DML",
        "DDL",
        "Insert",
        "Update",
        "Delete",
        "Merge",
        "Create",
        "Drop",
        "Alter",
        "TruncateTable",
        "Copy",
        "Command",
        "Set",
        "Pragma",
        "Into",
        "Lock",
        "Transaction",
        "Commit",
        "Rollback",
        "Use",
        "Attach",
        "Detach",
        "Install",
        "Analyze",
        "Grant",
        "Revoke",
        "Kill",
        "Comment",
        "LoadData",
        "Refresh",
        "Cache",
        "Uncache",
        "Export",
        "Declare",
        "Execute",
        "Put",
        "Get",
    )
    if hasattr(exp, name)
)

# Functions that read files, run SQL given as a string, change settings, or touch the
# server; refused even though read-only engines stop most of them again.
_FORBIDDEN_FUNCTIONS = frozenset(
    {
        # PostgreSQL
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_stat_file",
        "pg_ls_logdir",
        "pg_ls_waldir",
        "lo_import",
        "lo_export",
        "lo_from_bytea",
        "lo_put",
        "lo_create",
        "lo_unlink",
        "dblink",
        "dblink_exec",
        "dblink_connect",
        "dblink_send_query",
        "set_config",
        "pg_sleep",
        "pg_sleep_for",
        "pg_sleep_until",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_advisory_lock",
        "pg_advisory_xact_lock",
        "nextval",
        "setval",
        "query_to_xml",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "table_to_xml",
        "schema_to_xml",
        "database_to_xml",
        "pg_notify",
        "txid_current",
        "pg_current_xact_id",
        # DuckDB
        "read_csv",
        "read_csv_auto",
        "read_parquet",
        "parquet_scan",
        "read_json",
        "read_json_auto",
        "read_ndjson",
        "read_ndjson_auto",
        "read_text",
        "read_blob",
        "glob",
        "sniff_csv",
        "query",
        "query_table",
        "getenv",
        "install",
        "load",
        # SQLite
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "fts3_tokenizer",
    }
)


Rule = Callable[[exp.Expression, str | None], str | None]


def no_writes(tree: exp.Expression, dialect: str | None) -> str | None:
    """No node that writes, changes session state or is not a plain query, wherever it stands.

    >>> no_writes(sqlglot.parse_one("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", read="postgres"), "postgres")
    'Only read-only queries are allowed; found DELETE.'
    """
    forbidden = next((node for node in tree.walk() if isinstance(node, _FORBIDDEN_NODES)), None)
    return None if forbidden is None else f"Only read-only queries are allowed; found {_node_name(forbidden)}."


def query_only(tree: exp.Expression, dialect: str | None) -> str | None:
    """The statement is a query: SELECT, WITH ... SELECT or a set operation.

    >>> query_only(sqlglot.parse_one("SELECT 1 UNION SELECT 2"), None) is None
    True
    >>> query_only(sqlglot.parse_one("SHOW TABLES", read="mysql"), "mysql")
    'Only a query (SELECT, WITH ... SELECT, UNION) is allowed; found SHOW.'
    """
    if isinstance(tree, exp.Query):
        return None
    return f"Only a query (SELECT, WITH ... SELECT, UNION) is allowed; found {_node_name(tree)}."


def no_forbidden_functions(tree: exp.Expression, dialect: str | None) -> str | None:
    """No function that reads files, runs SQL given as text or changes state, by name.

    >>> no_forbidden_functions(sqlglot.parse_one("SELECT pg_read_file('/etc/passwd')", read="postgres"), "postgres")
    'The function pg_read_file() is not allowed: it reads files, runs SQL text or changes state.'
    """
    for function in tree.find_all(exp.Func):
        name = function_name(function)
        if name in _FORBIDDEN_FUNCTIONS:
            return f"The function {name}() is not allowed: it reads files, runs SQL text or changes state."
    return None


def no_schema_operators(tree: exp.Expression, dialect: str | None) -> str | None:
    """No ``OPERATOR(schema.op)`` outside ``pg_catalog``: its owner decides what it runs.

    >>> no_schema_operators(sqlglot.parse_one("SELECT 1 OPERATOR(public.+) 2", read="postgres"), "postgres")[:38]
    'The operator OPERATOR(public.+) is not'
    """
    for operator in tree.find_all(exp.Operator):
        written = str(operator.args.get("operator") or "")
        if not written.lower().startswith("pg_catalog."):
            return (
                f"The operator OPERATOR({written}) is not allowed: an operator named with its schema can run "
                "any function its owner planted. Write the operator itself (=, <, @>, ...)."
            )
    return None


def bounded_expansion(tree: exp.Expression, dialect: str | None) -> str | None:
    """The query stays small once every reused output name is replaced by what it stands for.

    >>> bounded_expansion(sqlglot.parse_one("SELECT 'x' AS s0, s0 || s0 AS s1"), None) is None
    True
    """
    expanded = expanded_size(tree)
    if expanded <= MAX_EXPANDED_NODES:
        return None
    return (
        f"The query expands to about {expanded:,} expressions once each output name is replaced by what it "
        f"stands for (the limit is {MAX_EXPANDED_NODES:,}): repeat the expression instead of chaining names."
    )


def built_in_types(tree: exp.Expression, dialect: str | None) -> str | None:
    """Casts only to built-in types: a type the database defines runs its own checks and casts.

    >>> built_in_types(sqlglot.parse_one("SELECT CAST(a AS mood) FROM t", read="postgres"), "postgres")[:31]
    'The type mood is not allowed: a'
    """
    for data_type in tree.find_all(exp.DataType):
        if data_type.this == exp.DataType.Type.USERDEFINED:
            return (
                f"The type {data_type.sql(dialect=dialect)} is not allowed: a cast to a type the database defines "
                "runs its checks and cast functions. Cast to a built-in type (INTEGER, TEXT, DATE, NUMERIC, ...)."
            )
    return None


def built_in_functions(tree: exp.Expression, dialect: str | None) -> str | None:
    """Only the allow-listed built-in functions (:mod:`.functions`), and none named with a database schema.

    >>> built_in_functions(sqlglot.parse_one("SELECT public.report_total()", read="postgres"), "postgres")[:50]
    'The function public.report_total() is not allowed:'
    >>> built_in_functions(sqlglot.parse_one("SELECT randomblob(9)", read="sqlite"), "sqlite").split(":")[0]
    'The function randomblob() is not allowed'
    """
    allowed = allowed_functions(dialect)
    for function in tree.find_all(exp.Func):
        name = function_name(function)
        qualifier = _function_qualifier(function, dialect)
        if qualifier and qualifier not in _BUILT_IN_SCHEMAS.get(dialect or "", set()):
            return (
                f"The function {qualifier}.{name}() is not allowed: only built-in functions may be called, "
                "and a function in a database schema can do anything its owner can."
            )
        if name not in allowed:
            written = function.sql(dialect=dialect).split("(")[0].strip().lower() or name
            if allowed_somewhere(name):  # allowed in another dialect: this one has no such function
                return (
                    f"The function {name}() is not one {dialect} runs as written (it would be rewritten into "
                    "other functions, or has no counterpart there): write it with the dialect's own functions."
                )
            return (
                f"The function {written}() is not allowed: queries may call only built-in functions without side "
                "effects (aggregates, string, number, date and JSON functions, CASE, CAST)."
            )
    return None


# In order: the first rule that refuses names the reason.
RULES: tuple[Rule, ...] = (
    no_writes,
    query_only,
    no_forbidden_functions,
    no_schema_operators,
    bounded_expansion,
    built_in_types,
    built_in_functions,
)


def read_only_query(sql: str, dialect: str | None, rules: tuple[Rule, ...] = RULES) -> tuple[exp.Query | None, str]:
    """The parse tree of the single query in ``sql``, or ``None`` and why not.

    >>> read_only_query("SELECT 1; SELECT 2", "sqlite")
    (None, 'Only one statement is allowed; found 2.')
    """
    tree, error = one_statement(sql, dialect)
    if tree is None:
        return None, error
    for rule in rules:
        error = rule(tree, dialect)
        if error:
            return None, error
    return tree, ""


def one_statement(sql: str, dialect: str | None) -> tuple[exp.Expression | None, str]:
    """The parse tree of the one statement in ``sql`` (bounded in length), or ``None`` and why not."""
    if len(sql or "") > MAX_SQL_CHARS:
        return None, f"The SQL is {len(sql)} characters long; the limit is {MAX_SQL_CHARS}."
    try:
        trees = sqlglot.parse(sql or "", read=dialect)
    except (ParseError, TokenError) as error:
        return None, f"The SQL does not parse as {dialect or 'SQL'}: {first_line(error)}"
    except (SqlglotError, ValueError) as error:  # e.g. an unknown dialect name
        return None, f"Cannot read the SQL: {first_line(error)}"
    statements = [t for t in trees if t is not None and not isinstance(t, exp.Semicolon)]
    if not statements:
        return None, "The SQL is empty."
    if len(statements) > 1:
        return None, f"Only one statement is allowed; found {len(statements)}."
    return statements[0], ""


def expanded_size(tree: exp.Expression) -> int:
    """How many nodes ``tree`` has once each reference to an output name is replaced by the
    expression it names: an alias of the same SELECT (``SELECT 'x' AS s0, s0 || s0 AS s1``,
    which the column checker and DuckDB expand) or a column of a CTE or derived table
    (``WITH c1 AS (SELECT s || s AS s FROM c0), c2 AS (SELECT s || s AS s FROM c1)``,
    which PostgreSQL's planner inlines, past any timeout). Doubling at each step, 30 such
    names are a billion nodes. Counted without expanding anything.

    >>> expanded_size(sqlglot.parse_one("SELECT 'x' AS s0, s0 || s0 AS s1, s1 || s1 AS s2"))
    11
    >>> expanded_size(sqlglot.parse_one("WITH a AS (SELECT 'x' AS s), b AS (SELECT s || s AS s FROM a) SELECT s || s FROM b"))
    11
    """
    try:
        scopes = list(traverse_scope(tree))  # inner scopes first: a CTE before what reads it
    except (SqlglotError, KeyError, AttributeError, TypeError, ValueError):
        scopes = []
    outputs: dict[int, dict[str, int]] = {}  # per query: the size of each output column
    total = 0
    for scope in scopes:
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        sources = {
            name: outputs.get(id(source.expression), {})
            for name, source in scope.sources.items()
            if isinstance(source, Scope)
        }
        sizes: dict[str, int] = {}

        def size(node: exp.Expression, sources=sources, sizes=sizes) -> int:
            if isinstance(node, exp.Column):
                if node.table:
                    return sources.get(node.table, {}).get(node.name, 1)
                if node.name in sizes:
                    return sizes[node.name]
                return max((columns.get(node.name, 1) for columns in sources.values()), default=1)
            return 1 + sum(size(child) for child in node.iter_expressions() if not isinstance(child, exp.Query))

        for projection in select.expressions:
            sizes[projection.alias_or_name] = size(projection.this if isinstance(projection, exp.Alias) else projection)
            total += sizes[projection.alias_or_name]
        for key in ("where", "group", "having", "qualify", "order"):
            if select.args.get(key) is not None:
                total += size(select.args[key])
        outputs[id(select)] = sizes
        if total > MAX_EXPANDED_NODES:
            break
    return total


def _function_qualifier(function: exp.Func, dialect: str | None) -> str:
    """``public`` for ``public.report_total()`` (sqlglot reads a qualified call as a dot over
    the call), folded as the dialect folds names: ``"PG_CATALOG"`` stays upper case."""
    parent = function.parent
    if isinstance(parent, exp.Dot) and parent.expression is function:
        return identifier_key(parent.this, dialect) if isinstance(parent.this, exp.Identifier) else parent.this.sql()
    return ""


def _node_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Command):
        return f"{str(node.this).upper()} (a command)"
    key = node.key.upper()
    return {"INTO": "SELECT ... INTO", "LOCK": "a locking clause (FOR UPDATE/SHARE)"}.get(key, key)
