"""Reciprocal Rank Fusion, weighted. Pure: ranked lists in, one ranked list out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: float = 60.0,
) -> list[tuple[str, float]]:
    """Fuse rankings: each item scores ``sum(weight_c / (k + rank_c))`` over channels.

    Ranks start at 1. Without ``weights`` every channel weighs 1; with them, a channel
    they leave out weighs 0. A channel with weight 0, or that matched nothing,
    contributes nothing. Ties keep the order in
    which items were first seen, channel by channel, so the result is deterministic.

    Args:
        rankings: channel name -> item ids, best first, each id at most once.
        weights: channel name -> weight.
        k: the RRF constant; larger flattens the difference between ranks.

    Returns:
        ``(item, score)`` pairs, best first.

    >>> fused = rrf({"a": ["x", "y"], "b": ["y"]}, k=60)
    >>> [(item, round(score, 5)) for item, score in fused]  # y: 1/62 + 1/61, x: 1/61
    [('y', 0.03252), ('x', 0.01639)]
    """
    scores: dict[str, float] = {}
    for channel, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(channel, 0.0)
        if weight <= 0:
            continue
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    # sorted() is stable, so equal scores keep first-seen order.
    return sorted(scores.items(), key=lambda pair: -pair[1])


def ranks_of(rankings: Mapping[str, Sequence[str]], items: Sequence[str]) -> dict[str, dict[str, int | None]]:
    """Each item's 1-based rank in every channel, ``None`` where it did not match.

    >>> ranks_of({"a": ["x", "y"], "b": ["y"]}, ["x"])
    {'x': {'a': 1, 'b': None}}
    """
    positions = {channel: {item: rank for rank, item in enumerate(ranking, 1)} for channel, ranking in rankings.items()}
    return {item: {channel: positions[channel].get(item) for channel in rankings} for item in items}


def effective_weights(weights: Mapping[str, float], coverage: Mapping[str, float]) -> dict[str, float]:
    """Scale each channel's weight by the share of items it has any text for.

    A channel that sees only a few items (comments on 16% of a catalog's tables) ranks
    those few first for any question that grazes them; RRF would then lift them above
    the items that really match. Scaling by coverage lets a sparse channel speak in
    proportion to what it can see. Channels without a coverage figure keep their weight.

    >>> effective_weights({"text": 1.0, "body": 1.0}, {"text": 0.25, "body": 1.0})
    {'text': 0.25, 'body': 1.0}
    """
    return {channel: w * coverage.get(channel, 1.0) for channel, w in weights.items()}
