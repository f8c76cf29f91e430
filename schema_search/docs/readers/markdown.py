"""Markdown: front matter, ATX and setext headings with MkDocs ``{ #anchor }`` suffixes, fenced code.

A ``#`` line inside a code fence is code, not a heading. MkDocs-specific syntax the
published page replaces (``{* file.py *}`` include macros, pymdownx ``/// tip``
block fences, HTML comments) is dropped from the text: raw, it is noise.
"""

from __future__ import annotations

import re

from ..corpus import ParsedDocument
from .headers import front_matter
from .outline import Outline

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_ANCHOR = re.compile(r"[ \t]*\{[ \t]*#([\w.:-]+)[^}]*\}[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_INCLUDE_MACRO = re.compile(r"^\s*\{\*.*\*\}\s*$")
_BLOCK_FENCE = re.compile(r"^\s*/{3,}(?:\s.*)?$")


def read_markdown(text: str) -> ParsedDocument:
    """Parse Markdown into a title, header fields and sections.

    >>> doc = read_markdown("# Tasks { #tasks }\\n\\nIntro.\\n\\n## Use it { #use-it }\\n\\n```py\\n# not a heading\\n```\\n")
    >>> doc.title, [(s.headings, s.anchor, [b.code for b in s.blocks]) for s in doc.sections]
    ('Tasks', [((), None, [False]), (('Use it',), 'use-it', [True])])
    """
    fields, body = front_matter(text)
    outline = Outline(_first(fields, "title"))
    lines = without_comments(body).replace("\r\n", "\n").split("\n")
    paragraph: list[str] = []
    fence: str | None = None
    code: list[str] = []

    def end_paragraph() -> None:
        if paragraph:
            outline.block("\n".join(paragraph))
            paragraph.clear()

    for line in lines:
        if fence is not None:
            code.append(line)
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                outline.block("\n".join(code), code=True)
                fence, code = None, []
            continue
        opened = _FENCE.match(line)
        if opened:
            end_paragraph()
            fence, code = opened.group(1), [line]
            continue
        atx = _ATX.match(line)
        if atx:
            end_paragraph()
            title, anchor = _anchor(atx.group(2) or "")
            outline.heading(len(atx.group(1)), title, anchor)
            continue
        setext = _SETEXT.match(line)
        if (
            setext
            and len(paragraph) == 1
            and "|" not in paragraph[0]
            and not paragraph[0].lstrip().startswith(("-", "*", ">"))
        ):
            title, anchor = _anchor(paragraph.pop())
            outline.heading(1 if setext.group(1)[0] == "=" else 2, title, anchor)
            continue
        if _INCLUDE_MACRO.match(line) or _BLOCK_FENCE.match(line):
            continue
        if not line.strip():
            end_paragraph()
        else:
            paragraph.append(line.rstrip())
    end_paragraph()
    if code:  # an unclosed fence runs to the end of the file, as CommonMark says
        outline.block("\n".join(code), code=True)
    return ParsedDocument(title=outline.title, sections=outline.sections(), fields=fields, url=_first(fields, "url"))


def _anchor(heading: str) -> tuple[str, str | None]:
    """A heading's text and its explicit ``{ #anchor }``, if it has one.

    >>> _anchor("Check it { #check-it }"), _anchor("Plain")
    (('Check it', 'check-it'), ('Plain', None))
    """
    match = _ANCHOR.search(heading)
    if not match:
        return heading.strip(), None
    return heading[: match.start()].strip(), match.group(1)


def _first(fields: dict[str, tuple[str, ...]], key: str) -> str | None:
    values = fields.get(key)
    return values[0] if values else None


def without_comments(text: str) -> str:
    """``text`` without its HTML comments; one never closed runs to the end, as a browser reads it.

    A scan, not a pattern: ``<!--.*?-->`` searched on from every opening that has no close,
    and 128 KB of ``<!--`` took 54 s.

    >>> without_comments("a <!-- b --> c <!-- d"), without_comments("<!---->x<!-- a --> -->")
    ('a  c ', 'x -->')
    """
    kept, position = [], 0
    while (start := text.find("<!--", position)) != -1:
        kept.append(text[position:start])
        end = text.find("-->", start + 4)
        if end == -1:
            return "".join(kept)
        position = end + 3
    kept.append(text[position:])
    return "".join(kept)
