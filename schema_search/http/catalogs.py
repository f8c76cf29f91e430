"""``/v1/catalogs``: list, show, search, show a table, past queries, index uploaded DDL or a database URL, delete."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from ..core.store import check_name
from ..errors import Forbidden, InvalidInput, UnsupportedMediaType
from ..preflight.gate import ExecuteRequest, ExecuteResult
from ..settings import Settings
from ..structured.models import FieldsResponse, QueryRequest, QueryResponse
from ..tables.models import (
    CatalogInfo,
    ExamplesRequest,
    ExamplesResponse,
    IndexFromUrl,
    IndexResult,
    SearchRequest,
    SearchResponse,
    TableDetail,
)
from ..workspace import Workspace
from .deps import (
    AdminKey,
    Caller,
    CallerDep,
    IsolatedDep,
    Name,
    ReadKey,
    WorkspaceDep,
    check_server_admin,
    check_write,
    content_type,
    read_body,
)
from .isolated import Isolated
from .problems import problem_responses
from .sniff import sniff

router = APIRouter(prefix="/v1/catalogs", tags=["catalogs"], dependencies=[ReadKey], responses=problem_responses(401))
JSON = "application/json"
DDL_TYPES = ("text/plain", "application/sql")


@router.get("", responses=problem_responses(409, 503))
def list_catalogs(ws: WorkspaceDep) -> list[CatalogInfo]:
    return ws.catalogs.infos()


@router.get("/{name}", responses=problem_responses(404, 409, 422, 503))
def get_catalog(name: Name, ws: WorkspaceDep) -> CatalogInfo:
    return ws.catalogs.info(name)


@router.post("/{name}/search", tags=["search"], responses=problem_responses(404, 409, 413, 422, 503))
async def search(name: Name, request: SearchRequest, ws: WorkspaceDep) -> SearchResponse:
    # On the event loop, not in the thread pool: a search is a few milliseconds of CPU,
    # and sixteen of them at once in threads of one worker fought over its core. Opening a
    # new generation takes seconds, so that one step goes to the thread pool.
    if not ws.catalogs.is_open(name):
        await run_in_threadpool(ws.catalogs.searcher, name)
    if ws.rewrite_waits(request.history):  # a model's rewrite waits on I/O: not on the event loop
        return await run_in_threadpool(ws.catalogs.search, name, request.question, request.k, request.history)
    return ws.catalogs.search(name, request.question, request.k, request.history)


@router.get("/{name}/fields", tags=["structured"], responses=problem_responses(404, 409, 422, 503))
def get_fields(name: Name, ws: WorkspaceDep) -> FieldsResponse:
    """The catalog's queryable tables and columns (`tables`, `columns`)."""
    return ws.catalogs.fields(name)


@router.post("/{name}/query", tags=["structured"], responses=problem_responses(400, 404, 409, 413, 422, 503))
def query(name: Name, request: QueryRequest, ws: WorkspaceDep) -> QueryResponse:
    """Count, filter, group: one read-only SELECT (`sql`) or the JSON form (`query`), run in a locked-down DuckDB."""
    return ws.catalogs.query(name, request)


@router.post("/{name}/execute", tags=["execute"], responses=problem_responses(400, 403, 404, 409, 413, 422, 503))
def execute(
    name: Name, request: ExecuteRequest, ws: WorkspaceDep, caller: CallerDep, admin_key: AdminKey = None
) -> ExecuteResult:
    """Run one read-only query on the catalog's database, behind its preflight checklist.

    Without `approval`: the checklist (what the SQL assumes, where each value was confirmed,
    the questions for the user in one batch) and its verdict id. With `approval` set to a
    ready verdict whose slot values are all unchanged: the rows. 403 when no database is
    configured for the catalog (the config file's `url`), or, where the server sets an admin
    key, without it: running queries is the operator's to allow, like writes.
    """
    check_write(caller, ws.settings, admin_key, what="Running a query")
    return ws.catalogs.execute_sql(
        name, request.sql, request.question, approval=request.approval, answers=request.answers
    )


@router.get("/{name}/examples", responses=problem_responses(404, 409, 422, 503))
def list_examples(name: Name, ws: WorkspaceDep) -> ExamplesResponse:
    """The catalog's past queries (question -> SQL), searched next to its tables."""
    return ws.catalogs.list_examples(name)


@router.post("/{name}/examples", responses=problem_responses(403, 404, 409, 413, 422, 503))
async def add_examples(
    name: Name, request: ExamplesRequest, ws: WorkspaceDep, caller: CallerDep, admin_key: AdminKey = None
) -> ExamplesResponse:
    """Keep question -> SQL pairs with the catalog; the tables each reads are checked (422 names the pair).

    A write: needs the admin key where the server sets one.
    """
    check_write(caller, ws.settings, admin_key, what="Adding past queries")
    return await run_in_threadpool(ws.catalogs.add_examples, name, request.examples)


@router.get("/{name}/tables/{table}", responses=problem_responses(404, 409, 422, 503))
def get_table(name: Name, table: str, ws: WorkspaceDep) -> TableDetail:
    return ws.catalogs.table(name, table)


