"""execute_tools: on the sample shop database, rows for a fully specified question, one batch of
questions for an underspecified one, and execution only after an approval bound to its values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schema_search.connectors import sqlalchemy_url
from schema_search.errors import QueryRefused
from schema_search.preflight.gate import Gate, GateConfig
from schema_search.preflight.probe import _probe_sql
from schema_search.preflight.verdicts import VerdictLog
from schema_search.tables.catalog import source_id
from schema_search.tools.execute import checklist_text, execute_text

from ..sample_shop import JOINS, build, revenue, rows

REVENUE = f"SELECT SUM(oi.quantity * oi.unit_price) AS revenue {JOINS}"
FULL_QUESTION = "What was the revenue of products supplied by Acme GmbH in October 2026?"
FULL_SQL = (
    f"{REVENUE} WHERE s.company_name = 'Acme GmbH' AND o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-01'"
)
VAGUE_QUESTION = "revenue of Acme last month"
VAGUE_SQL = (
    f"{REVENUE} WHERE s.company_name LIKE '%Acme%' AND o.placed_at >= date('now', 'start of month', '-1 month') "
    "AND o.placed_at < date('now', 'start of month')"
)


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = build(tmp_path_factory.mktemp("execute_tools") / "shop.db")
    return path, f"sqlite:///{path}"


@pytest.fixture
def tools(shop, tmp_path: Path) -> Gate:
    _, url = shop
    catalog = sqlalchemy_url.introspect(url, catalog="shop")
    return Gate(catalog, GateConfig(url=url, log=VerdictLog(tmp_path / "verdicts.jsonl"), max_rows=50, timeout_s=5))


def events(tools: Gate) -> list[dict]:
    return [json.loads(line) for line in tools.log.path.read_text().splitlines()]


def test_a_fully_specified_question_is_ready_and_runs_once_approved(shop, tools: Gate) -> None:
    path, _ = shop
    checked = tools.execute_sql(FULL_SQL, FULL_QUESTION)
    assert checked.status == "ready" and checked.result is None
    assert {s.key: s.source for s in checked.checklist.slots if s.kind != "column" and s.kind != "table"} == {
        "value:main.suppliers.company_name": "question",
        "time:main.orders.placed_at": "question",
        "limit": "defaults",
    }
    ran = tools.execute_sql(FULL_SQL, FULL_QUESTION, approval=checked.verdict)
    assert ran.status == "executed" and ran.verdict == checked.verdict
    assert ran.result.columns == ["revenue"]
    assert ran.result.rows == [[pytest.approx(revenue(path, "Acme GmbH", "2026-10-01", "2026-11-01"))]]
    assert not ran.result.truncated
    expected = sorted(["main.order_items", "main.orders", "main.products", "main.suppliers"])
    assert [t.table for t in ran.tables] == expected
    assert [t.cite for t in ran.tables] == [f"[{source_id('shop', t)}]" for t in expected]
    assert [e["event"] for e in events(tools)] == ["verdict", "verdict", "executed"]
    assert "EXECUTED" in execute_text(ran) and str(ran.result.rows[0][0]) in execute_text(ran)


def test_an_underspecified_question_gets_one_batch_of_questions_and_does_not_run(shop, tools: Gate) -> None:
    acme = sorted(r["company_name"] for r in rows(shop[0], "suppliers") if r["company_name"].startswith("Acme"))
    assert acme == ["Acme GmbH", "Acme Ltd"]  # the sample data's premise
    asked = tools.execute_sql(VAGUE_SQL, VAGUE_QUESTION)
    assert asked.status == "needs_answers" and asked.result is None
    unknowns = {s.key: s for s in asked.checklist.unknowns}
    assert set(unknowns) == {"value:main.suppliers.company_name", "time:main.orders.placed_at"}
    assert sorted(unknowns["value:main.suppliers.company_name"].options) == acme
    assert asked.checklist.questions == [
        f"'Acme' matches 2 values of suppliers.company_name: {', '.join(unknowns['value:main.suppliers.company_name'].options)} — which one?",
        "'last month' — which month, and in which time zone?",
    ]
    text = checklist_text(asked.checklist)
    assert "NEEDS ANSWERS" in text and "1. " in text and "2. " in text
    refused = tools.execute_sql(VAGUE_SQL, VAGUE_QUESTION, approval=asked.verdict)
    assert refused.status == "not_approved" and refused.result is None
    assert "was needs_answers, not ready" in refused.message
    logged = events(tools)
    assert [e["event"] for e in logged] == ["verdict", "verdict", "refused"]
    assert [u["key"] for u in logged[0]["unknowns"]] == list(unknowns)
    assert logged[2]["verdict"] == asked.verdict and sorted(logged[2]["unknowns"]) == sorted(unknowns)


def test_answers_become_conversation_state_and_the_rewritten_query_runs(shop, tools: Gate) -> None:
    path, _ = shop
    asked = tools.execute_sql(VAGUE_SQL, VAGUE_QUESTION)
    answers = {"value:main.suppliers.company_name": "Acme GmbH", "time:main.orders.placed_at": "2026-11 Europe/Berlin"}
    # The SQL still says LIKE '%Acme%' and reads the clock: neither answer is in it yet, so both stay open.
    unchanged = tools.execute_sql(VAGUE_SQL, VAGUE_QUESTION, answers=answers, conversation=asked.conversation)
    assert [s.key for s in unchanged.checklist.unknowns] == [
        "value:main.suppliers.company_name",
        "time:main.orders.placed_at",
    ]
    assert "write the SQL with 'Acme GmbH'" in unchanged.checklist.questions[0]
    assert "write the dates of '2026-11 Europe/Berlin' in the SQL" in unchanged.checklist.questions[1]
    rewritten = (
        f"{REVENUE} WHERE s.company_name = 'Acme GmbH' AND o.placed_at >= '2026-11-01' AND o.placed_at < '2026-12-01'"
    )
    ready = tools.execute_sql(rewritten, VAGUE_QUESTION, conversation=unchanged.conversation)
    assert ready.status == "ready" and ready.conversation == answers
    assert {s.source for s in ready.checklist.slots if s.kind in ("value", "time")} == {"conversation"}
    ran = tools.execute_sql(rewritten, VAGUE_QUESTION, approval=ready.verdict, conversation=ready.conversation)
    assert ran.status == "executed"
    assert ran.result.rows == [[pytest.approx(revenue(path, "Acme GmbH", "2026-11-01", "2026-12-01"))]]


def test_the_approval_is_bound_to_the_values_it_approved(tools: Gate) -> None:
    checked = tools.execute_sql(FULL_SQL, FULL_QUESTION)
    other = tools.execute_sql(FULL_SQL.replace("Acme GmbH", "Acme Ltd"), FULL_QUESTION, approval=checked.verdict)
    assert other.status == "not_approved" and other.result is None
    assert other.message.startswith(
        "The approval is void: slot value:main.suppliers.company_name was approved as '= Acme GmbH'"
    )
    limited = tools.execute_sql(FULL_SQL + " LIMIT 1", FULL_QUESTION, approval=checked.verdict)
    assert limited.status == "not_approved"
    assert "slot limit was approved as '50' and is now '1'" in limited.message
    answered = tools.execute_sql(FULL_SQL, FULL_QUESTION, approval=checked.verdict, answers={"limit": "1"})
    assert answered.status == "executed"  # an answer to no open question changes no value
    forged = tools.execute_sql(FULL_SQL, FULL_QUESTION, approval="V0123456789")
    assert forged.status == "not_approved" and "No checklist was recorded" in forged.message
    assert [e["event"] for e in events(tools)].count("refused") == 3


def test_the_question_is_required_and_the_log_keeps_no_url(shop, tools: Gate) -> None:
    with pytest.raises(QueryRefused, match="`question` is required"):
        tools.execute_sql(FULL_SQL, "  ")
    tools.execute_sql(FULL_SQL, FULL_QUESTION)
    assert str(shop[0]) not in tools.log.path.read_text() and "sqlite:" not in tools.log.path.read_text()


def test_sql_that_cannot_run_is_refused_and_logged(tools: Gate) -> None:
    refused = tools.execute_sql("DELETE FROM orders", "delete the orders")
    assert refused.status == "refused" and "read-only" in " ".join(refused.checklist.errors)
    assert execute_text(refused).startswith("REFUSED")
    assert events(tools)[-1]["status"] == "refused"


def test_the_sample_database_is_built_again_whole(tmp_path: Path) -> None:
    path = build(tmp_path / "shop.db")
    first = {t: len(rows(path, t)) for t in ("suppliers", "products", "orders", "order_items", "payments")}
    assert build(path) == path.resolve()
    assert {t: len(rows(path, t)) for t in first} == first  # replaced, not appended to
    assert [p.name for p in tmp_path.iterdir()] == ["shop.db"]  # no scratch file left behind
    months = {r["placed_at"][:7] for r in rows(path, "orders")}
    assert months == {"2026-09", "2026-10", "2026-11"}


def test_the_stored_values_the_probe_shows_the_agent_stay_out_of_the_log(tools: Gate) -> None:
    asked = tools.execute_sql(VAGUE_SQL, VAGUE_QUESTION)
    acme = asked.checklist.unknowns[0]
    assert sorted(acme.options) == ["Acme GmbH", "Acme Ltd"] and "Acme Ltd" in asked.checklist.questions[0]
    tools.execute_sql(VAGUE_SQL, VAGUE_QUESTION, approval=asked.verdict)  # refused: its reason quotes the questions
    text = tools.log.path.read_text()
    assert "Acme Ltd" not in text and "Acme GmbH" not in text
    logged = events(tools)[0]["unknowns"][0]
    assert logged["options"] == 2
    assert logged["question"] == "'Acme' matches 2 values of suppliers.company_name: [2 stored values] — which one?"


@pytest.mark.parametrize(("kind", "written"), [("string", "'01234'"), ("number", "1234")])
def test_the_probe_writes_the_literal_back_as_the_sql_wrote_it(kind, written) -> None:
    value = "01234" if kind == "string" else "1234"
    sql = _probe_sql("public", "parts", "code", value, "=", "postgres", 10, kind)
    assert f'WHERE "code" = {written} LIMIT' in sql


def test_answers_to_an_unexplained_literal_make_it_ready(tools: Gate) -> None:
    sql = (
        f"{REVENUE} WHERE s.company_name IN (SELECT 'Acme GmbH') "
        "AND o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-01'"
    )
    asked = tools.execute_sql(sql, "Revenue of Acme in October 2026")
    assert [s.key for s in asked.checklist.unknowns] == ["literal:1"]
    ready = tools.execute_sql(sql, "Revenue of Acme in October 2026", answers={"literal:1": "Acme GmbH"})
    assert ready.status == "ready"
    ran = tools.execute_sql(
        sql, "Revenue of Acme in October 2026", approval=ready.verdict, conversation=ready.conversation
    )
    assert ran.status == "executed"


def test_the_checklist_shows_the_sql_that_runs_and_each_comparison(tools: Gate) -> None:
    sql = "SELECT COUNT(*) FROM orders WHERE status <> 'paid'"
    asked = tools.execute_sql(sql, "How many paid orders are there?")
    text = checklist_text(asked.checklist)
    assert asked.status == "needs_answers"
    assert f"\n{asked.checklist.sql}\n" in text and "<> 'paid'" in asked.checklist.sql
    assert "value:main.orders.status <> 'paid' ?  [UNKNOWN]  (SQL: status <> 'paid')" in text
    answered = tools.execute_sql(
        sql, "How many paid orders are there?", answers={"value:main.orders.status": "<> paid"}
    )
    assert answered.status == "ready"
    assert "value:main.orders.status <> paid  [conversation]" in checklist_text(answered.checklist)
    equal = tools.execute_sql("SELECT COUNT(*) FROM orders WHERE status = 'paid'", "How many paid orders are there?")
    assert slot_value(equal, "value:main.orders.status") == "= paid"
    assert slot_value(answered, "value:main.orders.status") == "<> paid"


def slot_value(result, key: str) -> str | None:
    return next(s.value for s in result.checklist.slots if s.key == key)
