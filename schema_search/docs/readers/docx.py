"""DOCX: paragraphs and tables from ``word/document.xml``, headings from the paragraph styles.

A DOCX file is a zip of XML; the standard library reads it, so there is no
dependency for it. Built-in heading styles are ``Heading1`` ... ``Heading9``
(``Title`` for the document title); the title also comes from ``docProps/core.xml``.

With a :class:`~schema_search.docs.visual.options.Visual`, the body's images are read too
(:mod:`schema_search.docs.visual.docx`), each a ``Figure K`` section at its paragraph's place.

The XML parts are inflated within a limit, and a damaged, encrypted or oddly compressed
zip is a ``ValueError`` like any unreadable file (:mod:`~schema_search.docs.visual.docx_parts`),
never an error that stops the indexing of the folder around it.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import TYPE_CHECKING
from xml.etree import ElementTree

from ..corpus import ParsedDocument
from ..visual.docx_parts import MAX_PART_BYTES, read_member
from ..visual.docx_parts import W as _W
from .outline import Outline

if TYPE_CHECKING:
    from ..visual.options import Visual

_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_HEADING_STYLE = re.compile(r"^heading\s?(\d)$", re.IGNORECASE)


def read_docx(data: bytes, visual: Visual | None = None) -> ParsedDocument:
    """Parse a DOCX file: its text, and with ``visual`` its images too.

    Raises:
        ValueError: the file is not a DOCX (not a zip, no ``word/document.xml``, or one that is
            damaged, encrypted or too large).
    """
    images = None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            body = ElementTree.fromstring(read_member(archive, "word/document.xml", MAX_PART_BYTES)).find(f"{_W}body")
            title = _core_title(archive)
            if visual is not None and visual.figures:
                from ..visual.docx import Images  # the child and its reading only when images are read

                images = Images(archive, body, data)
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, ValueError) as error:
        raise ValueError(f"not a readable DOCX file ({error})") from None
    if images is not None:
        from ..visual.place import marker, place
    outline = Outline(title, title_heading=title is None)
    found = []
    for element in body if body is not None else ():
        if element.tag == f"{_W}p":
            _paragraph(outline, element)
        elif element.tag == f"{_W}tbl":
            rows = [" | ".join(_text(cell) for cell in row.iter(f"{_W}tc")) for row in element.iter(f"{_W}tr")]
            outline.block("\n".join(r for r in rows if r.strip(" |")))
        if images is not None:  # an image after the text of its paragraph (or table)
            for picture in images.pictures(element, len(found)):
                found.append(picture)
                outline.block(marker(picture.key))
    if images is None:
        return ParsedDocument(title=outline.title, sections=outline.sections())
    sections = outline.sections()
    text = " ".join(b.text for s in place(sections, {}) for b in s.blocks)  # markers dropped
    inserts, report = images.read(found, text, visual)
    return ParsedDocument(title=outline.title, sections=place(sections, inserts), visual=report.as_dict())


def _paragraph(outline: Outline, paragraph: ElementTree.Element) -> None:
    text = _text(paragraph)
    style = paragraph.find(f"{_W}pPr/{_W}pStyle")
    name = style.get(f"{_W}val", "") if style is not None else ""
    heading = _HEADING_STYLE.match(name)
    if name.lower() == "title":
        if outline.title is None:
            outline.title = text.strip() or None
    elif heading:
        outline.heading(int(heading.group(1)), text)
    else:
        outline.block(text)


def _text(element: ElementTree.Element) -> str:
    parts = []
    for node in element.iter():
        if node.tag == f"{_W}t" and node.text:
            parts.append(node.text)
        elif node.tag in (f"{_W}tab", f"{_W}br"):
            parts.append(" ")
    return "".join(parts)


def _core_title(archive: zipfile.ZipFile) -> str | None:
    try:
        core = ElementTree.fromstring(read_member(archive, "docProps/core.xml", MAX_PART_BYTES))
    except KeyError:
        return None
    found = core.find(_DC_TITLE)
    return found.text.strip() if found is not None and found.text and found.text.strip() else None
