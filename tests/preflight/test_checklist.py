"""preflight: each slot filled from the first source that has it, the rest asked in one batch.

Runs on the sample shop database with the real probe (read-only, through execute_sql).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from schema_search.connectors import sqlalchemy_url
from schema_search.preflight.checklist import preflight
from schema_search.preflight.lookup import MAX_PROBES
from schema_search.preflight.probe import database_probe
from schema_search.tables.catalog import Catalog

from ..sample_shop import JOINS, build, rows

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
    found = check(
        shop, COUNT, "How many orders are done?", instructions="Done means delivered.", defaults={"status": "delivered"}
    )
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
        "question",
        "= delivered",
    )


def test_a_name_the_question_gives_that_the_database_holds_twice_is_asked(shop) -> None:
    suppliers = sorted(r["company_name"] for r in rows(shop[0], "suppliers") if r["company_name"].startswith("Acme"))
    for sql in [
        f"{REVENUE} WHERE s.company_name LIKE '%Acme%'",
        f"{REVENUE} WHERE s.company_name = 'Acme'",
        f"{REVENUE} WHERE s.company_name = 'Acme GmbH'",
    ]:
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
        "'last month' on 2026-12-02 is 2026-11-01 to 2026-12-01 (end excluded), but the SQL selects orders.placed_at "
        "from 2026-10-01 to 2026-11-01 (end excluded) — which period is meant?"
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


OCTOBER_QUESTION = "What was the revenue of Acme GmbH in October 2026?"
ACME = f"{REVENUE} WHERE s.company_name = 'Acme GmbH' AND "


@pytest.mark.parametrize(
    ("dates", "selects"),
    [
        ("o.placed_at >= '2026-11-01'", "from 2026-11-01 on, with no end"),
        ("o.placed_at >= '2026-10-01'", "from 2026-10-01 on, with no end"),
        ("o.placed_at < '2026-10-01'", "before 2026-10-01, with no start"),
        ("o.placed_at <> '2026-10-15'", "by o.placed_at <> '2026-10-15', which is not one stretch"),
        ("o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-02'", "from 2026-10-01 to 2026-11-02 (end excluded)"),
        ("o.placed_at >= '2026-10-01' AND o.placed_at <= '2026-11-01'", "from 2026-10-01 to 2026-11-02 (end excluded)"),
        (
            "(o.placed_at < '2026-10-01' OR o.placed_at >= '2026-11-01')",
            "by o.placed_at < '2026-10-01'; o.placed_at >= '2026-11-01', which not every row that comes back has to meet",
        ),
        ("o.placed_at BETWEEN '2026-10-01' AND '2026-11-01'", "from 2026-10-01 to 2026-11-02 (end excluded)"),
        ("o.placed_at = '2026-10-15'", "from 2026-10-15 to 2026-10-16 (end excluded)"),
    ],
)
def test_a_time_filter_that_selects_another_period_than_the_question_names_is_asked(shop, dates, selects) -> None:
    found = check(shop, ACME + dates, OCTOBER_QUESTION)
    assert found.status == "needs_answers", dates
    assert [s.key for s in found.unknowns] == ["time:main.orders.placed_at"]
    assert found.questions[0].startswith(f"The SQL selects orders.placed_at {selects}"), found.questions[0]
    assert "but the question says 'October 2026' (2026-10-01 to 2026-11-01, end excluded)" in found.questions[0]


@pytest.mark.parametrize(
    ("dates", "whole_days"),
    [
        ("o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-01'", False),
        ("o.placed_at < '2026-11-01' AND '2026-10-01' <= o.placed_at", False),
        ("o.placed_at >= '2026-10-01 00:00:00' AND o.placed_at <= '2026-10-31 23:59:59'", False),
        ("o.placed_at >= '2026-10-01' AND o.placed_at <= '2026-10-31'", True),
        ("o.placed_at BETWEEN '2026-10-01' AND '2026-10-31'", True),
        ("date(o.placed_at) BETWEEN '2026-10-01' AND '2026-10-31'", False),
        ("strftime('%Y-%m', o.placed_at) = '2026-10'", False),
        ("o.placed_at >= date('2026-10-01') AND o.placed_at < date('2026-11-01')", False),
    ],
)
def test_a_time_filter_that_selects_exactly_the_named_period_is_the_questions(shop, dates, whole_days) -> None:
    found = check(shop, ACME + dates, OCTOBER_QUESTION)
    period = slot(found, "time:main.orders.placed_at")
    assert (found.status, period.source) == ("ready", "question"), (dates, found.questions)
    # placed_at is TEXT holding times of day: a whole-day upper bound may be read as midnight.
    assert (period.note is not None and "compared with whole days" in period.note) is whole_days, period.note


def test_the_question_names_a_period_but_the_sql_reads_the_clock(shop) -> None:
    found = check(shop, ACME + "o.placed_at >= date('now', 'start of month', '-1 month')", OCTOBER_QUESTION)
    assert found.status == "needs_answers"
    assert found.questions == [
        "The question names October 2026, but the SQL computes orders.placed_at from the database clock "
        "(o.placed_at >= DATE('now', 'start of month', '-1 month')): write the dates of October 2026 in the SQL."
    ]


def test_an_answer_that_names_another_period_than_the_sql_selects_is_asked_again(shop) -> None:
    open_ended = ACME + "o.placed_at >= '2026-11-01'"
    answered = check(shop, open_ended, "Revenue of Acme GmbH last month", conversation={"time": "November 2026"})
    assert answered.status == "needs_answers"
    assert answered.questions == [
        "The user answered 'November 2026', but the SQL selects orders.placed_at from "
        "2026-11-01 on, with no end: write the SQL with the dates of 'November 2026'."
    ]
    closed = check(
        shop,
        open_ended + " AND o.placed_at < '2026-12-01'",
        "Revenue of Acme GmbH last month",
        conversation={"time": "November 2026"},
    )
    assert closed.status == "ready" and slot(closed, "time:main.orders.placed_at").source == "conversation"


def test_a_fixed_today_in_the_defaults_is_noted_as_one(shop) -> None:
    november = ACME + "o.placed_at >= '2026-11-01' AND o.placed_at < '2026-12-01'"
    found = check(
        shop, november, "Revenue of Acme GmbH last month", defaults={"timezone": "UTC", "today": "2026-12-02"}
    )
    period = slot(found, "time:main.orders.placed_at")
    assert found.status == "ready" and period.source == "defaults"
    assert (
        "'today' is 2026-12-02, a fixed date from the operator's defaults: it does not move with the calendar"
        in period.note
    )


def test_clock_sql_is_bound_to_the_day_in_the_time_zone(shop) -> None:
    clock = f"{REVENUE} WHERE o.placed_at >= date('now', 'start of month', '-1 month') AND o.placed_at < date('now', 'start of month')"
    late = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)  # already 1 January in Berlin
    found = check(shop, clock, "Revenue last month", defaults={"timezone": "Europe/Berlin"}, now=late)
    period = slot(found, "time:main.orders.placed_at")
    assert period.value.endswith("| time zone Europe/Berlin, today 2027-01-01")
    assert "an approval holds for that day only" in period.note
    utc = check(shop, clock, "Revenue last month", defaults={"timezone": "UTC"}, now=late)
    assert slot(utc, "time:main.orders.placed_at").value.endswith("| time zone UTC, today 2026-12-31")


def test_an_unexplained_literal_needs_the_question_or_an_answer(shop) -> None:
    sql = f"{REVENUE} WHERE s.company_name IN (SELECT 'Acme GmbH')"
    asked = check(shop, sql, "What is the revenue of Acme?")
    assert asked.status == "needs_answers"
    assert [(s.key, s.literals) for s in asked.unknowns] == [("literal:1", ["Acme GmbH"])]
    assert asked.questions == [
        "'Acme GmbH' in s.company_name IN (SELECT 'Acme GmbH'): the question does not say it, "
        "and no column comparison lets the database confirm it — which value is meant?"
    ]
    answered = check(shop, sql, "What is the revenue of Acme?", conversation={"literal:1": "Acme GmbH"})
    assert answered.status == "ready" and slot(answered, "literal:1").source == "conversation"
    other = check(shop, sql, "What is the revenue of Acme?", conversation={"literal:1": "Acme Ltd"})
    assert "write the SQL with 'Acme Ltd'" in other.questions[0]
    said = check(shop, sql, "What is the revenue of Acme GmbH?")
    assert said.status == "ready" and slot(said, "literal:1").source == "question"


def test_a_glob_the_question_does_not_name_is_asked_with_the_values_it_could_mean(shop) -> None:
    found = check(shop, f"{REVENUE} WHERE s.company_name GLOB 'Acme*'", "What is the revenue of Acme?")
    unknown = found.unknowns[0]
    assert found.status == "needs_answers" and unknown.key == "value:main.suppliers.company_name"
    assert sorted(unknown.options) == ["Acme GmbH", "Acme Ltd"]


def test_the_database_is_asked_at_most_max_probes_times_per_checklist(shop) -> None:
    _, catalog, probe = shop
    calls = []

    def counted(*args):
        calls.append(args)
        return probe(*args)

    values = ", ".join(f"'s{n}'" for n in range(30))
    found = check(shop, f"SELECT COUNT(*) FROM orders WHERE status IN ({values})", "How many orders?", probe=counted)
    assert len(calls) == MAX_PROBES
    assert any(w.startswith(f"More than {MAX_PROBES} values to look up") for w in found.warnings)
    assert len(found.unknowns) == 30  # none stored, none said: each is asked, probed or not
    unprobed = slot(found, "value:main.orders.status#30")
    assert unprobed.question == "'s29' for orders.status: the question does not say it — which value is meant?"


def test_a_number_like_string_is_looked_up_as_a_string(tmp_path) -> None:
    path = tmp_path / "parts.db"
    with sqlite3.connect(path) as connection:
        connection.executescript(
            "CREATE TABLE parts (code TEXT, weight INTEGER); "
            "INSERT INTO parts VALUES ('01234', 5), ('1234', 12), ('77', 5);"
        )
    url = f"sqlite:///{path}"
    catalog = sqlalchemy_url.introspect(url, catalog="parts")
    probe = database_probe(url, catalog)
    found = preflight(
        "SELECT COUNT(*) FROM parts WHERE code = '01234'",
        question="How many parts have code 01234?",
        catalog=catalog,
        dialect="sqlite",
        max_rows=10,
        probe=probe,
    )
    assert found.status == "ready", found.questions
    assert slot(found, "value:main.parts.code").note is None  # found stored as written: no "closest is" question
    assert probe("main.parts.code", "01234", "=", "string").matched == ["01234"]
    assert probe("main.parts.weight", "5", "=", "number").matched == ["5"]


def test_a_negated_comparison_is_asked_even_when_the_question_names_its_value(shop) -> None:
    sql = "SELECT COUNT(*) FROM orders WHERE status <> 'paid'"
    asked = check(shop, sql, "How many paid orders are there?")
    assert asked.status == "needs_answers"
    assert "orders whose status is not 'paid'" in asked.questions[0]
    confirmed = check(
        shop, sql, "How many paid orders are there?", conversation={"value:main.orders.status": "<> paid"}
    )
    assert (confirmed.status, slot(confirmed, "value:main.orders.status").value) == ("ready", "<> paid")


@pytest.mark.parametrize(
    "where",
    [
        "status = 'paid' OR 1 = 1",
        "status = 'paid' OR status = 'refunded'",
        "NOT (status = 'paid')",
        "order_id IN (SELECT order_id FROM orders WHERE status = 'paid' OR 1 = 1)",
    ],
)
def test_a_value_under_an_or_a_not_or_a_subquery_is_not_the_questions(shop, where: str) -> None:
    checked = check(shop, f"SELECT COUNT(*) FROM orders WHERE {where}", "How many paid orders are there?")
    assert checked.status == "needs_answers"
    assert all(s.source != "question" for s in checked.slots if s.kind == "value")


def test_the_database_does_not_fill_a_value_the_question_contradicts(shop) -> None:
    checked = check(shop, "SELECT COUNT(*) FROM orders WHERE status = 'shipped'", "How many paid orders are there?")
    assert checked.status == "needs_answers"
    assert checked.questions[0].startswith("The question says 'paid', the SQL 'shipped'")
    plain = check(shop, "SELECT COUNT(*) FROM orders WHERE status = 'shipped'", "How many orders are on their way?")
    assert slot(plain, "value:main.orders.status").source == "database"


OCTOBER = "placed_at >= '2026-10-01' AND placed_at < '2026-11-01'"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT COUNT(*) FROM orders WHERE date(placed_at, '+1 month') >= '2026-10-01' "
        "AND date(placed_at, '+1 month') < '2026-11-01'",
        "SELECT COUNT(*) FROM orders WHERE strftime('%Y-%d', placed_at) = '2026-10'",
        "SELECT COUNT(*) FROM orders WHERE strftime('%Y-%m', placed_at, '-1 month') = '2026-10'",
        f"SELECT COUNT(*) FROM orders WHERE order_id NOT IN (SELECT order_id FROM orders WHERE {OCTOBER})",
        "SELECT COUNT(*) FROM orders WHERE NOT EXISTS (SELECT 1 FROM orders o2 WHERE o2.order_id = orders.order_id "
        "AND o2.placed_at >= '2026-10-01' AND o2.placed_at < '2026-11-01')",
        f"WITH oct AS (SELECT * FROM orders WHERE {OCTOBER}) SELECT COUNT(*) FROM orders",
        f"SELECT COUNT(*) FROM orders WHERE {OCTOBER} UNION ALL SELECT COUNT(*) FROM orders",
        "SELECT COUNT(*) FROM orders o WHERE o.placed_at >= '2026-10-01' AND o.customer_id IN "
        "(SELECT customer_id FROM orders WHERE placed_at < '2026-11-01')",
    ],
)
def test_a_time_filter_that_does_not_select_the_period_exactly_is_asked(shop, sql: str) -> None:
    checked = check(shop, sql, "How many orders in October 2026?")
    assert checked.status == "needs_answers", slot(checked, "time:main.orders.placed_at")


@pytest.mark.parametrize(
    ("where", "question"),
    [
        (OCTOBER, "How many orders in October 2026?"),
        ("placed_at LIKE '2026-10%'", "How many orders in October 2026?"),
        ("substr(placed_at, 1, 7) = '2026-10'", "How many orders in October 2026?"),
        ("placed_at >= '2026-10-01'", "How many orders since October 2026?"),
        ("placed_at >= '2026-10-01'", "How many orders from October 2026 on?"),
        ("placed_at >= '2026-11-01'", "How many orders after October 2026?"),
        ("placed_at < '2026-10-01'", "How many orders before October 2026?"),
    ],
)
def test_a_time_filter_matching_the_questions_period_or_its_open_end_is_the_questions(shop, where, question) -> None:
    checked = check(shop, f"SELECT COUNT(*) FROM orders WHERE {where}", question)
    assert (checked.status, slot(checked, "time:main.orders.placed_at").source) == ("ready", "question")


def test_an_open_end_the_question_does_not_say_is_still_asked(shop) -> None:
    for where, question in [
        ("placed_at >= '2026-10-01'", "How many orders in October 2026?"),
        ("placed_at >= '2026-10-01'", "How many orders before October 2026?"),
        ("placed_at >= '2026-10-01'", "How many orders after October 2026?"),
    ]:
        assert check(shop, f"SELECT COUNT(*) FROM orders WHERE {where}", question).status == "needs_answers", question


def test_a_function_result_compared_with_zero_asks_nothing_about_the_zero(shop) -> None:
    checked = check(shop, f"{REVENUE} WHERE instr(s.company_name, 'GmbH') > 0", "Revenue of GmbH suppliers")
    assert (checked.status, checked.questions) == ("ready", [])


def test_an_offset_is_bound_in_the_limit_slot(shop) -> None:
    checked = check(shop, "SELECT name FROM products ORDER BY name LIMIT 5 OFFSET 5", "the top 5 products by name")
    assert slot(checked, "limit").value == "5 OFFSET 5"
    assert (
        checked.verdict
        != check(shop, "SELECT name FROM products ORDER BY name LIMIT 5 OFFSET 6", "the top 5 products by name").verdict
    )


@pytest.mark.parametrize(
    ("question", "where", "ready"),
    [
        ("Which products cost more than 20 euros?", "unit_price > 20", True),
        ("Which products cost at least 20?", "unit_price >= 20", True),
        ("Which products cost under $20?", "unit_price < 20", True),
        ("Products at 20 or less", "unit_price <= 20", True),
        # The words say another range, or another number, than the SQL: asked.
        ("Which products cost more than 20 euros?", "unit_price >= 20", False),
        ("Which products cost more than 20 euros?", "unit_price > 200", False),
        ("Which products cost 20 euros?", "unit_price > 20", False),
    ],
)
def test_a_range_the_question_states_in_words_is_the_questions(shop, question: str, where: str, ready: bool) -> None:
    checklist = check(shop, f"SELECT name FROM products WHERE {where}", question)
    assert (checklist.status == "ready") is ready, checklist.questions
    if ready:
        assert slot(checklist, "value:main.products.unit_price").source == "question"
