"""What every subcommand prints the same way: JSON bodies, aligned tables, progress bars."""

from __future__ import annotations

import json
import sys
from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel


def print_json(model: BaseModel) -> int:
    # Byte for byte what FastAPI's JSONResponse sends for the same model.
    print(json.dumps(model.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")))
    return 0


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for line in (header, tuple("-" * w for w in widths), *rows):
        print("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)).rstrip())


def print_rows(columns: Sequence[str], rows: Sequence[Sequence[object]], width: int = 40) -> None:
    """Query results as an aligned table; NULL for missing values, cells cut at ``width``."""
    cells = [["NULL" if v is None else str(v) for v in row] for row in rows]
    widths = [min(width, max(len(str(c)) for c in column)) for column in zip(columns, *cells)]
    for line in (columns, ["-" * w for w in widths], *cells):
        print("  ".join(str(cell)[:width].ljust(w) for cell, w in zip(line, widths)).rstrip())


def progress(unit: str | Mapping[str, str]):
    """A progress wrapper ``(items, label) -> items`` that draws a bar on a terminal.

    Args:
        unit: what is counted, or label -> what is counted (``{"reading": "file"}``).
    """

    def wrap(items: Sequence, description: str) -> Iterable:
        from tqdm import tqdm

        counted = unit if isinstance(unit, str) else unit.get(description, "item")
        return tqdm(items, desc=description, unit=counted, file=sys.stderr, disable=not sys.stderr.isatty() or None)

    return wrap


def print_warnings(warnings: Sequence[str], listing: str, shown: int = 20) -> None:
    """The first ``shown`` warnings of an index run, then where to read the rest."""
    for warning in warnings[:shown]:
        print(f"  warning: {warning}")
    if len(warnings) > shown:
        print(f"  ... and {len(warnings) - shown} more warnings (see `{listing}`).")
