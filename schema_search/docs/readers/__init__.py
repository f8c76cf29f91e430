"""One reader per file format; each turns a file into a :class:`~schema_search.docs.corpus.ParsedDocument`.

Pick one by suffix with :func:`read`. A reader raises ``ValueError`` with a reason
a person can act on when a file cannot be read; the caller turns it into a warning.
Whatever a reader returns is made :func:`well_formed` here, where its text enters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..corpus import Block, ParsedDocument, Section
from .docx import read_docx
from .html import read_html
from .markdown import read_markdown
from .mdx import read_mdx
from .pdf import read_pdf
from .rst import read_rst
from .text import read_text

if TYPE_CHECKING:
    from ..visual.options import Visual

TextReader = Callable[[str], ParsedDocument]
BinaryReader = Callable[[bytes], ParsedDocument]

# suffix -> (format name, reader, reads text?)
FORMATS: dict[str, tuple[str, TextReader | BinaryReader, bool]] = {
    ".md": ("markdown", read_markdown, True),
    ".markdown": ("markdown", read_markdown, True),
    ".mdx": ("mdx", read_mdx, True),
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


# The text formats whose pages show image files beside them: read too, with ``visual``.
SHOWS_IMAGES = frozenset({"markdown", "mdx", "html"})


def read(path: Path, visual: Visual | None = None, root: Path | None = None) -> tuple[str, ParsedDocument]:
    """``(format, parsed document)`` of one file; a PDF's or a DOCX's read beyond its text
    layer as ``visual`` allows (:mod:`schema_search.docs.visual`), only its text without one.

    With ``visual``, a Markdown, MDX or HTML page's local image files are read as a DOCX's
    images are (:mod:`schema_search.docs.visual.local_images`), each inside ``root`` (the
    folder being indexed) or, without it, inside the page's own folder; a URL is never fetched.

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
        return name, finish(reader(data) if visual is None else reader(data, visual))
    if visual is None or not visual.figures or name not in SHOWS_IMAGES:
        return name, finish(reader(decode(data)))
    from ..visual.local_images import read_with_images  # the child and its reading only when images are read

    return name, finish(read_with_images(reader, decode(data), path, visual, root))


def decode(data: bytes) -> str:
    """A text file's bytes as text: UTF-8, a byte-order mark dropped.

    Raises:
        ValueError: not UTF-8 (the message says where).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text (byte {error.start})") from None


def well_formed(text: str) -> str:
    r"""``text`` as characters every encoder takes: a surrogate pair written as two halves joined
    into its character, a lone half replaced by U+FFFD.

    A decoder can hand over halves: YAML's ``"\ud83d\ude00"`` escape (valid YAML) came out of
    front matter as two lone surrogates, and the tokenizer failed on them: an upload answered
    500 and ``docs index`` died.

    >>> well_formed("notes " + chr(0xD83D) + chr(0xDE00) + " ok " + chr(0xD800)) == "notes \U0001F600 ok \ufffd"
    True
    """
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def finish(parsed: ParsedDocument) -> ParsedDocument:
    """A reader's result made :func:`well_formed`: what every parsed document passes through
    before it enters the corpus (a site's reader too)."""

    def clean(value: str | None) -> str | None:
        return None if value is None else well_formed(value)

    return dataclasses.replace(
        parsed,
        title=clean(parsed.title),
        label=clean(parsed.label),
        url=clean(parsed.url),
        fields={well_formed(k): tuple(map(well_formed, v)) for k, v in parsed.fields.items()},
        sections=tuple(
            Section(
                tuple(map(well_formed, s.headings)),
                clean(s.anchor),
                tuple(Block(well_formed(b.text), b.code) for b in s.blocks),
                s.derived,
            )
            for s in parsed.sections
        ),
    )
