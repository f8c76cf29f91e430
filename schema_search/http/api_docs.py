"""``/docs`` (Swagger UI) and ``/redoc``, with their scripts and styles served from the package.

FastAPI's own pages load Swagger UI and ReDoc from cdn.jsdelivr.net (and ReDoc its
fonts from Google): on a machine without internet access, the usual place for a
server over private schemas, ``/docs`` was a blank page, and elsewhere every visit
was announced to a third party. The files come from the ``fastapi-offline`` wheel
(Swagger UI 5, which reads the OpenAPI 3.1 document FastAPI writes; the
``swagger-ui-bundle`` wheel still ships Swagger UI 4, which cannot).
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

ASSETS = "/static/docs"
# Not a public name of fastapi-offline, but the folder its wheel installs the files in.
ASSETS_FOLDER = files("fastapi_offline") / "static"
# Swagger UI shows a badge fetched from validator.swagger.io, sending it the
# document's URL; null turns it off.
SWAGGER_PARAMETERS = {"validatorUrl": None}


def install(app: FastAPI) -> None:
    """Serve the two pages and their files; the app must be built with ``docs_url=None, redoc_url=None``."""
    app.mount(ASSETS, StaticFiles(directory=str(ASSETS_FOLDER)), name="api-docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            oauth2_redirect_url=None,  # no OAuth here: the admin key is a header
            swagger_ui_parameters=SWAGGER_PARAMETERS,
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
