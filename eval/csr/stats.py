"""Bootstrap intervals over questions, and the paired comparison of two configurations. Pure functions.

Questions, not citations, are the unit resampled: a question with five citations is
still one draw of what users ask. Seeds are fixed so a report is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def bootstrap(values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> Interval | None:
    """The mean of ``values`` with a percentile bootstrap 95% interval; None for no values.

    >>> bootstrap([1.0, 1.0, 1.0])
    Interval(mean=1.0, low=1.0, high=1.0, n=3)
    >>> i = bootstrap([0.0, 1.0] * 20); round(i.mean, 2), 0.3 < i.low < 0.5 < i.high < 0.7
    (0.5, True)
    """
    if not values:
        return None
    rng = random.Random(seed)
    n = len(values)
    means = sorted(fmean(rng.choices(values, k=n)) for _ in range(resamples))
    return Interval(fmean(values), means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1], n)


@dataclass(frozen=True)
class Comparison:
    """``a`` minus ``b``, per question, in each run and pooled over runs."""

    a: str
    b: str
    metric: str
    per_run: dict[int, Interval]
    pooled: Interval | None
    robust: bool


def compare(
    a: str, b: str, metric: str, scores_a: dict[int, dict[str, float]], scores_b: dict[int, dict[str, float]]
) -> Comparison:
    """Paired differences over the questions both configurations scored, run by run and pooled.

    ``scores_*`` map run → question → score. Robust means the same sign in every run
    and a pooled interval that excludes 0: one lucky run is not a finding.

    >>> run = {1: {"q1": 1.0, "q2": 1.0, "q3": 0.0}, 2: {"q1": 1.0, "q2": 1.0, "q3": 1.0}}
    >>> low = {1: {"q1": 0.0, "q2": 0.0, "q3": 0.0}, 2: {"q1": 0.0, "q2": 0.0, "q3": 0.0}}
    >>> c = compare("ids", "urls", "csr", run, low); round(c.pooled.mean, 2), c.robust
    (0.83, True)
    """
    per_run: dict[int, Interval] = {}
    pooled: dict[str, list[float]] = {}
    for run in sorted(set(scores_a) & set(scores_b)):
        shared = sorted(set(scores_a[run]) & set(scores_b[run]))
        diffs = [scores_a[run][q] - scores_b[run][q] for q in shared]
        interval = bootstrap(diffs, seed=run)
        if interval is not None:
            per_run[run] = interval
        for q, d in zip(shared, diffs):
            pooled.setdefault(q, []).append(d)
    overall = bootstrap([fmean(ds) for ds in pooled.values()])
    signs = {(i.mean > 0) - (i.mean < 0) for i in per_run.values()}
    robust = bool(overall and overall.excludes_zero() and len(signs) == 1 and 0 not in signs)
    return Comparison(a, b, metric, per_run, overall, robust)
