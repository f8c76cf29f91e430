"""A figure's section among the text sections around it.

A reader walks its file top to bottom and, where a figure is, leaves a marker block in the
section it is writing; once the figures are read (in the child, later, some perhaps not
at all) :func:`place` cuts that section at each marker: its text above, the figure's own
section (the heading path and ``Figure K`` below it, same anchor), its text below. A marker
whose figure was not read (decoration, no words found, out of time) just disappears.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ..corpus import Block, Derived, Section

# A private-use character: no text a reader takes from a file is read as a marker.
_MARK = "\ue000"


@dataclasses.dataclass(frozen=True)
class Insert:
    """What a figure (or a scanned page) says: a heading, its text, and how it was read."""

    title: str
    text: str
    derived: Derived


def marker(key: str) -> str:
    """The block a reader leaves where figure ``key`` is.

    >>> marker("p2-1") == "\\ue000figure p2-1\\ue000"
    True
    """
    return f"{_MARK}figure {key}{_MARK}"


def place(sections: tuple[Section, ...], inserts: Mapping[str, Insert]) -> tuple[Section, ...]:
    """``sections`` cut at their markers, each read figure's section between the halves.

    >>> before, after = Block("Text above."), Block("Text below.")
    >>> page = Section(("Page 2",), "page=2", (before, Block(marker("a")), after, Block(marker("b"))))
    >>> read = Insert("Figure 1", "Ingest -> Warehouse", Derived("figure", 2, "ocr", 0.9))
    >>> [(s.headings, [b.text for b in s.blocks], s.derived is not None) for s in place((page,), {"a": read})]
    [(('Page 2',), ['Text above.'], False), (('Page 2', 'Figure 1'), ['Ingest -> Warehouse'], True), (('Page 2',), ['Text below.'], False)]
    """
    placed: list[Section] = []
    for section in sections:
        run: list[Block] = []
        for block in section.blocks:
            key = _key(block.text)
            if key is None:
                run.append(block)
                continue
            insert = inserts.get(key)
            if insert is None:
                continue
            if run:
                placed.append(dataclasses.replace(section, blocks=tuple(run)))
                run = []
            placed.append(
                Section(section.headings + (insert.title,), section.anchor, (Block(insert.text),), insert.derived)
            )
        if run:
            placed.append(dataclasses.replace(section, blocks=tuple(run)))
    return tuple(placed)


def _key(text: str) -> str | None:
    """The figure key of a marker block, ``None`` for any other text.

    >>> _key(marker("7")), _key("figure 7")
    ('7', None)
    """
    if text.startswith(_MARK + "figure ") and text.endswith(_MARK) and len(text) > 9:
        return text[len(_MARK) + 7 : -len(_MARK)]
    return None
