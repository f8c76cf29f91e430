"""hostile_sql: a slice of the hostile-input suite changes nothing and crashes nothing; its detectors see.

The slice is the cases marked ``ci`` in eval/reliability/hostile_cases.py, run exactly as
``python -m eval.reliability.hostile_sql --ci`` runs them: SQLite, DuckDB and collections
always; PostgreSQL (as the least-privilege reader and as the owner) when
``SCHEMA_SEARCH_TEST_PG_URL`` is set and the superuser is reachable (root, ``su postgres``,
dblink installed: what scripts/setup_postgres.sh provides), skipped saying why otherwise.

The assertions are the suite's target, not today's figures: a case that changes something
fails the test, naming the case and what changed.
"""

from __future__ import annotations

import os
import sqlite3

import pytest

from eval.reliability import hostile_sql
from eval.reliability.effects import FileWatch, PostgresWatch, changes
from eval.reliability.hostile_fixtures import (
    make_scratch,
    postgres_database,
    postgres_unavailable,
    remove_scratch,
    restore_files,
    sqlite_database,
)

LIMIT_S = 1.0
HUNG_S = 10.0  # a worker silent this long past the limit is killed: the slice must fit in a minute
PG_URL = os.environ.get("SCHEMA_SEARCH_TEST_PG_URL")


def _failures(results: list[hostile_sql.Result]) -> str:
    bad = [r for r in results if r.outcome in (hostile_sql.EFFECT, hostile_sql.CRASHED)]
    return "\n".join(f"{r.surface} {r.case_id}: {r.outcome}: {'; '.join(r.effects) or r.message}" for r in bad)


def _needs_postgres() -> str:
    if not PG_URL:
        pytest.skip("SCHEMA_SEARCH_TEST_PG_URL is not set (scripts/setup_postgres.sh prints it)")
    why = postgres_unavailable(PG_URL)
    if why is not None:
        pytest.skip(f"PostgreSQL part skipped: {why}")
    return PG_URL


def test_file_databases_and_collections_change_nothing():
    results, _ = hostile_sql.run_cases(
        ("sqlite", "duckdb"), collections=True, limit_s=LIMIT_S, subset=hostile_sql.ci_slice, hung_s=HUNG_S
    )
    assert {r.surface for r in results} == {"sqlite", "duckdb", "collections"}
    assert not _failures(results), _failures(results)


@pytest.mark.postgres
def test_postgres_changes_nothing():
    url = _needs_postgres()
    results, notes = hostile_sql.run_cases(
        ("postgres",), collections=False, limit_s=LIMIT_S, subset=hostile_sql.ci_slice, pg_url=url, hung_s=HUNG_S
    )
    assert not notes
    assert {r.surface for r in results} == {
        "postgres as reader",
        "postgres as owner",
        "postgres checklist",
        "postgres indexing",
    }
    assert not _failures(results), _failures(results)
    # SQL that names nothing planted, yet resolves to planted casts and operators, is refused by name.
    refused = {r.case_id: r.message for r in results if r.surface == "postgres as reader"}
    assert "public.int_text(integer)" in refused["postgres.cast-int-text"]
    assert "vcat" in refused["postgres.operator-concat"]
    assert "mood_text" in refused["postgres.enum-cast"]


def test_outcomes_come_from_the_exception():
    assert hostile_sql.outcome_of(["QueryStopped", "QueryFailed"], "anything") == hostile_sql.LIMIT
    assert hostile_sql.outcome_of(["QueryRefused"], "") == hostile_sql.VALIDATION
    assert hostile_sql.outcome_of(["PayloadTooLarge", "SchemaSearchError"], "") == hostile_sql.VALIDATION


