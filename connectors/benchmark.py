"""The benchmark format of ``../shared/benchmarks/``: ``schemas.jsonl``, one database a line.

All databases are pooled into one catalog, each becoming a schema named by its
``db_id``; ``db`` keeps just one. Benchmark column descriptions are the benchmark's
own documentation, so they go into ``comment`` (not the generated-description slot).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.build import Progress
from ..errors import SourceError
from ..tables.catalog import Catalog, Column, ForeignKey, Table, table_id

FILENAME = "schemas.jsonl"


def matches(source: str) -> bool:
    path = Path(source)
    return path.name == FILENAME or path.suffix == ".jsonl" or (path.is_dir() and (path / FILENAME).is_file())


def introspect(
    source: str, *, catalog: str, dialect: str | None = None, db: str | None = None, progress: Progress | None = None
) -> Catalog:
    paths = [_schemas_file(Path(s)) for s in source.split(",")] if "," in source else [_schemas_file(Path(source))]
    tables: list[Table] = []
    db_ids: list[str] = []
    for path in paths:
        databases = list(records(path))
        for record in progress(databases, "reading databases") if progress else databases:
            db_ids.append(record["db_id"])
            if db is None or record["db_id"].lower() == db.lower():
                tables.extend(database_tables(record))
    if db is not None and not tables:
        shown = ", ".join(sorted(db_ids)[:20]) + (" ..." if len(db_ids) > 20 else "")
        raise SourceError(f"No database {db!r} in {source}.", hint=f"Known db_ids: {shown}.")
    return Catalog(
        name=catalog,
        tables=tuple(tables),
        source={"kind": "benchmark", "files": [str(p) for p in paths], "db": db},
    )


def _schemas_file(path: Path) -> Path:
    if path.is_dir():
        path = path / FILENAME
    if not path.is_file():
        raise SourceError(
            f"Benchmark file {path} does not exist.", hint=f"Point at a {FILENAME} or the folder holding it."
        )
    return path


def records(path: Path, required: tuple[str, ...] = ("db_id", "tables")) -> Iterator[dict[str, Any]]:
    """The JSON objects of a ``.jsonl`` file, each checked for the ``required`` keys.

    Raises:
        SourceError: a line that is not JSON, or lacks a required key, with its number.
    """
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                for key in required:
                    record[key]
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise SourceError(
                    f"{path}:{number} is not a valid record ({type(error).__name__}: {error}).",
                    hint=f"Each line must be a JSON object with {', '.join(required)}.",
                ) from None
            yield record


def database_tables(record: dict[str, Any]) -> list[Table]:
    """The tables of one benchmark database record, in its own schema ``db_id``."""
    schema = record["db_id"]
    return [_table(schema, t) for t in record["tables"]]


def _table(schema: str, data: dict[str, Any]) -> Table:
    columns = tuple(
        Column(name=c["name"], type=(c.get("type") or "").upper(), comment=_column_comment(c)) for c in data["columns"]
    )
    foreign_keys = tuple(
        ForeignKey(
            columns=tuple(fk["columns"]),
            ref_table=table_id(schema, fk["ref_table"]),
            ref_columns=tuple(fk.get("ref_columns") or ()),
        )
        for fk in data.get("foreign_keys", ())
    )
    return Table(
        schema=schema,
        name=data["name"],
        columns=columns,
        primary_key=tuple(data.get("primary_key") or ()),
        foreign_keys=foreign_keys,
        comment=_label(data.get("description"), data.get("natural_name"), data["name"]),
    )


def _column_comment(column: dict[str, Any]) -> str | None:
    parts = [_label(column.get("description"), column.get("natural_name"), column["name"])]
    if column.get("value_description"):
        parts.append(column["value_description"])
    return " ".join(p for p in parts if p) or None


def _label(description: str | None, natural_name: str | None, name: str) -> str | None:
    """The benchmark's own words for an object, when they say more than its name.

    A natural name that only re-spells the identifier (``lost in battle`` for
    ``lost_in_battle``) adds nothing; ``free and reduced-price meals`` for ``frpm`` does.
    """
    if description and description.strip().lower() != name.lower():
        return description.strip()
    if natural_name and _squash(natural_name) != _squash(name):
        return natural_name.strip()
    return None


def _squash(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())
