"""Retrieval metrics over ranked table ids. Pure: lists in, numbers out.

A question usually needs several tables (a join); the headline metric counts it only
when *every* gold table is in the top k, because a SQL writer missing one table of a
join cannot answer.
"""

from __future__ import annotations

from collections.abc import Sequence


def all_gold_recall(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """1.0 when every gold table is in the top ``k``, else 0.0.

    >>> all_gold_recall(["a", "b", "c"], ["a", "c"], 3)
    1.0
    >>> all_gold_recall(["a", "b", "c"], ["a", "c"], 2)
    0.0
    """
    return float(set(gold) <= set(ranked[:k]))


def table_recall(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of the gold tables found in the top ``k``.

    >>> table_recall(["a", "b", "c"], ["a", "c"], 2)
    0.5
    """
    gold = set(gold)
    return len(gold & set(ranked[:k])) / len(gold) if gold else 1.0


def reciprocal_rank(ranked: Sequence[str], gold: Sequence[str]) -> float:
    """1 / the rank of the first gold table in ``ranked``; 0.0 when none is there.

    >>> reciprocal_rank(["x", "a", "c"], ["c", "a"])
    0.5
    """
    gold = set(gold)
    return next((1.0 / rank for rank, table in enumerate(ranked, 1) if table in gold), 0.0)


def percentile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (``0 < q <= 100``); 0.0 for no samples.

    >>> percentile([5, 1, 4, 2, 3], 50)
    3
    >>> percentile(list(range(1, 101)), 99)
    99
    """
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[int(rank) - 1]


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0.0 for no values.

    >>> mean([1, 2])
    1.5
    """
    return sum(values) / len(values) if values else 0.0
