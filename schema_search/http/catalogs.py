"""``/v1/catalogs``: list, show, search, show a table, index uploaded DDL or a database URL."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ..errors import Forbidden, InvalidInput
from ..settings import Settings
from ..tables.models import CatalogInfo, IndexFromUrl, IndexResult, SearchRequest, SearchResponse, TableDetail
from ..structured.models import FieldsResponse, QueryRequest, QueryResponse
from ..workspace import Workspace
from .deps import AdminKey, WorkspaceDep, check_admin, content_type, read_body

router = APIRouter(prefix="/v1/catalogs", tags=["catalogs"])


@router.get("")
def list_catalogs(ws: WorkspaceDep) -> list[CatalogInfo]:
    return ws.catalogs()


@router.get("/{name}")
def get_catalog(name: str, ws: WorkspaceDep) -> CatalogInfo:
    return ws.info(name)


@router.post("/{name}/search", tags=["search"])
async def search(name: str, request: SearchRequest, ws: WorkspaceDep) -> SearchResponse:
    # On the event loop, not in the thread pool: a search is a few milliseconds of CPU,
    # and sixteen of them at once in threads of one worker fought over its core. Opening a
    # new generation takes seconds, so that one step goes to the thread pool.
    if not ws.is_open(name):
        await run_in_threadpool(ws.searcher, name)
    return ws.search(name, request.question, request.k)


@router.get("/{name}/fields", tags=["structured"])
def get_fields(name: str, ws: WorkspaceDep) -> FieldsResponse:
    """The catalog's queryable tables and columns (`tables`, `columns`)."""
    return ws.catalog_fields(name)


@router.post("/{name}/query", tags=["structured"])
def query(name: str, request: QueryRequest, ws: WorkspaceDep) -> QueryResponse:
    """Count, filter, group: one read-only SELECT (`sql`) or the JSON form (`query`), run in a locked-down DuckDB."""
    return ws.query_catalog(name, request)


@router.get("/{name}/tables/{table}")
def get_table(name: str, table: str, ws: WorkspaceDep) -> TableDetail:
    return ws.table(name, table)


@router.post(
    "/{name}",
    openapi_extra={
        "requestBody": {
            "description": (
                "DDL text (Content-Type text/plain or application/sql), or JSON "
                '{"url": "...", "db": null} to introspect a database (needs '
                "SCHEMA_SEARCH_ALLOW_URL_SOURCES=true and the X-Admin-Key header)."
            ),
            "content": {
                "application/sql": {"schema": {"type": "string"}},
                "text/plain": {"schema": {"type": "string"}},
                "application/json": {"schema": IndexFromUrl.model_json_schema()},
            },
        }
    },
)
async def create_catalog(
    name: str,
    request: Request,
    ws: WorkspaceDep,
    admin_key: AdminKey = None,
    dialect: Annotated[str | None, Query(description="sqlglot dialect of uploaded DDL.")] = None,
) -> IndexResult:
    # Indexing is CPU-bound: it runs in the thread pool, off the event loop.
    body = await read_body(request, ws.settings.max_upload_bytes, "DDL")
    check_admin(ws.settings, admin_key, required=False)
    if content_type(request) == "application/json":
        source = _url_source(body)
        _check_url_allowed(ws.settings, admin_key)
        return await run_in_threadpool(ws.index_source, source.url, catalog=name, db=source.db)
    return await run_in_threadpool(_index_ddl, ws, name, _decode(body), dialect)


def _index_ddl(ws: Workspace, name: str, text: str, dialect: str | None) -> IndexResult:
    from connectors.ddl import catalog_from_ddl

    return ws.index_catalog(catalog_from_ddl(text, catalog=name, dialect=dialect, source_name="upload.sql"))


def _decode(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInput(f"The DDL is not UTF-8 text ({error}).", hint="Re-encode the file as UTF-8.") from None


def _url_source(body: bytes) -> IndexFromUrl:
    try:
        return IndexFromUrl.model_validate(json.loads(body))
    except (json.JSONDecodeError, ValueError) as error:
        raise InvalidInput(f"Bad JSON body: {error}", hint='Send {"url": "postgresql://...", "db": null}.') from None


def _check_url_allowed(settings: Settings, presented: str | None) -> None:
    if not settings.allow_url_sources:
        raise Forbidden(
            "Indexing from a database URL is disabled on this server.",
            hint="An operator can enable it with SCHEMA_SEARCH_ALLOW_URL_SOURCES=true and SCHEMA_SEARCH_ADMIN_KEY; or upload DDL instead.",
        )
    check_admin(settings, presented, required=True)
