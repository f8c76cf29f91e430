"""Numbers an answer states that none of its sources contains: what a reviewer checks first."""

from __future__ import annotations

import re
from collections.abc import Iterable

# 5, 9, 2024-11-03 (as its parts), 3.5, 1,200, 20%: digits, with inner separators.
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
# What is not a statement of the answer: citation marks ([W1], [S3fa21c]), URLs, placeholders.
_NOT_STATED = re.compile(r"\[[A-Za-z]+[0-9a-fA-F]*\]|https?://\S+|\{\{[^}]*\}\}")


def unsourced_numbers(answer: str, sources: Iterable[str]) -> list[str]:
    """The numbers of ``answer`` that appear in none of ``sources``, in order, once each.

    >>> unsourced_numbers("Valid for 5 years; renew 9 months before [W1].", ["valid for 5 years"])
    ['9']
    >>> unsourced_numbers("It costs 1,200 EUR (see https://x.example/2024).", ["Price: 1,200 EUR."])
    []
    """
    known = {number for text in sources for number in NUMBER.findall(text)}
    stated = NUMBER.findall(_NOT_STATED.sub(" ", answer))
    return [n for n in dict.fromkeys(n.rstrip(".,") for n in stated) if n not in known]
