"""The coverage second pass, measured: all gold pages in the passages an agent gets, with it and without.

Both through ``Workspace.corpora.search`` (the pass runs there, after the ranking), in one
process: the share of questions whose gold pages are all among the k passages returned, how
often the pass fired, and the search time with it.

    python -m eval.docs.coverage eval/docs_questions/aspects_product.jsonl --corpus product --home .eval_work/product -k 3
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
from ..metrics import percentile
from .questions import load_questions, page


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eval.docs.coverage",
        description=(__doc__ or "").split("\n\n")[0],
        **examples(
            "python -m eval.docs.coverage eval/docs_questions/aspects_product.jsonl --corpus product "
            "--home .eval_work/product -k 3"
        ),
    )
    parser.add_argument("questions", type=Path, nargs="+", help="question files (.jsonl with gold_urls)")
    parser.add_argument("--corpus", required=True, help="an indexed corpus in the data directory")
    parser.add_argument("-k", type=int, default=3, help="passages returned (default 3)")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the figures as JSON")
    parser.set_defaults(run=_run)
    return parser


def _run(args: argparse.Namespace, settings: Settings) -> int:
    settings = one_embedding_thread(settings)
    runs = {
        "with the second pass": Workspace(settings.model_copy(update={"docs_coverage_pass": True})),
        "without": Workspace(settings.model_copy(update={"docs_coverage_pass": False})),
    }
    for workspace in runs.values():  # the model and the index load on a workspace's first search: not timed
        workspace.corpora.search(args.corpus, "warm up", args.k)
    figures = {}
    head = ("search", f"R@{args.k}", "pass fired", "p50 ms", "p99 ms")
    for path in args.questions:
        questions = [q for q in load_questions(path).questions if q.answerable]
        rows = []
        for name, workspace in runs.items():
            found, fired, ms = 0, 0, []
            for question in questions:
                started = time.perf_counter()
                response = workspace.corpora.search(args.corpus, question.text, args.k)
                ms.append((time.perf_counter() - started) * 1000)
                found += set(question.gold) <= {page(r.url) for r in response.results}
                fired += response.coverage is not None
            ms.sort()
            rows.append(
                (
                    name,
                    f"{found / len(questions):.3f}",
                    f"{fired} of {len(questions)}",
                    f"{statistics.median(ms):.1f}",
                    f"{percentile(ms, 99):.1f}",
                )
            )
        print(f"{path.name}: {len(questions)} questions, all gold pages in the {args.k} passages returned")
        print_table(head, rows)
        print()
        figures[path.name] = [dict(zip(head, row)) for row in rows]
    # Not "corpus" and "sets" side by side: that is the shape the web page lists as a documents run.
    write_json(args.out, {"searched_corpus": args.corpus, "k": args.k, "question_sets": figures})
    return 0


def main(argv: list[str] | None = None) -> int:
    return command_line(_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
