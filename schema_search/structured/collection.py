"""The structured collection model: named tables of typed columns, stored column-wise.

A corpus gives one table, ``documents`` (one row per document); a catalog gives two,
``tables`` and ``columns``. Guarded queries run over exactly these tables; the
model is what gets stored with a corpus generation and what the DuckDB engine loads.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..tables.catalog import Catalog
from ..tables.catalog import Column as CatalogColumn
from ..tables.catalog import Table as CatalogTable
from .fields import Dropped, Field, FieldReport, FieldType

STRUCTURED_FILE = "structured.json"

# Column type -> DuckDB type of one value.
DUCKDB_TYPES: dict[FieldType, str] = {
    "integer": "BIGINT",
    "decimal": "DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "boolean": "BOOLEAN",
    "text": "VARCHAR",
}


@dataclass(frozen=True)
class Column:
    """One column. ``list``: each value is a list of ``type``; ``exact``: shown to models as placeholders."""

    name: str
    type: FieldType
    description: str
    list: bool = False
    exact: bool = False

    @property
    def sql_type(self) -> str:
        return DUCKDB_TYPES[self.type] + ("[]" if self.list else "")


@dataclass(frozen=True)
class Table:
    """A table: its columns, and its values column by column (``values[i]`` belongs to ``columns[i]``)."""

    name: str
    description: str
    columns: tuple[Column, ...]
    values: tuple[tuple[Any, ...], ...]

    @property
    def rows(self) -> int:
        return len(self.values[0]) if self.values else 0

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)


@dataclass(frozen=True)
class Collection:
    """The tables one corpus or catalog offers to counting, filtering and grouping.

    Attributes:
        name: the corpus or catalog.
        kind: ``corpus`` or ``catalog``.
        report: for a corpus, how its header fields were proposed and validated.
    """

    name: str
    kind: str
    tables: tuple[Table, ...]
    report: FieldReport | None = None

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name.lower()), None)

    def as_catalog(self) -> Catalog:
        """The tables as a :class:`Catalog`, so SQL is checked by the same validator as database SQL."""
        return Catalog(
            self.name,
            tuple(
                CatalogTable("main", t.name, columns=tuple(CatalogColumn(c.name, c.sql_type) for c in t.columns))
                for t in self.tables
            ),
            source={"kind": "structured", "dialect": "duckdb"},
        )


def write_collection(folder: Path, collection: Collection) -> None:
    """Store a collection beside a generation's other files (dates as ISO text)."""
    (folder / STRUCTURED_FILE).write_text(collection_json(collection), encoding="utf-8")


def collection_json(collection: Collection) -> str:
    """A collection as the JSON text ``structured.json`` holds (a sealed generation stores it encrypted)."""
    data = {
        "name": collection.name,
        "kind": collection.kind,
        "report": asdict(collection.report) if collection.report else None,
        "tables": [
            {
                "name": t.name,
                "description": t.description,
                "columns": [asdict(c) for c in t.columns],
                "values": [[_stored(v) for v in values] for values in t.values],
            }
            for t in collection.tables
        ],
    }
    return json.dumps(data, ensure_ascii=False)


def load_collection(folder: Path) -> Collection | None:
    """The collection stored in a generation folder; ``None`` for generations written before there was one."""
    path = folder / STRUCTURED_FILE
    if not path.is_file():
        return None
    return collection_from_json(path.read_text(encoding="utf-8"))


def collection_from_json(text: str) -> Collection:
    """The collection :func:`collection_json` wrote."""
    data = json.loads(text)
    tables = []
    for t in data["tables"]:
        columns = tuple(Column(**c) for c in t["columns"])
        values = tuple(tuple(_loaded(v, c) for v in vs) for c, vs in zip(columns, t["values"]))
        tables.append(Table(t["name"], t["description"], columns, values))
    report = data.get("report")
    return Collection(data["name"], data["kind"], tuple(tables), _report(report) if report else None)


def _stored(value: Any) -> Any:
    if isinstance(value, list):
        return [_stored(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _loaded(value: Any, column: Column) -> Any:
    if value is None:
        return None
    if column.list:
        return [_one(v, column.type) for v in value]
    return _one(value, column.type)


def _one(value: Any, kind: FieldType) -> Any:
    if value is None:
        return None
    if kind == "date":
        return datetime.date.fromisoformat(value)
    if kind == "timestamp":
        return datetime.datetime.fromisoformat(value)
    return value


def _report(data: dict[str, Any]) -> FieldReport:
    return FieldReport(
        documents=data["documents"],
        with_header=data["with_header"],
        sampled=data["sampled"],
        fields=tuple(
            Field(**{**f, "keys": tuple(f["keys"]), "examples": tuple(f["examples"])}) for f in data["fields"]
        ),
        dropped=tuple(Dropped(**{**d, "keys": tuple(d["keys"])}) for d in data["dropped"]),
    )


def table_from_rows(name: str, description: str, columns: Sequence[Column], rows: Sequence[Sequence[Any]]) -> Table:
    """A :class:`Table` from rows (each in column order)."""
    values = tuple(zip(*rows)) if rows else tuple(() for _ in columns)
    return Table(name, description, tuple(columns), tuple(tuple(v) for v in values))
