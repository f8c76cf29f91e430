"""``python -m eval.tables``: recall on a benchmark folder, next to peer baselines (was ``schemasift eval``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from schema_search.cli.main import command_line
from schema_search.cli.output import examples, print_table, progress
from schema_search.errors import InvalidInput
from schema_search.settings import Settings

from ..cli import cutoffs, one_embedding_thread


def parser() -> argparse.ArgumentParser:
    evaluate = argparse.ArgumentParser(
        prog="python -m eval.tables",
        description=(
            "Ask every question of a benchmark folder and report all-gold recall@k, per-table recall, MRR, "
            "candidates returned and latency for each configuration: the shipped default, each channel, "
            "merged, plain RRF variants and two peer baselines (BM25 and MiniLM computed without our code)."
            " Here --config names configurations; a configuration file is named by SCHEMA_SEARCH_CONFIG_FILE."
        ),
        **examples(
            "python -m eval.tables $B/spider_dev --config default -k 5 10",
            "python -m eval.tables $B/bird_dev --per-db --config default body peer-bm25 --report bird.html",
        ),
    )
    evaluate.add_argument(
        "bench_dir", type=Path, metavar="BENCH_DIR", help="folder with schemas.jsonl and questions.jsonl"
    )
    evaluate.add_argument(
        "--distractors",
        type=Path,
        nargs="+",
        action="extend",
        default=[],
        metavar="DIR",
        help="schema folders pooled in as distractors (pooled condition only)",
    )
    evaluate.add_argument(
        "--per-db", action="store_true", help="each question searches only its own database (default: pooled)"
    )
    evaluate.add_argument(
        "--config",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="configurations to run (default: all): default names text body dense merged rrf-equal "
        "rrf-body+dense peer-bm25 peer-dense",
    )
    evaluate.add_argument("-k", type=int, nargs="+", default=None, metavar="K", help="cut-offs (default: 1 5 10 20)")
    evaluate.add_argument("--limit", type=int, metavar="N", help="N questions, evenly spaced through the file")
    evaluate.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    evaluate.add_argument("--report", type=Path, metavar="OUT.html", help="write a self-contained HTML report")
    evaluate.add_argument(
        "--update-baseline",
        action="store_true",
        help="rewrite this slice's file under eval/baselines/ (the gate test compares against it)",
    )
    evaluate.set_defaults(run=_eval)
    return evaluate


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from . import benchmarks, gate, report
    from .runner import KS, run_eval

    ks = cutoffs(args.k, KS)
    if args.limit is not None and args.limit < 1:
        raise InvalidInput(f"--limit {args.limit} is out of range.", hint="Use --limit 1 or more.")
    if args.update_baseline and args.config and "default" not in args.config:
        raise InvalidInput("--update-baseline needs the default configuration.", hint="Add --config default.")
    settings = one_embedding_thread(settings)
    condition = benchmarks.PER_DB if args.per_db else benchmarks.POOLED
    benchmark = benchmarks.load_benchmark(args.bench_dir, args.limit)
    distractors = [db for folder in args.distractors for db in benchmarks.load_databases(folder)]
    if args.per_db and args.distractors:
        print("note: --distractors play no part in --per-db", file=sys.stderr)
    print(f"Evaluating {benchmark.name} ({condition}): {len(benchmark.questions)} questions ...", file=sys.stderr)
    run = run_eval(
        benchmark,
        condition,
        distractors,
        args.config,
        ks,
        settings,
        progress=progress("q"),
        distractor_names=[folder.resolve().name for folder in args.distractors],
    )
    _print_run(run)
    if args.json:
        args.json.write_text(json.dumps(run.to_json(), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    if args.report:
        args.report.write_text(report.render(run), encoding="utf-8")
        print(f"wrote {args.report}", file=sys.stderr)
    if args.update_baseline:
        print(f"wrote {gate.write_baseline(run, args.limit)}", file=sys.stderr)
    return 0


def _print_run(run) -> None:
    k = run.headline_k
    header = ("config", *(f"R@{n}" for n in run.ks), f"tableR@{k}", "MRR", "cands", "p50 ms", "p99 ms")
    rows = [
        (
            r.config,
            *(f"{r.recall[n]:.3f}" for n in run.ks),
            f"{r.table_recall[k]:.3f}",
            f"{r.mrr:.3f}",
            f"{r.mean_candidates:.1f}",
            f"{r.p50_ms:.2f}",
            f"{r.p99_ms:.2f}",
        )
        for r in run.results
    ]
    print(f"{run.benchmark} {run.condition}: {run.tables} tables, {run.questions} questions (R@k: all gold in top k)")
    print_table(header, rows)


def main(argv: list[str] | None = None) -> int:
    return command_line(parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
