"""``schema-search ask``: argument wiring over the agent."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import InvalidInput
from ..settings import Settings
from ..workspace import Workspace
from .output import print_rows


def add_commands(commands: argparse._SubParsersAction) -> None:
    ask = commands.add_parser(
        "ask",
        help="answer a question: with --catalog, as SQL (find tables, write, validate, optionally run it); "
        "with --corpus, from the documents (passages by search, counts by query_collection), cited",
    )
    ask.add_argument("question")
    ask.add_argument("--catalog", help="catalog to write SQL for (with --corpus: also served as a collection)")
    ask.add_argument("--corpus", action="append", default=[], metavar="NAME", help="corpus to answer from; repeat for several")
    ask.add_argument("--model", required=True, help="litellm model, e.g. gpt-4o-mini or anthropic/claude-3-5-haiku-latest; local/smollm2 runs the embedded model (no key)")
    ask.add_argument("--api-base", help="URL of an OpenAI-compatible server, for --model openai/NAME")
    ask.add_argument("--execute", action="store_true", help="run the SQL read-only and print the rows")
    ask.add_argument(
        "--url", help="database URL for --execute (default: $SCHEMA_SEARCH_SOURCE_URLS, else the catalog's own)"
    )
    ask.add_argument("--json", action="store_true", help="print the answer as JSON")
    ask.set_defaults(run=_ask)


def _ask(args: argparse.Namespace, settings: Settings) -> int:
    if args.corpus:
        return _ask_documents(args, settings)
    if not args.catalog:
        raise InvalidInput("Nothing to answer from.", hint="Give --catalog NAME (SQL) or --corpus NAME (documents).")
    from ..agent import ask as agent
    from ..agent.execute import dialect_of, execute_sql, source_url
    from ..agent.table_tools import SchemaTools

    # The cheap checks first: a missing key should not wait for the catalog to load.
    complete = agent.litellm_complete(args.model, args.api_base)
    tools = SchemaTools(Workspace(settings), args.catalog)
    execute, dialect = None, None
    if args.execute:
        configured = settings.source_urls.get(args.catalog)
        url = source_url(tools.catalog, args.url or (configured.get_secret_value() if configured else None))
        dialect = dialect_of(url)

        def execute(sql: str):
            return execute_sql(
                url,
                sql,
                tools.catalog,
                max_rows=settings.execute_max_rows,
                timeout_s=settings.execute_timeout_s,
                max_bytes=settings.execute_max_bytes,
                memory_mb=settings.execute_process_memory_mb,
                allow_privileged=settings.execute_allow_privileged_role,
            )

    answer = agent.ask(args.question, tools=tools, model=args.model, complete=complete, execute=execute, dialect=dialect)
    for warning in answer.result.warnings if answer.result is not None else ():
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return 0
    print(f"-- SQL ({answer.dialect or 'generic'}, validated{', repaired once' if answer.repaired else ''}):")
    print(answer.sql)
    print()
    print(f"Tables: {'; '.join(answer.tables)}")
    if answer.explanation:
        print(f"Explanation: {answer.explanation}")
    if answer.fabricated:
        print(f"warning: the model cited IDs it was never given: {', '.join(answer.fabricated)}")
    for warning in answer.warnings:
        print(f"warning: {warning}")
    if answer.result is not None:
        result = answer.result
        more = f", more than {result.row_limit}: truncated" if result.truncated else ""
        print(f"\nRows ({len(result.rows)}{more}, {result.seconds:.2f} s):")
        print_rows(result.columns, result.rows)
    return 0


def _ask_documents(args: argparse.Namespace, settings: Settings) -> int:
    from ..agent.answer import answer
    from ..agent.ask import litellm_complete
    from ..agent.collection_tools import CollectionTools
    from ..agent.doc_tools import DocTools

    complete = litellm_complete(args.model, args.api_base)
    workspace = Workspace(settings)
    collections = CollectionTools(workspace, args.corpus, args.catalog)
    result = answer(
        args.question, collections=collections, docs=DocTools(workspace, args.corpus), model=args.model, complete=complete
    )
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return 0
    print(result.text)
    print(f"\n(tools: {', '.join(result.tools)}; {result.turns} turns)")
    for what, items in (("IDs never given", result.fabricated), ("placeholders never issued", result.placeholders_unknown),
                        ("URLs no result carried", result.urls_not_retrieved)):  # fmt: skip
        if items:
            print(f"warning: the answer has {what}: {', '.join(items)}")
    return 0
