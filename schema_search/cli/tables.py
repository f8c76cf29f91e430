"""Table commands: ``index``, ``search``, ``table``, ``catalogs``."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap

from ..settings import Settings
from ..workspace import Workspace
from .output import (
    add_history,
    add_ray,
    add_shards,
    confirm,
    counted,
    examples,
    on_ray,
    print_json,
    print_table,
    print_warnings,
    progress,
)


def add_commands(commands: argparse._SubParsersAction) -> None:
    index = commands.add_parser(
        "index",
        help="introspect a schema source and index it as a catalog",
        **examples(
            "schemasift index sample_schemas/shop.sql --catalog shop",
            "schemasift index postgresql://me@localhost/crm --catalog crm --db public",
            "schemasift index schemas/ --catalog warehouse --dialect snowflake",
        ),
    )
    index.add_argument("source", help="SQLAlchemy URL, DDL file or folder, or benchmark schemas.jsonl")
    index.add_argument("--catalog", required=True, help="catalog name to create or replace")
    index.add_argument("--dialect", help="sqlglot dialect of DDL files (default: from the file name)")
    index.add_argument("--db", help="benchmark db_id, or database schema, to keep alone")
    add_ray(index, "embed the tables")
    add_shards(index, "catalog by table")
    index.add_argument("--json", action="store_true", help="print the result as JSON")
    index.set_defaults(run=_index)

    search = commands.add_parser(
        "search",
        help="find the tables that answer a question",
        **examples(
            'schemasift search "revenue per product category" --catalog shop',
            'schemasift search "who churned?" --catalog crm -k 5 --json',
        ),
    )
    search.add_argument("question", help="the question, in plain language (quote it)")
    search.add_argument("--catalog", required=True, help="catalog to search")
    search.add_argument("-k", type=int, default=None, help="how many candidates (default 10)")
    add_history(search)
    search.add_argument("--json", action="store_true", help="print the HTTP response body")
    search.set_defaults(run=_search)

    table = commands.add_parser(
        "table",
        help="show one table: columns, keys both ways, DDL, and a view's definition",
        **examples(
            "schemasift table orders --catalog shop",
            "schemasift table main.v_category_sales --catalog shop --json",
        ),
    )
    table.add_argument("table", help="schema.table, a bare table name, or a source ID")
    table.add_argument("--catalog", required=True, help="catalog the table is in")
    table.add_argument("--json", action="store_true", help="print the HTTP response body")
    table.set_defaults(run=_table)

    catalogs = commands.add_parser(
        "catalogs", help="list indexed catalogs", **examples("schemasift catalogs", "schemasift catalogs --json")
    )
    catalogs.add_argument("--json", action="store_true", help="print the list as JSON, warnings included")
    catalogs.set_defaults(run=_catalogs)

    delete = commands.add_parser(
        "delete",
        help="delete a catalog and its index (asks first; --yes in scripts)",
        description="Delete a catalog: its tables, index and embeddings. Corpora go with `schemasift docs delete`.",
        **examples("schemasift delete --catalog shop", "schemasift delete --catalog shop --yes"),
    )
    delete.add_argument("--catalog", required=True, help="catalog to delete")
    delete.add_argument("--yes", action="store_true", help="do not ask (needed when stdin is not a terminal)")
    delete.set_defaults(run=_delete)


# What each phase of `index` counts.
INDEX_UNITS = {
    "parsing": "statement",
    "reading schemas": "schema",
    "reading databases": "database",
    "sampling values": "table",
    "indexing": "table",
    "writing the index": "table",
    "embedding": "table",
    "loading the model": "model",
}


def _index(args: argparse.Namespace, settings: Settings) -> int:
    from ..connectors import shown

    print(f"Reading {shown(args.source)} ...", file=sys.stderr)
    result = Workspace(on_ray(args, settings)).catalogs.index(
        args.source,
        catalog=args.catalog,
        dialect=args.dialect,
        db=args.db,
        progress=progress(INDEX_UNITS),
        shards=args.shards,
    )
    if args.json:
        return print_json(result)
    info = result.catalog
    print(
        f"Indexed catalog {info.name!r}: {counted(info.tables, 'table')}, {counted(info.views, 'view')} "
        f"in {result.seconds:.2f} s."
    )
    print_warnings(info.warnings, "schemasift catalogs --json")
    return 0


def _search(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).catalogs.search(args.catalog, args.question, args.k, args.history)
    if response.retrieval_question and response.retrieval_question != response.question and not args.json:
        print(f"searched as: {response.retrieval_question}\n")
    if args.json:
        return print_json(response)
    if not response.candidates:
        if response.off_topic:
            print(f"Nothing in catalog {response.catalog!r} relates to this question.")
        else:
            print("No table matches this question.")
        return 0
    rows = [
        (
            str(i),
            c.table + (" (pinned)" if c.pinned else "") + (" (added for a join)" if c.added_for_join else ""),
            f"{c.score:.4f}",
            " ".join(f"{ch}:{r}" for ch, r in c.channels.items() if r is not None),
            "-" if c.distance is None else f"{c.distance:.2f}",
            ", ".join(c.matched_terms + [f"{m.column}={v!r}" for m in c.matched_values for v in m.values]),
            c.source_id,
        )
        for i, c in enumerate(response.candidates, 1)
    ]
    print_table(("#", "table", "score", "channel ranks", "distance", "matched", "id"), rows)
    for example in response.examples:
        print(f"\npast query {example.id} ({example.origin}): {example.question}\n  {' '.join(example.sql.split())}")
    if response.unrelated_distance is not None:
        print(
            f"\ndistance: to the question, smaller is nearer; unrelated text comes to {response.unrelated_distance:.2f}."
        )
    return 0


def _table(args: argparse.Namespace, settings: Settings) -> int:
    detail = Workspace(settings).catalogs.table(args.catalog, args.table)
    if args.json:
        return print_json(detail)
    print(f"{detail.table}  [{detail.source_id}]  ({detail.kind})")
    if detail.description:
        print(textwrap.fill(f"Description ({detail.description.model}): {detail.description.text}", 100))
    print()
    print(detail.ddl)
    for ref in detail.referenced_by:
        print(f"-- referenced by {ref.from_table} ({', '.join(ref.from_columns)})")
    if detail.definition:
        print(f"\n-- definition of the view, as the source gives it:\n{detail.definition.strip()}")
    return 0


def _catalogs(args: argparse.Namespace, settings: Settings) -> int:
    infos = Workspace(settings).catalogs.infos()
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2))
        return 0
    if not infos:
        print("No catalogs yet. Create one with `schemasift index SOURCE --catalog NAME`.")
        return 0
    rows = [(i.name, str(i.tables), str(i.views), i.source.get("kind", ""), str(len(i.warnings))) for i in infos]
    print_table(("catalog", "tables", "views", "source", "warnings"), rows)
    return 0


def _delete(args: argparse.Namespace, settings: Settings) -> int:
    workspace = Workspace(settings)
    workspace.catalogs.store.current(args.catalog)  # an unknown name fails before anyone is asked
    if not confirm(f"Delete catalog {args.catalog!r}?", args.yes):
        print("Nothing deleted.", file=sys.stderr)
        return 1
    workspace.catalogs.delete(args.catalog)
    print(f"Deleted catalog {args.catalog!r}.")
    return 0
