"""A small SQLite shop database from sample_schemas/shop.sql, with rows, indexed as catalog ``shop``.

Shared by the tests of sql, execute, tools, mcp and agent; the fixtures over it (``shop_db``,
``shop_settings``, ``shop_workspace``) are in conftest.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SHOP_SQL = Path(__file__).resolve().parent.parent / "sample_schemas" / "shop.sql"

ROWS = """
INSERT INTO categories VALUES (1, 'Kitchen', NULL, 'kitchen'), (2, 'Garden', NULL, 'garden');
INSERT INTO products (product_id, sku, name, category_id, unit_price) VALUES
    (1, 'P1', 'Pan', 1, 20), (2, 'P2', 'Rake', 2, 15), (3, 'P3', 'Pot', 1, 30);
INSERT INTO customers (customer_id, email) VALUES (1, 'ann@example.com'), (2, 'bob@example.com');
INSERT INTO orders (order_id, customer_id, status, order_total) VALUES
    (1, 1, 'paid', 50), (2, 2, 'delivered', 15), (3, 1, 'cancelled', 20);
INSERT INTO order_items VALUES (1, 1, 1, 1, 20), (1, 2, 3, 1, 30), (2, 1, 2, 1, 15), (3, 1, 1, 1, 20);
INSERT INTO reviews (review_id, product_id, customer_id, rating) VALUES (1, 1, 1, 5), (2, 3, 1, 4), (3, 2, 2, 2);
"""


def make_shop_db(path: Path) -> Path:
    connection = sqlite3.connect(path)
    connection.executescript(SHOP_SQL.read_text() + ROWS)
    connection.commit()
    connection.close()
    return path


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns
