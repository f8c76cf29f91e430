"""Count, filter and group: ``docs fields``, ``docs query`` (corpora) and ``fields``, ``query`` (catalogs)."""

from __future__ import annotations

import argparse
import json

from ..errors import InvalidInput
from ..settings import Settings
from ..structured.models import FieldsResponse, QueryRequest, QueryResponse
from ..workspace import Workspace
from .output import counted, examples, print_json, print_rows, print_table

_QUERY_HELP = (
    "one read-only SELECT (DuckDB SQL) over the collection's tables; or, with --form, a JSON query form: "
    '{"filter": [["status", "=", "Final"]], "group_by": ["type"], "count": true, "order_by": [["count", "desc"]], "limit": 10}'
)


def add_docs_commands(group: argparse._SubParsersAction) -> None:
    """``docs fields`` and ``docs query``: the structured index of a corpus."""
    fields = group.add_parser(
        "fields",
        help="the header fields of a corpus as a table: types, coverage, examples, and the fields left out",
        description=(
            "Show the documents table of a corpus: one row per document, with source_id, url, title, path, chars, "
            "words and every header field (front matter, Key: value block, <meta>) that at least 20%% of the "
            "documents have. --rebuild proposes and validates the fields again without re-embedding anything."
        ),
        **examples(
            "schemasift docs fields --corpus peps",
            "schemasift docs fields --corpus peps --rebuild --exact-fields status,type",
        ),
    )
    fields.add_argument("--corpus", required=True, help="corpus whose documents table to show")
    fields.add_argument("--rebuild", action="store_true", help="rebuild the structured index (nothing is re-embedded)")
    fields.add_argument(
        "--exact-fields", default="", help="with --rebuild: comma-separated fields to show models only as placeholders"
    )
    fields.add_argument(
        "--plain-fields", default="", help="with --rebuild: comma-separated fields to show models as they are"
    )
    fields.add_argument("--json", action="store_true", help="print the HTTP response body")
    fields.set_defaults(run=_docs_fields)

    query = group.add_parser(
        "query",
        help="count, filter and group a corpus's documents with SQL (or the JSON form)",
        **examples(
            'schemasift docs query "SELECT status, count(*) FROM documents GROUP BY status" --corpus peps',
            'schemasift docs query \'{"group_by": ["type"], "count": true}\' --form --corpus peps',
        ),
    )
    query.add_argument("sql", help=_QUERY_HELP)
    query.add_argument("--corpus", required=True, help="corpus to query")
    _query_options(query)
    query.set_defaults(run=_docs_query)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``fields`` and ``query``: a catalog's own tables and columns as a collection."""
    fields = commands.add_parser(
        "fields",
        help="a catalog as queryable tables: `tables` and `columns`",
        **examples("schemasift fields --catalog shop", "schemasift fields --catalog shop --json"),
    )
    fields.add_argument("--catalog", required=True, help="catalog to show as tables")
    fields.add_argument("--json", action="store_true", help="print the HTTP response body")
    fields.set_defaults(run=_catalog_fields)

    query = commands.add_parser(
        "query",
        help="count, filter and group a catalog's tables and columns with SQL, e.g. tables with an email column",
        **examples(
            "schemasift query \"SELECT table_id FROM columns WHERE name LIKE '%email%'\" --catalog crm",
            'schemasift query \'{"table": "tables", "group_by": ["kind"], "count": true}\' --form --catalog crm',
        ),
    )
    query.add_argument("sql", help=_QUERY_HELP.replace("collection's tables", "tables `tables` and `columns`"))
    query.add_argument("--catalog", required=True, help="catalog to query")
    _query_options(query)
    query.set_defaults(run=_catalog_query)


def _query_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--form", action="store_true", help="the argument is the JSON query form, not SQL")
    parser.add_argument("--max-rows", type=int, default=None, help="rows to print at most (default: the server's cap)")
    parser.add_argument("--json", action="store_true", help="print the HTTP response body")


def _docs_fields(args: argparse.Namespace, settings: Settings) -> int:
    workspace = Workspace(settings)
    if args.rebuild:
        response = workspace.corpora.rebuild_fields(args.corpus, _names(args.exact_fields), _names(args.plain_fields))
    elif args.exact_fields or args.plain_fields:
        raise InvalidInput("--exact-fields and --plain-fields apply to a rebuild.", hint="Add --rebuild.")
    else:
        response = workspace.corpora.fields(args.corpus)
    return print_json(response) if args.json else _print_fields(response)


def _catalog_fields(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).catalogs.fields(args.catalog)
    return print_json(response) if args.json else _print_fields(response)


def _docs_query(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).corpora.query(args.corpus, _request(args))
    return print_json(response) if args.json else _print_result(response)


def _catalog_query(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).catalogs.query(args.catalog, _request(args))
    return print_json(response) if args.json else _print_result(response)


def _request(args: argparse.Namespace) -> QueryRequest:
    if not args.form:
        return QueryRequest(sql=args.sql, max_rows=args.max_rows)
    try:
        form = json.loads(args.sql)
    except json.JSONDecodeError as error:
        raise InvalidInput(f"--form needs a JSON object: {error}.", hint=_QUERY_HELP) from None
    if not isinstance(form, dict):
        raise InvalidInput("--form needs a JSON object.", hint=_QUERY_HELP)
    return QueryRequest(query=form, max_rows=args.max_rows)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _print_fields(response: FieldsResponse) -> int:
    print(response.message)
    for table in response.tables:
        print(f"\ntable {table.name}: {table.description}")
        rows = [
            (
                c.name,
                c.type,
                "" if c.coverage is None else f"{c.coverage:.0%}",
                "yes" if c.exact else "",
                "; ".join(c.examples)[:60],
            )
            for c in table.columns
        ]
        print_table(("column", "type", "coverage", "exact", "examples"), rows)
    if response.dropped:
        print("\nleft out:")
        print_table(
            ("field", "coverage", "why"),
            [(d.name, f"{d.coverage:.1%} ({d.documents})", d.reason) for d in response.dropped],
        )
    return 0


def _print_result(response: QueryResponse) -> int:
    print_rows(response.columns, response.rows)
    more = f", truncated at {response.row_limit}" if response.truncated else ""
    print(f"\n{counted(response.row_count, 'row')}{more} ({response.seconds:.3f} s)  SQL: {response.sql}")
    if response.counted is not None:
        cut = " (first ones)" if response.counted_truncated else ""
        print(f"counted{cut}: {' '.join(response.counted[:20])}{' ...' if len(response.counted) > 20 else ''}")
    return 0
