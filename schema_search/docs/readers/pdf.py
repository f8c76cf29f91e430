"""PDF: the text layer, one section per page, each with the ``page=N`` anchor PDF viewers follow.

A scanned PDF has no text layer; it reads as empty and the caller reports that.
"""

from __future__ import annotations

import io

from ..corpus import ParsedDocument
from .outline import Outline


def read_pdf(data: bytes) -> ParsedDocument:
    """Parse a PDF's text layer.

    Raises:
        ValueError: the file is not a PDF pypdf can open (encrypted, damaged).
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ValueError("the PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = (reader.metadata.title if reader.metadata else None) or None
    except PdfReadError as error:
        raise ValueError(f"not a readable PDF ({error})") from None
    outline = Outline(title.strip() if title else None)
    for number, page in enumerate(pages, 1):
        # The page number as a heading keeps each page's text its own section.
        outline.heading(2, f"Page {number}", f"page={number}")
        for paragraph in _paragraphs(page):
            outline.block(paragraph)
    return ParsedDocument(title=outline.title, sections=outline.sections())


def _paragraphs(page: str) -> list[str]:
    """Paragraphs of a page: blank lines where the layer has them, else each line.

    >>> _paragraphs("a\\nb\\n\\nc"), _paragraphs("x\\ny")
    (['a b', 'c'], ['x', 'y'])
    """
    blocks = [b for b in page.replace("\r", "").split("\n\n") if b.strip()]
    if len(blocks) > 1:
        return [" ".join(b.split()) for b in blocks]
    return [line.strip() for line in page.splitlines() if line.strip()]
