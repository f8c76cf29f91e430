"""Index the visual set twice, pixels off then on, and score what each index finds.

Both runs go through the public API (``Workspace.corpora.index`` and ``.search``) in one
process. A hit at k: every gold (document, page) is among the first k passages, a passage's
page read from its ``#page=N``; a DOCX gold, which has no pages, is hit by any passage of
the document. An answer at k: one of the first k passages holds the question's answer string.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schema_search.docs.corpus import Chunk, Corpus
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .expected import DECORATED, DECORATION_WORD, FIGURE_PAGES, REPO, SCAN_LANGUAGES, SCANS, SOURCES
from .ocr_accuracy import joined, word_accuracy
from .questions import WHERE, VisualQuestion, holds_answer

# The feature's two switches; everything else is as the settings say.
RUNS = {
    "before": {"docs_ocr": False, "docs_figures": False},
    "after": {"docs_ocr": True, "docs_figures": True},
}
K = 5
_PAGE = re.compile(r"#page=(\d+)$")


@dataclass(frozen=True)
class Indexed:
    """One run's index: its workspace, the corpus as stored, and how long indexing took."""

    workspace: Workspace
    corpus: str
    seconds: float
    stored: Corpus

    def paths(self) -> dict[str, str]:
        return {d.id.lower(): d.path for d in self.stored.documents}


def measure(
    folder: Path,
    questions: list[VisualQuestion],
    settings: Settings,
    progress: Callable | None = None,
) -> dict[str, Any]:
    """Both runs over ``folder`` and everything the report holds but robustness (:mod:`.robustness`)."""
    _warm_up(settings)
    runs = {name: index(folder, settings.model_copy(update=switches), f"visual-{name}", progress) for name, switches in RUNS.items()}  # fmt: skip
    asked = {name: ask(run, questions) for name, run in runs.items()}
    pages = page_counts(folder)
    after = runs["after"]
    return {
        "folder": str(folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder),
        "k": K,
        "vision_model": settings.vision_model,
        "runs": {
            name: {
                **switches,
                "seconds": round(runs[name].seconds, 2),
                "documents": len(runs[name].stored.documents),
                "chunks": len(runs[name].stored.chunks),
                "chunks_read_from_pixels": sum(c.derived is not None for c in runs[name].stored.chunks),
                "warnings": list(runs[name].stored.warnings),
            }
            for name, switches in RUNS.items()
        },
        "recall": recall(questions, asked),
        "questions": [
            {"question": q.text, "where": q.where, "lang": q.lang, "gold": [list(g) for g in q.gold]}
            | {name: asked[name][i] for name in RUNS}
            for i, q in enumerate(questions)
        ],
        "ocr": ocr_accuracy(after.stored),
        "documents": documents(after.stored, pages),
        "speed": speed(runs, pages),
    }


def index(folder: Path, settings: Settings, corpus: str, progress: Callable | None = None) -> Indexed:
    """Index ``folder`` as ``corpus``, timed without the embedding model's first load."""
    workspace = Workspace(settings)
    if settings.dense:
        workspace.embedder()  # shared by the process: the first run would otherwise pay for it alone
    started = time.perf_counter()
    workspace.corpora.index(folder, corpus=corpus, progress=progress)
    seconds = time.perf_counter() - started
    return Indexed(workspace, corpus, seconds, workspace.corpora.searcher(corpus).corpus)


def _warm_up(settings: Settings) -> None:
    """Index one small note first: the first index of a process pays for loading the model and
    opening its runtime, which would make the before run look slower than it is."""
    folder = settings.home / "warm-up"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "note.md").write_text("# Warm-up\n\nOne short note, indexed before the timed runs.\n", encoding="utf-8")
    index(folder, settings, "warm-up")


def ask(run: Indexed, questions: list[VisualQuestion]) -> list[dict[str, Any]]:
    """Each question's first ``K`` passages as (path, page), and whether they hit its gold and hold its answer."""
    paths = run.paths()
    answers = []
    for question in questions:
        results = run.workspace.corpora.search(run.corpus, question.text, K).results
        located = [(paths.get(r.document_id.lower(), "?"), page(r.url)) for r in results]
        texts = [r.text for r in results]
        answers.append(
            {
                "top": [f"{path}#page={number}" if number else path for path, number in located],
                "hit@1": found(located[:1], question.gold),
                f"hit@{K}": found(located, question.gold),
                f"answer@{K}": None if question.answer is None else holds_answer(question.answer, texts),
            }
        )
    return answers


def page(url: str) -> int | None:
    """The PDF page a passage URL points at.

    >>> page("file:///docs/board-manual.pdf#page=2"), page("/install-guide.docx")
    (2, None)
    """
    found_page = _PAGE.search(url)
    return int(found_page.group(1)) if found_page else None


def found(located: list[tuple[str, int | None]], gold: tuple[tuple[str, int | None], ...]) -> bool:
    """Whether every gold (path, page) is among ``located``; a gold page of None takes any page.

    >>> found([("a.pdf", 3), ("b.docx", None)], (("a.pdf", 3), ("b.docx", None)))
    True
    >>> found([("a.pdf", 2)], (("a.pdf", 3),))
    False
    """
    return all(any(p == path and (number is None or n == number) for p, n in located) for path, number in gold)


