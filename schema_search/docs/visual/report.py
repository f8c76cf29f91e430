"""The account a document read beyond its text layer carries (``ParsedDocument.visual``)."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class Report:
    """What reading one PDF or DOCX beyond its text layer did; filled in as it goes.

    Attributes:
        pages: the PDF's pages (``None`` for a DOCX, which has none until a word processor lays it out).
        pages_ocr: scanned pages transcribed.
        figures_found: figures the classification kept (:mod:`.figures`).
        figures_described: figures whose section was written (their labels read, or a model's description).
        decorations_skipped: objects set aside as the template's: images repeated on many pages (a
            DOCX: shown three times or more) or tiny, and page frames; each object once. A page's
            stray lines and a table's rules are its layout and not counted.
        vision_calls: calls to the vision model; ``vision_cost_usd`` their cost as litellm prices it (0 when unknown).
        seconds: the time it took, the child's start excluded.
        languages: the Tesseract languages pages and figures were read in.
        warnings: what was skipped or cut short, and why, for a person to act on.
    """

    pages: int | None = None
    pages_ocr: int = 0
    figures_found: int = 0
    figures_described: int = 0
    decorations_skipped: int = 0
    vision_calls: int = 0
    vision_cost_usd: float = 0.0
    seconds: float = 0.0
    languages: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def used(self, language: str) -> None:
        """Note a Tesseract language (``deu+eng`` counts as both)."""
        for name in language.split("+"):
            if name and name not in self.languages:
                self.languages.append(name)

    def as_dict(self) -> dict[str, Any]:
        """The account as plain JSON values.

        >>> r = Report(pages=3); r.used("deu+eng"); r.warn("page 3: too large"); r.vision_cost_usd = 0.0004213
        >>> d = r.as_dict(); d["languages"], d["warnings"], d["vision_cost_usd"]
        (['deu', 'eng'], ['page 3: too large'], 0.000421)
        """
        found = dataclasses.asdict(self)
        found["vision_cost_usd"] = round(self.vision_cost_usd, 6)
        found["seconds"] = round(self.seconds, 2)
        return found


def spans(numbers: list[int]) -> str:
    """Page numbers as runs, for a warning: ``page 3``, ``pages 4-6, 9, 11-12``.

    >>> spans([4, 5, 6, 9, 11, 12]), spans([3])
    ('pages 4-6, 9, 11-12', 'page 3')
    """
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    named = ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)
    return f"page {named}" if len(numbers) == 1 else f"pages {named}"
