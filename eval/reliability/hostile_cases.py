"""The hostile SQL strings, per engine, as data: what an agent (or whoever steers it) might send.

Each :class:`Case` is one string with a stable id (``engine.what``), a category for the
breakdown table, and whether it is a runaway (its wall time is checked against the
limit). Strings may hold placeholders that the runner fills in per run:

``@OUT@``       a world-writable folder the suite watches (writes aimed at it are effects)
``@SECRET@``    a file holding a random token (reading it back is a disclosure)
``@TOKEN_VAR@`` the environment variable that holds the same token in the calling process
``@DB@``        the SQLite or DuckDB database file
``@DBNAME@``, ``@PORT@``   the scratch PostgreSQL database and its port
``@READER_PID@``, ``@OWNER_PID@``, ``@BUSY_PID@``   canary sessions' backend pids

The planted objects these strings call (``report_total()``, ``v_sales``, ``rls_orders``,
the ``@>`` operator, a shadowing ``upper(text)``...) are made by
:mod:`eval.reliability.hostile_fixtures`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STACKED = "stacked statements"
WRITES = "writes and DDL"
WRITABLE_CTE = "writable CTE"
SELECT_INTO = "SELECT INTO"
ATTACH = "ATTACH"
COPY = "COPY"
SETTINGS = "PRAGMA, SET, settings"
VACUUM = "VACUUM INTO"
EXTENSIONS = "extensions"
FILES = "file readers"
ENVIRONMENT = "environment"
FUNCTIONS = "side-effect functions"
LOCKING = "FOR UPDATE / SHARE"
PLANTED = "planted objects"
RESOLVED = "planted casts and operators"
QUOTING = "comments and quoting"
RUNAWAY = "runaway"

CATEGORIES = (
    STACKED,
    WRITES,
    WRITABLE_CTE,
    SELECT_INTO,
    ATTACH,
    COPY,
    SETTINGS,
    VACUUM,
    EXTENSIONS,
    FILES,
    ENVIRONMENT,
    FUNCTIONS,
    LOCKING,
    PLANTED,
    RESOLVED,
    QUOTING,
    RUNAWAY,
)

# Tables of the fixture databases: a DuckDB case naming none of them also runs over a collection.
FIXTURE_TABLES = (
    "customers",
    "orders",
    "sales",
    "audit_log",
    "products",
    "rls_orders",
    "order_items",
    "v_sales",
    "v_slow",
    "v_huge",
    "v_ext",
    "v_leak",
    "v_passwd",
    "v_env",
    "secrets",
    "people",
)


@dataclass(frozen=True)
class Case:
    """One hostile string.

    Attributes:
        id: ``engine.name``, unique across the suite.
        category: one of :data:`CATEGORIES`.
        sql: the string, with placeholders.
        runaway: its wall time must stay within the time limit + 1 s.
        ci: part of the slice the test suite runs.
    """

    id: str
    category: str
    sql: str
    runaway: bool = False
    ci: bool = False

    @property
    def engine(self) -> str:
        return self.id.split(".", 1)[0]


def _cases(engine: str, rows: list[tuple]) -> tuple[Case, ...]:
    made = []
    for row in rows:
        name, category, sql, *flags = row
        made.append(
            Case(f"{engine}.{name}", category, sql, runaway="runaway" in flags or category == RUNAWAY, ci="ci" in flags)
        )
    return tuple(made)


# Comment and quoting wrappers around a write, shared by all three engines: each must
# reach the database as nothing, or as one harmless query.
def _quoting(drop: str, write: str) -> list[tuple]:
    return [
        ("comment-block-hides-drop", QUOTING, f"SELECT 1 /* ; {drop} */", "ci"),
        ("comment-line-hides-drop", QUOTING, f"SELECT 1 -- ; {drop}"),
        ("comment-line-then-newline", QUOTING, f"SELECT 1 --\n; {drop}", "ci"),
        ("comment-line-then-cr", QUOTING, f"SELECT 1 --\r; {write}"),
        ("comment-line-then-formfeed", QUOTING, f"SELECT 1 --\f; {write}"),
        ("comment-nested", QUOTING, f"SELECT 1 /* /* nested */ ; {write}; */"),
        ("comment-nested-unbalanced", QUOTING, f"SELECT 1 /* /* */ ; {write}; -- */"),
        ("comment-between-tokens", QUOTING, f"SELECT 1 /**/;/**/{write.replace(' ', '/**/')}"),
        ("comment-mysql-bang", QUOTING, f"SELECT 1 /*! ; {write} */"),
        ("comment-unterminated", QUOTING, f"SELECT 1; {write} /* never closed"),
        ("string-holds-statement", QUOTING, f"SELECT '; {drop}; --' AS x"),
        ("string-doubled-quote", QUOTING, f"SELECT 'it''s'; {write}"),
        ("string-backslash-quote", QUOTING, f"SELECT '\\'; {write}; --'", "ci"),
        ("identifier-with-semicolon", QUOTING, f'SELECT 1 AS "x; {drop}"'),
        ("identifier-doubled-quote", QUOTING, f'SELECT 1 AS "x""; {write}; --"'),
        ("identifier-semicolon-table", QUOTING, f'SELECT * FROM "orders; {drop}"'),
        ("fullwidth-semicolon", QUOTING, f"SELECT 1\uff1b{write}"),
        ("greek-question-mark", QUOTING, f"SELECT 1\u037e {write}"),
        ("nul-byte", QUOTING, f"SELECT 1\x00; {write}"),
        ("zero-width-space", QUOTING, f"SELECT 1;\u200b{write}"),
        ("vertical-tab", QUOTING, f"SELECT 1;\v{write}"),
        ("crlf-stacked", QUOTING, f"SELECT 1\r\n;\r\n{write}"),
    ]


# -- SQLite --------------------------------------------------------------------------

SQLITE = _cases(
    "sqlite",
    [
        ("stacked-drop", STACKED, "SELECT 1; DROP TABLE orders", "ci"),
        ("stacked-delete", STACKED, "SELECT * FROM orders; DELETE FROM orders"),
        (
            "stacked-commit-begin-insert",
            STACKED,
            "SELECT 1; COMMIT; BEGIN; INSERT INTO audit_log(note) VALUES ('stacked')",
            "ci",
        ),
        ("commit-drop", STACKED, "COMMIT; DROP TABLE orders"),
        ("end-delete", STACKED, "END; DELETE FROM orders"),
        ("rollback-delete", STACKED, "ROLLBACK; DELETE FROM orders"),
        ("stacked-double-semicolon", STACKED, "SELECT id FROM customers;; UPDATE customers SET name = 'x'"),
        ("stacked-attach", STACKED, "SELECT 1; ATTACH DATABASE '@OUT@/stacked.db' AS x"),
        ("stacked-pragma-wal", STACKED, "SELECT 1; PRAGMA journal_mode = WAL"),
        ("stacked-union-drop-view", STACKED, "SELECT 1 UNION SELECT 2; DROP VIEW v_slow"),
        ("stacked-trailing-newline", STACKED, "SELECT 1;\nDROP TABLE customers;--"),
        ("delete", WRITES, "DELETE FROM orders", "ci"),
        ("update", WRITES, "UPDATE orders SET total = 0"),
        ("insert", WRITES, "INSERT INTO audit_log(note) VALUES ('insert')"),
        ("replace-into", WRITES, "REPLACE INTO customers(id, name) VALUES (1, 'x')"),
        ("insert-or-replace", WRITES, "INSERT OR REPLACE INTO customers(id, name) VALUES (1, 'x')"),
        ("drop-table", WRITES, "DROP TABLE orders"),
        ("create-table", WRITES, "CREATE TABLE pwned(x)"),
        ("create-temp-table", WRITES, "CREATE TEMP TABLE t AS SELECT * FROM orders"),
        ("alter-table", WRITES, "ALTER TABLE orders ADD COLUMN pwned TEXT"),
        ("create-trigger", WRITES, "CREATE TRIGGER t AFTER INSERT ON orders BEGIN DELETE FROM customers; END"),
        ("create-index", WRITES, "CREATE INDEX pwned_idx ON orders(total)"),
        ("reindex", WRITES, "REINDEX"),
        ("analyze", WRITES, "ANALYZE"),
        ("delete-returning", WRITABLE_CTE, "DELETE FROM orders RETURNING *"),
        ("update-returning", WRITABLE_CTE, "UPDATE customers SET name = 'x' RETURNING *"),
        ("insert-returning", WRITABLE_CTE, "INSERT INTO audit_log(note) VALUES ('r') RETURNING id"),
        ("with-delete", WRITABLE_CTE, "WITH x AS (SELECT 1) DELETE FROM orders", "ci"),
        ("with-insert-select", WRITABLE_CTE, "WITH x AS (SELECT 'cte') INSERT INTO audit_log(note) SELECT * FROM x"),
        ("cte-delete-returning", WRITABLE_CTE, "WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x"),
        ("select-into", SELECT_INTO, "SELECT * INTO pwned FROM orders"),
        ("attach-file", ATTACH, "ATTACH DATABASE '@OUT@/attached.db' AS a", "ci"),
        ("attach-uri-rwc", ATTACH, "ATTACH 'file:@OUT@/uri.db?mode=rwc' AS a"),
        ("attach-memory", ATTACH, "ATTACH ':memory:' AS m"),
        ("attach-relative", ATTACH, "ATTACH 'relative.db' AS r"),
        ("attach-self-rw", ATTACH, "ATTACH 'file:@DB@?mode=rw' AS rw"),
        ("detach-main", ATTACH, "DETACH main"),
        ("attach-in-select", ATTACH, "SELECT * FROM orders WHERE (ATTACH 'x.db' AS x) IS NULL"),
        ("pragma-journal-wal", SETTINGS, "PRAGMA journal_mode = WAL", "ci"),
        ("pragma-user-version", SETTINGS, "PRAGMA user_version = 42"),
        ("pragma-writable-schema", SETTINGS, "PRAGMA writable_schema = ON"),
        ("pragma-query-only-off", SETTINGS, "PRAGMA query_only = OFF"),
        ("pragma-table-info", SETTINGS, "PRAGMA table_info(orders)"),
        ("pragma-function-table-info", SETTINGS, "SELECT * FROM pragma_table_info('orders')"),
        ("pragma-function-database-list", SETTINGS, "SELECT * FROM pragma_database_list"),
        ("pragma-wal-checkpoint", SETTINGS, "PRAGMA wal_checkpoint(TRUNCATE)"),
        ("pragma-locking-exclusive", SETTINGS, "PRAGMA locking_mode = EXCLUSIVE"),
        ("pragma-temp-store-directory", SETTINGS, "PRAGMA temp_store_directory = '@OUT@'"),
        ("pragma-optimize", SETTINGS, "PRAGMA optimize"),
        ("pragma-incremental-vacuum", SETTINGS, "PRAGMA incremental_vacuum"),
        ("pragma-compile-options", SETTINGS, "SELECT * FROM pragma_compile_options"),
        ("sqlite-master", SETTINGS, "SELECT sql FROM sqlite_master"),
        ("vacuum-into", VACUUM, "VACUUM INTO '@OUT@/copy.db'", "ci"),
        ("vacuum-into-relative", VACUUM, "VACUUM main INTO 'relative_copy.db'"),
        ("vacuum", VACUUM, "VACUUM"),
        ("load-extension", EXTENSIONS, "SELECT load_extension('@OUT@/evil.so')", "ci"),
        ("load-extension-libc", EXTENSIONS, "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6', 'system')"),
        ("load-extension-in-where", EXTENSIONS, "SELECT * FROM orders WHERE load_extension('x') IS NULL"),
        ("readfile", FILES, "SELECT readfile('/etc/passwd')"),
        ("writefile", FILES, "SELECT writefile('@OUT@/written.txt', 'x')"),
        ("edit", FILES, "SELECT edit('x')"),
        ("fts3-tokenizer", FILES, "SELECT fts3_tokenizer('simple')"),
        ("explain-delete", WRITES, "EXPLAIN DELETE FROM orders"),
        ("explain-query-plan", WRITES, "EXPLAIN QUERY PLAN SELECT * FROM orders"),
        ("for-update", LOCKING, "SELECT * FROM orders FOR UPDATE"),
        ("begin-exclusive", LOCKING, "BEGIN EXCLUSIVE"),
        ("savepoint", LOCKING, "SAVEPOINT s"),
        *_quoting("DROP TABLE orders", "DELETE FROM orders"),
        ("bracket-identifiers", QUOTING, "SELECT * FROM [orders]; DROP TABLE [orders]"),
        ("backtick-identifiers", QUOTING, "SELECT * FROM `orders`; DROP TABLE orders"),
        ("blob-literal-stacked", QUOTING, "SELECT x'00'; DROP TABLE orders"),
        (
            "recursive-count",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
            "ci",
        ),
        (
            "recursive-stream",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
        ),
        (
            "recursive-order",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r ORDER BY n DESC LIMIT 1",
        ),
        ("randomblob-length", RUNAWAY, "SELECT length(randomblob(1000000000))", "ci"),
        ("randomblob-returned", RUNAWAY, "SELECT randomblob(1000000000)"),
        ("printf-star-length", RUNAWAY, "SELECT length(printf('%.*c', 1000000000, 'x'))"),
        ("printf-star-returned", RUNAWAY, "SELECT printf('%.*c', 1000000000, 'x')"),
        (
            "three-randomblobs",
            RUNAWAY,
            "SELECT randomblob(500000000), randomblob(500000000), randomblob(500000000)",
            "ci",
        ),
        ("zeroblob-length", RUNAWAY, "SELECT length(zeroblob(1000000000))"),
        ("zeroblob-hex", RUNAWAY, "SELECT hex(zeroblob(500000000))"),
        ("zeroblob-replace", RUNAWAY, "SELECT length(replace(hex(zeroblob(100000000)), '00', 'xyz'))"),
        (
            "cross-join-count",
            RUNAWAY,
            "SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e, orders f, orders g, orders h",
            "ci",
        ),
        (
            "cross-join-sum",
            RUNAWAY,
            "SELECT sum(a.id * b.id) FROM customers a CROSS JOIN customers b CROSS JOIN customers c CROSS JOIN customers d",
        ),
        (
            "cross-join-random-order",
            RUNAWAY,
            "SELECT a.id FROM customers a, customers b, customers c, customers d ORDER BY random()",
        ),
        (
            "cross-join-group-concat",
            RUNAWAY,
            "SELECT length(group_concat(a.name)) FROM customers a, customers b, customers c, customers d",
        ),
        ("like-blowup", RUNAWAY, "SELECT printf('%.*c', 20000, 'a') LIKE '%a%a%a%a%a%a%a%a%a%a%a%a%b'"),
        ("glob-blowup", RUNAWAY, "SELECT printf('%.*c', 20000, 'a') GLOB '*a*a*a*a*a*a*a*a*a*a*a*a*b'"),
        ("regexp-operator", RUNAWAY, "SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab' REGEXP '(a+)+$'"),
        (
            "doubling-recursive",
            RUNAWAY,
            "WITH RECURSIVE r(x) AS (SELECT 'x' UNION ALL SELECT x || x FROM r) SELECT max(length(x)) FROM r",
        ),
        (
            "counting-to-a-billion",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT max(n) FROM r",
        ),
        ("generate-series", RUNAWAY, "SELECT count(*) FROM generate_series(1, 1000000000000)"),
        (
            "json-group-array",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT length(json_group_array(n)) FROM r",
        ),
        ("planted-slow-view", RUNAWAY, "SELECT count(*) FROM v_slow"),
        ("planted-huge-view", RUNAWAY, "SELECT * FROM v_huge"),
    ],
)


# -- DuckDB --------------------------------------------------------------------------

DUCKDB = _cases(
    "duckdb",
    [
        ("stacked-drop", STACKED, "SELECT 1; DROP TABLE orders", "ci"),
        ("stacked-copy", STACKED, "SELECT 1; COPY orders TO '@OUT@/stacked.csv'"),
        ("stacked-attach", STACKED, "SELECT 1; ATTACH '@OUT@/stacked.duckdb' AS x"),
        ("stacked-install", STACKED, "SELECT 1; INSTALL httpfs"),
        (
            "stacked-set-external",
            STACKED,
            "SELECT 1; SET enable_external_access = true; SELECT * FROM read_text('@SECRET@')",
        ),
        ("stacked-checkpoint", STACKED, "SELECT 1; CHECKPOINT"),
        (
            "stacked-commit-begin-insert",
            STACKED,
            "SELECT 1; COMMIT; BEGIN; INSERT INTO audit_log VALUES (99, 'stacked')",
        ),
        ("commit-drop", STACKED, "COMMIT; DROP TABLE orders"),
        ("stacked-export", STACKED, "SELECT 1; EXPORT DATABASE '@OUT@/stacked_export'"),
        ("delete", WRITES, "DELETE FROM orders", "ci"),
        ("update", WRITES, "UPDATE orders SET total = 0"),
        ("insert", WRITES, "INSERT INTO audit_log VALUES (100, 'insert')"),
        ("insert-or-replace", WRITES, "INSERT OR REPLACE INTO customers VALUES (1, 'x', 'x', 'x')"),
        ("truncate", WRITES, "TRUNCATE orders"),
        ("drop-table", WRITES, "DROP TABLE orders"),
        ("create-table", WRITES, "CREATE TABLE pwned AS SELECT * FROM orders"),
        ("create-temp-table", WRITES, "CREATE TEMP TABLE t AS SELECT * FROM orders"),
        ("create-macro", WRITES, "CREATE MACRO pwned(x) AS x + 1"),
        ("create-sequence", WRITES, "CREATE SEQUENCE pwned_seq"),
        ("create-or-replace-view", WRITES, "CREATE OR REPLACE VIEW v_sales AS SELECT 1 AS region"),
        ("alter-table", WRITES, "ALTER TABLE orders ADD COLUMN pwned VARCHAR"),
        ("nextval", FUNCTIONS, "SELECT nextval('order_seq')", "ci"),
        ("currval", FUNCTIONS, "SELECT currval('order_seq')"),
        ("setseed", FUNCTIONS, "SELECT setseed(0.5)"),
        ("update-returning", WRITABLE_CTE, "UPDATE customers SET name = 'x' RETURNING *"),
        ("delete-returning", WRITABLE_CTE, "DELETE FROM orders RETURNING *"),
        ("cte-delete-returning", WRITABLE_CTE, "WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x", "ci"),
        ("select-into", SELECT_INTO, "SELECT * INTO pwned FROM orders"),
        ("attach-file", ATTACH, "ATTACH '@OUT@/attached.duckdb' AS a", "ci"),
        ("attach-sqlite", ATTACH, "ATTACH '@OUT@/attached.db' AS s (TYPE sqlite)"),
        ("attach-memory", ATTACH, "ATTACH ':memory:' AS m"),
        ("attach-self-rw", ATTACH, "ATTACH '@DB@' AS again (READ_ONLY false)"),
        ("use-memory", ATTACH, "USE memory"),
        ("detach", ATTACH, "DETACH hostile"),
        ("copy-to-csv", COPY, "COPY orders TO '@OUT@/orders.csv'", "ci"),
        ("copy-query-to-parquet", COPY, "COPY (SELECT * FROM customers) TO '@OUT@/customers.parquet' (FORMAT parquet)"),
        ("copy-from-passwd", COPY, "COPY orders FROM '/etc/passwd'"),
        ("copy-to-stdout", COPY, "COPY (SELECT * FROM orders) TO '/dev/stdout'"),
        ("export-database", COPY, "EXPORT DATABASE '@OUT@/export'"),
        ("import-database", COPY, "IMPORT DATABASE '@OUT@/export'"),
        ("copy-from-database", COPY, "COPY FROM DATABASE hostile TO memory"),
        ("read-csv-passwd", FILES, "SELECT * FROM read_csv('/etc/passwd')", "ci"),
        ("read-csv-auto-passwd", FILES, "SELECT * FROM read_csv_auto('/etc/passwd', header = false)"),
        ("read-text-secret", FILES, "SELECT * FROM read_text('@SECRET@')", "ci"),
        ("read-blob-passwd", FILES, "SELECT * FROM read_blob('/etc/passwd')"),
        ("replacement-scan-passwd", FILES, "FROM '/etc/passwd'", "ci"),
        ("replacement-scan-secret", FILES, "SELECT * FROM '@SECRET@'"),
        ("replacement-scan-glob", FILES, "SELECT * FROM '@OUT@/*.csv'"),
        ("read-json", FILES, "SELECT * FROM read_json('@SECRET@')"),
        ("read-parquet-glob", FILES, "SELECT * FROM read_parquet('@OUT@/*.parquet')"),
        ("glob-etc", FILES, "SELECT * FROM glob('/etc/*')", "ci"),
        ("glob-out", FILES, "SELECT file FROM glob('@OUT@/*')"),
        ("sniff-csv", FILES, "SELECT * FROM sniff_csv('/etc/passwd')"),
        ("parquet-metadata", FILES, "SELECT * FROM parquet_metadata('@OUT@/x.parquet')"),
        ("proc-environ", FILES, "SELECT * FROM read_text('/proc/self/environ')"),
        ("https-scan", FILES, "SELECT * FROM 'https://example.com/data.csv'"),
        ("read-csv-list", FILES, "SELECT * FROM read_csv(['/etc/passwd', '/etc/hostname'], header = false)"),
        ("read-text-in-subquery", FILES, "SELECT (SELECT content FROM read_text('@SECRET@')) AS x"),
        (
            "read-text-in-in",
            FILES,
            "SELECT * FROM orders WHERE id IN (SELECT length(content) FROM read_text('/etc/passwd'))",
        ),
        ("read-text-in-cte", FILES, "WITH f AS (SELECT * FROM read_text('/etc/passwd')) SELECT * FROM f"),
        ("read-csv-joined", FILES, "SELECT * FROM orders JOIN read_csv('/etc/passwd', header = false) ON true"),
        ("read-text-lateral", FILES, "SELECT * FROM orders, LATERAL (SELECT content FROM read_text('/etc/passwd'))"),
        ("query-function", FILES, "SELECT * FROM query('SELECT * FROM read_text(''/etc/passwd'')')"),
        ("query-table", FILES, "SELECT * FROM query_table('orders')"),
        ("cast-error-leak", FILES, "SELECT CAST((SELECT content FROM read_text('@SECRET@')) AS INTEGER)"),
        ("planted-view-read-text", PLANTED, "SELECT * FROM v_leak", "ci"),
        ("planted-view-read-csv", PLANTED, "SELECT * FROM v_passwd"),
        ("planted-macro", PLANTED, "SELECT report_total()"),
        ("planted-table-macro", PLANTED, "SELECT * FROM leak()"),
        # Macros in the file named as allowed built-ins: the name must reach the built-in or nothing.
        ("shadow-macro-reverse", RESOLVED, "SELECT reverse(name) FROM customers", "ci"),
        ("shadow-macro-md5", RESOLVED, "SELECT md5(name) FROM customers", "ci"),
        ("shadow-macro-qualified", RESOLVED, "SELECT main.reverse(name) FROM customers"),
        ("getenv-token", ENVIRONMENT, "SELECT getenv('@TOKEN_VAR@')", "ci"),
        ("getenv-home", ENVIRONMENT, "SELECT getenv('HOME')"),
        ("getenv-in-where", ENVIRONMENT, "SELECT * FROM orders WHERE getenv('@TOKEN_VAR@') IS NOT NULL"),
        ("current-setting", ENVIRONMENT, "SELECT current_setting('enable_external_access')"),
        ("duckdb-settings", ENVIRONMENT, "SELECT * FROM duckdb_settings()"),
        ("duckdb-secrets", ENVIRONMENT, "SELECT * FROM duckdb_secrets()"),
        ("duckdb-databases", ENVIRONMENT, "SELECT * FROM duckdb_databases()"),
        ("pragma-database-list", ENVIRONMENT, "SELECT * FROM pragma_database_list()"),
        ("set-external-access", SETTINGS, "SET enable_external_access = true", "ci"),
        ("reset-external-access", SETTINGS, "RESET enable_external_access"),
        ("set-memory-limit", SETTINGS, "SET memory_limit = '100GB'"),
        ("set-threads", SETTINGS, "SET threads = 64"),
        ("set-lock-configuration", SETTINGS, "SET lock_configuration = false"),
        ("set-allowed-directories", SETTINGS, "SET allowed_directories = ['/']"),
        ("set-temp-directory", SETTINGS, "SET temp_directory = '@OUT@'"),
        ("set-global", SETTINGS, "SET GLOBAL enable_external_access = true"),
        ("pragma-profiling", SETTINGS, "PRAGMA enable_profiling = 'json'"),
        ("pragma-profile-output", SETTINGS, "PRAGMA profile_output = '@OUT@/profile.json'"),
        ("call-pragma", SETTINGS, "CALL pragma_version()"),
        ("checkpoint", SETTINGS, "CHECKPOINT"),
        ("force-checkpoint", SETTINGS, "FORCE CHECKPOINT"),
        ("install-httpfs", EXTENSIONS, "INSTALL httpfs", "ci"),
        ("load-httpfs", EXTENSIONS, "LOAD httpfs"),
        ("force-install-url", EXTENSIONS, "FORCE INSTALL httpfs FROM 'http://127.0.0.1:9/'"),
        ("install-community", EXTENSIONS, "INSTALL shellfs FROM community"),
        ("load-file", EXTENSIONS, "LOAD '@OUT@/evil.duckdb_extension'"),
        ("duckdb-extensions", EXTENSIONS, "SELECT * FROM duckdb_extensions()"),
        ("for-update", LOCKING, "SELECT * FROM orders FOR UPDATE"),
        ("for-share", LOCKING, "SELECT * FROM orders FOR SHARE"),
        *_quoting("DROP TABLE orders", "DELETE FROM orders"),
        ("dollar-quote-stacked", QUOTING, "SELECT $$a$$; COPY orders TO '@OUT@/dollar.csv'"),
        ("string-escape-stacked", QUOTING, "SELECT E'\\''; COPY orders TO '@OUT@/escape.csv'; --'"),
        ("range-count", RUNAWAY, "SELECT count(*) FROM range(1000000000000)", "ci"),
        ("generate-series-count", RUNAWAY, "SELECT count(*) FROM generate_series(1, 1000000000000)"),
        ("generate-series-stream", RUNAWAY, "SELECT * FROM generate_series(1, 1000000000000)"),
        (
            "generate-series-order",
            RUNAWAY,
            "SELECT * FROM generate_series(1, 1000000000000) t(x) ORDER BY x DESC",
            "ci",
        ),
        ("repeat-length", RUNAWAY, "SELECT length(repeat('x', 1000000000))"),
        ("repeat-returned", RUNAWAY, "SELECT repeat('x', 1000000000)", "ci"),
        ("lpad-huge", RUNAWAY, "SELECT lpad('x', 2000000000, 'y')"),
        ("string-agg-billion", RUNAWAY, "SELECT length(string_agg(x::VARCHAR, ',')) FROM range(1000000000) t(x)"),
        ("regex-blowup", RUNAWAY, "SELECT regexp_matches(repeat('a', 30) || 'b', '(a+)+$')"),
        (
            "cross-join-count",
            RUNAWAY,
            "SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e, orders f",
        ),
        (
            "recursive-count",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
            "ci",
        ),
        (
            "recursive-limit",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r LIMIT 5",
        ),
        ("list-billion", RUNAWAY, "SELECT length(list(x)) FROM range(1000000000) t(x)"),
        ("repeat-per-row", RUNAWAY, "SELECT sum(length(repeat('x', 1000000))) FROM range(100000)"),
        (
            "doubling-aliases",
            RUNAWAY,
            "SELECT 'xxxxxxxxxx' AS s0, " + ", ".join(f"s{i} || s{i} AS s{i + 1}" for i in range(28)),
            "ci",
        ),
        ("md5-huge", RUNAWAY, "SELECT md5(repeat('x', 500000000))"),
        ("unnest-range", RUNAWAY, "SELECT count(*) FROM (SELECT unnest(range(1000000000)))"),
        ("lateral-range", RUNAWAY, "SELECT count(*) FROM range(10) t(x), LATERAL (SELECT * FROM range(1000000000000))"),
        (
            "hash-join-billion",
            RUNAWAY,
            "SELECT count(*) FROM range(1000000000) a(x) JOIN range(1000000000) b(y) ON a.x = b.y",
        ),
        ("planted-slow-view", RUNAWAY, "SELECT * FROM v_slow"),
        (
            "three-huge-strings",
            RUNAWAY,
            "SELECT repeat('a', 500000000), repeat('b', 500000000), repeat('c', 500000000)",
        ),
    ],
)


# -- PostgreSQL ----------------------------------------------------------------------

_OWNER_DBLINK = "host=127.0.0.1 port=@PORT@ dbname=@DBNAME@ user=schema_search password=schema_search"

POSTGRES = _cases(
    "postgres",
    [
        ("stacked-drop", STACKED, "SELECT 1; DROP TABLE orders", "ci"),
        (
            "stacked-commit-begin-rw-insert",
            STACKED,
            "SELECT 1; COMMIT; BEGIN READ WRITE; INSERT INTO audit_log(note) VALUES ('stacked')",
            "ci",
        ),
        ("commit-drop", STACKED, "COMMIT; DROP TABLE orders", "ci"),
        ("commit-insert", STACKED, "COMMIT; INSERT INTO audit_log(note) VALUES ('commit')"),
        ("rollback-begin-rw-delete", STACKED, "ROLLBACK; BEGIN READ WRITE; DELETE FROM audit_log; COMMIT"),
        (
            "end-session-rw-delete",
            STACKED,
            "END; SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; DELETE FROM audit_log",
        ),
        ("stacked-set-read-write", STACKED, "SELECT 1; SET default_transaction_read_only = off; DELETE FROM audit_log"),
        ("stacked-reset-all", STACKED, "SELECT 1; RESET ALL; DELETE FROM audit_log"),
        ("stacked-alter-system", STACKED, "SELECT 1; ALTER SYSTEM SET log_min_duration_statement = -1"),
        ("stacked-create-role", STACKED, "SELECT 1; CREATE ROLE ss_pwned SUPERUSER"),
        ("stacked-copy", STACKED, "SELECT 1; COPY orders TO '@OUT@/pg_stacked.csv'"),
        ("stacked-do-block", STACKED, "SELECT 1; DO $$BEGIN INSERT INTO audit_log(note) VALUES ('do'); END$$"),
        ("stacked-prepare-transaction", STACKED, "SELECT 1; PREPARE TRANSACTION 'ss_hostile'"),
        ("stacked-close-all", STACKED, "SELECT * FROM orders; CLOSE ALL; DELETE FROM audit_log"),
        ("stacked-cursor-end", STACKED, "SELECT 1 FOR READ ONLY; COMMIT; DELETE FROM audit_log"),
        ("delete", WRITES, "DELETE FROM audit_log", "ci"),
        ("update", WRITES, "UPDATE orders SET total = 0"),
        ("insert", WRITES, "INSERT INTO audit_log(note) VALUES ('insert')"),
        ("truncate", WRITES, "TRUNCATE audit_log"),
        ("drop-table", WRITES, "DROP TABLE orders"),
        ("create-table", WRITES, "CREATE TABLE pwned AS SELECT * FROM orders"),
        ("create-temp-table", WRITES, "CREATE TEMP TABLE t AS SELECT * FROM orders"),
        ("alter-role", WRITES, "ALTER ROLE CURRENT_USER SET statement_timeout = 0"),
        ("grant", WRITES, "GRANT ALL ON orders TO PUBLIC"),
        ("do-block", WRITES, "DO $$BEGIN INSERT INTO audit_log(note) VALUES ('do'); END$$"),
        ("call-procedure", WRITES, "CALL public.touch_audit()"),
        ("prepare-execute", WRITES, "PREPARE p AS DELETE FROM audit_log"),
        ("explain-analyze-delete", WRITES, "EXPLAIN ANALYZE DELETE FROM audit_log"),
        ("notify", WRITES, "NOTIFY ss_hostile, 'statement'"),
        ("listen", WRITES, "LISTEN ss_hostile"),
        ("cte-delete-returning", WRITABLE_CTE, "WITH x AS (DELETE FROM audit_log RETURNING *) SELECT * FROM x", "ci"),
        (
            "cte-update-returning",
            WRITABLE_CTE,
            "WITH x AS (UPDATE customers SET name = 'x' RETURNING *) SELECT count(*) FROM x",
        ),
        (
            "cte-insert-returning",
            WRITABLE_CTE,
            "WITH x AS (INSERT INTO audit_log(note) VALUES ('cte') RETURNING *) SELECT * FROM x",
        ),
        (
            "cte-second-deletes",
            WRITABLE_CTE,
            "WITH a AS (SELECT 1), b AS (DELETE FROM audit_log RETURNING id) SELECT * FROM a",
        ),
        (
            "cte-recursive-update",
            WRITABLE_CTE,
            "WITH RECURSIVE x AS (SELECT 1), y AS (UPDATE orders SET total = total + 1 RETURNING id) SELECT * FROM x",
        ),
        (
            "cte-nested-delete",
            WRITABLE_CTE,
            "SELECT * FROM (WITH d AS (DELETE FROM audit_log RETURNING id) SELECT * FROM d) s",
        ),
        (
            "cte-materialized-delete",
            WRITABLE_CTE,
            "WITH x AS MATERIALIZED (DELETE FROM audit_log RETURNING *) SELECT * FROM x",
        ),
        ("select-into", SELECT_INTO, "SELECT * INTO pwned FROM orders", "ci"),
        ("select-into-temp", SELECT_INTO, "SELECT id INTO TEMP t FROM orders"),
        ("select-into-unlogged", SELECT_INTO, "SELECT * INTO UNLOGGED ss_pwned FROM orders"),
        ("create-table-as", SELECT_INTO, "CREATE TABLE ss_pwned AS SELECT 1"),
        ("copy-to-file", COPY, "COPY orders TO '@OUT@/pg_orders.csv'", "ci"),
        ("copy-query-to-program", COPY, "COPY (SELECT * FROM orders) TO PROGRAM 'touch @OUT@/pg_program_direct'", "ci"),
        ("copy-from-file", COPY, "COPY audit_log(note) FROM '/etc/passwd'"),
        ("copy-from-program", COPY, "COPY audit_log(note) FROM PROGRAM 'id'"),
        ("copy-to-stdout", COPY, "COPY orders TO STDOUT"),
        ("nextval", FUNCTIONS, "SELECT nextval('order_seq')", "ci"),
        ("nextval-regclass", FUNCTIONS, "SELECT nextval('orders_id_seq'::regclass)"),
        ("nextval-per-row", FUNCTIONS, "SELECT id, nextval('order_seq') FROM orders"),
        ("setval", FUNCTIONS, "SELECT setval('order_seq', 1000)"),
        ("currval", FUNCTIONS, "SELECT currval('order_seq')"),
        ("set-config-timeout", FUNCTIONS, "SELECT set_config('statement_timeout', '0', false)", "ci"),
        ("set-config-read-write", FUNCTIONS, "SELECT set_config('default_transaction_read_only', 'off', false)"),
        ("set-config-transaction", FUNCTIONS, "SELECT set_config('transaction_read_only', 'off', true)"),
        ("set-config-role", FUNCTIONS, "SELECT set_config('role', 'schema_search', false)"),
        ("set-config-search-path", FUNCTIONS, "SELECT set_config('search_path', 'public', false)"),
        ("advisory-lock", FUNCTIONS, "SELECT pg_advisory_lock(42)", "ci"),
        ("advisory-lock-shared", FUNCTIONS, "SELECT pg_advisory_lock_shared(42)"),
        ("advisory-try-lock", FUNCTIONS, "SELECT pg_try_advisory_lock(43)"),
        ("advisory-xact-lock", FUNCTIONS, "SELECT pg_advisory_xact_lock(44)"),
        ("advisory-lock-where", FUNCTIONS, "SELECT * FROM orders WHERE pg_try_advisory_lock(id)"),
        ("lo-import", FUNCTIONS, "SELECT lo_import('/etc/passwd')", "ci"),
        ("lo-export", FUNCTIONS, "SELECT lo_export(424242, '@OUT@/pg_lo_direct.bin')"),
        ("lo-create", FUNCTIONS, "SELECT lo_create(0)"),
        ("lo-creat", FUNCTIONS, "SELECT lo_creat(-1)"),
        ("lo-get", FUNCTIONS, "SELECT lo_get(424242)"),
        ("lo-put", FUNCTIONS, "SELECT lo_put(424242, 0, '\\x78')"),
        ("lo-from-bytea", FUNCTIONS, "SELECT lo_from_bytea(0, '\\x78')"),
        ("lo-unlink", FUNCTIONS, "SELECT lo_unlink(424242)"),
        ("lo-open-write", FUNCTIONS, "SELECT lowrite(lo_open(424242, 131072), '\\x78')"),
        ("lo-open-read", FUNCTIONS, "SELECT loread(lo_open(424242, 262144), 100)"),
        ("pg-read-file-passwd", FUNCTIONS, "SELECT pg_read_file('/etc/passwd')", "ci"),
        ("pg-read-file-secret", FUNCTIONS, "SELECT pg_read_file('@SECRET@')"),
        ("pg-read-binary-file", FUNCTIONS, "SELECT pg_read_binary_file('/etc/passwd')"),
        ("pg-ls-dir", FUNCTIONS, "SELECT pg_ls_dir('.')"),
        ("pg-ls-dir-tmp", FUNCTIONS, "SELECT * FROM pg_ls_dir('/tmp') AS f"),
        ("pg-stat-file", FUNCTIONS, "SELECT pg_stat_file('postgresql.auto.conf')"),
        ("pg-ls-logdir", FUNCTIONS, "SELECT * FROM pg_ls_logdir()"),
        ("pg-ls-waldir", FUNCTIONS, "SELECT * FROM pg_ls_waldir()"),
        ("dblink-select", FUNCTIONS, f"SELECT * FROM dblink('{_OWNER_DBLINK}', 'SELECT 1') AS t(x int)"),
        (
            "dblink-exec-insert",
            FUNCTIONS,
            f"SELECT dblink_exec('{_OWNER_DBLINK}', 'INSERT INTO audit_log(note) VALUES (''dblink'')')",
            "ci",
        ),
        ("dblink-connect", FUNCTIONS, f"SELECT dblink_connect('ss', '{_OWNER_DBLINK}')"),
        (
            "dblink-in-where",
            FUNCTIONS,
            f"SELECT * FROM orders WHERE dblink_exec('{_OWNER_DBLINK}', 'DELETE FROM audit_log') IS NOT NULL",
        ),
        ("terminate-reader-canary", FUNCTIONS, "SELECT pg_terminate_backend(@READER_PID@)", "ci"),
        ("terminate-owner-canary", FUNCTIONS, "SELECT pg_terminate_backend(@OWNER_PID@)"),
        ("terminate-self", FUNCTIONS, "SELECT pg_terminate_backend(pg_backend_pid())"),
        ("cancel-busy-canary", FUNCTIONS, "SELECT pg_cancel_backend(@BUSY_PID@)"),
        ("pg-notify", FUNCTIONS, "SELECT pg_notify('ss_hostile', 'function')", "ci"),
        ("txid-current", FUNCTIONS, "SELECT txid_current()"),
        ("current-xact-id", FUNCTIONS, "SELECT pg_current_xact_id()"),
        ("pg-reload-conf", FUNCTIONS, "SELECT pg_reload_conf()"),
        ("pg-rotate-logfile", FUNCTIONS, "SELECT pg_rotate_logfile()"),
        ("pg-switch-wal", FUNCTIONS, "SELECT pg_switch_wal()"),
        ("create-restore-point", FUNCTIONS, "SELECT pg_create_restore_point('ss_hostile')"),
        ("replication-slot", FUNCTIONS, "SELECT pg_create_logical_replication_slot('ss_hostile_slot', 'pgoutput')"),
        ("stat-reset", FUNCTIONS, "SELECT pg_stat_reset()"),
        ("query-to-xml-delete", FUNCTIONS, "SELECT query_to_xml('DELETE FROM audit_log RETURNING *', true, true, '')"),
        ("query-to-xml-select", FUNCTIONS, "SELECT query_to_xml('SELECT * FROM orders', true, true, '')"),
        ("table-to-xml", FUNCTIONS, "SELECT table_to_xml('orders', true, true, '')"),
        ("current-setting-data-dir", FUNCTIONS, "SELECT current_setting('data_directory')"),
        ("pg-stat-activity", FUNCTIONS, "SELECT * FROM pg_stat_activity"),
        ("pg-authid", FUNCTIONS, "SELECT rolname, rolpassword FROM pg_authid"),
        ("for-update", LOCKING, "SELECT * FROM orders FOR UPDATE", "ci"),
        ("for-share", LOCKING, "SELECT * FROM orders FOR SHARE"),
        ("for-no-key-update", LOCKING, "SELECT * FROM orders FOR NO KEY UPDATE"),
        ("for-key-share", LOCKING, "SELECT * FROM orders FOR KEY SHARE"),
        ("for-update-nowait", LOCKING, "SELECT * FROM orders FOR UPDATE NOWAIT"),
        ("for-update-skip-locked", LOCKING, "SELECT * FROM orders FOR UPDATE SKIP LOCKED"),
        (
            "for-update-of",
            LOCKING,
            "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id FOR UPDATE OF o",
        ),
        ("lock-table", LOCKING, "LOCK TABLE orders IN ACCESS EXCLUSIVE MODE"),
        ("planted-definer-copy", PLANTED, "SELECT public.report_total()", "ci"),
        ("planted-definer-copy-unqualified", PLANTED, "SELECT report_total()"),
        ("planted-definer-program", PLANTED, "SELECT public.program_total()", "ci"),
        ("planted-plain-copy", PLANTED, "SELECT public.plain_report()"),
        ("planted-definer-lo-export", PLANTED, "SELECT public.export_lo()"),
        ("planted-definer-dblink", PLANTED, "SELECT public.remote_insert()", "ci"),
        ("planted-plain-dblink", PLANTED, "SELECT public.plain_remote_insert()", "ci"),
        ("planted-kill-sessions", PLANTED, "SELECT public.kill_sessions()", "ci"),
        ("planted-cancel-sessions", PLANTED, "SELECT public.cancel_sessions()"),
        ("planted-notify", PLANTED, "SELECT public.notify_remote()"),
        ("planted-remote-sequence", PLANTED, "SELECT public.seq_remote()"),
        ("planted-alter-system", PLANTED, "SELECT public.alter_system_remote()"),
        ("planted-reload-conf", PLANTED, "SELECT public.reload_conf()"),
        ("planted-role-setting", PLANTED, "SELECT public.role_remote()"),
        ("planted-remote-large-object", PLANTED, "SELECT public.lo_remote()"),
        ("planted-read-secret", PLANTED, "SELECT public.read_secret()"),
        ("planted-remote-lock", PLANTED, "SELECT public.lock_remote()"),
        ("planted-view", PLANTED, "SELECT * FROM v_sales", "ci"),
        ("planted-view-column", PLANTED, "SELECT region FROM v_sales"),
        ("planted-view-count", PLANTED, "SELECT count(*) FROM v_sales"),
        ("planted-rls-policy", PLANTED, "SELECT * FROM rls_orders", "ci"),
        ("planted-rls-count", PLANTED, "SELECT count(*) FROM rls_orders"),
        ("planted-operator", PLANTED, "SELECT id FROM orders WHERE total @> 100", "ci"),
        ("planted-operator-qualified", PLANTED, "SELECT id FROM orders WHERE total OPERATOR(public.@>) 100", "ci"),
        ("planted-shadowed-upper", PLANTED, "SELECT upper(name) FROM customers", "ci"),
        ("planted-shadowed-upper-where", PLANTED, "SELECT id FROM customers WHERE upper(name) = 'X'"),
        ("planted-in-subquery", PLANTED, "SELECT * FROM orders WHERE id = (SELECT public.report_total())::int"),
        ("planted-in-order-by", PLANTED, "SELECT * FROM orders ORDER BY public.remote_insert()"),
        ("planted-in-limit", PLANTED, "SELECT * FROM orders LIMIT (SELECT public.remote_insert())"),
        ("planted-in-cte", PLANTED, "WITH t AS (SELECT public.program_total()) SELECT * FROM t"),
        ("planted-in-exists", PLANTED, "SELECT * FROM orders WHERE EXISTS (SELECT public.remote_insert())"),
        ("planted-in-dead-case", PLANTED, "SELECT CASE WHEN id < 0 THEN public.remote_insert() END FROM orders"),
        ("planted-limit-zero", PLANTED, "SELECT public.remote_insert() FROM orders LIMIT 0"),
        ("planted-quoted-name", PLANTED, 'SELECT "public"."remote_insert"()'),
        ("planted-spaced-name", PLANTED, "SELECT public . remote_insert ( )"),
        ("planted-in-row", PLANTED, "SELECT ROW(public.remote_insert())"),
        ("planted-cast", PLANTED, "SELECT public.remote_insert()::text"),
        ("planted-in-array", PLANTED, "SELECT ARRAY[public.remote_insert()]"),
        ("planted-from-function", PLANTED, "SELECT * FROM public.remote_insert() AS x"),
        ("planted-in-all", PLANTED, "SELECT * FROM orders WHERE total > ALL (SELECT public.report_total())"),
        ("planted-where-false", PLANTED, "SELECT public.kill_sessions() WHERE false"),
        ("planted-procedure", PLANTED, "CALL public.touch_audit()"),
        # SQL naming nothing planted that PostgreSQL resolves to planted code (hostile_fixtures.RESOLVED_PG).
        ("where-id", RESOLVED, "SELECT id FROM people WHERE id = 7", "ci"),
        ("cast-int-text", RESOLVED, "SELECT CAST(id AS TEXT) FROM people", "ci"),
        ("cast-int-text-colons", RESOLVED, "SELECT id::text FROM people"),
        ("cast-numeric-text", RESOLVED, "SELECT CAST(score AS TEXT) FROM people"),
        ("cast-date-text", RESOLVED, "SELECT joined::text FROM people"),
        ("cast-varchar-int", RESOLVED, "SELECT name::int FROM people"),
        ("overload-lower", RESOLVED, "SELECT lower(name) FROM people", "ci"),
        ("overload-length", RESOLVED, "SELECT length(name) FROM people"),
        ("overload-in-where", RESOLVED, "SELECT id FROM people WHERE lower(name) = 'person 1'"),
        ("operator-concat", RESOLVED, "SELECT name || 'x' FROM people", "ci"),
        ("enum-cast", RESOLVED, "SELECT mood::text FROM people", "ci"),
        ("enum-cast-function", RESOLVED, "SELECT CAST(mood AS TEXT) FROM people"),
        ("enum-equals", RESOLVED, "SELECT id FROM people WHERE mood = 'busy'"),
        ("enum-in", RESOLVED, "SELECT id FROM people WHERE mood IN ('busy', 'calm')"),
        ("enum-like", RESOLVED, "SELECT id FROM people WHERE mood::text LIKE 'bu%'"),
        ("text-any-concat", RESOLVED, "SELECT 'n' || id FROM people"),
        ("concat-function", RESOLVED, "SELECT concat(name, id) FROM people"),
        ("format-function", RESOLVED, "SELECT format('%s', id) FROM people"),
        ("group-by-cast", RESOLVED, "SELECT joined::text, count(*) FROM people GROUP BY 1"),
        ("view-chain-5", RESOLVED, "SELECT length(s) FROM v_dbl5"),
        ("view-chain-20", RUNAWAY, "SELECT s FROM v_dbl20 LIMIT 1", "ci"),
        ("view-chain-22", RUNAWAY, "SELECT length(s) FROM v_dbl22"),
        (
            "recursive-doubling",
            RUNAWAY,
            "WITH RECURSIVE r(s) AS (SELECT 'x'::text UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r",
            "ci",
        ),
        *_quoting("DROP TABLE orders", "DELETE FROM audit_log"),
        ("e-string-escaped-quote", QUOTING, "SELECT E'\\''; DELETE FROM audit_log; --'", "ci"),
        ("e-string-backslashes", QUOTING, "SELECT E'\\\\'; DELETE FROM audit_log; --'"),
        ("dollar-quote-stacked", QUOTING, "SELECT $$a$$; DELETE FROM audit_log; SELECT $$b$$", "ci"),
        ("dollar-tag-holds-dollars", QUOTING, "SELECT $tag$ $$ ; DELETE FROM audit_log; $$ $tag$"),
        ("dollar-quote-content", QUOTING, "SELECT $a$; DELETE FROM audit_log; $a$ AS x"),
        ("dollar-quote-unterminated", QUOTING, "SELECT $x$; DELETE FROM audit_log;"),
        ("unicode-escape-string", QUOTING, "SELECT U&'\\0027; DELETE FROM audit_log; --'"),
        ("unicode-escape-identifier", QUOTING, 'SELECT U&"n\\0061me" FROM customers'),
        ("unicode-escape-uescape", QUOTING, "SELECT U&'!0027' UESCAPE '!'; DELETE FROM audit_log; --'"),
        ("identifier-semicolon-column", QUOTING, 'SELECT "id;DELETE FROM audit_log" FROM orders'),
        ("standard-strings-off", QUOTING, "SELECT set_config('standard_conforming_strings', 'off', false)"),
        ("psql-meta-copy", QUOTING, "\\copy orders to '@OUT@/meta.csv'"),
        ("pg-sleep", RUNAWAY, "SELECT pg_sleep(100)", "ci"),
        ("pg-sleep-for", RUNAWAY, "SELECT pg_sleep_for('100 seconds')"),
        ("pg-sleep-until", RUNAWAY, "SELECT pg_sleep_until(now() + interval '100 seconds')"),
        ("pg-sleep-per-row", RUNAWAY, "SELECT pg_sleep(1) FROM generate_series(1, 100)"),
        ("pg-sleep-in-where", RUNAWAY, "SELECT * FROM orders WHERE pg_sleep(100) IS NOT NULL"),
        ("set-timeout-then-sleep", RUNAWAY, "SELECT set_config('statement_timeout', '0', false), pg_sleep(100)", "ci"),
        (
            "set-timeout-union-sleep",
            RUNAWAY,
            "SELECT set_config('statement_timeout', '0', false) UNION ALL SELECT pg_sleep(100)::text",
        ),
        ("planted-slow", RUNAWAY, "SELECT public.slow_total()", "ci"),
        ("planted-slow-per-row", RUNAWAY, "SELECT public.slow_total() FROM orders"),
        ("planted-slow-remote", RUNAWAY, "SELECT public.slow_remote()", "ci"),
        ("generate-series-count", RUNAWAY, "SELECT count(*) FROM generate_series(1, 1000000000000)", "ci"),
        ("generate-series-stream", RUNAWAY, "SELECT * FROM generate_series(1, 1000000000000)"),
        ("generate-series-order", RUNAWAY, "SELECT * FROM generate_series(1, 1000000000000) g ORDER BY g DESC"),
        ("generate-series-max", RUNAWAY, "SELECT max(g) FROM generate_series(1, 1000000000000) g"),
        (
            "recursive-count",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
            "ci",
        ),
        (
            "recursive-stream",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
        ),
        (
            "recursive-order",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r ORDER BY n",
        ),
        ("repeat-length", RUNAWAY, "SELECT length(repeat('x', 1000000000))"),
        ("repeat-returned", RUNAWAY, "SELECT repeat('x', 1000000000)", "ci"),
        ("lpad-huge", RUNAWAY, "SELECT lpad('x', 1000000000, 'y')"),
        ("repeat-nested", RUNAWAY, "SELECT length(repeat(repeat('x', 100000), 100000))"),
        ("string-agg-md5", RUNAWAY, "SELECT length(string_agg(md5(g::text), '')) FROM generate_series(1, 100000000) g"),
        ("regex-nested-plus", RUNAWAY, "SELECT regexp_matches(repeat('a', 30) || 'b', '(a+)+$')", "ci"),
        ("regex-star-star", RUNAWAY, "SELECT repeat('a', 30) ~ '(a*)*b'"),
        ("regex-alternation", RUNAWAY, "SELECT regexp_replace(repeat('a', 25000), '(a|aa)+$', 'x')"),
        ("regex-optional", RUNAWAY, "SELECT repeat('a', 40) || '!' ~ '^(a|a?)+$'"),
        ("similar-to-blowup", RUNAWAY, "SELECT repeat('x', 100000) SIMILAR TO '(x+x+)+y'"),
        ("cross-join-count", RUNAWAY, "SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e"),
        (
            "cross-join-random-order",
            RUNAWAY,
            "SELECT a.id FROM orders a, orders b, orders c, orders d ORDER BY random()",
        ),
        ("array-agg-billion", RUNAWAY, "SELECT cardinality(array_agg(g)) FROM generate_series(1, 1000000000) g"),
        ("wide-rows", RUNAWAY, "SELECT repeat('x', 10000000) FROM generate_series(1, 100)"),
        ("wide-rows-endless", RUNAWAY, "SELECT g, repeat('y', 1000000) FROM generate_series(1, 1000000000) g"),
        ("md5-huge", RUNAWAY, "SELECT md5(repeat('x', 1000000000))"),
        (
            "string-agg-repeat",
            RUNAWAY,
            "SELECT length(string_agg(x, '')) FROM (SELECT repeat('x', 100000000) AS x FROM generate_series(1, 20)) s",
        ),
    ],
)


# -- before any approval, and while indexing (PostgreSQL, with RESOLVED_PG planted) ----------

# MCP execute_sql without an approval: only the checklist is made, and its value probes read
# the database (a probe casts the column to text). None may run anything planted.
CHECKLIST = _cases(
    "checklist",
    [
        ("where-id", RESOLVED, "SELECT id FROM people WHERE id = 7", "ci"),
        ("where-mood", RESOLVED, "SELECT id FROM people WHERE mood = 'busy'", "ci"),
        ("where-name", RESOLVED, "SELECT id FROM people WHERE name = 'person 3'", "ci"),
        ("where-score", RESOLVED, "SELECT id FROM people WHERE score = 4.5"),
        ("where-joined", RESOLVED, "SELECT id FROM people WHERE joined = '2024-01-05'"),
        ("where-like", RESOLVED, "SELECT id FROM people WHERE name LIKE 'person%'"),
        ("where-in", RESOLVED, "SELECT id FROM people WHERE mood IN ('busy', 'calm')"),
        ("where-order-total", RESOLVED, "SELECT id FROM orders WHERE total > 100 AND status = 'paid'"),
        ("lower-in-select", RESOLVED, "SELECT lower(name) FROM people WHERE id = 2"),
        ("planted-view", PLANTED, "SELECT * FROM v_sales WHERE region = 'north'"),
    ],
)
# schemasift index on the database, value hints on: reflection and the value sample.
INDEXING = _cases("indexing", [("reader-with-value-hints", RESOLVED, "", "ci")])


# -- collections (query_collection: DuckDB in a child process) -----------------------

COLLECTION = _cases(
    "collection",
    [
        ("read-csv-passwd", FILES, "SELECT * FROM read_csv('/etc/passwd')", "ci"),
        ("read-text-secret", FILES, "SELECT * FROM read_text('@SECRET@')"),
        (
            "read-text-in-where",
            FILES,
            "SELECT * FROM documents WHERE title IN (SELECT content FROM read_text('/etc/passwd'))",
        ),
        ("read-text-joined", FILES, "SELECT d.title, f.content FROM documents d, read_text('@SECRET@') f", "ci"),
        ("replacement-scan-passwd", FILES, "FROM '/etc/passwd'", "ci"),
        ("replacement-scan-csv", FILES, "SELECT * FROM 'documents.csv'"),
        ("replacement-scan-relative", FILES, "SELECT * FROM 'secret.txt'"),
        ("replacement-scan-in-join", FILES, "SELECT * FROM documents JOIN '/etc/passwd' p ON true"),
        ("glob", FILES, "SELECT * FROM glob('*')"),
        ("read-blob-subquery", FILES, "SELECT (SELECT content FROM read_blob('/etc/passwd')) FROM documents"),
        (
            "cast-error-leak",
            FILES,
            "SELECT CAST((SELECT content FROM read_text('@SECRET@')) AS INTEGER) FROM documents",
        ),
        ("getenv", ENVIRONMENT, "SELECT getenv('@TOKEN_VAR@') FROM documents", "ci"),
        ("getenv-in-filter", ENVIRONMENT, "SELECT count(*) FROM documents WHERE getenv('HOME') IS NOT NULL"),
        ("current-setting", ENVIRONMENT, "SELECT current_setting('memory_limit') FROM documents"),
        ("duckdb-settings", ENVIRONMENT, "SELECT * FROM duckdb_settings()"),
        ("information-schema", ENVIRONMENT, "SELECT * FROM information_schema.tables"),
        ("pg-settings-cte", ENVIRONMENT, "WITH pg_settings AS (SELECT * FROM pg_settings) SELECT * FROM pg_settings"),
        ("attach", ATTACH, "ATTACH '@OUT@/collection.duckdb' AS a", "ci"),
        ("stacked-attach", ATTACH, "SELECT count(*) FROM documents; ATTACH '@OUT@/stacked_collection.duckdb' AS a"),
        ("copy-to", COPY, "COPY documents TO '@OUT@/documents.csv'", "ci"),
        ("copy-query-to", COPY, "COPY (SELECT * FROM documents) TO '@OUT@/documents.parquet' (FORMAT parquet)"),
        ("copy-to-relative", COPY, "COPY documents TO 'relative.csv'"),
        ("export", COPY, "EXPORT DATABASE '@OUT@/collection_export'"),
        ("create-table", WRITES, "CREATE TABLE pwned AS SELECT * FROM documents"),
        ("delete", WRITES, "DELETE FROM documents"),
        ("update-returning", WRITABLE_CTE, "UPDATE documents SET title = 'x' RETURNING *"),
        ("set-external", SETTINGS, "SET enable_external_access = true", "ci"),
        ("set-memory", SETTINGS, "SET memory_limit = '100GB'"),
        ("pragma", SETTINGS, "PRAGMA database_list"),
        ("install", EXTENSIONS, "INSTALL httpfs"),
        ("load", EXTENSIONS, "LOAD httpfs"),
        ("create-macro", WRITES, "CREATE MACRO m() AS (SELECT 1)"),
        ("catalog-read-text", FILES, "SELECT t.name, f.content FROM tables t, read_text('@SECRET@') f"),
        ("catalog-getenv", ENVIRONMENT, "SELECT getenv('@TOKEN_VAR@') AS v FROM columns"),
        ("string-in-identifier", QUOTING, "SELECT 1 AS \"a; COPY documents TO '@OUT@/q.csv'\" FROM documents"),
        ("comment-hides-copy", QUOTING, "SELECT count(*) FROM documents --\n; COPY documents TO '@OUT@/c.csv'"),
        (
            "nested-comment-copy",
            QUOTING,
            "SELECT count(*) FROM documents /* /* */ ; COPY documents TO '@OUT@/n.csv'; */",
        ),
        ("lpad", RUNAWAY, "SELECT length(lpad('x', 2000000000, 'y')) FROM documents", "ci"),
        ("repeat", RUNAWAY, "SELECT repeat(title, 100000000) FROM documents"),
        (
            "doubling-titles",
            RUNAWAY,
            "SELECT title AS s0, " + ", ".join(f"s{i} || s{i} AS s{i + 1}" for i in range(30)) + " FROM documents",
            "ci",
        ),
        (
            "doubling-numbers",
            RUNAWAY,
            "SELECT 1 AS a0, " + ", ".join(f"a{i} + a{i} AS a{i + 1}" for i in range(24)) + " FROM documents",
        ),
        (
            "nested-replace",
            RUNAWAY,
            "SELECT length(" + "replace(" * 9 + "title" + ", 'e', 'eeeeeeeeee')" * 9 + ") FROM documents",
            "ci",
        ),
        ("cross-join-10", RUNAWAY, "SELECT count(*) FROM " + ", ".join(f"documents d{i}" for i in range(10)), "ci"),
        (
            "cross-join-string-agg",
            RUNAWAY,
            (
                "SELECT length(string_agg(a.title || b.title || c.title, ',')) FROM documents a, documents b, documents c, "
                "documents d, documents e"
            ),
        ),
        (
            "recursive",
            RUNAWAY,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        ),
        ("range", RUNAWAY, "SELECT count(*) FROM range(1000000000000)"),
        ("unnest-range", RUNAWAY, "SELECT count(*) FROM documents, unnest(range(1000000000))"),
        ("regex", RUNAWAY, "SELECT regexp_matches(repeat('a', 30) || 'b', '(a+)+$') FROM documents"),
        ("regex-on-title", RUNAWAY, "SELECT count(*) FROM documents WHERE regexp_matches(title, '(a+)+$')"),
        ("huge-sql", RUNAWAY, "SELECT count(*) FROM documents WHERE title = '" + "x" * 2_000_000 + "'"),
        ("deep-nesting", RUNAWAY, "SELECT " + "(" * 5000 + "1" + ")" * 5000 + " FROM documents"),
        (
            "catalog-cross-join",
            RUNAWAY,
            "SELECT count(*) FROM columns a, columns b, columns c, columns d, columns e, columns f",
        ),
        (
            "catalog-doubling",
            RUNAWAY,
            "SELECT name AS s0, " + ", ".join(f"s{i} || s{i} AS s{i + 1}" for i in range(30)) + " FROM columns",
        ),
    ],
)

# Collection cases name their table: ``documents`` (a corpus) or ``tables``/``columns`` (a catalog).
_NAMES_FIXTURE_TABLE = re.compile(r"\b(" + "|".join(FIXTURE_TABLES) + r")\b|@DB@", re.IGNORECASE)


def collection_cases() -> tuple[Case, ...]:
    """What runs over collections: their own cases, then every DuckDB case that names no fixture table."""
    shared = tuple(
        Case(f"collection.{case.id}", case.category, case.sql, case.runaway, case.ci)
        for case in DUCKDB
        if not _NAMES_FIXTURE_TABLE.search(case.sql)
    )
    return COLLECTION + shared


def collection_target(case: Case) -> str:
    """``catalog`` when a collection case reads a catalog's tables, else ``corpus``."""
    return "catalog" if re.search(r"\b(tables|columns)\b", case.sql) and "documents" not in case.sql else "corpus"


BY_ENGINE = {"sqlite": SQLITE, "duckdb": DUCKDB, "postgres": POSTGRES}


def fill(sql: str, values: dict[str, str]) -> str:
    """``sql`` with its ``@NAME@`` placeholders replaced.

    >>> fill("COPY t TO '@OUT@/x'", {"OUT": "/tmp/o"})
    "COPY t TO '/tmp/o/x'"
    """
    for name, value in values.items():
        sql = sql.replace(f"@{name}@", value)
    return sql
