"""``python -m eval.docs``: page recall of a corpus on question files, next to peer baselines (was ``schemasift docs eval``)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from schema_search.cli.docs import UNITS
from schema_search.cli.main import command_line
from schema_search.cli.output import examples, print_table, progress
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..cli import cutoffs, one_embedding_thread


def parser() -> argparse.ArgumentParser:
    """Page recall on question sets over one corpus."""
    evaluate = argparse.ArgumentParser(
        prog="python -m eval.docs",
        description=(
            "Ask every question of each file (JSON lines: question, gold_urls) and report all-gold page "
            "recall@k (distinct pages in rank order), MRR, latency and off-topic behaviour for the shipped "
            "default, each channel, each stage switched off, and two peers computed without our code: "
            "BM25 over whole pages and MiniLM over 1,000-character chunks. Here --config names "
            "configurations; a configuration file is named by SCHEMA_SEARCH_CONFIG_FILE."
        ),
        **examples(
            "python -m eval.docs my_questions.jsonl --corpus mydocs --config default peer-bm25-pages -k 1 5 10",
            "python -m eval.docs q.jsonl --source /path/to/docs --work /tmp/docs-eval --misses",
        ),
    )
    evaluate.add_argument("sets", type=Path, nargs="+", metavar="QUESTIONS", help="question files (.jsonl)")
    where = evaluate.add_mutually_exclusive_group(required=True)
    where.add_argument("--source", type=Path, metavar="FOLDER", help="index this folder first (into --work)")
    where.add_argument("--corpus", help="an already indexed corpus in the data directory")
    evaluate.add_argument("--url-template", help="as for `docs index`")
    evaluate.add_argument(
        "--work",
        type=Path,
        metavar="DIR",
        help="data directory for --source (kept: re-runs reuse its embeddings; default: a temporary one)",
    )
    evaluate.add_argument("--config", nargs="+", action="extend", metavar="NAME", help="configurations (default: all)")
    evaluate.add_argument("-k", type=int, nargs="+", default=None, metavar="K", help="cut-offs (default: 1 3 5 10)")
    evaluate.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    evaluate.add_argument("--misses", action="store_true", help="list the questions the default misses at 5")
    evaluate.set_defaults(run=_docs_eval)
    return evaluate


def _docs_eval(args: argparse.Namespace, settings: Settings) -> int:
    from . import configs
    from .questions import load_questions
    from .runner import KS, evaluate

    ks = cutoffs(args.k, KS)
    settings = one_embedding_thread(settings)
    sets = [load_questions(path) for path in args.sets]
    with tempfile.TemporaryDirectory(prefix="schema-search-docs-eval-") as scratch:
        corpus = args.corpus
        if args.source is not None:
            settings = settings.model_copy(update={"home": args.work or Path(scratch)})
            corpus = _corpus_name(args.source)
            print(f"Indexing {args.source} as corpus {corpus!r} in {settings.home} ...", file=sys.stderr)
            Workspace(settings).corpora.index(
                args.source, corpus=corpus, url_template=args.url_template, progress=progress(UNITS)
            )
        workspace = Workspace(settings)
        info = workspace.corpora.info(corpus)
        built = configs.build(workspace, corpus, args.config, cache=settings.home / "peer-cache")
        run = evaluate(built, sets, ks, corpus=corpus, documents=info.documents, chunks=info.chunks)
    _print_docs_run(run, args.misses)
    if args.json:
        args.json.write_text(json.dumps(run.to_json(), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def _corpus_name(folder: Path) -> str:
    return re.sub(r"[^a-z0-9_-]+", "-", folder.resolve().name.lower()).strip("-")[:64] or "corpus"


def _print_docs_run(run, misses: bool) -> None:
    print(f"corpus {run.corpus!r}: {run.documents} documents, {run.chunks} chunks (R@k: all gold pages in the first k)")
    for name, results in run.sets.items():
        header = (
            "config",
            *(f"R@{k}" for k in run.ks),
            "MRR",
            "p50 ms",
            "p99 ms",
            "off-topic flagged",
            "false off-topic",
        )
        rows = [
            (
                r.config,
                *(f"{r.recall[k]:.3f}" for k in run.ks),
                f"{r.mrr:.3f}",
                f"{r.p50_ms:.1f}",
                f"{r.p99_ms:.1f}",
                "-" if r.flagged_off_topic is None else f"{r.flagged_off_topic:.2f} of {r.unanswerable}",
                f"{r.false_off_topic:.2f}",
            )
            for r in results
        ]
        print(f"\n{name}: {results[0].questions} answerable, {results[0].unanswerable} unanswerable")
        print_table(header, rows)
        returned = [r for r in results if r.passage_recall]
        if returned:
            print("  the passages returned at k (R@k), and those that fit a budget of tokens (R@Bt):")
            print_table(
                (
                    "config",
                    *(f"R@{k}" for k in run.ks),
                    *(f"R@{b}t" for b in returned[0].budget_recall),
                    f"pages in {max(run.ks)}",
                ),
                [
                    (
                        r.config,
                        *(f"{v:.3f}" for v in r.passage_recall.values()),
                        *(f"{v:.3f}" for v in r.budget_recall.values()),
                        f"{r.pages_in_passages:.1f}",
                    )
                    for r in returned
                ],
            )
        for result in results:
            for kind, by_k in result.by_kind.items():
                figures = "  ".join(f"R@{k} {value:.3f}" for k, value in by_k.items())
                print(f"  {result.config}, {kind or 'no kind'} questions: {figures}")
        if misses:
            for result in results:
                if result.config == "default":
                    for question in result.misses:
                        print(f"  missed at 5: {question}")


def main(argv: list[str] | None = None) -> int:
    return command_line(parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
