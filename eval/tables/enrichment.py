"""The enrichment experiment: do generated descriptions help, merged into one field or kept apart?

For pooled Spider (dev questions; dev + train schemas) and pooled BIRD (dev questions
with evidence; dev + train schemas), all-gold recall@5/@10 of:

* ``none``: no descriptions, the shipped default ranking;
* ``merged``: descriptions folded into one field with everything else, the way most
  tools index (the eval's ``merged`` configuration over the described catalog);
* ``separate``: descriptions in their own *descriptions* field (not in the other
  fields, nor in the embedding text), ranked by the shipped default fusion, which
  weighs that channel per question by its novelty; ``separate, weighed by coverage
  only`` is the same without the novelty weighting.

``merged`` without descriptions is shown too, so the merged field's own change is
visible, and ``none``/``separate`` again with the BM25 channels alone (the release
before embedded the descriptions too; now only the descriptions channel sees them).
Then BIRD's own descriptions (written by its annotators, text that carries
information) as comments (shipped), left out, and moved into the descriptions field
(:func:`own_text_experiment`). Then the IDF-collapse diagnostic (:mod:`schema_search.tables.diagnose`): the words whose
document frequency crossed half of a field's documents because of the descriptions.

Descriptions come from the committed ``eval/data/descriptions_smollm2.jsonl`` (made by
:mod:`eval.tables.describe_benchmarks`), so no model runs here::

    .venv/bin/python -m eval.tables.enrichment                     # ~minutes: 4 indexings, ~2,600 questions x 2
    .venv/bin/python -m eval.tables.enrichment --limit 300 --json eval/results/enrichment.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from schema_search.describe.descriptions import apply_descriptions, read_descriptions
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Description, Table
from schema_search.tables.diagnose import SHARE_LIMIT, diagnose, widespread_words

from .benchmarks import POOLED, Database, catalog_of, load_benchmark, load_databases, pooled
from .configs import DEFAULT, MERGED, NO_NOVELTY
from .describe_benchmarks import BENCHMARKS, DESCRIPTIONS
from .runner import run_eval

SLICES = {"spider": ("spider_dev", ("spider_train_schemas",)), "bird": ("bird_dev", ("bird_train_schemas",))}
KS = (5, 10)


def described(databases: Sequence[Database], descriptions: dict) -> tuple[Database, ...]:
    """The databases with the generated descriptions applied (by table id and content hash)."""
    out = []
    for database in databases:
        catalog = apply_descriptions(Catalog(database.db_id, database.tables), descriptions)
        out.append(replace(database, tables=catalog.tables))
    return tuple(out)


def _uncommented(table: Table) -> Table:
    return replace(table, comment=None, columns=tuple(replace(c, comment=None) for c in table.columns))


def without_comments(databases: Sequence[Database]) -> tuple[Database, ...]:
    """The databases with the benchmark's own table and column descriptions taken out."""
    return tuple(replace(d, tables=tuple(map(_uncommented, d.tables))) for d in databases)


def comments_as_descriptions(databases: Sequence[Database]) -> tuple[Database, ...]:
    """The benchmark's own descriptions moved into the generated-description field.

    BIRD's column and value descriptions are written by people who knew the data: text
    that carries information. Moved into the descriptions channel (and out of the
    comments), they show what that channel does with descriptions worth reading.
    """
    return tuple(replace(d, tables=tuple(map(_comments_as_description, d.tables))) for d in databases)


def _comments_as_description(table: Table) -> Table:
    texts = ([table.comment] if table.comment else []) + [f"{c.name}: {c.comment}" for c in table.columns if c.comment]
    bare = _uncommented(table)
    if not texts:
        return bare
    description = Description(
        text=" ".join(texts),
        model="bird-annotators",
        prompt_version="benchmark",
        generated_at="",
        content_hash=bare.content_hash(),
    )
    return replace(bare, description=description)


def own_text_experiment(limit: int | None = None, root: Path = BENCHMARKS, settings: Settings | None = None) -> dict:
    """Pooled BIRD with its own descriptions as comments (shipped), without them, and as descriptions."""
    dev, distractor_folders = SLICES["bird"]
    benchmark = load_benchmark(root / dev, limit)
    distractors = tuple(db for folder in distractor_folders for db in load_databases(root / folder))
    settings = settings or Settings()
    # name -> (benchmark, distractors, whether the text is in the descriptions field)
    variants = {
        "as comments (text channel), shipped": (benchmark, distractors, False),
        "left out": (
            replace(benchmark, databases=without_comments(benchmark.databases)),
            without_comments(distractors),
            False,
        ),
        "as descriptions (descriptions channel)": (
            replace(benchmark, databases=comments_as_descriptions(benchmark.databases)),
            comments_as_descriptions(distractors),
            True,
        ),
    }
    rows = {}
    for name, (bench, extra, in_descriptions) in variants.items():
        run = run_eval(bench, POOLED, extra, [DEFAULT, NO_NOVELTY] if in_descriptions else [DEFAULT], KS, settings)
        rows[name] = run.result(DEFAULT).recall
        if in_descriptions:
            rows[name + ", weighed by coverage only"] = run.result(NO_NOVELTY).recall
    return {
        "benchmark": "bird",
        "questions": len(benchmark.questions),
        "recall": {row: {f"recall@{k}": round(v[k], 4) for k in KS} for row, v in rows.items()},
    }


