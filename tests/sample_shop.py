"""The sample shop database (sample_schemas/shop.sql + shop_data.sql), built by the script users run.

Shared by the preflight and execute_tools tests. Revenue is computed here in Python from
the raw rows, so a test's expected value does not come from the SQL under test.
"""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "make_sample_db.py"
JOINS = (
    "FROM order_items oi JOIN orders o ON o.order_id = oi.order_id "
    "JOIN products p ON p.product_id = oi.product_id JOIN suppliers s ON s.supplier_id = p.supplier_id"
)


def build(path: Path) -> Path:
    """Run scripts/make_sample_db.py's builder on ``path``."""
    spec = importlib.util.spec_from_file_location("make_sample_db", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_sample_db(path)


def rows(path: Path, table: str) -> list[sqlite3.Row]:
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(f"SELECT * FROM {table}").fetchall()
    finally:
        connection.close()


def revenue(path: Path, supplier: str, start: str, end: str) -> float:
    """Sum of quantity * unit_price of the order lines of ``supplier``'s products placed in [start, end)."""
    supplier_ids = {r["supplier_id"] for r in rows(path, "suppliers") if r["company_name"] == supplier}
    products = {r["product_id"] for r in rows(path, "products") if r["supplier_id"] in supplier_ids}
    orders = {r["order_id"] for r in rows(path, "orders") if start <= r["placed_at"] < end}
    return sum(
        r["quantity"] * r["unit_price"]
        for r in rows(path, "order_items")
        if r["order_id"] in orders and r["product_id"] in products
    )
