"""The eval reports in a results folder, as the web page lists and shows them.

Here rather than in the eval suite: the server reads these files, and the library must
not depend on the suite that measures it. The published reports ship with the package
(:func:`published`), as data built from the suite's results folder.

Two shapes are read: a tables run (``benchmark``, ``condition``, ``results``: one row
per configuration; ``python -m eval.tables --json``) and a documents run (``corpus``,
``sets``: rows per question set; ``scripts/eval_docs.sh``). The other files of the
folder (speed, reliability ...) have reports of their own and are not listed. A
tables run's HTML page beside its JSON (``--report``) is what the page embeds: it is
self-contained, with no scripts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, Field

# Report names are file stems: nothing that could leave the folder.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
# The HTML report says when it was made ("generated 2026-12-02 00:07"); a clone's file times say only when it was cloned.
GENERATED = re.compile(r"generated (\d{4}-\d\d-\d\d \d\d:\d\d)")
HEADLINE = re.compile(r"(recall@\d+|mrr)$")


class EvalReport(BaseModel):
    name: str = Field(description="The report's name: its file name without .json.")
    kind: str = Field(description="`tables` or `docs`.")
    benchmark: str = Field(description="The benchmark or corpus it measured.")
    condition: str | None = Field(None, description="`pooled` or `per-db` (tables runs).")
    questions: int | None = None
    tables: int | None = Field(None, description="Tables in the searched catalog (tables runs).")
    generated_at: str | None = Field(
        None, description="When the report was made, as it writes it (the eval machine's local time), where it says."
    )
    headline: dict[str, float] = Field(
        default_factory=dict, description="Recall@k and MRR of the `default` configuration (the shipped settings)."
    )
    configs: list[str] = Field(default_factory=list, description="The configurations it compares.")
    page: str | None = Field(
        None, description="Its HTML report (recall@k plot, per database), when there is one: over HTTP, the URL."
    )


def published() -> Path:
    """The eval reports the package ships: ``schema_search/reports/`` where it is installed from
    a wheel; in a checkout (an editable install), the eval suite's ``eval/results/``, which that
    folder is built from (``package-dir`` in pyproject.toml)."""
    shipped = Path(__file__).parent / "reports"
    return shipped if shipped.is_dir() else Path(__file__).resolve().parents[1] / "eval" / "results"


def reports(folder: Path) -> list[EvalReport]:
    """Every tables or documents report in ``folder``, newest first (those with no time last)."""
    found = [_summary(path) for path in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    listed = [report for report in found if report is not None]
    return sorted(listed, key=lambda r: (r.generated_at is not None, r.generated_at or "", r.name), reverse=True)


def report_path(folder: Path, name: str, suffix: str) -> Path | None:
    """The file of report ``name`` (``.json`` or ``.html``), or None when there is none by that name."""
    if not NAME.match(name):
        return None
    path = folder / f"{name}{suffix}"
    return path if path.is_file() and _summary(folder / f"{name}.json") is not None else None


def _summary(path: Path) -> EvalReport | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    html = path.with_suffix(".html")
    generated = GENERATED.search(html.read_text(encoding="utf-8")) if html.is_file() else None
    common = {
        "name": path.stem,
        "generated_at": generated.group(1) if generated else None,
        "page": html.name if html.is_file() else None,
    }
    if isinstance(data.get("results"), list) and "benchmark" in data:
        rows = data["results"]
        return EvalReport(
            kind="tables",
            benchmark=str(data["benchmark"]),
            condition=data.get("condition"),
            questions=data.get("questions"),
            tables=data.get("tables"),
            headline=_headline(rows),
            configs=_configs(rows),
            **common,
        )
    if isinstance(data.get("sets"), dict) and "corpus" in data:
        rows = [row for rows in data["sets"].values() if isinstance(rows, list) for row in rows]
        first = next((row for row in rows if isinstance(row, dict) and row.get("config") == "default"), {})
        return EvalReport(
            kind="docs",
            benchmark=str(data["corpus"]),
            questions=first.get("questions"),
            headline=_headline(rows),
            configs=_configs(rows),
            **common,
        )
    return None


def _headline(rows: list) -> dict[str, float]:
    """The ``default`` row's recall@k and MRR (the first such row: a docs report's first set)."""
    default = next((row for row in rows if isinstance(row, dict) and row.get("config") == "default"), {})
    return {key: value for key, value in default.items() if HEADLINE.search(key) and isinstance(value, (int, float))}


def _configs(rows: list) -> list[str]:
    return list(dict.fromkeys(str(row["config"]) for row in rows if isinstance(row, dict) and "config" in row))
