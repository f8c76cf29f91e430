"""Channel rankings -> one ranked list: the stages every item kind shares. Pure.

Stages, in order (each a plain function over ranked lists):

1. weighted RRF of the channel rankings (``fusion.rrf``); each weight scaled by the
   channel's coverage, the dense weight by how much of the question the model can
   read, and any channel the kind names by a per-question factor (tables: generated
   descriptions by their novelty, :mod:`novelty`);
2. ``boost``, when the kind has one (tables: foreign-key neighbours rise; chunks: the
   passages of pages the page channel ranks rise);
3. ``pin.pin_first``: items the question names verbatim go first;
4. ``floor.apply_floor``: items the model finds no nearer than unrelated text go,
   unless pinned, matched by a channel the kind trusts, or matching every meaningful
   word of the question; nothing near at all and nothing matched that fully means
   off topic;
5. ``complete``, when the kind has one, cuts to k (tables: bridge tables for joins;
   chunks: at most two passages of a page, the nearest chunk kept), else the first k.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from . import pin
from .floor import Relevance, apply_floor
from .fusion import effective_weights, ranks_of, rrf

# (fused (id, score) pairs, best first) -> re-scored pairs, best first.
Boost = Callable[[list[tuple[str, float]]], list[tuple[str, float]]]
# (final order, k) -> at most about k (id, added) pairs: what the kind adds, and the cut.
Complete = Callable[[list[str], int], list[tuple[str, bool]]]
# (pinned id, its fused score) -> sort key among the pins; without one they keep the given order.
PinOrder = Callable[[str, float], tuple]


@dataclass(frozen=True)
class Fusion:
    """How channel rankings are fused: weights per channel, the RRF constant, coverage scaling."""

    weights: Mapping[str, float]
    rrf_k: float = 5.0
    scale_by_coverage: bool = True


@dataclass(frozen=True)
class Ranked:
    """One item in the final ranking, with its rank in every channel.

    ``added``: not ranked in itself, added by the kind's completion stage (a bridge
    table for a join, the nearest chunk beside pinned ones).
    """

    id: str
    score: float
    channels: dict[str, int | None]
    pinned: bool = False
    added: bool = False


@dataclass(frozen=True)
class Ranking:
    """The final items; ``weights`` and ``rrf_k``: the fusion as it ran for this question
    (each channel's weight after coverage, readability and per-question scaling), so a
    result's score can be read as ``sum(weights[c] / (rrf_k + rank_c))`` plus the kind's boost."""

    ranked: list[Ranked]
    off_topic: bool = False
    dropped: int = 0
    weights: Mapping[str, float] = field(default_factory=dict)
    rrf_k: float = 0.0


def rank(
    rankings: Mapping[str, Sequence[str]],
    fusion: Fusion,
    k: int,
    *,
    coverage: Mapping[str, float] | None = None,
    readable: float = 1.0,
    scales: Mapping[str, float] | None = None,
    boost: Boost | None = None,
    pins: Sequence[str] = (),
    pin_order: PinOrder | None = None,
    relevance: Relevance | None = None,
    evidence: Sequence[str] = (),
    anchors: Collection[str] = (),
    complete: Complete | None = None,
) -> Ranking:
    """Run the stages over channel rankings; keep the top ``k``.

    Args:
        rankings: channel -> item ids, best first (matches only).
        coverage: channel -> share of items it has text for.
        readable: share of the question the embedding model can read; scales the dense weight.
        scales: channel -> a factor on its weight for this question (e.g. its novelty).
        pins: items the question names verbatim, in the order it names them.
        pin_order: a sort key for the pins given their fused score (the kind's say on
            which pinned item comes first); without it they keep the order given.
        relevance: the dense model's view of the question; ``None`` skips the floor.
        evidence: channels whose match keeps an item above the floor on its own.
        anchors: items matching every meaningful word of the question: kept above the
            floor, and the question with them (``floor.apply_floor``).

    >>> rank({"names": ["a.x"], "body": ["a.y", "a.x"]}, Fusion({"body": 1.0}), k=5).ranked[0].id
    'a.y'
    """
    weights = dict(fusion.weights)
    if fusion.scale_by_coverage and coverage:
        weights = effective_weights(weights, coverage)
    if readable < 1.0 and "dense" in weights:
        weights["dense"] *= readable
    for channel, factor in (scales or {}).items():
        if channel in weights:
            weights[channel] *= factor
    scored = rrf(rankings, weights, k=fusion.rrf_k)
    # The weights as they ran, for the channels this collection has (a weight it has no channel for weighs nothing).
    weights = {channel: weights.get(channel, 0.0) for channel in rankings}
    if boost is not None:
        scored = boost(scored)
    score_of = dict(scored)
    order = [item for item, _ in scored]
    pinned = set(pins)
    if pins:
        if pin_order is not None:
            pins = sorted(pins, key=lambda item: pin_order(item, score_of.get(item, 0.0)))
        order = pin.pin_first(order, pins)
    dropped = 0
    if relevance is not None:
        trusted = {item for channel in evidence for item in rankings.get(channel, ())}
        kept, off_topic = apply_floor(order, relevance, pinned, trusted, anchors)
        if off_topic:
            return Ranking([], off_topic=True, dropped=len(order), weights=weights, rrf_k=fusion.rrf_k)
        dropped, order = len(order) - len(kept), kept
    final = complete(order, k) if complete is not None else [(item, False) for item in order[:k]]
    ranks = ranks_of(rankings, [item for item, _ in final])
    return Ranking(
        [Ranked(item, score_of.get(item, 0.0), ranks[item], item in pinned, added) for item, added in final],
        dropped=dropped,
        weights=weights,
        rrf_k=fusion.rrf_k,
    )
