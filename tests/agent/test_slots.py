"""slots: the assumptions of a query, read off its parse tree, columns resolved through aliases."""

from __future__ import annotations

import pytest

from schema_search.agent.slots import Slot, slots
from schema_search.tables.catalog import Catalog, Column, Table

SHOP = Catalog(
    "shop",
    (
        Table("main", "orders", columns=(Column("order_id"), Column("status"), Column("placed_at"), Column("customer_id"))),
        Table("main", "customers", columns=(Column("customer_id"), Column("email"), Column("country"))),
        Table("main", "products", columns=(Column("product_id"), Column("name"), Column("unit_price"), Column("created_at"))),
    ),
)
PG = Catalog("pg", (Table("public", "orders", columns=(Column("id"), Column("placed_at"), Column("total"))),))


def by_key(sql: str, catalog: Catalog = SHOP, dialect: str = "sqlite") -> dict[str, Slot]:
    found = slots(sql, dialect, catalog)
    assert len({s.key for s in found}) == len(found), "keys must be unique"
    return {s.key: s for s in found}


def test_tables_and_columns_are_listed_once_each_with_aliases_resolved() -> None:
    found = by_key(
        "SELECT o.order_id, c.country FROM orders AS o JOIN customers c ON c.customer_id = o.customer_id "
        "JOIN orders o2 ON o2.order_id = o.order_id"
    )
    assert [k for k in found if k.startswith("table:")] == ["table:main.orders", "table:main.customers"]
    assert {k for k in found if k.startswith("column:")} == {
        "column:main.orders.order_id", "column:main.customers.country", "column:main.customers.customer_id",
        "column:main.orders.customer_id",
    }  # fmt: skip


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
        ("value:main.products.unit_price", ["10"]), ("value:main.products.unit_price#2", ["20"]),
    ]  # fmt: skip
    period = found["time:main.products.created_at"]
    assert (period.operator, period.literals, period.clock) == ("between", ["2026-01-01", "2026-02-01"], False)


def test_like_not_like_and_a_comparison_written_backwards() -> None:
    found = by_key("SELECT 1 FROM products p WHERE p.name LIKE '%pan%' AND NOT p.name LIKE 'x%' AND 10 < p.unit_price")
    assert (found["value:main.products.name"].operator, found["value:main.products.name"].literals) == ("like", ["%pan%"])
    assert found["value:main.products.name#2"].operator == "not like"
    assert found["value:main.products.name#2"].fragment == "NOT p.name LIKE 'x%'"
    assert (found["value:main.products.unit_price"].operator, found["value:main.products.unit_price"].literals) == (">", ["10"])


def test_comparisons_of_two_columns_are_not_value_slots() -> None:
    found = by_key("SELECT 1 FROM orders o JOIN customers c ON c.customer_id = o.customer_id")
    assert not [s for s in found.values() if s.kind in ("value", "time")]


@pytest.mark.parametrize(
    ("sql", "dialect", "catalog", "key", "clock"),
    [
        ("SELECT 1 FROM orders o WHERE o.placed_at >= date('now', 'start of month', '-1 month')", "sqlite", SHOP,
         "time:main.orders.placed_at", True),
        ("SELECT 1 FROM orders WHERE strftime('%Y', placed_at) = '2026'", "sqlite", SHOP, "time:main.orders.placed_at", False),
        ("SELECT 1 FROM orders WHERE placed_at > CURRENT_DATE", "sqlite", SHOP, "time:main.orders.placed_at", True),
        ("SELECT 1 FROM orders WHERE placed_at >= now() - interval '7 days'", "postgres", PG, "time:public.orders.placed_at", True),
        ("SELECT 1 FROM orders WHERE placed_at >= date_trunc('month', DATE '2026-10-15')", "postgres", PG,
         "time:public.orders.placed_at", False),
        ("SELECT julianday('now') - julianday(created_at) FROM products", "sqlite", SHOP, "time:clock", True),
    ],
)
def test_date_expressions_are_time_slots_that_say_whether_they_read_the_clock(sql, dialect, catalog, key, clock) -> None:
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
