"""How near a question is to its results, next to how near unrelated text gets. Pure.

A cosine distance alone says little: with all-MiniLM, 0.52 is a strong hit in a
collection where unrelated everyday text comes no nearer than 0.61, and noise in one
where it comes to 0.45. So every result's distance travels with the collection's
levels (``dense.DenseIndex``): where unrelated text sits at its nearest (the level a
question's nearest item must beat to be on topic), and the relevance floor (the level
an item must beat to count as a dense match on its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Closeness:
    """Cosines of some items with one question, and the collection's levels, as cosines.

    Attributes:
        cosines: item id -> cosine with the question.
        floor: the relevance floor (``DenseIndex.floor``).
        unrelated: how near unrelated text comes to its nearest item (``DenseIndex.nearest_floor``).
        nearest: the cosine of the item nearest the question anywhere in the collection.
    """

    cosines: Mapping[str, float]
    floor: float
    unrelated: float
    nearest: float | None

    def distance(self, item: str) -> float | None:
        """``item``'s distance, or None when it has no vector."""
        return distance(self.cosines.get(item))


def distance(cosine: float | None) -> float | None:
    """Cosine distance, rounded for the wire.

    >>> distance(0.48), distance(None)
    (0.52, None)
    """
    return None if cosine is None else round(1.0 - cosine, 4)
