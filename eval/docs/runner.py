"""Ask every question set of every configuration: page recall, MRR, latency, off-topic behaviour.

Page recall@k is all-gold: a question counts when every gold page is among the
first k distinct pages of a deep ranking. Passage recall@k reads what a search
returns at k instead: every gold page among the pages of its k passages (a page's
third passage spends a place another page needed). Budget recall@B: every gold page
among the passages that fit B tokens (context header and text, the embedding
model's word pieces), taken in the order returned: the context an agent is handed.

Questions without gold pages measure off-topic behaviour only: the share a
configuration flags ``off_topic`` (peers never do). Answerable questions flagged
``off_topic`` count as misses, and their share is reported too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..metrics import all_gold_recall, mean, percentile, reciprocal_rank
from .configs import DocsConfig
from .questions import QuestionSet

KS = (1, 3, 5, 10)
BUDGETS = (500, 1000, 2000)
# Passages asked for to fill the largest budget.
BUDGET_DEPTH = 40


@dataclass
class SetResult:
    """One configuration on one question set."""

    config: str
    questions: int
    recall: dict[int, float]
    mrr: float
    p50_ms: float
    p99_ms: float
    unanswerable: int = 0
    flagged_off_topic: float | None = None  # share of unanswerable questions flagged off topic
    false_off_topic: float = 0.0  # share of answerable questions flagged off topic
    misses: list[str] = field(default_factory=list)
    by_kind: dict[str, dict[int, float]] = field(
        default_factory=dict
    )  # kind -> recall at each k, when a set mixes kinds
    passage_recall: dict[int, float] = field(default_factory=dict)  # k -> all gold among the k passages returned
    budget_recall: dict[int, float] = field(default_factory=dict)  # tokens -> all gold among passages that fit
    pages_in_passages: float | None = None  # mean distinct pages among the max(k) passages returned


@dataclass
class DocsEvalRun:
    corpus: str
    documents: int
    chunks: int
    ks: tuple[int, ...]
    sets: dict[str, list[SetResult]]

    def to_json(self) -> dict:
        return {
            "corpus": self.corpus,
            "documents": self.documents,
            "chunks": self.chunks,
            "sets": {
                name: [
                    {
                        "config": r.config,
                        "questions": r.questions,
                        **{f"page_recall@{k}": round(r.recall[k], 4) for k in self.ks},
                        "mrr": round(r.mrr, 4),
                        "p50_ms": round(r.p50_ms, 3),
                        "p99_ms": round(r.p99_ms, 3),
                        "unanswerable": r.unanswerable,
                        "flagged_off_topic": None if r.flagged_off_topic is None else round(r.flagged_off_topic, 4),
                        "false_off_topic": round(r.false_off_topic, 4),
                        **{f"passage_recall@{k}": round(v, 4) for k, v in r.passage_recall.items()},
                        **{f"budget_recall@{b}": round(v, 4) for b, v in r.budget_recall.items()},
                        **(
                            {}
                            if r.pages_in_passages is None
                            else {f"pages_in_{max(self.ks)}_passages": round(r.pages_in_passages, 2)}
                        ),
                        **{
                            f"{kind}.page_recall@{k}": round(value, 4)
                            for kind, by_k in r.by_kind.items()
                            for k, value in by_k.items()
                        },
                    }
                    for r in results
                ]
                for name, results in self.sets.items()
            },
        }


def evaluate(
    configs: dict[str, DocsConfig],
    sets: Sequence[QuestionSet],
    ks: Sequence[int] = KS,
    *,
    corpus: str = "",
    documents: int = 0,
    chunks: int = 0,
) -> DocsEvalRun:
    ks = tuple(sorted(set(ks)))
    return DocsEvalRun(
        corpus, documents, chunks, ks, {s.name: [_evaluate(c, s, ks) for c in configs.values()] for s in sets}
    )


def _evaluate(config: DocsConfig, questions: QuestionSet, ks: tuple[int, ...]) -> SetResult:
    if questions.questions:  # warm up: the first call may load or compile lazily
        config.rank(questions.questions[0].text, max(ks))
    recall: dict[int, list[float]] = {k: [] for k in ks}
    kinds: dict[str, dict[int, list[float]]] = {}
    rr, timings, flagged, wrongly, misses = [], [], [], [], []
    passage_hits: dict[int, list[float]] = {}
    budget_hits: dict[int, list[float]] = {}
    spread: list[int] = []
    for question in questions.questions:
        started = time.perf_counter()
        pages, off_topic = config.rank(question.text, max(ks))
        timings.append((time.perf_counter() - started) * 1000)
        if not question.answerable:
            flagged.append(float(off_topic))
            continue
        wrongly.append(float(off_topic))
        for k in ks:
            hit = all_gold_recall(pages, question.gold, k)
            recall[k].append(hit)
            kinds.setdefault(question.kind, {n: [] for n in ks})[k].append(hit)
        rr.append(reciprocal_rank(pages, question.gold))
        if not all_gold_recall(pages, question.gold, min(5, max(ks))):
            misses.append(question.text)
        if config.passages is not None:
            for k in ks:
                returned = _distinct([page for page, _ in config.passages(question.text, k)])
                passage_hits.setdefault(k, []).append(all_gold_recall(returned, question.gold, len(returned)))
                if k == max(ks):
                    spread.append(len(returned))
            deep = config.passages(question.text, BUDGET_DEPTH)
            for budget in BUDGETS:
                fitting = _distinct([page for page, _ in _within(deep, budget)])
                budget_hits.setdefault(budget, []).append(all_gold_recall(fitting, question.gold, len(fitting)))
    return SetResult(
        config=config.name,
        questions=len(rr),
        recall={k: mean(v) for k, v in recall.items()},
        mrr=mean(rr),
        p50_ms=percentile(timings, 50),
        p99_ms=percentile(timings, 99),
        unanswerable=len(flagged),
        flagged_off_topic=mean(flagged) if flagged else None,
        false_off_topic=mean(wrongly),
        misses=misses,
        by_kind={kind: {k: mean(v) for k, v in by_k.items()} for kind, by_k in kinds.items()} if len(kinds) > 1 else {},
        passage_recall={k: mean(v) for k, v in passage_hits.items()},
        budget_recall={b: mean(v) for b, v in budget_hits.items()},
        pages_in_passages=mean(spread) if spread else None,
    )


def _distinct(pages: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(pages))


def _within(passages: Sequence[tuple[str, int]], budget: int) -> list[tuple[str, int]]:
    """The passages, in order, while their tokens add up to at most ``budget``.

    >>> _within([("a", 300), ("b", 300), ("c", 100)], 600)
    [('a', 300), ('b', 300)]
    """
    kept, spent = [], 0
    for passage in passages:
        spent += passage[1]
        if spent > budget:
            break
        kept.append(passage)
    return kept
