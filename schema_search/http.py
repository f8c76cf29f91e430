"""The HTTP API: a FastAPI app factory over :class:`~schema_search.workspace.Workspace`.

Every error leaves as ``application/problem+json`` (RFC 9457) with a ``detail`` that
says what was wrong and, where we know, a ``hint`` that says what to do.
"""

from __future__ import annotations

import hmac
import json
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import __version__
from .errors import Forbidden, InvalidInput, PayloadTooLarge, SchemaSearchError
from .models import CatalogInfo, IndexFromUrl, IndexResult, SearchRequest, SearchResponse, TableDetail
from .settings import Settings
from .workspace import Workspace

PROBLEM = "application/problem+json"


def problem(status: int, title: str, detail: str, hint: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    if hint:
        body["hint"] = hint
    return JSONResponse(body, status_code=status, media_type=PROBLEM)


def get_workspace(request: Request) -> Workspace:
    return request.app.state.workspace


# Module level, not inside create_app: FastAPI resolves these string annotations
# (from __future__ import annotations) in the module's namespace.
WorkspaceDep = Annotated[Workspace, Depends(get_workspace)]
AdminKey = Annotated[str | None, Header(alias="X-Admin-Key", description="Admin key for writes, when set.")]


def create_app(settings: Settings | None = None, workspace: Workspace | None = None) -> FastAPI:
    """Build the app. Nothing is created at import time; ``serve`` calls this."""
    workspace = workspace or Workspace(settings)
    app = FastAPI(
        title="schema_search",
        version=__version__,
        description="Find the few tables (with columns and join keys) that answer a question.",
    )
    app.state.workspace = workspace
    _add_error_handlers(app)

    @app.get("/healthz", tags=["meta"])
    def healthz(ws: WorkspaceDep) -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "catalogs": len(ws.store.names())}

    @app.get("/v1/catalogs", tags=["catalogs"])
    def list_catalogs(ws: WorkspaceDep) -> list[CatalogInfo]:
        return ws.catalogs()

    @app.get("/v1/catalogs/{name}", tags=["catalogs"])
    def get_catalog(name: str, ws: WorkspaceDep) -> CatalogInfo:
        return ws.info(name)

    @app.post("/v1/catalogs/{name}/search", tags=["search"])
    def search(name: str, request: SearchRequest, ws: WorkspaceDep) -> SearchResponse:
        return ws.search(name, request.question, request.k)

    @app.get("/v1/catalogs/{name}/tables/{table}", tags=["catalogs"])
    def get_table(name: str, table: str, ws: WorkspaceDep) -> TableDetail:
        return ws.table(name, table)

    @app.post(
        "/v1/catalogs/{name}",
        tags=["catalogs"],
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
        body = await _read_body(request, ws.settings.max_upload_bytes)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        _check_admin(ws.settings, admin_key, required=False)
        if content_type == "application/json":
            source = _url_source(body)
            _check_url_allowed(ws.settings, admin_key)
            return await run_in_threadpool(ws.index_source, source.url, catalog=name, db=source.db)
        return await run_in_threadpool(_index_ddl, ws, name, _decode(body), dialect)

    return app


def _index_ddl(ws: Workspace, name: str, text: str, dialect: str | None) -> IndexResult:
    from connectors.ddl import catalog_from_ddl

    return ws.index_catalog(catalog_from_ddl(text, catalog=name, dialect=dialect, source_name="upload.sql"))


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"The upload is {declared} bytes; the limit is {limit}.", hint="Split the DDL or raise SCHEMA_SEARCH_MAX_UPLOAD_BYTES.")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"The upload exceeds the limit of {limit} bytes.", hint="Split the DDL or raise SCHEMA_SEARCH_MAX_UPLOAD_BYTES.")
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise InvalidInput("The request body is empty.", hint="Send DDL text (Content-Type: application/sql) or a JSON {\"url\": ...}.")
    return body


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


def _check_admin(settings: Settings, presented: str | None, *, required: bool) -> None:
    expected = settings.admin_key.get_secret_value() if settings.admin_key else None
    if expected is None:
        if required:
            raise Forbidden("No admin key is configured on this server.", hint="Set SCHEMA_SEARCH_ADMIN_KEY.")
        return
    if presented is None or not hmac.compare_digest(presented.encode(), expected.encode()):
        raise Forbidden("Indexing needs the admin key.", hint="Send it in the X-Admin-Key header.")


def _check_url_allowed(settings: Settings, presented: str | None) -> None:
    if not settings.allow_url_sources:
        raise Forbidden(
            "Indexing from a database URL is disabled on this server.",
            hint="An operator can enable it with SCHEMA_SEARCH_ALLOW_URL_SOURCES=true and SCHEMA_SEARCH_ADMIN_KEY; or upload DDL instead.",
        )
    _check_admin(settings, presented, required=True)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(SchemaSearchError)
    async def known(_request: Request, error: SchemaSearchError) -> JSONResponse:
        return problem(error.status, error.title, error.detail, error.hint)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        parts = []
        for e in error.errors():
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return problem(422, "Invalid input", "; ".join(parts), "See the OpenAPI docs at /docs for the request shape.")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        hint = "See /docs for the available endpoints." if error.status_code in (404, 405) else None
        return problem(error.status_code, str(error.detail), str(error.detail), hint)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, error: Exception) -> JSONResponse:
        return problem(500, "Internal error", f"{type(error).__name__}: {error}", "This is a bug; please report it.")
