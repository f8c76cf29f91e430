"""Plain text: an optional ``Key: value`` header block, then paragraphs between blank lines."""

from __future__ import annotations

from ..corpus import ParsedDocument
from .headers import header_block, label
from .outline import Outline


def read_text(text: str) -> ParsedDocument:
    """Parse plain text; a short first line stands as the title.

    >>> doc = read_text("Release checklist\\n\\nTag it.\\n\\nPush it.")
    >>> doc.title, [b.text for b in doc.sections[0].blocks]
    ('Release checklist', ['Tag it.', 'Push it.'])
    """
    fields, body = header_block(text)
    paragraphs = [p.strip() for p in body.replace("\r\n", "\n").split("\n\n") if p.strip()]
    titles = fields.get("Title")
    title = titles[0] if titles else None
    if title is None and paragraphs and "\n" not in paragraphs[0] and len(paragraphs[0]) <= 100:
        title = paragraphs.pop(0)
    outline = Outline(title)
    for paragraph in paragraphs:
        outline.block(paragraph)
    return ParsedDocument(title=title, sections=outline.sections(), fields=fields, label=label(fields))
