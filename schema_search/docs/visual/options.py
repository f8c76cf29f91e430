"""What reading beyond the text layer may do, and how much of it: one frozen value per indexing run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The progress phase of one long PDF's pages, and how many pages make a PDF long enough to show it.
PAGES_LABEL = "pages (OCR, figures)"
PROGRESS_PAGES = 10


@dataclass(frozen=True)
class Visual:
    """Switches and limits for reading PDFs and DOCX files beyond their text layer.

    Attributes:
        ocr: transcribe scanned PDF pages (no usable text layer) with Tesseract.
        figures: read figures (PDF page regions, DOCX images): their labels by Tesseract,
            a description by ``vision_model`` when one is set.
        vision_model: a litellm model with image input; ``None``: no model is ever called.
        languages: the Tesseract languages a page may be read in, the first one the fallback.
        max_pages: pages of one document rendered at most (the rest keep their text layer).
        max_pixels: pixels one rendered page or region, or one image, may have; a larger one
            is skipped (an image declaring more is a decompression bomb, or near enough).
        seconds: one document's time for all of it; then it keeps what was read so far.
        memory_mb: the address space of the child process that parses, renders and runs OCR.
        dpi: the resolution pages and figures are rendered at for Tesseract.

    >>> Visual().languages[0], Visual(vision_model="openai/gpt-4o-mini").describes
    ('eng', True)
    """

    ocr: bool = True
    figures: bool = True
    vision_model: str | None = None
    languages: tuple[str, ...] = ("eng", "deu", "chi_sim", "jpn")
    max_pages: int = 300
    max_pixels: int = 40_000_000
    seconds: float = 300.0
    memory_mb: int = 1536
    dpi: int = 200
    # The indexer's progress wrapper ``(items, label) -> items``: a long document's pages
    # show their own count and time left (``PAGES_LABEL``). Not an option: never compared.
    progress: Any = field(default=None, compare=False, repr=False)

    @property
    def describes(self) -> bool:
        """Whether figures go to a vision model."""
        return self.figures and self.vision_model is not None

    @classmethod
    def from_settings(cls, settings: Any) -> Visual:
        """The options the settings give (``docs_ocr``, ``docs_figures``, ``vision_model``, ``docs_visual_*``).

        >>> from types import SimpleNamespace
        >>> s = SimpleNamespace(docs_ocr=False, docs_figures=True, vision_model=None,
        ...     docs_visual_max_pages=5, docs_visual_max_pixels=2_000_000, docs_visual_seconds=9.0)
        >>> Visual.from_settings(s)
        Visual(ocr=False, figures=True, vision_model=None, languages=('eng', 'deu', 'chi_sim', 'jpn'), max_pages=5, max_pixels=2000000, seconds=9.0, memory_mb=1536, dpi=200)
        """
        return cls(
            ocr=settings.docs_ocr,
            figures=settings.docs_figures,
            vision_model=settings.vision_model or None,
            max_pages=settings.docs_visual_max_pages,
            max_pixels=settings.docs_visual_max_pixels,
            seconds=settings.docs_visual_seconds,
        )
