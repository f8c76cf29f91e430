"""DOCX: paragraphs and tables from ``word/document.xml``, headings from the paragraph styles.

A DOCX file is a zip of XML; the standard library reads it, so there is no
dependency for it. Built-in heading styles are ``Heading1`` ... ``Heading9``
(``Title`` for the document title); the title also comes from ``docProps/core.xml``.
"""

from __future__ import annotations

import io
import re
import zipfile
from xml.etree import ElementTree

from ..corpus import ParsedDocument
from .outline import Outline

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_HEADING_STYLE = re.compile(r"^heading\s?(\d)$", re.IGNORECASE)


def read_docx(data: bytes) -> ParsedDocument:
    """Parse a DOCX file.

    Raises:
        ValueError: the file is not a DOCX (not a zip, or no ``word/document.xml``).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            body = ElementTree.fromstring(archive.read("word/document.xml")).find(f"{_W}body")
            title = _core_title(archive)
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError) as error:
        raise ValueError(f"not a readable DOCX file ({error})") from None
    outline = Outline(title, title_heading=title is None)
    for element in body if body is not None else ():
        if element.tag == f"{_W}p":
            _paragraph(outline, element)
        elif element.tag == f"{_W}tbl":
            rows = [" | ".join(_text(cell) for cell in row.iter(f"{_W}tc")) for row in element.iter(f"{_W}tr")]
            outline.block("\n".join(r for r in rows if r.strip(" |")))
    return ParsedDocument(title=outline.title, sections=outline.sections())


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
        core = ElementTree.fromstring(archive.read("docProps/core.xml"))
    except KeyError:
        return None
    found = core.find(_DC_TITLE)
    return found.text.strip() if found is not None and found.text and found.text.strip() else None