def test_parts_count_effects_and_overshoot():
    def result(outcome: str, seconds: float = 0.1, runaway: bool = False) -> hostile_sql.Result:
        return hostile_sql.Result(
            "sqlite",
            "sqlite.x",
            "runaway",
            runaway,
            outcome,
            "",
            "",
            seconds,
            ["changed file db"] if outcome == hostile_sql.EFFECT else [],
        )

    made = hostile_sql.parts([result(hostile_sql.EFFECT), result(hostile_sql.LIMIT, 3.5, runaway=True)], 2.0)
    database, runaways = made
    assert (database.counts["ran with an effect"], database.at_target) == (1, False)
    assert database.details == ["sqlite sqlite.x: changed file db"]
    assert (runaways.counts["over"], runaways.counts["max overshoot s"], runaways.at_target) == (1, 3.5 - 2.0, False)


def test_file_watch_sees_a_changed_database_and_restoring_undoes_it():
    scratch = make_scratch()
    try:
        path = sqlite_database(scratch)
        watch = FileWatch(trees=[scratch.root])
        before = watch.snapshot()
        with sqlite3.connect(path) as connection:
            connection.execute("DELETE FROM orders")
        (scratch.out / "new.txt").write_text("x")
        found = changes(before, watch.snapshot())
        assert any(line.startswith(f"changed file {path}:") for line in found)
        assert any(line.startswith(f"new file {scratch.out / 'new.txt'}") for line in found)
        restore_files(scratch)
        key = f"file {path}"
        assert watch.snapshot()[key].split("sha1 ")[1] == before[key].split("sha1 ")[1]
    finally:
        remove_scratch(scratch)


@pytest.mark.postgres
def test_postgres_watch_sees_every_kind_of_effect():
    """Each effect done on purpose (as the owner, or the superuser) is reported: the suite is not blind."""
    import psycopg2

    url = _needs_postgres()
    scratch = make_scratch()
    try:
        with postgres_database(scratch, url) as pg:
            watch = PostgresWatch(pg)
            files = FileWatch(trees=[scratch.out])
            try:

                def effects_of(action) -> str:
                    before, _ = watch.snapshot()
                    files_before = files.snapshot()
                    action()
                    return "\n".join(watch.after_case(before) + changes(files_before, files.snapshot()))

                def as_owner(sql: str, keep_open: bool = False):
                    def action():
                        connection = psycopg2.connect(pg.owner_url)
                        connection.autocommit = True
                        with connection.cursor() as cursor:
                            cursor.execute(sql)
                        if not keep_open:
                            connection.close()
                        else:
                            opened.append(connection)

                    return action

                opened: list = []
                pids = watch.placeholders()
                assert "changed table public.audit_log" in effects_of(
                    as_owner("INSERT INTO audit_log(note) VALUES ('x')")
                )
                assert "changed sequence public.order_seq" in effects_of(as_owner("SELECT nextval('order_seq')"))
                assert "NOTIFY delivered on ss_hostile" in effects_of(as_owner("NOTIFY ss_hostile, 'x'"))
                assert "the reader canary session was ended" in effects_of(
                    lambda: pg.super.query(f"SELECT pg_terminate_backend({pids['READER_PID']})")
                )
                assert "the busy canary's query was stopped" in effects_of(
                    lambda: pg.super.query(f"SELECT pg_cancel_backend({watch.placeholders()['BUSY_PID']})")
                )
                held = effects_of(as_owner("SELECT pg_advisory_lock(7)", keep_open=True))
                assert "left a session running" in held and "changed advisory locks" in held
                assert "new file" in effects_of(lambda: pg.super.query("SELECT public.program_total()"))
                assert "changed large objects" in effects_of(lambda: pg.super.query("SELECT lo_from_bytea(0, 'x')"))
                assert "changed configuration files" in effects_of(
                    lambda: pg.super.query("SELECT public.alter_system_remote()")
                )
                killed = effects_of(as_owner("SELECT public.kill_sessions()"))
                assert "the superuser audit session ended" in killed and "the owner canary session was ended" in killed
                assert "the busy canary's query was stopped" in killed
                assert effects_of(lambda: None) == ""
            finally:
                for connection in opened:
                    connection.close()
                watch.close()
    finally:
        remove_scratch(scratch)
