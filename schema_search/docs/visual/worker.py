"""The child's side: sandbox requests named ``schema_search.docs.visual.worker:<op>``.

Each op takes the request and the child's ``state`` (the open PDF or DOCX stays there
between a document's requests) and answers plain values; a failure it foresees comes back as
``{"failed": reason}``, running out of the document's time as ``{"stopped": True}`` with
what was read before. The parent (:mod:`.session`) turns both into warnings.
"""

from __future__ import annotations

import io
import os
import stat
import time
import zipfile
from collections.abc import Callable
from typing import Any

# One thread per Tesseract: under the child's address-space cap every OpenMP thread's stack
# and malloc arena counts, and the indexer reads one document at a time anyway.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from PIL import Image, ImageOps  # noqa: E402

from . import docx_parts, ocr, pages  # noqa: E402
from .figures import Drawn, Figure, PageView, decoration  # noqa: E402
from .ocr import pytesseract  # noqa: E402  (imported there without pandas, which would not fit the memory cap)

# A figure whose box holds this many characters of text layer has its labels there already
# (a vector chart, a diagram drawn with text): Tesseract would only repeat them.
LABELED_CHARS = 20
# The longest side of an image sent to a vision model: their own limit (about 1,500 px),
# and more pixels only cost tokens.
VISION_SIDE = 1536
# DOCX images carry no resolution Tesseract can trust; below this it reads small labels badly.
MIN_DPI = 200
NO_TESSERACT = "tesseract is not installed: scanned pages and figure labels were not read"
# The image formats a DOCX image is decoded as: Pillow's others include EPS, whose loading
# runs Ghostscript on the file, and formats nobody puts in a document. PDFium's images are
# its own bitmaps and never pass through here.
IMAGE_FORMATS = ("PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP")


def _answers(op: Callable[[dict, dict], dict]) -> Callable[[dict, dict], dict]:
    """``op`` with its failures as replies in words, not as the sandbox's query errors."""

    def answer(request: dict, state: dict) -> dict:
        try:
            return op(request, state)
        except ocr.OutOfTime:
            return {"stopped": True}
        except MemoryError:
            return {"failed": "it needed more memory than allowed"}
        except Exception as error:  # a damaged page, an image Pillow cannot decode
            return {"failed": f"{type(error).__name__}: {str(error).strip()[:200]}"}

    answer.__name__ = answer.__qualname__ = op.__name__
    answer.__doc__ = op.__doc__
    return answer


@_answers
def ping(request: dict, state: dict) -> dict:
    """Nothing: the parent waits for the child's start before a document's clock starts."""
    return {}


def _close(state: dict) -> None:
    """Let go of the previous document's file."""
    for name in ("pdf", "docx"):
        previous = state.pop(name, None)
        if previous is not None:
            previous.close()


@_answers
def open_pdf(request: dict, state: dict) -> dict:
    """Open ``data`` and keep it for the document's other requests: its page count and title."""
    _close(state)
    try:
        pdf = pages.open_pdf(request["data"])
    except ValueError as error:
        return {"failed": str(error)}
    state["pdf"] = pdf
    return {"pages": len(pdf), "title": pages.title(pdf)}


@_answers
def view_pages(request: dict, state: dict) -> dict:
    """Pages ``start`` to ``stop`` (1-based, inclusive) as ``(PageView, text)`` pairs, as many as time allows."""
    deadline = time.monotonic() + request["seconds"]
    views: list[tuple[PageView, str]] = []
    for number in range(request["start"], request["stop"] + 1):
        if time.monotonic() > deadline:
            return {"views": views, "stopped": True}
        views.append(pages.view(state["pdf"], number))
    return {"views": views}


@_answers
def read_page(request: dict, state: dict) -> dict:
    """Render page ``number`` and read it: the whole page when it is a scan, else its ``figures``.

    Answers ``pieces`` (the text layer cut at the figures), ``scan`` (a transcript), ``figures``
    (one dict each: ``inside`` text, ``transcript``, ``png`` for a vision model), and flags.
    """
    pdf, number, dpi = state["pdf"], request["number"], request["dpi"]
    deadline = time.monotonic() + request["seconds"]
    figures: list[Figure] = request["figures"]
    found: dict[str, Any] = {"scan": None, "figures": []}
    found["pieces"] = pages.text_pieces(pdf, number, [f.box[1] for f in figures]) if figures else None
    image, where = pages.render(pdf, number, dpi)
    try:
        if request["scan"]:
            found["scan"] = _plain(
                ocr.transcribe_page(
                    ImageOps.grayscale(image), request["hint"], request["languages"], dpi, deadline=deadline
                )
            )
            return found
        for figure in figures:
            region = pages.crop(image, where, figure.box)
            inside = pages.text_in(pdf, number, figure.box)
            read: dict[str, Any] = {"inside": inside, "transcript": None, "png": None}
            if request["images"]:
                read["png"] = _png(region)
            found["figures"].append(read)
            if request["labels"] and sum(not c.isspace() for c in inside) < LABELED_CHARS:
                try:
                    read["transcript"] = _labels(region, request["figure_language"], dpi, deadline)
                except pytesseract.TesseractError as error:  # this figure only: the next may read
                    found["failed"] = f"Tesseract failed on a figure ({error.message.strip()[:200]})"
    except pytesseract.TesseractNotFoundError:
        found["failed"] = NO_TESSERACT
    except ocr.OutOfTime:
        found["stopped"] = True
    return found


