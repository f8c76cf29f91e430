"""``schemasift ask``: argument wiring over the agent."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ..errors import InvalidInput
from ..llm.providers import stdout_to_stderr
from ..settings import Settings
from ..workspace import Workspace
from .output import confirm, examples, print_rows

if TYPE_CHECKING:
    from ..agent.ask import Complete


def add_commands(commands: argparse._SubParsersAction) -> None:
    ask = commands.add_parser(
        "ask",
        help="answer a question: with --catalog, as SQL (find tables, write, validate, optionally run it); "
        "with --corpus, from the documents (passages by search, counts by query_collection), cited",
        **examples(
            'schemasift ask "revenue per category" --catalog shop',
            "schemasift ask \"revenue of Acme last month\" --catalog shop --execute --answer 'value:main.suppliers.company_name=Acme GmbH'",
            'schemasift ask "which PEPs are Final?" --corpus peps --model gpt-4o-mini',
        ),
    )
    ask.add_argument("question", help="the question, in plain language (quote it)")
    ask.add_argument("--catalog", help="catalog to write SQL for (with --corpus: also served as a collection)")
    ask.add_argument(
        "--corpus", action="append", default=[], metavar="NAME", help="corpus to answer from; repeat for several"
    )
    ask.add_argument(
        "--model",
        help="litellm model (default: $SCHEMA_SEARCH_ASK_MODEL, else local/smollm2, the embedded model: no key, "
        "no network, but small); e.g. gpt-4o-mini (OPENAI_API_KEY) or anthropic/claude-3-5-haiku-latest (ANTHROPIC_API_KEY)",
    )
    ask.add_argument("--api-base", help="URL of an OpenAI-compatible server, for --model openai/NAME")
    ask.add_argument(
        "--execute",
        action="store_true",
        help="run the SQL read-only, after its preflight checklist: questions it leaves open are printed "
        "(exit 3) instead of running, and a complete one runs once approved",
    )
    ask.add_argument(
        "--answer",
        action="append",
        default=[],
        metavar="SLOT=VALUE",
        help="with --execute: the answer to a checklist question, by slot key "
        "(e.g. value:main.suppliers.company_name='Acme GmbH'); repeat for several",
    )
    ask.add_argument("--yes", action="store_true", help="with --execute: approve a complete checklist without asking")
    ask.add_argument(
        "--url",
        help="database URL for --execute (default: the config file's or $SCHEMA_SEARCH_SOURCE_URLS, else the catalog's own)",
    )
    ask.add_argument("--json", action="store_true", help="print the answer as JSON")
    ask.set_defaults(run=_ask)


def _ask(args: argparse.Namespace, settings: Settings) -> int:
    if not args.corpus and not args.catalog:
        raise InvalidInput("Nothing to answer from.", hint="Give --catalog NAME (SQL) or --corpus NAME (documents).")
    from ..agent import ask as agent

    model = args.model or settings.ask_model
    # The model first: an unknown provider or a missing key must not wait for a catalog or an index to load.
    complete = agent.litellm_complete(model, args.api_base)
    if args.corpus:
        return _ask_documents(args, settings, model, complete)
    from ..execute.target import source_url
    from ..tools.tables import SchemaTools

    workspace = Workspace(settings)
    tools = SchemaTools(workspace, args.catalog)
    executor = None
    if args.execute:
        url = source_url(tools.catalog, args.url or settings.execution_url(args.catalog))
        executor = workspace.catalogs.gate(args.catalog, url=url)
    answers = _answers(args.answer)
    with stdout_to_stderr():  # stdout is for the answer (--json: only JSON); litellm may log there
        answer = agent.ask(
            args.question, tools=tools, model=model, complete=complete, dialect=executor.dialect if executor else None
        )
    status = 0
    if executor is not None:
        # The SQL runs only behind its checklist, and only once approved: the same path as execute_sql.
        execution = executor.execute_sql(answer.sql, args.question, answers=answers)
        if execution.status == "ready":
            _print_checklist(execution, file=sys.stderr)
            if confirm("Run this query?", args.yes):
                execution = executor.execute_sql(answer.sql, args.question, answers=answers, approval=execution.verdict)
            else:
                status = 1
        elif execution.status == "needs_answers":
            status = 3
        elif execution.status == "refused":  # the database's dialect sees what validation for the model did not
            from ..errors import QueryRefused

            raise QueryRefused(
                f"Refusing to run the SQL: {' '.join(execution.checklist.errors)}",
                hint="Ask again, or name the tables.",
            )
        answer = answer.model_copy(update={"execution": execution, "result": execution.result})
        for warning in answer.result.warnings if answer.result is not None else ():
            print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return status
    print(f"-- SQL ({answer.dialect or 'generic'}, validated{', repaired once' if answer.repaired else ''}):")
    print(answer.sql)
    print()
    print(f"Tables: {'; '.join(answer.tables)}")
    if answer.explanation:
        print(f"Explanation: {answer.explanation}")
    if answer.fabricated:
        print(f"warning: the model cited IDs it was never given: {', '.join(answer.fabricated)}", file=sys.stderr)
    for warning in answer.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if answer.execution is not None and answer.execution.status == "needs_answers":
        print()
        _print_checklist(answer.execution, file=sys.stdout)
    if answer.result is not None:
        result = answer.result
        more = f", more than {result.row_limit}: truncated" if result.truncated else ""
        print(f"\nRows ({len(result.rows)}{more}, {result.seconds:.2f} s):")
        print_rows(result.columns, result.rows)
    return status


def _answers(given: list[str]) -> dict[str, str]:
    """``--answer SLOT=VALUE`` options as the checklist's answers."""
    answers = {}
    for item in given:
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise InvalidInput(
                f"--answer {item!r} is not SLOT=VALUE.",
                hint="Write the slot key the checklist printed, '=', and the answer: --answer 'time:main.orders.placed_at=November 2026, UTC'.",
            )
        answers[key.strip()] = value.strip()
    return answers


def _print_checklist(execution, file) -> None:
    """The checklist for a person: each slot with where its value came from, then the questions left open."""
    from ..tools.execute import slot_line

    checklist = execution.checklist
    print(f"-- Checklist {checklist.verdict} ({checklist.status.replace('_', ' ')}) of the SQL above:", file=file)
    for slot in checklist.slots:
        if slot.kind not in ("table", "column"):  # those are all checked against the catalog; listed above
            print(f"   {slot_line(slot)}", file=file)
    asked = [slot for slot in checklist.unknowns if slot.question]
    if asked:
        print("Nothing ran. Answer these, then ask again with --answer SLOT=VALUE for each:", file=file)
        for number, slot in enumerate(asked, 1):
            print(f"{number}. {slot.question}   (--answer '{slot.key}=...')", file=file)


def _ask_documents(args: argparse.Namespace, settings: Settings, model: str, complete: Complete) -> int:
    from ..agent.answer import answer
    from ..tools.collections import CollectionTools
    from ..tools.docs import DocTools

    workspace = Workspace(settings)
    collections = CollectionTools(workspace, args.corpus, args.catalog)
    docs = DocTools(workspace, args.corpus)
    with stdout_to_stderr():
        result = answer(args.question, collections=collections, docs=docs, model=model, complete=complete)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return 0
    print(result.text)
    print(f"\n(tools: {', '.join(result.tools)}; {result.turns} turns)")
    for what, items in (
        ("IDs never given", result.fabricated),
        ("placeholders never issued", result.placeholders_unknown),
        ("URLs no result carried", result.urls_not_retrieved),
    ):
        if items:
            print(f"warning: the answer has {what}: {', '.join(items)}")
    return 0
