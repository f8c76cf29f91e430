"""Column recall and prompt size: does the DDL a search hands over hold every column the gold SQL uses?

    python -m eval.tables.columns ../shared/benchmarks/spider_dev --distractors ../shared/benchmarks/spider_train_schemas
    python -m eval.tables.columns ../shared/benchmarks/bird_dev --distractors ../shared/benchmarks/bird_train_schemas

Pooled, the shipped default, at each k: all-gold *table* recall; all-gold *column*
recall of the whole DDL of the k candidates (``ddl``: every column of every table)
and of the trimmed DDL (``ddl_trimmed``: the columns the question names, the columns
whose sampled values it names, and every key); and the tokens of each, counted with
the embedding model's word pieces (an LLM's tokenizer gives other numbers, in about the
same ratio). Column recall counts only questions whose gold SQL names columns
(``gold_columns`` in the benchmark file; ``count(*)`` questions name none).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from schema_search.cli.output import print_table
from schema_search.settings import Settings
from schema_search.tables.candidates import trimmed_columns
from schema_search.tables.catalog import Catalog, table_id
from schema_search.tables.models import TableCandidate

from ..cli import one_embedding_thread
from ..metrics import mean
from .benchmarks import QUESTIONS_FILE, load_benchmark, pooled_workspace

KS = (5, 10)


def gold_columns(folder: Path) -> dict[str, set[str]]:
    """Question id -> ``schema.table.column`` (lower-case) its gold SQL uses."""
    found = {}
    for line in (folder / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            found[record["id"]] = {
                f"{table_id(record['db_id'], column.rsplit('.', 1)[0])}.{column.rsplit('.', 1)[1]}".lower()
                for column in record.get("gold_columns") or ()
                if "." in column
            }
    return found


def measure(folder: Path, distractors: Path | None, limit: int | None, settings: Settings) -> dict:
    benchmark = load_benchmark(folder, limit)
    gold = gold_columns(folder)
    with pooled_workspace(benchmark, distractors, settings) as (workspace, tables_in_pool):
        counter = workspace.embedder()
        catalog = workspace.catalogs.catalog("pooled")
        figures = {}
        for k in KS:
            tables, whole, trimmed, whole_tokens, trimmed_tokens = [], [], [], [], []
            for question in benchmark.questions:
                candidates = workspace.catalogs.search("pooled", question.text, k).candidates[:k]
                tables.append(float(set(question.gold) <= {c.table for c in candidates}))
                whole_tokens.append(sum(counter.count_tokens(c.ddl) for c in candidates))
                trimmed_tokens.append(sum(counter.count_tokens(c.ddl_trimmed or c.ddl) for c in candidates))
                needed = gold.get(question.id) or set()
                if not needed:
                    continue
                every = {f"{c.table}.{column.name}".lower() for c in candidates for column in c.columns}
                kept = {f"{c.table}.{name}".lower() for c in candidates for name in _trimmed(catalog, c)}
                whole.append(float(needed <= every))
                trimmed.append(float(needed <= kept))
            figures[k] = {
                "table_recall": mean(tables),
                "column_recall_ddl": mean(whole),
                "column_recall_trimmed": mean(trimmed),
                "tokens_ddl": mean(whole_tokens),
                "tokens_trimmed": mean(trimmed_tokens),
                "questions": len(tables),
                "with_gold_columns": len(whole),
            }
    return {"benchmark": benchmark.name, "tables": tables_in_pool, "at": figures}


def _trimmed(catalog: Catalog, candidate: TableCandidate) -> list[str]:
    """The columns ``ddl_trimmed`` shows: named by the question or by a value, and the keys."""
    table = catalog.table(candidate.table)
    needed = [*candidate.matched_columns, *(m.column for m in candidate.matched_values)]
    return trimmed_columns(table, needed) or [c.name for c in table.columns]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.tables.columns", description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="FOLDER")
    parser.add_argument("--distractors", type=Path, metavar="FOLDER")
    parser.add_argument("--limit", type=int, metavar="N", help="N questions, evenly spaced")
    parser.add_argument("--json", type=Path, metavar="OUT")
    args = parser.parse_args(argv)
    result = measure(args.benchmark, args.distractors, args.limit, one_embedding_thread(Settings()))
    print(f"{result['benchmark']}, pooled ({result['tables']} tables), shipped default", file=sys.stderr)
    print_table(
        ("k", "tables all-gold", "columns, whole DDL", "columns, trimmed DDL", "tokens whole", "tokens trimmed"),
        [
            (
                k,
                f"{f['table_recall']:.3f}",
                f"{f['column_recall_ddl']:.3f}",
                f"{f['column_recall_trimmed']:.3f}",
                f"{f['tokens_ddl']:.0f}",
                f"{f['tokens_trimmed']:.0f}",
            )
            for k, f in result["at"].items()
        ],
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