def recall(questions: list[VisualQuestion], asked: dict[str, list[dict]]) -> dict[str, dict]:
    """Share of questions hit at 1 and at K, and answered at K, per ``where``, for figures and
    scans together, and for all; per run."""
    groups: dict[str, list[int]] = {group: [] for group in (*WHERE, "figure+scan", "all")}
    for i, question in enumerate(questions):
        groups[question.where].append(i)
        if question.where != "text":
            groups["figure+scan"].append(i)
        groups["all"].append(i)
    table = {}
    for group, members in groups.items():
        if not members:
            continue
        with_answer = [i for i in members if questions[i].answer is not None]
        table[group] = {"questions": len(members)} | {
            name: {
                "R@1": _share(asked[name][i]["hit@1"] for i in members),
                f"R@{K}": _share(asked[name][i][f"hit@{K}"] for i in members),
                f"answer@{K}": _share(asked[name][i][f"answer@{K}"] for i in with_answer),
            }
            for name in asked
        }
    return table


def ocr_accuracy(stored: Corpus) -> list[dict[str, Any]]:
    """Word accuracy of each scanned page's indexed text against the text drawn on it."""
    by_path = {d.path: d for d in stored.documents}
    rows = []
    for path, numbers in SCANS.items():
        if path not in by_path:
            continue
        source = json.loads((SOURCES / f"{Path(path).stem}.json").read_text(encoding="utf-8"))
        chunks = sorted((c for c in stored.chunks if c.document == by_path[path].id), key=lambda c: c.ordinal)
        for number in numbers:
            on_page = [c for c in chunks if page(c.url) == number]
            confidences = [c.derived["confidence"] for c in on_page if c.derived and c.derived.get("confidence")]
            rows.append(
                {
                    "document": path,
                    "page": number,
                    "lang": SCAN_LANGUAGES[path][number],
                    "words": len(source[str(number)].split()),
                    "word_accuracy": round(word_accuracy(source[str(number)], joined(c.text for c in on_page)), 3),
                    "confidence": round(sum(confidences) / len(confidences), 3) if confidences else None,
                    "read_by": sorted({c.derived["by"] for c in on_page if c.derived}),
                }
            )
    return rows


def documents(stored: Corpus, pages: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Per document: the reader's own account (``Document.visual``) beside what its chunks show:
    the pages read as figures, the real figures missed, and decorations described."""
    report = {}
    for document in stored.documents:
        chunks = [c for c in stored.chunks if c.document == document.id]
        derived = [c for c in chunks if c.derived]
        figure_pages = {c.derived.get("page") for c in derived if c.derived.get("kind") == "figure"}
        expected = set(FIGURE_PAGES.get(document.path, ()))
        report[document.path] = {
            "pages": pages.get(document.path),
            "chunks": len(chunks),
            "visual": document.visual,
            "figure_pages_expected": _sorted(expected),
            "figure_pages_read": _sorted(figure_pages),
            "figures_missed": _sorted(_missed(expected, figure_pages)),
            "decorations_described": _decorations(document.path, derived, expected),
        }
    return report


def _missed(expected: set, read: set) -> set:
    # A DOCX figure has no page: any figure read from the document counts for it.
    if expected == {None}:
        return set() if read else {None}
    return expected - read


def _decorations(path: str, derived: list[Chunk], expected: set) -> int:
    """Figure passages on a page with no real figure, and passages that spell the logo's word
    (printed nowhere but in the decoration)."""
    if path not in FIGURE_PAGES:
        return 0
    stray = {c.id for c in derived if c.derived.get("kind") == "figure" and c.derived.get("page") not in expected}
    if path == DECORATED:
        stray |= {c.id for c in derived if DECORATION_WORD.lower() in c.text.lower()}
    return len(stray)


def speed(runs: dict[str, Indexed], pages: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Seconds per page: the whole text-layer index (before), and the reader's own seconds
    (``Document.visual``) for scanned pages and for pages with figures (after)."""
    total = sum(pages.values())
    after = {d.path: d.visual or {} for d in runs["after"].stored.documents}
    scans = [p for p in SCANS if p in after]
    with_figures = [p for p in FIGURE_PAGES if p in after]
    ocr_seconds = sum(after[p].get("seconds", 0) for p in scans)
    ocr_pages = sum(after[p].get("pages_ocr", 0) for p in scans)
    figure_seconds = sum(after[p].get("seconds", 0) for p in with_figures)
    figure_pages = sum(len(FIGURE_PAGES[p]) for p in with_figures)
    return {
        "text layer, whole index (before)": _rate(runs["before"].seconds, total),
        "whole index (after)": _rate(runs["after"].seconds, total),
        "scanned pages, OCR (after)": _rate(ocr_seconds, ocr_pages),
        "figure pages, figures read (after)": _rate(figure_seconds, figure_pages),
    }


def page_counts(folder: Path) -> dict[str, int]:
    """Pages of each PDF (pypdf), and 1 for each DOCX."""
    from pypdf import PdfReader

    counts = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".pdf":
            counts[path.name] = len(PdfReader(path).pages)
        elif path.suffix == ".docx":
            counts[path.name] = 1
    return counts


def copy_files(folder: Path, names: set[str], into: Path) -> Path:
    """A folder holding only ``names`` from ``folder``, for a run over part of the set."""
    into.mkdir(parents=True, exist_ok=True)
    for name in sorted(names):
        shutil.copy2(folder / name, into / name)
    return into


def _rate(seconds: float, pages: int) -> dict[str, Any]:
    return {"seconds": round(seconds, 2), "pages": pages, "per_page": round(seconds / pages, 3) if pages else None}


def _share(values) -> float | None:
    values = list(values)
    return round(sum(values) / len(values), 3) if values else None


def _sorted(pages: set) -> list:
    return sorted(pages, key=lambda p: (p is not None, p or 0))
