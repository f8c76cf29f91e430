"""Citations as agents actually write them, parsed leniently and labelled by form.

Asked for ``[S3fa21c]``, an agent may write ``[https://…]``, ``[text](https://…)``,
``[source: https://…]``, a bare URL, or the ID without brackets. Each is a
:class:`Mention` with its form, so "cited, but not in the requested form" is told
apart from "not cited". Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Literal

from ..agent.citations import CITATION, ID, URL

Form = Literal["id", "bracket_url", "markdown", "source_label", "bare_url", "bare_id"]
FORMS: tuple[Form, ...] = ("id", "bracket_url", "markdown", "source_label", "bare_url", "bare_id")
# The form each citation style asks for.
REQUESTED: dict[str, Form] = {"ids": "id", "urls": "bracket_url"}

_TARGET = rf"(?:https?://[^\s<>\[\]()\"'`]+|{ID})"
_MARKDOWN = re.compile(r"\[([^\]\n]{0,300})\]\((https?://[^\s)]+)\)")
_LABEL = re.compile(
    rf"[\[(]\s*(?:sources?|refs?|references?|citations?|cite|see)\s*[:：]\s*({_TARGET}(?:\s*[,;]\s*{_TARGET})*)\s*[\])]",
    re.IGNORECASE,
)
_BRACKET_URL = re.compile(r"\[\s*(https?://[^\s\[\]<>]+(?:\s*[,;]\s*https?://[^\s\[\]<>]+)*)\s*\]")
_BARE_ID = re.compile(rf"(?<![\w\[])({ID})(?![\w\]])")
_TRAILING = ".,;:!?)'\""


@dataclass(frozen=True)
class Mention:
    """One cited source: its form, what it points at (an ID or a URL), and where it is in the text."""

    form: Form
    target: str
    start: int
    end: int

    @property
    def is_url(self) -> bool:
        return "://" in self.target


def mentions(text: str, shown_ids: Iterable[str] = ()) -> list[Mention]:
    """Every citation in ``text``, in order.

    A bare ``S3fa21c`` counts only when it is one of ``shown_ids``: without brackets,
    a made-up one cannot be told from an ordinary word.

    >>> [(m.form, m.target) for m in mentions(
    ...     "Use it [S3fa21c, S00beef]. See [docs](https://x.dev/a/). [source: https://x.dev/b] "
    ...     "or [https://x.dev/c], https://x.dev/d. Also S1234ab.", shown_ids={"s1234ab"})]  # doctest: +NORMALIZE_WHITESPACE
    [('id', 'S3fa21c'), ('id', 'S00beef'), ('markdown', 'https://x.dev/a/'), ('source_label', 'https://x.dev/b'),
     ('bracket_url', 'https://x.dev/c'), ('bare_url', 'https://x.dev/d'), ('bare_id', 'S1234ab')]
    """
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    def add(form: Form, pattern: re.Pattern[str], group: int, split: bool) -> None:
        for match in pattern.finditer(text):
            if not free(match.start(), match.end()):
                continue
            taken.append((match.start(), match.end()))
            targets = re.split(r"\s*[,;]\s*", match.group(group).strip()) if split else [match.group(group)]
            found.extend(Mention(form, _clean(t), match.start(), match.end()) for t in targets if t)

    add("markdown", _MARKDOWN, 2, split=False)
    add("source_label", _LABEL, 1, split=True)
    add("bracket_url", _BRACKET_URL, 1, split=True)
    add("id", CITATION, 1, split=True)
    add("bare_url", URL, 0, split=False)
    shown = {s.lower() for s in shown_ids}
    for match in _BARE_ID.finditer(text):
        if match.group(1).lower() in shown and free(match.start(), match.end()):
            found.append(Mention("bare_id", match.group(1), match.start(), match.end()))
    return sorted(found, key=lambda m: m.start)


def _clean(target: str) -> str:
    target = target.strip()
    return target.rstrip(_TRAILING) if "://" in target else target
