"""slots: the assumptions of a query, read off its parse tree, columns resolved through aliases."""

from __future__ import annotations

import pytest
import sqlglot

from schema_search.preflight.slots import Slot, slots
from schema_search.sql.names import TableResolver
from schema_search.sql.validate import Parsed
from schema_search.tables.catalog import Catalog, Column, Table

SHOP = Catalog(
    "shop",
    (
        Table(
            "main", "orders", columns=(Column("order_id"), Column("status"), Column("placed_at"), Column("customer_id"))
        ),
        Table("main", "customers", columns=(Column("customer_id"), Column("email"), Column("country"))),
        Table(
            "main",
            "products",
            columns=(Column("product_id"), Column("name"), Column("unit_price"), Column("created_at")),
        ),
    ),
)
PG = Catalog("pg", (Table("public", "orders", columns=(Column("id"), Column("placed_at"), Column("total"))),))


def by_key(sql: str, catalog: Catalog = SHOP, dialect: str = "sqlite") -> dict[str, Slot]:
    # Parsed and resolved as validate_sql does, without its rules: slots read SQL it may refuse too.
    tree = sqlglot.parse_one(sql, read=dialect)
    found = slots(Parsed(tree, TableResolver(catalog, dialect).tables(tree), dialect))
    assert len({s.key for s in found}) == len(found), "keys must be unique"
    return {s.key: s for s in found}


def test_tables_and_columns_are_listed_once_each_with_aliases_resolved() -> None:
    found = by_key(
        "SELECT o.order_id, c.country FROM orders AS o JOIN customers c ON c.customer_id = o.customer_id "
        "JOIN orders o2 ON o2.order_id = o.order_id"
    )
    assert [k for k in found if k.startswith("table:")] == ["table:main.orders", "table:main.customers"]
    assert {k for k in found if k.startswith("column:")} == {
        "column:main.orders.order_id",
        "column:main.customers.country",
        "column:main.customers.customer_id",
        "column:main.orders.customer_id",
    }


def test_a_value_compared_through_an_alias_a_cte_or_unqualified_gets_the_column_key() -> None:
    for sql in [
        "SELECT 1 FROM customers AS cu WHERE cu.country = 'DE'",
        "SELECT 1 FROM customers WHERE country = 'DE'",
        "WITH x AS (SELECT country AS land FROM customers) SELECT * FROM x WHERE land = 'DE'",
        "SELECT 1 FROM (SELECT c.country FROM customers c) AS d WHERE d.country = 'DE'",
        "SELECT 1 FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE country = 'DE'",
    ]:
        slot = by_key(sql)["value:main.customers.country"]
        assert (slot.kind, slot.operator, slot.literals) == ("value", "=", ["DE"]), sql


def test_in_lists_give_one_slot_per_value_numbered_in_sql_order() -> None:
    found = by_key("SELECT 1 FROM orders WHERE status IN ('paid', 'shipped') AND status <> 'cancelled'")
    assert [(s.key, s.operator, s.literals) for s in found.values() if s.kind == "value"] == [
        ("value:main.orders.status", "in", ["paid"]),
        ("value:main.orders.status#2", "in", ["shipped"]),
        ("value:main.orders.status#3", "<>", ["cancelled"]),
    ]


def test_between_numbers_is_two_values_and_between_dates_one_period() -> None:
    found = by_key(
        "SELECT 1 FROM products WHERE unit_price BETWEEN 10 AND 20 AND created_at BETWEEN '2026-01-01' AND '2026-02-01'"
    )
    assert [(s.key, s.literals) for s in found.values() if s.kind == "value"] == [
        ("value:main.products.unit_price", ["10"]),
        ("value:main.products.unit_price#2", ["20"]),
    ]
    period = found["time:main.products.created_at"]
    assert (period.operator, period.literals, period.clock) == ("between", ["2026-01-01", "2026-02-01"], False)


def test_like_not_like_and_a_comparison_written_backwards() -> None:
    found = by_key("SELECT 1 FROM products p WHERE p.name LIKE '%pan%' AND NOT p.name LIKE 'x%' AND 10 < p.unit_price")
    assert (found["value:main.products.name"].operator, found["value:main.products.name"].literals) == (
        "like",
        ["%pan%"],
    )
    assert found["value:main.products.name#2"].operator == "not like"
    assert found["value:main.products.name#2"].fragment == "NOT p.name LIKE 'x%'"
    assert (found["value:main.products.unit_price"].operator, found["value:main.products.unit_price"].literals) == (
        ">",
        ["10"],
    )


def test_comparisons_of_two_columns_are_not_value_slots() -> None:
    found = by_key("SELECT 1 FROM orders o JOIN customers c ON c.customer_id = o.customer_id")
    assert not [s for s in found.values() if s.kind in ("value", "time")]