@_answers
def open_docx(request: dict, state: dict) -> dict:
    """Keep the DOCX in ``data`` (its zip directory only) for the document's :func:`read_image` requests."""
    _close(state)
    state["docx"] = zipfile.ZipFile(io.BytesIO(request["data"]))
    return {}


@_answers
def read_image(request: dict, state: dict) -> dict:
    """Read one image of the open DOCX: ``member``, inflated up to ``limit`` bytes, shown ``size``
    points large (``None``: unknown) on a ``page`` of that size; ``repeated`` when the document
    shows it three times or more.

    Answers ``bytes`` (what it inflated to) and ``decoration`` (why it is one), ``too_large``
    (the limit it passed), ``oversized`` (its declared pixels), or its ``transcript`` and,
    when asked for, its ``png``.
    """
    deadline = time.monotonic() + request["seconds"]
    try:
        data = docx_parts.read_member(state["docx"], request["member"], request["limit"])
    except docx_parts.TooLarge:
        return {"too_large": request["limit"]}
    except KeyError:
        return {"failed": "it is missing from the file"}
    except ValueError as error:
        return {"failed": str(error)}
    return {**_image(data, request, deadline), "bytes": len(data)}


@_answers
def read_image_file(request: dict, state: dict) -> dict:
    """Read the image file at ``path`` (a Markdown or HTML page's, checked by the parent:
    :mod:`.local_images`) up to ``limit`` bytes, then as :func:`read_image` reads a DOCX's.

    The last component is opened without following a link, and only a regular file is read:
    a link swapped in after the parent's check, a FIFO or a device is not.
    """
    _close(state)
    deadline = time.monotonic() + request["seconds"]
    try:
        handle = os.open(request["path"], os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return {"failed": "the file does not exist"}
    except OSError as error:
        return {"failed": f"it cannot be opened ({error.strerror or error})"}
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return {"failed": "it is not a regular file"}
        data = file.read(request["limit"] + 1)
    if len(data) > request["limit"]:
        return {"too_large": request["limit"]}
    return {**_image(data, request, deadline), "bytes": len(data)}


def _image(data: bytes, request: dict, deadline: float) -> dict:
    Image.MAX_IMAGE_PIXELS = request["max_pixels"]  # Pillow's own guard, on the same limit
    try:
        image = Image.open(io.BytesIO(data), formats=IMAGE_FORMATS)  # reads the header only
    except Image.DecompressionBombError:
        return {"oversized": None}
    except Image.UnidentifiedImageError:
        return {"failed": "not a PNG, JPEG, GIF, BMP, TIFF or WebP image (a vector EMF, WMF or EPS drawing?)"}
    width, height = image.size
    if width * height > request["max_pixels"]:
        return {"oversized": width * height}
    shown = request["size"] or (width * 0.75, height * 0.75)  # 96 dpi when the file does not say
    page = PageView(0, *request["page"])
    drawn = Drawn("image", (0, 0, *shown), (width, height), "same" if request["repeated"] else "")
    reason = decoration(drawn, page, {"same"})
    if reason:
        return {"decoration": reason}
    image = _flat(image)
    # An image shown a hundred times its pixels' size would round to 0 dpi.
    dpi = max(1, round(width / (shown[0] / 72))) if shown[0] else 96
    if dpi < MIN_DPI and width * height * (MIN_DPI / dpi) ** 2 <= request["max_pixels"]:
        image = image.resize((round(width * MIN_DPI / dpi), round(height * MIN_DPI / dpi)), Image.Resampling.LANCZOS)
        dpi = MIN_DPI
    found: dict[str, Any] = {"transcript": None, "png": _png(image) if request["images"] else None}
    if request["ocr"]:
        try:
            found["transcript"] = _labels(image, request["language"], dpi, deadline)
        except pytesseract.TesseractNotFoundError:
            found["failed"] = NO_TESSERACT
    return found


@_answers
def tesseract_languages(request: dict, state: dict) -> dict:
    """The languages Tesseract has models for; ``failed`` when it is not installed."""
    try:
        return {"languages": sorted(ocr.installed())}
    except pytesseract.TesseractNotFoundError:
        return {"failed": NO_TESSERACT}


def _labels(image: Image.Image, language: str, dpi: int, deadline: float) -> dict:
    """The words of a figure, read as scattered labels."""
    grey = ImageOps.grayscale(image)
    return _plain(
        ocr.transcribe(grey, language, dpi, psm=ocr.FIGURE_PSM, floor=ocr.FIGURE_WORD_CONFIDENCE, deadline=deadline)
    )


def _plain(transcript: ocr.Transcript) -> dict:
    """A transcript as plain values: the parent never imports Tesseract's wrapper."""
    return {
        "paragraphs": transcript.as_paragraphs(),
        "lines": transcript.as_lines(),
        "confidence": transcript.confidence,
        "language": transcript.language,
    }


def _png(image: Image.Image) -> bytes:
    small = image.copy()
    small.thumbnail((VISION_SIDE, VISION_SIDE))
    out = io.BytesIO()
    small.save(out, format="PNG")
    return out.getvalue()


def _flat(image: Image.Image) -> Image.Image:
    """``image`` decoded, in RGB, transparency laid on white (Tesseract reads transparent as black)."""
    image.load()
    if image.mode in ("RGBA", "LA", "P"):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, "white")
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")
