"""The tables a corpus and a catalog offer to guarded SQL: ``documents``; ``tables`` and ``columns``.

Every corpus gets its ``documents`` table: what every document has (path, URL, title,
headings, size, language), then the header fields its documents share, where they
share any (front matter, ``Key: value``, ``<meta>``; the report says which were kept
and why). A catalog is always a collection: its tables and columns are already
structured.
"""

from __future__ import annotations

import datetime

from ..docs.corpus import Corpus
from ..docs.language import document_language
from ..tables.catalog import Catalog
from ..tables.catalog import source_id as table_source_id
from .collection import Collection, Column, table_from_rows
from .fields import Choices, FieldReport, column_name, propose_and_validate, row_values

DOCUMENTS = "documents"

# The columns every document row has, whatever its header says.
DOCUMENT_COLUMNS = (
    Column("source_id", "text", "The document's citable ID, e.g. S3fa21c: cite it as [S3fa21c]."),
    Column("url", "text", "The document's URL.", exact=True),
    Column("title", "text", "The document's title."),
    Column("path", "text", "The file's path inside the corpus folder."),
    Column("format", "text", "The file's format: markdown, rst, html, text, pdf or docx."),
    Column("headings", "text", "The document's section headings, in order.", list=True),
    Column("chars", "integer", "The document's length in characters."),
    Column("words", "integer", "The document's length in words."),
    Column("modified", "timestamp", "When the file last changed (UTC), as its folder said; NULL for uploads."),
    Column(
        "fetched",
        "timestamp",
        "When the page was fetched from the web, or last found unchanged (UTC); NULL for local files.",
    ),
    Column(
        "language",
        "text",
        "ISO 639-1 code of the document's language: as its header declares it, else detected from its text.",
    ),
)

TABLE_COLUMNS = (
    Column("source_id", "text", "The table's citable ID, e.g. T3fa21c: cite it as [T3fa21c]."),
    Column("schema", "text", "The schema the table is in."),
    Column("name", "text", "The table's name."),
    Column("table_id", "text", "schema.table, lower-cased: how the columns table refers to it."),
    Column("kind", "text", "'table' or 'view'."),
    Column("column_count", "integer", "How many columns it has."),
    Column("primary_key", "text", "Its primary-key columns, comma-separated; NULL when it has none."),
    Column("foreign_key_count", "integer", "How many foreign keys it has to other tables."),
    Column("comment", "text", "What the database says about the table; NULL when nothing."),
    Column("has_description", "boolean", "Whether a generated description exists for it."),
)

COLUMN_COLUMNS = (
    Column("table_id", "text", "schema.table of the column's table (joins tables.table_id)."),
    Column("schema", "text", "The schema of the column's table."),
    Column("table_name", "text", "The name of the column's table."),
    Column("name", "text", "The column's name."),
    Column("position", "integer", "Its position in the table, from 1."),
    Column("type", "text", "Its declared type, as the source writes it."),
    Column("is_primary_key", "boolean", "Whether it is part of the table's primary key."),
    Column("is_foreign_key", "boolean", "Whether it is part of a foreign key."),
    Column("references_table", "text", "schema.table its foreign key points to; NULL when none."),
    Column("nullable", "boolean", "Whether it accepts NULL."),
    Column("comment", "text", "What the database says about the column; NULL when nothing."),
)