@pytest.mark.parametrize(
    ("sql", "dialect", "catalog", "key", "clock"),
    [
        (
            "SELECT 1 FROM orders o WHERE o.placed_at >= date('now', 'start of month', '-1 month')",
            "sqlite",
            SHOP,
            "time:main.orders.placed_at",
            True,
        ),
        (
            "SELECT 1 FROM orders WHERE strftime('%Y', placed_at) = '2026'",
            "sqlite",
            SHOP,
            "time:main.orders.placed_at",
            False,
        ),
        ("SELECT 1 FROM orders WHERE placed_at > CURRENT_DATE", "sqlite", SHOP, "time:main.orders.placed_at", True),
        (
            "SELECT 1 FROM orders WHERE placed_at >= now() - interval '7 days'",
            "postgres",
            PG,
            "time:public.orders.placed_at",
            True,
        ),
        (
            "SELECT 1 FROM orders WHERE placed_at >= date_trunc('month', DATE '2026-10-15')",
            "postgres",
            PG,
            "time:public.orders.placed_at",
            False,
        ),
        ("SELECT julianday('now') - julianday(created_at) FROM products", "sqlite", SHOP, "time:clock", True),
    ],
)
def test_date_expressions_are_time_slots_that_say_whether_they_read_the_clock(
    sql, dialect, catalog, key, clock
) -> None:
    slot = by_key(sql, catalog, dialect)[key]
    assert slot.kind == "time" and slot.clock is clock
    assert not [s for s in by_key(sql, catalog, dialect).values() if s.kind == "value"]


def test_two_bounds_on_one_column_are_one_period() -> None:
    found = by_key("SELECT 1 FROM orders o WHERE o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-01'")
    period = found["time:main.orders.placed_at"]
    assert period.literals == ["2026-10-01", "2026-11-01"]
    assert period.fragment == "o.placed_at >= '2026-10-01' AND o.placed_at < '2026-11-01'"
    assert period.operator == "range"


def test_the_limit_is_a_slot_with_or_without_a_limit_clause() -> None:
    assert by_key("SELECT name FROM products ORDER BY unit_price DESC LIMIT 3")["limit"].literals == ["3"]
    none = by_key("SELECT name FROM products")["limit"]
    assert (none.literals, none.fragment) == ([], "")
    assert by_key("SELECT id FROM orders FETCH FIRST 5 ROWS ONLY", PG, "postgres")["limit"].literals == ["5"]


@pytest.mark.parametrize(
    ("sql", "dialect", "catalog", "operator"),
    [
        ("SELECT 1 FROM products WHERE name GLOB 'Pan*'", "sqlite", SHOP, "glob"),
        ("SELECT 1 FROM products WHERE name REGEXP '^Pan'", "sqlite", SHOP, "regexp"),
        ("SELECT 1 FROM orders WHERE CAST(id AS TEXT) SIMILAR TO '1%'", "postgres", PG, "similar to"),
        ("SELECT 1 FROM orders WHERE CAST(id AS TEXT) ~* '^1'", "postgres", PG, "iregexp"),
    ],
)
def test_glob_regexp_and_similar_to_are_compared_values(sql, dialect, catalog, operator) -> None:
    compared = [s for s in by_key(sql, catalog, dialect).values() if s.kind == "value"]
    assert [(s.operator, s.literal_kind) for s in compared] == [(operator, "string")]
    assert compared[0].column in ("main.products.name", "public.orders.id")


@pytest.mark.parametrize(
    ("sql", "literal", "fragment"),
    [
        ("SELECT 1 FROM orders WHERE status IN (SELECT 'paid')", "paid", "status IN (SELECT 'paid')"),
        ("SELECT 1 FROM orders WHERE status = (SELECT 'paid')", "paid", "status = (SELECT 'paid')"),
        (
            "WITH x AS (SELECT 'paid' AS n) SELECT COUNT(*) FROM orders JOIN x ON orders.status = x.n",
            "paid",
            "'paid' AS n",
        ),
        ("SELECT 1 FROM orders WHERE instr(status, 'aid')", "aid", "INSTR(status, 'aid')"),
        ("SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(*) > 3", "3", "COUNT(*) > 3"),
    ],
)
def test_a_literal_no_comparison_with_a_column_explains_is_a_slot_of_its_own(sql, literal, fragment) -> None:
    loose = [s for s in by_key(sql).values() if s.key.startswith("literal:")]
    assert [(s.key, s.kind, s.literals, s.fragment, s.column) for s in loose] == [
        ("literal:1", "value", [literal], fragment, None)
    ]
    assert loose[0].literal_kind == ("number" if literal.isdigit() else "string")


