"""The relevance floor: drop what the embedding model finds no nearer than unrelated text. Pure.

BM25 matches anything that shares a word with the question, and RRF always returns
a ranking, so neither can say "nothing here is about this". The dense model can: a
collection's *unrelated level* is how close everyday sentences come to its items
(``dense.calibrate_floor``). An item no nearer to the question than that is noise,
unless other evidence keeps it (a keyword channel the kind trusts, a pin, or a keyword
match of every word that carries the question's meaning); when not even the nearest
item beats the level and nothing is pinned or matched that completely, the question
is off topic.

The level only means something when the model could read the question: all-MiniLM
has no word pieces for most Han characters, so a Chinese question is mostly
``[UNK]`` to it. Such a question is never judged by the floor.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

# Below this share of known word pieces, cosines say nothing about the question.
MIN_READABLE = 0.5


@dataclass(frozen=True)
class Relevance:
    """What the dense model says about one question.

    Attributes:
        cosines: item id -> cosine with the question (the candidates, and the nearest item).
        floor: the collection's unrelated level: an item must be nearer than this.
        readable: share of the question's word pieces the model knows (1.0: all).
        nearest: the item nearest to the question anywhere in the collection.
        topic_floor: what the nearest item must beat for the question to be on topic
            (default: ``floor``).
    """

    cosines: Mapping[str, float]
    floor: float
    readable: float = 1.0
    nearest: str | None = None
    topic_floor: float | None = None

    @property
    def judges(self) -> bool:
        """Whether the model read enough of the question for the floor to apply."""
        return self.readable >= MIN_READABLE


def apply_floor(
    order: Sequence[str],
    relevance: Relevance,
    pinned: Collection[str] = (),
    evidence: Collection[str] = (),
    anchors: Collection[str] = (),
) -> tuple[list[str], bool]:
    """Items of ``order`` above the floor, pinned, or with keyword evidence; and whether the question is off topic.

    Args:
        evidence: items a keyword channel the kind trusts matched: kept whatever their cosine.
        anchors: items that match every word of the question that carries meaning: kept,
            and they keep the question on topic (a keyword match that complete is
            evidence the dense model's level cannot overrule).

    Off topic: nothing in the collection beats the topic floor, and nothing is pinned or anchored.

    >>> rel = Relevance({"a": 0.6, "b": 0.2, "c": 0.1}, floor=0.3)
    >>> apply_floor(["b", "a", "c"], rel, evidence={"c"})
    (['a', 'c'], False)
    >>> apply_floor(["b", "c"], Relevance({"b": 0.2, "c": 0.1}, floor=0.3), evidence={"b"})
    ([], True)
    >>> apply_floor(["b", "c"], Relevance({"b": 0.2, "c": 0.1}, floor=0.3), anchors={"c"})
    (['c'], False)
    """
    if not relevance.judges:
        return list(order), False
    topic_floor = relevance.floor if relevance.topic_floor is None else relevance.topic_floor
    kept_anyway = set(pinned) | set(anchors)
    if not kept_anyway.intersection(order) and max(relevance.cosines.values(), default=-1.0) <= topic_floor:
        return [], True
    return [
        t for t in order if t in kept_anyway or t in evidence or relevance.cosines.get(t, -1.0) > relevance.floor
    ], False
