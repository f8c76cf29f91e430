"""Generated descriptions as JSON lines, keyed by table id and content hash.

One format serves two purposes:

* the resumable cache ``describe`` appends to under a catalog's folder, one line per
  table as soon as it is described, so a crash or a refused API key loses nothing;
* a committed data file (``eval/data/descriptions_smollm2.jsonl``) that reproduces an
  experiment without running the model again.

A record applies to a table only when the table's :meth:`~schema_search.tables.catalog.Table.content_hash`
still matches: a description of a table that has since changed is stale and skipped.

Each line::

    {"table": "crm.contacts", "text": "...", "model": "local/smollm2",
     "prompt_version": "v1", "generated_at": "2025-...Z", "content_hash": "3f0c..."}
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from ..tables.catalog import Catalog, Description

DescriptionKey = tuple[str, str]  # (table id, content hash)
_KEYS = ("table", "text", "model", "prompt_version", "generated_at", "content_hash")


def description_record(table: str, description: Description) -> dict:
    """The JSON line of one table's description.

    >>> d = Description("Orders.", "m", "v1", "2025-01-01T00:00:00Z", "abc")
    >>> description_record("shop.orders", d)["table"]
    'shop.orders'
    """
    return {"table": table, **description.to_dict()}


def read_descriptions(path: Path) -> dict[DescriptionKey, Description]:
    """Load a descriptions file; later lines win, a torn last line is ignored.

    Returns an empty mapping when the file does not exist.
    """
    found: dict[DescriptionKey, Description] = {}
    for record in _records(path):
        description = Description.from_dict(record)
        found[(record["table"].lower(), description.content_hash)] = description
    return found


def write_descriptions(path: Path, catalog: Catalog) -> int:
    """Write every description of ``catalog`` to ``path`` (replacing it); returns the count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(description_record(t.id, t.description), ensure_ascii=False, sort_keys=True)
        for t in catalog.tables
        if t.description
    ]
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(path)
    return len(lines)


def apply_descriptions(catalog: Catalog, descriptions: dict[DescriptionKey, Description]) -> Catalog:
    """Put each matching description into its table's generated-description slot.

    A table gets a description when one was recorded for its id *and* its current
    content hash; other tables keep what they had. DB comments are never touched.

    >>> from schema_search.tables.catalog import Table
    >>> t = Table("shop", "orders", comment="From the DB")
    >>> d = Description("One row per order.", "m", "v1", "2025-01-01T00:00:00Z", t.content_hash())
    >>> out = apply_descriptions(Catalog("c", (t,)), {(t.id, t.content_hash()): d}).tables[0]
    >>> out.comment, out.description.text
    ('From the DB', 'One row per order.')
    """
    tables = []
    for table in catalog.tables:
        found = descriptions.get((table.id, table.content_hash()))
        tables.append(replace(table, description=found) if found else table)
    return catalog.with_tables(tables)


def without_descriptions(catalog: Catalog) -> Catalog:
    """The catalog with every generated description removed (comments kept)."""
    return catalog.with_tables(replace(t, description=None) for t in catalog.tables)


class DescriptionLog:
    """Appends descriptions to a JSONL file as they arrive, from any thread.

    Each line is flushed and fsynced before :meth:`append` returns, so whatever was
    described before a crash can be picked up by the next run.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def append(self, table: str, description: Description) -> None:
        line = json.dumps(description_record(table, description), ensure_ascii=False, sort_keys=True)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
                handle.flush()
                _fsync(handle)

    def compact(self, keep: Iterable[tuple[str, Description]]) -> None:
        """Rewrite the file with just ``keep`` (one line per table), atomically."""
        lines = [json.dumps(description_record(t, d), ensure_ascii=False, sort_keys=True) for t, d in keep]
        with self._lock:
            tmp = self.path.with_suffix(self.path.suffix + ".tmp")
            tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            tmp.replace(self.path)


def _records(path: Path) -> Iterator[dict]:
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not all(isinstance(record.get(key), str) for key in _KEYS):
                    continue
            except (json.JSONDecodeError, AttributeError):
                continue  # a line torn by a crash mid-write: that table is simply described again
            yield record


def _fsync(handle) -> None:
    os.fsync(handle.fileno())