def test_a_function_of_the_column_keeps_its_own_literals_as_slots() -> None:
    found = by_key("SELECT 1 FROM orders WHERE instr(status, 'aid') > 2")
    assert found["value:main.orders.status"].literals == ["2"]
    assert found["literal:1"].literals == ["aid"]


def test_a_function_result_tested_against_0_or_1_is_layout_when_anded() -> None:
    found = by_key("SELECT 1 FROM orders WHERE instr(status, 'aid') > 0")
    assert "value:main.orders.status" not in found and found["literal:1"].literals == ["aid"]
    ored = by_key("SELECT 1 FROM orders WHERE instr(status, 'aid') > 0 OR status = 'x'")
    assert ored["value:main.orders.status"].literals == ["0"]


def test_layout_literals_are_not_slots() -> None:
    found = by_key(
        "SELECT group_concat(name, ', '), printf('%.2f', 3), COUNT(1), ROUND(AVG(unit_price), 2), "
        "strftime('%Y-%m', created_at), SUM(CASE WHEN unit_price > 5 THEN 1 ELSE 0 END) FROM products "
        "WHERE created_at >= date('now', 'start of month', '-1 month') AND 1 = 1 GROUP BY 1 ORDER BY 2 LIMIT 5 OFFSET 3"
    )
    assert [k for k in found if k.startswith("literal:")] == []
    assert [(s.key, s.literals) for s in found.values() if s.kind in ("value", "time")] == [
        ("value:main.products.unit_price", ["5"]),
        ("time:main.products.created_at", []),
    ]


def test_each_value_slot_says_how_its_literal_was_written() -> None:
    found = by_key("SELECT 1 FROM orders WHERE order_id = '01234' AND customer_id = -7 AND status IN ('a', 'b')")
    assert [(s.literals, s.literal_kind) for s in found.values() if s.kind == "value"] == [
        (["01234"], "string"),
        (["-7"], "number"),
        (["a"], "string"),
        (["b"], "string"),
    ]


def test_time_slots_carry_each_bound_with_its_operator() -> None:
    found = by_key("SELECT 1 FROM orders o WHERE o.placed_at >= date('2026-10-01') AND NOT o.placed_at >= '2026-11-01'")
    bounds = found["time:main.orders.placed_at"].bounds
    assert [(b.operator, b.literals, b.plain, b.bare, b.anded) for b in bounds] == [
        (">=", ["2026-10-01"], True, True, True),
        ("not >=", ["2026-11-01"], True, True, True),
    ]
    either = by_key("SELECT 1 FROM orders WHERE placed_at < '2026-10-01' OR date(placed_at, '+1 day') >= '2026-11-01'")
    period = either["time:main.orders.placed_at"]
    assert [(b.plain, b.bare, b.anded) for b in period.bounds] == [(True, True, False), (True, False, False)]
    assert "; " in period.fragment  # not joined with AND: they do not all hold
    days = by_key("SELECT 1 FROM orders WHERE placed_at IN ('2026-10-01', '2026-10-02')")["time:main.orders.placed_at"]
    assert [(b.operator, b.literals) for b in days.bounds] == [("in", ["2026-10-01", "2026-10-02"])]
    computed = by_key("SELECT 1 FROM orders WHERE placed_at >= date('2026-10-01', '+1 day')")[
        "time:main.orders.placed_at"
    ]
    assert [b.plain for b in computed.bounds] == [False]


def test_a_value_slot_is_outer_only_when_anded_in_the_outermost_filter() -> None:
    assert by_key(
        "SELECT 1 FROM orders o JOIN customers c ON c.customer_id = o.customer_id AND c.country = 'DE' "
        "WHERE o.status = 'paid'"
    )["value:main.orders.status"].outer
    for sql in [
        "SELECT 1 FROM orders WHERE status = 'paid' OR status = 'refunded'",
        "SELECT 1 FROM orders WHERE NOT (status = 'paid' AND customer_id > 3)",
        "SELECT 1 FROM orders WHERE order_id IN (SELECT order_id FROM orders WHERE status = 'paid')",
        "WITH p AS (SELECT * FROM orders WHERE status = 'paid') SELECT COUNT(*) FROM p",
        "SELECT 1 FROM orders WHERE status = 'paid' UNION ALL SELECT 2 FROM orders",
        "SELECT CASE WHEN status = 'paid' THEN 1 END FROM orders",
    ]:
        assert not by_key(sql)["value:main.orders.status"].outer, sql


def test_one_equals_one_is_layout_only_when_anded() -> None:
    assert not [k for k in by_key("SELECT 1 FROM orders WHERE status = 'paid' AND 1 = 1") if k.startswith("literal:")]
    ored = by_key("SELECT 1 FROM orders WHERE status = 'paid' OR 1 = 1")
    assert [ored[k].literals for k in ored if k.startswith("literal:")] == [["1"], ["1"]]


