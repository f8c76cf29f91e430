"""Tesseract through pytesseract: a page's or a figure's words, how sure Tesseract is of them, and a page's script.

Runs in the sandbox's child (:mod:`.worker`); Tesseract is its own process, started by
pytesseract, and inherits the child's memory cap. Every call gets the time left to the
document, so a page that takes too long ends Tesseract rather than outliving its caller.

``image_to_data`` gives each word with its confidence (0 to 100, -1 for a row that is not a
word). Words under a floor are dropped, and the floor depends on what is read: on a scanned
page nearly everything is text, so a doubtful word is still more likely a word than not; in
a figure most pixels are not text, and Tesseract reads edges, hatching and photo texture as
letters, with low confidence.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from PIL import Image

from .languages import script_languages, text_language


def _imported_without_pandas() -> ModuleType:
    """pytesseract, imported with pandas out of its sight.

    pytesseract imports pandas whenever it is installed, for a DataFrame output this module
    never asks for; with the ``ray`` extra, pandas is installed and brings pyarrow, ~300 MB
    of address space in a child capped at ``docs_visual_memory_mb``: pages that fitted
    stopped fitting. Hidden for that one import only (``None`` in ``sys.modules`` makes
    ``import pandas`` fail there), so pandas stays importable for everyone else.
    """
    hidden = "pandas" not in sys.modules
    if hidden:
        sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        import pytesseract
    finally:
        if hidden:
            del sys.modules["pandas"]
    return pytesseract


pytesseract = _imported_without_pandas()

# Page segmentation: 3 (automatic, with paragraphs) for a page; 11 (sparse text, in no
# particular order) for a figure, whose labels are scattered and boxed (3 missed a boxed
# label in a two-box diagram that 11 read). The render's resolution is always passed: left
# to guess, Tesseract took a 200 dpi crop for 528 dpi and read one label of two.
PAGE_PSM, FIGURE_PSM = 3, 11
PAGE_WORD_CONFIDENCE, FIGURE_WORD_CONFIDENCE = 20, 50
# A reading in the document's language that stands without script detection: typed pages read
# at 0.9 and more, a page on its side or in another script far below.
SURE, SURE_WORDS = 0.75, 10
# OSD's orientation confidence from which its rotation is trusted (upright typed pages score 7 to 9).
ROTATION_CONFIDENCE = 2.0


class OutOfTime(TimeoutError):
    """The document's time ran out while Tesseract was reading."""


@dataclass(frozen=True)
class Transcript:
    """What Tesseract read: paragraphs of lines, the mean confidence of their words (0 to 1), the language used."""

    paragraphs: tuple[tuple[str, ...], ...]
    confidence: float | None
    language: str
    words: int = 0

    def as_paragraphs(self) -> list[str]:
        """Each paragraph as one line of text, hyphenated line ends joined."""
        return [joined(lines) for lines in self.paragraphs]

    def as_lines(self) -> list[str]:
        return [line for lines in self.paragraphs for line in lines]


def transcribe(image: Image.Image, language: str, dpi: int, *, psm: int, floor: int, deadline: float) -> Transcript:
    """The words Tesseract reads in ``image`` (rendered at ``dpi``) in ``language``.

    Raises:
        OutOfTime: the deadline passed first.
        pytesseract.TesseractNotFoundError: no ``tesseract`` on the PATH.
    """
    try:
        data = pytesseract.image_to_data(
            image,
            lang=language,
            config=f"--psm {psm} --dpi {dpi}",
            output_type=pytesseract.Output.DICT,
            timeout=_left(deadline),
        )
    except RuntimeError as error:  # pytesseract's timeout is a bare RuntimeError
        if "timeout" in str(error).lower():
            raise OutOfTime from None
        raise
    return transcript(data, language, floor)


