"""``schema-search eval`` (recall on a benchmark folder) and ``schema-search diagnose`` (IDF collapse)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from ..errors import InvalidInput
from ..settings import Settings
from .output import examples, print_table, progress


def add_commands(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="measure recall on a benchmark folder (schemas.jsonl + questions.jsonl)",
        description=(
            "Ask every question of a benchmark folder and report all-gold recall@k, per-table recall, MRR, "
            "candidates returned and latency for each configuration: the shipped default, each channel, "
            "merged, plain RRF variants and two peer baselines (BM25 and MiniLM computed without our code)."
            " Here --config names configurations; a configuration file goes before the command "
            "(schema-search --config FILE eval ...)."
        ),
        **examples(
            "schema-search eval $B/spider_dev --config default -k 5 10",
            "schema-search eval $B/bird_dev --per-db --config default body peer-bm25 --report bird.html",
        ),
    )
    evaluate.add_argument("bench_dir", type=Path, metavar="BENCH_DIR", help="folder with schemas.jsonl and questions.jsonl")
    evaluate.add_argument(
        "--distractors", type=Path, nargs="+", action="extend", default=[], metavar="DIR",
        help="schema folders pooled in as distractors (pooled condition only)",
    )
    evaluate.add_argument(
        "--per-db", action="store_true", help="each question searches only its own database (default: pooled)"
    )
    evaluate.add_argument(
        "--config", nargs="+", action="extend", metavar="NAME",
        help="configurations to run (default: all): default names text body dense merged rrf-equal "
        "rrf-body+dense peer-bm25 peer-dense",
    )
    evaluate.add_argument("-k", type=int, nargs="+", default=None, metavar="K", help="cut-offs (default: 1 5 10 20)")
    evaluate.add_argument("--limit", type=int, metavar="N", help="N questions, evenly spaced through the file")
    evaluate.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    evaluate.add_argument("--report", type=Path, metavar="OUT.html", help="write a self-contained HTML report")
    evaluate.add_argument(
        "--update-baseline", action="store_true",
        help="rewrite this slice's file under eval/baselines/ (the gate test compares against it)",
    )
    evaluate.set_defaults(run=_eval)

    diagnose = commands.add_parser(
        "diagnose",
        help="IDF-collapse check: words that descriptions spread over most tables",
        description=(
            "For given words, or the most frequent content words of a questions file, or else the most "
            "widespread words of the catalog: how many table documents contain each, per field, before and "
            "after enrichment (generated descriptions), with BM25's IDF; warns for every word in more than "
            "half of a field's documents."
        ),
        **examples(
            "schema-search diagnose --catalog crm --words store,information,customer",
            "schema-search diagnose --catalog crm --questions sample_schemas/crm_cases.jsonl --top 30",
        ),
    )
    diagnose.add_argument("--catalog", required=True, help="catalog to check")
    diagnose.add_argument("--words", help="comma-separated words, e.g. store,information,customer")
    diagnose.add_argument("--questions", type=Path, help="questions file: JSON lines with 'question', or plain lines")
    diagnose.add_argument("--top", type=int, default=20, help="how many words to take from questions (default 20)")
    diagnose.add_argument("--json", action="store_true", help="print the report as JSON")
    diagnose.set_defaults(run=_diagnose)


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from eval.tables import benchmarks, gate, report
    from eval.tables.runner import KS, run_eval

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
    print(
        f"Evaluating {benchmark.name} ({condition}): {len(benchmark.questions)} questions ...", file=sys.stderr
    )
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


def _diagnose(args: argparse.Namespace, settings: Settings) -> int:
    from ..tables import diagnose
    from ..workspace import Workspace

    catalog = Workspace(settings).searcher(args.catalog).catalog
    if args.words:
        words = [w.strip() for w in args.words.split(",") if w.strip()]
        source = "given words"
    elif args.questions:
        if not args.questions.is_file():
            raise InvalidInput(f"{args.questions} does not exist.", hint="Give a questions.jsonl or a text file.")
        words = diagnose.question_words(diagnose.read_questions(args.questions), args.top)
        source = f"the {len(words)} most frequent content words of {args.questions}"
    else:
        words = diagnose.widespread_words(catalog, args.top)
        source = f"the {len(words)} terms in the most table documents"
    if not words:
        raise InvalidInput("No words to check.", hint="Give --words w1,w2 or a --questions file with questions.")
    result = diagnose.diagnose(catalog, words, analysed=not (args.words or args.questions))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print(
        f"Catalog {result.catalog!r}: {result.tables} tables, {result.described} with a generated description. "
        f"Checking {source}."
    )
    if not result.described:
        print("No table has a generated description yet, so before = after; run `schema-search describe` first.")
    rows = [
        (
            r.word,
            r.term,
            r.field,
            f"{r.before} -> {r.after} / {r.documents}",
            f"{r.idf_before:.2f} -> {r.idf_after:.2f}",
            "COLLAPSED" if r.collapsed else "",
        )
        for r in result.rows
    ]
    print_table(("word", "term", "field", "documents before -> after", "IDF before -> after", ""), rows)
    if result.unindexed:
        print(f"Not indexed (stop words): {', '.join(result.unindexed)}")
    for line in result.warnings():
        print(f"warning: {line}")
    if not result.warnings():
        print(f"No word is in more than {diagnose.SHARE_LIMIT:.0%} of a field's documents.")
    return 0


def cutoffs(asked: list[int] | None, default: Sequence[int]) -> list[int]:
    """The -k cut-offs, sorted and checked."""
    ks = sorted(set(asked or default))
    if ks[0] < 1:
        raise InvalidInput(f"-k {ks[0]} is out of range.", hint="Use cut-offs of 1 or more.")
    return ks


def one_embedding_thread(settings: Settings) -> Settings:
    """Settings with one embedding thread, unless the user chose a number.

    One-question encodes: a second thread rarely helps, and on a busy machine two
    contending threads ran ~10x slower (125 ms instead of 11 ms a question).
    """
    if settings.embedding_threads is not None:
        return settings
    return settings.model_copy(update={"embedding_threads": 1})
