"""A read figure as section text: a vision model's description, the labels Tesseract read, both.

Shared by PDF pages, DOCX images and the image files of Markdown and HTML pages: what a
figure says does not depend on where it was found. Figures are numbered ``Figure K`` in the
document's order, counting only those that say something (a figure with no words and no model
is no section, and leaves no gap). :func:`read_images` is the one loop that asks the child for
a document's images, a DOCX's members or a page's files alike, within the same byte limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..corpus import Derived
from . import vision
from .options import Visual
from .place import Insert
from .report import Report
from .session import Session

VISION_TIMEOUT = 120.0
# An image file larger than this, inflated, is not read (a photo at print quality is ~10 MB).
MAX_IMAGE_BYTES = 50_000_000
# A document's images, inflated, together: past this the rest are not read (a manual with a
# hundred screenshots holds ~100 MB; more is a zip bomb spread over many members).
MAX_DOCUMENT_BYTES = 250_000_000


@dataclass(frozen=True)
class ImageAsk:
    """One image for the child to read: its key in the text, its number and source (a DOCX
    member, a page's file) for a warning, and the arguments of the child's operation that name
    it (``member=`` or ``path=``, ``size``, ``page``, ``repeated``)."""

    key: str
    number: int
    source: str
    request: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"image {self.number} ({self.source})"


def unread(asks: Sequence[ImageAsk]) -> str:
    """The images a stop leaves unread, as a warning names them.

    >>> unread([ImageAsk("a", 2, "a.png"), ImageAsk("b", 3, "b.png")]), unread([ImageAsk("a", 2, "a.png")])
    ('images 2 to 3 were', 'image 2 was')
    """
    if len(asks) == 1:
        return f"image {asks[0].number} was"
    return f"images {asks[0].number} to {asks[-1].number} were"


def read_images(
    session: Session,
    texts: FigureText,
    op: str,
    asks: Sequence[ImageAsk],
    language: str,
    ocr: bool,
) -> dict[str, Insert]:
    """The sections of ``asks`` read by the child's ``op``, by key; what was not read is warned."""
    inserts: dict[str, Insert] = {}
    budget = MAX_DOCUMENT_BYTES
    for index, ask in enumerate(asks):
        if not ocr and not texts.describing:  # nothing would read them (the reason was warned)
            break
        reply = session.call(
            op,
            **ask.request,
            limit=min(MAX_IMAGE_BYTES, budget),
            max_pixels=texts.visual.max_pixels,
            language=language,
            ocr=ocr,
            images=texts.describing,
        )
        if reply is None:
            if session.given_up():
                texts.report.warn(f"{unread(asks[index:])} not read: {session.why()}")
                break
            continue
        budget -= reply.get("bytes", 0)
        if "too_large" in reply and reply["too_large"] < MAX_IMAGE_BYTES:
            texts.report.warn(
                f"{unread(asks[index:])} not read: a document's images are read up to {MAX_DOCUMENT_BYTES:,} bytes, together"
            )
            break
        insert = texts.image(reply, ask.name)
        if insert is not None:
            inserts[ask.key] = insert
    return inserts


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

    def image(self, reply: dict, name: str) -> Insert | None:
        """One image's section from the child's ``reply``, or ``None`` with the reason counted or warned."""
        if "decoration" in reply:
            self.report.decorations_skipped += 1
            return None
        if "too_large" in reply:
            self.report.warn(f"{name} was not read: it is larger than {MAX_IMAGE_BYTES:,} bytes")
            return None
        if "oversized" in reply:
            pixels = f"{reply['oversized']:,} pixels" if reply["oversized"] else "more pixels than Pillow allows"
            self.report.warn(
                f"{name} declares {pixels}, over the limit of {self.visual.max_pixels:,} "
                "(docs_visual_max_pixels); it was not read"
            )
            return None
        if "failed" in reply:
            self.report.warn(f"{name}: {reply['failed']}")
        if "transcript" not in reply:
            return None
        self.report.figures_found += 1
        return self.insert(None, reply)

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
