"""PDFium's view of a PDF page: its text layer, its images and paths, and its pixels.

Runs in the sandbox's child (:mod:`.worker`), never in the serving process: PDFium parses
the file, and a page can ask for more memory or time than a process should give it.

PDFium rather than pypdf here: it renders (pypdf cannot), its text page answers "the text
inside this rectangle" (``get_text_bounded``), which cuts a page's text at a figure, and it
is fast (a thousand pages' objects in a second). Image content is hashed from the raw,
still-compressed stream: nothing is decoded to tell a logo from a figure, so an image that
declares a billion pixels costs no more than its bytes until something renders it, and
nothing does (:func:`~.figures.find_figures` sets it aside).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterator

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from .figures import Box, Drawn, PageView, capped

# Form XObjects inside form XObjects followed this deep; real documents nest two or three.
FORM_DEPTH = 4
# Control characters PDFium leaves in a text layer (soft hyphens as \x02, \ufffe markers).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# The PDFium errors a person can act on, by code; the rest say "damaged".
_OPEN_ERRORS = {
    pdfium_c.FPDF_ERR_PASSWORD: "the PDF is encrypted",
    pdfium_c.FPDF_ERR_SECURITY: "the PDF uses an unsupported security handler",
    pdfium_c.FPDF_ERR_FORMAT: "not a readable PDF (PDFium: not a PDF, or damaged)",
    pdfium_c.FPDF_ERR_FILE: "not a readable PDF (PDFium: the file could not be read)",
}


def open_pdf(data: bytes) -> pdfium.PdfDocument:
    """The document in ``data``.

    Raises:
        ValueError: not a PDF PDFium can open (damaged, encrypted), in words a person can act on.
    """
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        reason = _OPEN_ERRORS.get(error.err_code, f"not a readable PDF (PDFium: {error})")
        raise ValueError(reason) from None


def title(pdf: pdfium.PdfDocument) -> str | None:
    """The title its metadata gives, if any."""
    found = (pdf.get_metadata_value("Title") or "").strip()
    return found or None


def view(pdf: pdfium.PdfDocument, number: int) -> tuple[PageView, str]:
    """Page ``number`` (1-based) as :mod:`.figures` sees it, and its whole text layer.

    Its objects are :func:`~.figures.capped`: a page of a hundred thousand marks (a map, a
    scatter plot) costs the indexing process no more to classify than one of five hundred.
    """
    page = pdf[number - 1]
    text = clean(page.get_textpage().get_text_bounded())
    left, bottom, right, top = page.get_bbox()
    chars = sum(not character.isspace() for character in text)
    return PageView(number, right - left, top - bottom, chars, capped(_objects(page))), text


def text_pieces(pdf: pdfium.PdfDocument, number: int, cuts: list[float]) -> list[str]:
    """Page ``number``'s text layer cut at the heights ``cuts`` (page points, top first):
    ``len(cuts) + 1`` pieces, top to bottom, each line of text in one of them.

    The cuts are figures' bottoms, in the order of their tops; a figure beside a taller one
    ends higher, and its cut is taken as the taller one's, lest the text between the two
    bottoms be cut out twice (a piece whose top is below its bottom is the whole rest).
    """
    textpage = pdf[number - 1].get_textpage()
    edges = [None, *itertools.accumulate(cuts, min), None]
    return [clean(textpage.get_text_bounded(top=edges[i], bottom=edges[i + 1])) for i in range(len(edges) - 1)]


def text_in(pdf: pdfium.PdfDocument, number: int, box: Box) -> str:
    """The text layer's text inside ``box`` on page ``number``."""
    return clean(pdf[number - 1].get_textpage().get_text_bounded(*box))


def render(pdf: pdfium.PdfDocument, number: int, dpi: int) -> tuple[Image.Image, pdfium.PdfPosConv]:
    """Page ``number`` in RGB at ``dpi``, and the converter from page points to its pixels."""
    page = pdf[number - 1]
    bitmap = page.render(scale=dpi / 72)
    return bitmap.to_pil().convert("RGB"), bitmap.get_posconv(page)


def crop(image: Image.Image, where: pdfium.PdfPosConv, box: Box, margin: float = 4.0) -> Image.Image:
    """The part of a rendered page that ``box`` covers, a few points of margin around it."""
    left, bottom, right, top = box
    corners = [where.to_bitmap(x, y) for x in (left - margin, right + margin) for y in (bottom - margin, top + margin)]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    width, height = image.size
    return image.crop((max(0, min(xs)), max(0, min(ys)), min(width, max(xs)), min(height, max(ys))))


def clean(text: str) -> str:
    r"""A text layer's text with Unix line ends and without PDFium's control characters.

    >>> clean("Hyphen\x02\r\nated\ufffe")
    'Hyphen\nated'
    """
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def _objects(
    page: pdfium.PdfPage, form: pdfium.PdfObject | None = None, matrix: pdfium.PdfMatrix | None = None, level: int = 0
) -> Iterator[Drawn]:
    """The images and paths of ``page``, those inside form XObjects too, each with its box on the page.

    A form XObject is a drawing placed as one object: LaTeX places an included PDF figure
    so, and some generators a whole page's content. PDFium gives a form's objects in the
    form's own space, so each level's matrix takes them to the page's. Past
    :data:`FORM_DEPTH` levels a form is one object, counted by its objects.
    """
    for obj in page.get_objects(form=form, level=level, max_depth=level + 1):
        if obj.type == pdfium_c.FPDF_PAGEOBJ_FORM and level < FORM_DEPTH:
            inner = obj.get_matrix() if matrix is None else obj.get_matrix().multiply(matrix)
            yield from _objects(page, obj, inner, level + 1)
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            yield Drawn("image", _bounds(obj, matrix), obj.get_px_size(), _content_key(obj))
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_PATH:
            yield Drawn("path", _bounds(obj, matrix), segments=max(1, pdfium_c.FPDFPath_CountSegments(obj)))
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_SHADING:
            yield Drawn("path", _bounds(obj, matrix))
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_FORM:
            count = max(1, pdfium_c.FPDFFormObj_CountObjects(obj))
            yield Drawn("form", _bounds(obj, matrix), segments=count)


def _bounds(obj: pdfium.PdfObject, matrix: pdfium.PdfMatrix | None) -> Box:
    box = obj.get_bounds() if matrix is None else matrix.on_rect(*obj.get_bounds())
    return tuple(round(v, 2) for v in box)  # type: ignore[return-value]


def _content_key(image: pdfium.PdfImage) -> str:
    return hashlib.blake2b(bytes(image.get_data(decode_simple=False)), digest_size=12).hexdigest()
