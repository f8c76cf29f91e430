"""Markdown: front matter, ATX and setext headings with ``{ #anchor }`` suffixes, fenced code.

A ``#`` line inside a code fence is code, not a heading. MkDocs-specific syntax the
published page replaces (``{* file.py *}`` include macros, pymdownx ``/// tip``
block fences, HTML comments) is dropped from the text: raw, it is noise.

A heading's anchor is the one the source writes (``{#id}``, or an attribute list
``{: #id .class }``); a site generator that makes anchors of the headings the source
leaves bare passes ``anchors`` (see :mod:`schema_search.docs.sites.slugs`), which sees
every heading of the page, its title included, as generators number repeats over all.

Given ``images`` (a list), each image a paragraph shows (``![alt](path)``, or a raw
``<img src=...>``) is appended to it as ``(source, None)`` and a marker block
(:func:`~schema_search.docs.visual.place.marker` of its index) follows the paragraph, for
:mod:`schema_search.docs.visual.local_images` to read; the paragraph keeps its text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..corpus import ParsedDocument
from ..visual.place import marker
from .fences import split_fenced
from .headers import front_matter
from .outline import Outline

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
# A trailing attribute list: "{#id}", "{ #id .class }", "{: .class #id }", "{.class}".
_ATTRIBUTES = re.compile(r"[ \t]*\{(?::[^{}]*|[ \t]*[.#][^{}]*)\}[ \t]*$")
_ID = re.compile(r"(?:^|[\s:{])#([\w.:-]+)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_INCLUDE_MACRO = re.compile(r"^\s*\{\*.*\*\}\s*$")
_BLOCK_FENCE = re.compile(r"^\s*/{3,}(?:\s.*)?$")
# ![alt](source "title"), the source bare or in <...>; a raw <img src=...> as HTML writes it.
_IMAGE = re.compile(
    r"!\[[^\]]*\]\(\s*(?:<([^>\n]*)>|([^\s()]+))(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
    r"|<img\b[^>]*?\ssrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1", re.S)


@dataclass(frozen=True)
class Heading:
    """One heading as the source writes it.

    Attributes:
        text: the heading's text, its attribute list removed.
        anchor: the id the source gives it (``{#id}``), if any.
        source: the Markdown line(s) it was read from, for a generator that renders them.
    """

    level: int
    text: str
    anchor: str | None = None
    source: str = ""


# Every heading of a page, in order -> one anchor each (None: the section has none).
Anchors = Callable[[Sequence[Heading]], Sequence[str | None]]


# Where a reader collects a page's images: (source as written, shown size in CSS px or None).
Images = list[tuple[str, tuple[float, float] | None]]


def read_markdown(text: str, anchors: Anchors | None = None, images: Images | None = None) -> ParsedDocument:
    """Parse Markdown into a title, header fields and sections.

    >>> doc = read_markdown("# Tasks { #tasks }\\n\\nIntro.\\n\\n## Use it { #use-it }\\n\\n```py\\n# not a heading\\n```\\n")
    >>> doc.title, [(s.headings, s.anchor, [b.code for b in s.blocks]) for s in doc.sections]
    ('Tasks', [((), None, [False]), (('Use it',), 'use-it', [True])])
    >>> doc = read_markdown("# Guide\\n\\n## Install\\n\\npip.\\n", anchors=lambda hs: [h.text.lower() for h in hs])
    >>> [s.anchor for s in doc.sections]
    ['install']
    """
    fields, body = front_matter(text)
    # What the page holds, in order: a heading, or a block (text, code?). Anchors are
    # given once every heading is known, as a generator numbers repeats over the page.
    parts: list[Heading | tuple[str, bool]] = []
    # Comments are markup, except inside code, where they are what the example shows.
    body = "".join(piece if code else without_comments(piece) for piece, code in split_fenced(body))
    lines = body.replace("\r\n", "\n").split("\n")
    paragraph: list[str] = []
    fence: str | None = None
    code: list[str] = []

    def end_paragraph() -> None:
        if paragraph:
            parts.append(("\n".join(paragraph), False))
            if images is not None:  # each image after the text of its paragraph, as a DOCX's
                for source in image_sources(parts[-1][0]):
                    images.append((source, None))
                    parts.append((marker(str(len(images) - 1)), False))
            paragraph.clear()

    for line in lines:
        if fence is not None:
            code.append(line)
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                parts.append(("\n".join(code), True))
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
            parts.append(Heading(len(atx.group(1)), title, anchor, line))
            continue
        setext = _SETEXT.match(line)
        if (
            setext
            and len(paragraph) == 1
            and "|" not in paragraph[0]
            and not paragraph[0].lstrip().startswith(("-", "*", ">"))
        ):
            source = paragraph.pop()
            title, anchor = _anchor(source)
            parts.append(Heading(1 if setext.group(1)[0] == "=" else 2, title, anchor, f"{source}\n{line}"))
            continue
        if _INCLUDE_MACRO.match(line) or _BLOCK_FENCE.match(line):
            continue
        if not line.strip():
            end_paragraph()
        else:
            paragraph.append(line.rstrip())
    end_paragraph()
    if code:  # an unclosed fence runs to the end of the file, as CommonMark says
        parts.append(("\n".join(code), True))
    outline = _outline(parts, _first(fields, "title"), anchors)
    return ParsedDocument(title=outline.title, sections=outline.sections(), fields=fields, url=_first(fields, "url"))


def image_sources(paragraph: str) -> list[str]:
    """The sources of the images ``paragraph`` shows, in order, as written; none in code spans.

    >>> image_sources('See ![Flow](img/flow.png "The flow") and ![a b](<my chart.png>), `![x](code.png)`.')
    ['img/flow.png', 'my chart.png']
    >>> image_sources('<img alt="Logo" src="logo.png" width=40> [link](page.md) ![](https://x.dev/b.svg)')
    ['logo.png', 'https://x.dev/b.svg']
    """
    found = []
    for match in _IMAGE.finditer(_CODE_SPAN.sub("", paragraph)):
        source = next(group for group in match.groups() if group is not None)
        if source.strip():
            found.append(source.strip())
    return found


def _outline(parts: list[Heading | tuple[str, bool]], title: str | None, anchors: Anchors | None) -> Outline:
    headings = [part for part in parts if isinstance(part, Heading)]
    given = iter(anchors(headings) if anchors and headings else [h.anchor for h in headings])
    outline = Outline(title)
    for part in parts:
        if isinstance(part, Heading):
            outline.heading(part.level, part.text, next(given))
        else:
            outline.block(part[0], code=part[1])
    return outline


def _anchor(heading: str) -> tuple[str, str | None]:
    """A heading's text and the id its trailing attribute list gives, if it has one.

    >>> _anchor("Check it { #check-it }"), _anchor("Plain"), _anchor("Styled {: .wide #styled }"), _anchor("Wide {.wide}")
    (('Check it', 'check-it'), ('Plain', None), ('Styled', 'styled'), ('Wide', None))
    """
    match = _ATTRIBUTES.search(heading)
    if not match:
        return heading.strip(), None
    found = _ID.search(match.group(0).strip())
    return heading[: match.start()].strip(), found.group(1) if found else None


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
