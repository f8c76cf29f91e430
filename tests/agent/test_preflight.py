"""preflight: each slot filled from the first source that has it, the rest asked in one batch.

Runs on the sample shop database with the real probe (read-only, through execute_sql).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from connectors import sqlalchemy_url
from schema_search.agent.execute_tools import database_probe
from schema_search.agent.preflight import preflight
from schema_search.tables.catalog import Catalog

from .sample_shop import JOINS, build, rows

REVENUE = f"SELECT SUM(oi.quantity * oi.unit_price) AS revenue {JOINS}"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Catalog, object]:
    path = build(tmp_path_factory.mktemp("preflight") / "shop.db")
    url = f"sqlite:///{path}"
    catalog = sqlalchemy_url.introspect(url, catalog="shop")
    return path, catalog, database_probe(url, catalog)


def check(shop, sql: str, question: str, **kwargs):
    _, catalog, probe = shop
    kwargs.setdefault("probe", probe)
    return preflight(sql, question=question, catalog=catalog, dialect="sqlite", max_rows=50, **kwargs)


def slot(checklist, key: str):
    return next(s for s in checklist.slots if s.key == key)


COUNT = "SELECT COUNT(*) FROM orders WHERE status = 'delivered'"


def test_a_value_the_question_gives_is_attributed_to_the_question_before_the_defaults(shop) -> None:
    defaults = {"orders.status": "delivered"}
    said = check(shop, COUNT, "How many delivered orders are there?", defaults=defaults)
    assert (slot(said, "value:main.orders.status").source, said.status) == ("question", "ready")
    unsaid = check(shop, COUNT, "How many orders are done?", defaults=defaults, probe=None)
    assert slot(unsaid, "value:main.orders.status").source == "defaults"


def test_instructions_come_before_defaults_and_the_database(shop) -> None:
    found = check(shop, COUNT, "How many orders are done?", instructions="Done means delivered.",
                  defaults={"status": "delivered"})  # fmt: skip
    assert slot(found, "value:main.orders.status").source == "instructions"
    assert slot(check(shop, COUNT, "How many orders are done?"), "value:main.orders.status").source == "database"


def test_a_value_nobody_gave_and_the_database_lacks_is_asked_with_the_stored_values(shop) -> None:
    path = shop[0]
    found = check(shop, "SELECT COUNT(*) FROM orders WHERE status = 'archived'", "How many old orders are there?")
    assert found.status == "needs_answers"
    unknown = found.unknowns[0]
    assert unknown.key == "value:main.orders.status" and unknown.value is None
    stored = {r["status"] for r in rows(path, "orders")}
    assert set(unknown.options) <= stored and "paid" in unknown.options
    assert found.questions == [unknown.question]
    assert unknown.question.startswith("'archived' for orders.status: the question does not say it; stored values are:")


def test_conversation_answers_fill_only_what_the_earlier_sources_left(shop) -> None:
    sql = f"{REVENUE} WHERE s.company_name = 'Acme Ltd' AND o.status = 'delivered'"
    question = "Revenue of Acme from delivered orders"
    asked = check(shop, sql, question)
    assert [s.key for s in asked.unknowns] == ["value:main.suppliers.company_name"]
    conversation = {"value:main.suppliers.company_name": "Acme Ltd", "value:main.orders.status": "paid"}
    answered = check(shop, sql, question, conversation=conversation)
    assert answered.status == "ready"
    assert slot(answered, "value:main.suppliers.company_name").source == "conversation"
    # The question said "delivered": a conversation value for the same slot does not override it.
    assert (slot(answered, "value:main.orders.status").source, slot(answered, "value:main.orders.status").value) == (
        "question", "delivered",
    )  # fmt: skip


def test_a_name_the_question_gives_that_the_database_holds_twice_is_asked(shop) -> None:
    suppliers = sorted(r["company_name"] for r in rows(shop[0], "suppliers") if r["company_name"].startswith("Acme"))
    for sql in [f"{REVENUE} WHERE s.company_name LIKE '%Acme%'", f"{REVENUE} WHERE s.company_name = 'Acme'",
                f"{REVENUE} WHERE s.company_name = 'Acme GmbH'"]:  # fmt: skip
        found = check(shop, sql, "What is the revenue of Acme?")
        unknown = found.unknowns[0]
        assert found.status == "needs_answers", sql
        assert sorted(unknown.options) == suppliers, sql
        assert unknown.question.startswith(f"'Acme' matches {len(suppliers)} values of suppliers.company_name"), sql
    exact = check(shop, f"{REVENUE} WHERE s.company_name = 'Acme GmbH'", "What is the revenue of Acme GmbH?")
    assert exact.status == "ready" and slot(exact, "value:main.suppliers.company_name").source == "question"


def test_a_relative_time_needs_a_reference_date_and_a_time_zone(shop) -> None:
    clock = f"{REVENUE} WHERE o.placed_at >= date('now', 'start of month', '-1 month') AND o.placed_at < date('now', 'start of month')"
    asked = check(shop, clock, "Revenue last month")
    assert asked.questions == ["'last month' — which month, and in which time zone?"]
    given = check(shop, clock, "Revenue last month", defaults={"timezone": "Europe/Berlin"})
    assert slot(given, "time:main.orders.placed_at").source == "defaults" and given.status == "ready"
    told = check(shop, clock, "Revenue last month", instructions="All times are Europe/Berlin.")
    assert slot(told, "time:main.orders.placed_at").source == "instructions"


def test_absolute_dates_are_checked_against_the_period_the_question_or_today_names(shop) -> None:
    october = f"{REVENUE} WHERE o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-01'"
    assert slot(check(shop, october, "Revenue in October 2026"), "time:main.orders.placed_at").source == "question"
    wrong = check(shop, october, "Revenue in November 2026")
    assert wrong.status == "needs_answers" and "November 2026" in wrong.questions[0]
    defaults = {"timezone": "UTC", "today": "2026-12-02"}
    stale = check(shop, october, "Revenue last month", defaults=defaults)
    assert stale.questions == [
        "'last month' on 2026-12-02 is 2026-11-01 to 2026-12-01, but the SQL uses 2026-10-01, 2026-11-01 — which period is meant?"
    ]
    november = october.replace("2026-11-01", "2026-12-01").replace("2026-10-01", "2026-11-01")
    assert check(shop, november, "Revenue last month", defaults=defaults).status == "ready"
    unnamed = check(shop, october, "Revenue of the shop")
    assert unnamed.status == "needs_answers" and "names no period" in unnamed.questions[0]


def test_the_limit_is_filled_from_the_question_or_the_cap(shop) -> None:
    top = check(shop, "SELECT name FROM products ORDER BY unit_price DESC LIMIT 3", "The 3 most expensive products")
    assert (slot(top, "limit").value, slot(top, "limit").source) == ("3", "question")
    all_rows = check(shop, "SELECT name FROM products", "All products")
    assert (slot(all_rows, "limit").value, slot(all_rows, "limit").source) == ("50", "defaults")


def test_sql_the_catalog_does_not_back_is_refused_with_the_reasons(shop) -> None:
    refused = check(shop, "SELECT nme FROM suppliers", "supplier names")
    assert refused.status == "refused" and refused.sql is None and not refused.slots
    assert any("nme" in error for error in refused.errors)
    assert check(shop, "DELETE FROM orders", "delete").status == "refused"


def test_the_verdict_changes_with_any_value_and_only_then(shop) -> None:
    first = check(shop, COUNT, "How many delivered orders are there?")
    again = check(shop, COUNT, "How many delivered orders are there?")
    limited = check(shop, COUNT + " LIMIT 5", "How many delivered orders are there?")
    assert first.verdict == again.verdict != limited.verdict
