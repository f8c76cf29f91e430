"""The next batch, measured: what a repeat search in the same turn adds to the first batch.

For each question: the first batch (k passages, a session and turn named), the repeat's next
batch, their overlap (0 by construction; counted, not assumed), and all-gold page recall of
the first batch alone and of both together, next to one plain search of 2k passages (what a
caller asking for more at once gets) and the time each search took.

    python -m eval.docs.batches eval/docs_questions/research_fastapi.jsonl --corpus fastapi --home .eval_work/fastapi
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from schema_search.cli.main import command_line
from schema_search.cli.output import examples, print_table
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..cli import one_embedding_thread, write_json
from .questions import load_questions, page


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eval.docs.batches",
        description=(__doc__ or "").split("\n\n")[0],
        **examples(
            "python -m eval.docs.batches eval/docs_questions/research_fastapi.jsonl --corpus fastapi "
            "--home .eval_work/fastapi"
        ),
    )
    parser.add_argument("questions", type=Path, help="question file (.jsonl with gold_urls)")
    parser.add_argument("--corpus", required=True, help="an indexed corpus in the data directory")
    parser.add_argument("-k", type=int, default=10, help="passages per batch (default 10)")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the figures as JSON")
    parser.set_defaults(run=_run)
    return parser


def _all_gold(gold: list[str], passages) -> bool:
    return set(gold) <= {page(p.url) for p in passages}


def _run(args: argparse.Namespace, settings: Settings) -> int:
    workspace = Workspace(one_embedding_thread(settings))
    search = workspace.corpora.search
    search(args.corpus, "warm up", args.k)  # the model and the index load on the first search: not timed
    rows, overlaps, timings = [], [], {"first": [], "next": [], "plain 2k": []}
    for turn, question in enumerate(load_questions(args.questions).questions):
        started = time.perf_counter()
        first = search(args.corpus, question.text, args.k, session="eval", turn=str(turn))
        timings["first"].append(time.perf_counter() - started)
        started = time.perf_counter()
        again = search(args.corpus, question.text, args.k, session="eval", turn=str(turn))
        timings["next"].append(time.perf_counter() - started)
        started = time.perf_counter()
        wide = search(args.corpus, question.text, 2 * args.k)
        timings["plain 2k"].append(time.perf_counter() - started)
        overlaps.append(len({r.source_id for r in first.results} & {r.source_id for r in again.results}))
        rows.append(
            (
                _all_gold(question.gold, first.results),
                _all_gold(question.gold, first.results + again.results),
                _all_gold(question.gold, wide.results),
                again.batch == 2,
            )
        )
    n = len(rows)
    recall = {
        f"first batch ({args.k})": sum(r[0] for r in rows) / n,
        f"first + next batch ({2 * args.k})": sum(r[1] for r in rows) / n,
        f"one plain search of {2 * args.k}": sum(r[2] for r in rows) / n,
    }
    print(f"{args.questions.name}: {n} questions, k={args.k} per batch")
    print_table(("passages", "all-gold page recall"), [(name, f"{v:.3f}") for name, v in recall.items()])
    print(f"\nnext batch given: {sum(r[3] for r in rows)} of {n}; passages in both batches: {sum(overlaps)}")
    latency = {}
    for name, seconds in timings.items():
        ms = sorted(s * 1000 for s in seconds)
        latency[name] = {"p50 ms": round(statistics.median(ms), 2), "max ms": round(ms[-1], 2)}
        print(f"{name}: p50 {latency[name]['p50 ms']:.1f} ms, max {latency[name]['max ms']:.1f} ms")
    write_json(
        args.out,
        {"questions": args.questions.name, "k": args.k, "recall": recall, "next batch given": sum(r[3] for r in rows),
         "passages in both batches": sum(overlaps), "latency": latency},
    )  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    return command_line(_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
