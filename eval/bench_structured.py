"""Structured-index benchmark: what a guarded query costs, next to the bare engine timed in the same run.

    .venv/bin/python -m eval.bench_structured

Over the 703 PEPs: building the ``documents`` table (propose, validate, type) next to
reading the same headers with ``email.parser``; and per query, the sandboxed path the
adapters take, ``run_query`` in process (parse and guard with sqlglot, a fresh
locked-down in-memory DuckDB, load, run, rows tied back to source IDs), and the same
SQL on one DuckDB connection loaded once.
"""

from __future__ import annotations

import argparse
import email.parser
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import duckdb

from schema_search.docs.chunker import Chunking
from schema_search.docs.sources import read_corpus
from schema_search.structured.engine import load_table
from schema_search.structured.query import run_query
from schema_search.structured.sandbox import Sandbox
from schema_search.structured.sources import corpus_collection

from .structured.questions import PEPS

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO.parent / "shared" / "docs_corpora" / "peps"


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"p50 {statistics.median(ordered) * 1000:7.2f} ms  p99 {p99 * 1000:7.2f} ms"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peps", type=Path, default=FOLDER)
    parser.add_argument("--repeat", type=int, default=5, help="runs of every question (default 5)")
    args = parser.parse_args(argv)

    corpus = read_corpus(args.peps, "peps", Chunking())
    started = time.perf_counter()
    collection = corpus_collection(corpus)
    build = time.perf_counter() - started
    started = time.perf_counter()
    for document in corpus.documents:
        text = (args.peps / document.path).read_text(encoding="utf-8")
        email.parser.HeaderParser().parsestr(text.split("\n\n", 1)[0])
    reference = time.perf_counter() - started
    print(
        f"documents table for {len(corpus.documents)} PEPs: {build * 1000:.0f} ms "
        f"(reference: email.parser reading the same headers from disk, {reference * 1000:.0f} ms)"
    )

    bare = duckdb.connect(":memory:")
    for table in collection.tables:
        load_table(bare, table)
    sandbox = Sandbox(2048 * 2**20)
    sandbox.query(("peps",), collection, sql="SELECT 1", form=None, max_rows=1, timeout_s=5, memory_limit="256MB")
    guarded, sandboxed, engine = [], [], []
    for _ in range(args.repeat):
        for question in PEPS:
            started = time.perf_counter()
            run_query(collection, sql=question.sql, max_rows=500, timeout_s=5)
            guarded.append(time.perf_counter() - started)
            started = time.perf_counter()
            sandbox.query(
                ("peps",), collection, sql=question.sql, form=None, max_rows=500, timeout_s=5, memory_limit="256MB"
            )
            sandboxed.append(time.perf_counter() - started)
            started = time.perf_counter()
            bare.execute(question.sql).fetchmany(501)
            engine.append(time.perf_counter() - started)
    sandbox.close()
    print(f"{len(sandboxed)} queries, as adapters run them (in the sandbox's child process):     {_ms(sandboxed)}")
    print(f"{len(guarded)} queries, run_query in process (guard + fresh locked-down DuckDB + load): {_ms(guarded)}")
    print(f"{len(engine)} queries, reference: the same SQL on one loaded DuckDB connection:         {_ms(engine)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
