"""What the PostgreSQL guard costs per query and per checklist (a benchmark, not a test).

    python -m eval.reliability.guard_cost [--repeat 7] [--json OUT]

Two scratch databases with the same tables (``hostile_fixtures.DATA_PG``): a plain one (no function of its own: the guard
reads the catalog once and parses nothing) and the hostile suite's (functions of its own and
the casts and operators of ``RESOLVED_PG`` planted: every statement is parsed and its objects
closed over the catalog). Ordinary read-only queries run on each, and every step is timed in
the same run as the references beside it: opening the connection, the role check, the query
itself, and ``execute_sql`` end to end (the sandbox's child included). Then checklists (MCP
``execute_sql`` before approval), whose value probes each run as a query.

Needs root and the PostgreSQL server ``scripts/setup_postgres.sh`` starts, like the hostile suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .hostile_fixtures import (
    DATA_PG,
    DEFAULT_PG_URL,
    READER,
    READER_PASSWORD,
    make_scratch,
    plant_resolved,
    postgres_database,
    postgres_unavailable,
    remove_scratch,
)

QUERIES = (
    "SELECT count(*) FROM people",
    "SELECT id, name FROM people WHERE id = 7",
    "SELECT mood, count(*) FROM people GROUP BY mood ORDER BY 2 DESC",
    "SELECT name FROM people WHERE name LIKE 'person 1%' ORDER BY name LIMIT 5",
    "SELECT avg(score), min(joined), max(joined) FROM people",
    "SELECT date_trunc('month', joined) AS m, count(*) FROM people GROUP BY 1 ORDER BY 1",
    "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > 100 "
    "ORDER BY o.total DESC LIMIT 10",
    "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total > 300)",
    "WITH t AS (SELECT customer_id, sum(total) AS s FROM orders GROUP BY 1) "
    "SELECT c.name, t.s FROM t JOIN customers c ON c.id = t.customer_id ORDER BY t.s DESC LIMIT 5",
    "SELECT status, count(*), sum(total) FROM orders WHERE created >= '2024-03-01' GROUP BY status",
)
CHECKLISTS = (
    "SELECT id FROM people WHERE mood = 'busy' AND score > 10",
    "SELECT count(*) FROM orders WHERE status = 'paid' AND created >= '2024-02-01'",
    "SELECT name FROM customers WHERE city = 'Oslo'",
    "SELECT id FROM people WHERE name = 'person 3'",
)
# Who may read the plain database: what pg_role.grants asks an administrator for.
PLAIN_GRANTS = """
GRANT CONNECT ON DATABASE "@DBNAME@" TO @READER@;
GRANT USAGE ON SCHEMA public, shop TO @READER@;
GRANT SELECT ON ALL TABLES IN SCHEMA public, shop TO @READER@;
"""


def _stages(url: str, sql: str, tables: list[tuple[str, str]]) -> dict[str, float]:
    """One query's steps on a fresh connection, as :mod:`schema_search.execute.on_postgres` takes them."""
    import psycopg
    from sqlalchemy import make_url

    from schema_search.execute import pg_guard, pg_role
    from schema_search.execute.on_postgres import WORK_MEM

    parts = make_url(url)
    times: dict[str, float] = {}

    def timed(name: str, step: Callable):
        started = time.perf_counter()
        value = step()
        times[name] = (time.perf_counter() - started) * 1000
        return value

    connection = timed(
        "connect",
        lambda: psycopg.connect(
            host=parts.host,
            port=parts.port,
            user=parts.username,
            password=parts.password,
            dbname=parts.database,
            options=f"-c default_transaction_read_only=on -c search_path=pg_catalog,pg_temp -c work_mem={WORK_MEM}",
        ),
    )
    try:
        timed("guard: catalog read once", lambda: pg_guard.guard(connection))
        with connection.cursor() as cursor:
            checked = timed(
                "role and views check",
                lambda: pg_role.check(pg_guard.CheckedCursor(cursor), tables, allow_privileged=False),
            )
        timed("guard: statement check", lambda: pg_guard.check(connection, sql, reads_views=checked.reads_views))

        def run() -> list:
            with connection.cursor() as cursor:
                cursor.execute(sql)
                return cursor.fetchall()

        timed("the query itself", run)
    finally:
        connection.rollback()
        connection.close()
    return times


def _catalog(url: str):
    from schema_search.connectors import sqlalchemy_url

    return sqlalchemy_url.introspect(url, catalog="bench")


