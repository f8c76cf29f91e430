"""Describe every table of the pooled Spider and BIRD catalogs, for the enrichment experiment.

The generated descriptions are committed as ``eval/data/descriptions_smollm2.jsonl``
(one line per table: ``table``, ``text``, ``model``, ``prompt_version``,
``generated_at``, ``content_hash``), so the experiment reruns without the model::

    from eval.tables.describe_benchmarks import with_descriptions
    catalog = with_descriptions(catalog)      # fills Table.description where the hash matches

To regenerate (resumable: lines already in the file are kept and skipped)::

    .venv/bin/python -m eval.tables.describe_benchmarks                  # embedded SmolLM2, ~0.4 s a table
    .venv/bin/python -m eval.tables.describe_benchmarks --model openai/gpt-4o-mini --out eval/data/descriptions_gpt4o_mini.jsonl
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from schema_search.describe.descriptions import DescriptionLog, apply_descriptions, read_descriptions
from schema_search.tables.catalog import Catalog

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO.parent / "shared" / "benchmarks"
DESCRIPTIONS = Path(__file__).resolve().parents[1] / "data" / "descriptions_smollm2.jsonl"
POOLS = {
    "spider": ("spider_dev", "spider_train_schemas"),
    "bird": ("bird_dev", "bird_train_schemas"),
}


def pooled_catalog(name: str, root: Path = BENCHMARKS) -> Catalog:
    """The pooled benchmark catalog (dev + train schemas): ``spider`` or ``bird``."""
    from schema_search.connectors import benchmark

    source = ",".join(str(root / folder / benchmark.FILENAME) for folder in POOLS[name])
    return benchmark.introspect(source, catalog=name)


def with_descriptions(catalog: Catalog, path: Path = DESCRIPTIONS) -> Catalog:
    """``catalog`` with the committed generated descriptions applied (matched by table id and content hash)."""
    return apply_descriptions(catalog, read_descriptions(path))


def main(argv: list[str] | None = None) -> int:
    from schema_search.describe.run import describe_catalog, litellm_describer
    from schema_search.settings import Settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--out", type=Path, default=DESCRIPTIONS)
    parser.add_argument("--concurrency", type=int, default=1, help="1 for the embedded model (it takes turns anyway)")
    parser.add_argument("--pools", nargs="+", default=list(POOLS), choices=list(POOLS))
    args = parser.parse_args(argv)

    describer = litellm_describer(Settings(), args.model)
    log = DescriptionLog(args.out)
    for name in args.pools:
        catalog = pooled_catalog(name)
        started = time.perf_counter()
        run = describe_catalog(
            catalog,
            describer,
            concurrency=args.concurrency,
            cache=read_descriptions(args.out),
            on_described=log.append,
            progress=_progress(name),
        )
        n = len(run.described)
        print(
            f"{name}: {len(catalog.tables)} tables, {n} described in {time.perf_counter() - started:.0f} s"
            f" ({run.seconds / max(n, 1):.2f} s each), {len(run.reused)} from the file, {len(run.failed)} failed",
            file=sys.stderr,
        )
        if run.stopped:
            print(f"stopped at {run.stopped[0]}: {run.stopped[1].reason}", file=sys.stderr)
            return 1
    # One line per (table, content hash), sorted, so the committed file diffs cleanly.
    found = read_descriptions(args.out)
    log.compact((table, found[(table, digest)]) for table, digest in sorted(found))
    print(f"wrote {len(found)} descriptions to {args.out}", file=sys.stderr)
    return 0


def _progress(name: str):
    from tqdm import tqdm

    def start(total: int):
        bar = tqdm(total=total, desc=name, unit="table", file=sys.stderr, mininterval=5)
        return lambda: bar.update(1)

    return start


if __name__ == "__main__":
    sys.exit(main())
