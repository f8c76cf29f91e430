"""``python -m eval.docs.followups``: page recall of follow-up questions, as asked, with their history, and written out.

Each line of the question file: ``{"history": [...], "question": "<follow-up>", "full_question": "<written
out>", "gold_urls": [...]}``. One run reports all-gold page recall@k and MRR for the follow-up alone, history
and follow-up concatenated, the follow-up rewritten with its history (deterministic rule, and each model
named), and the full question a person wrote out; then the trigger rate and the rewrite step's latency.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from schema_search.cli.docs import UNITS
from schema_search.cli.output import print_table, progress
from schema_search.llm import runtime
from schema_search.llm.providers import import_litellm
from schema_search.llm.rewrite import messages
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..cli import one_embedding_thread, write_json
from ..metrics import all_gold_recall, mean, percentile, reciprocal_rank
from .__main__ import _corpus_name
from .questions import page

KS = (1, 5, 10)
FOLLOWUPS = Path(__file__).resolve().parents[1] / "docs_questions" / "followups_fastapi.jsonl"


@dataclass(frozen=True)
class FollowUp:
    history: tuple[str, ...]
    question: str
    full_question: str
    gold: tuple[str, ...]


def load(path: Path, half: str) -> list[FollowUp]:
    """The follow-ups of ``path``: all, or its ``first`` or ``second`` half (tune on one, report on the other)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [
        FollowUp(tuple(r["history"]), r["question"], r["full_question"], tuple(page(u) for u in r["gold_urls"]))
        for r in rows
    ]
    middle = len(items) // 2
    return {"first": items[:middle], "second": items[middle:]}.get(half, items)


def _pages(workspace: Workspace, corpus: str, text: str) -> list[str]:
    found = workspace.corpora.search(corpus, text, max(KS))
    return list(dict.fromkeys(page(r.url) for r in found.results))


def recall(workspace: Workspace, corpus: str, items: list[FollowUp], texts: list[str]) -> dict[str, float]:
    """All-gold page recall at each of ``KS`` and the MRR of ``texts`` searched for ``items``."""
    ranked = [_pages(workspace, corpus, text) for text in texts]
    figures = {f"R@{k}": mean([all_gold_recall(r, i.gold, k) for r, i in zip(ranked, items)]) for k in KS}
    return figures | {"MRR": mean([reciprocal_rank(r, i.gold) for r, i in zip(ranked, items)])}


def _row(name: str, workspace: Workspace, corpus: str, items: list[FollowUp], texts: list[str]) -> tuple:
    return (name, *(f"{v:.3f}" for v in recall(workspace, corpus, items, texts).values()))


def rewritten(workspace: Workspace, items: list[FollowUp]) -> tuple[list[str], list[float], float, list[str]]:
    """Each follow-up as the workspace searches it with its history, the rewrite's ms, the trigger rate, fallbacks."""
    texts, timings, triggered, fell_back = [], [], 0, []
    for item in items:
        started = time.perf_counter()
        text, rewrite = workspace.retrieval(item.question, list(item.history))
        timings.append((time.perf_counter() - started) * 1000)
        texts.append(text)
        triggered += rewrite.triggered
        if rewrite.triggered and rewrite.by == "none":
            fell_back.append(rewrite.why)
    return texts, timings, triggered / max(len(items), 1), fell_back


