"""A read figure as section text: a vision model's description, the labels Tesseract read, both.

Shared by PDF pages and DOCX images: what a figure says does not depend on where it was
found. Figures are numbered ``Figure K`` in the document's order, counting only those that
say something (a figure with no words and no model is no section, and leaves no gap).
"""

from __future__ import annotations

from ..corpus import Derived
from . import vision
from .options import Visual
from .place import Insert
from .report import Report
from .session import Session

VISION_TIMEOUT = 120.0


class FigureText:
    """One document's figures turned into sections' text, in order."""

    def __init__(self, session: Session, visual: Visual, report: Report) -> None:
        self.session, self.visual, self.report = session, visual, report
        self.describing = visual.describes  # cleared after the model fails once
        self.number = 0

    def insert(self, page: int | None, read: dict) -> Insert | None:
        """The section of one figure as the child read it (``transcript``, ``png``); ``None`` when nothing was read."""
        transcript = read.get("transcript")
        labels = transcript["lines"] if transcript else []
        if labels:
            self.report.used(transcript["language"])
        description = self._describe(read["png"]) if self.describing and read.get("png") else None
        if description:
            text = description + ("\n\nText in the figure:\n" + "\n".join(labels) if labels else "")
            derived = Derived("figure", page, f"vision:{self.visual.vision_model}", None)
        elif labels:
            text, derived = "\n".join(labels), Derived("figure", page, "ocr", transcript["confidence"])
        else:
            return None
        self.number += 1
        self.report.figures_described += 1
        return Insert(f"Figure {self.number}", text, derived)

    def _describe(self, png: bytes) -> str | None:
        left = self.session.left()
        if left <= 0:
            return None
        self.report.vision_calls += 1
        try:
            description, cost = vision.describe(png, self.visual.vision_model, min(VISION_TIMEOUT, left))
        except Exception as error:  # no key, no image input, a refused call: every figure would fail alike
            self.describing = False
            self.report.warn(
                f"the vision model {self.visual.vision_model} failed, so figures are read by OCR only: "
                + vision.reason(error)
            )
            return None
        self.report.vision_cost_usd += cost
        return description or None
