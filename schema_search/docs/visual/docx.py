"""A DOCX file's images: found in the body's order, set apart when decoration, read in the child.

Only ``word/document.xml``'s body is looked at: a logo in a header or footer lives in its
own part (``word/header1.xml``) and never reaches a section. Within the body, an image
three or more times over is the template's (a bullet, a divider), and one shown smaller
than 1.5% of the page or under 64 px on a side is an icon (:func:`~.figures.decoration`,
the same rules as a PDF's). Each remaining image is read where it stands: its paragraph's
place in the text, ``page=None``, as DOCX has no pages until a word processor lays it out.

This process reads only the zip's directory and XML; the image members are inflated in
the child, one at a time as each is read (:func:`.docx_parts.read_member`: each at most
:data:`~.figure_text.MAX_IMAGE_BYTES`, all of a document's together at most
:data:`~.figure_text.MAX_DOCUMENT_BYTES`),
and decoded there too, by Pillow, as PNG, JPEG, GIF, BMP, TIFF or WebP only.
"""

from __future__ import annotations

import dataclasses
import posixpath
import zipfile
from collections import Counter
from dataclasses import dataclass
from urllib.parse import unquote
from xml.etree import ElementTree

from .docx_parts import MAX_PART_BYTES, W, read_member
from .figure_text import FigureText, ImageAsk, read_images
from .figures import REPEATED_PAGES
from .languages import for_figure, text_language
from .options import Visual
from .place import Insert
from .report import Report
from .session import Session, Unavailable

_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_PICTURE = "{http://schemas.openxmlformats.org/drawingml/2006/picture}pic"
_EXTENT = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}extent"
_INLINE = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}inline"
_ANCHOR = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}anchor"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_VML_IMAGE = "{urn:schemas-microsoft-com:vml}imagedata"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_RELS = "word/_rels/document.xml.rels"
EMU_PER_POINT = 12_700
# US Letter, in points: the page when the body's section properties do not give one.
LETTER = (612.0, 792.0)


@dataclass(frozen=True)
class Picture:
    """One image in the body: its marker key, its zip member, the size it is shown at (points)."""

    key: str
    member: str
    size: tuple[float, float] | None


def relations(archive: zipfile.ZipFile) -> dict[str, str]:
    """The body's relationship ids and the zip members they name (images among them); none for a
    linked (external) target.

    Raises:
        ValueError: the relationships part is damaged.
    """
    try:
        root = ElementTree.fromstring(read_member(archive, _RELS, MAX_PART_BYTES))
    except KeyError:
        return {}
    except ElementTree.ParseError as error:
        raise ValueError(f"{_RELS} is not XML ({error})") from None
    found = {}
    for relation in root.iter(_RELATIONSHIP):
        target = relation.get("Target", "")
        if relation.get("TargetMode") == "External" or not target:
            continue
        found[relation.get("Id", "")] = part_name(target)
    return found


def part_name(target: str) -> str:
    """The zip member a relationship of ``word/document.xml`` names: relative to ``word/``
    unless it starts at the root, percent-escapes undone, ``..`` resolved.

    >>> part_name("media/image1.png"), part_name("/word/media/a.png"), part_name("../media/my%20chart.png")
    ('word/media/image1.png', 'word/media/a.png', 'media/my chart.png')
    """
    path = unquote(target)
    return posixpath.normpath(path.lstrip("/") if path.startswith("/") else f"word/{path}")


def pictures(element: ElementTree.Element, relations: dict[str, str], first: int) -> list[Picture]:
    """The images in one body element (a paragraph, a table), in order, keyed from ``first`` on.

    Each image once: a picture's content is not searched for more pictures, ``mc:Fallback``
    (the same drawing again, in VML, for old readers) is skipped, and an image shown twice
    in one paragraph counts once. A picture in a text box or a group is found inside it,
    without the box's size (the box is not the picture).
    """
    found: list[Picture] = []
    seen: set[tuple[int, str]] = set()
    stack: list[tuple[ElementTree.Element, int]] = [(element, id(element))]
    while stack:  # depth first, in document order; no recursion, however deep the XML nests
        node, paragraph = stack.pop()
        if node.tag == _FALLBACK:
            continue
        paragraph = id(node) if node.tag == f"{W}p" else paragraph
        member, size, inside = None, None, True
        if node.tag in (_INLINE, _ANCHOR):
            picture = node.find(f"{_A}graphic/{_A}graphicData/{_PICTURE}")
            if picture is not None:
                member, size, inside = _embedded(picture, relations), _extent(node), False
        elif node.tag == _PICTURE:
            member, inside = _embedded(node, relations), False
        elif node.tag == _VML_IMAGE:  # an old (Word 2003) picture: no size we can trust
            member, inside = relations.get(node.get(f"{_R}id", "")), False
        if member and (paragraph, member) not in seen:
            seen.add((paragraph, member))
            found.append(Picture(str(first + len(found)), member, size))
        if inside:
            stack.extend((child, paragraph) for child in reversed(node))
    return found


