"""What the visual test set holds, as the generator made it: where its figures and scanned pages are.

The generator checks its files against this, and the measurement scores the index against it.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "sample_docs" / "visual"
SOURCES = Path(__file__).resolve().parent / "sources"
QUESTIONS = REPO / "eval" / "docs_questions" / "visual.jsonl"

# The pages of each document with a real figure on them (None: a DOCX, which has no pages).
FIGURE_PAGES: dict[str, tuple[int | None, ...]] = {
    "board-manual.pdf": (2,),
    "sales-chart.pdf": (2,),
    "install-guide.docx": (None,),
    "device-manual.pdf": (3, 5),
}
# Image-only pages: every page of the scan; its source text is in SOURCES/<stem>.json.
SCANS: dict[str, tuple[int, ...]] = {"handbook-scan.pdf": (1, 2, 3, 4)}
SCAN_LANGUAGES: dict[str, dict[int, str]] = {"handbook-scan.pdf": {1: "en", 2: "en", 3: "en", 4: "de"}}
# The device manual's decorations: its maker's logo in every page header (the only place this
# word is printed), a frame drawn round every page, and a small warning icon on page 4.
DECORATED = "device-manual.pdf"
DECORATION_WORD = "OSKARVIK"
DEVICE_PAGES = 6