def experiment(
    name: str,
    limit: int | None = None,
    descriptions_path: Path = DESCRIPTIONS,
    root: Path = BENCHMARKS,
    settings: Settings | None = None,
    top_words: int = 40,
) -> dict:
    """Recall of none / merged / separate on one pooled benchmark, and the collapsed words."""
    dev, distractor_folders = SLICES[name]
    benchmark = load_benchmark(root / dev, limit)
    distractors = tuple(db for folder in distractor_folders for db in load_databases(root / folder))
    descriptions = read_descriptions(descriptions_path)
    enriched = replace(benchmark, databases=described(benchmark.databases, descriptions))
    enriched_distractors = described(distractors, descriptions)

    settings = settings or Settings()
    plain = run_eval(benchmark, POOLED, distractors, [DEFAULT, MERGED], KS, settings)
    rich = run_eval(enriched, POOLED, enriched_distractors, [DEFAULT, MERGED, NO_NOVELTY], KS, settings)
    # The BM25 channels alone: the fields' effect without the dense channel's.
    lexical = settings.model_copy(update={"dense": False})
    plain_lexical = run_eval(benchmark, POOLED, distractors, [DEFAULT], KS, lexical)
    rich_lexical = run_eval(enriched, POOLED, enriched_distractors, [DEFAULT], KS, lexical)
    rows = {
        "none": plain.result(DEFAULT).recall,
        "merged (no descriptions)": plain.result(MERGED).recall,
        "merged": rich.result(MERGED).recall,
        "separate": rich.result(DEFAULT).recall,
        "separate, weighed by coverage only": rich.result(NO_NOVELTY).recall,
        "none, BM25 channels only": plain_lexical.result(DEFAULT).recall,
        "separate, BM25 channels only": rich_lexical.result(DEFAULT).recall,
    }

    catalog = catalog_of(name, pooled(enriched, enriched_distractors))
    diagnosis = diagnose(catalog, widespread_words(catalog, top_words))
    crossed = [
        {
            "word": r.word,
            "field": r.field,
            "before": r.before,
            "after": r.after,
            "documents": r.documents,
            "idf_before": round(r.idf_before, 3),
            "idf_after": round(r.idf_after, 3),
        }
        for r in diagnosis.rows
        if r.collapsed and r.before <= r.documents * SHARE_LIMIT
    ]
    fusion = settings.model_dump(
        include={
            "rrf_k",
            "weight_names",
            "weight_text",
            "weight_body",
            "weight_descriptions",
            "weight_dense",
            "dense",
            "scale_by_coverage",
        }
    )
    return {
        "benchmark": name,
        "settings": fusion,
        "questions": plain.questions,
        "tables": plain.tables,
        "described": diagnosis.described,
        "recall": {row: {f"recall@{k}": round(v[k], 4) for k in KS} for row, v in rows.items()},
        "crossed_half": crossed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="questions per benchmark, evenly spaced (default: all)")
    parser.add_argument("--descriptions", type=Path, default=DESCRIPTIONS)
    parser.add_argument("--json", type=Path, help="write the figures as JSON")
    parser.add_argument("--benchmarks", nargs="+", default=list(SLICES), choices=list(SLICES))
    args = parser.parse_args(argv)

    results = []
    for name in args.benchmarks:
        print(f"{name} ...", file=sys.stderr)
        results.append(experiment(name, args.limit, args.descriptions))
    print(markdown(results))
    own = None
    if "bird" in args.benchmarks:
        print("bird, its own descriptions ...", file=sys.stderr)
        own = own_text_experiment(args.limit)
        print()
        print(own_text_markdown(own))
    if args.json:
        args.json.write_text(
            json.dumps({"generated": results, "bird_own_text": own}, indent=2) + "\n", encoding="utf-8"
        )
    return 0


def own_text_markdown(result: dict) -> str:
    """The BIRD own-descriptions rows, as Markdown."""
    lines = [
        f"BIRD's own descriptions ({result['questions']} questions, pooled):",
        "",
        "| BIRD's descriptions | " + " | ".join(f"R@{k}" for k in KS) + " |",
        "|---|" + "---:|" * len(KS),
    ]
    for row, figures in result["recall"].items():
        lines.append(f"| {row} | " + " | ".join(f"{figures[f'recall@{k}']:.3f}" for k in KS) + " |")
    return "\n".join(lines)


def markdown(results: list[dict]) -> str:
    """The side-by-side table and the collapsed words, as Markdown."""
    header = "| descriptions | " + " | ".join(f"{r['benchmark']} R@{k}" for r in results for k in KS) + " |"
    lines = [
        f"Fusion settings: {', '.join(f'{k}={v}' for k, v in results[0].get('settings', {}).items())}.",
        "",
        header,
        "|---|" + "---:|" * (len(results) * len(KS)),
    ]
    for row in results[0]["recall"]:
        cells = [f"{r['recall'][row][f'recall@{k}']:.3f}" for r in results for k in KS]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    for r in results:
        lines.append("")
        lines.append(
            f"{r['benchmark']}: {r['questions']} questions, {r['tables']} tables, {r['described']} described. "
            f"Words whose document frequency crossed half the collection because of the descriptions:"
        )
        by_word: dict[str, list[str]] = {}
        for c in r["crossed_half"]:
            by_word.setdefault(c["word"], []).append(f"{c['field']} {c['before']}→{c['after']}/{c['documents']}")
        lines += [f"- `{w}`: {', '.join(v)}" for w, v in by_word.items()] or ["- none"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
