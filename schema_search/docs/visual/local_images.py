"""The image files a Markdown, MDX or HTML page shows: read as a DOCX's images are, at their place.

The text reader collects each ``![alt](path)`` or ``<img src=path>`` and leaves a marker after
its paragraph (:func:`~.place.marker`); here each one that names a local file is read in the
child (:func:`.worker.read_image_file`: at most :data:`~.figure_text.MAX_IMAGE_BYTES` a file,
:data:`~.figure_text.MAX_DOCUMENT_BYTES` a page's together, decoded by Pillow as PNG, JPEG, GIF, BMP,
TIFF or WebP within ``Visual.max_pixels``, on the document's deadline) and becomes a
``Figure K`` section after that paragraph (:func:`~.place.place`); the alt text stays where
the reader put it. The same decoration rules as a DOCX's: a file the page shows three times
or more is the template's, one shown under 64 px on a side or smaller than 1.5% of a Letter
page is an icon (:func:`~.figures.decoration`); each is skipped and counted.

Which sources are read (:func:`locate`):

- a URL (``http:``, ``https:``, ``data:``, ``file:``, any scheme, or ``//host/...``) is not
  fetched nor decoded, and needs no warning: it is no file of the corpus;
- an absolute path (``/img/a.png``) is not read, and needs no warning either: it names the
  site's root as a server publishes it (documentation sources write their images so, the
  FastAPI docs 116 times) or the machine's, neither of which is a folder of the corpus;
- a relative path is taken from the page's folder, percent-escapes undone, ``?query`` and
  ``#fragment`` dropped. It is read only when it stays inside ``root`` (the folder being
  indexed) or, when the caller does not say which folder that is, inside the page's own
  folder: a ``..`` that climbs out is refused before anything is opened, and so is a link
  (anywhere on the way) whose target lies outside. A missing file is a warning.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePath
from urllib.parse import unquote, urlsplit

from ..corpus import ParsedDocument
from . import figure_text
from .docx import LETTER
from .figure_text import FigureText, ImageAsk
from .figures import REPEATED_PAGES
from .languages import for_figure, text_language
from .options import Visual
from .place import Insert, place
from .report import Report
from .session import Session, Unavailable

# CSS px to points: a CSS px is 1/96 in.
POINTS_PER_PX = 0.75


@dataclasses.dataclass(frozen=True)
class LocalImage:
    """One image file a page shows: its marker key, its number among the page's images (1-based),
    its source as written, the file it resolves to, the size it is shown at (points) if known."""

    key: str
    number: int
    source: str
    path: Path
    size: tuple[float, float] | None


# A template's expressions ({{ user.avatar_url }} in MkDocs macros and Jinja, ${...} in JS):
# the site fills them in when it is built, so they name no file of the folder.
TEMPLATE_MARKS = ("{{", "{%", "${")


def read_with_images(
    reader: Callable[..., ParsedDocument], text: str, path: Path, visual: Visual, root: Path | None = None
) -> ParsedDocument:
    """``text`` (the file at ``path``) parsed by ``reader``, the local images it shows read into
    figure sections; ``visual`` holds the account when the page names an image file.

    Raises:
        ValueError: the reader's own.
    """
    shown: list[tuple[str, tuple[float, float] | None]] = []
    parsed = reader(text, images=shown)
    if not shown:
        return parsed
    report = Report()
    found: list[LocalImage] = []
    folder = path.absolute().parent
    for index, (source, size) in enumerate(shown):
        target, refused = locate(source, folder, root)
        if refused:
            report.warn(f"image {index + 1} ({source}) was not read: {refused}")
        elif target is not None:
            points = (size[0] * POINTS_PER_PX, size[1] * POINTS_PER_PX) if size else None
            found.append(LocalImage(str(index), index + 1, source, target, points))
    if not found and not report.warnings:  # remote images only: nothing of the corpus to read
        return dataclasses.replace(parsed, sections=place(parsed.sections, {}))
    page_text = " ".join(b.text for s in place(parsed.sections, {}) for b in s.blocks)  # markers dropped
    inserts = read_images(found, page_text, visual, report)
    return dataclasses.replace(parsed, sections=place(parsed.sections, inserts), visual=report.as_dict())


def locate(source: str, folder: Path, root: Path | None = None) -> tuple[Path | None, str | None]:
    """The file ``source`` names from a page in ``folder`` (absolute), links resolved, or why it
    is not read: ``(path, None)``, ``(None, reason)``, or ``(None, None)`` for a URL (no file)."""
    relative, refused = local_part(source)
    if relative is None:
        return None, refused
    if not stays_inside(folder, relative, root.absolute() if root is not None else folder):
        if root is not None:
            return None, "it is outside the folder being indexed"
        return None, "it is outside the page's folder (the folder being indexed was not given)"
    try:
        real = (folder / relative).resolve(strict=True)
    except FileNotFoundError:
        return None, "there is no such file"
    except (OSError, RuntimeError, ValueError) as error:  # a loop of links, a name too long, a NUL
        return None, f"it cannot be opened ({error})"
    if not _inside(real, (root.absolute() if root is not None else folder).resolve()):
        return None, "it is a link to a file outside the folder being indexed"
    if not real.is_file():
        return None, "it is not a file"
    return real, None


def local_part(source: str) -> tuple[str | None, str | None]:
    """The relative path ``source`` names (percent-escapes undone, ``?query`` and ``#fragment``
    dropped), or ``(None, reason)``; ``(None, None)`` for a URL or an absolute path, which name no file of ours.

    >>> local_part("img/my%20chart.png?v=2#top"), local_part("https://x.dev/a.png"), local_part("data:image/png;base64,AA")
    (('img/my chart.png', None), (None, None), (None, None))
    >>> local_part("//cdn.x.dev/a.png"), local_part("/img/a.png"), local_part("{{ user.avatar_url }}")
    ((None, None), (None, None), (None, None))
    """
    if any(mark in source for mark in TEMPLATE_MARKS):  # filled in when the site is built: no file here
        return None, None
    parts = urlsplit(source)
    if parts.scheme or parts.netloc:
        return None, None
    relative = unquote(parts.path)
    if not relative:
        return None, None
    if relative.startswith(("/", "\\")):  # the site's root or the machine's: no folder of the corpus
        return None, None
    return relative, None


def stays_inside(folder: PurePath, relative: str, base: PurePath) -> bool:
    """Whether ``relative``, from ``folder``, names a path inside ``base``, its ``..`` weighed
    as written: before any link is followed, so a path that climbs out is never opened.

    >>> from pathlib import PurePosixPath
    >>> docs = PurePosixPath("/corpus/docs")
    >>> [stays_inside(docs, p, docs) for p in ("a.png", "x/../a.png", "../docs/a.png", "../img/a.png")]
    [True, True, True, False]
    >>> stays_inside(docs, "../img/a.png", PurePosixPath("/corpus")), stays_inside(docs, "../../etc/a.png", PurePosixPath("/corpus"))
    (True, False)
    """
    return _inside(type(folder)(posixpath.normpath((folder / relative).as_posix())), base)


def _inside(path: PurePath, folder: PurePath) -> bool:
    return path == folder or folder in path.parents


def read_images(found: list[LocalImage], text: str, visual: Visual, report: Report) -> dict[str, Insert]:
    """The sections of the image files worth reading, by key; ``report`` tells what was done.
    ``text``, the page's, tells the language of their labels."""
    inserts: dict[str, Insert] = {}
    if not found or not visual.figures:
        return inserts
    same = Counter(_identity(image.path) for image in found)
    wanted = [image for image in found if same[_identity(image.path)] < REPEATED_PAGES]
    report.decorations_skipped += len(found) - len(wanted)  # the template's, whatever they hold: not opened
    if not wanted:
        return inserts
    try:
        with Session(visual, report) as session:
            languages = session.languages()
            texts = FigureText(session, visual, report)
            language = for_figure(text_language(text, languages) if languages else None, languages or visual.languages)
            asks = [
                ImageAsk(
                    image.key,
                    image.number,
                    image.source,
                    {"path": str(image.path), "size": image.size, "page": LETTER, "repeated": False},
                )
                for image in wanted
            ]
            inserts = figure_text.read_images(session, texts, "read_image_file", asks, language, bool(languages))
    except Unavailable as error:
        report.warn(str(error))
    return inserts


def _identity(path: Path) -> tuple[int, int] | Path:
    """The same file by any name (a hard link too), or its path when it cannot be looked at."""
    try:
        info = path.stat()
    except OSError:
        return path
    return (info.st_dev, info.st_ino)
