"""verdicts: every checklist recorded, read back from the file, and an approval bound to its values."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import schema_search.preflight.verdicts as verdicts
from schema_search.errors import QueryFailed
from schema_search.preflight.checklist import preflight
from schema_search.preflight.gate import Gate, GateConfig
from schema_search.preflight.probe import ProbeResult
from schema_search.preflight.verdicts import VerdictLog, approve
from schema_search.tables.catalog import Catalog, Column, Table

SHOP = Catalog("shop", (Table("main", "orders", columns=(Column("status"), Column("placed_at"))),))
QUESTION = "How many paid orders in October 2026?"
SQL = "SELECT COUNT(*) FROM orders WHERE status = 'paid' AND placed_at >= '2026-10-01' AND placed_at < '2026-11-01'"


def checklist(sql: str = SQL, question: str = QUESTION, **kwargs):
    return preflight(sql, question=question, catalog=SHOP, dialect="sqlite", max_rows=20, **kwargs)


def test_a_ready_verdict_approves_the_same_checklist_made_again(tmp_path: Path) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    ready = checklist()
    assert ready.status == "ready"
    log.record(ready)
    assert approve(log, ready.verdict, checklist()) is None


def test_an_unrecorded_or_blocked_verdict_approves_nothing(tmp_path: Path) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    assert "No checklist was recorded under verdict 'V0000000000'" in approve(log, "V0000000000", checklist())
    blocked = checklist(question="How many orders?")
    assert blocked.status == "needs_answers"
    log.record(blocked)
    why = approve(log, blocked.verdict, blocked)
    assert why.startswith(f"Verdict {blocked.verdict} was needs_answers, not ready")
    assert blocked.questions[0] in why


def test_a_changed_value_voids_the_approval_and_is_named(tmp_path: Path) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    ready = checklist()
    log.record(ready)
    changed = checklist(SQL.replace("'paid'", "'shipped'"), QUESTION.replace("paid", "shipped"))
    assert changed.status == "ready"
    assert approve(log, ready.verdict, changed) == (
        "The approval is void: slot value:main.orders.status was approved as '= paid' and is now '= shipped'. "
        "Show the user the new checklist and ask again."
    )
    limited = checklist(SQL + " LIMIT 5")
    assert "slot limit was approved as '20' and is now '5'" in approve(log, ready.verdict, limited)
    answered = checklist(SQL, "How many paid orders?", conversation={"time": "October 2026"})
    log.record(answered)
    other_answer = checklist(SQL, "How many paid orders?", conversation={"time": "2026-10 UTC"})
    assert "slot time:main.orders.placed_at was approved as" in approve(log, answered.verdict, other_answer)


def test_blocked_verdicts_are_logged_with_their_unknowns(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    blocked = checklist(question="How many orders?")
    VerdictLog(path).record(blocked)
    VerdictLog(path).refused(blocked.verdict, "not approved", unknowns=[s.key for s in blocked.unknowns])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["event"] for e in lines] == ["verdict", "refused"]
    assert lines[0]["status"] == "needs_answers"
    assert [u["key"] for u in lines[0]["unknowns"]] == [s.key for s in blocked.unknowns]
    assert lines[0]["unknowns"][0]["question"] == blocked.questions[0]
    assert {"time", "catalog", "question", "sql", "slots"} <= set(lines[0])


def test_a_database_url_and_its_password_never_reach_the_log(tmp_path: Path) -> None:
    # Port 1 on this machine: the connection is refused at once, so every path that talks
    # to the database (the probe, the approved run) fails and is logged, without a network.
    url = "postgresql://reader:s3cret-Pw@127.0.0.1:1/shop"
    tools = Gate(SHOP, GateConfig(url=url, log=VerdictLog(tmp_path / "verdicts.jsonl"), max_rows=20, timeout_s=5))
    blocked = tools.execute_sql(SQL, "How many orders?")
    assert blocked.status == "needs_answers"
    tools.execute_sql(SQL, "How many orders?", approval=blocked.verdict)
    ready = tools.execute_sql(SQL, QUESTION)
    assert ready.status == "ready"
    assert any("Could not look orders.status up" in w for w in ready.checklist.warnings)  # the probe did try
    with pytest.raises(QueryFailed):
        tools.execute_sql(SQL, QUESTION, approval=ready.verdict)
    text = (tmp_path / "verdicts.jsonl").read_text()
    assert [json.loads(line)["event"] for line in text.splitlines()] == [
        "verdict",
        "verdict",
        "refused",
        "verdict",
        "verdict",
        "refused",
    ]
    for secret in (url, "s3cret-Pw", "reader:", "postgresql://"):
        assert secret not in text
        assert secret not in " ".join(ready.checklist.warnings)


def test_stored_values_shown_in_a_question_are_not_logged(tmp_path: Path) -> None:
    stored = {"main.orders.status": ["paid", "shipped", "refunded"]}

    def probe(column, literal, operator, kind="string"):  # what a database holding those statuses answers
        values = stored[column]
        return ProbeResult(matched=[v for v in values if v == literal], near=[], stored=values)

    path = tmp_path / "verdicts.jsonl"
    blocked = checklist(SQL.replace("'paid'", "'archived'"), "How many old orders in October 2026?", probe=probe)
    unknown = blocked.unknowns[0]
    assert unknown.options == ["paid", "shipped", "refunded"] and "refunded" in unknown.question  # the agent sees them
    VerdictLog(path).record(blocked)
    text = path.read_text()
    assert "shipped" not in text and "refunded" not in text
    logged = json.loads(text)["unknowns"][0]
    assert logged == {
        "key": "value:main.orders.status",
        "options": 3,
        "question": "'archived' for orders.status: the question does not say it; stored values are: "
        "[3 stored values] — which value is meant?",
    }


def test_an_approval_of_sql_that_reads_the_clock_holds_for_its_day_only(tmp_path: Path) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    clock = "SELECT COUNT(*) FROM orders WHERE placed_at >= date('now', 'start of month', '-1 month')"
    december = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    approved = checklist(clock, "How many orders last month?", defaults={"timezone": "Europe/Berlin"}, now=december)
    assert approved.status == "ready"
    log.record(approved)
    later_that_day = checklist(
        clock, "How many orders last month?", defaults={"timezone": "Europe/Berlin"}, now=december.replace(hour=20)
    )
    assert approve(log, approved.verdict, later_that_day) is None
    january = checklist(
        clock,
        "How many orders last month?",
        defaults={"timezone": "Europe/Berlin"},
        now=datetime(2027, 1, 5, 9, 0, tzinfo=UTC),
    )
    why = approve(log, approved.verdict, january)
    assert why.startswith("The approval is void: slot time:main.orders.placed_at was approved as ")
    assert "today 2026-12-02" in why and "today 2027-01-05" in why


def test_another_process_finds_a_verdict_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    ready = checklist()
    VerdictLog(path).record(ready)
    code = (
        "import sys; from pathlib import Path; from schema_search.preflight.verdicts import VerdictLog; "
        "print(VerdictLog(Path(sys.argv[1])).find(sys.argv[2])['status'])"
    )
    found = subprocess.run(
        [sys.executable, "-c", code, str(path), ready.verdict], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "ready"


def test_the_newest_record_wins_and_lines_are_read_across_block_edges(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(verdicts, "_BLOCK", 7)  # every line spans several blocks
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    ready = checklist()
    log.record(ready)
    log.executed(ready.verdict, rows=1, truncated=False, seconds=0.01)
    assert log.find(ready.verdict)["status"] == "ready"
    assert [e["event"] for e in log.entries()] == ["verdict", "executed"]


def test_a_verdict_beyond_the_scan_bound_is_not_found_though_still_in_the_file(tmp_path: Path, monkeypatch) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    old = checklist()
    log.record(old)
    monkeypatch.setattr(verdicts, "MAX_SCAN_BYTES", 2_000)
    for n in range(8):  # about 4.5 kB after it: more than the scan reads, far less than a rotation
        log.refused(None, "x" * 500 + str(n))
    assert not (tmp_path / "verdicts.jsonl.1").exists()
    assert old.verdict in log.path.read_text()  # still on disk: only the scan stops short of it
    assert log.find(old.verdict) is None
    recent = checklist(SQL + " LIMIT 3")
    log.record(recent)
    assert log.find(recent.verdict)["sql"] == recent.sql
    monkeypatch.setattr(verdicts, "MAX_SCAN_BYTES", 100_000)
    assert log.find(old.verdict)["verdict"] == old.verdict  # in reach again once the bound allows


def test_the_log_is_moved_aside_when_large_and_the_old_file_kept(tmp_path: Path, monkeypatch) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    old = checklist()
    log.record(old)
    monkeypatch.setattr(verdicts, "MAX_LOG_BYTES", 3_000)  # the scan bound stays at its 8 MiB
    for n in range(8):
        log.refused(None, "x" * 500 + str(n))
    moved = tmp_path / "verdicts.jsonl.1"
    assert moved.exists() and old.verdict in moved.read_text() and old.verdict not in log.path.read_text()
    assert log.path.stat().st_size < 3_000 + 1_000
    assert log.find(old.verdict) is None  # a moved-aside verdict must be made again
    new = checklist(SQL + " LIMIT 3")
    log.record(new)
    assert log.find(new.verdict)["sql"] == new.sql
