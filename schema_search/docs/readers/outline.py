"""Sections out of a walk through a document: the heading stack every reader keeps."""

from __future__ import annotations

from ..corpus import Block, Section


class Outline:
    """Collects sections while a reader walks a document top to bottom.

    With ``title_heading`` (Markdown, HTML), the first level-1 heading, before any
    other heading, is the page's title: it becomes the title when the document has
    none yet (front matter may give one) and never enters a heading path. Without it
    (a PEP's ``Title:`` header, a DOCX title), every heading is a section. The text
    before the first section heading is a section with an empty heading path.

    >>> o = Outline()
    >>> o.heading(1, "Guide"); o.block("Intro."); o.heading(2, "Install", "install"); o.block("pip it.")
    >>> o.heading(3, "Linux"); o.block("apt."); o.heading(2, "Use"); o.block("run.")
    >>> o.title, [(s.headings, s.anchor) for s in o.sections()]
    ('Guide', [((), None), (('Install',), 'install'), (('Install', 'Linux'), None), (('Use',), None)])
    """

    def __init__(self, title: str | None = None, title_heading: bool = True) -> None:
        self.title = title
        self._stack: list[tuple[int, str]] = []
        self._anchor: str | None = None
        self._blocks: list[Block] = []
        self._sections: list[Section] = []
        self._seen_title = not title_heading

    def heading(self, level: int, text: str, anchor: str | None = None) -> None:
        text = " ".join(text.split())
        if not text:
            return
        if level == 1 and not self._stack and not self._sections and not self._seen_title:
            self._seen_title = True
            self.title = self.title or text
            return
        self._flush()
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        self._anchor = anchor

    def block(self, text: str, code: bool = False) -> None:
        if text.strip():
            self._blocks.append(Block(text.strip("\n") if code else text.strip(), code))

    def sections(self) -> tuple[Section, ...]:
        self._flush()
        return tuple(self._sections)

    def _flush(self) -> None:
        if self._blocks:
            headings = tuple(text for _, text in self._stack)
            self._sections.append(Section(headings, self._anchor, tuple(self._blocks)))
        self._blocks = []