def corpus_collection(corpus: Corpus, choices: Choices = Choices()) -> Collection:
    """The ``documents`` table of a corpus: built-in columns, then the validated header fields."""
    report = propose_and_validate(
        [d.fields for d in corpus.documents], reserved=[c.name for c in DOCUMENT_COLUMNS], choices=choices
    )
    columns = [
        Column(c.name, c.type, c.description, c.list, choices.is_exact(c.name, c.exact)) for c in DOCUMENT_COLUMNS
    ]
    columns += [
        Column(f.name, f.type, _field_description(f.keys, f.coverage, report), f.list, f.exact) for f in report.fields
    ]
    headings, samples = _outline(corpus)
    rows = []
    for document in corpus.documents:
        by_column: dict[str, list[str]] = {}
        for key, values in document.fields.items():
            by_column.setdefault(column_name(key), []).extend(values)
        rows.append(
            (
                document.id,
                document.url,
                document.title,
                document.path,
                document.format,
                headings.get(document.id, []),
                document.chars,
                document.words,
                _utc(document.modified),
                _utc(document.fetched),
                document_language(document.fields, samples.get(document.id, "")),
            )
            + tuple(row_values(f, by_column.get(f.name)) for f in report.fields)
        )
    description = f"One row per document of corpus {corpus.name!r} ({len(rows)} rows)."
    return Collection(corpus.name, "corpus", (table_from_rows(DOCUMENTS, description, columns, rows),), report)


def _utc(stamp: str | None) -> datetime.datetime | None:
    """An ISO 8601 time as a naive UTC timestamp (DuckDB's TIMESTAMP); ``None`` when absent or malformed.

    >>> _utc("2026-12-06T07:41:24+00:00"), _utc(None), _utc("yesterday")
    (datetime.datetime(2026, 12, 6, 7, 41, 24), None, None)
    """
    try:
        moment = datetime.datetime.fromisoformat(stamp) if stamp else None
    except ValueError:
        return None
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(datetime.UTC).replace(tzinfo=None)


def _outline(corpus: Corpus, sample_chars: int = 2000) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Each document's section headings (the innermost of each path, once each, in order),
    and the opening of its text, from its chunks: a stored corpus loads without whole texts.
    """
    headings: dict[str, dict[str, None]] = {}
    samples: dict[str, str] = {}
    for chunk in corpus.chunks:
        if chunk.headings:
            headings.setdefault(chunk.document, {})[chunk.headings[-1]] = None
        if len(samples.get(chunk.document, "")) < sample_chars:
            samples[chunk.document] = f"{samples.get(chunk.document, '')}\n{chunk.text}"[:sample_chars]
    return {document: list(seen) for document, seen in headings.items()}, samples


def catalog_collection(catalog: Catalog) -> Collection:
    """A catalog's own structure as two tables: ``tables`` and ``columns``."""
    table_rows, column_rows = [], []
    for table in catalog.tables:
        in_keys = {c.lower() for fk in table.foreign_keys for c in fk.columns}
        primary = {c.lower() for c in table.primary_key}
        table_rows.append(
            (
                table_source_id(catalog.name, table.id),
                table.schema,
                table.name,
                table.id,
                table.kind,
                len(table.columns),
                ", ".join(table.primary_key) or None,
                len(table.foreign_keys),
                table.comment or None,
                table.description is not None,
            )
        )
        for position, column in enumerate(table.columns, 1):
            target = next(
                (fk.ref_table for fk in table.foreign_keys if column.name.lower() in map(str.lower, fk.columns)), None
            )
            column_rows.append(
                (
                    table.id,
                    table.schema,
                    table.name,
                    column.name,
                    position,
                    column.type or None,
                    column.name.lower() in primary,
                    column.name.lower() in in_keys,
                    target,
                    column.nullable,
                    column.comment or None,
                )
            )
    return Collection(
        catalog.name,
        "catalog",
        (
            table_from_rows(
                "tables", f"One row per table or view of catalog {catalog.name!r}.", TABLE_COLUMNS, table_rows
            ),
            table_from_rows(
                "columns", f"One row per column of every table of {catalog.name!r}.", COLUMN_COLUMNS, column_rows
            ),
        ),
    )


def _field_description(keys: tuple[str, ...], coverage: float, report: FieldReport) -> str:
    written = " / ".join(f"{k!r}" for k in keys)
    return f"Header field {written}, in {coverage:.0%} of the {report.documents} documents (NULL in the others)"
