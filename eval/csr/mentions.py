"""Citations as agents actually write them, parsed leniently and labelled by form.

Asked for ``[S3fa21c]``, an agent may write ``[https://…]``, ``[text](https://…)``,
``[source: https://…]``, a bare URL, or the ID without brackets. Each is a
:class:`Mention` with its form, so "cited, but not in the requested form" is told
apart from "not cited". Code (fenced blocks and inline spans) is not searched: a
``http://127.0.0.1:8000/docs`` in an example is not a citation. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Form = Literal["id", "bracket_url", "markdown", "source_label", "bare_url", "bare_id"]
FORMS: tuple[Form, ...] = ("id", "bracket_url", "markdown", "source_label", "bare_url", "bare_id")
# The form each citation style asks for.
REQUESTED: dict[str, Form] = {"ids": "id", "urls": "bracket_url"}

# A passage ID as written, lower case too (a model may lower-case a copied ID), cut short
# or padded; four or more hex digits, so a word in brackets ("[Seed]", "[Tab]") is not one.
_ANY_ID = r"[Ss][0-9a-fA-F]{4,16}"
# A URL may hold balanced parentheses (…/Foo_(bar)); a closing one without its pair ends it,
# and so does CJK punctuation ("详见https://x.dev/a。").
_URL = r"https?://(?:[^\s()<>\[\]\"'`\u3000-\u303f\uff00-\uffef]|\([^\s()<>\[\]]*\))+"
_PART = rf"(?:{_URL}|{_ANY_ID})"
_MARKDOWN = re.compile(rf"\[([^\]\n]{{0,300}})\]\(\s*({_URL})(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_LABEL = re.compile(
    rf"[\[(]\s*(?:sources?|refs?|references?|citations?|cite|see)\s*[:：]\s*({_PART}(?:\s*[,;]\s*{_PART})*)\s*[\])]",
    re.IGNORECASE,
)
# One bracket may cite several sources, IDs and URLs mixed: [S3fa21c, https://x.dev/a].
_BRACKET = re.compile(rf"\[\s*({_PART}(?:\s*[,;]\s*{_PART})*)\s*\]")
_BARE_URL = re.compile(_URL)
_BARE_ID = re.compile(rf"(?<![\w\[])({_ANY_ID})(?![\w\]])")
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.S)
_TRAILING = ".,;:!?'\"*~"  # sentence punctuation, and markdown emphasis (**https://...**)


@dataclass(frozen=True)
class Mention:
    """One cited source: its form, what it points at (an ID or a URL), and where it is in the text."""

    form: Form
    target: str
    start: int
    end: int
    label: str = ""  # a markdown link's text: part of the sentence, not of the citation

    @property
    def is_url(self) -> bool:
        return "://" in self.target


def mentions(text: str, shown_ids: Iterable[str] = ()) -> list[Mention]:
    """Every citation in ``text``, in order.

    A bare ``S3fa21c`` counts only when it is one of ``shown_ids``: without brackets,
    a made-up one cannot be told from an ordinary word.

    >>> [(m.form, m.target) for m in mentions(
    ...     "Use it [S3fa21c, https://x.dev/e]. See [docs](https://x.dev/a/). [source: https://x.dev/b] "
    ...     "or [https://x.dev/c], https://x.dev/d. Also S1234ab, not `http://127.0.0.1:8000`.",
    ...     shown_ids={"s1234ab"})]  # doctest: +NORMALIZE_WHITESPACE
    [('id', 'S3fa21c'), ('bracket_url', 'https://x.dev/e'), ('markdown', 'https://x.dev/a/'),
     ('source_label', 'https://x.dev/b'), ('bracket_url', 'https://x.dev/c'), ('bare_url', 'https://x.dev/d'),
     ('bare_id', 'S1234ab')]
    >>> [m.target for m in mentions("[w](https://en.wikipedia.org/wiki/Foo_(bar) 'x') (https://x.dev/Foo_(bar)).")]
    ['https://en.wikipedia.org/wiki/Foo_(bar)', 'https://x.dev/Foo_(bar)']
    """
    # Code is blanked out, not removed, so positions stay those of the original text.
    searched = _CODE.sub(lambda m: " " * len(m.group(0)), text)
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    def add(pattern: re.Pattern[str], group: int, form_of) -> None:
        for match in pattern.finditer(searched):
            if not free(match.start(), match.end()):
                continue
            taken.append((match.start(), match.end()))
            label = match.group(1) if pattern is _MARKDOWN else ""
            for target in re.split(r"\s*[,;]\s*", match.group(group).strip()):
                if target:
                    found.append(Mention(form_of(target), clean(target), match.start(), match.end(), label))

    add(_MARKDOWN, 2, lambda t: "markdown")
    add(_LABEL, 1, lambda t: "source_label")
    add(_BRACKET, 1, lambda t: "bracket_url" if "://" in t else "id")
    add(_BARE_URL, 0, lambda t: "bare_url")
    shown = {s.lower() for s in shown_ids}
    for match in _BARE_ID.finditer(searched):
        if match.group(1).lower() in shown and free(match.start(), match.end()):
            found.append(Mention("bare_id", match.group(1), match.start(), match.end()))
    return sorted(found, key=lambda m: m.start)


def clean(target: str) -> str:
    """A cited ID or URL without what the sentence put around it: trailing punctuation, emphasis, a closing parenthesis.

    >>> clean("https://x.dev/a)."), clean("https://x.dev/Foo_(bar)"), clean(" S3fa21c ")
    ('https://x.dev/a', 'https://x.dev/Foo_(bar)', 'S3fa21c')
    """
    target = target.strip()
    if "://" not in target:
        return target
    target = target.rstrip(_TRAILING)
    # A closing parenthesis that belongs to the sentence, not the URL: "(see https://x.dev/a)".
    while target.endswith(")") and target.count(")") > target.count("("):
        target = target[:-1].rstrip(_TRAILING)
    return target
