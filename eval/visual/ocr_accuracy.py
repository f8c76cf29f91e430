"""OCR word accuracy: 1 - word error rate of a page's indexed text against the text drawn on it.

Word error rate (word-level Levenshtein distance: substitutions, insertions, deletions,
over the reference's word count) by jiwer, the maintained WER package. Words are compared
lower-cased with the punctuation at their ends stripped: a comma read as a full stop does
not change what a search finds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import jiwer

_EDGES = re.compile(r"^[^\w]+|[^\w]+$")


def words(text: str) -> list[str]:
    """The words of ``text`` as they are compared.

    >>> words("Core hours: 09:30 to 15:00, Monday.")
    ['core', 'hours', '09:30', 'to', '15:00', 'monday']
    """
    return [w for w in (_EDGES.sub("", token.lower()) for token in text.split()) if w]


def word_accuracy(reference: str, hypothesis: str) -> float:
    """1 - word error rate, floored at 0 (a page read as twice its words of noise scores 0, not below).

    >>> word_accuracy("the daily allowance is 42 euros", "the dally allowance is 42 euros")
    0.8333333333333334
    >>> word_accuracy("some text", "")
    0.0
    """
    ref = words(reference)
    if not ref:
        return 1.0 if not words(hypothesis) else 0.0
    said = words(hypothesis)
    if not said:
        return 0.0
    return max(0.0, 1 - jiwer.wer(" ".join(ref), " ".join(said)))


def joined(texts: Iterable[str]) -> str:
    """Consecutive chunk texts of one section as one text, each chunk's repeat of the last one's
    closing sentences (the chunker's overlap) dropped. A repeat of one word is kept: it is more
    likely the text's own than an overlap.

    >>> joined(["One two. Three four.", "Three four. Five six."])
    'One two. Three four. Five six.'
    """
    kept: list[str] = []
    for text in texts:
        new = text.split()
        longest = min(len(kept), len(new))
        overlap = next((n for n in range(longest, 1, -1) if kept[-n:] == new[:n]), 0)
        kept.extend(new[overlap:])
    return " ".join(kept)
