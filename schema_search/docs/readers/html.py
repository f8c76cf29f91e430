"""HTML: ``<title>``, ``<meta>`` fields, ``h1``-``h6`` with their ids, paragraphs, and ``<pre>`` as code.

Page furniture (``nav``, ``header``, ``footer``, scripts, styles) is skipped: it is
the same on every page and says nothing about this one.

Parsed by libxml2 (through lxml), which reads any page in one pass and mends what is
broken as browsers do. Python's ``html.parser`` rescanned the rest of the page from every
tag it could not close: 20 KB of ``<a href='`` took 0.76 s, and the time grew with the
square of the size.

Given ``images`` (a list), each ``<img>`` outside the page furniture is appended to it as
``(src, (width, height))`` (its ``width`` and ``height`` attributes in CSS px, ``None``
when it lacks either) and a marker block
(:func:`~schema_search.docs.visual.place.marker` of its index) follows the text block it is
in, for :mod:`schema_search.docs.visual.local_images` to read. Its ``alt`` stays out of the
text, as without ``images``.
"""

from __future__ import annotations

from lxml import etree

from ..corpus import ParsedDocument
from ..visual.place import marker
from .markdown import Images
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
# No network, no entities from outside the page; comments and processing instructions dropped.
_PARSER = etree.HTMLParser(recover=True, no_network=True, remove_comments=True, remove_pis=True)
_UTF8_PARSER = etree.HTMLParser(recover=True, no_network=True, remove_comments=True, remove_pis=True, encoding="utf-8")


def read_html(text: str, images: Images | None = None) -> ParsedDocument:
    """Parse an HTML page into a title, ``<meta>`` fields and sections.

    >>> doc = read_html('<title>T</title><meta name="author" content="Ann"><h1>Guide</h1><p>Hi.</p>'
    ...                 '<h2 id="use">Use</h2><pre>x = 1</pre><nav>Home</nav>')
    >>> doc.title, doc.fields, [(s.headings, s.anchor, [b.text for b in s.blocks]) for s in doc.sections]
    ('T', {'author': ('Ann',)}, [((), None, ['Hi.']), (('Use',), 'use', ['x = 1'])])
    >>> found = []
    >>> doc = read_html('<p>See <img src="a.png" width="400" height="200"> here.</p><p>Next.</p>', found)
    >>> found, [b.text.replace(marker("0"), "<0>") for s in doc.sections for b in s.blocks]
    ([('a.png', (400.0, 200.0))], ['See here.', '<0>', 'Next.'])
    """
    root = _parse(text)
    page = _Page(images)
    if root is not None:
        page.read(root)
    page.end_block()
    return ParsedDocument(title=page.title or page.outline.title, sections=page.outline.sections(), fields=page.fields)


def _parse(text: str) -> etree._Element | None:
    """The page's root element; ``None`` for a page with nothing in it."""
    if not text.strip():
        return None
    try:
        return etree.fromstring(text, _PARSER)
    except ValueError:  # an XHTML page that declares its encoding: libxml2 takes it as bytes only
        return etree.fromstring(text.encode("utf-8"), _UTF8_PARSER)


class _Page:
    def __init__(self, images: Images | None = None) -> None:
        self.images = images
        self._markers: list[str] = []  # images of the block being read, placed after it
        self.outline = Outline()
        self.fields: dict[str, tuple[str, ...]] = {}
        self.title: str | None = None
        self._heading: tuple[int, str | None] | None = None
        self._pre = 0
        self._text: list[str] = []

    def read(self, root: etree._Element) -> None:
        """Walk the page once, in document order: each element's text after its start, its tail after its end."""
        for meta in root.iter("meta"):
            key = meta.get("name") or meta.get("property")
            if key and meta.get("content"):
                self.fields[key] = (*self.fields.get(key, ()), meta.get("content") or "")
        title = root.find(".//title")
        if title is not None:
            self.title = "".join(title.itertext()).strip() or None
        walk = etree.iterwalk(root, events=("start", "end"))
        for event, element in walk:
            tag = element.tag if isinstance(element.tag, str) else ""
            if event == "start":
                if tag in _SKIP:
                    walk.skip_subtree()  # its end event still comes, with the tail that follows it
                    continue
                self.start(tag, element)
                self.data(element.text)
            else:
                if tag not in _SKIP:
                    self.end(tag)
                self.data(element.tail)

    def start(self, tag: str, element: etree._Element) -> None:
        if tag in _HEADINGS:
            self.end_block()
            self._heading = (_HEADINGS[tag], element.get("id"))
        elif tag == "pre":
            self.end_block()
            self._pre += 1
        elif tag in _BLOCKS:
            self.end_block()
        elif tag == "a" and self._heading and not self._heading[1] and (element.get("id") or element.get("name")):
            self._heading = (self._heading[0], element.get("id") or element.get("name"))
        if tag == "img" and self.images is not None and (element.get("src") or "").strip():
            self.images.append(((element.get("src") or "").strip(), _size(element)))
            self._markers.append(marker(str(len(self.images) - 1)))

    def end(self, tag: str) -> None:
        if tag in _HEADINGS and self._heading:
            level, anchor = self._heading
            self.outline.heading(level, "".join(self._text), anchor)
            self._heading, self._text = None, []
        elif tag == "pre":
            self.outline.block("".join(self._text), code=True)
            self._text = []
            self._pre = max(0, self._pre - 1)
        elif tag in _BLOCKS:
            self.end_block()

    def data(self, text: str | None) -> None:
        if text:
            self._text.append(text)

    def end_block(self) -> None:
        if self._heading or self._pre:
            return
        self.outline.block(" ".join("".join(self._text).split()))
        self._text = []
        for block in self._markers:
            self.outline.block(block)
        self._markers = []


def _size(image: etree._Element) -> tuple[float, float] | None:
    """The size an ``<img>`` is shown at, in CSS px, when its attributes give both sides.

    >>> _size(etree.fromstring('<img width="640" height="360px"/>')), _size(etree.fromstring('<img width="50%"/>'))
    ((640.0, 360.0), None)
    """
    sides = [(image.get(name) or "").strip().removesuffix("px") for name in ("width", "height")]
    try:
        width, height = map(float, sides)
    except ValueError:
        return None
    return (width, height) if 0 < width < 1e6 and 0 < height < 1e6 else None