def cost_per_call(model: str, items: list[FollowUp]) -> float:
    """Mean USD a rewrite by ``model`` costs: the real prompt's tokens in, the written-out question's tokens out.

    An estimate from litellm's token counter and price list (``LITELLM_LOCAL_MODEL_COST_MAP``
    keeps it offline); no model is called.
    """
    litellm = import_litellm()
    dollars = []
    for item in items:
        prompt = litellm.token_counter(model=model, messages=messages(item.question, item.history))
        answer = litellm.token_counter(model=model, text=item.full_question)
        dollars.append(sum(litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=answer)))
    return mean(dollars)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.docs.followups", description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, metavar="QUESTIONS", help="follow-up file (.jsonl)")
    parser.add_argument("--source", type=Path, required=True, metavar="FOLDER", help="the corpus's folder")
    parser.add_argument("--work", type=Path, required=True, metavar="DIR", help="data directory (re-used)")
    parser.add_argument("--half", choices=("all", "first", "second"), default="all", help="which half of the set")
    parser.add_argument(
        "--model", nargs="*", default=None, help="litellm models to rewrite with (default: local/smollm2 if installed)"
    )
    parser.add_argument("--show", action="store_true", help="print each rewrite")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--price",
        nargs="*",
        default=["openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"],
        help="hosted models whose cost per rewrite to estimate from litellm's price list (no call is made)",
    )
    args = parser.parse_args(argv)

    settings = one_embedding_thread(Settings()).model_copy(update={"home": args.work})
    corpus = _corpus_name(args.source)
    workspace = Workspace(settings)
    if corpus not in workspace.corpora.store.names():
        print(f"Indexing {args.source} as corpus {corpus!r} in {args.work} ...", file=sys.stderr)
        workspace.corpora.index(args.source, corpus=corpus, progress=progress(UNITS))
    items = load(args.questions, args.half)
    models = args.model if args.model is not None else (["local/smollm2"] if runtime.installed() else [])
    _pages(workspace, corpus, items[0].question)  # warm up: the model loads on the first search

    rows = [
        _row("follow-up alone", workspace, corpus, items, [i.question for i in items]),
        _row("history + follow-up", workspace, corpus, items, [" ".join([*i.history, i.question]) for i in items]),
    ]
    latency = []
    for model in ["deterministic", *models]:
        rewriter = Workspace(settings.model_copy(update={"rewrite_model": model}))
        texts, timings, rate, fell_back = rewritten(rewriter, items)
        rows.append(_row(f"rewritten: {model}", workspace, corpus, items, texts))
        latency.append((model, f"{percentile(timings, 50):.1f}", f"{percentile(timings, 99):.1f}", f"{rate:.2f}",
                        str(len(fell_back))))  # fmt: skip
        if args.show:
            for item, text in zip(items, texts):
                print(f"[{model}] {item.question!r} -> {text!r}", file=sys.stderr)
            for why in fell_back:
                print(f"[{model}] fell back: {why}", file=sys.stderr)
    rows.append(_row("full question (written out)", workspace, corpus, items, [i.full_question for i in items]))
    # Over-triggering's cost: each written-out question asked after another conversation's history
    # (a change of topic), as the default rewriter searches it.
    switched = [FollowUp(items[n - 1].history, i.full_question, i.full_question, i.gold) for n, i in enumerate(items)]
    texts, _, rate, _ = rewritten(Workspace(settings.model_copy(update={"rewrite_model": "deterministic"})), switched)
    rows.append(_row(f"full question after another topic (rewritten {rate:.0%})", workspace, corpus, items, texts))

    print(
        f"{args.questions} ({args.half}: {len(items)} follow-ups), corpus {corpus!r}; R@k: all gold pages in the first k"
    )
    print_table(("texts searched", *(f"R@{k}" for k in KS), "MRR"), rows)
    print()
    latency_head = ("rewriter", "p50 ms", "p99 ms", "trigger rate", "fell back")
    print_table(latency_head, latency)
    prices = {model: cost_per_call(model, items) for model in args.price}
    for model, dollars in prices.items():
        print(f"{model}: ${dollars:.6f} per rewrite (estimated from tokens, not called)")
    write_json(
        args.out,
        {
            "questions": str(args.questions),
            "half": args.half,
            "count": len(items),
            "recall": {r[0]: dict(zip((*(f"R@{k}" for k in KS), "MRR"), map(float, r[1:]))) for r in rows},
            "rewriters": [dict(zip(latency_head, r)) for r in latency],
            "usd_per_rewrite_estimated": prices,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
