"""HTML: ``<title>``, ``<meta>`` fields, ``h1``-``h6`` with their ids, paragraphs, and ``<pre>`` as code.

Page furniture (``nav``, ``header``, ``footer``, scripts, styles) is skipped: it is
the same on every page and says nothing about this one.
"""

from __future__ import annotations

from html.parser import HTMLParser

from ..corpus import ParsedDocument
from .outline import Outline

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "header", "footer", "head"}
_BLOCKS = {
    "p",
    "li",
    "dd",
    "dt",
    "td",
    "th",
    "blockquote",
    "div",
    "section",
    "article",
    "main",
    "tr",
    "caption",
    "figcaption",
    "br",
    "table",
    "ul",
    "ol",
    "dl",
    "body",
}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


def read_html(text: str) -> ParsedDocument:
    """Parse an HTML page into a title, ``<meta>`` fields and sections.

    >>> doc = read_html('<title>T</title><meta name="author" content="Ann"><h1>Guide</h1><p>Hi.</p>'
    ...                 '<h2 id="use">Use</h2><pre>x = 1</pre><nav>Home</nav>')
    >>> doc.title, doc.fields, [(s.headings, s.anchor, [b.text for b in s.blocks]) for s in doc.sections]
    ('T', {'author': ('Ann',)}, [((), None, ['Hi.']), (('Use',), 'use', ['x = 1'])])
    """
    parser = _Parser()
    parser.feed(text)
    parser.close()
    parser.end_block()
    return ParsedDocument(
        title=parser.title or parser.outline.title, sections=parser.outline.sections(), fields=parser.fields
    )


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outline = Outline()
        self.fields: dict[str, tuple[str, ...]] = {}
        self.title: str | None = None
        self._skip = 0
        self._in_title = False
        self._heading: tuple[int, str | None] | None = None
        self._pre = 0
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "meta" and attributes.get("content") and (attributes.get("name") or attributes.get("property")):
            key = attributes.get("name") or attributes.get("property") or ""
            self.fields[key] = (*self.fields.get(key, ()), attributes["content"] or "")
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip += 1
        elif self._skip:
            return
        elif tag in _HEADINGS:
            self.end_block()
            self._heading = (_HEADINGS[tag], attributes.get("id"))
        elif tag == "pre":
            self.end_block()
            self._pre += 1
        elif tag in _BLOCKS:
            self.end_block()
        elif tag == "a" and self._heading and not self._heading[1] and (attributes.get("id") or attributes.get("name")):
            self._heading = (self._heading[0], attributes.get("id") or attributes.get("name"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif self._skip:
            return
        elif tag in _HEADINGS and self._heading:
            level, anchor = self._heading
            self.outline.heading(level, "".join(self._text), anchor)
            self._heading, self._text = None, []
        elif tag == "pre":
            self.outline.block("".join(self._text), code=True)
            self._text = []
            self._pre = max(0, self._pre - 1)
        elif tag in _BLOCKS:
            self.end_block()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = ((self.title or "") + data).strip() or None
        elif not self._skip:
            self._text.append(data)

    def end_block(self) -> None:
        if self._heading or self._pre:
            return
        self.outline.block(" ".join("".join(self._text).split()))
        self._text = []
