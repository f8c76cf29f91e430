"""The ``schema-search`` command: a thin layer over :class:`~schema_search.workspace.Workspace`.

Errors print one clear message to stderr and exit 2; ``--json`` prints exactly what
the HTTP API returns for the same call.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Sequence

from pydantic import BaseModel

from . import cli_agent, cli_describe, cli_eval
from .errors import SchemaSearchError
from .settings import Settings
from .workspace import Workspace


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        settings = Settings(**({"home": args.home} if args.home else {}))
        return args.run(args, settings)
    except SchemaSearchError as error:
        print(f"error: {error.detail}", file=sys.stderr)
        if error.hint:
            print(f"hint: {error.hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schema-search",
        description="Find the few tables (with columns and join keys) that answer a question.",
    )
    parser.add_argument("--home", help="data directory (default: $SCHEMA_SEARCH_HOME or the user data dir)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    index = commands.add_parser("index", help="introspect a schema source and index it as a catalog")
    index.add_argument("source", help="SQLAlchemy URL, DDL file or folder, or benchmark schemas.jsonl")
    index.add_argument("--catalog", required=True, help="catalog name to create or replace")
    index.add_argument("--dialect", help="sqlglot dialect of DDL files (default: from the file name)")
    index.add_argument("--db", help="benchmark db_id, or database schema, to keep alone")
    index.add_argument("--json", action="store_true", help="print the result as JSON")
    index.set_defaults(run=_index)

    search = commands.add_parser("search", help="find the tables that answer a question")
    search.add_argument("question")
    search.add_argument("--catalog", required=True)
    search.add_argument("-k", type=int, default=None, help="how many candidates (default 10)")
    search.add_argument("--json", action="store_true", help="print the HTTP response body")
    search.set_defaults(run=_search)

    table = commands.add_parser("table", help="show one table: columns, keys both ways, DDL")
    table.add_argument("table", help="schema.table, a bare table name, or a source ID")
    table.add_argument("--catalog", required=True)
    table.add_argument("--json", action="store_true")
    table.set_defaults(run=_table)

    catalogs = commands.add_parser("catalogs", help="list indexed catalogs")
    catalogs.add_argument("--json", action="store_true")
    catalogs.set_defaults(run=_catalogs)

    serve = commands.add_parser("serve", help="run the HTTP API")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.set_defaults(run=_serve)

    cli_describe.add_commands(commands)
    cli_agent.add_commands(commands)
    cli_eval.add_commands(commands)
    return parser


def _index(args: argparse.Namespace, settings: Settings) -> int:
    from connectors import shown

    print(f"Reading {shown(args.source)} ...", file=sys.stderr)
    result = Workspace(settings).index_source(
        args.source, catalog=args.catalog, dialect=args.dialect, db=args.db, progress=_progress
    )
    if args.json:
        return _print_json(result)
    info = result.catalog
    print(f"Indexed catalog {info.name!r}: {info.tables} tables, {info.views} views in {result.seconds:.2f} s.")
    for warning in info.warnings[:20]:
        print(f"  warning: {warning}")
    if len(info.warnings) > 20:
        print(f"  ... and {len(info.warnings) - 20} more warnings (see `schema-search catalogs --json`).")
    return 0


def _search(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).search(args.catalog, args.question, args.k)
    if args.json:
        return _print_json(response)
    if not response.candidates:
        print("No table matches this question.")
        return 0
    rows = [
        (
            str(i),
            c.table,
            f"{c.score:.4f}",
            " ".join(f"{ch}:{r}" for ch, r in c.channels.items() if r is not None),
            ", ".join(c.matched_terms),
            c.source_id,
        )
        for i, c in enumerate(response.candidates, 1)
    ]
    _print_table(("#", "table", "score", "channel ranks", "matched", "id"), rows)
    return 0


def _table(args: argparse.Namespace, settings: Settings) -> int:
    detail = Workspace(settings).table(args.catalog, args.table)
    if args.json:
        return _print_json(detail)
    print(f"{detail.table}  [{detail.source_id}]  ({detail.kind})")
    if detail.description:
        print(textwrap.fill(f"Description ({detail.description.model}): {detail.description.text}", 100))
    print()
    print(detail.ddl)
    for ref in detail.referenced_by:
        print(f"-- referenced by {ref.from_table} ({', '.join(ref.from_columns)})")
    return 0


def _catalogs(args: argparse.Namespace, settings: Settings) -> int:
    infos = Workspace(settings).catalogs()
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2))
        return 0
    if not infos:
        print("No catalogs yet. Create one with `schema-search index SOURCE --catalog NAME`.")
        return 0
    rows = [(i.name, str(i.tables), str(i.views), i.source.get("kind", ""), str(len(i.warnings))) for i in infos]
    _print_table(("catalog", "tables", "views", "source", "warnings"), rows)
    return 0


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from .http import create_app

    host = args.host or settings.host
    port = args.port or settings.port
    print(f"Serving catalogs from {settings.home} on http://{host}:{port} (docs at /docs)", file=sys.stderr)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
    return 0


def _progress(items: Sequence, description: str):
    from tqdm import tqdm

    return tqdm(items, desc=description, unit="table", file=sys.stderr, disable=not sys.stderr.isatty() or None)


def _print_json(model: BaseModel) -> int:
    # Byte for byte what FastAPI's JSONResponse sends for the same model.
    print(json.dumps(model.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")))
    return 0


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for line in (header, tuple("-" * w for w in widths), *rows):
        print("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)).rstrip())


if __name__ == "__main__":
    sys.exit(main())