def measure(name: str, url: str, catalog, repeat: int) -> dict:
    """Median and 90th-percentile milliseconds of each step over every query and repetition."""
    from schema_search.execute.run import execute_sql
    from schema_search.preflight.gate import Gate, GateConfig
    from schema_search.preflight.verdicts import VerdictLog
    from schema_search.sql.validate import qualified_sql, validate_sql

    samples: dict[str, list[float]] = {}
    for _ in range(repeat):
        for sql in QUERIES:
            validation = validate_sql(sql, "postgres", catalog)
            tables = [(t.schema, t.name) for t in map(catalog.table, validation.tables) if t is not None]
            for step, ms in _stages(url, qualified_sql(validation.parsed), tables).items():
                samples.setdefault(step, []).append(ms)
            started = time.perf_counter()
            execute_sql(url, sql, catalog, max_rows=100, timeout_s=10)
            samples.setdefault("execute_sql end to end", []).append((time.perf_counter() - started) * 1000)
    probes: list[int] = []
    with tempfile.TemporaryDirectory() as folder:
        gate = Gate(catalog, GateConfig(url=url, log=VerdictLog(Path(folder) / "verdicts.jsonl")))
        asked = gate.probe

        def counted(*args, **kwargs):
            probes[-1] += 1
            return asked(*args, **kwargs)

        gate.probe = counted
        for _ in range(repeat):
            for sql in CHECKLISTS:
                probes.append(0)
                started = time.perf_counter()
                gate.execute_sql(sql, "How many are there?")
                samples.setdefault("checklist (before approval)", []).append((time.perf_counter() - started) * 1000)
    figures = {step: _summary(values) for step, values in samples.items()}
    figures["probes per checklist"] = {"median": statistics.median(probes), "p90": max(probes)}
    return {"database": name, "steps": figures}


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 2), "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 2)}


def _plain_database(pg_url: str):
    """A database with the fixture's tables and no function of its own (dropped afterwards)."""
    import contextlib
    import secrets as secrets_

    from sqlalchemy import make_url

    from .hostile_fixtures import SuperSession

    @contextlib.contextmanager
    def made():
        admin = make_url(pg_url)
        port, host = admin.port or 5432, admin.host or "127.0.0.1"
        dbname = f"ss_plain_{os.getpid()}_{secrets_.token_hex(3)}"
        owner = admin.username or "schema_search"
        root = SuperSession(port, "postgres")
        root.query(f'CREATE DATABASE "{dbname}" OWNER "{owner}"')
        try:
            session = SuperSession(port, dbname)
            try:
                session.query(DATA_PG.replace("@OWNER@", owner))
                session.query(PLAIN_GRANTS.replace("@DBNAME@", dbname).replace("@READER@", READER))
                session.query(f"ALTER ROLE {READER} IN DATABASE \"{dbname}\" SET temp_file_limit = '1GB'")
            finally:
                session.close()
            yield f"postgresql://{READER}:{READER_PASSWORD}@{host}:{port}/{dbname}"
        finally:
            root.query(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
            root.close()

    return made()


def run(repeat: int, pg_url: str) -> list[dict]:
    scratch = make_scratch()
    try:
        with _plain_database(pg_url) as plain_url, postgres_database(scratch, pg_url) as pg:
            plain = measure("plain (no function of its own)", plain_url, _catalog(plain_url), repeat)
            catalog = _catalog(pg.reader_url)
            plant_resolved(pg, scratch)  # after indexing: with it, reading the catalog is refused
            hostile = measure("hostile (planted functions, casts, operators)", pg.reader_url, catalog, repeat)
            return [plain, hostile]
    finally:
        remove_scratch(scratch)


def show(results: list[dict]) -> None:
    steps = list(dict.fromkeys(step for r in results for step in r["steps"]))
    width = max(map(len, steps))
    print(f"{'ms (median / p90)':{width}}  " + "  ".join(f"{r['database'][:40]:>40}" for r in results))
    for step in steps:
        cells = []
        for r in results:
            figure = r["steps"].get(step)
            cells.append(f"{figure['median']:>8g} / {figure['p90']:<8g}".rjust(40) if figure else " " * 40)
        print(f"{step:{width}}  " + "  ".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.reliability.guard_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs of every query and checklist (default 7)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    url = os.environ.get("SCHEMA_SEARCH_TEST_PG_URL") or DEFAULT_PG_URL
    why = postgres_unavailable(url)
    if why is not None:
        print(f"PostgreSQL unavailable: {why}", file=sys.stderr)
        return 2
    results = run(args.repeat, url)
    show(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
