"""The HTTP API: a FastAPI app factory over :class:`~schema_search.workspace.Workspace`, one router per resource.

Every error leaves as ``application/problem+json`` (RFC 9457) with a ``detail`` that
says what was wrong and, where we know, a ``hint`` that says what to do
(:mod:`.problems`). In front of the routes, three pure ASGI middlewares: the
concurrency limit (429) outermost, so a flood is refused before its bodies are read,
then what browsers may not send (403: other sites' writes, other host names;
:mod:`.browser_guard`), then
the body limit (413, and 422 for JSON no parser should see). The web page for people
is at ``/`` (:mod:`.web`).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import Scope

from .. import __version__
from ..core import masked_logs
from ..errors import InvalidInput, SchemaSearchError
from ..settings import Settings
from ..spaces.registry import Spaces
from ..workspace import Workspace
from . import api_docs, catalogs, corpora, evals, openapi, probes, server_info, spaces, web
from .body_limit import BodyLimit, Limit
from .browser_guard import BrowserGuard, allowed_hosts
from .concurrency import ConcurrencyLimit
from .isolated import Isolated
from .problems import PROBLEM, from_error, problem
from .readiness import Readiness
from .review import router as review_router

__all__ = ["PROBLEM", "create_app", "problem", "serve_app"]
PROBES = probes.PATHS
# The routes that take uploads (DDL, document archives) rather than JSON.
UPLOADS = (catalogs.create_catalog, corpora.create_corpus)
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
HTTP_HINTS = {
    400: "The body could not be read as its Content-Type says; see /docs for the request shape.",
    404: "See /docs for the available endpoints.",
}
# The codes of Starlette's own errors, where the status's phrase in snake_case would not say it.
HTTP_CODES = {404: "no_such_route"}


def create_app(settings: Settings | None = None, workspace: Workspace | None = None, warm: bool = False) -> FastAPI:
    """Build the app. Nothing is created at import time; ``serve`` calls this.

    Args:
        warm: load the model and open every catalog and corpus before the first
            request (``serve`` does; a server worker takes connections only after it).
    """
    workspace = workspace or Workspace(settings)
    masked_logs.install(workspace.settings.phone_region)  # uvicorn has configured logging by now
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
        docs_url=None,  # served by api_docs, from the package rather than a CDN
        redoc_url=None,
    )
    app.state.workspace = workspace  # the default space's
    app.state.spaces = Spaces(workspace.settings, default=workspace)  # each key acts in its space's Workspace
    app.state.isolated = Isolated()
    _add_error_handlers(app)
    api_docs.install(app)
    web.install(app)
    app.include_router(probes.router(readiness))
    app.include_router(catalogs.router)
    app.include_router(corpora.router)
    app.include_router(evals.router)
    app.include_router(review_router)
    app.include_router(server_info.router)
    app.include_router(spaces.router)
    s = workspace.settings
    app.add_middleware(BodyLimit, limit_for=_limits(s))
    app.add_middleware(BrowserGuard, hosts=allowed_hosts(s))
    app.add_middleware(ConcurrencyLimit, limit=s.max_concurrent_requests, exempt=PROBES)  # added last: outermost
    openapi.install(app, s, unlimited_paths=PROBES)
    return app


def _limits(settings: Settings):
    """The body limit of the route a request is for: uploads have theirs, everything else is JSON."""
    upload = Limit(settings.max_upload_bytes, "SCHEMA_SEARCH_MAX_UPLOAD_BYTES", "upload")
    request = Limit(settings.max_request_bytes, "SCHEMA_SEARCH_MAX_REQUEST_BYTES", "request body")
    # The routers' own routes: the app's are FastAPI's wrappers of whole routers.
    routers = (catalogs.router, corpora.router)
    routes = [r for router in routers for r in router.routes if getattr(r, "endpoint", None) in UPLOADS]

    def limit_for(scope: Scope) -> Limit:
        return upload if any(r.matches(scope)[0] is Match.FULL for r in routes) else request

    return limit_for


def serve_app() -> FastAPI:
    """The app each ``serve`` worker builds: settings from the environment, warmed before it serves."""
    return create_app(Settings(), warm=True)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(SchemaSearchError)
    async def known(_request: Request, error: SchemaSearchError) -> JSONResponse:
        return from_error(error)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        parts = []
        for e in error.errors():
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return problem(422, InvalidInput.code, "; ".join(parts), "See the OpenAPI docs at /docs for the request shape.")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        headers = dict(error.headers or {})
        hint = HTTP_HINTS.get(error.status_code)
        if error.status_code == 405:
            # Starlette names the methods of the first route that matched the path
            # only; GET and POST of /v1/catalogs/{name} are two routes.
            allowed = _allowed_methods(request.app, request.scope)
            headers["Allow"] = ", ".join(allowed)
            hint = f"{request.url.path} takes {', '.join(allowed)}; see /docs."
        status = error.status_code
        code = HTTP_CODES.get(status) or HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
        return problem(status, code, str(error.detail), hint, headers)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, error: Exception) -> JSONResponse:
        return problem(500, "internal_error", f"{type(error).__name__}: {error}", "This is a bug; please report it.")


def _allowed_methods(app: FastAPI, scope: Scope) -> list[str]:
    """Every method some route takes at this path, found by asking the routes about each.

    Asked, not read off ``route.methods``: FastAPI wraps an included router in one
    route that has no methods of its own.
    """
    return [
        method
        for method in METHODS
        if any(route.matches({**scope, "method": method})[0] is Match.FULL for route in app.router.routes)
    ]
