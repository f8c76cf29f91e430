"""One reader per file format; each turns a file into a :class:`~schema_search.docs.corpus.ParsedDocument`.

Pick one by suffix with :func:`read`. A reader raises ``ValueError`` with a reason
a person can act on when a file cannot be read; the caller turns it into a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..corpus import ParsedDocument
from .docx import read_docx
from .html import read_html
from .markdown import read_markdown
from .pdf import read_pdf
from .rst import read_rst
from .text import read_text

TextReader = Callable[[str], ParsedDocument]
BinaryReader = Callable[[bytes], ParsedDocument]

# suffix -> (format name, reader, reads text?)
FORMATS: dict[str, tuple[str, TextReader | BinaryReader, bool]] = {
    ".md": ("markdown", read_markdown, True),
    ".markdown": ("markdown", read_markdown, True),
    ".mdx": ("markdown", read_markdown, True),
    ".rst": ("rst", read_rst, True),
    ".rest": ("rst", read_rst, True),
    ".txt": ("text", read_text, True),
    ".text": ("text", read_text, True),
    ".html": ("html", read_html, True),
    ".htm": ("html", read_html, True),
    ".pdf": ("pdf", read_pdf, False),
    ".docx": ("docx", read_docx, False),
}


def supported(path: Path) -> bool:
    return path.suffix.lower() in FORMATS


def read(path: Path) -> tuple[str, ParsedDocument]:
    """``(format, parsed document)`` of one file.

    Raises:
        ValueError: unsupported type, not UTF-8 text, or a reader's own reason.
        OSError: the file cannot be opened.
    """
    try:
        name, reader, textual = FORMATS[path.suffix.lower()]
    except KeyError:
        raise ValueError(f"no reader for {path.suffix or 'files without a suffix'}") from None
    data = path.read_bytes()
    if not textual:
        return name, reader(data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text (byte {error.start})") from None
    return name, reader(text)
