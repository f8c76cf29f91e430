"""Past queries as evidence, measured on questions they do not contain.

    python -m eval.tables.examples ../shared/benchmarks/spider_dev --distractors ../shared/benchmarks/spider_train_schemas
    python -m eval.tables.examples ../shared/benchmarks/bird_dev --distractors ../shared/benchmarks/bird_train_schemas

Each database's questions are split in two by their order in the file (1st, 3rd, 5th,
... are *kept*; 2nd, 4th, ... are *asked*). The kept half is added to the pooled
catalog as examples (question, gold SQL, gold tables: what a user adding past queries,
or the checklist approving them, would keep); the asked half is searched with the
shipped default and with the examples channel off, on the same index. A benchmark
often asks one thing twice in other words (Spider's pairs are adjacent), so the
figures also split out the asked questions whose gold SQL is not among the kept ones.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from schema_search.cli.output import print_table
from schema_search.settings import Settings
from schema_search.tables.models import ExampleInput

from ..cli import one_embedding_thread
from ..metrics import all_gold_recall, mean, percentile
from .benchmarks import QUESTIONS_FILE, Question, load_benchmark, pooled_workspace

KS = (5, 10)


def split(questions: Sequence[Question]) -> tuple[list[Question], list[Question]]:
    """(kept, asked): alternate questions of each database, in file order.

    >>> qs = [Question(str(i), db, "q", ("t",)) for i, db in enumerate("aabab")]
    >>> [q.id for q in split(qs)[0]], [q.id for q in split(qs)[1]]
    (['0', '2', '3'], ['1', '4'])
    """
    seen: dict[str, int] = {}
    kept, asked = [], []
    for question in questions:
        position = seen.get(question.db_id, 0)
        seen[question.db_id] = position + 1
        (kept if position % 2 == 0 else asked).append(question)
    return kept, asked


def gold_sql(folder: Path) -> dict[str, str]:
    """Question id -> its gold SQL (ids as ``load_benchmark`` gives them: the file's, else the line's position)."""
    found = {}
    lines = [line for line in (folder / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines() if line.strip()]
    for position, line in enumerate(lines):
        record = json.loads(line)
        found[str(record.get("id", position))] = record.get("gold_sql") or ""
    return found


def measure(folder: Path, distractors: Path | None, settings: Settings) -> dict:
    benchmark = load_benchmark(folder)
    sql = gold_sql(folder)
    kept, asked = split([q for q in benchmark.questions if sql.get(q.id)])
    with pooled_workspace(benchmark, distractors, settings) as (workspace, tables_in_pool):
        catalogs = workspace.catalogs
        pairs = [ExampleInput(question=q.text, sql=sql[q.id], tables=list(q.gold)) for q in kept]
        started = time.perf_counter()
        catalogs.add_examples("pooled", pairs)
        adding_s = time.perf_counter() - started
        searcher = catalogs.searcher("pooled")
        shipped = catalogs.config()
        off = replace(shipped, weights={**shipped.weights, "examples": 0.0})
        kept_sql = {" ".join(sql[q.id].lower().split()) for q in kept}
        results: dict[str, dict] = {}
        for name, config in (("default", shipped), ("no examples", off)):
            hits: dict[int, list[float]] = {k: [] for k in KS}
            unseen: dict[int, list[float]] = {k: [] for k in KS}
            timings = []
            for question in asked:
                began = time.perf_counter()
                past = searcher.matching_examples(question.text, config)
                ranked = [r.id for r in searcher.search(question.text, max(KS), config, past).ranked]
                timings.append((time.perf_counter() - began) * 1000)
                new = " ".join(sql[question.id].lower().split()) not in kept_sql
                for k in KS:
                    hit = all_gold_recall(ranked, question.gold, k)
                    hits[k].append(hit)
                    if new:
                        unseen[k].append(hit)
            results[name] = {
                **{f"recall@{k}": mean(v) for k, v in hits.items()},
                **{f"unseen_sql_recall@{k}": mean(v) for k, v in unseen.items()},
                "unseen_sql_questions": len(unseen[KS[0]]),
                "p50_ms": percentile(timings, 50),
                "p99_ms": percentile(timings, 99),
            }
    return {
        "benchmark": benchmark.name,
        "tables": tables_in_pool,
        "examples": len(kept),
        "asked": len(asked),
        "adding_examples_s": round(adding_s, 1),
        "configs": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.tables.examples", description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="FOLDER")
    parser.add_argument("--distractors", type=Path, metavar="FOLDER")
    parser.add_argument("--json", type=Path, metavar="OUT")
    args = parser.parse_args(argv)
    result = measure(args.benchmark, args.distractors, one_embedding_thread(Settings()))
    print(
        f"{result['benchmark']}, pooled ({result['tables']} tables): {result['examples']} examples kept, "
        f"{result['asked']} questions asked (added in {result['adding_examples_s']} s)",
        file=sys.stderr,
    )
    columns = [f"recall@{k}" for k in KS] + [f"unseen_sql_recall@{k}" for k in KS]
    print_table(
        ("config", *columns, "unseen-SQL questions", "p50 ms", "p99 ms"),
        [
            (
                name,
                *(f"{figures[c]:.3f}" for c in columns),
                figures["unseen_sql_questions"],
                f"{figures['p50_ms']:.1f}",
                f"{figures['p99_ms']:.1f}",
            )
            for name, figures in result["configs"].items()
        ],
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
