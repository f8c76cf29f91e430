"""How a question says what SQL writes: whole words, stated ranges, the text of a pattern.

Pure functions over strings: the checklist (:mod:`.lookup`) asks whether the user's words
name a value, and the probe (:mod:`.probe`) what text a pattern looks for.
"""

from __future__ import annotations

import re

# What is wildcard, not text, in each kind of pattern.
WILDCARDS = {
    "like": r"[%_]+",
    "ilike": r"[%_]+",
    "glob": r"[*?\[\]]+",
    "similar to": r"[%_|*+?(){}\[\]]+",
    "regexp": r"[.^$*+?(){}\[\]|\\]+",
    "iregexp": r"[.^$*+?(){}\[\]|\\]+",
}


# How a question says each range, before its number ("more than 20") or after it ("20 or more").
_RANGE_BEFORE = {
    ">": r"more than|over|above|greater than|higher than|larger than|bigger than|exceeding|in excess of",
    ">=": r"at least|no less than|not less than|a minimum of|min\.?",
    "<": r"less than|fewer than|under|below|lower than|smaller than|cheaper than|beneath",
    "<=": r"at most|no more than|not more than|up to|a maximum of|max\.?",
}
_RANGE_AFTER = {">=": r"or more|or above|or higher|and up|and above|\+", "<=": r"or less|or fewer|or below|or lower"}


def states_range(question: str, operator: str, literal: str) -> bool:
    """Whether the question says this comparison of a number in words.

    A unit or currency may stand between the words and the number ("over $20", "under 20 euros").

    >>> states_range("Which products cost more than 20 euros?", ">", "20")
    True
    >>> states_range("Products rated 4 or more", ">=", "4"), states_range("Products rated 4 or more", ">", "4")
    (True, False)
    >>> states_range("Orders over 20", ">", "200"), states_range("Orders of 20", ">", "20")
    (False, False)
    """
    if not re.fullmatch(r"-?\d+(?:\.\d+)?", literal.strip()):
        return False
    number = re.escape(literal.strip())
    unit = r"(?:[$€£]\s*)?"
    before, after = _RANGE_BEFORE.get(operator), _RANGE_AFTER.get(operator)
    said = before is not None and re.search(rf"(?<!\w)(?:{before})\s+{unit}{number}(?![\d.])", question, re.IGNORECASE)
    return bool(
        said
        or (after is not None and re.search(rf"(?<![\w.]){number}(?:\s*\w+)?\s*(?:{after})", question, re.IGNORECASE))
    )


def mentions(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words, any case, any spacing.

    >>> mentions("Revenue of ACME  gmbh?", "Acme GmbH"), mentions("Acmeville", "Acme"), mentions("x", " ")
    (True, False, False)
    """
    words = phrase.split()
    if not words:
        return False
    pattern = r"\s+".join(re.escape(w) for w in words)
    return re.search(rf"(?<!\w){pattern}(?!\w)", text or "", re.IGNORECASE) is not None


def pattern_text(pattern: str, operator: str = "like") -> list[str]:
    """The plain pieces of a pattern (LIKE, GLOB, SIMILAR TO, a regular expression), the words a question would use.

    >>> pattern_text("%Acme%"), pattern_text("Acme_%Ltd"), pattern_text("Acme G*", "glob"), pattern_text("^Acme (Ltd|GmbH)$", "regexp")
    (['Acme'], ['Acme', 'Ltd'], ['Acme G'], ['Acme ', 'Ltd', 'GmbH'])
    """
    wildcards = WILDCARDS.get(operator.removeprefix("not ").strip(), r"[%_]+")
    return [piece for piece in re.split(wildcards, pattern) if piece.strip()]


def with_operator(operator: str, literal: str) -> str:
    """A value slot's value: its literal with the comparison that uses it, as an approval binds it.

    >>> with_operator("=", "paid"), with_operator("<>", "paid"), with_operator("like", "%Acme%")
    ('= paid', '<> paid', 'LIKE %Acme%')
    """
    word = operator.upper() if operator[:1].isalpha() else operator
    return f"{word} {literal}"
