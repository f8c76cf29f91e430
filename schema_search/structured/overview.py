"""What a collection offers to queries, as the `fields` response: tables, columns, coverage, dropped fields."""

from __future__ import annotations

from .collection import Collection
from .models import ColumnInfo, DroppedField, FieldsResponse, TableInfo


def fields_response(collection: Collection) -> FieldsResponse:
    """The tables and columns of ``collection``; for a corpus, how its header fields were chosen."""
    report = collection.report
    tables = []
    for table in collection.tables:
        columns = []
        for column in table.columns:
            found = report.field(column.name) if report else None
            columns.append(
                ColumnInfo(
                    name=column.name,
                    type=column.sql_type,
                    description=column.description,
                    exact=column.exact,
                    coverage=found.coverage if found else None,
                    keys=list(found.keys) if found else [],
                    examples=list(found.examples) if found else [],
                    unparsed=found.unparsed if found else 0,
                )
            )
        tables.append(TableInfo(name=table.name, description=table.description, rows=table.rows, columns=columns))
    dropped = [
        DroppedField(name=d.name, keys=list(d.keys), coverage=d.coverage, documents=d.documents, reason=d.reason)
        for d in (report.dropped if report else ())
    ]
    return FieldsResponse(
        collection=collection.name,
        kind="corpus" if collection.kind == "corpus" else "catalog",
        structured=bool(tables),
        message=_message(collection),
        tables=tables,
        documents=report.documents if report else None,
        with_header=report.with_header if report else None,
        sampled=report.sampled if report else None,
        dropped=dropped,
    )


def _message(collection: Collection) -> str:
    report = collection.report
    if collection.kind == "catalog":
        names = " and ".join(f"{t.name} ({t.rows} rows)" for t in collection.tables)
        return f"Catalog {collection.name!r} as tables: {names}."
    assert report is not None
    if not collection.tables:
        why = (
            f"none of its {report.documents} documents has a machine-readable header"
            if not report.with_header
            else f"no header field is in at least 20% of its {report.documents} documents"
        )
        return (
            f"Corpus {collection.name!r} has no structured index: {why} (front matter, Key: value block, "
            "<meta>). Search it with search_docs instead."
        )
    return (
        f"Corpus {collection.name!r}: table documents, {report.documents} rows, {len(report.fields)} header fields "
        f"kept (proposed from {report.sampled} documents, validated over all), {len(report.dropped)} left out."
    )
