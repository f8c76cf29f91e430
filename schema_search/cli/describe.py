"""``schemasift describe`` (generated descriptions for a stored catalog, then re-index) and
``schemasift diagnose`` (the words descriptions spread over most tables: IDF collapse)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import InvalidInput
from ..settings import Settings
from ..workspace import Workspace
from .output import counted, examples, print_table, progress_lines


def add_commands(commands: argparse._SubParsersAction) -> None:
    describe = commands.add_parser(
        "describe",
        help="write a plain-English description of each table with an LLM, then re-index",
        description=(
            "Describe each table (purpose, grain, key columns, joins) into its generated-description "
            "field and re-index. The default model is embedded (no key, no network); any litellm model "
            "works, with its key in the provider's usual environment variable (e.g. OPENAI_API_KEY). "
            "DB comments are never overwritten; unchanged tables are skipped."
        ),
        **examples(
            "schemasift describe --catalog shop",
            "schemasift describe --catalog crm --model openai/gpt-4o-mini --concurrency 8",
            "schemasift describe --catalog crm --only all",
        ),
    )
    describe.add_argument("--catalog", required=True, help="catalog whose tables to describe")
    describe.add_argument(
        "--model",
        help="litellm model, e.g. local/smollm2 (default), openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
        "ollama/llama3.2 (default: $SCHEMA_SEARCH_DESCRIBE_MODEL)",
    )
    describe.add_argument("--concurrency", type=int, help="calls in flight at once (default 4)")
    describe.add_argument(
        "--only",
        type=str.lower,
        choices=("changed", "all"),
        default="changed",
        help="CHANGED (default): tables without a description from this model and prompt for their "
        "current content; ALL: every table again",
    )
    describe.set_defaults(run=_describe)

    diagnose = commands.add_parser(
        "diagnose",
        help="IDF-collapse check: words that descriptions spread over most tables",
        description=(
            "For given words, or the most frequent content words of a questions file, or else the most "
            "widespread words of the catalog: how many table documents contain each, per field, before and "
            "after enrichment (generated descriptions), with BM25's IDF; warns for every word in more than "
            "half of a field's documents."
        ),
        **examples(
            "schemasift diagnose --catalog crm --words store,information,customer",
            "schemasift diagnose --catalog crm --questions sample_schemas/crm_cases.jsonl --top 30",
        ),
    )
    diagnose.add_argument("--catalog", required=True, help="catalog to check")
    diagnose.add_argument("--words", help="comma-separated words, e.g. store,information,customer")
    diagnose.add_argument("--questions", type=Path, help="questions file: JSON lines with 'question', or plain lines")
    diagnose.add_argument("--top", type=int, default=20, help="how many words to take from questions (default 20)")
    diagnose.add_argument("--json", action="store_true", help="print the report as JSON")
    diagnose.set_defaults(run=_diagnose)


def _describe(args: argparse.Namespace, settings: Settings) -> int:
    from ..describe.run import describe_and_index, litellm_describer

    if args.concurrency is not None and args.concurrency < 1:
        print("error: --concurrency must be at least 1", file=sys.stderr)
        return 2
    workspace = Workspace(settings)
    workspace.catalogs.store.current(args.catalog)  # an unknown catalog fails at once, before any model loads
    describer = litellm_describer(settings, args.model)  # so does a missing key: before litellm loads
    if describer.model.startswith("local/"):
        from ..llm import runtime

        try:  # before the progress bar, so pip's output has the terminal to itself
            runtime.ensure()
        except runtime.RuntimeMissing as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    print(f"Describing catalog {args.catalog!r} with {describer.model} ...", file=sys.stderr)
    run = describe_and_index(
        workspace, args.catalog, describer, only=args.only, concurrency=args.concurrency, progress=_progress
    )
    described = len(run.described)
    per_table = f" ({run.seconds / described:.2f} s per table)" if described else ""
    print(
        f"Described {counted(described, 'table')} in {run.seconds:.1f} s{per_table}; "
        f"{run.fresh} already up to date, {len(run.reused)} restored from the cache, {len(run.failed)} failed."
    )
    if run.empty:
        print(
            f"warning: {counted(len(run.empty), 'table')} got no usable answer (the model wrote only code), e.g. "
            f"{', '.join(run.empty[:5])}; a larger model does better (--model).",
            file=sys.stderr,
        )
    for table, reason in list(run.failed.items())[:20]:
        print(f"  failed: {table}: {reason}", file=sys.stderr)
    if described or run.reused:
        print(
            f"Re-indexed catalog {args.catalog!r}; see a description with `schemasift table TABLE --catalog {args.catalog}`."
        )
    if run.interrupted:
        print("Interrupted: re-run the same command to describe the rest.", file=sys.stderr)
        return 130
    return 1 if run.failed else 0


def _progress(total: int) -> Callable[[], None]:
    """A tick per table described: a bar on a terminal, lines in a log (``output.progress_lines``)."""
    if not sys.stderr.isatty():
        lines = progress_lines(range(total), "describing", "table")
        next(lines, None)  # started now, so the first table is timed too

        def line() -> None:
            next(lines, None)  # pulling table n+1 says n are done; past the last, the closing line

        return line

    from tqdm import tqdm

    bar = tqdm(total=total, desc="describing", unit="table", file=sys.stderr)

    def tick() -> None:
        bar.update(1)
        if bar.n >= total:
            bar.close()

    return tick


def _diagnose(args: argparse.Namespace, settings: Settings) -> int:
    from ..tables import diagnose

    catalog = Workspace(settings).catalogs.searcher(args.catalog).catalog
    if args.words:
        words = [w.strip() for w in args.words.split(",") if w.strip()]
        source = "given words"
    elif args.questions:
        if not args.questions.is_file():
            raise InvalidInput(f"{args.questions} does not exist.", hint="Give a questions.jsonl or a text file.")
        words = diagnose.question_words(diagnose.read_questions(args.questions), args.top)
        source = f"the {len(words)} most frequent content words of {args.questions}"
    else:
        words = diagnose.widespread_words(catalog, args.top)
        source = f"the {len(words)} terms in the most table documents"
    if not words:
        raise InvalidInput("No words to check.", hint="Give --words w1,w2 or a --questions file with questions.")
    result = diagnose.diagnose(catalog, words, analysed=not (args.words or args.questions))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print(
        f"Catalog {result.catalog!r}: {counted(result.tables, 'table')}, {result.described} with a generated description. "
        f"Checking {source}."
    )
    if not result.described:
        print("No table has a generated description yet, so before = after; run `schemasift describe` first.")
    rows = [
        (
            r.word,
            r.term,
            r.field,
            f"{r.before} -> {r.after} / {r.documents}",
            f"{r.idf_before:.2f} -> {r.idf_after:.2f}",
            "COLLAPSED" if r.collapsed else "",
        )
        for r in result.rows
    ]
    print_table(("word", "term", "field", "documents before -> after", "IDF before -> after", ""), rows)
    if result.unindexed:
        print(f"Not indexed (stop words): {', '.join(result.unindexed)}")
    for line in result.warnings():
        print(f"warning: {line}")
    if not result.warnings():
        print(f"No word is in more than {diagnose.SHARE_LIMIT:.0%} of a field's documents.")
    return 0
