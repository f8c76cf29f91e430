"""The docs baseline gate: a CI-sized slice of the FastAPI docs and the dev questions, the shipped default.

The slice is every page a dev question needs plus every fourth other page (the
release notes, 46% of the corpus, left out), copied with their manifest lines into
a folder of its own: about 70 pages, quick to embed on 2 cores. The gate fails when
the default's page recall@5 drops more than ``TOLERANCE`` below the committed
baseline, or below the BM25-over-pages peer measured in the same run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .questions import load_questions

BASELINE = Path(__file__).resolve().parents[1] / "baselines" / "docs" / "fastapi_dev-slice.json"
QUESTIONS = Path(__file__).resolve().parents[1] / "docs_questions" / "fastapi_dev.jsonl"
TOLERANCE = 0.03
LEFT_OUT = ("release-notes.md",)


def build_slice(corpus: Path, dest: Path) -> Path:
    """Copy the slice of the FastAPI corpus folder ``corpus`` into ``dest``; returns ``dest``."""
    gold = {url for q in load_questions(QUESTIONS).questions for url in q.gold}
    records = [json.loads(line) for line in (corpus / "manifest.jsonl").read_text().splitlines() if line.strip()]
    kept = [r for i, r in enumerate(records) if r["url"] in gold or (i % 4 == 0 and r["path"] not in LEFT_OUT)]
    for record in kept:
        target = dest / "pages" / record["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus / "pages" / record["path"], target)
    (dest / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    return dest


def load_baseline() -> dict:
    return json.loads(BASELINE.read_text())
