"""Wire models of the structured index: what `fields` describes and what `query` returns."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from ..json_body import JsonInt


class ColumnInfo(BaseModel):
    name: str
    type: str = Field(description="DuckDB type, e.g. BIGINT, DATE, VARCHAR, VARCHAR[] for a list.")
    description: str
    exact: bool = Field(description="Links, IDs and codes: shown to models only as {{link:N}}-style placeholders.")
    coverage: float | None = Field(None, description="Share of the documents that have the field (header fields).")
    keys: list[str] = Field(default_factory=list, description="The header keys, as written, that fill it.")
    examples: list[str] = Field(default_factory=list, description="Values as the documents write them.")
    unparsed: int = Field(0, description="Present values that did not parse as the type (NULL in the column).")


class TableInfo(BaseModel):
    name: str
    description: str
    rows: int
    columns: list[ColumnInfo]


class DroppedField(BaseModel):
    name: str
    keys: list[str]
    coverage: float = Field(description="Share of the documents that have it.")
    documents: int
    reason: str


class FieldsResponse(BaseModel):
    """The tables of one collection, and for a corpus, how its header fields were chosen."""

    collection: str
    kind: Literal["corpus", "catalog"]
    structured: bool = Field(description="Whether there is anything to query (a corpus needs a shared header).")
    message: str = Field(description="What there is, or why there is nothing, in one sentence.")
    tables: list[TableInfo]
    documents: int | None = Field(None, description="Documents in the corpus.")
    with_header: int | None = Field(None, description="Documents that have any header field.")
    sampled: int | None = Field(None, description="Documents the fields were proposed from (all are validated).")
    dropped: list[DroppedField] = Field(default_factory=list, description="Fields found but left out, and why.")


class QueryRequest(BaseModel):
    """Either ``sql`` (one SELECT) or ``query`` (the JSON form), not both."""

    sql: str | None = Field(
        None, pattern=r"\S", description="One read-only SELECT over the collection's tables (DuckDB SQL)."
    )
    query: dict[str, Any] | None = Field(
        None,
        description='The JSON form: {"table", "select", "filter": [[column, op, value]], "group_by", "count", '
        '"order_by": [[column, "desc"]], "limit"}.',
    )
    max_rows: JsonInt | None = Field(None, ge=1, description="Rows to return at most (capped by the server).")

    @model_validator(mode="after")
    def _one_of(self) -> QueryRequest:
        if (self.sql is None) == (self.query is None):
            raise ValueError("give exactly one of 'sql' and 'query'")
        return self


class QueryResponse(BaseModel):
    collection: str
    sql: str = Field(description="The statement that ran (re-generated from its parse tree).")
    columns: list[str]
    rows: list[list[Any]]
    row_count: int = Field(description="Rows returned (at most row_limit).")
    truncated: bool = Field(description="True when the query had more rows than row_limit.")
    row_limit: int
    exact_columns: list[str] = Field(description="Result columns holding exact values (links, IDs).")
    source_ids: list[str | None] | None = Field(
        None, description="Each row's document (or table) source ID, when the query selected rows of it."
    )
    counted: list[str] | None = Field(
        None, description="For a count over a filter: the source IDs of the rows it counted (at most row_limit)."
    )
    counted_truncated: bool = False
    seconds: float