@router.post(
    "/{name}",
    responses=problem_responses(400, 403, 409, 413, 415, 422, 429, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": (
                "DDL text (Content-Type text/plain or application/sql), or JSON "
                '{"url": "...", "db": null} to introspect a database (needs '
                "SCHEMA_SEARCH_ALLOW_URL_SOURCES=true and the X-Admin-Key header)."
            ),
            "content": {
                "application/sql": {"schema": {"type": "string", "minLength": 1}},
                "text/plain": {"schema": {"type": "string", "minLength": 1}},
                "application/json": {"schema": IndexFromUrl.model_json_schema()},
            },
        }
    },
)
async def create_catalog(
    name: Name,
    request: Request,
    ws: WorkspaceDep,
    isolated: IsolatedDep,
    caller: CallerDep,
    admin_key: AdminKey = None,
    dialect: Annotated[str | None, Query(description="sqlglot dialect of uploaded DDL.")] = None,
) -> IndexResult:
    media_type = content_type(request)
    if media_type not in (*DDL_TYPES, JSON):
        sent = f"a {media_type} body" if media_type else "a body without a Content-Type"
        raise UnsupportedMediaType(
            f"Cannot index {sent} as a catalog.",
            hint=f'Send DDL as {" or ".join(DDL_TYPES)}, or {{"url": ...}} as {JSON} to index a database.',
        )
    body = await read_body(request, ws.settings.max_upload_bytes, "DDL")
    if media_type != JSON:
        _check_is_text(body, media_type)
    check_write(caller, ws.settings, admin_key)
    if media_type == JSON:
        source = _url_source(body)
        _check_url_allowed(ws.settings, caller, admin_key)
        return await run_in_threadpool(ws.catalogs.index, source.url, catalog=name, db=source.db)
    # CPU-bound: in the thread pool, off the event loop; a large upload in a child process.
    return await run_in_threadpool(_index_upload, ws.settings, isolated, name, body, dialect)


@router.delete("/{name}", status_code=204, response_class=Response, responses=problem_responses(403, 404, 409, 422))
async def delete_catalog(name: Name, ws: WorkspaceDep, caller: CallerDep, admin_key: AdminKey = None) -> Response:
    """Delete the catalog, every generation of it; searches of it answer 404 from then on.

    Needs the admin key where the server sets one (SCHEMA_SEARCH_ADMIN_KEY), as every write
    does; a server without one takes writes, deletes included, from anyone who reaches it.
    409 while another process indexes it.
    """
    check_write(caller, ws.settings, admin_key, what="Deleting a catalog")
    await run_in_threadpool(ws.catalogs.delete, name)  # waits a little for a writer's lock: off the event loop
    return Response(status_code=204)


def _check_is_text(body: bytes, media_type: str) -> None:
    """Refuse a body declared as DDL that its first bytes say is something else (a form, an archive)."""
    what = sniff(body)
    if what is not None:
        raise UnsupportedMediaType(
            f"The body is {what}, sent as {media_type}: it cannot be indexed as DDL.",
            hint="Send the DDL file itself as the body: curl --data-binary @schema.sql -H 'Content-Type: application/sql' "
            "(curl -F wraps it in a form). Documents go to /v1/corpora/{name}.",
        )


def _index_upload(settings: Settings, isolated: Isolated, name: str, body: bytes, dialect: str | None) -> IndexResult:
    check_name(name)  # before the parse, not after it
    return isolated.run(len(body), _index_ddl, settings, name, _decode(body), dialect, what="the DDL")


def _index_ddl(settings: Settings, name: str, text: str, dialect: str | None) -> IndexResult:
    """Parse the DDL and index it as a new generation of catalog ``name`` (here or in a child process).

    The DDL connector refuses text past ``max_ddl_bytes`` before parsing it.
    """
    from ..connectors.ddl import catalog_from_ddl

    options = {"catalog": name, "dialect": dialect, "source_name": "upload.sql", "max_bytes": settings.max_ddl_bytes}
    return Workspace(settings).catalogs.index_catalog(catalog_from_ddl(text, **options))


def _decode(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInput(f"The DDL is not UTF-8 text ({error}).", hint="Re-encode the file as UTF-8.") from None


def _url_source(body: bytes) -> IndexFromUrl:
    hint = 'Send {"url": "postgresql://...", "db": null}.'
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as error:  # RecursionError: the middleware bounds depth; this is a backstop
        raise InvalidInput(f"Bad JSON body: {error}", hint=hint) from None
    try:
        return IndexFromUrl.model_validate(value)
    except ValidationError as error:  # which field, not pydantic's whole report
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(f"Bad JSON body: {where + ': ' if where else ''}{first['msg']}", hint=hint) from None


def _check_url_allowed(settings: Settings, caller: Caller, presented: str | None) -> None:
    if not settings.allow_url_sources:
        raise Forbidden(
            "Indexing from a database URL is disabled on this server.",
            hint="An operator can enable it with SCHEMA_SEARCH_ALLOW_URL_SOURCES=true and SCHEMA_SEARCH_ADMIN_KEY; or upload DDL instead.",
        )
    check_server_admin(caller, settings, presented)  # the server's operator's to allow, in the request's space
