"""Every connector reports the slow part of reading a source to the progress wrapper it is given."""

from __future__ import annotations

import json
import sqlite3

from schema_search import connectors

from ..conftest import SAMPLES


class Recorder:
    def __init__(self):
        self.seen: dict[str, int] = {}

    def __call__(self, items, label):
        items = list(items)
        self.seen[label] = len(items)
        return items


def test_ddl_statements_are_counted_while_they_are_parsed():
    recorder = Recorder()
    catalog = connectors.introspect(str(SAMPLES / "crm.sql"), catalog="crm", progress=recorder)
    assert recorder.seen["parsing"] >= len(catalog.tables) == 221


def test_database_schemas_are_counted_while_they_are_read(tmp_path):
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
    connection.close()
    recorder = Recorder()
    connectors.introspect(f"sqlite:///{path}", catalog="shop", progress=recorder)
    assert recorder.seen == {"reading schemas": 1}


def test_benchmark_databases_are_counted_while_they_are_read(tmp_path):
    record = {"db_id": "pets", "tables": [{"name": "pets", "columns": [{"name": "id", "type": "number"}]}]}
    (tmp_path / "schemas.jsonl").write_text(json.dumps(record) + "\n")
    recorder = Recorder()
    connectors.introspect(str(tmp_path), catalog="b", progress=recorder)
    assert recorder.seen == {"reading databases": 1}


def test_reading_without_a_progress_wrapper_still_works():
    assert connectors.introspect(str(SAMPLES / "shop.sql"), catalog="shop").tables
