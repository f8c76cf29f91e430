"""``python -m eval.cluster.agreement``: a corpus or catalog served as shards against the same one on one index.

Indexes it once unsharded, then again into ``--shards`` shards (the vectors are reused:
nothing is embedded twice), and asks both every question. Reports the share of
questions whose top 10 is identical (same items, same order), recall at 1/5/10 for
both (all gold pages, or all gold tables, in the first k), and the search time of each:
the shards asked in this process (what sharding adds before any network) and, with
``--ray ADDRESS``, served by Ray Serve (what the scatter-gather adds).

A corpus folder takes question files; a benchmark folder (``schemas.jsonl``, ``questions.jsonl``)
is a catalog, pooled with ``--distractors`` as the table eval pools it:

    python -m eval.cluster.agreement ../shared/docs_corpora/fastapi \\
        eval/docs_questions/fastapi.jsonl eval/docs_questions/fastapi_dev.jsonl --shards 3 --out eval/results/shards-fastapi.json
    python -m eval.cluster.agreement ../shared/benchmarks/bird_dev \\
        --distractors ../shared/benchmarks/bird_train_schemas --shards 3 --out eval/results/shards-bird.json
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from schema_search.cli.docs import UNITS
from schema_search.cli.main import command_line
from schema_search.cli.output import progress
from schema_search.core.store import Generation
from schema_search.docs.search import CorpusSearcher
from schema_search.settings import Settings
from schema_search.tables.search import CatalogSearcher
from schema_search.workspace import Workspace

from ..cli import one_embedding_thread, write_json
from ..docs.configs import CHUNK_DEPTH, _distinct_pages
from ..docs.questions import load_questions
from ..metrics import all_gold_recall, mean, percentile
from ..tables.benchmarks import SCHEMAS_FILE, catalog_of, load_benchmark, load_databases, pooled

KS = (1, 5, 10)
TOP = 10
NAME = "agreement"


def parser() -> argparse.ArgumentParser:
    run = argparse.ArgumentParser(prog="python -m eval.cluster.agreement", description=__doc__.split("\n\n")[0])
    run.add_argument("source", type=Path, help="a corpus folder, or a benchmark folder (tables)")
    run.add_argument("sets", type=Path, nargs="*", metavar="QUESTIONS", help="question files (.jsonl) of a corpus")
    run.add_argument("--distractors", type=Path, help="a benchmark's train schemas, pooled with its own (tables)")
    run.add_argument("--limit", type=int, help="questions of a benchmark, evenly spaced (default: all)")
    run.add_argument("--shards", type=int, default=3)
    run.add_argument("--ray", metavar="ADDRESS", help="also serve the shards on this Ray cluster (`local`: start one)")
    run.add_argument("--work", type=Path, help="data directory (kept: a re-run reuses its vectors)")
    run.add_argument(
        "--name", default=NAME, help=f"the corpus or catalog in it (default {NAME}; its vectors are reused)"
    )
    run.add_argument("--out", type=Path, help="write the figures as JSON")
    run.set_defaults(run=_agreement)
    return run


def _agreement(args: argparse.Namespace, settings: Settings) -> int:
    settings = one_embedding_thread(settings)
    tables = (args.source / SCHEMAS_FILE).is_file()
    with tempfile.TemporaryDirectory(prefix="schemasift-shards-") as scratch:
        workspace = Workspace(settings.model_copy(update={"home": args.work or Path(scratch)}))
        sources = workspace.catalogs if tables else workspace.corpora
        if tables:
            benchmark = load_benchmark(args.source, args.limit)
            databases = pooled(benchmark, load_databases(args.distractors) if args.distractors else ())
            catalog = catalog_of(args.name, databases)

            def index(shards: int):
                return workspace.catalogs.index_catalog(catalog, progress(UNITS), shards=shards)

            sets = [Asked(benchmark.name, [(q.text, q.gold) for q in benchmark.questions])]
        else:

            def index(shards: int):
                return workspace.corpora.index(args.source, corpus=args.name, shards=shards, progress=progress(UNITS))

            sets = [Asked(q.name, [(x.text, x.gold) for x in q.questions]) for q in map(load_questions, args.sets)]
        print(f"Indexing {args.source} unsharded, then in {args.shards} shards ...", file=sys.stderr)
        index(1)
        one = Generation(args.name, sources.store.current(args.name).path)
        started = time.perf_counter()
        index(args.shards)
        resharded = time.perf_counter() - started
        opener = CatalogSearcher.open if tables else CorpusSearcher.open
        searchers = {"single": opener(one, workspace.embedder()), "shards": sources.searcher(args.name)}
        if args.ray:
            on_ray = Workspace(workspace.settings.model_copy(update={"ray_address": args.ray}))
            started = time.perf_counter()
            searchers["shards on Ray"] = (on_ray.catalogs if tables else on_ray.corpora).searcher(args.name)
            opened = time.perf_counter() - started
        figures = compare(searchers, sets, search_of(tables, sources.config()))
        live = sources.store.current(args.name).manifest()
    figures = {
        "source": str(args.source) + (f" + {args.distractors}" if args.distractors else ""),
        "items": sum(live["shard_sizes"]),
        "shards": args.shards,
        "shard_sizes": live["shard_sizes"],
        "seconds_to_write_the_shards": round(resharded, 1),
        **({"seconds_to_deploy_on_ray": round(opened, 1)} if args.ray else {}),
        **figures,
    }
    _print(figures)
    write_json(args.out, figures)
    return 0


class Asked:
    """A named set of questions, each with its gold (pages or tables); no gold: unanswerable."""

    def __init__(self, name: str, questions: list[tuple[str, tuple[str, ...]]]) -> None:
        self.name = name
        self.questions = questions


def search_of(tables: bool, config):
    """(searcher, question) -> the ranked ids and what recall counts in them (pages of passages, or tables)."""
    if tables:
        return lambda searcher, question: ([r.id for r in searcher.search(question, max(KS), config).ranked],) * 2

    def passages(searcher, question):
        ranked = [r.id for r in searcher.search(question, CHUNK_DEPTH, config).ranking.ranked]
        return ranked, _distinct_pages(searcher, ranked, max(KS))

    return passages


def compare(searchers: dict, sets: list[Asked], search) -> dict:
    """Each searcher's top 10 against the first one's, recall and search times, on every question of ``sets``."""
    out: dict = {"sets": {}}
    reference = next(iter(searchers))
    for asked in sets:
        same = {label: [] for label in searchers}
        recall: dict = {label: {} for label in searchers}
        timings: dict = {label: [] for label in searchers}
        differing = []
        for question, gold in asked.questions:
            tops = {}
            for label, searcher in searchers.items():
                started = time.perf_counter()
                ranked, counted = search(searcher, question)
                timings[label].append((time.perf_counter() - started) * 1000)
                tops[label] = ranked[:TOP]
                for k in KS if gold else ():
                    recall[label].setdefault(k, []).append(all_gold_recall(counted, gold, k))
            for label in searchers:
                same[label].append(tops[label] == tops[reference])
            if not all(same[label][-1] for label in searchers):
                differing.append(question)
        out["sets"][asked.name] = {
            "questions": len(asked.questions),
            "identical_top10": {label: round(mean([float(x) for x in v]), 4) for label, v in same.items()},
            "differing": differing,
            "recall": {label: {k: round(mean(v), 4) for k, v in by_k.items()} for label, by_k in recall.items()},
            "p50_ms": {label: round(percentile(t, 50), 1) for label, t in timings.items()},
            "p99_ms": {label: round(percentile(t, 99), 1) for label, t in timings.items()},
        }
    total = sum(s["questions"] for s in out["sets"].values())
    out["identical_top10_all"] = {
        label: round(sum(s["identical_top10"][label] * s["questions"] for s in out["sets"].values()) / max(total, 1), 4)
        for label in searchers
    }
    return out


def _print(figures: dict) -> None:
    sizes = ", ".join(f"{n:,}" for n in figures["shard_sizes"])
    print(f"{figures['source']}: {figures['items']:,} items in {figures['shards']} shards ({sizes})")
    for name, s in figures["sets"].items():
        print(f"  {name}, {s['questions']} questions:")
        for label in s["p50_ms"]:
            recall = "  ".join(f"R@{k} {v:.3f}" for k, v in s["recall"][label].items())
            print(
                f"    {label:14s} identical top 10 {s['identical_top10'][label]:6.1%}  {recall}  "
                f"p50 {s['p50_ms'][label]} ms  p99 {s['p99_ms'][label]} ms"
            )
    every = ", ".join(f"{label} {share:.1%}" for label, share in figures["identical_top10_all"].items())
    print(f"  identical top 10 over all questions: {every}")


if __name__ == "__main__":
    sys.exit(command_line(parser(), sys.argv[1:]))
