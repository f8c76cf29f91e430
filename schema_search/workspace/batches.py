"""The next batch: a repeat search in the same conversation turn gets the rest of the first one's ranking.

An agent that searches again in the same turn has read what it was given; the same passages
again tell it nothing, and it digs forever. The first search of a turn (a request that names
its ``session`` and ``turn``) ranks a wider pool, ``POOL`` times k, once: it shows the first k
and keeps the rest here. A repeat in that turn (the same question, or nearly: ``NEAR`` of its
words shared) gets the next k of that same ranking, marked ``batch: 2``, with no second
ranking and no second relevance pass. Once per turn: a search after that is a search as
usual, since "the same results again" is itself a signal. Kept in this process's memory only,
the least recently used turns dropped past ``limit``; nothing reaches disk.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

# How many times k the first search of a turn ranks, to have a next batch to give.
POOL = 3
# Two questions are one when they share this share of their words (Jaccard).
NEAR = 0.8
_WORD = re.compile(r"\w+")


def words(question: str) -> frozenset[str]:
    """A question's words, lower-cased: what two asks of one question share.

    >>> sorted(words("How do I test it?"))
    ['do', 'how', 'i', 'it', 'test']
    """
    return frozenset(_WORD.findall(question.lower()))


def same_question(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two questions are one asked again (``NEAR`` of their words shared).

    >>> same_question(words("how do I declare query parameters?"), words("How do I declare query parameters"))
    True
    >>> same_question(words("how do I declare query parameters?"), words("how do I declare cookies?"))
    False
    """
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= NEAR


@dataclass
class Turn:
    """A turn's first search: its question's words, the response it gave, and the ranked results it kept back."""

    words: frozenset[str]
    response: Any
    rest: list = field(default_factory=list)
    served: bool = False


class Batches:
    """The turns of the conversations searched in this process, by ``(source, session, turn)``."""

    def __init__(self, limit: int = 1000) -> None:
        self._turns: OrderedDict[tuple[str, str, str], Turn] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def repeat(self, key: tuple[str, str, str], question: frozenset[str]) -> Turn | None:
        """The turn ``question`` repeats, not yet given its next batch (then marked given), else None."""
        with self._lock:
            turn = self._turns.get(key)
            if turn is None or turn.served or not same_question(turn.words, question):
                return None
            turn.served = True
            self._turns.move_to_end(key)
            return turn

    def keep(self, key: tuple[str, str, str], turn: Turn) -> None:
        with self._lock:
            self._turns[key] = turn
            self._turns.move_to_end(key)
            while len(self._turns) > self._limit:
                self._turns.popitem(last=False)
