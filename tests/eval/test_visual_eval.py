"""The visual test set and its measurement.

The first tests check the committed files against the questions (fast, no OCR): the scan
has no text layer, no label a question asks about leaked into a text layer, and every
answer is drawn or written where its gold says. The gate runs the quick slice of
``python -m eval.visual`` and holds the pixel reader to what it must achieve: more figure
and scan questions found and answered with OCR and figures on than off, every real figure
of the device manual read and none of its decorations.
"""

from __future__ import annotations

import doctest
import importlib
import io
import json
import shutil
import zipfile

import pytest

from eval.visual import expected, make_set
from eval.visual.__main__ import run_visual
from eval.visual.measure import page_counts
from eval.visual.questions import answer_key, load_questions, quick_slice
from schema_search.settings import Settings

QUESTIONS = load_questions(expected.QUESTIONS)
# The eval suite is outside the doctest collection (testpaths is tests/): its pure helpers are run here.
PURE = (
    "eval.visual.measure",
    "eval.visual.ocr_accuracy",
    "eval.visual.questions",
    "eval.visual.robustness",
    "eval.visual.scan",
)


@pytest.mark.parametrize("name", PURE)
def test_doctests(name: str) -> None:
    failed, attempted = doctest.testmod(importlib.import_module(name))
    assert attempted and not failed, f"{failed} of {attempted} doctests of {name} failed"


def test_the_scan_has_no_text_layer_and_no_figure_label_is_in_a_text_layer():
    for name in [*make_set.HIDDEN, "handbook-scan.pdf"]:
        make_set.check(name, (expected.FOLDER / name).read_bytes())  # raises on a leak


def test_every_gold_names_a_committed_file_and_one_of_its_pages():
    pages = page_counts(expected.FOLDER)
    assert set(pages) == {*expected.FIGURE_PAGES, *expected.SCANS}
    for question in QUESTIONS:
        for path, page in question.gold:
            assert path in pages, question.text
            assert (page is None) == path.endswith(".docx"), question.text
            assert page is None or 1 <= page <= pages[path], question.text


def test_every_answer_is_drawn_or_written_where_its_gold_says():
    labels = {
        name: " ".join(label for draw in draws for label in draw()[1]) for name, draws in make_set.FIGURES.items()
    }
    scans = {
        name: json.loads((expected.SOURCES / f"{name.removesuffix('.pdf')}.json").read_text(encoding="utf-8"))
        for name in expected.SCANS
    }
    for question in [q for q in QUESTIONS if q.answer is not None]:
        (path, page), *_ = question.gold
        if question.where == "figure":
            holder = labels[path]
            assert page in expected.FIGURE_PAGES[path], question.text
        elif question.where == "scan":
            holder = scans[path][str(page)]
        else:
            holder = _text_layer(path, page)
        assert answer_key(question.answer) in answer_key(holder), question.text


def test_the_set_has_questions_of_every_kind_and_the_quick_slice_takes_each():
    kinds = [q.where for q in QUESTIONS]
    assert kinds.count("figure") + kinds.count("scan") >= 15
    assert kinds.count("text") >= 5
    assert {q.where for q in quick_slice(QUESTIONS)} == {"figure", "scan", "text"}


def test_the_generator_writes_the_committed_text(tmp_path):
    """Re-run, the generator gives the same scan source text and the same text layers (the image
    bytes may differ with an encoder's version, what the files say does not)."""
    make_set.make_set(tmp_path / "set", tmp_path / "sources")
    source = "handbook-scan.json"
    assert (tmp_path / "sources" / source).read_text() == (expected.SOURCES / source).read_text()
    for name in make_set.HIDDEN:
        for page in range(1, page_counts(expected.FOLDER)[name] + 1):
            assert _text_layer(name, page, tmp_path / "set") == _text_layer(name, page), (name, page)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="OCR needs the tesseract binary (tesseract-ocr)")
def test_reading_pixels_finds_what_the_text_layer_cannot(tmp_path):
    report = run_visual(Settings(home=tmp_path / "home", embedding_threads=1), tmp_path, quick=True)
    pixels = report["recall"]["figure+scan"]
    assert pixels["after"]["R@5"] > pixels["before"]["R@5"], pixels
    assert pixels["after"]["answer@5"] > pixels["before"]["answer@5"], pixels
    assert report["recall"]["text"]["after"]["R@5"] >= report["recall"]["text"]["before"]["R@5"]
    device = report["documents"][expected.DECORATED]
    assert device["figures_missed"] == [], device
    assert device["decorations_described"] == 0, device
    visual = device["visual"]
    assert visual is not None, "the device manual was read without an account of its pixels"
    assert visual["decorations_skipped"] >= 1, visual  # the logo on every page, at least
    assert visual["figures_described"] <= len(expected.FIGURE_PAGES[expected.DECORATED]), visual


def _text_layer(name: str, page: int | None, folder=expected.FOLDER) -> str:
    data = (folder / name).read_bytes()
    if name.endswith(".docx"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.read("word/document.xml").decode("utf-8")
    from pypdf import PdfReader

    return PdfReader(io.BytesIO(data)).pages[page - 1].extract_text() or ""