PERIOD = "placed_at >= '2026-10-01' AND placed_at < '2026-11-01'"


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT 1 FROM orders WHERE order_id NOT IN (SELECT order_id FROM orders WHERE {PERIOD})",
        "SELECT 1 FROM orders WHERE NOT EXISTS (SELECT 1 FROM orders o2 WHERE o2.order_id = orders.order_id "
        f"AND o2.{PERIOD.replace('AND placed_at', 'AND o2.placed_at')})",
        f"WITH oct AS (SELECT * FROM orders WHERE {PERIOD}) SELECT COUNT(*) FROM orders",
        f"SELECT COUNT(*) FROM orders WHERE {PERIOD} UNION ALL SELECT COUNT(*) FROM orders",
        f"SELECT 1 FROM orders WHERE NOT ({PERIOD})",
    ],
)
def test_time_bounds_outside_the_outermost_filter_are_not_anded(sql: str) -> None:
    bounds = by_key(sql)["time:main.orders.placed_at"].bounds
    assert bounds and not all(b.anded for b in bounds)


def test_time_bounds_of_different_scopes_are_not_all_anded() -> None:
    sql = (
        "SELECT 1 FROM orders o WHERE o.placed_at >= '2026-11-01' AND o.customer_id IN "
        "(SELECT customer_id FROM orders WHERE placed_at < '2026-12-01')"
    )
    assert [b.anded for b in by_key(sql)["time:main.orders.placed_at"].bounds] == [True, False]


@pytest.mark.parametrize(
    ("side", "literal", "precise"),
    [
        ("placed_at", "2026-10-01", True),
        ("date(placed_at)", "2026-10-01", True),
        ("datetime(placed_at)", "2026-10-01", True),
        ("strftime('%Y-%m', placed_at)", "2026-10", True),
        ("strftime('%Y', placed_at)", "2026", True),
        ("substr(placed_at, 1, 7)", "2026-10", True),
        ("date(placed_at, '+1 month')", "2026-10-01", False),
        ("strftime('%Y-%d', placed_at)", "2026-10", False),
        ("strftime('%Y-%m', placed_at, '-1 month')", "2026-10", False),
        ("strftime('%Y-%m', placed_at)", "2026", False),
        ("substr(placed_at, 1, 7)", "2026-10-01", False),
        ("substr(placed_at, 2, 7)", "2026-10", False),
    ],
)
def test_a_time_bound_is_precise_only_on_the_column_or_an_allowlisted_wrapper(
    side: str, literal: str, precise: bool
) -> None:
    found = by_key(f"SELECT 1 FROM orders WHERE {side} = '{literal}'")
    assert [b.precise for b in found["time:main.orders.placed_at"].bounds] == [precise]


def test_a_date_prefix_pattern_is_a_time_bound() -> None:
    found = by_key("SELECT 1 FROM orders WHERE placed_at LIKE '2026-10%'")
    assert "value:main.orders.placed_at" not in found
    bounds = found["time:main.orders.placed_at"].bounds
    assert [(b.operator, b.literals) for b in bounds] == [("=", ["2026-10"])]
    assert "time:main.orders.placed_at" not in by_key("SELECT 1 FROM orders WHERE placed_at LIKE '2026-1%'")


@pytest.mark.parametrize(
    ("sql", "literals"),
    [
        ("SELECT 1 FROM orders WHERE status IN (SELECT char(112, 97))", [["112"], ["97"]]),
        ("SELECT 1 FROM orders WHERE customer_id IN (SELECT abs(7))", [["7"]]),
        ("SELECT 1 FROM orders WHERE max(customer_id, 7) = customer_id", [["7"]]),
        ("SELECT 1 FROM orders WHERE status IN (SELECT x'70616964')", [["x'70616964'"]]),
        ("SELECT 1 FROM orders WHERE order_id IN (SELECT order_id FROM orders ORDER BY placed_at LIMIT 3)", [["3"]]),
    ],
)
def test_numbers_in_calls_and_byte_strings_and_inner_limits_are_literal_slots(sql: str, literals: list) -> None:
    found = by_key(sql)
    assert [found[k].literals for k in found if k.startswith("literal:")] == literals


def test_layout_positions_of_calls_are_not_slots() -> None:
    found = by_key(
        "SELECT ROUND(AVG(unit_price), 2), COUNT(1) FROM products WHERE substr(name, 1, 3) = 'Pro' "
        "AND ROUND(unit_price, 1) > 5"
    )
    assert not [k for k in found if k.startswith("literal:")]


def test_the_offset_is_part_of_the_limit_slot() -> None:
    limit = by_key("SELECT name FROM products ORDER BY name LIMIT 5 OFFSET 10")["limit"]
    assert (limit.literals, limit.fragment) == (["5", "10"], "LIMIT 5 OFFSET 10")
