"""Run named configurations over a benchmark: figures per configuration, per database, timed.

    with prepare(benchmark, POOLED, distractors) as prepared:
        run = evaluate(prepared)
    run.to_json()   # the --json shape

Preparing (indexing, embedding) is kept apart from evaluating so a caller can run the
same prepared catalogs twice, e.g. before and after breaking the ranking on purpose.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from schema_search import __version__
from schema_search.settings import Settings

from ..metrics import all_gold_recall, mean, percentile, reciprocal_rank, table_recall
from .benchmarks import PER_DB, POOLED, Benchmark, Database, pooled
from .configs import Config, ConfigBuilder

KS = (1, 5, 10, 20)
# Wraps a sequence while it is worked through (a progress bar): (items, label) -> items.
Progress = Callable[[Sequence, str], Iterable]


@dataclass
class ConfigResult:
    """All figures of one configuration. ``per_db``: db_id -> all-gold recall at each k."""

    config: str
    recall: dict[int, float]
    table_recall: dict[int, float]
    mrr: float
    mean_candidates: float
    p50_ms: float
    p99_ms: float
    per_db: dict[str, dict[int, float]] = field(default_factory=dict)


@dataclass
class EvalRun:
    benchmark: str
    condition: str
    tables: int
    questions: int
    ks: tuple[int, ...]
    results: list[ConfigResult]
    databases: dict[str, tuple[int, int]]  # db_id -> (tables, questions)
    distractors: list[str] = field(default_factory=list)
    evidence: bool = False
    version: str = __version__

    @property
    def headline_k(self) -> int:
        return headline_k(self.ks)

    def result(self, config: str) -> ConfigResult | None:
        return next((r for r in self.results if r.config == config), None)

    def to_json(self) -> dict:
        """The ``--json`` shape other tools read."""
        k = self.headline_k
        return {
            "benchmark": self.benchmark,
            "condition": self.condition,
            "tables": self.tables,
            "questions": self.questions,
            "version": self.version,
            "results": [
                {
                    "config": r.config,
                    **{f"recall@{n}": round(r.recall[n], 4) for n in self.ks},
                    f"table_recall@{k}": round(r.table_recall[k], 4),
                    "mrr": round(r.mrr, 4),
                    "mean_candidates": round(r.mean_candidates, 2),
                    "p50_ms": round(r.p50_ms, 3),
                    "p99_ms": round(r.p99_ms, 3),
                }
                for r in self.results
            ],
        }


def headline_k(ks: Sequence[int]) -> int:
    """The k of table recall, mean candidates and the per-database breakdown: 10, if asked.

    >>> headline_k([1, 5, 10, 20]), headline_k([3, 7])
    (10, 7)
    """
    return 10 if 10 in ks else max(ks)


@dataclass
class Prepared:
    benchmark: Benchmark
    condition: str
    tables: int
    configs_by_db: dict[str, dict[str, Config]]
    distractors: list[str]

    @property
    def config_names(self) -> list[str]:
        return list(next(iter(self.configs_by_db.values()), {}))


@contextmanager
def prepare(
    benchmark: Benchmark,
    condition: str = POOLED,
    distractors: Sequence[Database] = (),
    configs: Sequence[str] | None = None,
    settings: Settings | None = None,
    distractor_names: Sequence[str] = (),
) -> Iterator[Prepared]:
    """Index the catalogs of ``condition`` in a scratch directory and build the configurations.

    Args:
        condition: ``pooled`` (one catalog: the benchmark plus ``distractors``) or
            ``per-db`` (one catalog per database; distractors play no part).
        configs: configuration names (default: every one available).
    """
    if condition not in (POOLED, PER_DB):
        raise ValueError(f"unknown condition {condition!r}")
    with tempfile.TemporaryDirectory(prefix="schema-search-eval-") as home:
        builder = ConfigBuilder(settings or Settings(), Path(home), configs)
        if condition == POOLED:
            databases = pooled(benchmark, distractors)
            shared = builder.build("pooled", databases)
            by_db = {d.db_id: shared for d in benchmark.databases}
            tables = sum(len(d.tables) for d in databases)
        else:
            by_db = {d.db_id: builder.build(f"db-{i:04d}", [d]) for i, d in enumerate(benchmark.databases)}
            tables = benchmark.tables
        yield Prepared(benchmark, condition, tables, by_db, list(distractor_names) if condition == POOLED else [])


def evaluate(prepared: Prepared, ks: Sequence[int] = KS, progress: Progress | None = None) -> EvalRun:
    """Ask every question of every configuration; figures at each k in ``ks``."""
    ks = tuple(sorted(set(ks)))
    benchmark = prepared.benchmark
    questions = benchmark.questions
    results = []
    for name in prepared.config_names:
        items = progress(questions, name) if progress else questions
        results.append(_evaluate_config(name, prepared.configs_by_db, list(items), ks))
    asked: dict[str, int] = {}
    for q in questions:
        asked[q.db_id] = asked.get(q.db_id, 0) + 1
    return EvalRun(
        benchmark=benchmark.name,
        condition=prepared.condition,
        tables=prepared.tables,
        questions=len(questions),
        ks=ks,
        results=results,
        databases={d.db_id: (len(d.tables), asked.get(d.db_id, 0)) for d in benchmark.databases},
        distractors=prepared.distractors,
        evidence=any(q.has_evidence for q in questions),
    )


def _evaluate_config(name: str, configs_by_db: dict[str, dict[str, Config]], questions, ks) -> ConfigResult:
    k_main = headline_k(ks)
    if questions:  # warm up: the first call may load or compile lazily
        configs_by_db[questions[0].db_id][name].rank(questions[0].text, max(ks))
    recall = {k: [] for k in ks}
    tables = {k: [] for k in ks}
    rr, returned, timings = [], [], []
    per_db: dict[str, dict[int, list[float]]] = {}
    for question in questions:
        config = configs_by_db[question.db_id][name]
        lists, returned_main, ms = _rank(config, question.text, ks, k_main)
        timings.append(ms)
        returned.append(returned_main)
        db = per_db.setdefault(question.db_id, {k: [] for k in ks})
        for k in ks:
            # Only the first k count, even where a stage returned more (a bridge table).
            hit = all_gold_recall(lists[k], question.gold, k)
            recall[k].append(hit)
            db[k].append(hit)
            tables[k].append(table_recall(lists[k], question.gold, k))
        rr.append(reciprocal_rank(lists[max(ks)][: max(ks)], question.gold))
    return ConfigResult(
        config=name,
        recall={k: mean(v) for k, v in recall.items()},
        table_recall={k: mean(v) for k, v in tables.items()},
        mrr=mean(rr),
        mean_candidates=mean(returned),
        p50_ms=percentile(timings, 50),
        p99_ms=percentile(timings, 99),
        per_db={db: {k: mean(v) for k, v in by_k.items()} for db, by_k in per_db.items()},
    )


def _rank(config: Config, text: str, ks: Sequence[int], k_main: int) -> tuple[dict[int, list[str]], int, float]:
    """The ranking at each k, how many came back at the headline k, and that call's ms.

    The timed call is the first for the question, so caches warmed by later calls for
    other ks do not flatter it.
    """
    if config.prefix:
        started = time.perf_counter()
        ranked = config.rank(text, max(ks))
        ms = (time.perf_counter() - started) * 1000
        return {k: ranked[:k] for k in ks}, len(ranked[:k_main]), ms
    started = time.perf_counter()
    lists = {k_main: config.rank(text, k_main)}
    ms = (time.perf_counter() - started) * 1000
    for k in ks:
        if k not in lists:
            lists[k] = config.rank(text, k)
    return lists, len(lists[k_main]), ms


def run_eval(
    benchmark: Benchmark,
    condition: str = POOLED,
    distractors: Sequence[Database] = (),
    configs: Sequence[str] | None = None,
    ks: Sequence[int] = KS,
    settings: Settings | None = None,
    progress: Progress | None = None,
    distractor_names: Sequence[str] = (),
) -> EvalRun:
    """Prepare and evaluate in one go."""
    with prepare(benchmark, condition, distractors, configs, settings, distractor_names) as prepared:
        return evaluate(prepared, ks, progress)
