"""Past-query commands: ``examples add`` and ``examples list``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import ValidationError

from ..errors import InvalidInput
from ..settings import Settings
from ..tables.models import ExampleInput
from ..workspace import Workspace
from .output import examples, print_json, print_table

LINE = 'Each line: {"question": "...", "sql": "SELECT ...", "tables": ["schema.table", ...] (optional)}.'


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "examples",
        help="keep past queries (question -> SQL) with a catalog: evidence for the tables they read",
        description=(
            "Past queries are searched next to the tables: the tables of the ones nearest a question rank in "
            "the `examples` channel, and a search shows them."
        ),
        **examples(
            "schemasift examples add queries.jsonl --catalog shop",
            "schemasift examples list --catalog shop --json",
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True, help="add or list")
    add = actions.add_parser(
        "add",
        help="add question -> SQL pairs from a JSON Lines file",
        **examples("schemasift examples add queries.jsonl --catalog shop"),
    )
    add.add_argument("file", type=Path, help=f"JSON Lines file. {LINE}")
    add.add_argument("--catalog", required=True, help="catalog the queries ran on")
    add.add_argument("--json", action="store_true", help="print the HTTP response body")
    add.set_defaults(run=_add)
    listed = actions.add_parser(
        "list", help="list a catalog's past queries", **examples("schemasift examples list --catalog shop")
    )
    listed.add_argument("--catalog", required=True, help="catalog to list")
    listed.add_argument("--json", action="store_true", help="print the HTTP response body")
    listed.set_defaults(run=_list)


def read_pairs(path: Path) -> list[ExampleInput]:
    """The pairs of a JSON Lines file; an unreadable line is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"Cannot read {path}: {error}.", hint=LINE) from None
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            pairs.append(ExampleInput.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as error:
            reason = error.msg if isinstance(error, json.JSONDecodeError) else error.errors()[0]["msg"]
            raise InvalidInput(f"{path}, line {number}: {reason}.", hint=LINE) from None
    if not pairs:
        raise InvalidInput(f"{path} holds no pairs.", hint=LINE)
    return pairs


def _add(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).catalogs.add_examples(args.catalog, read_pairs(args.file))
    if args.json:
        return print_json(response)
    print(f"Catalog {response.catalog!r}: {response.added} new past queries, {len(response.examples)} in all.")
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).catalogs.list_examples(args.catalog)
    if args.json:
        return print_json(response)
    kept = response.examples
    if not kept:
        print(f"No past queries in catalog {args.catalog!r}. Add some with `schemasift examples add FILE`.")
        return 0
    print_table(
        ("id", "question", "tables", "origin"), [(e.id, e.question, ", ".join(e.tables), e.origin) for e in kept]
    )
    return 0
