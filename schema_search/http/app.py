"""The HTTP API: a FastAPI app factory over :class:`~schema_search.workspace.Workspace`, one router per resource.

Every error leaves as ``application/problem+json`` (RFC 9457) with a ``detail`` that
says what was wrong and, where we know, a ``hint`` that says what to do.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import SchemaSearchError
from ..settings import Settings
from ..workspace import Workspace
from . import catalogs, corpora
from .deps import WorkspaceDep
from .readiness import Readiness

PROBLEM = "application/problem+json"


def problem(status: int, title: str, detail: str, hint: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    if hint:
        body["hint"] = hint
    return JSONResponse(body, status_code=status, media_type=PROBLEM)


def create_app(settings: Settings | None = None, workspace: Workspace | None = None, warm: bool = False) -> FastAPI:
    """Build the app. Nothing is created at import time; ``serve`` calls this.

    Args:
        warm: load the model and open every catalog and corpus before the first
            request (``serve`` does; a server worker takes connections only after it).
    """
    workspace = workspace or Workspace(settings)
    readiness = Readiness(workspace, warming=warm)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        if warm:
            await run_in_threadpool(readiness.warm)
        yield

    app = FastAPI(
        title="schema_search",
        version=__version__,
        description="Find the few tables (with columns and join keys), or the cited passages of documents, that answer a question.",
        lifespan=lifespan,
    )
    app.state.workspace = workspace
    _add_error_handlers(app)

    @app.get("/healthz", tags=["meta"])
    def healthz(ws: WorkspaceDep) -> dict[str, Any]:
        return {
            "status": "ok",
            "version": __version__,
            "catalogs": len(ws.store.names()),
            "corpora": len(ws.corpus_store.names()),
        }

    @app.get("/readyz", tags=["meta"], responses={503: {"description": "This worker is still loading"}})
    def readyz() -> JSONResponse:
        """Ready when this worker has its model loaded and every catalog and corpus open."""
        report = readiness.report()
        if report["status"] == "loading":
            # Seen by an app embedded elsewhere; `serve` answers nothing before it is warm.
            return problem(503, "Not ready", "This worker is still loading its model and indexes.", "Retry in a second.")
        # "degraded": some collection failed to open; the others answer, so the worker serves.
        return JSONResponse(report)

    app.include_router(catalogs.router)
    app.include_router(corpora.router)
    return app


def serve_app() -> FastAPI:
    """The app each ``serve`` worker builds: settings from the environment, warmed before it serves."""
    return create_app(Settings(), warm=True)


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
