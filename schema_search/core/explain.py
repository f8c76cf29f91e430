"""What a search response says about how it ranked: the fusion as it ran and the distance levels.

Both kinds' responses carry it, so a person (the web page) can read each result against
it: a result's score is ``sum(channel_weights[c] / (rrf_k + rank_c))`` over the channels
that ranked it, plus the kind's boost (tables: foreign-key neighbours), and its distance
means something only next to where unrelated text sits (:mod:`.closeness`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .closeness import Closeness, distance
from .ranking import Ranking


class RankingContext(BaseModel):
    channel_weights: dict[str, float] = Field(
        default_factory=dict,
        description="Each channel's fusion weight for this question (after coverage, readability and novelty "
        "scaling): a result's score is the sum of weight / (rrf_k + rank) over its channels, plus any boost.",
    )
    rrf_k: float | None = Field(None, description="The Reciprocal Rank Fusion constant of this search.")
    unrelated_distance: float | None = Field(
        None,
        description="How near unrelated everyday text comes to the collection's nearest item, as a cosine distance: "
        "a result nearer than this is nearer than unrelated text gets. None without the dense channel.",
    )
    floor_distance: float | None = Field(
        None,
        description="The relevance floor: a result further than this is kept only by a keyword match, a pin or a join.",
    )
    nearest_distance: float | None = Field(
        None, description="The nearest item anywhere in the collection (set when off_topic too)."
    )


def context(ranking: Ranking, closeness: Closeness | None) -> dict[str, Any]:
    """A ``RankingContext``'s fields for one search.

    >>> context(Ranking([], weights={"body": 1.0}, rrf_k=5.0), Closeness({}, floor=0.2, unrelated=0.39, nearest=0.48))
    {'channel_weights': {'body': 1.0}, 'rrf_k': 5.0, 'unrelated_distance': 0.61, 'floor_distance': 0.8, 'nearest_distance': 0.52}
    """
    fields: dict[str, Any] = {
        "channel_weights": {channel: round(w, 6) for channel, w in ranking.weights.items()},
        "rrf_k": ranking.rrf_k,
    }
    if closeness is not None:
        fields |= {
            "unrelated_distance": distance(closeness.unrelated),
            "floor_distance": distance(closeness.floor),
            "nearest_distance": distance(closeness.nearest),
        }
    return fields
