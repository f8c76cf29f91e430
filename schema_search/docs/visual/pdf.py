"""A PDF read beyond its text layer: its scanned pages transcribed, its figures read, in page order.

The steps, each in the child (:mod:`.worker`) but the planning:

1. open the PDF and view every page: its text layer, its images and paths (:mod:`.pages`);
2. plan here: which pages are scans (:mod:`.scans`), which objects are figures and which
   the template's decoration (:mod:`.figures`), each page's language (:mod:`.languages`);
3. render each page that needs it, up to ``max_pages`` of them, and read it: a scan whole
   by OCR, a figure by OCR of its region (unless the text layer has its labels already) and,
   with a vision model, by the model (:mod:`.vision`, here).

What the time allows: at ``Visual.seconds`` the reading stops, and every page not read yet
keeps its text layer, with a warning naming the pages. A page PDFium did not view (out of
time, or the child crashed on its batch) is in :attr:`PdfPages.missing`, and a PDF PDFium
could not open raises :class:`Unopened`: the caller reads their text layer with pypdf, as
without ``Visual``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..corpus import Derived
from .figure_text import FigureText
from .figures import Found, PageView, find_figures, pixels_at, repeated_keys, too_large
from .languages import for_figure, text_language
from .options import PAGES_LABEL, PROGRESS_PAGES, Visual
from .place import Insert
from .report import Report, spans
from .scans import is_scan
from .session import Session

# Pages viewed per request: one request per page would cost a round trip each, one for the
# whole document would lose every page to a timeout.
VIEW_BATCH = 100
# The text a document's language is told from: more only costs time.
LANGUAGE_SAMPLE = 20_000


@dataclass(frozen=True)
class Scan:
    """A scanned page's text, as Tesseract read it."""

    text: str
    derived: Derived


@dataclass(frozen=True)
class PageText:
    """One page: its text-layer pieces with its figures between them, top to bottom, or its scan."""

    number: int
    pieces: tuple[str | Insert, ...] = ()
    scan: Scan | None = None


@dataclass(frozen=True)
class PdfPages:
    """What PDFium read: the title, the pages it viewed (in order), the account, and the pages
    it did not view (their text layer is the caller's to read)."""

    title: str | None
    pages: tuple[PageText, ...]
    report: Report
    missing: tuple[int, ...] = ()


class Unopened(ValueError):
    """PDFium did not open the PDF: it cannot (damaged, encrypted), or it ran out of time or crashed first."""


def read_pages(data: bytes, visual: Visual) -> PdfPages:
    """Read the PDF in ``data`` as far as ``visual`` allows.

    Raises:
        Unopened: PDFium did not open it; the message says why.
        Unavailable: the child did not start.
    """
    report = Report()
    with Session(visual, report) as session:
        opened = session.open("open_pdf", data=data)
        if opened is None or "failed" in opened:
            raise Unopened(opened["failed"] if opened else f"PDFium did not open it: {session.why()}")
        report.pages = opened["pages"]
        views, missing = _views(session, opened["pages"])
        reader = _Reader(session, visual, report, views)
        shown = visual.progress(views, PAGES_LABEL) if visual.progress and len(views) >= PROGRESS_PAGES else views
        pages = tuple(reader.page(view, text) for view, text in shown)
        reader.finish()
    return PdfPages(opened["title"], pages, report, tuple(missing))


def _views(session: Session, count: int) -> tuple[list[tuple[PageView, str]], list[int]]:
    """The pages PDFium viewed, and those it did not: a batch it failed or crashed on (the
    next is tried), and every page once the time is up."""
    views: list[tuple[PageView, str]] = []
    missing: list[int] = []
    for start in range(1, count + 1, VIEW_BATCH):
        stop = min(count, start + VIEW_BATCH - 1)
        reply = session.call("view_pages", start=start, stop=stop)
        if reply is not None and "failed" in reply:
            session.report.warn(f"{spans(list(range(start, stop + 1)))}: PDFium failed ({reply['failed']})")
        viewed = [] if reply is None or "failed" in reply else reply["views"]
        views += viewed
        missing += range(start + len(viewed), stop + 1)
    if missing:
        session.report.warn(f"{spans(missing)} were read by their text layer only: " + session.why())
    return views, missing


