"""Exact-match accuracy of query_collection against independent gold, next to what top-k search alone gives.

    .venv/bin/python -m eval.structured.run --json eval/results/structured-accuracy.json

PEPs come from ``../shared/docs_corpora/peps``; the catalog is ``sample_schemas/crm.sql``,
indexed by our DDL connector, while its gold is read back from PostgreSQL after
loading the same file (``--pg-url``, default ``$SCHEMA_SEARCH_TEST_PG_URL``; run
``bash scripts/setup_postgres.sh`` first). ``--home`` reuses a data directory whose
``peps`` corpus is already embedded (a corpus without a structured index gets one
by ``rebuild_fields``, which re-embeds nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schema_search.settings import Settings
from schema_search.structured.models import QueryRequest
from schema_search.workspace import Workspace

from .gold import read_peps, read_postgres
from .questions import QUESTIONS, Question

REPO = Path(__file__).resolve().parents[2]
PEPS = REPO.parent / "shared" / "docs_corpora" / "peps"
CRM = REPO / "sample_schemas" / "crm.sql"


def normalised(rows: Sequence[Sequence[Any]]) -> list[list[str]]:
    return [[str(v) for v in row] for row in rows]


def prepare(workspace: Workspace, peps: Path, ddl: Path) -> None:
    if "peps" not in workspace.corpora.store.names():
        print("indexing the PEPs (embedding takes a while on 2 cores) ...", file=sys.stderr)
        workspace.corpora.index(peps, corpus="peps")
    elif not (workspace.corpora.store.current("peps").path / "structured.json").exists():
        workspace.corpora.rebuild_fields("peps")
    if "crm" not in workspace.catalogs.store.names():
        workspace.catalogs.index(str(ddl), catalog="crm", dialect="postgres")


def evaluate(workspace: Workspace, question: Question, records: Sequence[Any], k: int) -> dict[str, Any]:
    gold = normalised(question.gold(records))
    request = QueryRequest(sql=question.sql)
    if question.collection == "peps":
        response = workspace.corpora.query("peps", request)
        found = workspace.corpora.search("peps", question.question, k)
        pages = {r.url.split("#")[0] for r in found.results}
        retrieved = [r for r in records if r.url in pages]
    else:
        response = workspace.catalogs.query("crm", request)
        found = workspace.catalogs.search("crm", question.question, k)
        tables = {c.table for c in found.candidates}
        retrieved = [t for t in records if t.id in tables]
    answer = normalised(response.rows)
    from_search = normalised(question.gold(retrieved))
    return {
        "id": question.id,
        "collection": question.collection,
        "kind": question.kind,
        "question": question.question,
        "sql": question.sql,
        "gold": gold,
        "query_collection": answer,
        "correct": answer == gold,
        "top_k_search": from_search,
        "top_k_correct": from_search == gold,
        "retrieved": len(retrieved),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peps", type=Path, default=PEPS)
    parser.add_argument("--ddl", type=Path, default=CRM)
    parser.add_argument("--pg-url", default=os.environ.get("SCHEMA_SEARCH_TEST_PG_URL"))
    parser.add_argument("--home", type=Path, help="data directory to reuse (default: a temporary one)")
    parser.add_argument("-k", type=int, default=10, help="results a search-only agent reads (default 10)")
    parser.add_argument("--json", type=Path, help="write the per-question results here")
    args = parser.parse_args(argv)
    if not args.pg_url:
        parser.error("the catalog's gold needs PostgreSQL: give --pg-url or run `bash scripts/setup_postgres.sh`")
    home = args.home or Path(tempfile.mkdtemp(prefix="structured-eval-"))
    workspace = Workspace(Settings(home=home))
    prepare(workspace, args.peps, args.ddl)
    records = {"peps": read_peps(args.peps), "catalog": read_postgres(args.pg_url, args.ddl)}
    results = [evaluate(workspace, q, records[q.collection], args.k) for q in QUESTIONS]

    print(f"{'collection':<10} {'kind':<7} {'questions':>9} {'query_collection':>17} {f'top-{args.k} search':>14}")
    groups = sorted({(r["collection"], r["kind"]) for r in results})
    for collection, kind in [*groups, ("all", "all")]:
        mine = [r for r in results if collection == "all" or (r["collection"], r["kind"]) == (collection, kind)]
        right = sum(r["correct"] for r in mine)
        search = sum(r["top_k_correct"] for r in mine)
        print(
            f"{collection:<10} {kind:<7} {len(mine):>9} {right:>10} ({right / len(mine):.0%}) {search:>7} ({search / len(mine):.0%})"
        )
    for r in results:
        if not r["correct"]:
            print(f"  wrong: {r['id']} {r['question']} gold={r['gold'][:3]} got={r['query_collection'][:3]}")
    if args.json:
        args.json.write_text(json.dumps({"k": args.k, "results": results}, indent=1, ensure_ascii=False) + "\n")
    return 0 if all(r["correct"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
