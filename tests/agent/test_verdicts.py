"""verdicts: every checklist recorded, read back from the file, and an approval bound to its values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import schema_search.agent.verdicts as verdicts
from schema_search.agent.preflight import preflight
from schema_search.agent.verdicts import VerdictLog, approve
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
        "The approval is void: slot value:main.orders.status was approved as 'paid' and is now 'shipped'. "
        "Show the user the new checklist and ask again."
    )
    limited = checklist(SQL + " LIMIT 5")
    assert "slot limit was approved as '20' and is now '5'" in approve(log, ready.verdict, limited)
    answered = checklist(SQL, "How many paid orders?", conversation={"time": "October 2026"})
    log.record(answered)
    other_answer = checklist(SQL, "How many paid orders?", conversation={"time": "2026-10 UTC"})
    assert "slot time:main.orders.placed_at was approved as" in approve(log, answered.verdict, other_answer)


def test_blocked_verdicts_are_logged_with_their_unknowns_and_no_url(tmp_path: Path) -> None:
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


def test_another_process_finds_a_verdict_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    ready = checklist()
    VerdictLog(path).record(ready)
    code = (
        "import sys; from pathlib import Path; from schema_search.agent.verdicts import VerdictLog; "
        "print(VerdictLog(Path(sys.argv[1])).find(sys.argv[2])['status'])"
    )
    found = subprocess.run([sys.executable, "-c", code, str(path), ready.verdict], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "ready"


def test_the_newest_record_wins_and_lines_are_read_across_block_edges(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(verdicts, "_BLOCK", 7)  # every line spans several blocks
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    ready = checklist()
    log.record(ready)
    log.executed(ready.verdict, rows=1, truncated=False, seconds=0.01)
    assert log.find(ready.verdict)["status"] == "ready"
    assert [e["event"] for e in log.entries()] == ["verdict", "executed"]


def test_the_scan_is_bounded_and_the_log_is_moved_aside_when_large(tmp_path: Path, monkeypatch) -> None:
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    old = checklist()
    log.record(old)
    monkeypatch.setattr(verdicts, "MAX_LOG_BYTES", 10_000)
    monkeypatch.setattr(verdicts, "MAX_SCAN_BYTES", 2_000)
    for n in range(20):  # about 12 kB: more than the log may hold
        log.refused(None, "x" * 500 + str(n))
    assert log.find(old.verdict) is None  # beyond the scan: it must be made again
    assert (tmp_path / "verdicts.jsonl.1").exists()
    new = checklist(SQL + " LIMIT 3")
    log.record(new)
    assert log.find(new.verdict)["sql"] == new.sql
