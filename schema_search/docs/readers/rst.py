"""reStructuredText: the ``Key: value`` header block, underlined (and overlined) headings, literal blocks.

Heading levels follow the order in which adornment styles first appear, as in
docutils. Headings start in column 0, so nothing inside an indented literal block
(after ``::`` or a ``.. code-block::`` directive) is ever taken for one. Section
anchors are docutils' ids (``Syntax and semantics`` -> ``syntax-and-semantics``,
or the name of an explicit ``.. _target:`` just above), which is what rendered
pages such as peps.python.org link to. Inline roles are shown as a rendered page
shows them (:pep:`572` -> PEP 572).
"""

from __future__ import annotations

import re
import unicodedata

from ..corpus import ParsedDocument
from .headers import front_matter, header_block, label
from .outline import Outline

_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
_CODE_DIRECTIVE = re.compile(r"^\.\.\s+(code-block|code|sourcecode|highlight|literalinclude|doctest)::")
_DIRECTIVE = re.compile(r"^\.\.\s+[\w:-]+::")
_TARGET = re.compile(r"^\.\.\s+_([^:`]+):\s*$")
_COMMENT = re.compile(r"^\.\.(\s|$)")
_SERIES_ROLE = re.compile(r":(pep|rfc):`(?:[^`<]*<)?(\d+)(?:#[^`>]*)?>?`", re.IGNORECASE)
_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)?:`~?([^`<]*?)\s*(?:<[^`>]*>)?`")


def read_rst(text: str) -> ParsedDocument:
    """Parse reStructuredText into a title, header fields and sections.

    >>> doc = read_rst("PEP: 1\\nTitle: Demo\\n\\nAbstract\\n========\\n\\nShort::\\n\\n  Not\\n  ---\\n\\nMore.\\n")
    >>> doc.title, doc.label, [(s.headings, s.anchor, [b.code for b in s.blocks]) for s in doc.sections]
    ('Demo', 'PEP 1', [(('Abstract',), 'abstract', [False, True, False])])
    """
    fields, body = header_block(text)
    if not fields:
        fields, body = front_matter(text)
    titles = fields.get("Title") or fields.get("title")
    # Without a Title: field, the first heading is the document title, as docutils makes it.
    outline = Outline(titles[0] if titles else None, title_heading=not titles)
    lines = body.replace("\r\n", "\n").split("\n")
    styles: list[tuple[str, bool]] = []
    target: str | None = None
    literal = False  # inside the indented body of a literal block or code directive
    paragraph: list[str] = []

    def end_paragraph() -> None:
        nonlocal literal
        if paragraph:
            joined = "\n".join(paragraph)
            outline.block(_render_roles(joined), code=literal)
            if not literal and joined.rstrip().endswith("::"):
                literal = True
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _heading(lines, i)
        if heading:
            end_paragraph()
            title, style, used = heading
            if style not in styles:
                styles.append(style)
            outline.heading(styles.index(style) + 1, _render_roles(title), target or make_id(title))
            target, literal = None, False
            i += used
            continue
        if not line.strip():
            end_paragraph()
        elif line[:1] not in (" ", "\t"):
            end_paragraph()  # a line back in column 0 ends any literal block
            literal = False
            if _TARGET.match(line):
                target = make_id(_TARGET.match(line).group(1))
            elif _CODE_DIRECTIVE.match(line):
                literal = True
            elif _DIRECTIVE.match(line) or not _COMMENT.match(line):
                paragraph.append(line.rstrip())
        else:
            if paragraph and not literal and _is_literal_start(paragraph):
                end_paragraph()
            paragraph.append(line.rstrip())
        i += 1
    end_paragraph()
    return ParsedDocument(title=outline.title, sections=outline.sections(), fields=fields, label=label(fields))


def make_id(title: str) -> str:
    """docutils' id for a section title or target name.

    >>> make_id("Syntax and semantics"), make_id("Why not `:=`?"), make_id("Über 3.8")
    ('syntax-and-semantics', 'why-not', 'uber-3-8')
    """
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def _heading(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """``(title, (adornment char, overlined), lines used)`` when a heading starts at line ``i``."""
    line = lines[i]
    below = lines[i + 1] if i + 1 < len(lines) else ""
    over = _ADORNMENT.match(line)
    if over and i + 2 < len(lines):
        title, under = lines[i + 1], lines[i + 2]
        if title.strip() and under.strip() == line.strip() and len(line.strip()) >= len(title.strip()):
            return title.strip(), (over.group(1), True), 3
    if line.strip() and line[:1] not in (" ", "\t") and not _ADORNMENT.match(line):
        under = _ADORNMENT.match(below)
        if under and len(below.strip()) >= len(line.strip()) and not _COMMENT.match(line):
            return line.strip(), (under.group(1), False), 2
    return None


def _is_literal_start(paragraph: list[str]) -> bool:
    return paragraph[-1].rstrip().endswith("::") and paragraph[0][:1] not in (" ", "\t")


def _render_roles(text: str) -> str:
    """Inline roles as a rendered page shows them.

    >>> _render_roles("See :pep:`572` and :class:`~typing.Protocol`, :rfc:`the RFC <9457>`.")
    'See PEP 572 and Protocol, RFC 9457.'
    """
    text = _SERIES_ROLE.sub(lambda m: f"{m.group(1).upper()} {m.group(2)}", text)
    return _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if "~" in m.group(0) else m.group(1), text)