class _Reader:
    """The planning and reading of one document's pages, in order, with what it has learnt so far."""

    def __init__(self, session: Session, visual: Visual, report: Report, views: list[tuple[PageView, str]]) -> None:
        self.session, self.visual, self.report = session, visual, report
        self.repeated = repeated_keys([view for view, _ in views])
        self.languages = session.languages() if visual.ocr or visual.figures else ()
        sample = "\n".join(text for _, text in views)[:LANGUAGE_SAMPLE]
        self.language = text_language(sample, self.languages) if self.languages else None
        self.rendered = 0
        self.over_pages: list[int] = []
        self.unread: list[int] = []
        self.figures = FigureText(session, visual, report)

    def page(self, view: PageView, text: str) -> PageText:
        plain = PageText(view.number, (text,))
        if self.session.given_up():  # classifying the rest is time too: they keep their text layer
            self.unread.append(view.number)
            return plain
        oversized = too_large(view, self.visual.max_pixels)
        if oversized:  # rendering the page would decode it: the page is not rendered at all
            width, height = max(oversized, key=lambda d: d.pixels[0] * d.pixels[1]).pixels
            self.report.warn(
                f"page {view.number}: an image declares {width:,} x {height:,} pixels, over the limit of "
                f"{self.visual.max_pixels:,} (docs_visual_max_pixels); the page keeps its text layer only"
            )
            return plain
        scan = self.visual.ocr and bool(self.languages) and is_scan(view, self.repeated)
        found = Found()
        # Without a language Tesseract has and without a model, nothing would read a figure (warned once).
        if self.visual.figures and not scan and (self.languages or self.figures.describing):
            found = find_figures(view, self.repeated)
            self.report.decorations_skipped += found.decorations
            self.report.figures_found += len(found.figures)
        if not scan and not found.figures:
            return plain
        if self.rendered >= self.visual.max_pages:
            self.over_pages.append(view.number)
            return plain
        pixels = pixels_at(view.width, view.height, self.visual.dpi)
        if pixels > self.visual.max_pixels:
            self.report.warn(
                f"page {view.number} is {pixels:,} pixels at {self.visual.dpi} dpi, over the limit of "
                f"{self.visual.max_pixels:,} (docs_visual_max_pixels); it keeps its text layer only"
            )
            return plain
        self.rendered += 1
        return self._read(view, text, scan, found)

    def _read(self, view: PageView, text: str, scan: bool, found: Found) -> PageText:
        page_language = text_language(text, self.languages) if self.languages else None
        reply = self.session.call(
            "read_page",
            number=view.number,
            dpi=self.visual.dpi,
            scan=scan,
            hint=page_language or self.language,
            languages=self.languages,
            figures=list(found.figures),
            labels=bool(self.languages),
            figure_language=for_figure(page_language or self.language, self.languages or self.visual.languages),
            images=self.figures.describing,
        )
        if reply is None:  # out of time, or the child died on it (warned)
            if self.session.expired:
                self.unread.append(view.number)
            return PageText(view.number, (text,))
        if "failed" in reply:
            self.report.warn(f"page {view.number}: {reply['failed']}; it keeps its text layer only")
        if scan:
            return self._scan(view, text, reply)
        cut = reply.get("pieces")
        if not cut:  # the page failed before its text was cut (warned)
            return PageText(view.number, (text,))
        pieces: list[str | Insert] = [cut[0]]
        for index, read in enumerate(reply["figures"]):
            insert = self.figures.insert(view.number, read)
            if insert is not None:
                pieces.append(insert)
            pieces.append(cut[index + 1])
        pieces += cut[len(reply["figures"]) + 1 :]  # past a figure the time did not reach, its text as it is
        return PageText(view.number, tuple(pieces))

    def _scan(self, view: PageView, text: str, reply: dict) -> PageText:
        transcript = reply.get("scan")
        if transcript is None:
            if reply.get("stopped"):
                self.unread.append(view.number)
            return PageText(view.number, (text,))
        self.report.pages_ocr += 1
        self.report.used(transcript["language"])
        self.language = self.language or transcript["language"]  # the next scanned page is tried in it first
        derived = Derived("scan", view.number, "ocr", transcript["confidence"])
        return PageText(view.number, scan=Scan("\n\n".join(transcript["paragraphs"]), derived))

    def finish(self) -> None:
        if self.over_pages:
            self.report.warn(
                f"{spans(self.over_pages)} kept their text layer only: a document has "
                f"{self.visual.max_pages} pages rendered at most (docs_visual_max_pages)"
            )
        if self.unread:
            self.report.warn(f"{spans(self.unread)} kept their text layer only: " + self.session.why())
