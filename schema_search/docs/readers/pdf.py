"""PDF: the text layer, one section per page, each with the ``page=N`` anchor PDF viewers follow.

Without a :class:`~schema_search.docs.visual.options.Visual`, pypdf reads the text layer
alone, and a scanned PDF reads as empty (the caller reports that). With one, the pages are
read in the sandbox's child (:mod:`schema_search.docs.visual`): a scanned page becomes its
OCR'd text, marked as derived, and each figure its own ``Page N > Figure K`` section between
the page's text above and below it. What PDFium does not open or view (it fails, crashes or
runs out of time) pypdf reads as without ``Visual``, with a warning: reading more never
loses the text the plain reader keeps.
"""

from __future__ import annotations

import dataclasses
import io
from typing import TYPE_CHECKING

from ..corpus import ParsedDocument
from .outline import Outline

if TYPE_CHECKING:
    from ..visual.options import Visual


def read_pdf(data: bytes, visual: Visual | None = None) -> ParsedDocument:
    """Parse a PDF: its text layer, and with ``visual`` its scans and figures too.

    Raises:
        ValueError: the file is not a PDF pypdf can open (encrypted, damaged); with ``visual``,
            one PDFium cannot open either.
    """
    if visual is not None and (visual.ocr or visual.figures):
        return _read_visual(data, visual)
    title, pages = _text_layer(data)
    outline = Outline(title)
    for number, page in enumerate(pages, 1):
        # The page number as a heading keeps each page's text its own section.
        outline.heading(2, f"Page {number}", f"page={number}")
        for paragraph in _paragraphs(page):
            outline.block(paragraph)
    return ParsedDocument(title=outline.title, sections=outline.sections())


def _text_layer(data: bytes, numbers: set[int] | None = None) -> tuple[str | None, list[str]]:
    """The title and each page's text layer, by pypdf (only pages ``numbers``, 1-based, when
    given: the others are empty).

    Raises:
        ValueError: pypdf cannot open it (encrypted, damaged).
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ValueError("the PDF is encrypted")
        pages = [
            page.extract_text() or "" if numbers is None or number in numbers else ""
            for number, page in enumerate(reader.pages, 1)
        ]
        title = (reader.metadata.title if reader.metadata else None) or None
    except PdfReadError as error:
        raise ValueError(f"not a readable PDF ({error})") from None
    return title.strip() if title else None, pages


def _read_visual(data: bytes, visual: Visual) -> ParsedDocument:
    from ..visual.pdf import PageText, Unopened, read_pages  # PDFium, Tesseract and the child only when needed
    from ..visual.place import Insert, marker, place
    from ..visual.report import Report, spans
    from ..visual.session import Unavailable

    try:
        read = read_pages(data, visual)
    except Unavailable as error:  # the machine cannot run the child: the text layer, as without Visual
        return dataclasses.replace(read_pdf(data), visual=Report(warnings=[str(error)]).as_dict())
    except Unopened as error:  # a PDF pypdf cannot open either raises pypdf's ValueError
        plain = read_pdf(data)
        warning = f"{error}; its text layer was read by pypdf, nothing beyond it"
        return dataclasses.replace(plain, visual=Report(warnings=[warning]).as_dict())
    pages = list(read.pages)
    if read.missing:
        try:
            _, texts = _text_layer(data, set(read.missing))
            pages += [PageText(n, (texts[n - 1],)) for n in read.missing if n <= len(texts)]
        except ValueError as error:
            read.report.warn(f"{spans(list(read.missing))}: pypdf could not read their text layer either ({error})")
        pages.sort(key=lambda page: page.number)
    outline = Outline(read.title)
    inserts: dict[str, Insert] = {}
    scans = {}
    for page in pages:
        outline.heading(2, f"Page {page.number}", f"page={page.number}")
        if page.scan is not None:
            scans[(f"Page {page.number}",)] = page.scan.derived
        for piece in (page.scan.text,) if page.scan is not None else page.pieces:
            if isinstance(piece, str):
                for paragraph in _paragraphs(piece):
                    outline.block(paragraph)
            else:
                inserts[key := str(len(inserts))] = piece
                outline.block(marker(key))
    sections = tuple(
        dataclasses.replace(s, derived=scans[s.headings]) if s.headings in scans else s
        for s in place(outline.sections(), inserts)
    )
    return ParsedDocument(title=outline.title, sections=sections, visual=read.report.as_dict())


def _paragraphs(page: str) -> list[str]:
    """Paragraphs of a page: blank lines where the layer has them, else each line.

    >>> _paragraphs("a\\nb\\n\\nc"), _paragraphs("x\\ny")
    (['a b', 'c'], ['x', 'y'])
    """
    blocks = [b for b in page.replace("\r", "").split("\n\n") if b.strip()]
    if len(blocks) > 1:
        return [" ".join(b.split()) for b in blocks]
    return [line.strip() for line in page.splitlines() if line.strip()]