def _embedded(picture: ElementTree.Element, relations: dict[str, str]) -> str | None:
    blip = next(picture.iter(f"{_A}blip"), None)
    return relations.get(blip.get(f"{_R}embed", "")) if blip is not None else None


def _extent(holder: ElementTree.Element) -> tuple[float, float] | None:
    extent = holder.find(_EXTENT)
    if extent is not None and extent.get("cx", "").isdigit() and extent.get("cy", "").isdigit():
        return (int(extent.get("cx")) / EMU_PER_POINT, int(extent.get("cy")) / EMU_PER_POINT)  # type: ignore[arg-type]
    return None


def page_size(body: ElementTree.Element | None) -> tuple[float, float]:
    """The body's page size in points, from its section properties (twentieths of a point)."""
    size = body.find(f"{W}sectPr/{W}pgSz") if body is not None else None
    try:
        return (int(size.get(f"{W}w")) / 20, int(size.get(f"{W}h")) / 20)  # type: ignore[union-attr, arg-type]
    except (AttributeError, TypeError, ValueError):
        return LETTER


class Images:
    """A DOCX body's images: the relationships that name them and the zip's directory, taken
    while it is open (nothing inflated); then placed (:meth:`pictures`) and read (:meth:`read`)."""

    def __init__(self, archive: zipfile.ZipFile, body: ElementTree.Element | None, data: bytes) -> None:
        self.data = data
        self.page = page_size(body)
        self.members = {info.filename: info for info in archive.infolist()}
        self.problem: str | None = None
        try:
            self.relations = relations(archive)
        except ValueError as error:
            self.relations, self.problem = {}, f"no image was read: {error}"

    def pictures(self, element: ElementTree.Element, first: int) -> list[Picture]:
        """The images in one body element, keyed from ``first`` on."""
        return pictures(element, self.relations, first)

    def read(self, found: list[Picture], text: str, visual: Visual) -> tuple[dict[str, Insert], Report]:
        """The sections of the pictures worth reading, by key, and the account of reading them;
        ``text``, the document's, tells the language of their labels."""
        return read_pictures(found, self, text, visual)


def repeated_members(found: list[Picture], members: dict[str, zipfile.ZipInfo]) -> set[str]:
    """The members whose content the body shows :data:`~.figures.REPEATED_PAGES` times or more:
    the same content is the same checksum and size in the zip's directory (no inflating), as
    a word processor may store one picture as several members."""
    content = {p.member: (members[p.member].CRC, members[p.member].file_size) for p in found if p.member in members}
    counts = Counter(content.get(p.member) for p in found)
    return {member for member, key in content.items() if counts[key] >= REPEATED_PAGES}


def read_pictures(found: list[Picture], images: Images, text: str, visual: Visual) -> tuple[dict[str, Insert], Report]:
    """The sections of the pictures worth reading, by key, and the account of reading them."""
    report = Report()
    inserts: dict[str, Insert] = {}
    if images.problem:
        report.warn(images.problem)
    if not found or not visual.figures:
        return inserts, report
    repeated = repeated_members(found, images.members)
    try:
        with Session(visual, report) as session:
            languages = session.languages()
            texts = FigureText(session, visual, report)
            if not languages and not texts.describing:  # nothing would read them (warned by languages())
                return inserts, report
            language = for_figure(text_language(text, languages) if languages else None, languages or visual.languages)
            opened = session.open("open_docx", data=images.data)
            if opened is None or "failed" in opened:
                reason = opened["failed"] if opened else session.why()
                report.warn(f"images 1 to {len(found)} were not read: {reason}")
                return inserts, report
            asks = []
            for number, picture in enumerate(found, 1):
                ask = ImageAsk(picture.key, number, picture.member)
                if picture.member not in images.members:
                    report.warn(f"{ask.name} was not read: it is missing from the file")
                    continue
                request = {"member": picture.member, "size": picture.size, "page": images.page}
                asks.append(dataclasses.replace(ask, request={**request, "repeated": picture.member in repeated}))
            inserts = read_images(session, texts, "read_image", asks, language, bool(languages))
    except Unavailable as error:
        report.warn(str(error))
    return inserts, report