def transcribe_page(
    image: Image.Image, hint: str | None, languages: tuple[str, ...], dpi: int, *, deadline: float
) -> Transcript:
    """A scanned page's words, in the language :mod:`.languages` chooses.

    With a ``hint`` (the document's language so far) the page is read in it first, and
    that reading stands when Tesseract is sure of it (a page on its side or in another
    script reads as garbage it is unsure of); else the page's script and turn are detected
    (0.8 s a page, as long as reading it) and it is read again, upright, in a language of
    that script. Either way, text that reads as another of ``languages`` is read once more
    in that one, and the surer reading kept.
    """
    if hint:
        first = transcribe(image, hint, dpi, psm=PAGE_PSM, floor=PAGE_WORD_CONFIDENCE, deadline=deadline)
        if (first.confidence or 0.0) >= SURE and first.words >= SURE_WORDS:
            return _checked(image, first, languages, dpi, deadline)
    script, rotate = page_script(image, dpi, deadline)
    if rotate:
        image = image.rotate(-rotate, expand=True)
    candidates = script_languages(script, languages)
    language = hint if hint in candidates else candidates[0]
    first = transcribe(image, language, dpi, psm=PAGE_PSM, floor=PAGE_WORD_CONFIDENCE, deadline=deadline)
    return _checked(image, first, candidates, dpi, deadline)


def _checked(
    image: Image.Image, first: Transcript, candidates: tuple[str, ...] | list[str], dpi: int, deadline: float
) -> Transcript:
    """``first``, or the page read again in the language its text reads as, whichever Tesseract is surer of."""
    other = text_language(" ".join(first.as_paragraphs()), candidates)
    if other is None or other == first.language:
        return first
    second = transcribe(image, other, dpi, psm=PAGE_PSM, floor=PAGE_WORD_CONFIDENCE, deadline=deadline)
    return max(first, second, key=lambda t: (t.confidence or 0.0, t.words))


def page_script(image: Image.Image, dpi: int, deadline: float) -> tuple[str | None, int]:
    """The script Tesseract's orientation and script detection sees, and the clockwise turn
    that makes the page upright; ``(None, 0)`` when it sees too few characters to tell."""
    try:
        found = pytesseract.image_to_osd(
            image, config=f"--dpi {dpi}", output_type=pytesseract.Output.DICT, timeout=_left(deadline)
        )
    except pytesseract.TesseractError:  # "Too few characters. Skipping this page"
        return None, 0
    except RuntimeError as error:
        if "timeout" in str(error).lower():
            raise OutOfTime from None
        raise
    rotate = found.get("rotate", 0) if found.get("orientation_conf", 0) >= ROTATION_CONFIDENCE else 0
    return found.get("script"), rotate


def installed() -> set[str]:
    """The languages Tesseract has models for.

    Raises:
        pytesseract.TesseractNotFoundError: no ``tesseract`` on the PATH.
    """
    return set(pytesseract.get_languages())


def transcript(data: dict[str, list[Any]], language: str, floor: int) -> Transcript:
    """``image_to_data``'s table as paragraphs of lines, words under ``floor`` dropped.

    >>> rows = {"block_num": [1, 1, 1, 1, 2], "par_num": [1, 1, 1, 1, 1], "line_num": [1, 1, 2, 2, 1],
    ...     "text": ["Load", "the", "~", "nightly", "Warehouse"], "conf": [96, 91, 12, 88, 95]}
    >>> t = transcript(rows, "eng", 50)
    >>> t.paragraphs, t.confidence, t.words
    ((('Load the', 'nightly'), ('Warehouse',)), 0.93, 4)
    """
    lines: dict[tuple[int, int], dict[int, list[str]]] = {}
    confidences = []
    for block, paragraph, line, text, confidence in zip(
        data["block_num"], data["par_num"], data["line_num"], data["text"], data["conf"]
    ):
        word = str(text).strip()
        if not word or float(confidence) < floor or not any(c.isalnum() for c in word):
            continue
        lines.setdefault((block, paragraph), {}).setdefault(line, []).append(word)
        confidences.append(float(confidence))
    paragraphs = tuple(tuple(" ".join(words) for words in found.values()) for found in lines.values())
    mean = round(sum(confidences) / len(confidences) / 100, 2) if confidences else None
    return Transcript(paragraphs, mean, language, len(confidences))


def joined(lines: tuple[str, ...]) -> str:
    """A paragraph's lines as one line; a word hyphenated at a line's end made whole.

    >>> joined(("The warehouse recon-", "ciles invoices.", "Check-in at 9."))
    'The warehouse reconciles invoices. Check-in at 9.'
    """
    text = ""
    for line in lines:
        if text.endswith("-") and line[:1].islower() and text[-2:-1].isalpha():
            text = text[:-1] + line
        else:
            text = f"{text} {line}" if text else line
    return text


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0.05:
        raise OutOfTime
    return left
