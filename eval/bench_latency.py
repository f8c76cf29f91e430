"""Latency benchmark (a script, not a test): build and search a synthetic catalog.

    python -m eval.bench_latency [--tables 10000] [--queries 1000]

Prints build time, search p50/p99 through the full pipeline (all channels, fusion,
candidates with columns/joins/DDL), and the same figures for a bare tantivy query
over one field timed in the same process, so the ratio holds on a noisy machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from schema_search.core import index as tantivy_index
from schema_search.core.analyzer import words
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Column, ForeignKey, Table, table_id
from schema_search.workspace import Workspace

VOCABULARY = """account address adjustment agent alert allocation approval asset attachment audit balance
batch benefit billing budget campaign card carrier case category channel charge claim client code comment
commission company contact contract cost country coupon credit currency customer dashboard deal delivery
department deposit device discount dispute document donation driver email employee enrollment entry event
expense export facility fee feedback file forecast fund grant group hold import incident inventory invoice
item job journal label lead ledger license line list location log loyalty manager member message metric
milestone note notification offer order organization owner package partner payment payroll period permission
phone plan policy portal position price product profile project promotion provider purchase quota quote rate
receipt record refund region registration release renewal report request reservation resource return review
reward risk role route rule sale schedule segment service session setting shipment shift site skill sku
source stage statement status stock store subscription supplier survey task tax team template tenant term
territory ticket tier timesheet token transaction transfer trip unit usage user vendor visit voucher warehouse
webhook workflow""".split()
TYPES = ("BIGINT", "INTEGER", "TEXT", "VARCHAR(255)", "NUMERIC(12,2)", "DATE", "TIMESTAMP", "BOOLEAN")


def synthetic_catalog(n_tables: int, seed: int = 7) -> Catalog:
    """A catalog of ``n_tables`` tables with realistic-looking names, FKs and comments."""
    rng = random.Random(seed)
    tables: list[Table] = []
    names: set[str] = set()
    while len(tables) < n_tables:
        schema = f"app{len(tables) // 500}"
        name = "_".join(rng.sample(VOCABULARY, rng.choice((1, 2, 2, 3))))
        if (schema, name) in names:
            continue
        names.add((schema, name))
        columns = [Column("id", "BIGINT", False)]
        columns += [
            Column(
                "_".join(rng.sample(VOCABULARY, rng.choice((1, 2)))) + rng.choice(("", "_id", "_at", "_code")),
                rng.choice(TYPES),
                comment=" ".join(rng.sample(VOCABULARY, 6)) if rng.random() < 0.2 else None,
            )
            for _ in range(rng.randint(4, 20))
        ]
        columns = list({c.name: c for c in columns}.values())
        fks = ()
        if tables and rng.random() < 0.7:
            target = rng.choice(tables[-200:])
            columns.append(Column(f"{target.name}_id", "BIGINT"))
            fks = (ForeignKey((f"{target.name}_id",), table_id(target.schema, target.name), ("id",)),)
        comment = " ".join(rng.sample(VOCABULARY, rng.randint(5, 15))).capitalize() if rng.random() < 0.5 else None
        tables.append(Table(schema, name, columns=tuple(columns), primary_key=("id",), foreign_keys=fks, comment=comment))
    return Catalog("bench", tuple(tables))


def questions(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    templates = ("how many {} per {} last month", "which {} have no {}", "total {} by {} and {}", "list {} with {}")
    out = []
    for _ in range(n):
        template = rng.choice(templates)
        out.append(template.format(*rng.sample(VOCABULARY, template.count("{}"))))
    return out


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--threads", type=int, default=None, help="embedding threads (default: torch's)")
    args = parser.parse_args()

    catalog = synthetic_catalog(args.tables)
    asked = questions(args.queries)
    print(f"catalog: {len(catalog.tables)} tables, {sum(len(t.columns) for t in catalog.tables)} columns")
    rows: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as home:
        for label, dense in (("BM25 channels only", False), ("default (BM25 + dense)", True)):
            workspace = Workspace(Settings(home=Path(home) / label[:4], dense=dense, embedding_threads=args.threads))
            started = time.perf_counter()
            workspace.index_catalog(catalog)
            print(f"build, {label}: {time.perf_counter() - started:.2f} s")
            full, ranking, bare = _time_queries(workspace, asked, args.k)
            rows += [
                (f"{label}: search() end to end", full),
                (f"{label}: ranking stages only", ranking),
            ]
    rows.append(("bare tantivy: one field, top-k, fetch ids", bare))
    bare50, _ = percentiles(bare)
    print(f"{'path':<52} {'p50 ms':>8} {'p99 ms':>8} {'p50 x bare':>11}")
    for label, samples in rows:
        p50, p99 = percentiles(samples)
        print(f"{label:<52} {p50:8.3f} {p99:8.3f} {p50 / bare50:11.1f}")


def _time_queries(workspace: Workspace, asked: list[str], k: int) -> tuple[list[float], list[float], list[float]]:
    """Per question: the full search (question embedding included: each question is
    new to the model's cache), the ranking stages again (embedding cached), and a bare
    one-field tantivy query, interleaved so machine noise hits all three alike."""
    searcher = workspace.searcher("bench")
    index = tantivy_index.open_index(workspace.store.current("bench").index_path)
    tantivy_searcher = index.searcher()
    config = workspace.search_config()
    for question in questions(50, seed=3):  # warm-up, different questions
        workspace.search("bench", question, k)
    full, ranking, bare = [], [], []
    for question in asked:
        t0 = time.perf_counter()
        workspace.search("bench", question, k)
        t1 = time.perf_counter()
        searcher.search(question, k, config)
        t2 = time.perf_counter()
        query = index.parse_query(" ".join(words(question)), ["body"])
        hits = tantivy_searcher.search(query, k).hits
        [tantivy_searcher.doc(address)["id"][0] for _, address in hits]
        t3 = time.perf_counter()
        full.append((t1 - t0) * 1000)
        ranking.append((t2 - t1) * 1000)
        bare.append((t3 - t2) * 1000)
    return full, ranking, bare


if __name__ == "__main__":
    main()
